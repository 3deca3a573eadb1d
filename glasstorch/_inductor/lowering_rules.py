"""The lowering rules: views, pointwise ops, factories, reductions and matmuls (``torch/_inductor/lowering.py``).

Each rule takes the :class:`~.lowering.GraphLowering` and the node's arguments (boxes for tensors) and returns
a box (or a tuple of boxes).  Pointwise rules compute in the op's result dtype with libm for the transcendental
functions, except float32 ``exp``/``erf``, which use the eager C kernels' inline vector versions (``E`` in
lowering.py), so compiled and eager agree bit for bit; float reductions accumulate in double.

Invariant: a rule returns exactly the sizes and dtype of the op's meta function (strides are chosen later).
"""

from __future__ import annotations

import math

from .._core import dtype as _dt
from .._core import shape as _shape
from .._ops.kernels.cpu import ckernels_src as _ck_src
from . import ir
from .ir import BufView, Pointwise, Reindexed, ops
from .lowering import (
    _VIEW_TARGETS,
    B,
    E,
    Unsupported,
    aten,
    broadcast_shapes,
    broadcast_to,
    pointwise,
    register,
    result_dtype,
    to_dtype,
    wrap_dim,
)

# -- views ----------------------------------------------------------------------------------------------------
VIEW_OPS = [aten.view.default, aten._unsafe_view.default, aten.reshape.default, aten.expand.default,
            aten.permute.default, aten.transpose.int, aten.t.default, aten.unsqueeze.default, aten.squeeze.dim,
            aten.squeeze.default, aten.select.int, aten.slice.Tensor, aten.alias.default, aten.detach.default,
            aten.split.Tensor, aten.split_with_sizes.default, aten.unbind.int, aten.as_strided.default]
VIEW_OPS += [aten.squeeze.dims, aten.lift_fresh_copy.default]
_VIEW_TARGETS.update(op.__name__ for op in VIEW_OPS)


def _infer_size(sizes, numel):
    sizes = list(sizes)
    if -1 in sizes:
        i = sizes.index(-1)
        rest = math.prod(s for j, s in enumerate(sizes) if j != i)
        sizes[i] = numel // rest if rest else 0
    if math.prod(sizes) != numel:
        raise Unsupported("bad view size")
    return tuple(sizes)


def view_strides(old_sizes, old_strides, new_sizes):
    """Strides of a no-copy reshape (PyTorch's ``computeStride``), or None when the layout forbids one."""
    if not old_sizes:
        return ir.contiguous_strides(new_sizes)
    return _shape.compute_stride(old_sizes, old_strides, new_sizes)


@register(aten.view.default, aten._unsafe_view.default, aten.reshape.default)
def _view(g, x, size):
    sizes = _infer_size(size, x.numel())
    if sizes == x.sizes:
        return x
    if isinstance(x, BufView):
        st = view_strides(x.sizes, x.strides, sizes)
        if st is not None:
            return BufView(x.buf, sizes, st, x.offset)
    old = x.sizes
    new_st = ir.contiguous_strides(sizes)

    def reindex(idx):
        return ir.unflatten(ir.flatten(idx, new_st), old)

    def remake(bv):
        st = view_strides(bv.sizes, bv.strides, sizes)
        return None if st is None else BufView(bv.buf, sizes, st, bv.offset)
    return Reindexed(x, sizes, reindex, remake)


@register(aten.expand.default)
def _expand(g, x, size, implicit=False):
    lead = len(size) - len(x.sizes)
    sizes = tuple(x.sizes[i - lead] if s == -1 else s for i, s in enumerate(size))
    return broadcast_to(x, sizes)


def _permute_box(x, perm):
    sizes = tuple(x.sizes[p] for p in perm)
    if isinstance(x, BufView):
        return BufView(x.buf, sizes, tuple(x.strides[p] for p in perm), x.offset)
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return Reindexed(x, sizes, lambda idx: [idx[inv[d]] for d in range(len(perm))],
                     lambda bv: _permute_box(bv, perm))


