"""The Python wrapper of a compiled graph: memory planning and the call sequence (``codegen/wrapper.py``).

The wrapper is generated Python source (printed by the ``output_code`` log) that, per call, reads the input
pointers, allocates the graph outputs, calls each C kernel through ctypes with raw pointers, runs BLAS
(``numpy.matmul(..., out=)``) and the extern fallbacks in order, and returns the outputs.

Memory planning: intermediates that are not outputs live in a persistent *arena* of slots allocated once per
compiled graph; a slot is shared by buffers whose lifetimes (counted in wrapper steps) do not overlap, and two
buffers used by the same step never share one (the C kernels declare their pointers ``restrict``).

Invariant: nothing the caller receives points into the arena (outputs are allocated per call, and an extern
result that would alias the arena is copied).
"""

from __future__ import annotations

import ctypes

import numpy as np

from .. import _functions as _fns
from .._core.shape import contiguous_strides as _contiguous
from .._device.threads import get_num_threads as _get_num_threads
from .._ops.kernels.cpu.batched_gemm import matmul as _batched_matmul
from .._ops.kernels.cpu.scatter_rows import index_add_rows as _index_add_rows
from .._tensor.impl import CPU as _CPU
from .._tensor.impl import TensorImpl, empty_strided_impl
from .._tensor.storage import UntypedStorage
from ..autograd import grad_mode as _grad_mode
from ..tensor import wrap
from .ir import Buffer, BufView, ExternNode, same_strides
from .lowering import _ExternArg
from .scheduler import Kernel

_ALIGN = 64


def _kernel_argtypes(kernel: Kernel):
    return [ctypes.c_void_p] * len(kernel.args) + [ctypes.c_int]


class Arena:
    """Slots of raw memory shared by intermediates whose lifetimes do not overlap."""

    def __init__(self):
        self.slot_of: dict = {}     # buffer name -> slot index
        self.sizes: list = []       # bytes per slot
        self.arrays: list = []

    def plan(self, lifetimes: dict):
        """``lifetimes``: buffer -> (first step, last step); greedy best fit by first step."""
        free_at: list = []  # per slot: last step in use
        for buf, (first, last) in sorted(lifetimes.items(), key=lambda kv: (kv[1][0], kv[0].name)):
            need = max(buf.nbytes(), 1)
            best = None
            for s, busy_until in enumerate(free_at):
                if busy_until < first and (best is None or abs(self.sizes[s] - need) < abs(self.sizes[best] - need)):
                    best = s
            if best is None:
                best = len(self.sizes)
                self.sizes.append(0)
                free_at.append(-1)
            self.sizes[best] = max(self.sizes[best], need)
            free_at[best] = last
            self.slot_of[buf.name] = best

    def allocate(self):
        for n in self.sizes:
            raw = np.empty(n + _ALIGN, np.uint8)
            shift = (-raw.ctypes.data) % _ALIGN
            self.arrays.append(raw[shift:shift + n])

    def total_bytes(self):
        return sum(self.sizes)

    def ptr(self, buf):
        return self.arrays[self.slot_of[buf.name]].ctypes.data

    def numpy(self, buf, view: BufView):
        arr = self.arrays[self.slot_of[buf.name]]
        isz = buf.dtype.itemsize
        return np.ndarray(view.sizes, buf.dtype.np, arr, view.offset * isz, tuple(s * isz for s in view.strides))

    def tensor(self, buf, view: BufView):
        return _fns.from_numpy(self.numpy(buf, view))


def lifetimes(steps, outputs) -> dict:
    """buffer -> (first, last) step for arena candidates (computed intermediates and BLAS results)."""
    life: dict = {}

    def touch(buf, i):
        if buf.is_output or buf.kind in ("input", "const"):
            return
        if buf.kind == "extern" and not _is_blas_out(buf):
            return
        f, last = life.get(buf, (i, i))
        life[buf] = (min(f, i), max(last, i))
    pinned = set()  # inputs of fallbacks that may return a view of them: never in the arena
    for i, step in enumerate(steps):
        bufs = step.args if isinstance(step, Kernel) else [v.buf for v in step.inputs] + list(step.outs)
        for b in bufs:
            touch(b, i)
        if isinstance(step, ExternNode) and step.kind == "fallback" and _may_alias(step.op):
            pinned.update(v.buf for v in step.inputs)
    return {b: v for b, v in life.items() if b not in pinned}


def _may_alias(op) -> bool:
    schema = getattr(op, "_schema", None)
    return schema is None or any(r.annotation is not None for r in schema.returns)


