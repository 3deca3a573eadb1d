"""torch.linalg composites (CompositeImplicitAutograd) — PyTorch's ``BatchLinearAlgebra.cpp`` and
``LinearAlgebra.cpp``: the non-``_ex`` forms over the ``_ex`` kernels (``linalg_inv`` checks ``linalg_inv_ex``'s info,
``linalg_solve`` ``linalg_solve_ex``'s, ...), the legacy ``torch.*`` names over the ``linalg`` ones, and the operators
PyTorch writes in terms of others (pinv, matrix_rank, cond, matrix_power, multi_dot, vecdot, vander, tensorinv,
tensorsolve), step by step as PyTorch writes them, so autograd differentiates through the primitives.

Invariant: no data is touched here except ``info`` read by the error checks; everything else dispatches.
"""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ..._core import shape as _shape
from ..._core.layout import contiguous_format as _contiguous
from ..._core.user_warning import warn_once
from ..._tensor.impl import TensorImpl, empty_impl
from ..aten import aten
from ..factories import eye_impl
from ..kernels.composite.linalg import atol_rtol, full_scalar, pinv_checks
from ..kernels.cpu.lapack import check_errors, checked, square_checks
from ..kernels.cpu.linalg import typemeta_name
from ..tensor_iterator import resize_out

__all__ = [
    "linalg_lu_factor", "linalg_lu_factor_out", "lu_with_info", "lu_solve", "lu_solve_out",
    "linalg_solve_ex", "linalg_solve_ex_out", "linalg_solve", "linalg_solve_out", "linalg_inv", "linalg_inv_out",
    "inverse", "inverse_out", "linalg_det", "linalg_det_out", "det", "linalg_slogdet", "linalg_slogdet_out", "slogdet",
    "slogdet_out", "logdet", "linalg_cholesky", "linalg_cholesky_out", "linalg_ldl_factor", "linalg_eigh",
    "linalg_eigh_eigvals", "linalg_eigvalsh", "linalg_eigvalsh_out", "linalg_eigvals", "linalg_eigvals_out", "qr",
    "qr_Q", "orgqr", "orgqr_out", "svd", "svd_U", "linalg_pinv_atol_rtol_float", "linalg_pinv",
    "linalg_pinv_rcond_tensor", "pinverse", "linalg_matrix_rank_atol_rtol_tensor", "linalg_matrix_rank_atol_rtol_float",
    "linalg_matrix_rank", "linalg_matrix_rank_tol_tensor", "linalg_cond", "linalg_cond_p_str", "matrix_exp",
    "linalg_matrix_power", "linalg_matrix_power_out", "matrix_power", "matrix_power_out", "linalg_multi_dot",
    "linalg_multi_dot_out", "linalg_matmul", "linalg_matmul_out", "linalg_vecdot", "linalg_vecdot_out", "cross",
    "cross_out", "linalg_vander", "linalg_diagonal", "linalg_tensorinv", "linalg_tensorsolve",
    "linalg_ldl_factor_out", "linalg_pinv_atol_rtol_tensor_out", "linalg_pinv_atol_rtol_float_out", "linalg_pinv_out",
    "linalg_pinv_out_rcond_tensor", "linalg_matrix_rank_atol_rtol_tensor_out", "linalg_matrix_rank_atol_rtol_float_out",
    "linalg_matrix_rank_out", "linalg_matrix_rank_out_tol_tensor", "linalg_cond_out", "linalg_cond_p_str_out",
    "linalg_tensorinv_out", "linalg_tensorsolve_out",
]


def _warn_once(key: str, message: str) -> None:
    """PyTorch's ``TORCH_WARN_ONCE``: the deprecation warnings of the legacy names, once per process."""
    warn_once(message, key=key)


def _check(info: TensorImpl, api: str, is_matrix: bool) -> None:
    """``_linalg_check_errors``: nothing to read on meta (shapes only)."""
    if info.storage._data is not None:
        check_errors(info.as_numpy(), api, is_matrix)