@register(aten.permute.default)
def _permute(g, x, dims):
    n = len(x.sizes)
    return _permute_box(x, [wrap_dim(d, n) for d in dims])


@register(aten.transpose.int)
def _transpose(g, x, dim0, dim1):
    n = len(x.sizes)
    if n == 0:
        return x
    a, b = wrap_dim(dim0, n), wrap_dim(dim1, n)
    perm = list(range(n))
    perm[a], perm[b] = perm[b], perm[a]
    return _permute_box(x, perm)


@register(aten.t.default)
def _t(g, x):
    return x if len(x.sizes) < 2 else _permute_box(x, [1, 0])


def _restride(x, sizes, pick):
    """A view whose dim i reads dim ``pick[i]`` of ``x`` (None: a new size-1 dim); dropped dims must be 1."""
    if isinstance(x, BufView):
        return BufView(x.buf, sizes, tuple(0 if p is None else x.strides[p] for p in pick), x.offset)
    n = len(x.sizes)

    def reindex(idx):
        out = [ir.const(0)] * n
        for i, p in enumerate(pick):
            if p is not None:
                out[p] = idx[i]
        return out
    return Reindexed(x, sizes, reindex, lambda bv: _restride(bv, sizes, pick))


@register(aten.unsqueeze.default)
def _unsqueeze(g, x, dim):
    d = wrap_dim(dim, len(x.sizes) + 1)
    pick = list(range(len(x.sizes)))
    pick.insert(d, None)
    sizes = x.sizes[:d] + (1,) + x.sizes[d:]
    return _restride(x, sizes, pick)


def _squeeze_dims(g, x, dims):
    n = len(x.sizes)
    drop = {wrap_dim(d, n) for d in dims if x.sizes[wrap_dim(d, n)] == 1} if n else set()
    keep = [i for i in range(n) if i not in drop]
    return _restride(x, tuple(x.sizes[i] for i in keep), keep)


@register(aten.squeeze.dim)
def _squeeze_dim(g, x, dim):
    return _squeeze_dims(g, x, [dim])


register(aten.squeeze.dims)(_squeeze_dims)


@register(aten.squeeze.default)
def _squeeze(g, x):
    return _squeeze_dims(g, x, list(range(len(x.sizes))))


@register(aten.select.int)
def _select(g, x, dim, index):
    n = len(x.sizes)
    d = wrap_dim(dim, n)
    i = index + x.sizes[d] if index < 0 else index
    sizes = x.sizes[:d] + x.sizes[d + 1:]
    if isinstance(x, BufView):
        return BufView(x.buf, sizes, x.strides[:d] + x.strides[d + 1:], x.offset + i * x.strides[d])
    return Reindexed(x, sizes, lambda idx: list(idx[:d]) + [ir.const(i)] + list(idx[d:]),
                     lambda bv: _select(g, bv, d, i))


def _slice_box(x, d, start, length, step):
    sizes = x.sizes[:d] + (length,) + x.sizes[d + 1:]
    if isinstance(x, BufView):
        st = list(x.strides)
        st[d] *= step
        return BufView(x.buf, sizes, st, x.offset + start * x.strides[d])
    return Reindexed(x, sizes, lambda idx: list(idx[:d]) + [idx[d] * step + start] + list(idx[d + 1:]),
                     lambda bv: _slice_box(bv, d, start, length, step))


