"""``nansum`` — PyTorch's CPU kernel of ``ReduceOps.cpp``, as one composite kernel over ``masked_fill`` and
``sum`` with its own derivative (``NansumBackward0``); ``nanmean`` decomposes over it
(decompositions/reduce.py).

Integer and bool inputs hold no NaN: they are ``sum`` itself. A floating input has its NaNs replaced by zero
before the sum; the sum's dtype rules (``dtype=``, out= checks) apply unchanged.

Invariant: the input is never written; integer out= tensors for a floating input are refused as PyTorch's
``nansum_cpu`` dispatch refuses them.
"""

from __future__ import annotations

from ...._tensor.impl import TensorImpl
from ...aten import aten
from ..cpu.dispatch_types import FLOATING, Dispatch

__all__ = ["nansum", "nansum_out"]

_NANSUM = Dispatch("nansum_cpu", FLOATING)


def _zeroed(self: TensorImpl) -> TensorImpl:
    if self.dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if not self.dtype.is_floating_point:
        return self
    return aten.masked_fill_Scalar(self, aten.isnan(self), 0)


def nansum(self: TensorImpl, dim=None, keepdim=False, dtype=None) -> TensorImpl:
    """The sum over ``dim`` (all dims when None or empty) counting NaNs as zero."""
    return aten.sum_dim_IntList(_zeroed(self), dim, keepdim, dtype)


def nansum_out(self: TensorImpl, dim, keepdim, dtype, out: TensorImpl) -> TensorImpl:
    x = _zeroed(self)
    if x is not self:
        _NANSUM.check(out.dtype)
    return aten.sum_IntList_out(x, dim, keepdim, dtype, out)
