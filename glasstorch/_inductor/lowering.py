"""Lowering: aten OpOverloads -> loop-level IR boxes (``torch/_inductor/lowering.py`` and ``graph.py``).

:class:`GraphLowering` walks an FX graph; every ``call_function`` node is turned into IR by the rule registered
for its OpOverload in :data:`lowerings` (views become index maps, pointwise ops lazy :class:`~.ir.Pointwise`
boxes, reductions :class:`~.ir.ComputeNode` loops, matmuls BLAS externs), or - when there is no rule, a dtype
has no C type, a size is zero - an extern call of the op itself.  The big ops (softmax, layer_norm, nll_loss
...) lower through the decompositions of :mod:`.decomposition`, so their pieces fuse.

Invariant: a rule never reads tensor data; boxes carry sizes and dtypes computed exactly as the op's meta
function would, and a rule that cannot honour an argument raises :class:`Unsupported` (-> extern fallback).
"""

from __future__ import annotations

import operator

from .. import ops as _gops
from .._core import dtype as _dt
from ..fx.graph_module import _get_attr
from . import config, ir
from .ir import Box, Buffer, BufView, ComputeNode, ExternNode, Pointwise, Reindexed, ops

lowerings: dict = {}


lowerings_by_name: dict = {}  # "detach.default" -> rule, for ops registered after this module loaded


class MissingOp:
    """An ``aten.x.y`` glasstorch does not have (yet): rules register under its name and apply once it exists."""

    __slots__ = ("__name__",)

    def __init__(self, name):
        self.__name__ = name

    def __bool__(self):
        return False


class _Missing:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __getattr__(self, overload):
        return MissingOp(f"{self.name}.{overload}")


class _TolerantPacket:
    __slots__ = ("p", "name")

    def __init__(self, p, name):
        self.p, self.name = p, name

    def __getattr__(self, overload):
        op = getattr(self.p, overload, None)
        return op if op is not None else MissingOp(f"{self.name}.{overload}")


class _TolerantAten:
    """``aten.x.y`` that gives a falsy :class:`MissingOp` for an operator or overload glasstorch lacks."""

    def __getattr__(self, name):
        try:
            return _TolerantPacket(getattr(_gops.aten, name), name)
        except AttributeError:
            return _Missing(name)


def find_rule(target):
    rule = lowerings.get(target)
    if rule is None:
        rule = lowerings_by_name.get(getattr(target, "__name__", None))
    return rule


aten = _TolerantAten()


class Unsupported(Exception):
    """A lowering rule declines these arguments; the node becomes an extern call of its op."""


def register(*op_overloads):
    def deco(fn):
        for op in op_overloads:
            if op is None:
                continue
            lowerings_by_name[op.__name__] = fn
            if op:
                lowerings[op] = fn
        return fn
    return deco


# -- helpers ------------------------------------------------------------------------------------------------
def _dim(box) -> int:
    return len(box.sizes)


Box.dim = _dim  # result_type_of reads dim() and dtype


def wrap_dim(d, n):
    n = max(n, 1)
    if not -n <= d < n:
        raise Unsupported(f"dim {d} out of range")
    return d % n


def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, v in enumerate(s):
            j = n - len(s) + i
            if v != 1:
                if out[j] not in (1, v):
                    raise Unsupported("shapes do not broadcast")
                out[j] = v
    return tuple(out)


def broadcast_to(box, sizes):
    sizes = tuple(sizes)
    if box.sizes == sizes:
        return box
    lead = len(sizes) - len(box.sizes)
    src = box.sizes

    def reindex(idx):
        return [ir.const(0) if src[i] == 1 else idx[lead + i] for i in range(len(src))]
    if isinstance(box, BufView):
        strides = (0,) * lead + tuple(0 if s == 1 and t != 1 else st for s, t, st in zip(src, sizes[lead:],
                                                                                          box.strides, strict=False))
        return BufView(box.buf, sizes, strides, box.offset)
    return Reindexed(box, sizes, reindex, lambda bv: broadcast_to(bv, sizes))


def to_dtype(box, dtype):
    if box.dtype is dtype:
        return box
    return Pointwise(box.sizes, dtype, lambda idx: ops.to(box.load(idx), dtype), box.cost + 1)


