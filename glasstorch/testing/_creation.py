"""``torch.testing.make_tensor``: a random tensor of a shape, dtype and device, values uniform in ``[low, high)``.

PyTorch counterpart: ``torch/testing/_creation.py``.  The values come from glasstorch's generator through the
same calls torch makes (``randint`` for bool and integers, ``uniform_`` for floating and complex dtypes, over the
real view of a complex tensor), so equal seeds give torch's tensors.
"""

from __future__ import annotations

import collections.abc
import math
import warnings

from .._core import dtype as _dt
from .._functions import empty, randint
from .._generated.functions import view_as_real
from ..tensor import Tensor

__all__ = ["make_tensor"]

_INTEGRAL = (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64) + _dt.BAREBONES_UNSIGNED
_FLOATING = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
_COMPLEX = (_dt.complex32, _dt.complex64, _dt.complex128)


def _bounds(dtype, low, high, *, lowest, highest, default_low, default_high):
    """``[low, high)`` after torch's defaults, checks and clamping to what ``dtype`` holds (``highest`` excluded);
    integer bounds are ceiled (randint's upper bound is exclusive, so both round up)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and (dtype.is_floating_point or dtype.is_complex):
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype is _dt.bool or dtype in _INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform(t: Tensor, low, high) -> None:
    """``uniform_`` over ``[low, high)``; a span wider than the dtype's max is drawn at half scale and doubled."""
    if high - low >= _dt.finfo(t.dtype).max:
        t.uniform_(low / 2, high / 2).mul_(2)
    else:
        t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None) -> Tensor:
    """A tensor of ``shape`` with values drawn uniformly from ``[low, high)`` (default ``[-9, 9)`` for floating
    and complex dtypes, ``[-9, 10)`` for integers, ``[0, 2)`` for bool), as ``torch.testing.make_tensor``.

    ``noncontiguous`` gives a strided view (every second element of a doubled last dimension), ``memory_format`` a
    copy in that layout, ``exclude_zero`` replaces zeros by 1 (or the dtype's ``tiny``).

    Raises:
        ValueError: torch's messages for conflicting options, an empty or out-of-range interval, NaN bounds, or
            ``requires_grad`` with a bool or integer dtype.
        TypeError: a dtype make_tensor does not support.
    """
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    integral = dtype is _dt.bool or dtype in _INTEGRAL
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _dt.bool:
        low, high = _bounds(dtype, low, high, lowest=0, highest=2, default_low=0, default_high=2)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = _dt.iinfo(dtype)
        # randint samples below an int64 upper bound, so int64's own max is out of reach (torch's rule)
        highest = info.max + (0 if dtype is _dt.int64 else 1)
        low, high = _bounds(dtype, low, high, lowest=info.min, highest=highest, default_low=-9, default_high=10)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING or dtype in _COMPLEX:
        info = _dt.finfo(dtype)
        low, high = _bounds(dtype, low, high, lowest=info.min, highest=info.max, default_low=-9, default_high=9)
        result = empty(shape, device=device, dtype=dtype)
        _uniform(view_as_real(result) if dtype.is_complex else result, low, high)
    elif dtype in _dt.FLOAT8_DTYPES:  # no uniform_ kernel: drawn in float32, then converted
        info = _dt.finfo(dtype)
        low, high = _bounds(dtype, low, high, lowest=info.min, highest=info.max, default_low=-9, default_high=9)
        result = empty(shape, device=device, dtype=_dt.float32)
        _uniform(result, low, high)
        result = result.to(dtype)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To request "
                        f"support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else _dt.finfo(dtype).tiny
    if not integral:
        result.requires_grad = requires_grad
    return result
