"""``torch.lobpcg``: a few extreme eigenpairs of a symmetric (generalized) eigenproblem (``torch/_lobpcg.py``).

The iteration is Knyazev's locally optimal block preconditioned conjugate gradient: each step searches the span of
the current eigenvector approximations ``X``, the (preconditioned) residuals ``W`` and the previous step's
directions ``P`` by Rayleigh-Ritz, over the linear-algebra operators (``linalg.eigh``, ``linalg.cholesky``).
``method="ortho"`` makes that basis B-orthonormal first, dropping directions that have become dependent (robust);
``method="basic"`` solves the projected generalized problem through the Cholesky factor of its Gram matrix (cheaper,
and it fails when the basis is singular).  With ``A`` requiring grad the call is an autograd Function whose backward
is the eigenvector derivative restricted to the computed eigenspace (a Sylvester equation solved by polynomials in
``A`` when the eigenspace is partial), built from differentiable operators so that double backward works.

Invariant: the eigenvalues come back sorted, largest first with ``largest=True`` and smallest first otherwise, and
the eigenvectors are B-orthonormal columns in the same order.
"""

from __future__ import annotations

import math

from . import _functions as _fac
from . import linalg as _linalg
from ._core import dtype as _dt
from ._device.generator import Generator
from ._generated import functions as _gen
from .autograd.function import Function

__all__ = ["lobpcg"]

# -- the iteration ----------------------------------------------------------------------------------------------
def _b_apply(B, V):
    return V if B is None else B @ V


def _orthonormal(V, B, basis, drop_tol):
    """The columns of ``V`` made B-orthogonal to ``basis`` (B-orthonormal columns) and B-orthonormal among
    themselves; directions whose share of ``V`` falls below ``drop_tol`` are dropped (None when none is left)."""
    scale = float((V * _b_apply(B, V)).sum(0).max())  # relative to V's own size: a small residual still counts
    if basis is not None:
        for _ in range(2):  # twice: one Gram-Schmidt pass loses orthogonality to rounding
            V = V - basis @ (basis.mT @ _b_apply(B, V))
    gram = V.mT @ _b_apply(B, V)
    gram = (gram + gram.mT) / 2
    vals, vecs = _linalg.eigh(gram)
    keep = vals > drop_tol * scale
    if bool(keep.all()):  # the usual case: no direction dropped
        return V @ (vecs / vals.sqrt())
    if not bool(keep.any()):
        return None
    return V @ (vecs[:, keep] / vals[keep].sqrt())


def _rayleigh_ritz(S, A, B, n, largest, method):
    """The ``n`` extreme Ritz pairs of ``A`` on the span of ``S``: values, and coefficients in ``S``."""
    T = S.mT @ (A @ S)
    T = (T + T.mT) / 2
    if method == "basic":  # S is not B-orthonormal: the generalized projected problem, via Cholesky
        G = S.mT @ _b_apply(B, S)
        L = _linalg.cholesky((G + G.mT) / 2)
        Linv = _linalg.inv(L)
        C = Linv @ T @ Linv.mT
        vals, vecs = _linalg.eigh((C + C.mT) / 2)
        vecs = Linv.mT @ vecs
    else:
        vals, vecs = _linalg.eigh(T)
    if largest:  # eigh sorts ascending
        vals, vecs = vals.flip(0), vecs.flip(1)
    return vals[:n], vecs[:, :n]


