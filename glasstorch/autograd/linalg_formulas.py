"""Backward formulas of the decompositions in ``derivatives/linalg.yaml`` — PyTorch's ``svd_backward`` of
``FunctionsManual.cpp``, over public Tensors (the generated nodes import these next to ``formulas.py``).

For ``A = U diag(S) Vh`` (reduced: ``U`` is m×k, ``Vh`` k×n, ``k = min(m, n)``) and output gradients
``gU, gS, gVh``::

    gA = U [ (skew(Uᴴ gU) S + S skew(Vh gVhᴴ)) / E + diag(gS) ] Vh
         + (I - U Uᴴ) gU S⁻¹ Vh          (when m > k)
         + U S⁻¹ gVh (I - Vhᴴ Vh)        (when n > k)

with ``skew(X) = X - Xᴴ`` and ``E[i, j] = S[j]² - S[i]²`` (1 on the diagonal).  An output that received no
gradient arrives undefined (None: the generated node passes ``grads[i]`` unmaterialised), as in PyTorch, and
its terms drop out: singular values alone give ``U diag(gS) Vh``, finite even where singular values repeat.
Which terms run depends only on definedness, never on values, so the formula traces under FakeTensors.

Invariant: only differentiable operators, so double backward works.
"""

from __future__ import annotations

from . import formulas as _f

__all__ = ["svd_backward", "inv_backward", "linalg_solve_backward", "linalg_lu_backward", "lu_factor_ex_backward",
           "lu_unpack_backward", "linalg_lu_solve_LU", "linalg_lu_solve_B", "linalg_det_backward", "slogdet_backward",
           "cholesky_backward", "cholesky_inverse_backward", "cholesky_solve_backward",
           "linalg_solve_triangular_backward", "triangular_solve_backward", "linalg_eig_backward",
           "householder_product_backward", "ormqr_backward",
           "linalg_qr_backward", "linalg_matrix_exp_differential", "linalg_cross_backward", "pinv_backward",
           "linalg_lstsq_backward"]


def _present(g):
    """PyTorch's ``g.defined()``; an empty grad holds no terms either (a shape test, not a value read)."""
    return g is not None and g.numel() > 0


def svd_backward(gU, gS, gVh, U, S, Vh, full_matrices, compute_uv=True):
    """The gradient of ``_linalg_svd``'s input from the gradients of its three outputs."""
    if not compute_uv:
        raise RuntimeError("linalg_svd_backward: Setting compute_uv to false in torch.svd doesn't compute singular "
                           "matrices, and hence we cannot compute backward. Please use torch.svd(compute_uv=True)")
    k = S.shape[-1]
    if full_matrices:
        U, Vh = U[..., :k], Vh[..., :k, :]
        gU = gU[..., :k] if gU is not None else None
        gVh = gVh[..., :k, :] if gVh is not None else None
    use_u, use_v = _present(gU), _present(gVh)
    m, n = U.shape[-2], Vh.shape[-1]
    if gS is None:
        if gU is None and gVh is None:
            return None  # no output got a gradient: the input's is undefined too
        gS = S.new_zeros(S.shape)  # an empty gU or gVh still makes the input's gradient defined (zeros)
    if not use_u and not use_v:
        return U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh
    S_row, S_col = S.unsqueeze(-2), S.unsqueeze(-1)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    eye = (E * 0).diagonal(0, -2, -1).add(1).diag_embed()
    E = E + eye
    inner = 0
    if use_u:
        UhgU = U.mH @ gU
        UhgU = UhgU - UhgU.mH  # skew-Hermitian part (times 2): its diagonal is 2i Im(diag(Uᴴ gU))
        inner = inner + UhgU * S_row
    if use_v:
        VhgV = Vh @ gVh.mH
        inner = inner + S_col * (VhgV - VhgV.mH)
    inner = inner / E + gS.diag_embed().to(U.dtype)
    if U.is_complex() and use_u:  # the phase term: i Im(diag(Uᴴ gU)) / S, as PyTorch's svd_backward adds it
        inner = inner + (UhgU.diagonal(0, -2, -1) / (2 * S)).diag_embed()
    gA = U @ inner @ Vh
    if m > k and use_u:
        gUSinv = gU / S_row
        gA = gA + (gUSinv - U @ (U.mH @ gUSinv)) @ Vh
    if n > k and use_v:
        SinvgVh = gVh / S_col
        gA = gA + U @ (SinvgVh - (SinvgVh @ Vh.mH) @ Vh)
    return gA


