"""TensorIterator — PyTorch's ``aten/src/ATen/TensorIterator.cpp`` for numpy kernels.

A kernel describes its operands (outputs first, then inputs; a Python scalar stands for a wrapped
number, see Note [Wrapped numbers]) and a config; :func:`build` then does, in PyTorch's order:

1. device check (0-dim CPU tensors may join a non-CPU op) and meta detection;
2. memory-overlap checks of the outputs (internal, and partial overlap with an input);
3. the broadcast shape (PyTorch's error text);
4. the common dtype (``result_type`` rules; integer->float promotion; a static dtype);
5. safe-casting checks for ``out=``/in-place ("result type Float can't be cast to ...");
6. output allocation with the layout of the inputs (the stride-sorting "reorder_dimensions"
   rule, so ``x.t() + 1`` is transposed too), or the resize of a given ``out`` with PyTorch's rules;
7. numpy views of every operand, ready for a ufunc with ``dtype=common`` (numpy casts inside the
   loop, so mixed-dtype inputs are not copied first).

A given output (in place or ``out=``) that needs no broadcast, cast or resize takes :func:`fast_operands`
(Note [Given-output fast path]): the overlap check alone, then the numpy operands; hot kernels call it
directly and skip the iterator object.

Reductions use :func:`build_reduction`.  :func:`coalesce` merges dimensions that are contiguous for
every operand (PyTorch's ``coalesce_dimensions``).  :func:`fp_ignore` / :func:`fp_restore` bracket a
kernel's numpy calls so floating-point exceptions stay silent, as in PyTorch (see Note [Quiet numpy]).

Invariant: a built iterator never writes data; kernels write only ``it.out_np`` / ``it.outs``.
"""

from __future__ import annotations

import functools

import numpy as np

from .._core import dtype as _dt
from .._core import shape as _shape
from .._core.device import CPU
from .._core.user_warning import warn as _user_warn
from .._tensor.impl import TensorImpl, empty_contiguous_numpy, empty_strided_impl
from .._tensor.views import tensor_type_name
from .overlap import check_no_internal_overlap, check_no_partial_overlap

__all__ = ["TensorIterator", "build", "build_reduction", "scalar_np", "coalesce", "resize_out",
           "check_no_internal_overlap", "check_no_partial_overlap", "compute_output_strides", "reduction_dims",
           "fp_ignore", "fp_restore", "dense_scalar", "fast_operands", "output_strides"]

_SCALARS = (bool, int, float, complex)
_SCALAR_CAT = {bool: _dt.BOOL_CAT, int: _dt.INT_CAT, float: _dt.FLOAT_CAT, complex: _dt.COMPLEX_CAT}

# Note [Quiet numpy]
# PyTorch computes 1/0, log(-1) or an overflow silently; numpy warns unless its error state says "ignore".
# ``np.errstate(all="ignore")`` costs a few microseconds per entry, as much as a whole 1-element add, so
# kernels set numpy's error-state context variable directly (numpy >= 2 keeps it in a ContextVar, which is
# exactly what errstate sets): ``token = fp_ignore()`` ... ``fp_restore(token)`` in a ``finally``.  The
# user's own numpy error state is untouched outside our kernels.
try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    # fp_ignore() silences numpy's floating-point errors until fp_restore(token); both are C calls.
    fp_ignore = functools.partial(_extobj_contextvar.set, _make_extobj(all="ignore"))
    fp_restore = _extobj_contextvar.reset