def _lobpcg_one(A, B, X, iK, k, niter, tol, largest, method, drop_tol):
    """LOBPCG on one ``(m, m)`` problem from the ``(m, n)`` start ``X``: the ``k`` first Ritz pairs."""
    n = X.shape[-1]
    if method == "ortho":
        X = _orthonormal(X, B, None, drop_tol)
        if X is None or X.shape[-1] < n:
            raise ValueError("lobpcg: the initial approximation X has dependent columns")
    E, Z = _rayleigh_ritz(X, A, B, n, largest, method)
    X = X @ Z
    P = None
    B_norm = 1.0 if B is None else float(_linalg.matrix_norm(B, 2))
    A_norm = float(E.abs().max())
    step = 0
    while niter < 0 or step < niter:
        R = A @ X - _b_apply(B, X) * E
        rerr = _linalg.vector_norm(R, 2, (0,)) / (_linalg.vector_norm(X, 2, (0,)) * (A_norm + E.abs() * B_norm))
        if bool((rerr[:k] < tol).all()):
            break
        W = R if iK is None else iK @ R
        if method == "ortho":
            W = _orthonormal(W, B, X, drop_tol)
            if W is None:
                break  # the residuals lie in span(X): nothing left to improve
            extra = W if P is None else _cat_or(W, _orthonormal(P, B, _gen.cat([X, W], 1), drop_tol))
        else:
            extra = W if P is None else _gen.cat([W, P], 1)
        S = _gen.cat([X, extra], 1)
        E, Z = _rayleigh_ritz(S, A, B, n, largest, method)
        A_norm = max(A_norm, float(E.abs().max()))
        X, P = S @ Z, extra @ Z[n:]
        step += 1
    return E[:k], X[:, :k]


def _cat_or(W, P):
    return W if P is None else _gen.cat([W, P], 1)


def _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams, ortho_bparams):
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    if tracker is not None:
        raise NotImplementedError("lobpcg: a tracker is not supported by glasstorch's lobpcg")
    dtype = A.dtype if A.dtype.is_floating_point else _dt.get_default_dtype()
    tol = math.sqrt(2.23e-16 if dtype is _dt.float64 else 1.2e-07) if tol is None else tol
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
                         f"the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    if method not in ("ortho", "basic"):
        raise ValueError(f'lobpcg: method must be "ortho" or "basic", got {method!r}')
    drop_tol = (ortho_fparams or {}).get("ortho_tol_drop", tol) ** 2  # eigenvalues of a Gram matrix: squares
    niter = 1000 if niter is None else niter
    largest = True if largest is None else largest
    batch = tuple(A.shape[:-2])
    N = math.prod(batch)
    bA = A.reshape((N, m, m))
    bB = None if B is None else B.reshape((N, m, m))
    bX = None if X is None else X.reshape((N, m, n))
    Es, Us = [], []
    for i in range(N):
        X_ = _fac.randn((m, n), dtype=dtype, device=A.device) if bX is None else bX[i].to(dtype)
        E, U = _lobpcg_one(bA[i].to(dtype), None if bB is None else bB[i].to(dtype), X_,
                           iK, k, niter, tol, largest, method, drop_tol)
        Es.append(E)
        Us.append(U)
    return _gen.stack(Es).reshape(batch + (k,)), _gen.stack(Us).reshape(batch + (m, k))


# -- the derivative ---------------------------------------------------------------------------------------------
def _complete_eigenspace_backward(D_grad, U_grad, D, U):
    """``U (diag(D_grad) + (Uᵀ U_grad) ∘ F) Uᵀ`` with ``F_ij = 1 / (d_j - d_i)`` off the diagonal, 0 on it."""
    diff = D.unsqueeze(-2) - D.unsqueeze(-1)
    on_diag = _fac.eye(D.shape[-1], dtype=_dt.bool, device=D.device)
    F = _gen.where(on_diag, math.inf, diff).reciprocal()
    Ut = U.mT
    return U @ ((_gen.diag_embed(D_grad) + (Ut @ U_grad) * F) @ Ut)


def _char_poly(roots):
    """Coefficients ``c[..., i]`` of ``x^i`` in ``Π (x - r)`` (``c[..., -1] == 1``), by multiplying out one root at a
    time out of place (so the coefficients stay differentiable in the roots)."""
    c = _fac.ones(roots.shape[:-1] + (1,), dtype=roots.dtype, device=roots.device)
    zero = _fac.zeros(roots.shape[:-1] + (1,), dtype=roots.dtype, device=roots.device)
    for j in range(roots.shape[-1]):
        r = roots.narrow(-1, j, 1)
        c = _gen.cat([zero, c], -1) - r * _gen.cat([c, zero], -1)
    return c


def _poly_at_values(c, x):
    """``Σ c[..., i] x^i`` elementwise in ``x`` (Horner's rule)."""
    out = c[..., -1:].expand(x.shape)
    for i in range(c.shape[-1] - 2, -1, -1):
        out = out * x + c[..., i:i + 1]
    return out


