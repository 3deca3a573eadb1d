"""Whole-tensor comparisons that answer with one Python bool — PyTorch's ``equal`` (``cpu_equal`` in
``aten/src/ATen/native/ReduceOps.cpp``) and ``allclose`` (``TensorCompare.cpp``: ``isclose(...).all().item()``).

Invariant: neither broadcasts its answer into a tensor; ``equal`` never broadcasts its inputs either (other sizes
mean False), while ``allclose`` broadcasts as ``isclose`` does and raises its errors.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl

__all__ = ["equal", "allclose"]


def equal(self: TensorImpl, other: TensorImpl) -> bool:
    """Same sizes and equal elements (values compared after numpy's promotion, as torch compares a Long and a
    Float tensor by value; NaN is never equal, -0.0 equals 0.0)."""
    if self.device != other.device:
        raise RuntimeError(f"Cannot compare two tensors on different devices. Got: {self.device} and {other.device}")
    if tuple(self.sizes) != tuple(other.sizes):
        return False
    if self.dtype is not other.dtype:
        _dt.promote_types(self.dtype, other.dtype)  # the barebones dtypes' refusals (Note [Barebones dtypes])
    with np.errstate(invalid="ignore"):
        return bool(np.array_equal(self.as_numpy(), other.as_numpy()))


def allclose(self: TensorImpl, other: TensorImpl, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """``isclose(self, other, rtol, atol, equal_nan).all()`` read out as a bool (CompositeExplicitAutograd)."""
    from ...aten import aten
    close = aten.all(aten.isclose(self, other, rtol, atol, equal_nan))
    if close.device.type == "meta":
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    return bool(close.as_numpy())