# -- the LU, Cholesky, triangular, eigen- and QR families (FunctionsManual.cpp's linalg_*_backward) ------------------
# Note [LU reuse]: solve, det and slogdet save A's LU factors and pivots and reuse them in backward (one triangular
# solve pair instead of a new factorization).  The factors are not differentiable outputs, so a gradient built from
# them would be a constant to double backward: when grad mode is on in backward (create_graph), the formulas solve
# with A itself instead, as PyTorch's do.
# ``_f._T`` is the glasstorch module the generated nodes bind (formulas use the public API, see formulas.py).
def _lib():
    return _f._T


def _conj(t):
    """``t.conj()``; a real tensor is its own conjugate."""
    return t.conj() if t.is_complex() else t


def _sym(X):
    """``X + Xᴴ`` with the diagonal's real part halved: the adjoint of taking the upper triangle of a Hermitian."""
    ret = X + X.mH
    return ret - 0.5 * ret.diagonal(0, -2, -1).real.diag_embed().to(ret.dtype) if ret.is_complex() else \
        ret - 0.5 * ret.diagonal(0, -2, -1).diag_embed()


def inv_backward(grad, inverse):
    """``linalg_inv_ex``: gA = -A⁻ᴴ gX A⁻ᴴ."""
    if grad is None:
        return None
    return -(inverse.mH @ (grad @ inverse.mH))


def _is_vector_rhs(A, B):
    return B.dim() == 1 or (A.dim() - 1 == B.dim() and tuple(B.shape) == tuple(A.shape[:-1]))


def linalg_solve_backward(gX, X, A, LU, pivots, left):
    """``_linalg_solve_ex``: gB = A⁻ᴴ gX (reusing A's LU factors), gA = -gB Xᴴ (left) or -Xᴴ gB (right)."""
    if gX is None:
        return None, None
    vector = _is_vector_rhs(LU, gX)
    g = gX.unsqueeze(-1) if vector else gX
    x = X.unsqueeze(-1) if vector else X
    T = _lib()
    if T.is_grad_enabled():  # double backward: a solve with A itself, so the result depends on A (Note [LU reuse])
        gB = T.linalg.solve(A.mH, g, left=left)
    else:
        gB = T.linalg.lu_solve(LU, pivots, g, left=left, adjoint=True)
    gA = -(gB @ x.mH) if left else -(x.mH @ gB)
    return gA, (gB.squeeze(-1) if vector else gB)


def _unpack_lu(LU, pivots, pivot=True):
    return _lib().lu_unpack(LU, pivots, True, pivot)


def linalg_lu_backward(gL, gU, P, L, U, pivot=True):
    """``linalg_lu``: the gradient of A = P L U from those of L (unit lower) and U (upper), square, wide or tall."""
    if gL is None and gU is None:
        return None
    T = _lib()
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        inner = 0
        if gL is not None:
            inner = (L.mH @ gL).tril(-1)
        if gU is not None:
            inner = inner + (gU @ U.mH).triu()
        gA = T.linalg.solve_triangular(U.mH, inner, upper=False, left=False)
        gA = T.linalg.solve_triangular(L.mH, gA, upper=True, left=True, unitriangular=True)
    elif m < n:  # wide: U = [U1 | U2]
        U1 = U[..., :k]
        inner = 0
        if gL is not None:
            inner = L.mH @ gL
        if gU is not None:
            inner = inner - gU.triu() @ U.mH
        gA = T.linalg.solve_triangular(U1.mH, inner.tril(-1), upper=False, left=False)
        if gU is not None:
            gA = T.cat([gA + gU[..., :k].triu(), gU[..., k:]], -1)
        gA = T.linalg.solve_triangular(L.mH, gA, upper=True, left=True, unitriangular=True)
        if gU is None:
            gA = T.cat([gA, T.zeros_like(U[..., k:])], -1)
    else:  # tall: L = [L1; L2]
        L1 = L[..., :k, :]
        inner = 0
        if gU is not None:
            inner = gU @ U.mH
        if gL is not None:
            inner = inner - L.mH @ gL.tril(-1)
        gA = T.linalg.solve_triangular(L1.mH, inner.triu(), upper=True, left=True, unitriangular=True)
        if gL is not None:
            gA = T.cat([gA + gL[..., :k, :].tril(-1), gL[..., k:, :]], -2)
        gA = T.linalg.solve_triangular(U.mH, gA, upper=False, left=False)
        if gL is None:
            gA = T.cat([gA, T.zeros_like(L[..., k:, :])], -2)
    return P @ gA if pivot else gA


