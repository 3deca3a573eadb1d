"""The pseudo-inverse (CompositeExplicitAutograd) — PyTorch's ``linalg_pinv`` (``LinearAlgebra.cpp``): one kernel for
every backend, written over the operators (an SVD, or ``eigh`` for Hermitian input), with its own derivative
(``pinv_backward`` in derivatives/linalg_lapack.yaml) instead of differentiating through the factorization, which
is not differentiable where singular values repeat (a rank-deficient input's zeros).

Invariant: no data is touched here; every result comes from an operator.
"""

from __future__ import annotations

import numpy as np

from ...._tensor.impl import TensorImpl, empty_impl
from ...aten import aten

__all__ = ["linalg_pinv_kernel", "atol_rtol", "full_scalar", "pinv_checks"]


def full_scalar(value, dtype, device) -> TensorImpl:
    return aten.fill__Scalar(empty_impl((), dtype, device), value)


def atol_rtol(input: TensorImpl, atol, rtol, fn: str):
    """``get_atol_rtol``: the tolerances as 0-dim real tensors; rtol defaults to eps·max(m, n) unless atol > 0."""
    real = input.dtype.to_real()
    for t, name in ((atol, "atol"), (rtol, "rtol")):
        if t is not None and t.dtype.is_complex:
            raise RuntimeError(f"{fn}: {name} tensor of complex type is not supported.")
    atol_t = full_scalar(0.0, real, input.device) if atol is None else atol
    if rtol is not None:
        return atol_t, rtol
    eps = float(np.finfo(real.np).eps) if real.is_floating_point else 0.0
    default = full_scalar(eps * max(input.sizes[-1], input.sizes[-2]), real, input.device)
    if atol is None:
        return atol_t, default
    return atol_t, aten.where_ScalarOther(aten.le_Scalar(atol, 0), default, 0.0)


def pinv_checks(input) -> None:
    if input.ndim < 2 or not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"linalg.pinv({input.dtype._short}{{[{', '.join(map(str, input.sizes))}]}}): expected a "
                           f"tensor with 2 or more dimensions of float, double, cfloat or cdouble types")


def _mH(t: TensorImpl) -> TensorImpl:
    """The conjugate transpose (a lazy conj view for complex input)."""
    return aten.conj(aten.transpose_int(t, -2, -1))


def _tolerance(atol, rtol, largest):
    """max(atol, rtol · the largest singular value), per matrix (a trailing size-1 dim)."""
    return aten.maximum(aten.unsqueeze(atol, -1), aten.mul_Tensor(aten.unsqueeze(rtol, -1), largest))


def _inverted(S, keep, dtype, device):
    """1/S where S is above the tolerance, 0 elsewhere, in the input's dtype."""
    zero = aten.fill__Scalar(empty_impl((), S.dtype, device), 0.0)
    s_inv = aten.where_self(keep, aten.reciprocal(S), zero)
    return aten._to_copy(s_inv, dtype, None, None, None, False, None)


def linalg_pinv_kernel(self, atol=None, rtol=None, hermitian=False):
    """``linalg_pinv.atol_rtol_tensor``: A⁺ = V diag(1/S) Uᴴ over the singular values above the tolerance (the
    eigenvalues by absolute value, for Hermitian A); the tolerances arrive as real tensors (the composite
    overloads build them; None takes PyTorch's defaults)."""
    pinv_checks(self)
    atol, rtol = atol_rtol(self, atol, rtol, "torch.linalg.pinv")
    if self.numel() == 0:
        sizes = self.sizes[:-2] + (self.sizes[-1], self.sizes[-2])
        return aten.fill__Scalar(empty_impl(sizes, self.dtype, self.device), 0)
    if not hermitian:
        U, S, Vh = aten.linalg_svd(self, False, None)
        keep = aten.gt_Tensor(S, _tolerance(atol, rtol, aten.narrow(S, -1, 0, 1)))
        s_inv = _inverted(S, keep, self.dtype, self.device)
        return aten.matmul(aten.mul_Tensor(_mH(Vh), aten.unsqueeze(s_inv, -2)), _mH(U))
    S, U = aten._linalg_eigh(self, "L", True)
    S_abs = aten.abs(S)
    keep = aten.gt_Tensor(S_abs, _tolerance(atol, rtol, aten.amax(S_abs, [-1], True)))
    s_inv = _inverted(S, keep, self.dtype, self.device)
    return aten.matmul(aten.mul_Tensor(U, aten.unsqueeze(s_inv, -2)), _mH(U))
