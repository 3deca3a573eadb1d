"""Eigen-, QR and least-squares CPU kernels — PyTorch's ``BatchLinearAlgebra.cpp`` (``_linalg_eigh``, ``linalg_eig``,
``_linalg_eigvals``, ``linalg_qr``, ``geqrf``, ``linalg_householder_product``, ``ormqr``, ``linalg_lstsq``), on the
LAPACK routines PyTorch calls: ``syevd``/``heevd`` and ``geev`` (through numpy's batched wrappers), ``geqrf`` +
``orgqr``/``ungqr``, ``ormqr``/``unmqr`` and ``gelsy``/``gelsd``/``gelss``/``gels`` (through scipy's).

Layouts are PyTorch's: eigenvalues and ``tau`` contiguous, matrices column-major; a factor that is not computed is
an empty ``(0,)`` tensor.  Eigenvectors carry LAPACK's normalisation (unit norm; the phase LAPACK picks), which
PyTorch leaves unspecified, as it does.

Invariant: inputs are never written; outputs are allocated here or are the ``out=`` tensors, resized.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor.impl import TensorImpl
from .lapack import LAPACK_DTYPES, checked, column_major_out, lapack_fn, matrices, square_checks, write
from .linalg import is_meta, set_output
from .spectral import LinAlgError

__all__ = ["linalg_eigh_out", "linalg_eigh_cpu", "linalg_eig_out", "linalg_eig", "linalg_eigvals_cpu",
           "linalg_qr_out", "linalg_qr", "geqrf_out", "geqrf", "linalg_householder_product_out",
           "linalg_householder_product", "ormqr_out", "ormqr", "linalg_lstsq_out", "linalg_lstsq"]



def _empty(out, dtype, device):
    return set_output(out, (0,), dtype, device)


# -- eigenvalues ---------------------------------------------------------------------------------------------------
def linalg_eigh_out(A, UPLO="L", compute_v=True, eigenvalues=None, eigenvectors=None):
    """``_linalg_eigh.eigenvalues``: ascending real eigenvalues and (``compute_v``) orthonormal eigenvectors of the
    Hermitian matrices whose ``UPLO`` triangle A holds."""
    fn = "linalg.eigh"
    square_checks(A, fn)
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    eigenvalues = set_output(eigenvalues, tuple(A.sizes[:-1]), A.dtype.to_real(), A.device)
    eigenvectors = column_major_out(eigenvectors, A.sizes, A.dtype, A.device) if compute_v else \
        _empty(eigenvectors, A.dtype, A.device)
    if is_meta(A, eigenvalues, eigenvectors) or A.numel() == 0:
        return eigenvalues, eigenvectors
    if A.dtype not in LAPACK_DTYPES:
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{A.dtype._short}'")
    a = A.as_numpy()
    try:
        if compute_v:
            w, v = np.linalg.eigh(a, UPLO=UPLO.upper())
            write(eigenvectors, v)
        else:
            w = np.linalg.eigvalsh(a, UPLO=UPLO.upper())
    except np.linalg.LinAlgError:
        raise LinAlgError(f"{fn}: The algorithm failed to converge because the input matrix is ill-conditioned or "
                          f"has too many repeated eigenvalues (error code: {A.sizes[-1]}).") from None
    write(eigenvalues, w)
    return eigenvalues, eigenvectors


def linalg_eigh_cpu(A, UPLO="L", compute_v=True):
    return linalg_eigh_out(A, UPLO, compute_v)


def _eig_checks(A: TensorImpl, fn: str) -> None:
    square_checks(A, fn)
    checked(A, fn)


def _geev(A: TensorImpl, vectors: bool):
    a = A.as_numpy()
    if not np.isfinite(a).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    if vectors:
        return np.linalg.eig(a)
    return np.linalg.eigvals(a), None


def linalg_eig_out(self, eigenvalues=None, eigenvectors=None):
    """``linalg_eig.out``: complex eigenvalues and unit-norm right eigenvectors (``geev``)."""
    _eig_checks(self, "linalg.eig")
    cdt = self.dtype.to_complex()
    for out, name in ((eigenvalues, "eigenvalues"), (eigenvectors, "eigenvectors")):
        if out is not None and not out.dtype.is_complex:
            raise RuntimeError(f"torch.linalg.eig: Expected {name} to be safely castable from {cdt._short} dtype, "
                               f"but got {name} with dtype {out.dtype._short}")
    eigenvalues = set_output(eigenvalues, tuple(self.sizes[:-1]), cdt, self.device)
    eigenvectors = column_major_out(eigenvectors, self.sizes, cdt, self.device)
    if is_meta(self, eigenvalues, eigenvectors) or self.numel() == 0:
        return eigenvalues, eigenvectors
    w, v = _geev(self, True)
    write(eigenvalues, w)
    write(eigenvectors, v)
    return eigenvalues, eigenvectors


def linalg_eig(self):
    return linalg_eig_out(self)


def linalg_eigvals_cpu(self):
    """``_linalg_eigvals``: the eigenvalues alone (no eigenvectors computed)."""
    _eig_checks(self, "linalg.eigvals")
    out = set_output(None, tuple(self.sizes[:-1]), self.dtype.to_complex(), self.device)
    if is_meta(self, out) or self.numel() == 0:
        return out
    write(out, _geev(self, False)[0])
    return out


# -- QR ------------------------------------------------------------------------------------------------------------
def linalg_qr_out(A, mode="reduced", Q=None, R=None):
    """``linalg_qr.out``: ``A = Q R`` with Q orthonormal columns and R upper triangular (``geqrf`` + ``orgqr``)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
                           f"'complete'")
    if A.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    checked(A, "linalg.qr")
    *batch, m, n = A.sizes
    k = min(m, n)
    batch = tuple(batch)
    q_cols, r_rows = (m, m) if mode == "complete" else (k, k)
    Q = column_major_out(Q, batch + (m, q_cols), A.dtype, A.device) if mode != "r" else _empty(Q, A.dtype, A.device)
    R = column_major_out(R, batch + (r_rows, n), A.dtype, A.device)
    if is_meta(A, Q, R) or A.numel() == 0:
        if not is_meta(A, Q, R) and Q.numel():  # an empty A: Q is the identity, R is empty or zeros
            q = Q.as_numpy()
            q[...] = 0
            q[..., range(min(q.shape[-2:])), range(min(q.shape[-2:]))] = 1
        if not is_meta(A, Q, R) and R.numel():
            R.as_numpy()[...] = 0
        return Q, R
    a = A.as_numpy()
    if mode == "r":
        write(R, np.linalg.qr(a, mode="r"))
    else:
        q, r = np.linalg.qr(a, mode=mode)
        write(Q, q)
        write(R, r)
    return Q, R