def lu_factor_ex_backward(grad, LU, pivots, pivot=True):
    """``linalg_lu_factor_ex``: the packed gradient split into L's (strictly lower) and U's (upper) parts."""
    if grad is None:
        return None
    P, L, U = _unpack_lu(LU, pivots, pivot)
    k = min(LU.shape[-2], LU.shape[-1])
    return linalg_lu_backward(grad[..., :, :k].tril(-1), grad[..., :k, :].triu(), P, L, U, pivot)


def lu_unpack_backward(gL, gU, m, n):
    """``lu_unpack``: L's strict lower triangle and U's upper triangle packed back into one m×n gradient."""
    if gL is None and gU is None:
        return None
    T = _lib()
    k = min(m, n)
    ref = gL if gL is not None else gU
    if gL is None:
        gL = T.zeros(ref.shape[:-2] + (m, k), dtype=ref.dtype)
    if gU is None:
        gU = T.zeros(ref.shape[:-2] + (k, n), dtype=ref.dtype)
    if m == n:
        return gL.tril(-1) + gU.triu()
    if m < n:
        return T.cat([gL.tril(-1) + gU[..., :k].triu(), gU[..., k:]], -1)
    return T.cat([gL[..., :k, :].tril(-1) + gU.triu(), gL[..., k:, :]], -2)


def _lu_solve_grads(grad, LU, pivots, X, left, adjoint):
    """(gA, gB) of ``op(A) X = B`` (or ``X op(A) = B``) from A's LU factors."""
    T = _lib()
    gB = T.linalg.lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint)
    if left:
        gA = -(X @ gB.mH) if adjoint else -(gB @ X.mH)
    else:
        gA = -(gB.mH @ X) if adjoint else -(X.mH @ gB)
    return gA, gB


def linalg_lu_solve_LU(grad, LU, pivots, X, left, adjoint):
    """``linalg_lu_solve``'s LU gradient: gA pulled back through A = P L U onto the packed factors."""
    if grad is None:
        return None
    gA, _ = _lu_solve_grads(grad, LU, pivots, X, left, adjoint)
    P, L, U = _unpack_lu(LU, pivots)
    PtgA = P.mH @ gA
    return (PtgA @ U.mH).tril(-1) + (L.mH @ PtgA).triu()


def linalg_lu_solve_B(grad, LU, pivots, left, adjoint):
    if grad is None:
        return None
    return _lib().linalg.lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint)


def _inv_h(A, LU, pivots):
    """A⁻ᴴ: from A's LU factors, or from A itself when the graph of the gradient is built (Note [LU reuse])."""
    T = _lib()
    if T.is_grad_enabled():
        return T.linalg.inv(A).mH
    eye = T.eye(LU.shape[-1], dtype=LU.dtype).expand(LU.shape)
    return T.linalg.lu_solve(LU, pivots, eye, adjoint=True)


def linalg_det_backward(grad, det, A, LU, pivots):
    """``_linalg_det``: gA = (g · conj(det)) A⁻ᴴ (A invertible)."""
    if grad is None:
        return None
    return (grad * _conj(det)).unsqueeze(-1).unsqueeze(-1) * _inv_h(A, LU, pivots)