except ImportError:  # another numpy layout: the public, slower context manager
    def fp_ignore():
        """Silence numpy's floating-point errors until :func:`fp_restore` (returns the token to restore)."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def fp_restore(state):
        state.__exit__(None, None, None)


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


class TensorIterator:
    """The result of :func:`build`: shape, dtypes, outputs and numpy operands."""

    # cast_out: the given output's numpy view when the kernel computes into a common-dtype ``out_np`` that
    # ``cast_outputs`` then converts into it (Note [Cast outputs]); None otherwise
    __slots__ = ("shape", "common_dtype", "out", "out_np", "ins_np", "is_meta", "device", "outs", "cast_out")

    def __repr__(self):
        return f"TensorIterator(shape={self.shape}, common_dtype={self.common_dtype}, meta={self.is_meta})"


def scalar_np(value, dtype):
    """A Python scalar as a numpy scalar of ``dtype``, converting as PyTorch does (ints wrap)."""
    npdt = dtype.np
    if dtype._cat == _dt.INT_CAT and not isinstance(value, bool):
        if isinstance(value, float):
            return np.array(value).astype(npdt)[()]
        return np.array(value, dtype=np.int64).astype(npdt)[()] if -2**63 <= value < 2**64 else npdt.type(value)
    if dtype is _dt.bool:
        return np.bool_(value)
    if dtype is _dt.complex32:  # numpy has no complex-half: a (real, imag) float16 pair of complex32's storage type
        v = complex(value)
        return np.array((np.float16(np.float32(v.real)), np.float16(np.float32(v.imag))), dtype=npdt)[()]
    if not dtype.is_complex and isinstance(value, complex):
        value = value.real
    if dtype in _HALF_TYPES:
        value = _dt.half_input(value)  # c10 builds a Half or BFloat16 from a float, never from a double
    return npdt.type(value)


_HALF_TYPES = (_dt.float16, _dt.bfloat16)
_C32 = _dt.complex32


# Note [Per-call cost]
# A 1-element ``a + b`` spends most of its time in Python frames, not in numpy, so the functional fast set-up
# lives inline in build() (no helper call per check): one pass over the inputs checks them and reads
# TensorImpl.as_numpy's cache directly, and the output comes with its numpy view from one allocation call
# (impl.empty_contiguous_numpy).  The general path below is PyTorch's build() order, step by step.

# Note [Dense scalar operands]
# PyTorch's vectorized loops treat a scalar operand (stride 0) as a broadcast register.  numpy's SIMD loops
# for maximum/minimum run only when both operands are contiguous: a 0-dim operand makes them about twice
# as slow on large tensors.  dense_scalar() spells a scalar as a contiguous array for big outputs: zeros come
# from one cached read-only buffer per dtype (relu, clamp(min=0)), other values from np.full.
_DENSE_MIN = 1 << 16  # below this many elements a 0-dim operand costs less than materialising it
_DENSE_CACHE_MAX = 1 << 22  # elements of the largest cached zero buffer (16 MiB of float32)
_zeros: dict = {}


def dense_scalar(value, shape, npdt):
    """``value`` (a scalar of dtype ``npdt``) as an operand of ``shape`` that numpy's SIMD loops take: a
    contiguous array for large shapes, ``value`` itself for small ones."""
    n = _shape.prod(shape)
    if n < _DENSE_MIN:
        return value
    if n <= _DENSE_CACHE_MAX and value == 0 and not np.signbit(value):
        buf = _zeros.get(npdt)
        if buf is None or buf.size < n:
            buf = np.zeros(max(n, 1 << 20), npdt)
            buf.flags.writeable = False
            _zeros[npdt] = buf
        return buf[:n].reshape(shape)
    return np.full(shape, value, npdt)


# -- layout ------------------------------------------------------------------------------------------------
def _operand_strides(impl: TensorImpl, shape) -> tuple:
    """Strides of ``impl`` broadcast to ``shape``: 0 for broadcast and missing leading dims."""
    off = len(shape) - impl.ndim
    out = [0] * len(shape)
    for d in range(impl.ndim):
        if impl.sizes[d] != 1 or shape[d + off] == 1:
            out[d + off] = impl.strides[d]
    return tuple(out)


def compute_output_strides(shape, operands) -> tuple:
    """Strides for a new output: follow the stride order of the inputs (PyTorch's reorder_dimensions)."""
    ndim = len(shape)
    if ndim <= 1:
        return _shape.contiguous_strides(shape)
    strides = [_operand_strides(op, shape) for op in operands]

    def should_swap(d0, d1):
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))  # perm[0] is the fastest-moving dim
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    if perm == list(range(ndim - 1, -1, -1)):
        return _shape.contiguous_strides(shape)  # PyTorch allocates a plain row-major output then
    # Note [Output strides of a size-0 dim]: compatible_stride multiplies the sizes as they are, so once a
    # size-0 dim is passed every slower dim gets stride 0 (row-major and channels-last strides would count it as 1).
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]
    return tuple(out)