def _into(out: TensorImpl, result: TensorImpl) -> TensorImpl:
    """An ``out=`` composite's last step: resize ``out`` and copy the result in."""
    if out.dtype is not result.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {result.dtype}, but got {out.dtype} instead")
    resize_out(out, result.sizes)
    aten.copy_(out, result, False)
    return out


def _info_like(A: TensorImpl) -> TensorImpl:
    return empty_impl((0,), _dt.int32, A.device)


def _mH(t: TensorImpl) -> TensorImpl:
    """The conjugate transpose (a lazy conj view for complex input)."""
    return aten.conj(aten.transpose_int(t, -2, -1))


def _requires_grad(t: TensorImpl) -> bool:
    meta = t.autograd
    return meta is not None and (bool(meta.requires_grad) or meta.grad_fn is not None)


# -- LU -----------------------------------------------------------------------------------------------------------
def linalg_lu_factor(A, pivot=True):
    LU, pivots, info = aten.linalg_lu_factor_ex(A, pivot, False)
    _check(info, "torch.linalg.lu_factor", A.ndim == 2)
    return LU, pivots


def linalg_lu_factor_out(A, pivot=True, LU=None, pivots=None):
    info = _info_like(A)
    aten.linalg_lu_factor_ex_out(A, pivot, False, LU, pivots, info)
    _check(info, "torch.linalg.lu_factor", A.ndim == 2)
    return LU, pivots


def lu_with_info(self, pivot=True, check_errors=True):
    """``_lu_with_info`` (behind ``torch.lu``): ``linalg_lu_factor_ex``."""
    return aten.linalg_lu_factor_ex(self, pivot, False)  # PyTorch's passes no check on: a singular U is fine


_LU_SOLVE_WARNING = ("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                     "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
                     "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")


def lu_solve(self, LU_data, LU_pivots):
    _warn_once("lu_solve", _LU_SOLVE_WARNING)
    return aten.linalg_lu_solve(LU_data, LU_pivots, self, True, False)


def lu_solve_out(self, LU_data, LU_pivots, out=None):
    _warn_once("lu_solve", _LU_SOLVE_WARNING)
    return aten.linalg_lu_solve_out(LU_data, LU_pivots, self, True, False, out)


# -- solve and inverse ---------------------------------------------------------------------------------------------
def linalg_solve_ex(A, B, left=True, check_errors=False):
    result, _, _, info = aten._linalg_solve_ex(A, B, left, check_errors)
    return result, info


def linalg_solve_ex_out(A, B, left=True, check_errors=False, result=None, info=None):
    LU, pivots = empty_impl((0,), A.dtype, A.device), _info_like(A)
    aten._linalg_solve_ex_result(A, B, left, check_errors, result, LU, pivots, info)
    return result, info


def linalg_solve(A, B, left=True):
    result, info = aten.linalg_solve_ex(A, B, left, False)
    _check(info, "torch.linalg.solve", A.ndim == 2)
    return result


def linalg_solve_out(A, B, left=True, out=None):
    info = _info_like(A)
    aten.linalg_solve_ex_out(A, B, left, False, out, info)
    _check(info, "torch.linalg.solve", A.ndim == 2)
    return out


def linalg_inv(A):
    result, info = aten.linalg_inv_ex(A, False)
    _check(info, "linalg.inv", A.ndim == 2)
    return result


def linalg_inv_out(A, out=None):
    info = _info_like(A)
    aten.linalg_inv_ex_inverse(A, False, out, info)
    _check(info, "linalg.inv", A.ndim == 2)
    return out


def inverse(self):
    return aten.linalg_inv(self)


def inverse_out(self, out=None):
    return aten.linalg_inv_out(self, out)


# -- determinants --------------------------------------------------------------------------------------------------
def linalg_det(A):
    return aten._linalg_det(A)[0]