def _blas_ready(v: BufView) -> bool:
    """Whether BLAS reads these matrices in place (one unit stride per matrix), as numpy.matmul needs."""
    (n0, n1), (s0, s1) = v.sizes[-2:], v.strides[-2:]
    return (s1 == 1 and s0 >= max(n1, 1)) or (s0 == 1 and s1 >= max(n0, 1))


def _is_blas_out(buf):
    return isinstance(buf.producer, ExternNode) and buf.producer.kind in ("mm", "bmm")


class WrapperBuilder:
    """Writes the ``call(args)`` source and the globals it runs with."""

    def __init__(self, graph, steps, libs, profile=False, private_from=None):
        self.g, self.steps, self.libs, self.profile = graph, steps, libs, profile
        self.step_labels: list = []
        self.pool = _Pool(graph.outputs, private_from)
        self.lines: list = []
        self.env: dict = {"_alloc": _alloc, "_np_of": _np_of, "_view": _view, "_matmul": _batched_matmul, "_wrap": wrap,
                          "_fix": _fix_layout, "_contig": np.ascontiguousarray, "_get_num_threads": _get_num_threads}
        self.arena = Arena()
        self.local_ptr: dict = {}  # buffer name -> python expression of its pointer
        self.local_obj: dict = {}  # buffer name -> python expression of its Tensor

    def build(self):
        for step in self.steps:
            for o in (step.outs if isinstance(step, ExternNode) else []):
                o.producer = step
        self.arena.plan(lifetimes(self.steps, self.g.outputs))
        self.arena.allocate()
        self.env["_arena"] = self.arena
        self.env.update(_pool_storage=_pool_storage, _pool_tensor=_pool_tensor, _pool_numpy=_pool_numpy)
        w = self.lines
        w.append("def call(args):")
        w.append("    nt = _get_num_threads()")
        if self.pool.offsets:
            w.append(f"    _pool = _pool_storage({self.pool.nbytes})")
            w.append(f"    _pool_s = (-_pool._ptr) % {_ALIGN}")  # slices start on cache lines, as the C code assumes
            w.append("    _pool_p = _pool._ptr + _pool_s")
        for i, buf in enumerate(self.g.inputs):
            if buf is not None:
                w.append(f"    {buf.name} = args[{i}]")
                self.local_obj[buf.name] = buf.name
        for _j, buf in enumerate(b for b in self.g.buffers if b.kind == "const"):
            self.env[buf.name] = self.g.consts[buf.index]
            self.local_obj[buf.name] = buf.name
        if self.profile:
            import time
            self.env["_pc"] = time.perf_counter
            self.env["_prof"] = [0.0] * len(self.steps)
        for i, step in enumerate(self.steps):
            start = len(w)
            if isinstance(step, Kernel):
                self._kernel(step)
            else:
                self._extern(step, i)
            if self.profile:
                w.insert(start, "    _t = _pc()")
                w.append(f"    _prof[{i}] += _pc() - _t")
                self.step_labels.append(_step_label(step))
        w.append(f"    return ({''.join(self._output(v) + ', ' for v, _ in self.g.outputs)})")
        return "\n".join(w) + "\n"

    # pointers and objects -----------------------------------------------------------------------------------
    def _ptr(self, buf: Buffer) -> str:
        got = self.local_ptr.get(buf.name)
        if got is not None:
            return got
        if buf.name in self.arena.slot_of:
            name = f"P_{buf.name}"
            self.env[name] = self.arena.ptr(buf)
            self.local_ptr[buf.name] = name
            return name
        if buf.kind == "computed" and buf.name in self.pool.offsets:  # a saved value: a slice of this call's pool
            return self._pooled(buf)
        if buf.kind == "computed":  # a graph output allocated per call
            self.lines.append(f"    {buf.name} = _alloc({buf.sizes!r}, {buf.strides!r}, _dt_{buf.name})")
            self.env[f"_dt_{buf.name}"] = buf.dtype
            self.local_obj[buf.name] = buf.name
        obj = self._obj(buf)
        name = f"p_{buf.name}"
        self.lines.append(f"    {name} = {obj}._impl.data_ptr()")
        self.local_ptr[buf.name] = name
        return name

    def _pooled(self, buf: Buffer) -> str:
        """Pointer of a pooled output (pointer arithmetic); its Tensor is made once, where it is first needed."""
        name = f"p_{buf.name}"
        self.lines.append(f"    {name} = _pool_p + {self.pool.offsets[buf.name]}")
        self.local_ptr[buf.name] = name
        return name

    def _obj(self, buf: Buffer) -> str:
        got = self.local_obj.get(buf.name)
        if got is not None:
            return got
        if buf.name in self.pool.offsets:
            self.env[f"_dt_{buf.name}"] = buf.dtype
            off = self.pool.offsets[buf.name]
            self.lines.append(f"    {buf.name} = _pool_tensor(_pool, _pool_s + {off}, {buf.sizes!r}, {buf.strides!r}, "
                              f"_dt_{buf.name})")
            self.local_obj[buf.name] = buf.name
            return buf.name
        if buf.name in self.arena.slot_of:
            name = f"T_{buf.name}"
            self.env[name] = self.arena.tensor(buf, buf.view())
            self.local_obj[buf.name] = name
            return name
        raise AssertionError(f"no object for {buf}")

    def _view_obj(self, v: BufView) -> str:
        if v.is_identity():
            return self._obj(v.buf)
        if v.buf.name in self.arena.slot_of:
            name = f"T_{v.buf.name}_{len(self.env)}"
            self.env[name] = self.arena.tensor(v.buf, v)
            return name
        return f"_view({self._obj(v.buf)}, {v.sizes!r}, {v.strides!r}, {v.offset})"

    def _np_view(self, v: BufView) -> str:
        if v.buf.name in self.arena.slot_of:
            name = f"N_{v.buf.name}_{len(self.env)}"
            self.env[name] = self.arena.numpy(v.buf, v)
            return name
        isz = v.buf.dtype.itemsize
        return f"_np_of({self._obj(v.buf)}, {v.sizes!r}, {tuple(s * isz for s in v.strides)!r}, {v.offset * isz})"

    # steps ---------------------------------------------------------------------------------------------------
    def _kernel(self, k: Kernel):
        fn = getattr(self.libs[k.name], k.name)
        fn.argtypes = _kernel_argtypes(k)
        fn.restype = None
        self.env[k.name] = fn
        ptrs = [self._ptr(b) for b in k.args]
        self.lines.append(f"    {k.name}({', '.join(ptrs + ['nt'])})")

    def _extern(self, e: ExternNode, i: int):
        if e.kind in ("mm", "bmm"):
            out = e.outs[0]
            if out.name in self.arena.slot_of:
                target = self._np_view(e.out_view or out.view())
            elif out.name in self.pool.offsets:
                v = e.out_view or out.view()
                self.env[f"_dt_{out.name}"] = out.dtype
                off = self.pool.offsets[out.name]
                target = f"_pool_numpy(_pool, _pool_s + {off}, {v.sizes!r}, {v.strides!r}, _dt_{out.name})"
            else:
                self.lines.append(f"    {out.name} = _alloc({out.sizes!r}, {out.strides!r}, _dt_{out.name})")
                self.env[f"_dt_{out.name}"] = out.dtype
                self.local_obj[out.name] = out.name
                target = f"{out.name}._impl.as_numpy()"
                if e.out_view is not None:
                    target = f"{target}.reshape({e.out_view.sizes!r})"
            a, b = (self._np_view(v) if _blas_ready(v) else f"_contig({self._np_view(v)})" for v in e.inputs)
            self.lines.append(f"    _matmul({a}, {b}, out={target})")
            return
        name = f"_extern{i}"
        self.env[name] = _fast_fallback(e) or _Fallback(e.op, e.args, e.kwargs)
        self.env[f"{name}_outs"] = [(o.sizes, o.strides, o.dtype) for o in e.outs]
        objs = [self._view_obj(v) for v in e.inputs]
        res = f"r{i}"
        self.lines.append(f"    {res} = {name}({', '.join(objs)})")
        for j, o in enumerate(e.outs):
            sub = f"{res}[{e.multi[j]}]" if e.multi else res
            self.lines.append(f"    {o.name} = _fix({sub}, {name}_outs[{j}])")
            self.local_obj[o.name] = o.name

    def _output(self, v) -> str:
        if not isinstance(v, BufView):
            name = f"C_{len(self.env)}"
            self.env[name] = v
            return name
        if v.buf.kind == "computed" and v.buf.name not in self.local_obj:
            self._ptr(v.buf)  # an output no kernel wrote (cannot happen for a realised node)
        if v.is_identity():
            return self._obj(v.buf)
        return f"_view({self._obj(v.buf)}, {v.sizes!r}, {v.strides!r}, {v.offset})"