def output_strides(shape, tensor_inputs, n_inputs) -> tuple:
    """Strides of a new (or resized ``out=``) output, as PyTorch's ``fast_set_up`` or else
    ``reorder_dimensions`` + ``allocate_or_resize_outputs`` give them (a Python scalar counts as a 0-dim operand).

    Every operand of the output's shape: all row-major -> row-major; all channels-last -> channels-last (its
    fresh strides, size-1 dims included); all dense with one set of strides -> those strides.
    """
    if not tensor_inputs:
        return _shape.contiguous_strides(shape)
    if n_inputs == len(tensor_inputs) and all(t.sizes == shape for t in tensor_inputs):
        if all(t.is_contiguous() for t in tensor_inputs):
            return _shape.contiguous_strides(shape)
        if all(_shape.is_channels_last_contiguous(t.sizes, t.strides) for t in tensor_inputs):
            return _shape.channels_last_strides(shape)
        first = tensor_inputs[0].strides
        if all(t.strides == first for t in tensor_inputs) and _shape.is_non_overlapping_and_dense(shape, first):
            return first
    return compute_output_strides(shape, tensor_inputs)


def _new_output(shape, dtype, device, tensor_inputs, n_inputs) -> TensorImpl:
    """PyTorch's output allocation (:func:`output_strides`)."""
    return empty_strided_impl(shape, output_strides(shape, tensor_inputs, n_inputs), dtype, device)


def resize_out(out: TensorImpl, shape, strides=None) -> None:
    """Resize an ``out=`` tensor to ``shape`` in place, warning when it had elements (PyTorch's rule).

    ``strides``: the layout TensorIterator computed for the output (row-major when None, as ``resize_output``);
    they apply only when the shape changes, a correctly shaped ``out`` keeps its own."""
    if out.sizes == tuple(shape):
        return
    if out.numel() != 0:
        _user_warn(f"An output with one or more elements was resized since it had shape {_fmt(out.sizes)}, which "
                   f"does not match the required output shape {_fmt(shape)}. This behavior is deprecated, and in "
                   f"a future PyTorch release outputs will not be resized unless they have zero elements. You can "
                   f"explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",)
    strides = _shape.contiguous_strides(shape) if strides is None else tuple(strides)
    need = (out.offset + _shape.prod(shape)) * out.dtype.itemsize
    if need > out.storage.nbytes():
        out.storage.resize_(need)
    out.set_geometry(tuple(shape), strides, out.offset)


# -- building ----------------------------------------------------------------------------------------------
def _common_device(tensors):
    dev = None
    for t in tensors:
        if dev is None:
            dev = t.device
        elif t.device != dev:
            if t.ndim == 0 and t.device.type == "cpu":
                continue  # a CPU scalar may join any device
            if dev.type == "cpu" and _all_cpu_scalars_so_far(tensors, t):
                dev = t.device
                continue
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{dev} and {t.device}!")
    return dev


def _all_cpu_scalars_so_far(tensors, upto):
    for t in tensors:
        if t is upto:
            return True
        if not (t.ndim == 0 and t.device.type == "cpu"):
            return False
    return True


def common_dtype(inputs):
    """PyTorch's result_type over impls and Python scalars (wrapped numbers)."""
    dim_dt = zero_dt = wrapped_dt = None
    for op in inputs:
        if type(op) is TensorImpl:
            if op.is_wrapped_number:
                d = _dt._wrapped_dtype(op.dtype)
                wrapped_dt = d if wrapped_dt is None else _dt.promote_types(wrapped_dt, d)
            elif op.sizes:
                dim_dt = op.dtype if dim_dt is None else _dt.promote_types(dim_dt, op.dtype)
            else:
                zero_dt = op.dtype if zero_dt is None else _dt.promote_types(zero_dt, op.dtype)
        elif op is not None:
            d = _dt.scalar_dtype(op)
            wrapped_dt = d if wrapped_dt is None else _dt.promote_types(wrapped_dt, d)
    return _dt.result_type_groups(dim_dt, zero_dt, wrapped_dt)