def linalg_det_out(A, out=None):
    LU, pivots = empty_impl((0,), A.dtype, A.device), _info_like(A)
    aten._linalg_det_result(A, out, LU, pivots)
    return out


def det(self):
    return aten.linalg_det(self)


def linalg_slogdet(A):
    sign, logabsdet, _, _ = aten._linalg_slogdet(A)
    return sign, logabsdet


def linalg_slogdet_out(A, sign=None, logabsdet=None):
    LU, pivots = empty_impl((0,), A.dtype, A.device), _info_like(A)
    aten._linalg_slogdet_sign(A, sign, logabsdet, LU, pivots)
    return sign, logabsdet


def slogdet(self):
    return aten.linalg_slogdet(self)


def slogdet_out(self, sign=None, logabsdet=None):
    return aten.linalg_slogdet_out(self, sign, logabsdet)


def logdet(self):
    """log det A: NaN where the determinant is negative (real A); log(sign) + log|det| for complex A."""
    square_checks(self, "logdet")
    checked(self, "logdet")
    sign, logabsdet = aten.linalg_slogdet(self)
    if self.dtype.is_complex:
        return aten.add_Tensor(aten.log(sign), logabsdet, 1)
    return aten.where_ScalarOther(aten.ne_Scalar(sign, -1.0), logabsdet, math.nan)


# -- Cholesky and LDL ----------------------------------------------------------------------------------------------
def linalg_cholesky(self, upper=False):
    L, info = aten.linalg_cholesky_ex(self, upper, False)
    _check(info, "linalg.cholesky", self.ndim == 2)
    return L


def linalg_cholesky_out(self, upper=False, out=None):
    info = _info_like(self)
    aten.linalg_cholesky_ex_L(self, upper, False, out, info)
    _check(info, "linalg.cholesky", self.ndim == 2)
    return out


def linalg_ldl_factor(self, hermitian=False):
    LD, pivots, info = aten.linalg_ldl_factor_ex(self, hermitian, False)
    _check(info, "torch.linalg.ldl_factor", self.ndim == 2)
    return LD, pivots


# -- eigenvalues ---------------------------------------------------------------------------------------------------
def linalg_eigh(self, UPLO="L"):
    return aten._linalg_eigh(self, UPLO, True)


def linalg_eigh_eigvals(self, UPLO="L", eigvals=None, eigvecs=None):
    return aten._linalg_eigh_eigenvalues(self, UPLO, True, eigvals, eigvecs)


def linalg_eigvalsh(self, UPLO="L"):
    """The eigenvalues; eigenvectors are computed only when a gradient will need them."""
    return aten._linalg_eigh(self, UPLO, _requires_grad(self))[0]


def linalg_eigvalsh_out(self, UPLO="L", out=None):
    vecs = empty_impl((0,), self.dtype, self.device)
    aten._linalg_eigh_eigenvalues(self, UPLO, False, out, vecs)
    return out


def linalg_eigvals(self):
    if _requires_grad(self):
        return aten.linalg_eig(self)[0]
    return aten._linalg_eigvals(self)


def linalg_eigvals_out(self, out=None):
    return _into(out, linalg_eigvals(self))


# -- QR, Householder, SVD (legacy names) ---------------------------------------------------------------------------
_QR_WARNING = ("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
               "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, "
               "some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")


def qr(self, some=True):
    _warn_once("qr", _QR_WARNING)
    return aten.linalg_qr(self, "reduced" if some else "complete")


def qr_Q(self, some=True, Q=None, R=None):
    _warn_once("qr", _QR_WARNING)
    return aten.linalg_qr_out(self, "reduced" if some else "complete", Q, R)


def orgqr(self, input2):
    return aten.linalg_householder_product(self, input2)


def orgqr_out(self, input2, out=None):
    return aten.linalg_householder_product_out(self, input2, out)


