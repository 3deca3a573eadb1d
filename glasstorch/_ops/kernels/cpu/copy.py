"""Copy and fill kernels — PyTorch's ``aten/src/ATen/native/Copy.cpp`` and ``Fill.cpp`` (CPU, on numpy).

``copy_(dst, src)`` writes ``src`` into ``dst`` in place, broadcasting ``src`` to ``dst``'s shape and
converting dtype (float -> int truncates toward zero, nonzero -> True).  Meta tensors check shapes only.
Invariant: ``dst``'s geometry never changes; its version counter is bumped by the caller's layer.

Note [c10 casts]: PyTorch converts elements with C++ casts, and two differ from numpy's direct casts.
``c10::Half`` and ``c10::BFloat16`` are built from a ``float`` only, so a double becomes a half or a bfloat16
through float32 -- rounded twice (``1 + 2**-11 + 2**-30`` -> 1.0 in float16, where a direct cast gives
1.0009765625; ``1 + 2**-8 + 2**-30`` -> 1.0 in bfloat16, where ml_dtypes >= 0.7 rounds directly to 1.0078125).
An int32 or int64 reaches them through float32 too (``2**30 + 2**22 + 1`` -> 2**30 in bfloat16). And a floating
value bound for ``uint8`` is truncated through ``int64`` (``static_cast_with_inter_type``: ``2**40 + 7`` -> 7).
:func:`cast_ready` prepares a source array so that numpy's unsafe cast gives PyTorch's bits.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ...._core import dtype as _dt
from ...._core.dispatch_key import MATH_BITS, bit
from ...._core.shape import broadcast_shapes
from ...._core.user_warning import warn as _user_warn
from ...._tensor.impl import TensorImpl
from ...overlap import check_no_internal_overlap, check_no_partial_overlap
from . import ckernels as _ck

__all__ = ["copy_", "copy_dense", "fill_", "check_copy_shapes", "cast_ready", "cast_routed", "scalar_ready"]

_F16, _F64, _U8 = np.dtype(np.float16), np.dtype(np.float64), np.dtype(np.uint8)
_BF16 = np.dtype(ml_dtypes.bfloat16)
_CONJ_BIT, _NEG_BIT = bit("Conjugate"), bit("Negative")
# the integers float32 does not hold exactly
_WIDE_INTS = tuple(np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64))
_U64 = np.dtype(np.uint64)
_HALF_VIA_INT64 = (np.dtype(np.uint16), np.dtype(np.uint32))  # a half or bfloat16 reaches these through int64
_FLOAT8_NP = frozenset(d.np for d in _dt.FLOAT8_DTYPES)
_FNUZ = (_dt.float8_e4m3fnuz, _dt.float8_e5m2fnuz)


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


chalf_values = _dt.complex32_values  # complex32 storage as complex64 values


def store_chalf(out: np.ndarray, values) -> None:
    """``values`` into complex32 storage ``out``: each part rounded to half from float32, as c10's complex<Half>."""
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.asarray(values).astype(np.complex64)
        out["real"], out["imag"] = v.real, v.imag


def cast_ready(src: np.ndarray, dst: np.dtype) -> np.ndarray:
    """``src`` as numpy must see it for an unsafe cast into ``dst`` to match c10's (Note [c10 casts]): through
    float32 into float16/bfloat16, through int64 into uint8 (and from float16/bfloat16 into uint16/uint32)."""
    if not cast_routed(src.dtype, dst):
        return src
    with np.errstate(invalid="ignore", over="ignore"):
        return src.astype(np.int64 if dst == _U8 or dst in _HALF_VIA_INT64 else np.float32)


def cast_routed(src: np.dtype, dst: np.dtype) -> bool:
    """Whether c10 converts ``src`` elements into ``dst`` by another route than numpy's direct cast, so that a
    kernel must compute into a ``src`` buffer and convert with :func:`cast_ready` (Note [c10 casts])."""
    if dst == _F16 or dst == _BF16:
        return src == _F64 or src in _WIDE_INTS
    if dst in _HALF_VIA_INT64:
        return src == _F16 or src == _BF16
    if dst == _U64:
        return src == _BF16
    return dst == _U8 and (src.kind == "f" or src == _BF16)


def scalar_ready(value, dst: np.dtype):
    """A Python float or int bound for float16/bfloat16 as a float32, the way c10 converts a double or an
    int64 (Note [c10 casts])."""
    if dst == _F16 or dst == _BF16:
        return _dt.half_input(value)
    return value


def check_copy_shapes(dst: TensorImpl, src_sizes) -> None:
    """``src`` must broadcast to ``dst``'s shape exactly (an output is never broadcast)."""
    if tuple(src_sizes) == dst.sizes:
        return
    out = broadcast_shapes(dst.sizes, src_sizes)
    if out != dst.sizes:
        raise RuntimeError(f"output with shape {_fmt(dst.sizes)} doesn't match the broadcast shape {_fmt(out)}")