def build(outs, inputs, *, promote_inputs=True, int_to_float=False, static_dtype=None, safe_cast=True,
          check_same_dtype=False, resize=True, allow_cpu_scalars=True, cast_outputs=False) -> TensorIterator:
    """Configure and build an elementwise iterator (``TensorIteratorConfig().add_output(...)...build()``).

    ``outs``: the given outputs (None where the kernel should allocate); ``inputs``: impls or scalars.
    ``cast_outputs``: PyTorch's ``cast_common_dtype_to_outputs``: a given output of another dtype than the common
    one is computed in the common dtype and converted at the end (Note [Cast outputs]); the kernel then finishes
    with ``cast_outputs(it)`` (``pointwise_support``).

    PyTorch's ``fast_set_up`` is inlined here, for the common case of a functional call whose tensor inputs
    are all contiguous with one shape, device and dtype (see Note [Per-call cost]); anything else takes
    the general path.
    """
    if len(outs) == 1 and outs[0] is None:
        first = None
        has_scalar = False
        ins = []  # the operands' numpy views (TensorImpl.as_numpy's cache, read without a call); scalars as given
        for x in inputs:
            if type(x) is TensorImpl:
                if first is None:
                    first = x
                elif x.sizes != first.sizes or x.dtype is not first.dtype or x.device is not first.device:
                    break
                data = x.storage._data
                if data is None or not (x._contig or x.is_contiguous()):
                    break
                arr = x._np
                ins.append(arr if arr is not None and x._np_key is data else x.as_numpy())
            elif x is None:
                break
            else:
                has_scalar = True
                ins.append(x)
        else:
            # a scalar is a 0-dim operand: with one, PyTorch takes the general (stride-sorting) path unless the
            # tensors are row-major in every dim (only size-0/1 dims may carry other strides and be contiguous);
            # an empty result there can get other strides (Note [Output strides of a size-0 dim])
            sizes = first.sizes if first is not None else None
            if first is not None and not (has_scalar and (0 in sizes or 1 in sizes and
                                                          first.strides != _shape.contiguous_strides(sizes))):
                common = first.dtype
                if has_scalar and promote_inputs and not check_same_dtype:
                    # one tensor dtype plus wrapped numbers: they matter only from a higher category up
                    for x in inputs:
                        if type(x) is not TensorImpl and _SCALAR_CAT.get(type(x), 9) > common._cat:
                            common = common_dtype(inputs)
                            break
                if int_to_float and common._cat <= _dt.INT_CAT:
                    common = _dt.get_default_dtype()
                if has_scalar:  # the numbers, converted to the common dtype now that it is known
                    ins = [v if type(x) is TensorImpl else scalar_np(v, common)
                           for x, v in zip(inputs, ins, strict=True)]
                return _fresh_output_iterator(sizes, first.device, common, static_dtype, ins)
        it = _build_broadcast(inputs, int_to_float, static_dtype)
        if it is not None:
            return it
    elif len(outs) == 1 and static_dtype is None:
        ops = fast_operands(outs[0], inputs, promote_inputs and not check_same_dtype, int_to_float)
        if ops is not None:
            o = outs[0]
            it = TensorIterator()
            it.shape = o.sizes
            it.device = o.device
            it.is_meta = False
            it.common_dtype = o.dtype
            it.out = o
            it.outs = [o]
            it.out_np = ops[0]
            it.ins_np = ops[1:]
            it.cast_out = None
            return it
    return _build_general(outs, inputs, promote_inputs, int_to_float, static_dtype, safe_cast, check_same_dtype,
                          resize, cast_outputs)