def slogdet_backward(g_sign, g_logabsdet, A, sign, LU, pivots):
    """``_linalg_slogdet``: gA = g_logabsdet A⁻ᴴ (real A: the sign is locally constant)."""
    if g_logabsdet is None and (g_sign is None or not A.is_complex()):
        return None
    if A.is_complex():
        g = g_logabsdet.to(A.dtype) if g_logabsdet is not None else sign.new_zeros(sign.shape)
        if g_sign is not None:
            g = g - 1j * (_conj(g_sign) * sign).imag
        return g.unsqueeze(-1).unsqueeze(-1) * _inv_h(A, LU, pivots)
    return g_logabsdet.unsqueeze(-1).unsqueeze(-1) * _inv_h(A, LU, pivots)


def cholesky_backward(gL, upper, L):
    """``linalg_cholesky_ex``/``cholesky``: gA = L⁻ᴴ Π(tril(Lᴴ gL)) L⁻¹ with Π(X) = ½ (X + tril(X, -1)ᴴ): PyTorch's
    formula, which keeps the diagonal's imaginary part (the result is not made Hermitian)."""
    if gL is None:
        return None
    T = _lib()
    if upper:
        L, gL = L.mH, gL.mH
    phi = (L.mH @ gL).tril()
    phi = 0.5 * (phi + phi.tril(-1).mH)
    gA = T.linalg.solve_triangular(L.mH, phi, upper=True, left=True)
    return T.linalg.solve_triangular(L, gA, upper=False, left=False)


def cholesky_inverse_backward(grad, L, upper, inverse):
    """``cholesky_inverse``: with C = (L Lᴴ)⁻¹, gL = -(C (g + gᴴ) C) L (or -U (C (g + gᴴ) C) when upper)."""
    if grad is None:
        return None
    common = inverse @ ((grad + grad.mH) @ inverse)
    return -(L @ common) if upper else -(common @ L)


def cholesky_solve_backward(grad, B, L, X, upper):
    """``cholesky_solve``: gB = (L Lᴴ)⁻¹ g and the factor's gradient from the symmetric part of gB Xᴴ."""
    if grad is None:
        return None, None
    gB = _lib().cholesky_solve(grad, L, upper)
    common = gB @ X.mH
    common = common + common.mH
    gL = -(L @ common) if upper else -(common @ L)
    return gB, gL


def linalg_solve_triangular_backward(grad, A, X, upper, left, unitriangular):
    """``linalg_solve_triangular``: gB = A⁻ᴴ g (a triangular solve with Aᴴ), gA = -gB Xᴴ (or -Xᴴ gB) masked to A's
    triangle (strictly, when unitriangular)."""
    if grad is None:
        return None, None
    gB = _lib().linalg.solve_triangular(A.mH, grad, upper=not upper, left=left, unitriangular=unitriangular)
    gA = -(gB @ X.mH) if left else -(X.mH @ gB)
    off = 1 if unitriangular else 0
    gA = gA.triu(off) if upper else gA.tril(-off)
    return gA, gB


def triangular_solve_backward(g_x, g_m, B, A, X, upper, transpose, unitriangular):
    """``triangular_solve``: as ``linalg_solve_triangular`` for op(A) = A or Aᵀ, plus the cloned coefficient's
    gradient."""
    gB = gA = None
    if g_x is not None:
        gB = _lib().triangular_solve(g_x, _conj(A), upper, not transpose, unitriangular)[0]
        gA = -(X @ gB.mH) if transpose else -(gB @ X.mH)
        off = 1 if unitriangular else 0
        gA = gA.triu(off) if upper else gA.tril(-off)
    if g_m is not None:
        gA = g_m if gA is None else gA + g_m
    return gB, gA


_EIG_PHASE = ("linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by e^{i "
              "phi}. The specified loss function depends on this quantity, so it is ill-defined.")


