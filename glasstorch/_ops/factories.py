"""Factory kernels — PyTorch's ``TensorFactories.cpp``, ``RangeFactories.cpp`` and
``torch/csrc/utils/tensor_new.cpp`` (dtype inference for ``torch.tensor``).

Everything here returns a fresh TensorImpl.  Dtype inference for ``tensor(data)`` follows PyTorch:
Python bool -> bool, int -> int64, float -> the default dtype, complex -> the default complex dtype,
numpy scalars/arrays and tensors -> their own dtype, and a sequence promotes its elements' dtypes.

Invariant: a factory never aliases its input data (except ``from_numpy``/``as_tensor``, elsewhere).
"""

from __future__ import annotations

import math
import numbers
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
        return _dt.get_default_complex_dtype()
    if _is_tensor(data):
        return data._impl.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return _dt.from_numpy_dtype(data.dtype)
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type 'str'")
    if isinstance(data, (list, tuple)) or _is_sequence(data):
        out = None
        for item in data:
            d = infer_dtype(item)
            out = d if out is None else _dt.promote_types(out, d)
        return _dt.get_default_dtype() if out is None else out
    if isinstance(data, numbers.Integral):
        return _dt.int64
    if isinstance(data, numbers.Real):
        return _dt.get_default_dtype()
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _is_sequence(x):
    return hasattr(x, "__len__") and hasattr(x, "__getitem__") and not isinstance(x, (str, bytes, dict))


def _shape_of(data, dim=0, out=None):
    """Nested-sequence shape with PyTorch's ragged-list error."""
    out = [] if out is None else out
    if _is_tensor(data):
        return out + list(data._impl.sizes)
    if isinstance(data, np.ndarray):
        return out + list(data.shape)
    if isinstance(data, (list, tuple)) or (_is_sequence(data) and not isinstance(data, np.generic)):
        n = len(data)
        out.append(n)
        if n == 0:
            return out
        first = _shape_of(data[0], dim + 1, [])
        for item in data[1:]:
            if isinstance(item, (list, tuple)) or _is_sequence(item):
                got = len(item)
                if first and got != first[0]:
                    raise ValueError(f"expected sequence of length {first[0]} at dim {dim + 1} (got {got})")
            elif first:
                raise TypeError(f"not a sequence")
        return out + first
    return out


def _to_plain(data):
    """Replace tensors inside nested data by numpy values so numpy can build the array."""
    if _is_tensor(data):
        impl = data._impl
        if impl.is_meta:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return impl.as_numpy()
    if isinstance(data, (list, tuple)):
        return [_to_plain(x) for x in data]
    return data


def tensor_impl(data, dtype=None, device=CPU) -> TensorImpl:
    """``torch.tensor(data)``: always a copy, dtype inferred when not given."""
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    target = infer_dtype(data) if dtype is None else dtype
    sizes = tuple(_shape_of(data))
    plain = _to_plain(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            arr = np.asarray(plain, dtype=_source_np(target, plain))
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    if arr.dtype == object:
        raise TypeError(f"Could not convert data of type {type(data).__name__} to a tensor")
    out = empty_impl(sizes, target, device)
    if out.storage._data is not None:
        with np.errstate(invalid="ignore", over="ignore"):
            np.copyto(out.as_numpy(), arr.reshape(sizes), casting="unsafe")
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


def check_fits(value, dtype) -> None:
    """PyTorch refuses scalars that overflow the target type ("value cannot be converted ...")."""
    if isinstance(value, bool) or dtype is _dt.bool:
        return
    if dtype._cat == _dt.INT_CAT and isinstance(value, (int, np.integer)):
        info = np.iinfo(dtype.np)
        if not info.min <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dtype._name]} without overflow")
    elif dtype in (_dt.float16, _dt.bfloat16) and isinstance(value, (int, float)) and math.isfinite(value):
        if abs(value) > _dt.finfo(dtype).max * (1 + 2 ** -9):
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dtype._name]} without overflow")


_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
            "float16": "at::Half", "bfloat16": "at::BFloat16"}


def full_impl(sizes, value, dtype, device=CPU) -> TensorImpl:
    check_fits(value, dtype)
    out = empty_impl(sizes, dtype, device)
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