# Note [Given-output fast path]
# ``self.op_(...)`` and ``op(..., out=o)`` with every tensor contiguous with the output's shape, device and dtype,
# at least one of them an input that is not a wrapped number (it fixes the common dtype to the output's), and no
# Python number that promotes beyond the output's category: no broadcast, resize or cast can happen and the
# output has no internal overlap (it is contiguous), so partial overlap of the output with an input is the
# only check left (made after every condition held, so an error of the general path, which checks devices
# first, wins when one fails).  Kernels on their hottest path call fast_operands() themselves and skip the
# iterator object; build() wraps the same operands in one for the rest.
def fast_operands(o, inputs, promote=True, int_to_float=False):
    """``[out_np, *inputs_np]`` for writing the given output ``o`` (in place or ``out=``) without the general
    build (Note [Given-output fast path]); scalars come as numpy scalars of ``o``'s dtype.  None when a
    condition fails: the caller then runs :func:`build`.  ``promote``: whether Python numbers take part in
    type promotion (False for ``check_same_dtype`` kernels); ``int_to_float``: the result is floating."""
    if type(o) is not TensorImpl:
        return None
    storage = o.storage
    data = storage._data
    if data is None or not (o._contig or o.is_contiguous()):
        return None
    dt = o.dtype
    if int_to_float and dt._cat <= _dt.INT_CAT:
        return None  # the result would be floating: the cast check of the general path raises
    arr = o._np  # TensorImpl.as_numpy's cache, read without a call
    out_np = arr if arr is not None and o._np_key is data else o.as_numpy()
    ops = [out_np]
    sizes = o.sizes
    shared = typed = False  # typed: a tensor input (not a wrapped number) fixes the common dtype to dt
    for x in inputs:
        if x is o:
            ops.append(out_np)
            typed = True
        elif type(x) is TensorImpl:
            xs = x.storage
            data = xs._data
            if x.dtype is not dt or x.sizes != sizes or data is None or not (x._contig or x.is_contiguous()) or \
                    x.device is not o.device and x.device != o.device or x.is_wrapped_number:
                return None
            typed = True
            if xs is storage:
                shared = True
            arr = x._np
            ops.append(arr if arr is not None and x._np_key is data else x.as_numpy())
        elif x is None or promote and _SCALAR_CAT.get(type(x), 9) > dt._cat:
            return None
        else:
            ops.append(scalar_np(x, dt))
    if not typed:
        return None  # numbers alone promote among themselves (``add(2, 3, out=o)`` computes in int64)
    if shared:
        for x in inputs:
            if type(x) is TensorImpl and x is not o:
                check_no_partial_overlap(o, x)
    return ops


# Note [Broadcast fast path]
# ``x + bias`` (a functional call whose tensor operands share one dtype and device and are each row-major in their
# own shape, but with different shapes) allocates a row-major output: in reorder_dimensions, a broadcast dim has
# stride 0 and is skipped, and the row-major strides of the operands never ask for a swap (equal strides only
# occur around size-1 dims, which the shape tie-break never moves outwards).  Strides that are row-major but
# not canonical on a size-1 dim, a Python number, a dtype or device mix, an empty result or shapes that do not
# broadcast take the general path, which also raises the errors.
@functools.lru_cache(maxsize=4096)
def _broadcast_pair(a: tuple, b: tuple):
    """The broadcast of two shapes, or None when they do not broadcast (the general path raises then)."""
    if len(a) < len(b):
        a, b = b, a
    out = list(a)
    off = len(a) - len(b)
    for i, s in enumerate(b):
        cur = out[off + i]
        if cur == 1:
            out[off + i] = s
        elif s != 1 and s != cur:
            return None
    return tuple(out)


def _build_broadcast(inputs, int_to_float, static_dtype):
    """The iterator of a functional call with broadcast row-major operands (Note [Broadcast fast path]), or None."""
    first = shape = None
    ins = []
    for x in inputs:
        if type(x) is not TensorImpl:
            return None
        data = x.storage._data
        if data is None or not (x._contig or x.is_contiguous()):
            return None
        sizes = x.sizes
        if first is None:
            first, shape = x, sizes
        elif x.dtype is not first.dtype or x.device is not first.device:
            return None
        elif sizes != shape:
            shape = _broadcast_pair(shape, sizes)
            if shape is None:
                return None
        if 1 in sizes and x.strides != _shape.contiguous_strides(sizes):
            return None
        arr = x._np
        ins.append(arr if arr is not None and x._np_key is data else x.as_numpy())
    if first is None or 0 in shape:
        return None
    common = first.dtype
    if int_to_float and common._cat <= _dt.INT_CAT:
        common = _dt.get_default_dtype()
    return _fresh_output_iterator(shape, first.device, common, static_dtype, ins)