def linalg_eig_backward(gL, gV, L, V, is_hermitian):
    """``_linalg_eigh`` (``is_hermitian``): gA = V (skew(Vᴴ gV) / E + diag(gL)) Vᴴ, E[i, j] = L[j] - L[i].
    ``linalg_eig``: gA = V⁻ᴴ ((Vᴴ gV − Vᴴ V Re diag(Vᴴ gV)) / Ē + diag(gL)) Vᴴ (E conjugated; a real input keeps
    the real part, which the engine takes); a loss that depends on the eigenvectors' phases is refused."""
    if gL is None and gV is None:
        return None
    if not is_hermitian:
        return _eig_backward_general(gL, gV, L, V)
    if gV is None:
        return V @ (gL.unsqueeze(-1).to(V.dtype) * V.mH)
    VhgV = V.mH @ gV
    if is_hermitian:
        VhgV = 0.5 * (VhgV - VhgV.mH)
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    E = E + (E * 0).diagonal(0, -2, -1).add(1).diag_embed()
    inner = VhgV / E.to(VhgV.dtype)
    diag = inner.diagonal(0, -2, -1)
    inner = inner - diag.diag_embed()
    if gL is not None:
        inner = inner + gL.to(inner.dtype).diag_embed()
    return V @ (inner @ V.mH)


def _eig_backward_general(gL, gV, L, V):
    T = _lib()
    Vh = V.mH
    if gV is None:
        return T.linalg.solve(Vh, gL.unsqueeze(-1) * Vh)
    VhgV = Vh @ gV
    diag = VhgV.diagonal(0, -2, -1)
    im = diag.imag
    if not T.allclose(im, T.zeros_like(im), rtol=1e-2, atol=1e-2):
        raise RuntimeError(_EIG_PHASE)
    VhgV = VhgV - Vh @ (V * diag.real.unsqueeze(-2))
    Lc = L.conj()
    E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1)
    E = E + (E * 0).diagonal(0, -2, -1).add(1).diag_embed()
    inner = VhgV / E
    if gL is not None:
        inner = inner + gL.diag_embed()
    return T.linalg.solve(Vh, inner @ Vh)


def _householder_grads(gQ, input, tau, ncols):
    """The gradients of (input, tau) for gQ, the gradient of the first ``ncols`` columns of Q = H₀ ⋯ H_{k-1},
    H_i = I - τ_i v_i v_iᴴ (v_i: column i of input below the diagonal, 1 on it).  With P_i = H₀ ⋯ H_{i-1} and
    S_i = H_{i+1} ⋯ H_{k-1} E, H_i's gradient is G_i = P_iᴴ gQ S_iᴴ, so gτ_i = -v_iᴴ G_i v_i and
    gv_i = -(τ̄_i G_i + τ_i G_iᴴ) v_i (below the diagonal).  Built from differentiable operators (double backward)."""
    T = _lib()
    m, n = input.shape[-2:]
    k = tau.shape[-1]
    eye = T.eye(m, dtype=input.dtype, device=input.device)
    V = input.tril(-1) + eye[:, :n]
    vs = [V[..., :, i:i + 1] for i in range(k)]
    taus = [tau[..., i:i + 1].unsqueeze(-1) for i in range(k)]
    Hs = [eye - t * (v @ v.mH) for v, t in zip(vs, taus, strict=True)]
    suffix, cur = [None] * k, eye[:, :ncols]
    for i in reversed(range(k)):
        suffix[i] = cur
        cur = Hs[i] @ cur
    g_tau, g_cols, P = [], [], None
    for i in range(k):
        G = (gQ if P is None else P.mH @ gQ) @ suffix[i].mH
        v, t = vs[i], taus[i]
        g_tau.append(-(v.mH @ G @ v).squeeze(-1))
        g_cols.append(-(_conj(t) * (G @ v) + t * (G.mH @ v)))
        P = Hs[i] if P is None else P @ Hs[i]
    g_input = T.cat(g_cols + [T.zeros_like(input[..., :, k:])], -1).tril(-1)
    return g_input, T.cat(g_tau, -1)


def householder_product_backward(grad, input, tau):
    """``linalg_householder_product``: Q is the first n columns of the product of the reflectors."""
    if grad is None:
        return None, None
    return _householder_grads(grad, input, tau, input.shape[-1])


def ormqr_backward(grad, input, tau, other, left, transpose):
    """``ormqr``: R = op(Q) C (or C op(Q)), Q the full product of the reflectors, op the conjugate transpose when
    ``transpose``; gC applies op(Q)ᴴ (the flipped ``transpose``) and Q's gradient goes to the reflectors."""
    if grad is None:
        return None, None, None
    T = _lib()
    g_other = T.ormqr(input, tau, grad, left, not transpose)
    if left:
        gQ = other @ grad.mH if transpose else grad @ other.mH
    else:
        gQ = grad.mH @ other if transpose else other.mH @ grad
    g_input, g_tau = _householder_grads(gQ, input, tau, input.shape[-2])
    return g_input, g_tau, g_other


