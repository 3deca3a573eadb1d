"""``torch.svd_lowrank`` and ``torch.pca_lowrank`` (``torch/_lowrank.py``): randomized low-rank SVD.

Halko, Martinsson and Tropp's range finder (their Algorithm 4.4): a Gaussian test matrix ``R`` of ``q`` columns,
``Q = qr(A R).Q`` refined by ``niter`` power iterations through ``Aᴴ`` (a QR after every product keeps the basis
orthonormal), then the exact SVD of the small ``Qᴴ A``.  A wide input is handled through its conjugate transpose
(U and V swap back at the end).  The only random draw is one ``randn(n, q)`` in A's dtype (float32 for integer
input), the draw PyTorch makes, so equal seeds give PyTorch's numbers.  Everything is built from differentiable
operators, so gradients flow through the QRs and the SVD.

``pca_lowrank`` centres the columns (subtracts the mean over the rows) unless ``center=False``.
"""

from __future__ import annotations

from . import _functions as _fac
from . import linalg as _linalg
from ._core import dtype as _dt

__all__ = ["svd_lowrank", "pca_lowrank", "get_approximate_basis"]


def _floating(A):
    """The dtype of the test matrix: A's own for float16/32/64 and complex, float32 for anything else."""
    if A.is_complex() or A.dtype in (_dt.float16, _dt.float32, _dt.float64):
        return A.dtype
    return _dt.float32


def get_approximate_basis(A, q, niter=2, M=None):
    """Orthonormal columns ``Q`` (``(*, m, q)``) with ``Q Qᴴ (A - M)`` close to ``A - M``."""
    niter = 2 if niter is None else niter
    R = _fac.randn(A.shape[-1], q, dtype=_floating(A), device=A.device)

    def times(B, X):  # (B - M) X without forming B - M
        return B @ X if M is None else B @ X - (M if B is A else M.mH) @ X

    Q = _linalg.qr(times(A, R)).Q
    for _ in range(niter):
        Q = _linalg.qr(times(A.mH, Q)).Q
        Q = _linalg.qr(times(A, Q)).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    wide = m < n
    if wide:
        A = A.mH
        M = None if M is None else M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = _linalg.svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if wide else (U, S, V)


def svd_lowrank(A, q=6, niter=2, M=None):
    """``(U, S, V)`` with ``A - M ≈ U diag(S) Vᴴ``, of rank ``q`` (6 by default)."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """``svd_lowrank`` of the column-centred ``A`` (``q`` defaults to ``min(6, m, n)``)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)