def linalg_qr(A, mode="reduced"):
    return linalg_qr_out(A, mode)


def geqrf_out(self, a=None, tau=None):
    """``geqrf.a``: LAPACK's packed QR (R above the diagonal, Householder vectors below) and the reflectors' tau."""
    if self.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    checked(self, "torch.geqrf")
    *batch, m, n = self.sizes
    a = column_major_out(a, self.sizes, self.dtype, self.device)
    tau = set_output(tau, tuple(batch) + (min(m, n),), self.dtype, self.device)
    if is_meta(self, a, tau) or self.numel() == 0:
        return a, tau
    geqrf_ = lapack_fn("geqrf", self.dtype)
    x = matrices(self.as_numpy())
    packed = np.empty(x.shape, self.dtype.np)
    taus = np.empty((x.shape[0], min(m, n)), self.dtype.np)
    for i in range(x.shape[0]):
        packed[i], taus[i], _, _ = geqrf_(x[i])
    write(a, packed)
    write(tau, taus)
    return a, tau


def geqrf(self):
    return geqrf_out(self)


def _householder_checks(input, tau, fn="torch.linalg.householder_product") -> None:
    if input.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if input.sizes[-2] < input.sizes[-1]:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if input.sizes[-1] < tau.sizes[-1] if tau.ndim else False:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if input.ndim - tau.ndim != 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {input.ndim}")
    if input.ndim > 2 and tuple(tau.sizes[:-1]) != tuple(input.sizes[:-2]):
        raise RuntimeError(f"{fn}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.sizes[:-1])}")
    if tau.dtype is not input.dtype:
        raise RuntimeError(f"{fn}: tau dtype {tau.dtype._short} does not match input dtype {input.dtype._short}")