def linalg_qr_backward(gQ, gR, Q, R, mode):
    """``linalg_qr``: gA = (gQ + Q sym(triu(gR Rᴴ - Qᴴ gQ))) R⁻ᴴ for m ≥ n; the wide case splits R = [R1 | R2]."""
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if gQ is None and gR is None:
        return None
    T = _lib()

    def square(gQ, gR, R):
        M = 0
        if gR is not None:
            M = gR @ R.mH
        if gQ is not None:
            M = M - Q.mH @ gQ
        gA = Q @ _sym(M.triu()) if not isinstance(M, int) else 0
        if gQ is not None:
            gA = gA + gQ
        return T.linalg.solve_triangular(R.mH, gA, upper=False, left=False)

    if m >= n:
        return square(gQ, gR, R)
    R1, Y = R[..., :m], Q @ R[..., m:]
    gR1 = gR[..., :m] if gR is not None else None
    gR2 = gR[..., m:] if gR is not None else None
    if gR2 is not None:
        gQ = Y @ gR2.mH if gQ is None else gQ + Y @ gR2.mH
    gX = square(gQ, gR1, R1)
    gY = Q @ gR2 if gR2 is not None else T.zeros_like(Y)
    return T.cat([gX, gY], -1)


def linalg_matrix_exp_differential(A, grad):
    """``linalg_matrix_exp``: the upper-right block of exp([[Aᴴ, g], [0, Aᴴ]])."""
    if grad is None:
        return None
    T = _lib()
    n = A.shape[-1]
    Ah = A.mH
    top = T.cat([Ah, grad], -1)
    bottom = T.cat([T.zeros_like(Ah), Ah], -1)
    return T.linalg.matrix_exp(T.cat([top, bottom], -2))[..., :n, n:]


def linalg_cross_backward(grad, self, other, dim):
    if grad is None:
        return None, None
    T = _lib()
    return T.linalg.cross(_conj(other), grad, dim=dim), T.linalg.cross(grad, _conj(self), dim=dim)


def pinv_backward(grad, pinvA, A):
    """The gradient of A⁺ (the pseudo-inverse) for A of constant rank, written with the smaller of m×m and n×n
    intermediate products."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gradh = pinvA.mH, grad.mH
    if m <= n:
        K = gradh @ pinvA
        KpinvAh = K @ pinvAh
        return -(pinvA @ K).mH + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gradh - K @ A)
    K = pinvA @ gradh
    pinvAhK = pinvAh @ K
    return -(K @ pinvA).mH + (gradh - A @ K) @ pinvA @ pinvAh + pinvAhK - pinvAhK @ pinvA @ A


def linalg_lstsq_backward(gX, gR, A, B):
    """``linalg_lstsq``: the solution is A⁺ B, so gB = A⁺ᴴ gX and gA is A⁺'s gradient for gX Bᴴ. The residuals
    r = ‖A X − B‖² per column are minimal in X, so only their explicit dependence counts (the envelope theorem):
    with E = A X − B, gA += 2 E gR Xᴴ and gB −= 2 E gR (gR scaling each column)."""
    if gX is None and (gR is None or gR.numel() == 0):
        return None, None
    vector = _is_vector_rhs(A, B)
    b = B.unsqueeze(-1) if vector else B
    pinvA = _lib().linalg.pinv(A)
    gA = gB = None
    if gX is not None:
        g = gX.unsqueeze(-1) if vector else gX
        gA = pinv_backward(g @ b.mH, pinvA, A)
        gB = pinvA.mH @ g
    if gR is not None and gR.numel() != 0:
        X = pinvA @ b
        scaled = (A @ X - b) * (2 * (gR.unsqueeze(-1) if vector else gR).unsqueeze(-2))
        gA = scaled @ X.mH if gA is None else gA + scaled @ X.mH
        gB = -scaled if gB is None else gB - scaled
    return gA, (gB.squeeze(-1) if vector else gB)