def _poly_at_matrix(c, A):
    """``Σ c[..., i] A^i`` for the batched square ``A`` (Horner's rule)."""
    eye = _fac.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    out = eye * c[..., -1:].unsqueeze(-1)
    for i in range(c.shape[-1] - 2, -1, -1):
        out = A @ out + eye * c[..., i:i + 1].unsqueeze(-1)
    return out


def _partial_eigenspace_backward(D_grad, U_grad, A, D, U, largest):
    """The complete-eigenspace term plus the part in the orthogonal complement of span(U): the solution of the
    Sylvester equation ``U⊥ᵀ A U⊥ dX - dX D = -U⊥ᵀ dA U``, written through ``p(A)`` with ``p`` the characteristic
    polynomial of ``D`` (Hu and Cheng's polynomial solution)."""
    m, k = A.shape[-1], D.shape[-1]
    Ut = U.mT
    projector = _fac.eye(m, dtype=A.dtype, device=A.device) - U @ Ut
    gen = Generator(A.device)  # a fresh default-seeded generator: the same complement basis on every call
    U_ortho = projector @ _fac.randn(tuple(A.shape[:-1]) + (m - k,), dtype=A.dtype, device=A.device, generator=gen)
    c = _char_poly(D)
    series = _fac.zeros_like(U_grad)
    power_times_grad = U_grad
    for j in range(1, k + 1):
        series = series + power_times_grad * _poly_at_values(c[..., j:], D).unsqueeze(-2)
        power_times_grad = A @ power_times_grad
    restricted = U_ortho.mT @ (_poly_at_matrix(c, A) @ U_ortho)
    sign = -1.0 if (largest and k % 2 == 1) else 1.0  # p(A) on span(U⊥) is definite with this sign
    L = _linalg.cholesky(sign * restricted)
    res = _complete_eigenspace_backward(D_grad, U_grad, D, U)
    return res - (U_ortho @ (sign * _gen.cholesky_solve(U_ortho.mT @ series, L))) @ Ut


class _LOBPCGFunction(Function):
    """``lobpcg`` as a differentiable function of ``A`` (a backward for ``B`` is not supported, as in PyTorch)."""

    @staticmethod
    def forward(ctx, A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                ortho_bparams):
        A = A.contiguous()
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                       ortho_bparams)
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = True if largest is None else largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        A, B, D, U = ctx.saved_tensors
        if A.is_complex() or (B is not None and B.is_complex()):
            raise ValueError("lobpcg.backward does not support complex input yet. Note that lobpcg.forward does "
                             "though.")
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        if U.shape[-1] == U.shape[-2]:
            A_grad = _complete_eigenspace_backward(D_grad, U_grad, D, U)
        else:
            A_grad = _partial_eigenspace_backward(D_grad, U_grad, A, D, U, ctx.largest)
        return (A_grad,) + (None,) * 13


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """The ``k`` largest (or smallest) eigenpairs of the symmetric ``A`` (``A x = λ B x`` with ``B``).

    Args:
        A: ``(*, m, m)`` symmetric; B: the same shape, positive definite (default: the identity).
        k: eigenpairs wanted (default: X's columns, or 1); X: ``(*, m, n)`` start (default: random, n columns).
        iK: a preconditioner applied to the residuals; niter: iteration limit (-1: until converged, default 1000);
        tol: the residual tolerance (default: the square root of the dtype's epsilon); largest: True (default) for
        the largest eigenvalues; method: "ortho" (default) or "basic".

    Returns:
        ``(E, X)``: ``(*, k)`` eigenvalues and ``(*, m, k)`` eigenvectors.

    Example:
        >>> A = torch.diag(torch.arange(1.0, 7.0, dtype=torch.float64))
        >>> torch.lobpcg(A, k=1, X=torch.ones(6, 1, dtype=torch.float64))[0].round()
        tensor([6.], dtype=torch.float64)
    """
    if A.requires_grad or (B is not None and B.requires_grad):
        # symmetrized first, so that A.grad is symmetric (A - t * A.grad stays symmetric), as PyTorch does
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return _LOBPCGFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest, method, tracker,
                                     ortho_iparams, ortho_fparams, ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                   ortho_bparams)
