"""Factory kernels — PyTorch's ``TensorFactories.cpp``, ``RangeFactories.cpp`` and
``torch/csrc/utils/tensor_new.cpp`` (dtype inference for ``torch.tensor``).

Everything here returns a fresh TensorImpl.  Dtype inference for ``tensor(data)`` follows PyTorch:
Python bool -> bool, int -> int64, float -> the default dtype, complex -> the default complex dtype,
numpy scalars/arrays and tensors -> their own dtype, and a sequence promotes its elements' dtypes.

Invariant: a factory never aliases its input data (except ``from_numpy``/``as_tensor``, elsewhere).
"""

from __future__ import annotations

import builtins
import math
import numbers
import operator
import warnings

import numpy as np

from .._core import dtype as _dt
from .._core.device import CPU
from .._core import shape as _shape
from .._core.shape import contiguous_strides
from .._tensor.impl import TensorImpl, empty_impl, from_numpy_impl
from .kernels.cpu import copy as _copy

__all__ = ["tensor_impl", "infer_dtype", "full_impl", "arange_impl", "linspace_impl", "eye_impl", "check_fits"]

_SCALARS = (bool, int, float, complex)


def _is_tensor(x):
    return hasattr(x, "_impl")


def infer_dtype(data):
    """The dtype ``torch.tensor(data)`` gives (PyTorch's ``infer_scalar_type``)."""
    if isinstance(data, bool):
        return _dt.bool
    if isinstance(data, int):
        return _dt.int64
    if isinstance(data, float) and not isinstance(data, np.floating):
        return _dt.get_default_dtype()
    if isinstance(data, complex) and not isinstance(data, np.complexfloating):
        return _complex_for_default()
    if _is_tensor(data):
        return data._impl.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return _dt.from_numpy_dtype(data.dtype)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, (list, tuple)) or _is_sequence(data):
        out = None
        for item in data:
            if item is data:
                raise TypeError("new(): self-referential lists are incompatible")
            d = infer_dtype(item)
            out = d if out is None else _dt.promote_types(out, d)
        return _dt.get_default_dtype() if out is None else out
    if isinstance(data, numbers.Integral):
        return _dt.int64
    if isinstance(data, numbers.Real):
        return _dt.get_default_dtype()
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _complex_for_default():
    """tensor_new.cpp's complex type for a Python complex: only float/double/half defaults have one."""
    default = _dt.get_default_dtype()
    if default is _dt.bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return default.to_complex()


def _is_sequence(x):
    """PySequence_Check: lists, tuples, str, ndarrays, ranges ... but not tensors, dicts or numpy scalars."""
    if isinstance(x, (list, tuple, str, np.ndarray)):
        return True
    if _is_tensor(x) or isinstance(x, (dict, np.generic)):
        return False
    return hasattr(x, "__len__") and hasattr(x, "__getitem__")


_MAX_DIMS = 64
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _compute_sizes(data) -> tuple:
    """The shape of nested data, read along first elements only (``compute_sizes``); a tensor is a leaf."""
    sizes = []
    seq = data
    while _is_sequence(seq):
        if isinstance(seq, np.ndarray):
            sizes.extend(seq.shape)
            break
        n = len(seq)
        sizes.append(n)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(seq).__name__}'")
        if n == 0:
            break
        seq = seq[0]
    return tuple(sizes)


def _tp_name(x) -> str:
    """CPython's ``tp_name``: 'list', 'complex', 'numpy.float32' ..."""
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _int_overflows(v, dtype) -> bool:
    """c10's ``overflows<T>(int64)``: an unsigned type also takes negatives down to ``-max`` (two's complement)."""
    info = np.iinfo(dtype.np)
    if info.min == 0:
        return v > info.max or (v < 0 and -v > info.max)
    return not info.min <= v <= info.max


def _float_overflows(f, dtype) -> bool:
    """c10's ``overflows<T>(double)`` for an integral ``T``: NaN, infinities and out-of-range values."""
    if f != f:
        return True
    info = np.iinfo(dtype.np)
    return f < info.min or f > info.max


def _leaf_converter(target):
    """``store_scalar``: how one Python leaf is read for ``target`` (with PyTorch's checks and errors)."""
    if target is _dt.bool:
        return lambda x: builtins.bool(x) if _is_tensor(x) else x
    if target._cat == _dt.INT_CAT:
        name = target._name

        def to_int(x):
            if isinstance(x, float):  # unpackIntegral: a Python float is range-checked, then truncated
                if _float_overflows(x, target):
                    raise RuntimeError(f"value cannot be converted to type {name} without overflow")
                return x
            v = operator.index(x)  # THPUtils_unpackLong: __index__ ("'complex' object cannot be interpreted ...")
            if not _INT64_MIN <= v <= _INT64_MAX:
                raise ValueError("Overflow when unpacking long long")
            if _int_overflows(v, target):
                raise RuntimeError(f"value cannot be converted to type {name} without overflow")
            return v
        return to_int
    if target.is_complex:
        return lambda x: builtins.complex(x) if _is_tensor(x) else x

    def to_float(x):  # THPUtils_unpackDouble: PyFloat_AsDouble (no range check: 1e300 -> inf)
        if isinstance(x, (float, int)):
            return x
        if isinstance(x, complex) or not (hasattr(type(x), "__float__") or hasattr(type(x), "__index__")):
            raise TypeError(f"must be real number, not {_tp_name(x)}")
        return float(x)
    return to_float