def linalg_householder_product_out(input, tau, out=None):
    """``linalg_householder_product.out``: the first n columns of H₁…H_k, Hᵢ = I - τᵢ vᵢ vᵢᴴ (``orgqr``)."""
    fn = "torch.linalg.householder_product"
    if input.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    checked(input, fn)
    _householder_checks(input, tau)
    out = column_major_out(out, input.sizes, input.dtype, input.device)
    if is_meta(input, tau, out) or out.numel() == 0:
        return out
    orgqr = lapack_fn("ungqr" if input.dtype.is_complex else "orgqr", input.dtype)
    x = matrices(input.as_numpy())
    t = tau.as_numpy().reshape(x.shape[0], -1)
    if t.shape[1] < x.shape[-1]:  # missing reflectors are identities (tau 0)
        t = np.concatenate([t, np.zeros((t.shape[0], x.shape[-1] - t.shape[1]), x.dtype)], axis=1)
    res = np.empty(x.shape, input.dtype.np)
    lwork = None
    for i in range(x.shape[0]):
        v = np.tril(x[i], -1) + np.eye(*x[i].shape, dtype=x.dtype)  # orgqr reads only below the diagonal
        if lwork is None:  # LAPACK's workspace query: the optimal size lets orgqr apply the reflectors in blocks
            lwork = max(int(orgqr(v, t[i], lwork=-1)[1][0].real), 1)
        res[i] = orgqr(v, t[i], lwork=lwork, overwrite_a=True)[0]
    write(out, res)
    return out


def linalg_householder_product(input, tau):
    return linalg_householder_product_out(input, tau)


def ormqr_out(self, input2, input3, left=True, transpose=False, out=None):
    """``ormqr.out``: ``op(Q) C`` (or ``C op(Q)``), Q the Householder product of ``(self, input2)``, C ``input3``."""
    fn = "torch.ormqr"
    if self.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if input3.ndim < 2:
        raise RuntimeError(f"{fn}: other must have at least 2 dimensions.")
    side = -2 if left else -1  # the dim of other that Q multiplies
    if input3.sizes[side] != self.sizes[-2]:
        raise RuntimeError(f"{fn}: other.shape[{side}] must be equal to input.shape[-2]")
    if input2.ndim == 0 or input2.sizes[-1] != min(input3.sizes[side], self.sizes[-1]):
        raise RuntimeError(f"{fn}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if self.ndim - input2.ndim != 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{input2.ndim} and input.ndim is equal to {self.ndim}")
    if input3.ndim != self.ndim:
        raise RuntimeError(f"{fn}: Expected other to have the same number of dimensions as input, but got other.ndim "
                           f"equal to {input3.ndim} and input.ndim is equal to {self.ndim}")
    for t, name in ((input2, "tau"), (input3, "other")):
        if t.dtype is not self.dtype:
            raise RuntimeError(f"{fn}: Expected input and {name} to have the same dtype, but input has dtype "
                               f"{self.dtype._short} and {name} has dtype {t.dtype._short}")
    checked(self, fn)
    out = column_major_out(out, input3.sizes, self.dtype, self.device)
    if is_meta(self, input2, input3, out) or out.numel() == 0:
        return out
    cplx = self.dtype.is_complex
    ormqr_ = lapack_fn("unmqr" if cplx else "ormqr", self.dtype)
    x = matrices(self.as_numpy())
    t = input2.as_numpy().reshape(x.shape[0], -1)
    c = matrices(input3.as_numpy())
    res = np.empty(c.shape, self.dtype.np)
    side, trans = ("L" if left else "R"), (("C" if cplx else "T") if transpose else "N")
    for i in range(c.shape[0]):
        lwork = max(1, c.shape[-1] if left else c.shape[-2]) * 64
        res[i] = ormqr_(side, trans, x[i][:, :t.shape[1]] if left else x[i][:, :t.shape[1]], t[i], c[i], lwork)[0]
    write(out, res)
    return out


def ormqr(self, input2, input3, left=True, transpose=False):
    return ormqr_out(self, input2, input3, left, transpose)


# -- least squares -------------------------------------------------------------------------------------------------
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_checks(A: TensorImpl, B: TensorImpl, driver):
    fn = "torch.linalg.lstsq"
    checked(A, fn)
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError(f"{fn}: other must have at least 1 dimension.")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{fn}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{A.dtype._short} and other's dtype {B.dtype._short}")
    if not (A.ndim >= B.ndim and A.ndim - B.ndim <= 1):
        raise RuntimeError(f"{fn}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) "
                           f"<= 1")
    vector = A.ndim - 1 == B.ndim
    if A.sizes[-2] != (B.sizes[-1] if vector else B.sizes[-2]):
        raise RuntimeError(f"{fn}: input.size(-2) should match other.size(-{1 if vector else 2})")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    return driver, vector