def svd(self, some=True, compute_uv=True):
    """``torch.svd``: ``(U, S, V)`` (V, not Vᴴ); without ``compute_uv`` U and V are zeros of the full sizes."""
    if self.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {self.ndim} dimensions "
                           f"instead")
    if compute_uv:
        U, S, Vh = aten.linalg_svd(self, not some, None)
        return U, S, _mH(Vh)
    S = aten.linalg_svdvals(self, None)
    *batch, m, n = self.sizes
    U = aten.fill__Scalar(empty_impl((*batch, m, m), self.dtype, self.device), 0)
    Vh = aten.fill__Scalar(empty_impl((*batch, n, n), self.dtype, self.device), 0)
    return U, S, _mH(Vh)


def svd_U(self, some=True, compute_uv=True, U=None, S=None, V=None):
    for out, res in zip((U, S, V), svd(self, some, compute_uv), strict=True):
        _into(out, res)
    return U, S, V


# -- pseudo-inverse, rank, condition number ------------------------------------------------------------------------
def _float_tols(input, atol, rtol):
    """The ``float`` overloads: tolerances as double 0-dim tensors (PyTorch builds them in kDouble)."""
    real = input.dtype.to_real()
    eps = float(np.finfo(real.np).eps) if real.is_floating_point else 0.0
    a = 0.0 if atol is None else atol
    r = rtol if rtol is not None else (0.0 if a > 0 else eps * max(input.sizes[-1], input.sizes[-2]))
    return full_scalar(a, _dt.float64, input.device), full_scalar(r, _dt.float64, input.device)


def _pinv(input, atol, rtol, hermitian):
    return aten.linalg_pinv_atol_rtol_tensor(input, atol, rtol, hermitian)


def linalg_pinv_atol_rtol_float(self, atol=None, rtol=None, hermitian=False):
    pinv_checks(self)
    a, r = _float_tols(self, atol, rtol)
    return _pinv(self, a, r, hermitian)


def linalg_pinv(self, rcond, hermitian=False):
    return linalg_pinv_atol_rtol_float(self, 0.0, rcond, hermitian)


def linalg_pinv_rcond_tensor(self, rcond, hermitian=False):
    pinv_checks(self)
    return _pinv(self, full_scalar(0.0, self.dtype.to_real(), self.device), rcond, hermitian)


def pinverse(self, rcond=1e-15):
    return aten.linalg_pinv(self, rcond, False)


def _rank_checks(input) -> None:
    if input.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError("This function doesn't handle types other than float and double")


def _matrix_rank(input, atol, rtol, hermitian):
    checked(input, "torch.linalg.matrix_rank")
    if hermitian:
        S = aten.abs(aten._linalg_eigh(input, "L", False)[0])
    else:
        S = aten.linalg_svdvals(input, None)
    if S.numel() == 0:
        max_s = aten.fill__Scalar(empty_impl(S.sizes[:-1] + (1,), S.dtype, S.device), 0)
    else:
        max_s = aten.amax(S, [-1], True)
    tol = aten.maximum(aten.unsqueeze(atol, -1), aten.mul_Tensor(aten.unsqueeze(rtol, -1), max_s))
    return aten.sum_dim_IntList(aten.gt_Tensor(S, tol), [-1], False, _dt.int64)


def linalg_matrix_rank_atol_rtol_tensor(input, atol=None, rtol=None, hermitian=False):
    _rank_checks(input)
    a, r = atol_rtol(input, atol, rtol, "torch.linalg.matrix_rank")
    return _matrix_rank(input, a, r, hermitian)


def linalg_matrix_rank_atol_rtol_float(self, atol=None, rtol=None, hermitian=False):
    _rank_checks(self)
    a, r = _float_tols(self, atol, rtol)
    return _matrix_rank(self, a, r, hermitian)


def linalg_matrix_rank(self, tol, hermitian=False):
    return linalg_matrix_rank_atol_rtol_float(self, tol, 0.0, hermitian)


def linalg_matrix_rank_tol_tensor(input, tol, hermitian=False):
    _rank_checks(input)
    return _matrix_rank(input, tol, full_scalar(0.0, input.dtype.to_real(), input.device), hermitian)