def copy_(dst: TensorImpl, src: TensorImpl) -> TensorImpl:
    """PyTorch's ``copy_impl`` order: a meta source is refused, a copy of a tensor onto the same data returns at
    once (an expanded tensor onto itself too), then the iterator's overlap checks, then its broadcast."""
    if dst.storage._data is None:  # meta
        check_copy_shapes(dst, src.sizes)
        check_no_internal_overlap(dst)
        check_no_partial_overlap(dst, src)
        return dst
    if src.storage._data is None:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    flip = (src.key_set ^ dst.key_set) & MATH_BITS  # Note [Math bits]: the bits src has and dst lacks, or back
    if dst.storage is src.storage and dst.offset == src.offset and dst.sizes == src.sizes \
            and dst.strides == src.strides and dst.dtype is src.dtype and not flip:
        return dst  # copying a tensor onto itself
    check_no_internal_overlap(dst)
    check_no_partial_overlap(dst, src)
    check_copy_shapes(dst, src.sizes)
    s = src.as_numpy()
    if src.dtype is _dt.complex32:
        s = chalf_values(s)
    elif s.dtype in _FLOAT8_NP and src.dtype is not dst.dtype:
        s = _dt.float8_values(s)  # Note [float8 conversions]
        if dst.dtype is _dt.bfloat16 or dst.dtype is _dt.float16:
            _quiet_nans(s, dst.dtype is _dt.bfloat16)
        elif dst.dtype._cat == _dt.INT_CAT and src.dtype in _FNUZ:
            s[np.isnan(s)] = 0
    if flip:
        s = _apply_bits(s, flip)
    if src.dtype.is_complex and dst.dtype._name == "bool":
        s = s != 0  # a complex value is True when either part is non-zero
    elif src.dtype.is_complex and not dst.dtype.is_complex:
        _user_warn("Casting complex values to real discards the imaginary part")
        s = s.real
    out = dst.as_numpy()
    if dst.dtype is _dt.complex32:
        store_chalf(out, s)
        return dst
    if out.dtype in _FLOAT8_NP and src.dtype is not dst.dtype:
        s = _dt.to_float8(s, dst.dtype)
    if _ck.copy(s, out):
        return dst
    with np.errstate(invalid="ignore", over="ignore"):
        np.copyto(out, cast_ready(s, out.dtype), casting="unsafe")
    return dst


def _quiet_nans(values: np.ndarray, canonical: bool) -> None:
    """c10's float -> half/bfloat16 on NaN, in a fresh float32 array before numpy's cast: a half NaN gets the quiet
    bit (the fnuz NaN, float's 0x7F800001, becomes 0x7E00); a bfloat16 NaN is always 0x7FC0."""
    nan = np.isnan(values)
    if nan.any():
        bits = values.view(np.uint32)
        if canonical:
            bits[nan] = 0x7FC00000
        else:
            bits[nan] |= 0x00400000


def _apply_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """``values`` conjugated and/or negated as ``bits`` say: what a copy between tensors whose conjugate or
    negative bits differ writes into the stored elements of the destination (conj and neg commute)."""
    if bits & _CONJ_BIT:
        values = np.conj(values)
    if bits & _NEG_BIT:
        values = np.negative(values)
    return values


def copy_dense(src: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = src`` for two arrays of one dtype and shape, ``out`` fresh (no overlap, no cast, so no
    floating-point state either): the C copy when it threads, else numpy's (a memcpy when both are row-major)."""
    if not _ck.copy(src, out):
        np.copyto(out, src)


def fill_(dst: TensorImpl, value) -> TensorImpl:
    """Write one scalar into every element, converted to ``dst``'s dtype.

    A complex value bound for a real dtype was checked by the caller (c10's ``Scalar::to`` refuses a non-zero
    imaginary part), so no warning here, unlike ``copy_``; into bool it is True when either part is non-zero.
    """
    if dst.storage._data is None:
        return dst
    arr = dst.as_numpy()
    if dst.dtype is _dt.complex32:
        store_chalf(arr, complex(value))
        return dst
    if isinstance(value, complex) and not dst.dtype.is_complex:
        value = value != 0 if arr.dtype == np.bool_ else value.real
    if arr.dtype in _FLOAT8_NP:
        arr[...] = _dt.to_float8(float(value), dst.dtype)
        return dst
    with np.errstate(invalid="ignore", over="ignore"):
        value = scalar_ready(value, arr.dtype)
        try:
            arr.fill(value)
        except (ValueError, OverflowError, TypeError):
            arr[...] = np.asarray(value).astype(dst.dtype.np)
    return dst