def result_dtype(*args):
    return _dt.result_type_of([a for a in args if a is not None])


def pointwise(args, body, out_dtype, compute_dtype=None, ops_count=1):
    """A Pointwise over broadcast ``args`` (boxes or Python scalars); ``body(*V) -> V`` in compute_dtype.
    ``ops_count`` weighs the body for the realize-or-inline choice (an inline function costs its operations)."""
    compute_dtype = compute_dtype or out_dtype
    for d in (out_dtype, compute_dtype):
        if not ir.supported_dtype(d):
            raise Unsupported(f"dtype {d}")
    shape = broadcast_shapes(*[a.sizes for a in args if isinstance(a, Box)])
    loaders, cost = [], ops_count
    for a in args:
        if isinstance(a, Box):
            if not ir.supported_dtype(a.dtype):
                raise Unsupported(f"dtype {a.dtype}")
            b = broadcast_to(a, shape)
            loaders.append(lambda idx, b=b: ops.to(b.load(idx), compute_dtype))
            cost += a.cost
        else:
            loaders.append(lambda idx, a=a: ops.constant(a, compute_dtype))

    def fn(idx):
        return ops.to(body(*[ld(idx) for ld in loaders]), out_dtype)
    return Pointwise(shape, out_dtype, fn, cost)


def _mf(name, dtype):
    """The libm function of ``name`` for ``dtype`` (``expf`` for float, ``exp`` for double)."""
    return name + "f" if dtype is _dt.float32 else name


# float32 functions with a vectorisable inline version in the kernels' header (codegen_c.HEADER): the ones the
# eager C kernels use, so compiled and eager float32 exp/erf give the same bits
_VEC_F32 = (("exp{f}(", "gt_expf("), ("erf{f}(", "gt_erff("))


def E(template, f32=None):
    """A body from a C template; ``{f}`` is the libm suffix of the argument dtype, ``{T}`` its C type.  ``f32``,
    when given, is the float32 template (an inline function of the eager C kernels, so that the bits agree)."""
    if f32 is None:
        f32 = template
        for libm, inline in _VEC_F32:
            f32 = f32.replace(libm, inline)
        f32 = f32.replace("{f}", "f").replace("{T}", "float")

    def body(*vs):
        dt = vs[0].dtype
        t = f32 if dt is _dt.float32 else template.replace("{f}", "").replace("{T}", ir.ctype(dt))
        return ops.expr(t, vs, dt)
    return body


def B(template):
    """A boolean-valued body."""
    def body(*vs):
        return ops.expr(template, vs, _dt.bool)
    return body