def _store(obj, sizes, dim, conv):
    """``recursive_store``: walk every element depth-first with PyTorch's ragged-data errors."""
    if dim == len(sizes):
        return conv(obj)
    if isinstance(obj, np.ndarray):
        for d, (got, want) in enumerate(zip(obj.shape, sizes[dim:])):
            if got != want:
                raise ValueError(f"expected sequence of length {want} at dim {dim + d} (got {got})")
        if obj.ndim != len(sizes) - dim:
            raise TypeError("not a sequence")
        return obj
    if isinstance(obj, (list, tuple)):
        seq = obj
    else:
        try:  # PySequence_Fast: anything iterable (a tensor iterates over its first dim)
            seq = list(obj)
        except TypeError:
            raise TypeError("not a sequence") from None
    n = sizes[dim]
    if len(seq) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
    if dim + 1 == len(sizes):
        return [conv(x) for x in seq]
    return [_store(x, sizes, dim + 1, conv) for x in seq]


def tensor_impl(data, dtype=None, device=CPU) -> TensorImpl:
    """``torch.tensor(data)``: always a copy, dtype inferred when not given.

    Order of checks is PyTorch's: shape first (``compute_sizes``), then dtype inference, then every
    element is read (``recursive_store``: ragged data, element types and integer overflow).  A tensor
    inside a list is one scalar element, as in PyTorch (a multi-element tensor there is an error).
    """
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if _is_tensor(data):
        target = data._impl.dtype if dtype is None else dtype
        impl = data._impl
        if impl.is_meta:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return _fill_from(empty_impl(impl.sizes, target, device), impl.as_numpy())
    sizes = _compute_sizes(data)
    target = infer_dtype(data) if dtype is None else dtype
    if isinstance(data, np.ndarray):
        return _fill_from(empty_impl(sizes, target, device), data)
    plain = _store(data, sizes, 0, _leaf_converter(target))
    try:
        arr = np.asarray(plain, dtype=_source_np(target, plain))
    except OverflowError:
        if target._cat == _dt.INT_CAT:
            raise ValueError("Overflow when unpacking long long") from None
        raise
    if arr.dtype == object:
        raise TypeError(f"Could not convert data of type {type(data).__name__} to a tensor")
    return _fill_from(empty_impl(sizes, target, device), arr.reshape(sizes))


def _fill_from(out: TensorImpl, arr: np.ndarray) -> TensorImpl:
    """Cast ``arr`` into ``out``'s storage (float -> int truncates, complex -> real drops the imaginary part)."""
    if out.storage._data is None:
        return out
    dst = out.as_numpy()
    with warnings.catch_warnings(), np.errstate(invalid="ignore", over="ignore"):
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        if out.dtype is _dt.complex32:  # (real, imag) float16 fields: numpy has no complex-half
            arr = np.asarray(arr).astype(np.complex128)
            np.copyto(dst["real"], arr.real, casting="unsafe")
            np.copyto(dst["imag"], arr.imag, casting="unsafe")
        else:
            np.copyto(dst, arr, casting="unsafe")
    return out


def _source_np(target, plain):
    """The numpy dtype to parse Python data with before casting (ints stay exact as int64)."""
    if isinstance(plain, np.ndarray):
        return None
    if target.is_complex:
        return np.complex128
    if target.is_floating_point:
        return np.float64
    if target is _dt.bool:
        return np.bool_ if _all_bool(plain) else None
    return np.int64 if target is _dt.int64 or target._cat == _dt.INT_CAT else None


def _all_bool(x):
    if isinstance(x, (list, tuple)):
        return all(_all_bool(i) for i in x)
    return isinstance(x, (bool, np.bool_))


