"""Backward formulas of complex operators — PyTorch's ``sgn_backward``, ``angle_backward``, ``polar_backward`` and
the ``view_as_real`` / ``view_as_complex`` / ``complex`` entries of ``derivatives.yaml`` (``FunctionsManual.cpp``),
over public Tensors; the generated nodes import these next to ``formulas.py``.

Note [Conjugate Wirtinger gradients]
For a real loss L of complex z = x + iy, PyTorch's gradient is dL/dx + i dL/dy, which equals 2 * dL/d(conj z)
(the conjugate Wirtinger derivative).  A backward formula therefore multiplies the incoming gradient by the
*conjugate* of the holomorphic derivative (``grad * other.conj()`` for ``mul``, ``grad * result.conj()`` for
``exp``), and a non-holomorphic function states both Wirtinger terms (``sgn``: ``(g - sgn^2 * conj(g)) / 2|z|``).
A real input whose gradient came out complex (a real tensor times a complex one) keeps the real part: the engine
does that once for every formula (PyTorch's ``handle_r_to_c``; ``engine._conform``).

Invariant: only differentiable operators, so double backward works.
"""

from __future__ import annotations

from . import formulas as _formulas

__all__ = ["sgn_backward", "angle_backward", "polar_backward", "view_as_real_backward", "view_as_complex_backward",
           "real_of", "imag_of"]


def _torch():
    return _formulas._T


def sgn_backward(x, grad, sgn):
    """``sgn(z) = z / |z|``: zero for real inputs; at 0 the gradient is 0."""
    if not x.is_complex():
        return _torch().zeros_like(sgn)
    abs_x = x.abs()
    return ((grad - (sgn * sgn) * grad.conj()) / (2.0 * abs_x)).masked_fill(abs_x == 0.0, 0.0)


def angle_backward(grad, x):
    """``angle(z)``: ``grad * i z / |z|^2`` (0 at z == 0); zero for real inputs."""
    torch = _torch()
    if not x.is_complex():
        return torch.zeros_like(x)
    return torch.where(x == 0.0, torch.zeros((), dtype=x.dtype), grad * x / x.abs().pow(2) * 1j)


def polar_backward(grad, result):
    """``polar(r, theta) = r e^{i theta}``: the gradients of ``abs`` and ``angle``."""
    torch = _torch()
    grad_conj = grad.conj()
    grad_abs = torch.real(grad_conj * torch.sgn(result))
    grad_angle = torch.real(grad_conj * (result * 1j))
    return grad_abs, grad_angle


def view_as_real_backward(grad):
    return _torch().view_as_complex(grad.contiguous())


def view_as_complex_backward(grad):
    return _torch().view_as_real(grad.contiguous().resolve_conj())


def real_of(grad):
    return _torch().real(grad)


def imag_of(grad):
    return _torch().imag(grad)