@register(aten.slice.Tensor)
def _slice(g, x, dim=0, start=None, end=None, step=1):
    d = wrap_dim(dim, len(x.sizes))
    n = x.sizes[d]
    start = 0 if start is None else start + n if start < 0 else start
    end = n if end is None else end + n if end < 0 else end
    start, end = min(max(start, 0), n), min(max(end, 0), n)
    length = max(0, (end - start + step - 1) // step)
    if start == 0 and length == n and step == 1:
        return x
    return _slice_box(x, d, start, length, step)


@register(aten.split.Tensor)
def _split(g, x, split_size, dim=0):
    d = wrap_dim(dim, len(x.sizes))
    n = x.sizes[d]
    sizes = [min(split_size, n - s) for s in range(0, n, split_size)] if split_size else [n]
    return _split_sizes(g, x, sizes, d)


@register(aten.split_with_sizes.default)
def _split_sizes(g, x, split_sizes, dim=0):
    d = wrap_dim(dim, len(x.sizes))
    out, start = [], 0
    for s in split_sizes:
        out.append(_slice_box(x, d, start, s, 1))
        start += s
    return out


@register(aten.unbind.int)
def _unbind(g, x, dim=0):
    d = wrap_dim(dim, len(x.sizes))
    return [_select(g, x, d, i) for i in range(x.sizes[d])]


@register(aten.alias.default, aten.detach.default, aten.lift_fresh_copy.default)
def _alias(g, x):
    return x


@register(aten.clone.default)
def _clone(g, x, memory_format=None):
    return x


@register(aten.as_strided.default)
def _as_strided(g, x, size, stride, storage_offset=None):
    if not isinstance(x, BufView) or x.buf.kind not in ("computed",):
        raise Unsupported("as_strided of an input")
    return BufView(x.buf, tuple(size), tuple(stride), x.offset if storage_offset is None else storage_offset)


# -- conversions and factories --------------------------------------------------------------------------------
@register(aten._to_copy.default)
def _to_copy(g, x, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    if device is not None and str(device) != "cpu":
        raise Unsupported("device change")
    return to_dtype(x, dtype or x.dtype) if dtype not in (None, x.dtype) else Pointwise(
        x.sizes, x.dtype, x.load, x.cost)


@register(aten.copy.default)
def _copy(g, x, src, non_blocking=False):
    return to_dtype(broadcast_to(src, x.sizes), x.dtype)


def _fill_dtype(value, dtype):
    return dtype or _dt.scalar_dtype(value)


def _const_box(sizes, value, dtype):
    if not ir.supported_dtype(dtype):
        raise Unsupported("dtype")
    return Pointwise(tuple(sizes), dtype, lambda idx: ops.constant(value, dtype))


@register(aten.full.default)
def _full(g, size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    return _const_box(size, fill_value, _fill_dtype(fill_value, dtype))


@register(aten.zeros.default, aten.empty.memory_format)
def _zeros(g, size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _const_box(size, 0, dtype or _dt.get_default_dtype())


@register(aten.ones.default)
def _ones(g, size, dtype=None, layout=None, device=None, pin_memory=None):
    return _const_box(size, 1, dtype or _dt.get_default_dtype())


@register(aten.scalar_tensor.default)
def _scalar_tensor(g, s, dtype=None, layout=None, device=None, pin_memory=None):
    return _const_box((), s, dtype or _dt.get_default_dtype())


@register(aten.full_like.default)
def _full_like(g, x, fill_value, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _const_box(x.sizes, fill_value, dtype or x.dtype)


@register(aten.zeros_like.default, aten.empty_like.default)
def _zeros_like(g, x, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _const_box(x.sizes, 0, dtype or x.dtype)


@register(aten.ones_like.default)
def _ones_like(g, x, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return _const_box(x.sizes, 1, dtype or x.dtype)


# -- pointwise ------------------------------------------------------------------------------------------------
def _binary(template, float_only=False, no_bool=False):
    def rule(g, a, b, alpha=None):
        dt = result_dtype(a, b)
        if (float_only and not dt.is_floating_point) or (no_bool and dt is _dt.bool):
            raise Unsupported("dtype")
        if alpha is not None and alpha != 1:
            return pointwise([a, b, alpha], E(template.format("{0}", "({2} * {1})")), dt)
        return pointwise([a, b], E(template.format("{0}", "{1}")), dt)
    return rule


register(aten.add.Tensor, aten.add.Scalar)(_binary("({} + {})", no_bool=True))
register(aten.sub.Tensor, aten.sub.Scalar)(_binary("({} - {})", no_bool=True))
register(aten.mul.Tensor, aten.mul.Scalar)(_binary("({} * {})", no_bool=True))


@register(aten.rsub.Scalar, aten.rsub.Tensor)
def _rsub(g, a, b, alpha=1):
    dt = result_dtype(a, b)
    if dt is _dt.bool:
        raise Unsupported("bool")
    return pointwise([b, a, alpha], E("({0} - {2} * {1})"), dt)


@register(aten.div.Tensor, aten.div.Scalar)
def _div(g, a, b):
    dt = result_dtype(a, b)
    if not dt.is_floating_point:
        dt = _dt.get_default_dtype()
    return pointwise([a, b], E("({0} / {1})"), dt)


@register(aten.div.Tensor_mode, aten.div.Scalar_mode)
def _div_mode(g, a, b, rounding_mode=None):
    dt = result_dtype(a, b)
    if rounding_mode is None:
        return _div(g, a, b)
    if not dt.is_floating_point:
        raise Unsupported("integer division")
    fn = "trunc{f}" if rounding_mode == "trunc" else "floor{f}"
    return pointwise([a, b], E(fn + "({0} / {1})"), dt)


def _cmp(op):
    def rule(g, a, b):
        return pointwise([a, b], B(f"({{0}} {op} {{1}})"), _dt.bool, result_dtype(a, b))
    return rule


for _name, _op in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")):
    register(getattr(aten, _name).Tensor, getattr(aten, _name).Scalar)(_cmp(_op))


def _float_unary(template):
    def rule(g, x):
        dt = x.dtype if x.dtype.is_floating_point else _dt.get_default_dtype()
        return pointwise([x], E(template), dt)
    return rule


for _name, _tpl in (("exp", "exp{f}({0})"), ("log", "log{f}({0})"), ("sqrt", "sqrt{f}({0})"),
                    ("rsqrt", "(({T})1 / sqrt{f}({0}))"), ("sin", "sin{f}({0})"), ("cos", "cos{f}({0})"),
                    ("tanh", "tanh{f}({0})"), ("erf", "erf{f}({0})"), ("log1p", "log1p{f}({0})"),
                    ("expm1", "expm1{f}({0})"), ("reciprocal", "(({T})1 / {0})"), ("exp2", "exp2{f}({0})"),
                    ("log2", "log2{f}({0})"), ("tan", "tan{f}({0})"), ("atan", "atan{f}({0})"),
                    ("sigmoid", "(({T})1 / (({T})1 + exp{f}(-{0})))")):
    register(getattr(aten, _name).default)(_float_unary(_tpl))


def _same_unary(template, float_only=False, no_bool=True):
    def rule(g, x):
        if (float_only and not x.dtype.is_floating_point) or (no_bool and x.dtype is _dt.bool):
            raise Unsupported("dtype")
        return pointwise([x], E(template), x.dtype)
    return rule


register(aten.neg.default)(_same_unary("(-{0})"))
register(aten.abs.default)(_same_unary("({0} < 0 ? -{0} : {0})"))
register(aten.relu.default)(_same_unary("({0} < 0 ? ({T})0 : {0})"))
register(aten.floor.default)(_same_unary("floor{f}({0})", float_only=True))
register(aten.ceil.default)(_same_unary("ceil{f}({0})", float_only=True))
register(aten.trunc.default)(_same_unary("trunc{f}({0})", float_only=True))
register(aten.round.default)(_same_unary("nearbyint{f}({0})", float_only=True))
register(aten.sign.default)(_same_unary("(({T})(({0} > 0) - ({0} < 0)))"))


@register(aten.logical_not.default)
def _logical_not(g, x):
    return pointwise([x], B("(!{0})"), _dt.bool, x.dtype)


@register(aten.bitwise_not.default)
def _bitwise_not(g, x):
    if x.dtype is _dt.bool:
        return pointwise([x], B("(!{0})"), _dt.bool)
    if x.dtype.is_floating_point:
        raise Unsupported("float")
    return pointwise([x], E("(~{0})"), x.dtype)


def _logical(op):
    def rule(g, a, b):
        return pointwise([to_dtype(a, _dt.bool), to_dtype(b, _dt.bool)], B(f"({{0}} {op} {{1}})"), _dt.bool)
    return rule


register(aten.logical_and.default)(_logical("&&"))
register(aten.logical_or.default)(_logical("||"))
register(aten.logical_xor.default)(_logical("!="))


@register(aten.where.self)
def _where(g, cond, a, b):
    return _where_box(cond, a, b, result_dtype(a, b))


def _where_box(cond, a, b, dt):
    shape = broadcast_shapes(*[x.sizes for x in (cond, a, b) if hasattr(x, "sizes")])
    c = broadcast_to(to_dtype(cond, _dt.bool), shape)
    vals = [broadcast_to(x, shape) if hasattr(x, "sizes") else x for x in (a, b)]
    for v in vals:
        if hasattr(v, "sizes") and not ir.supported_dtype(v.dtype):
            raise Unsupported("dtype")

    def ld(v, idx):
        return ops.to(v.load(idx), dt) if hasattr(v, "sizes") else ops.constant(v, dt)

    def fn(idx):
        return ops.expr("({0} ? {1} : {2})", (c.load(idx), ld(vals[0], idx), ld(vals[1], idx)), dt)
    return Pointwise(shape, dt, fn, sum(getattr(v, "cost", 0) for v in (c, *vals)) + 1)


@register(aten.masked_fill.Scalar, aten.masked_fill.Tensor)
def _masked_fill(g, x, mask, value):
    return _where_box(mask, value, x, x.dtype)


def _minmax(pick_first):
    def rule(g, a, b):
        dt = result_dtype(a, b)
        if dt.is_floating_point:
            tpl = f"(({{0}} {pick_first} {{1}} || {{0}} != {{0}}) ? {{0}} : {{1}})"
        else:
            tpl = f"({{0}} {pick_first} {{1}} ? {{0}} : {{1}})"
        return pointwise([a, b], E(tpl), dt)
    return rule


register(aten.maximum.default)(_minmax(">"))
register(aten.minimum.default)(_minmax("<"))


@register(aten.clamp.default)
def _clamp(g, x, min=None, max=None):
    dt = result_dtype(x, *(v for v in (min, max) if v is not None))
    if dt is _dt.bool:
        raise Unsupported("bool")
    args, tpl = [x], "{0}"
    if min is not None:
        args.append(min)
        tpl = f"({tpl} < {{{len(args) - 1}}} ? {{{len(args) - 1}}} : {tpl})"
    if max is not None:
        args.append(max)
        tpl = f"({tpl} > {{{len(args) - 1}}} ? {{{len(args) - 1}}} : {tpl})"
    return pointwise(args, E(tpl), dt)


@register(aten.clamp_min.default)
def _clamp_min(g, x, min):
    return _clamp(g, x, min=min)


@register(aten.clamp_max.default)
def _clamp_max(g, x, max):
    return _clamp(g, x, max=max)


@register(aten.pow.Tensor_Scalar)
def _pow_scalar(g, x, e):
    dt = result_dtype(x, e)
    if not dt.is_floating_point:
        raise Unsupported("integer pow")
    special = {2: "({0} * {0})", 3: "({0} * {0} * {0})", 1: "{0}", 0.5: "sqrt{f}({0})", -1: "(({T})1 / {0})",
               -0.5: "(({T})1 / sqrt{f}({0}))", -2: "(({T})1 / ({0} * {0}))", 0: "(({T})1)"}
    if e in special and not isinstance(e, bool):
        return pointwise([x], E(special[e]), dt)
    return pointwise([x, e], E("pow{f}({0}, {1})"), dt)


@register(aten.pow.Tensor_Tensor)
def _pow(g, a, b):
    dt = result_dtype(a, b)
    if not dt.is_floating_point:
        raise Unsupported("integer pow")
    return pointwise([a, b], E("pow{f}({0}, {1})"), dt)


# what gelu's inline functions weigh against single ops (about the op count of the erf formula they replace): a
# gelu value read twice is computed into a buffer, not inlined into both readers
_GELU_OPS = 12


@register(aten.gelu.default)
def _gelu(g, x, approximate="none"):
    if not x.dtype.is_floating_point:
        raise Unsupported("dtype")
    if approximate == "tanh":
        tpl = ("(({T})0.5 * {0} * (({T})1 + tanh{f}(({T})0.7978845608028654 * ({0} + ({T})0.044715 * {0} * {0} * "
               "{0}))))")
    else:
        # the eager C kernels' inline functions (ckernels_src.MATH), so that compiled and eager agree bit for bit;
        # float32: eager's for a contiguous input (Note [gelu's special values follow torch's kernel])
        return pointwise([x], E("gt_gelu_d({0})", f32=_ck_src.gelu_f32(onednn=True, arg="{0}")), x.dtype,
                         ops_count=_GELU_OPS)
    return pointwise([x], E(tpl), x.dtype)


@register(aten.gelu_backward.default)
def _gelu_backward(g, grad, x, approximate="none"):
    if approximate != "none" or not x.dtype.is_floating_point:
        raise Unsupported("tanh gelu backward")
    return pointwise([grad, x], E("gt_gelu_backward_d({0}, {1})", f32="gt_gelu_backward({0}, {1})"), x.dtype,
                     ops_count=_GELU_OPS)


@register(aten.tanh_backward.default)
def _tanh_backward(g, grad, y):
    return pointwise([grad, y], E("({0} * (({T})1 - {1} * {1}))"), result_dtype(grad, y))


@register(aten.sigmoid_backward.default)
def _sigmoid_backward(g, grad, y):
    return pointwise([grad, y], E("({0} * ((({T})1 - {1}) * {1}))"), result_dtype(grad, y))


@register(aten.threshold_backward.default)
def _threshold_backward(g, grad, x, threshold):
    dt = result_dtype(grad, x)
    return pointwise([grad, x, threshold], E("({1} <= {2} ? ({T})0 : {0})"), dt)


def _tri(keep_lower):
    def rule(g, x, diagonal=0):
        if len(x.sizes) < 2:
            raise Unsupported("tril needs 2 dims")
        n = len(x.sizes)

        def fn(idx):
            v = x.load(idx)
            d = idx[n - 1] + idx[n - 2] * -1
            cond = ops.index_expr(d, _dt.int64)
            op = "<=" if keep_lower else ">="
            return ops.expr(f"({{1}} {op} {diagonal} ? {{0}} : ({ir.ctype(x.dtype)})0)", (v, cond), x.dtype)
        return Pointwise(x.sizes, x.dtype, fn, x.cost + 2)
    return rule


register(aten.tril.default)(_tri(True))
register(aten.triu.default)(_tri(False))


@register(aten.arange.start_step)
def _arange(g, start, end=None, step=1, dtype=None, layout=None, device=None, pin_memory=None):
    if dtype is None:
        dtype = _dt.int64 if all(isinstance(v, int) for v in (start, end, step)) else _dt.get_default_dtype()
    if not all(isinstance(v, int) for v in (start, end, step)):
        raise Unsupported("float arange")
    n = max(0, -(-(end - start) // step))
    return Pointwise((n,), dtype, lambda idx: ops.index_expr(idx[0] * step + start, dtype))


@register(aten.arange.default)
def _arange0(g, end, dtype=None, layout=None, device=None, pin_memory=None):
    return _arange(g, 0, end, 1, dtype)


@register(aten.arange.start)
def _arange1(g, start, end, dtype=None, layout=None, device=None, pin_memory=None):
    return _arange(g, start, end, 1, dtype)