_COND_ORDERS = (None, 1, -1, 2, -2, math.inf, -math.inf)


def _cond_helper(self, p):
    """‖A‖ ‖A⁻¹‖ in the norm ``p``; infinity where A is singular."""
    inv, info = aten.linalg_inv_ex(self, False)
    res = aten.mul_Tensor(_mnorm(self, p), _mnorm(inv, p))
    return aten.where_ScalarOther(aten.eq_Scalar(info, 0), res, math.inf)


def _mnorm(A, p):
    if p == "fro":
        return aten.linalg_vector_norm(A, 2, [-2, -1], False, None)
    if p == "nuc":
        return aten.sum_dim_IntList(aten.linalg_svdvals(A, None), [-1], False, None)
    sums_dim, red = (-2, -1) if abs(p) == 1 else (-1, -1)
    sums = aten.linalg_vector_norm(A, 1, [sums_dim], False, None)
    return aten.amax(sums, [red], False) if p > 0 else aten.amin(sums, [red], False)


def linalg_cond(self, p=None):
    if p not in _COND_ORDERS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p:g}" if isinstance(p, float) else
                           f"linalg.cond got an invalid norm type: {p}")
    if self.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    checked(self, "linalg.cond")
    if self.numel() == 0:
        return aten.fill__Scalar(empty_impl(self.sizes[:-2], self.dtype.to_real(), self.device), 0)
    if p is None or abs(p) == 2:
        sv = aten.linalg_svdvals(self, None)
        s_max, s_min = aten.narrow(sv, -1, 0, 1), aten.narrow(sv, -1, sv.sizes[-1] - 1, 1)
        res = aten.div_Tensor(s_min, s_max) if p == -2 else aten.div_Tensor(s_max, s_min)
        return aten.squeeze_dim(res, -1)
    square_checks(self, f"linalg.cond(ord={int(p) if math.isfinite(p) else p})")
    return _cond_helper(self, p)


def linalg_cond_p_str(self, p):
    if p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if self.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    checked(self, "linalg.cond")
    if self.numel() == 0:
        return aten.fill__Scalar(empty_impl(self.sizes[:-2], self.dtype.to_real(), self.device), 0)
    square_checks(self, f"linalg.cond(ord={p})")
    return _cond_helper(self, p)


# -- matrix functions and products ---------------------------------------------------------------------------------
def matrix_exp(self):
    return aten.linalg_matrix_exp(self)