# -- the graph walker -----------------------------------------------------------------------------------------
class GraphLowering:
    """Turns one FX GraphModule into buffers, compute nodes and extern nodes (in execution order)."""

    def __init__(self, gm, example_inputs, is_backward=False):
        self.gm = gm
        self.is_backward = is_backward  # outputs are gradients: their layout is free (AccumulateGrad's contract)
        self.example_inputs = example_inputs
        self.buffers: list = []
        self.nodes: list = []
        self.env: dict = {}
        self.inputs: list = []       # Buffer per placeholder (None for non-tensors)
        self.consts: list = []       # real tensors of get_attr buffers
        self.outputs: list = []      # (box | None | python value, fx node | None)
        self.fallback_ops: list = []
        self.current = None
        self.cse: dict = {}  # (target, args) -> lowered value: repeated pure expressions are lowered once
        self.realized: dict = {}  # id(box) -> (box, BufView): a value is written to memory once

    # buffers --------------------------------------------------------------------------------------------
    def new_buffer(self, sizes, strides, dtype, kind, index=None) -> Buffer:
        cur = self.current
        origin = f"{cur.name}: {cur.target}" if cur is not None and cur.op == "call_function" else ""
        buf = Buffer(f"buf{len(self.buffers)}", sizes, strides, dtype, kind, index, origin)
        self.buffers.append(buf)
        return buf

    def add_node(self, node):
        node.order = len(self.nodes)
        self.nodes.append(node)
        return node

    def realize(self, box, strides=None) -> BufView:
        if isinstance(box, BufView):
            return box
        hit = self.realized.get(id(box))
        if hit is not None and hit[0] is box and _fits(hit[1], strides):
            return hit[1]
        out = self._realize(box, strides)
        self.realized[id(box)] = (box, out)
        return out

    def rebase(self, box):
        """``box`` with the value under its chain of views realised (once), so that reading it is one load of
        a buffer wherever the views are affine (a split, a transpose, a reshape into heads)."""
        if isinstance(box, Reindexed):
            base = self.rebase(box.base)
            return box if base is box.base else Reindexed(base, box.sizes, box.reindex, box.remake)
        if isinstance(box, Pointwise):
            return self.realize(box)
        return box

    def _realize(self, box, strides) -> BufView:
        if isinstance(box, Reindexed) and box.remake is not None:
            v = box.remake(self.realize(box.base))  # realise the base, keep the view strided (no copy)
            if v is not None and _fits(v, strides):
                return v
        if not ir.supported_dtype(box.dtype):
            raise Unsupported(f"dtype {box.dtype}")
        strides = strides or ir.contiguous_strides(box.sizes)
        buf = self.new_buffer(box.sizes, strides, box.dtype, "computed")
        self.add_node(ComputeNode(buf, box.load))
        return buf.view()

    def reduce(self, box, dims, keepdim, rtype, out_dtype, acc_dtype, init=None) -> BufView:
        sizes = box.sizes
        dims = sorted({wrap_dim(d, len(sizes)) for d in dims}) if len(sizes) else []
        if 0 in sizes or not ir.supported_dtype(box.dtype):
            raise Unsupported("empty or unsupported reduction")
        out_sizes = tuple(1 if i in dims else s for i, s in enumerate(sizes) if keepdim or i not in dims)
        red_sizes = tuple(sizes[d] for d in dims)
        kept = [i for i in range(len(sizes)) if i not in dims]

        def fn(out_idx, red_idx):
            full = [None] * len(sizes)
            oi = [out_idx[i] for i in kept] if keepdim else list(out_idx)
            for i, d in enumerate(kept):
                full[d] = oi[i]
            for i, d in enumerate(dims):
                full[d] = red_idx[i]
            return ops.to(box.load(full), acc_dtype)
        buf = self.new_buffer(out_sizes, ir.contiguous_strides(out_sizes), out_dtype, "computed")
        self.add_node(ComputeNode(buf, fn, red_sizes, rtype, acc_dtype))
        return buf.view()

    # the walk -------------------------------------------------------------------------------------------
    def run(self):
        for node in self.gm.graph.nodes:
            self.current = node
            getattr(self, "_" + node.op)(node)
        if self.is_backward:
            self._transpose_mm_outputs()
        return self

    def _transpose_mm_outputs(self):
        """In a backward graph, a 2-d matmul whose only use is a transposed output (a weight gradient
        ``(a @ b).t()``) is computed as ``b.t() @ a.t()`` into a contiguous buffer: AccumulateGrad gets the
        parameter's layout and need not copy it (forward outputs keep eager's strides)."""
        from .scheduler import _read_buffers

        by_buf: dict = {}
        for i, (v, _) in enumerate(self.outputs):
            if isinstance(v, BufView):
                by_buf.setdefault(v.buf.name, []).append(i)
        todo = []
        for node in self.nodes:
            if isinstance(node, ExternNode) and node.kind == "mm" and node.out_view is None:
                buf = node.outs[0]
                uses = by_buf.get(buf.name, ())
                if len(uses) == 1 and len(buf.sizes) == 2:
                    v = self.outputs[uses[0]][0]
                    m, n = buf.sizes
                    if v.offset == 0 and v.sizes == (n, m) and v.strides == (1, n) and m > 1 and n > 1:
                        todo.append((node, uses[0]))
        if not todo:
            return
        read = set()
        for node in self.nodes:
            read |= _read_buffers(node)
        for node, i in todo:
            buf = node.outs[0]
            if buf.name in read:
                continue
            a, b = node.inputs
            node.inputs = [_transposed(b), _transposed(a)]
            node.reads = {x.buf for x in node.inputs}
            buf.sizes = (buf.sizes[1], buf.sizes[0])
            buf.strides = ir.contiguous_strides(buf.sizes)
            self.outputs[i] = (buf.view(), self.outputs[i][1])

    def _placeholder(self, node):
        i = len(self.inputs)
        x = self.example_inputs[i] if i < len(self.example_inputs) else None
        impl = getattr(x, "_impl", None)
        if impl is None:
            self.inputs.append(None)
            self.env[node] = x
            return
        buf = self.new_buffer(impl.sizes, impl.strides, impl.dtype, "input", index=i)
        self.inputs.append(buf)
        self.env[node] = buf.view()

    def _get_attr(self, node):
        obj = _get_attr(self.gm, node.target)
        impl = getattr(obj, "_impl", None)
        if impl is None:
            self.env[node] = obj
            return
        buf = self.new_buffer(impl.sizes, impl.strides, impl.dtype, "const", index=len(self.consts))
        self.consts.append(obj)
        self.env[node] = buf.view()

    def _call_function(self, node):
        args = _map(node.args, self.env)
        kwargs = _map(node.kwargs, self.env)
        if node.target is operator.getitem:
            self.env[node] = args[0][args[1]]
            return
        val = node.meta.get("val")
        if val is not None and not _is_tensorish(val):
            self.env[node] = val  # a data-independent scalar recorded by the trace
            return
        key = _cse_key(node, args, kwargs)
        if key is not None and key in self.cse:
            self.env[node] = self.cse[key]
            return
        rule = find_rule(node.target)
        out = None
        if rule is not None and _meta_supported(val):
            try:
                out = rule(self, *args, **kwargs)
            except Unsupported:
                out = None
        if out is None:
            out = self.fallback(node.target, args, kwargs, val)
        elif isinstance(out, Box):
            out = self._maybe_realize(node, out)
        self.env[node] = out
        if key is not None:
            self.cse[key] = out

    def _call_method(self, node):
        raise Unsupported(f"call_method {node.target}")

    _call_module = _call_method

    def _maybe_realize(self, node, box):
        if isinstance(box, BufView):
            return box
        users = len(node.users)
        if box.cost > config.max_inline_cost or (users > 1 and box.cost > config.realize_reads_cost):
            return self.realize(box, _dense_strides(node.meta.get("val"), box.sizes))
        return box

    def _output(self, node):
        for item, fx_node in _flat_outputs(node.args[0]):
            v = self.env.get(fx_node) if fx_node is not None else item
            if isinstance(v, Box):
                v = self._output_box(fx_node, v)
            self.outputs.append((v, fx_node))

    def _output_box(self, fx_node, box):
        meta = fx_node.meta.get("val")
        if not (isinstance(box, BufView) and (box.buf.kind in ("computed", "extern") or _is_view_chain(fx_node))):
            box = self.realize(box, _dense_strides(meta, box.sizes))
        box.buf.is_output = True
        if meta is not None and hasattr(meta, "stride") and tuple(meta.shape) == box.sizes:
            # size-1 dims: report eager's stride (it addresses nothing, but strides are compared)
            box = BufView(box.buf, box.sizes, tuple(m if s == 1 else st for s, st, m in zip(
                box.sizes, box.strides, meta.stride(), strict=False)), box.offset)
        return box

    # extern fallback --------------------------------------------------------------------------------------
    def fallback(self, op, args, kwargs, val):
        """An extern call of ``op`` itself; output layouts come from the node's ``meta['val']``."""
        if val is None:
            raise Unsupported(f"no meta['val'] for {op}")
        self.fallback_ops.append(str(op))
        inputs = []
        args = _map_boxes(args, lambda b: self._extern_input(b, inputs))
        kwargs = _map_boxes(kwargs, lambda b: self._extern_input(b, inputs))
        multi = isinstance(val, (list, tuple))
        vals = val if multi else (val,)
        keep = [j for j, v in enumerate(vals) if v is not None]  # an undefined result (output_mask) has no buffer
        outs = [self.new_buffer(vals[j].shape, vals[j].stride(), vals[j].dtype, "extern") for j in keep]
        self.add_node(ExternNode("fallback", op, args, kwargs, inputs, outs, tuple(keep) if multi else ()))
        views = iter([b.view() for b in outs])
        return type(val)(None if v is None else next(views) for v in vals) if multi else next(views)

    def _extern_input(self, box, inputs):
        v = self.realize(box)
        inputs.append(v)
        return _ExternArg(len(inputs) - 1)

    def extern_mm(self, kind, a, b, out_sizes, dtype):
        """A BLAS call (``numpy.matmul``).  Operands that read one buffer through an affine index (views, and
        copies of views the graph made for ``reshape``) go to BLAS in place, without a copy; a batch that only
        splits as ``(B, H)`` (heads in a transposed layout) runs as a 4-d matmul over that split."""
        views, out_view = _blas_operands(a, b) if kind == "bmm" else (None, None)
        if views is None and not all(isinstance(x, BufView) for x in (a, b)):
            a, b = self.rebase(a), self.rebase(b)
            views, out_view = _blas_operands(a, b) if kind == "bmm" else (None, None)
        if views is None:
            views = [_in_place_operand(a), _in_place_operand(b)]
        a, b = (v if v is not None else self.realize(x) for v, x in zip(views, (a, b), strict=True))
        buf = self.new_buffer(out_sizes, ir.contiguous_strides(out_sizes), dtype, "extern")
        if out_view is not None:
            out_view = BufView(buf, out_view, ir.contiguous_strides(out_view))
        self.add_node(ExternNode(kind, None, (), {}, [a, b], [buf], out_view=out_view))
        return buf.view()