def check_fits(value, dtype, numel=None) -> None:
    """c10's ``Scalar::to<T>()`` check behind ``full``/``fill_``: "value cannot be converted ... without overflow".

    The rules are c10's ``overflows<T>``: integers must fit (an unsigned type also takes negatives down to
    ``-max``), a float into an integer type must be finite and in range, a finite float into a floating
    type must not exceed its max (inf and NaN pass), a complex value into a real type needs a zero
    imaginary part; bool takes anything.  PyTorch's one-element fill of float16/bfloat16 goes through
    double, so ``numel`` <= 1 there only refuses non-real values (named ``double``).
    """
    if dtype is _dt.bool:
        return
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return
    name = _C_NAMES[dtype._name]
    if dtype in (_dt.float16, _dt.bfloat16) and numel is not None and numel <= 1:
        dtype, name = _dt.float64, "double"
    err = RuntimeError(f"value cannot be converted to type {name} without overflow")
    if isinstance(value, complex):
        if dtype.is_complex:
            if dtype is not _dt.complex128 and (_float_overflows_float(value.real, dtype.to_real())
                                                or _float_overflows_float(value.imag, dtype.to_real())):
                raise err
            return
        if value.imag != 0:
            raise err
        value = value.real
    if dtype._cat == _dt.INT_CAT:
        if isinstance(value, int):
            if _int_overflows(value, dtype):
                raise err
        elif _float_overflows(float(value), dtype):
            raise err
    elif dtype is not _dt.float64 and _float_overflows_float(float(value), dtype.to_real()):
        raise err


def _float_overflows_float(f, dtype) -> bool:
    """c10's ``overflows<T>(double)`` for a floating ``T``: only finite values beyond the max overflow."""
    return math.isfinite(f) and abs(f) > _dt.finfo(dtype).max


# The C++ type names c10 puts in its overflow messages.
_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
            "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
            "complex32": "c10::complex<c10::Half>", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}


def full_impl(sizes, value, dtype, device=CPU) -> TensorImpl:
    out = empty_impl(sizes, dtype, device)
    check_fits(value, dtype, out.numel())
    return _copy.fill_(out, value)


def _scalar_float(x):
    return x.item() if _is_tensor(x) else x


def arange_impl(start, end, step, dtype, device=CPU) -> TensorImpl:
    """``arange``: length ``ceil((end - start) / step)`` computed in double, values ``start + i*step``."""
    start, end, step = (_scalar_float(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype._cat <= _dt.INT_CAT and all(isinstance(v, (int, np.integer)) for v in (start, end, step)):
        n = max(-((start - end) // step), 0)
        out = empty_impl((n,), dtype, device)
        if out.storage._data is not None:
            np.copyto(out.as_numpy(), np.arange(n, dtype=np.int64) * step + start, casting="unsafe")
        return out
    n = math.ceil((float(end) - float(start)) / float(step))
    if n < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    out = empty_impl((int(n),), dtype, device)
    if out.storage._data is not None:
        vals = np.arange(n, dtype=np.float64) * float(step) + float(start)
        if dtype._cat <= _dt.INT_CAT:
            vals = np.arange(n, dtype=np.int64) * int(step) + int(start)
        np.copyto(out.as_numpy(), vals, casting="unsafe")
    return out


def linspace_impl(start, end, steps, dtype, device=CPU) -> TensorImpl:
    """``linspace``: the first half counts up from ``start``, the second half down from ``end``."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    out = empty_impl((steps,), dtype, device)
    if out.storage._data is None or steps == 0:
        return out
    start, end = _scalar_float(start), _scalar_float(end)
    if steps == 1:
        return _copy.fill_(out, start)
    if dtype._cat <= _dt.INT_CAT:
        step = (float(end) - float(start)) / (steps - 1)
        vals = start + step * np.arange(steps)
        np.copyto(out.as_numpy(), vals, casting="unsafe")
        return out
    cdt = np.complex128 if dtype.is_complex else np.float64
    step = (cdt(end) - cdt(start)) / (steps - 1)
    idx = np.arange(steps)
    half = steps // 2
    vals = np.where(idx < half, cdt(start) + step * idx, cdt(end) - step * (steps - idx - 1))
    np.copyto(out.as_numpy(), vals, casting="unsafe")
    return out


def eye_impl(n, m, dtype, device=CPU) -> TensorImpl:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    out = full_impl((n, m), 0, dtype, device)
    if out.storage._data is not None:
        np.fill_diagonal(out.as_numpy(), 1)
    return out


def numpy_impl(arr: np.ndarray) -> TensorImpl:
    """``from_numpy``: share the array's memory."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    dtype = _dt.from_numpy_dtype(arr.dtype)
    if not arr.flags.writeable:
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                      "This means writing to this tensor will result in undefined behavior. You may want to copy "
                      "the array to protect its data or make it writable before converting it to a tensor. This "
                      "type of warning will be suppressed for the rest of this program.", UserWarning, stacklevel=3)
    return from_numpy_impl(arr, dtype)


def strides_like(impl: TensorImpl) -> tuple:
    """Strides ``preserve_format`` gives a new tensor like ``impl`` (PyTorch's empty_like rule)."""
    if _shape.is_non_overlapping_and_dense(impl.sizes, impl.strides):
        return impl.strides
    if _shape.is_channels_last_strides_2d(impl.sizes, impl.strides):
        return _shape.channels_last_strides(impl.sizes)
    return contiguous_strides(impl.sizes)