def _fresh_output_iterator(shape, device, common, static_dtype, ins_np) -> TensorIterator:
    """The iterator of a fast set-up: a new row-major output of ``shape`` (in ``static_dtype`` if given, else the
    common dtype) and the inputs' numpy operands as given."""
    out, out_np = empty_contiguous_numpy(shape, common if static_dtype is None else static_dtype, device)
    it = TensorIterator()
    it.shape = shape
    it.device = device
    it.is_meta = False
    it.common_dtype = common
    it.out = out
    it.outs = [out]
    it.out_np = out_np
    it.ins_np = ins_np
    it.cast_out = None
    return it


# Note [Cast outputs]
# PyTorch computes the common dtype from the inputs only; an ``out=`` (or in-place self) of another dtype gets a
# temporary of the common dtype, the loop writes that, and ``cast_outputs()`` converts it into the given tensor
# (``cast_common_dtype_to_outputs``).  So ``mul(f16, u8, out=f32)`` rounds the float32 opmath product to float16
# first, and ``add(f16 33000, f16 33000, out=f64)`` overflows to inf, as in float16.  Kernels built with
# ``cast_outputs=True`` write ``it.out_np`` (that temporary when ``it.cast_out`` is set) and end with
# ``cast_outputs(it)``; the given-output fast paths never need it (one dtype throughout).
def _build_general(outs, inputs, promote_inputs, int_to_float, static_dtype, safe_cast, check_same_dtype,
                   resize, cast_outputs=False) -> TensorIterator:
    it = TensorIterator()
    it.cast_out = None
    tensors = [x for x in inputs if type(x) is TensorImpl]
    given = [o for o in outs if o is not None]
    # 1. devices
    it.device = _common_device(tensors + given) if (len(tensors) + len(given)) > 1 else \
        (tensors[0].device if tensors else (given[0].device if given else None))
    it.is_meta = any(t.storage._data is None for t in tensors) or any(o.storage._data is None for o in given)
    # 2. overlap
    for o in given:
        check_no_internal_overlap(o)
        for t in tensors:
            check_no_partial_overlap(o, t)
    # 3. shape
    if len(tensors) == 1:
        shape = tensors[0].sizes
    elif tensors and all(t.sizes == tensors[0].sizes for t in tensors):
        shape = tensors[0].sizes
    else:
        shape = _shape.broadcast_shapes(*(t.sizes for t in tensors))
    it.shape = shape
    for o in given:  # mark_resize_outputs: an output that is also an input cannot be broadcast (before dtypes)
        if o.sizes != shape and any(o is t for t in tensors):
            raise RuntimeError(f"output with shape {_fmt(o.sizes)} doesn't match the broadcast shape {_fmt(shape)}")
    # 4. dtype
    if check_same_dtype:
        dt = tensors[0].dtype if tensors else _dt.get_default_dtype()
        for t in tensors + given:
            if t.dtype is not dt:
                raise RuntimeError(f"Found dtype {_dt.name_of(t.dtype)} but expected {_dt.name_of(dt)}")
        common = dt
    else:
        common = common_dtype(inputs) if promote_inputs else tensors[0].dtype
    if int_to_float and common._cat <= _dt.INT_CAT:
        common = _dt.get_default_dtype()
    it.common_dtype = common
    out_dtype = common if static_dtype is None else static_dtype
    # 5./6. outputs
    results = []
    for o in outs:
        if o is None:
            results.append(_new_output(shape, out_dtype, it.device, tensors, len(inputs)) if it.device is not None else
                           empty_strided_impl(shape, _shape.contiguous_strides(shape), out_dtype, CPU))
            continue
        if safe_cast and static_dtype is None and not _dt.can_cast(common, o.dtype):
            raise RuntimeError(f"result type {_dt.name_of(common)} can't be cast to the desired output type "
                               f"{_dt.name_of(o.dtype)}")
        if o.sizes != shape:
            if not resize or any(o is t for t in tensors) or _is_input(o, tensors):
                raise RuntimeError(f"output with shape {_fmt(o.sizes)} doesn't match the broadcast shape {_fmt(shape)}")
            resize_out(o, shape, output_strides(shape, tensors, len(inputs)))
        results.append(o)
    it.outs = results
    it.out = results[0] if results else None
    if it.is_meta:
        it.out_np = None
        it.ins_np = None
        return it
    # 7. numpy operands
    it.out_np = it.out.as_numpy() if it.out is not None else None
    if cast_outputs and static_dtype is None and outs[0] is not None and it.out.dtype is not common:
        it.cast_out, it.out_np = it.out_np, np.empty(shape, common.np)  # Note [Cast outputs]
    # a complex32 operand of another common dtype is read as complex64 values (numpy cannot cast its storage)
    it.ins_np = [(x.as_numpy() if x.dtype is not _C32 or common is _C32 else _dt.complex32_values(x.as_numpy()))
                 if type(x) is TensorImpl else scalar_np(x, common) for x in inputs]
    return it


