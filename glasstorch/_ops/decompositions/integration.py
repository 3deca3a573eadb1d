"""The trapezoid rule (CompositeImplicitAutograd) — PyTorch's ``Integration.cpp``.

Samples ``y`` along ``dim`` at points ``x`` (or evenly ``dx`` apart) integrate to the sum over neighbouring pairs
of (y_i + y_{i+1}) * dx_i / 2. A 1-d ``x`` lies along ``dim``; a lower-dimensional one gains leading size-1
dimensions; its differences then broadcast against the pair sums, as numpy's ``trapezoid`` does. With constant
spacing the sum is ``(sum(y) - (y_first + y_last) / 2) * dx``. The arithmetic follows torch's order of
operations, so results agree to the last bit.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..aten import aten
from ..factories import full_impl

__all__ = ["trapezoid_x", "trapezoid_dx", "trapz_x", "trapz_dx", "cumulative_trapezoid_x",
           "cumulative_trapezoid_dx"]


def _pairs(y, dim):
    """y_i + y_{i+1} along ``dim``."""
    return aten.add_Tensor(aten.slice_Tensor(y, dim, 0, -1, 1), aten.slice_Tensor(y, dim, 1, None, 1), 1)


def _spacing(api, y, x, dim):
    """The differences of ``x`` along ``dim``, shaped to broadcast against ``y``'s pair sums."""
    if y.dtype is _dt.bool or x.dtype is _dt.bool:
        raise RuntimeError(f"{api}: received a bool input for `x` or `y`, but bool is not supported")
    if x.ndim == 1:
        if x.sizes[0] != y.sizes[dim]:
            raise RuntimeError(f"{api}: There must be one `x` value for each sample point")
        x = aten.view(x, [x.sizes[0] if i == dim else 1 for i in range(y.ndim)])
    elif x.ndim < y.ndim:
        x = aten.view(x, [1] * (y.ndim - x.ndim) + list(x.sizes))
    return aten.sub_Tensor(aten.slice_Tensor(x, dim, 1, None, 1), aten.slice_Tensor(x, dim, 0, -1, 1), 1)


def _real_dx(api, y, dx) -> float:
    if y.dtype is _dt.bool:
        raise RuntimeError(f"{api}: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{api}: Currently, we only support dx as a real number.")
    return float(dx)


def _zeros_without(y, dim):
    """numpy's answer for no samples: zeros of ``y``'s shape less ``dim``."""
    dim = wrap_dim(dim, y.ndim)
    return full_impl(y.sizes[:dim] + y.sizes[dim + 1:], 0, y.dtype, y.device)


def trapezoid_x(y, x, dim=-1):
    dim = wrap_dim(dim, y.ndim)
    if y.sizes[dim] == 0:
        return _zeros_without(y, dim)
    dx = _spacing("trapezoid", y, x, dim)
    return aten.div_Tensor(aten.sum_dim_IntList(aten.mul_Tensor(_pairs(y, dim), dx), [dim], False, None), 2.0)


def trapezoid_dx(y, dx=1, dim=-1):
    if y.sizes[wrap_dim(dim, y.ndim)] == 0:
        return _zeros_without(y, dim)
    dx = _real_dx("trapezoid", y, dx)
    ends = aten.add_Tensor(aten.select_int(y, dim, 0), aten.select_int(y, dim, -1), 1)
    inner = aten.sub_Tensor(aten.sum_dim_IntList(y, [dim], False, None), aten.mul_Tensor(ends, 0.5), 1)
    return aten.mul_Tensor(inner, dx)


def trapz_x(y, x, dim=-1):
    return trapezoid_x(y, x, dim)


def trapz_dx(y, dx=1.0, dim=-1):
    return trapezoid_dx(y, dx, dim)


def cumulative_trapezoid_x(y, x, dim=-1):
    dim = wrap_dim(dim, y.ndim)
    dx = _spacing("cumulative_trapezoid", y, x, dim)
    return aten.div_Tensor(aten.cumsum(aten.mul_Tensor(_pairs(y, dim), dx), dim, None), 2.0)


def cumulative_trapezoid_dx(y, dx=1, dim=-1):
    dx = _real_dx("cumulative_trapezoid", y, dx)
    return aten.cumsum(aten.mul_Tensor(_pairs(y, dim), dx / 2.0), dim, None)