def _lstsq_one(a, b, driver, rcond, dtype):
    """(solution (max(m, n), k), rank, singular values) of one system."""
    m, n = a.shape
    big = np.zeros((max(m, n), b.shape[1]), dtype.np)
    big[:m] = b
    if driver == "gels":
        gels = lapack_fn("gels", dtype)
        _, x, _ = gels(a, big)
        return x, None, None
    if driver == "gelsy":
        gelsy = lapack_fn("gelsy", dtype)
        lwork = max(1, m * n + 3 * n + 1, 2 * min(m, n) + max(n, b.shape[1])) * 8
        _, x, _, rank, _ = gelsy(a, big, np.zeros(n, np.int32), rcond, lwork)
        return x, rank, None
    fn = lapack_fn(driver, dtype)
    work = lapack_fn(driver + "_lwork", dtype)
    if driver == "gelsd":
        sizes = work(m, n, b.shape[1], rcond)
        x, s, rank, _ = fn(a, big, *sizes[:-1], cond=rcond) if len(sizes) > 2 else fn(a, big, sizes[0], cond=rcond)
    else:
        lwork, _ = work(m, n, b.shape[1], rcond)
        _, x, s, rank, *_ = fn(a, big, cond=rcond, lwork=int(lwork))
    return x, rank, s


def linalg_lstsq_out(self, b, rcond=None, driver=None, solution=None, residuals=None, rank=None,
                     singular_values=None):
    """``linalg_lstsq.out``: the least-squares solution of ``A X = B`` with (driver permitting) residuals, rank and
    singular values, in PyTorch's layouts (the solution is a view of a column-major ``max(m, n)``-row buffer)."""
    driver, vector = _lstsq_checks(self, b, driver)
    B = b
    *abatch, m, n = self.sizes
    bm = B.sizes + (1,) if vector else B.sizes
    batch = tuple(_shape.broadcast_shapes(tuple(abatch), bm[:-2]))
    k = bm[-1]
    real = self.dtype.to_real()
    rows = max(m, n)
    sol_shape = batch + ((n,) if vector else (n, k))
    keep_sv = driver in ("gelsd", "gelss")
    full_residuals = m > n and driver != "gelsy"
    if solution is None:  # a view of the max(m, n)-row column-major buffer LAPACK writes, as PyTorch narrows it
        solution = column_major_out(None, batch + (rows, k), self.dtype, self.device)
        strides = solution.strides[:-1] if vector else solution.strides
        solution.set_geometry(sol_shape, strides, 0)
    else:
        solution = column_major_out(solution, sol_shape, self.dtype, self.device)
    rank = set_output(rank, batch if driver != "gels" else (0,), _dt.int64, self.device)
    singular_values = set_output(singular_values, batch + (min(m, n),) if keep_sv else (0,), real, self.device)
    res_shape = batch + (k,) if full_residuals else (0,)
    residuals = set_output(residuals, res_shape if not vector or not full_residuals else batch, real, self.device)
    if is_meta(self, B, solution):
        return solution, residuals, rank, singular_values
    if rcond is None:
        rcond = float(np.finfo(real.np).eps) * max(m, n)
    a = np.broadcast_to(self.as_numpy(), batch + (m, n)).reshape(-1, m, n)
    bb = np.broadcast_to(B.as_numpy().reshape(bm), batch + (m, k)).reshape(-1, m, k)
    xs = np.zeros((a.shape[0], rows, k), self.dtype.np)
    ranks = np.zeros(a.shape[0], np.int64)
    svs = np.zeros((a.shape[0], min(m, n)), real.np)
    for i in range(a.shape[0]):
        if a[i].size == 0 or k == 0:
            continue
        x, r, s = _lstsq_one(a[i], bb[i], driver, rcond, self.dtype)
        xs[i] = x
        ranks[i] = 0 if r is None else r
        if s is not None:
            svs[i] = s
    if a.shape[0] and (m == 0 or n == 0):
        ranks[:] = 0
    write(solution, xs[:, :n].reshape(sol_shape) if not vector else xs[:, :n, 0].reshape(sol_shape))
    if driver != "gels":
        write(rank, ranks)
    if keep_sv:
        write(singular_values, svs)
    if full_residuals and keep_sv and (ranks < n).any():  # rank-deficient: no residuals, as PyTorch
        residuals = set_output(residuals, (0,), real, self.device)
    elif full_residuals and residuals.numel():
        tail = xs[:, n:]
        write(residuals, (np.abs(tail) ** 2).sum(axis=-2).reshape(residuals.sizes))
    return solution, residuals, rank, singular_values


def linalg_lstsq(self, b, rcond=None, driver=None):
    return linalg_lstsq_out(self, b, rcond, driver)