def _is_input(o, tensors):
    return any(o.storage is t.storage and o.offset == t.offset and o.strides == t.strides for t in tensors)


# -- reductions --------------------------------------------------------------------------------------------
def reduction_dims(dim, ndim, *, wrap_first=True) -> tuple:
    """Wrap reduction dims; ``None`` or ``[]`` means all; duplicates raise PyTorch's error.

    ``wrap_first``: every dim is wrapped before any repeat is looked for, so ``(0, 0, 5)`` on a 2-d tensor is out
    of range (the structured reductions' ``maybe_wrap_dims`` then ``make_dim_mask``); without it each dim is
    wrapped and checked in turn and the repeat is named first (std/var and norms call ``make_dim_mask`` alone).
    """
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(ndim))
    if ndim > 64:  # make_dim_mask's bitset holds 64 dims (reducing over all of them needs no mask)
        raise RuntimeError("only tensors with up to 64 dims are supported")
    wrapped = [_shape.wrap_dim(d, ndim) for d in dims] if wrap_first else None
    out = []
    for i, d in enumerate(dims):
        w = wrapped[i] if wrap_first else _shape.wrap_dim(d, ndim)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out) if ndim else ()


def reduced_shape(sizes, dims, keepdim) -> tuple:
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(sizes))
    return tuple(s for d, s in enumerate(sizes) if d not in dims)


def build_reduction(self: TensorImpl, dim, keepdim, out_dtype, out: TensorImpl | None, *, name="reduction"):
    """Output of a reduction over ``dim`` (allocated, or ``out`` resized) and the numpy axes to reduce."""
    dims = reduction_dims(dim, self.ndim)
    shape = reduced_shape(self.sizes, dims, keepdim)
    if out is None:
        out = empty_strided_impl(shape, _shape.contiguous_strides(shape), out_dtype, self.device)
    else:
        if out.dtype is not out_dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_dt.name_of(out_dtype)}, but got "
                               f"{_dt.name_of(out.dtype)} instead")
        resize_out(out, shape)
    return out, dims


# -- coalescing --------------------------------------------------------------------------------------------
def coalesce(shape, strides_per_operand):
    """Merge neighbouring dims that are contiguous for every operand (PyTorch's coalesce_dimensions).

    Returns (new_shape, new_strides_per_operand) with dims in the original order (slowest first).
    """
    if len(shape) <= 1:
        return tuple(shape), [tuple(s) for s in strides_per_operand]
    sizes = list(shape)
    strides = [list(s) for s in strides_per_operand]
    d = len(sizes) - 1
    while d > 0:
        inner, outer = d, d - 1
        can = sizes[inner] == 1 or sizes[outer] == 1 or all(
            st[inner] * sizes[inner] == st[outer] for st in strides)
        if can:
            for st in strides:
                st[inner] = st[inner] if sizes[inner] != 1 else st[outer]
            sizes[inner] *= sizes[outer]
            del sizes[outer]
            for st in strides:
                del st[outer]
        d -= 1
    return tuple(sizes), [tuple(s) for s in strides]


def type_name(impl: TensorImpl) -> str:
    return tensor_type_name(impl)
