"""Lowering rules for indexing, concatenation, reductions, matmuls and attention (``torch/_inductor/lowering.py``).

Reductions become :class:`~.ir.ComputeNode` loops (float sums accumulate in double); ``mm``/``bmm``/``addmm``
are BLAS externs with the bias added in a fused epilogue; flash attention is two bmm calls around one fused
row-softmax group; ``cat`` is one pointwise select, which :mod:`.loop_split` cuts into one loop per input;
embedding/gather read through indirect indices.  The decompositions of :mod:`.decomposition` are registered
here as lowerings too.

Invariant: as in :mod:`.lowering_rules`, every rule returns the sizes and dtype of the op's meta function.
"""

from __future__ import annotations

import math

from .._core import dtype as _dt
from . import ir, loop_split
from .decomposition import decompositions
from .ir import Pointwise, ops
from .lowering import E, Unsupported, aten, find_rule, pointwise, register, result_dtype, to_dtype, wrap_dim
from .lowering import lowerings as lowerings_table
from .lowering_rules import _permute_box, _squeeze_dims, _view


# -- indexing -------------------------------------------------------------------------------------------------
def _index_term(g, index_box, idx):
    """An Affine term reading an integer index tensor at ``idx`` (indirect indexing)."""
    iv = g.realize(index_box)
    return ir.Affine({ir.Load(iv.buf, ir.flatten(idx, iv.strides) + iv.offset): 1})


