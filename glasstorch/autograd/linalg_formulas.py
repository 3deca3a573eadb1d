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

__all__ = ["svd_backward"]


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
        if not use_u and not use_v:
            return None  # no output got a gradient: the input's is undefined too
        gS = S.new_zeros(S.shape)
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
        inner = inner + (UhgU - UhgU.mH) * S_row
    if use_v:
        VhgV = Vh @ gVh.mH
        inner = inner + S_col * (VhgV - VhgV.mH)
    inner = inner / E + gS.diag_embed().to(U.dtype)
    if U.is_complex() and use_u:
        inner = inner + (UhgU.diagonal(0, -2, -1) / (2 * S)).diag_embed()
    gA = U @ inner @ Vh
    if m > k and use_u:
        gUSinv = gU / S_row
        gA = gA + (gUSinv - U @ (U.mH @ gUSinv)) @ Vh
    if n > k and use_v:
        SinvgVh = gVh / S_col
        gA = gA + U @ (SinvgVh - (SinvgVh @ Vh.mH) @ Vh)
    return gA