def _fits(v: BufView, strides) -> bool:
    """``v`` has the requested strides (None: any)."""
    return strides is None or ir.same_strides(v.sizes, v.strides, strides)


def _transposed(v: BufView) -> BufView:
    return BufView(v.buf, v.sizes[::-1], v.strides[::-1], v.offset)


def strided_view(box, split=None):
    """``box`` as a :class:`BufView` when reading it is a single affine load of one buffer (a view chain, or a
    copy of one), else None.  With ``split=H`` dimension 0 is read as ``(d0 // H, H)``: one more dimension."""
    if isinstance(box, BufView) and split is None:
        return box
    probe = _probe_load(box, split)
    if probe is None:
        return None
    buf, index, names, dims = probe
    if any(not isinstance(t, str) for t in index.terms) or index.const < 0:
        return None
    strides = tuple(index.coeff(n) for n in names)
    if any(st < 0 for st in strides):
        return None
    return BufView(buf, dims, strides, index.const)


def _probe_load(box, split):
    """Run ``box.load`` on fresh index variables: ``(buffer, index, variable names, dims)`` when the value is one
    load of a buffer and nothing else, else None."""
    if not isinstance(box, Box) or not ir.supported_dtype(box.dtype):
        return None
    sizes = box.sizes
    dims = sizes if split is None else (sizes[0] // split, split) + tuple(sizes[1:])
    names = [f"s{i}" for i in range(len(dims))]
    saved = {n: ir.RANGES.get(n) for n in names}
    for n, d in zip(names, dims, strict=True):
        ir.RANGES[n] = d
    vs = [ir.var(n) for n in names]
    idx = vs if split is None else [vs[0] * split + vs[1]] + vs[2:]
    w = ir.KernelWriter()
    try:
        with ir.writing(w):
            v = box.load(idx)
    except (Unsupported, KeyError, AttributeError, TypeError):
        return None
    finally:
        for n, old in saved.items():
            if old is None:
                ir.RANGES.pop(n, None)
            else:
                ir.RANGES[n] = old
    if len(w.reads) != 1 or len(w.lines) != 1 or v.dtype is not box.dtype or not w.lines[0].startswith(
            f"{ir.ctype(v.dtype)} {v.name} = "):
        return None
    return w.reads[0][0], w.reads[0][1], names, dims


def _split_candidates(box) -> list:
    """Head counts ``H`` worth trying for a batch dimension that does not flatten: the divisors of the
    ``// k`` and ``% k`` terms the 3-d read of ``box`` puts on its batch index."""
    probe = _probe_load(box, None)
    if probe is None:
        return []
    ks = set()
    for t in probe[1].terms:
        if not isinstance(t, str) and t.free() == {"s0"} and hasattr(t, "k"):
            ks.add(t.k)
    batch = box.sizes[0]
    return sorted(k for k in ks if 1 < k < batch and batch % k == 0)


def _matrix_ready(v) -> bool:
    """Each matrix (last two dims) has a unit stride and the other at least its extent: numpy hands it to BLAS."""
    if v is None or len(v.sizes) < 2:
        return False
    (n0, n1), (s0, s1) = v.sizes[-2:], v.strides[-2:]
    return (s1 == 1 and s0 >= max(n1, 1)) or (s0 == 1 and s1 >= max(n0, 1))


def _in_place_operand(box):
    if isinstance(box, BufView):
        return box
    v = strided_view(box)
    return v if _matrix_ready(v) else None


def _blas_operands(a, b):
    """bmm operands as views BLAS reads in place: 3-d when both are strided, else 4-d over a ``(B, H)`` split of
    the batch both allow; ``(None, None)`` when neither works."""
    va, vb = _in_place_operand(a), _in_place_operand(b)
    if va is not None and vb is not None:
        return [va, vb], None
    batch = a.sizes[0]
    for h in _split_candidates(a if va is None else b):
        sa, sb = strided_view(a, h), strided_view(b, h)
        if _matrix_ready(sa) and _matrix_ready(sb):
            return [sa, sb], (batch // h, h, a.sizes[1], b.sizes[2])
    return None, None


class _ExternArg:
    """Placeholder for the i-th realised tensor input inside an extern call's args."""

    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def _map(a, env):
    if isinstance(a, (list, tuple)):
        return type(a)(_map(x, env) for x in a)
    if isinstance(a, dict):
        return {k: _map(v, env) for k, v in a.items()}
    if type(a).__name__ == "Node":
        return env[a]
    return a


_RANDOM = ("rand", "dropout", "bernoulli", "normal", "uniform", "multinomial", "exponential", "poisson")


def _cse_key(node, args, kwargs):
    name = str(node.target)
    if any(r in name for r in _RANDOM):
        return None
    try:
        key = (node.target, _freeze(args), _freeze(kwargs))
        hash(key)
    except TypeError:
        return None
    return key


def _freeze(a):
    if isinstance(a, (list, tuple)):
        return (type(a).__name__,) + tuple(_freeze(x) for x in a)
    if isinstance(a, dict):
        return ("dict",) + tuple((k, _freeze(v)) for k, v in sorted(a.items()))
    if isinstance(a, Box):
        return ("box", id(a))
    if isinstance(a, (bool, int, float, str, type(None))):
        return (type(a).__name__, a)
    return ("obj", id(a))


def _map_boxes(a, fn):
    if isinstance(a, Box):
        return fn(a)
    if isinstance(a, (list, tuple)):
        return type(a)(_map_boxes(x, fn) for x in a)
    if isinstance(a, dict):
        return {k: _map_boxes(v, fn) for k, v in a.items()}
    return a


def _is_tensorish(val):
    if isinstance(val, (list, tuple)):
        return any(_is_tensorish(v) for v in val) or not val
    return hasattr(val, "_impl") or hasattr(val, "shape")


def _meta_supported(val):
    vals = val if isinstance(val, (list, tuple)) else (val,)
    for v in vals:
        if v is None:
            continue
        if not hasattr(v, "dtype") or not ir.supported_dtype(v.dtype) or v.device.type != "cpu" or 0 in v.shape:
            return False
    return True


def _flat_outputs(a):
    if isinstance(a, (list, tuple)):
        for x in a:
            yield from _flat_outputs(x)
    elif type(a).__name__ == "Node":
        yield None, a
    else:
        yield a, None


_VIEW_TARGETS = set()  # names ("view.default") of the ops whose output aliases their first input


def _is_view_chain(node):
    while node.op == "call_function" and getattr(node.target, "__name__", None) in _VIEW_TARGETS:
        node = node.args[0]
    return node.op in ("placeholder", "get_attr")


def _dense_strides(val, sizes):
    """The node's eager strides when they are a dense permutation (outputs keep eager layouts)."""
    if val is None or not hasattr(val, "stride"):
        return None
    st = tuple(val.stride())
    if tuple(val.shape) != tuple(sizes):
        return None
    order = sorted(range(len(sizes)), key=lambda i: (st[i], sizes[i]))
    expect = 1
    for i in order:
        if sizes[i] != 1 and st[i] != expect:
            return None
        expect *= sizes[i]
    return st