def linalg_matrix_power(self, n):
    """A^n by repeated squaring (PyTorch's binary decomposition of n); A⁻¹ first for n < 0; the identity for 0."""
    square_checks(self, "linalg.matrix_power")
    if n == 0:  # a copy of A overwritten by the identity, as PyTorch writes it (so the result keeps A's history)
        eye = eye_impl(self.sizes[-1], self.sizes[-1], self.dtype, self.device)
        return aten.copy_(aten.clone(self, _contiguous), aten.expand(eye, list(self.sizes), False), False)
    a = aten.linalg_inv(self) if n < 0 else self
    n = abs(n)
    if n == 1:
        return aten.clone(a, None)
    if n == 2:
        return aten.matmul(a, a)
    if n == 3:
        return aten.matmul(aten.matmul(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else aten.matmul(z, z)
        if bit:
            result = z if result is None else aten.matmul(result, z)
    return result


def linalg_matrix_power_out(self, n, out=None):
    return _into(out, linalg_matrix_power(self, n))


def matrix_power(self, n):
    return aten.linalg_matrix_power(self, n)


def matrix_power_out(self, n, out=None):
    return aten.linalg_matrix_power_out(self, n, out)


def _chain_order(dims):
    """The cheapest parenthesisation of the chain (dynamic programming over the products' costs)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _multiply(tensors, split, i, j):
    if i == j:
        return tensors[i]
    k = split[i][j]
    return aten.mm(_multiply(tensors, split, i, k), _multiply(tensors, split, k + 1, j))


def linalg_multi_dot(tensors):
    """The product of the chain in the cheapest order; a 1-D first (last) tensor is a row (column) vector."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    for i, t in enumerate(tensors):
        ok = t.ndim in ((1, 2) if i in (0, n - 1) else (2,))
        if not ok:
            which = "first" if i == 0 else "last" if i == n - 1 else None
            if which:
                raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {t.ndim}D")
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
        if t.dtype is not first.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{typemeta_name(first.dtype)} and tensor {i} {typemeta_name(t.dtype)}")
    mats = list(tensors)
    if first.ndim == 1:
        mats[0] = aten.unsqueeze(first, 0)
    if last.ndim == 1:
        mats[-1] = aten.unsqueeze(last, -1)
    for i in range(n - 1):
        if mats[i].sizes[1] != mats[i + 1].sizes[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].sizes)} and "
                               f"{list(tensors[i + 1].sizes)} cannot be multiplied")
    out_shape = ([first.sizes[0]] if first.ndim == 2 else []) + ([last.sizes[1]] if last.ndim == 2 else [])
    if n == 3:  # PyTorch's direct rule for three: (AB)C unless A(BC) is strictly cheaper
        a, b, c, d = mats[0].sizes[0], mats[1].sizes[0], mats[2].sizes[0], mats[2].sizes[1]
        if a * c * (b + d) > b * d * (a + c):
            result = aten.mm(mats[0], aten.mm(mats[1], mats[2]))
        else:
            result = aten.mm(aten.mm(mats[0], mats[1]), mats[2])
    else:
        dims = [mats[0].sizes[0]] + [m.sizes[1] for m in mats]
        result = _multiply(mats, _chain_order(dims), 0, n - 1)
    return aten.view(result, out_shape)  # always a view of the product, as PyTorch returns it


def linalg_multi_dot_out(tensors, out=None):
    return _into(out, linalg_multi_dot(tensors))


def linalg_matmul(self, other):
    return aten.matmul(self, other)


def linalg_matmul_out(self, other, out=None):
    return aten.matmul_out(self, other, out)


def linalg_vecdot(x, y, dim=-1):
    """``sum(x̄ · y, dim)``."""
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x.dtype._short} and y of type {y.dtype._short} instead")
    if x.dtype.is_complex:
        x = aten.conj(x)
    return aten.sum_dim_IntList(aten.mul_Tensor(x, y), [dim], False, None)


def linalg_vecdot_out(x, y, dim=-1, out=None):
    return _into(out, linalg_vecdot(x, y, dim))


def _cross_dim(dim, sizes):
    if dim is not None:
        return dim
    for i, s in enumerate(sizes):
        if s == 3:
            return i
    raise RuntimeError("no dimension of size 3 in input")


_CROSS_WARNING = ("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                  "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with "
                  "that of linalg.cross in a future release.")


def cross(self, other, dim=None):
    if dim is None:
        _warn_once("cross", _CROSS_WARNING)
    return aten.linalg_cross(self, other, _cross_dim(dim, self.sizes))


def cross_out(self, other, dim=None, out=None):
    if dim is None:
        _warn_once("cross", _CROSS_WARNING)
    return aten.linalg_cross_out(self, other, _cross_dim(dim, self.sizes), out)