def _step_label(step) -> str:
    if isinstance(step, Kernel):
        return f"{step.name} ({len(step.groups)} groups)"
    if step.kind in ("mm", "bmm"):
        a, b = step.inputs
        return f"extern {step.kind} {list(a.sizes)}@{list(b.sizes)} <- {step.outs[0].origin}"
    return f"extern fallback {step.op}"


class _Pool:
    """Byte offsets of the outputs that share one storage per call: values saved for the backward (outputs at
    or after ``private_from``, which only the compiled backward reads).  One allocation instead of one each; the
    user-visible outputs keep storages of their own."""

    def __init__(self, outputs, private_from):
        self.offsets: dict = {}
        self.nbytes = 0
        if private_from is None:
            return
        public = {v.buf.name for i, (v, _) in enumerate(outputs) if i < private_from and isinstance(v, BufView)}
        for i, (v, _) in enumerate(outputs):
            if i < private_from or not isinstance(v, BufView) or v.buf.name in public:
                continue
            buf = v.buf
            if buf.name in self.offsets or not (buf.kind == "computed" or _is_blas_out(buf)):
                continue
            self.offsets[buf.name] = self.nbytes
            self.nbytes += -(-max(buf.nbytes(), 1) // _ALIGN) * _ALIGN


def _pool_storage(nbytes):
    return UntypedStorage._allocate(nbytes + _ALIGN, _CPU)


def _pool_tensor(storage, byte_offset, sizes, strides, dtype):
    return wrap(TensorImpl(storage, sizes, strides, byte_offset // dtype.itemsize, dtype, storage.device))


def _pool_numpy(storage, byte_offset, sizes, strides, dtype):
    isz = dtype.itemsize
    return np.ndarray(sizes, dtype.np, storage._data, byte_offset, tuple(s * isz for s in strides))


class _Fallback:
    """Calls the aten op with the runtime tensors put back into its recorded arguments."""

    __slots__ = ("op", "args", "kwargs")

    def __init__(self, op, args, kwargs):
        self.op, self.args, self.kwargs = op, args, kwargs

    def __call__(self, *tensors):
        args = _fill(self.args, tensors)
        kwargs = _fill(self.kwargs, tensors)
        return self.op(*args, **kwargs)


def _fast_fallback(e: ExternNode):
    """A direct kernel for a fallback whose eager path is mostly dispatch (None: call the op)."""
    if str(e.op) == "aten.index_add.default" and not e.kwargs and len(e.args) == 4 and e.args[1] == 0 and all(
            isinstance(e.args[k], _ExternArg) for k in (0, 2, 3)) and e.outs[0].dtype.is_floating_point:
        return _IndexAddRows(_Fallback(e.op, e.args, e.kwargs))
    return None


class _IndexAddRows:
    """``index_add(x, 0, index, src)`` (the embedding backward): a copy of x, then the eager kernel's C row loop
    (``scatter_rows``: the same additions in the same order, so the same bits) without the dispatcher's Python,
    which costs most of the call here.  An index out of range, or rows the loop does not take, go to the op
    itself (which raises torch's error)."""

    __slots__ = ("slow",)

    def __init__(self, slow):
        self.slow = slow

    def __call__(self, *tensors):
        x, index, src = (tensors[a.i]._impl for a in (self.slow.args[0], self.slow.args[2], self.slow.args[3]))
        if not (x.device.type == src.device.type == index.device.type == "cpu") or src.dtype is not x.dtype:
            return self.slow(*tensors)
        idx = index.as_numpy()
        n = x.sizes[0] if x.sizes else 0
        if idx.ndim != 1 or not idx.size or idx.min() < 0 or idx.max() >= n:
            return self.slow(*tensors)
        out = _alloc(x.sizes, _contiguous(x.sizes), x.dtype)
        arr = out._impl.as_numpy()
        np.copyto(arr, x.as_numpy())
        if not _index_add_rows(arr, idx, src.as_numpy()):
            return self.slow(*tensors)
        return out


def _fill(a, tensors):
    if isinstance(a, _ExternArg):
        return tensors[a.i]
    if isinstance(a, (list, tuple)):
        return type(a)(_fill(x, tensors) for x in a)
    if isinstance(a, dict):
        return {k: _fill(v, tensors) for k, v in a.items()}
    return a


def _alloc(sizes, strides, dtype):
    return wrap(empty_strided_impl(sizes, strides, dtype))


def _view(t, sizes, strides, offset):
    impl = t._impl
    return wrap(impl.view_impl(sizes, strides, impl.offset + offset))


def _np_of(t, sizes, byte_strides, byte_offset):
    impl = t._impl
    isz = impl.dtype.itemsize
    return np.ndarray(sizes, impl.dtype.np, impl.storage._data, impl.offset * isz + byte_offset, byte_strides)


def _fix_layout(t, expect):
    """An extern result with the layout lowering assumed (a copy when the op chose other strides)."""
    sizes, strides, dtype = expect
    impl = t._impl
    if impl.sizes == sizes and impl.dtype is dtype and same_strides(sizes, impl.strides, strides):
        return t
    out = _alloc(sizes, strides, dtype)
    with _grad_mode.no_grad():
        out.copy_(t)
    return out