@register(aten.embedding.default)
def _embedding(g, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if len(weight.sizes) != 2 or indices.dtype not in (_dt.int64, _dt.int32):
        raise Unsupported("embedding shape")
    w = g.realize(weight)
    iv = g.realize(indices)
    k = len(indices.sizes)

    def fn(idx):
        row = _index_term(g, iv, idx[:k])
        return ops.load(w.buf, row * w.strides[0] + idx[k] * w.strides[1] + w.offset)
    return Pointwise(indices.sizes + (weight.sizes[1],), weight.dtype, fn, 2)


@register(aten.gather.default)
def _gather(g, x, dim, index, sparse_grad=False):
    n = len(x.sizes)
    d = wrap_dim(dim, n)
    if len(index.sizes) != n or n == 0:
        raise Unsupported("gather rank")
    xv = g.realize(x)
    iv = g.realize(index)

    def fn(idx):
        full = list(idx)
        full[d] = _index_term(g, iv, idx)
        return ops.load(xv.buf, ir.flatten(full, xv.strides) + xv.offset)
    return Pointwise(index.sizes, x.dtype, fn, 2)


def _one_hot_scatter(g, x, dim, index, src, template):
    """A scatter whose index has size 1 along ``dim`` and x's sizes elsewhere, as a pointwise select over x:
    ``template`` of (position == index, src value, x value).  (cross_entropy's backward and one-hot targets.)"""
    n = len(x.sizes)
    if n == 0:
        raise Unsupported("0-dim scatter")
    d = wrap_dim(dim, n)
    if len(index.sizes) != n or index.sizes[d] != 1 or any(
            a != b for i, (a, b) in enumerate(zip(index.sizes, x.sizes, strict=False)) if i != d):
        raise Unsupported("general scatter")
    iv = g.realize(index)

    def fn(idx):
        at = list(idx)
        at[d] = ir.const(0)
        target = ops.index_expr(_index_term(g, iv, at), _dt.int64)
        pos = ops.index_expr(idx[d], _dt.int64)
        sv = ops.to(src.load(at), x.dtype) if hasattr(src, "sizes") else ops.constant(src, x.dtype)
        return ops.expr(template, (pos, target, sv, x.load(idx)), x.dtype)
    return Pointwise(x.sizes, x.dtype, fn, x.cost + 3)


@register(aten.scatter.src, aten.scatter.value)
def _scatter(g, x, dim, index, src):
    """out[..c..] = c == index[..0..] ? src : x."""
    return _one_hot_scatter(g, x, dim, index, src, "({0} == {1} ? {2} : {3})")


@register(aten.scatter_add.default)
def _scatter_add(g, x, dim, index, src):
    """out[..c..] = x + (c == index[..0..] ? src : 0): one addition per element, as eager's (x + 0 keeps x)."""
    if not x.dtype.is_floating_point or src.dtype != x.dtype:
        raise Unsupported("scatter_add dtype")
    return _one_hot_scatter(g, x, dim, index, src, "({0} == {1} ? {3} + {2} : {3})")


@register(aten.cat.default)
def _cat(g, tensors, dim=0):
    """Concatenation as one pointwise select: input i is read where the index falls in its range.

    Where the bounds of the index (loop ranges, or a branch's facts) lie in one input, only that input is read;
    otherwise the select is kept and a split request tells :mod:`.loop_split` where to cut the loop."""
    parts = [t for t in tensors if not (len(t.sizes) == 1 and t.sizes[0] == 0)]
    if not parts or len(parts) > 8:
        raise Unsupported("cat arity")
    n = len(parts[0].sizes)
    d = wrap_dim(dim, n)
    dt = result_dtype(*parts)
    starts, total = [], 0
    for t in parts:
        if len(t.sizes) != n or not ir.supported_dtype(t.dtype):
            raise Unsupported("cat shapes")
        starts.append(total)
        total += t.sizes[d]
    sizes = parts[0].sizes[:d] + (total,) + parts[0].sizes[d + 1:]
    cuts = (*starts, total)

    def fn(idx):
        e = idx[d]
        lo, hi = loop_split.known_bounds(e)
        if lo is None:
            lo, hi = 0, total - 1
        hit = [j for j in range(len(parts)) if cuts[j] < cuts[j + 1] and cuts[j] <= hi and lo < cuts[j + 1]]
        hit = hit or list(range(len(parts)))
        if len(hit) == 1:  # the loop (piece) lies in one input: read it, no select, no clamp
            local = list(idx)
            local[d] = e + (-starts[hit[0]])
            return ops.to(parts[hit[0]].load(local), dt)
        loop_split.request(e, cuts)
        pos = ops.index_expr(e, _dt.int64)
        val = None
        for j in hit:
            t, st = parts[j], starts[j]
            local = list(idx)
            local[d] = ir.clamp(e + (-st), 0, t.sizes[d] - 1)
            v = ops.to(t.load(local), dt)
            val = v if val is None else ops.expr(f"({{0}} >= {st} ? {{1}} : {{2}})", (pos, v, val), dt)
        return val
    return Pointwise(sizes, dt, fn, sum(t.cost for t in parts) + len(parts))


# -- reductions -----------------------------------------------------------------------------------------------
def _all_dims(x, dim):
    return list(range(len(x.sizes))) if dim is None or (isinstance(dim, (list, tuple)) and not dim) else (
        [dim] if isinstance(dim, int) else list(dim))


def _acc(dt):
    return _dt.float64 if dt.is_floating_point else _dt.int64


@register(aten.sum.dim_IntList)
def _sum(g, x, dim=None, keepdim=False, dtype=None):
    out = dtype or (_dt.int64 if not x.dtype.is_floating_point else x.dtype)
    if not x.sizes:
        return to_dtype(x, out)
    return g.reduce(x, _all_dims(x, dim), keepdim, "sum", out, _acc(out))


@register(aten.sum.default)
def _sum_all(g, x, dtype=None):
    return _sum(g, x, None, False, dtype)


@register(aten.mean.dim)
def _mean(g, x, dim=None, keepdim=False, dtype=None):
    out = dtype or x.dtype
    if not out.is_floating_point:
        raise Unsupported("integer mean")
    if not x.sizes:
        return to_dtype(x, out)
    return g.reduce(x, _all_dims(x, dim), keepdim, "mean", out, _dt.float64)


@register(aten.mean.default)
def _mean_all(g, x, dtype=None):
    return _mean(g, x, None, False, dtype)


def _extreme(rtype):
    def rule(g, x, dim=None, keepdim=False):
        if not x.sizes:
            return x
        return g.reduce(x, _all_dims(x, dim), keepdim, rtype, x.dtype, x.dtype)
    return rule


register(aten.amax.default)(_extreme("max"))
register(aten.amin.default)(_extreme("min"))


@register(aten.max.default)
def _max_all(g, x):
    return _extreme("max")(g, x)


@register(aten.min.default)
def _min_all(g, x):
    return _extreme("min")(g, x)


@register(aten.any.default, aten.any.dim, aten.any.dims)
def _any(g, x, dim=None, keepdim=False):
    b = to_dtype(x, _dt.bool)
    return g.reduce(b, _all_dims(x, dim), keepdim, "max", _dt.bool, _dt.bool) if x.sizes else b


# -- matmul (BLAS externs) ------------------------------------------------------------------------------------
def _mm_dtype(a, b):
    if a.dtype is not b.dtype or a.dtype not in (_dt.float32, _dt.float64):
        raise Unsupported("mm dtype")
    return a.dtype


@register(aten.mm.default)
def _mm(g, a, b):
    if len(a.sizes) != 2 or len(b.sizes) != 2 or a.sizes[1] != b.sizes[0]:
        raise Unsupported("mm shapes")
    return g.extern_mm("mm", a, b, (a.sizes[0], b.sizes[1]), _mm_dtype(a, b))


@register(aten.bmm.default)
def _bmm(g, a, b):
    if len(a.sizes) != 3 or len(b.sizes) != 3 or a.sizes[0] != b.sizes[0] or a.sizes[2] != b.sizes[1]:
        raise Unsupported("bmm shapes")
    return g.extern_mm("bmm", a, b, (a.sizes[0], a.sizes[1], b.sizes[2]), _mm_dtype(a, b))


@register(aten.addmm.default)
def _addmm(g, bias, a, b, beta=1, alpha=1):
    prod = _mm(g, a, b)
    if bias.dtype is not prod.dtype:
        raise Unsupported("addmm dtype")
    if beta == 1 and alpha == 1:
        return pointwise([prod, bias], E("({0} + {1})"), prod.dtype)
    return pointwise([prod, bias, alpha, beta], E("({3} * {1} + {2} * {0})"), prod.dtype)


# -- attention --------------------------------------------------------------------------------------------------
@register(aten._scaled_dot_product_flash_attention_for_cpu.default)
def _sdpa_flash(g, q, k, v, dropout_p=0.0, is_causal=False, attn_mask=None, scale=None):
    """``(softmax(q k^T * scale, causal) @ v, logsumexp)`` as BLAS bmm + one fused row-softmax group."""
    if dropout_p or attn_mask is not None or len(q.sizes) != 4 or k.sizes[:2] != q.sizes[:2] or \
            v.sizes[:3] != k.sizes[:3] or q.dtype not in (_dt.float32, _dt.float64):
        raise Unsupported("sdpa variant")
    B_, H, L, E_ = q.sizes
    S, Ev = k.sizes[2], v.sizes[3]
    dt = q.dtype
    sc = scale if scale is not None else 1.0 / math.sqrt(E_)
    s = _view(g, _bmm(g, _view(g, q, [B_ * H, L, E_]), _permute_box(_view(g, k, [B_ * H, S, E_]), [0, 2, 1])),
              [B_, H, L, S])

    def masked(idx):
        x = ops.expr(f"({{0}} * ({ir.ctype(dt)}){sc!r})", (s.load(idx),), dt)
        if not is_causal:
            return x
        above = ops.index_expr(idx[3] + idx[2] * -1, _dt.int64)
        return ops.expr(f"({{0}} > 0 ? -({ir.ctype(dt)})INFINITY : {{1}})", (above, x), dt)
    logits = Pointwise(s.sizes, dt, masked, 3)
    m = g.reduce(logits, [3], True, "max", dt, dt)
    shift = pointwise([m], E("({0} == -INFINITY ? ({T})0 : {0})"), dt)
    p = pointwise([logits, shift], E("exp{f}({0} - {1})"), dt)
    total = g.reduce(p, [3], True, "sum", dt, _dt.float64)
    pv = _view(g, _bmm(g, g.realize(_view(g, p, [B_ * H, L, S])), _view(g, v, [B_ * H, S, Ev])), [B_, H, L, Ev])
    out = pointwise([pv, total], E("({1} == 0 ? ({T})0 : {0} * (({T})1 / {1}))"), dt)
    lse = pointwise([m, total], E("({0} == -INFINITY ? ({T})0 : {0} + log{f}({1}))"), dt)
    return out, _squeeze_dims(g, lse, [3])


# -- decompositions as lowerings ------------------------------------------------------------------------------
class _LoweringNamespace:
    """``A.sub.Tensor(x, y)`` inside a decomposition calls the lowering rule of ``aten.sub.Tensor``."""

    def __init__(self, g):
        self.g = g

    def __getattr__(self, name):
        return _Packet(self.g, getattr(aten, name))


class _Packet:
    def __init__(self, g, packet):
        self.g, self.packet = g, packet

    def __getattr__(self, overload):
        op = getattr(self.packet, overload)
        rule = find_rule(op) if op is not None else None
        if rule is None:
            raise Unsupported(f"no lowering for {op}")
        g = self.g
        return lambda *args, **kwargs: rule(g, *args, **kwargs)


def _decomposed(fn):
    def rule(g, *args, **kwargs):
        out = fn(_LoweringNamespace(g), *args, **kwargs)
        if out is NotImplemented:
            raise Unsupported("decomposition declined")
        return out
    return rule


for _op, _fn in decompositions.items():
    lowerings_table.setdefault(_op, _decomposed(_fn))