def linalg_vander(x, N=None):
    """Powers x⁰ … x^(N-1) along a new last dim (a cumulative product, as PyTorch builds it)."""
    if x.ndim == 0:  # a scalar is the vector [x]
        x = aten.unsqueeze(x, 0)
    n = x.sizes[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.dtype is _dt.bool:
        x = aten._to_copy(x, _dt.int64, None, None, None, False, None)
    shape = list(x.sizes) + [n - 1]
    powers = aten.cumprod(aten.expand(aten.unsqueeze(x, -1), shape, False), -1, None)
    ones = aten.fill__Scalar(empty_impl(tuple(shape[:-1]) + (1,), powers.dtype, x.device), 1)
    return aten.cat([ones, powers], -1)


def linalg_diagonal(A, offset=0, dim1=-2, dim2=-1):
    return aten.diagonal(A, offset, dim1, dim2)


def linalg_tensorinv(self, ind=2):
    """The inverse of ``self`` seen as a matrix of ``prod(shape[:ind])`` rows, reshaped to shape[ind:] + shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    front, back = list(self.sizes[:ind]), list(self.sizes[ind:])
    rows, cols = _shape.prod(front), _shape.prod(back)
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    result, info = aten.linalg_inv_ex(aten.reshape(self, [rows, cols]), False)
    _check(info, "inv", True)
    return aten.reshape(result, back + front)


def linalg_tensorsolve(self, other, dims=None):
    """X with ``tensordot(self, X, X.ndim) = other``: one ``linalg_solve`` of the flattened system."""
    ndim = self.ndim
    a = self
    if dims is not None:
        a = aten.movedim_intlist(a, list(dims), list(range(ndim - len(dims), ndim)))
    result_shape = list(a.sizes[other.ndim:])
    result_product, other_product = _shape.prod(result_shape), _shape.prod(other.sizes)
    if result_product != other_product:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {result_product} != {other_product}")
    a = aten.reshape(a, [result_product, result_product])
    result = aten.linalg_solve(a, aten.flatten_using_ints(other, 0, -1), True)
    return aten.reshape(result, result_shape)


# -- out= overloads of the composites: the functional result resized into ``out`` ----------------------------------
def linalg_ldl_factor_out(self, hermitian=False, LD=None, pivots=None):
    info = _info_like(self)
    aten.linalg_ldl_factor_ex_out(self, hermitian, False, LD, pivots, info)
    _check(info, "torch.linalg.ldl_factor", self.ndim == 2)
    return LD, pivots


def linalg_pinv_atol_rtol_tensor_out(self, atol=None, rtol=None, hermitian=False, out=None):
    return _into(out, aten.linalg_pinv_atol_rtol_tensor(self, atol, rtol, hermitian))


def linalg_pinv_atol_rtol_float_out(self, atol=None, rtol=None, hermitian=False, out=None):
    return _into(out, linalg_pinv_atol_rtol_float(self, atol, rtol, hermitian))


def linalg_pinv_out(self, rcond, hermitian=False, out=None):
    return _into(out, linalg_pinv(self, rcond, hermitian))


def linalg_pinv_out_rcond_tensor(self, rcond, hermitian=False, out=None):
    return _into(out, linalg_pinv_rcond_tensor(self, rcond, hermitian))


def linalg_matrix_rank_atol_rtol_tensor_out(input, atol=None, rtol=None, hermitian=False, out=None):
    return _into(out, linalg_matrix_rank_atol_rtol_tensor(input, atol, rtol, hermitian))


def linalg_matrix_rank_atol_rtol_float_out(self, atol=None, rtol=None, hermitian=False, out=None):
    return _into(out, linalg_matrix_rank_atol_rtol_float(self, atol, rtol, hermitian))


def linalg_matrix_rank_out(self, tol, hermitian=False, out=None):
    return _into(out, linalg_matrix_rank(self, tol, hermitian))


def linalg_matrix_rank_out_tol_tensor(input, tol, hermitian=False, out=None):
    return _into(out, linalg_matrix_rank_tol_tensor(input, tol, hermitian))


def linalg_cond_out(self, p=None, out=None):
    return _into(out, linalg_cond(self, p))


def linalg_cond_p_str_out(self, p, out=None):
    return _into(out, linalg_cond_p_str(self, p))


def linalg_tensorinv_out(self, ind=2, out=None):
    return _into(out, linalg_tensorinv(self, ind))


def linalg_tensorsolve_out(self, other, dims=None, out=None):
    return _into(out, linalg_tensorsolve(self, other, dims))
