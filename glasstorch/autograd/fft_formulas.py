"""Backward formulas of the FFT primitives — PyTorch's ``fft_r2c_backward`` and ``fft_c2r_backward``
(``FunctionsManual.cpp``) and the ``_fft_c2c`` entry of ``derivatives.yaml``, over public Tensors (the generated
nodes import these next to ``formulas.py``).

Each transform is linear, so its vector-Jacobian product is the adjoint transform, under PyTorch's conjugate
Wirtinger convention (Note [Conjugate Wirtinger gradients] in complex_formulas.py):

- ``c2c``: the adjoint of an unnormalised DFT is the opposite-direction DFT with the same scaling, so the
  gradient is ``_fft_c2c(grad, dim, normalization, not forward)``;
- onesided ``r2c``: the dropped half of the spectrum gets zero gradient; pad it back, transform backward and keep
  the real part (a full ``r2c`` needs no padding);
- ``c2r``: a onesided ``r2c`` of the gradient; every bin whose mirror image lies outside the onesided range stood
  for two bins of the full spectrum (bins ``1 .. n - (n // 2 + 1)``), so it counts twice.

Invariant: only differentiable operators, so double backward works.
"""

from __future__ import annotations

from . import formulas as _formulas

__all__ = ["fft_c2c_backward", "fft_r2c_backward", "fft_c2r_backward"]


def _torch():
    return _formulas._T


def fft_c2c_backward(grad, dim, normalization, forward):
    return _torch()._fft_c2c(grad, dim, normalization, not forward)


def fft_r2c_backward(grad, dim, normalization, onesided, last_dim_size):
    """The gradient of a real input from the gradient of its (onesided) spectrum."""
    torch = _torch()
    if onesided:
        last = dim[-1] % grad.dim()
        missing = last_dim_size - grad.shape[last]
        if missing > 0:
            grad = _formulas.pad_dim(grad, last, 0, missing)
    return torch.real(torch._fft_c2c(grad, dim, normalization, False))


def fft_c2r_backward(grad, dim, normalization):
    """The gradient of a onesided spectrum from the gradient of the real signal it inverts to."""
    torch = _torch()
    gI = torch._fft_r2c(grad, dim, normalization, True)
    last = dim[-1] % grad.dim()
    n, half = grad.shape[last], gI.shape[last]
    doubled = n - half
    if doubled <= 0:
        return gI
    weight = torch.ones(half, dtype=grad.dtype, device=grad.device)
    weight[1:1 + doubled] = 2.0
    return gI * weight.reshape([half] + [1] * (gI.dim() - 1 - last))
