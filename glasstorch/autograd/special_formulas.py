"""Backward formulas of the gamma family and ``torch.special`` — PyTorch's ``i1_backward``, ``i1e_backward``,
``mvlgamma_backward``, ``sinc_backward``, ``logit_backward`` and the ``deg2rad``/``rad2deg`` ones
(``FunctionsManual.cpp``), over public Tensors; the generated nodes import these next to ``formulas.py``.

Invariant: only differentiable operators, so double backward works.
"""

from __future__ import annotations

import math

from . import formulas as _formulas

__all__ = ["deg2rad_backward", "rad2deg_backward", "special_i1", "special_i1e", "i1_backward", "i1e_backward",
           "special_xlog1py", "special_zeta", "xlog1py_scalar_other_backward", "mvlgamma_backward",
           "logit_backward", "sinc_backward"]

_PI_180 = math.pi / 180


def _torch():
    return _formulas._T


def deg2rad_backward(grad):
    return grad * _PI_180


def rad2deg_backward(grad):
    return grad * (180 / math.pi)


def special_i1(x):
    return _torch().special.i1(x)


def special_i1e(x):
    return _torch().special.i1e(x)


def special_xlog1py(x, y):
    return _torch().special.xlog1py(x, y)


def special_zeta(x, q):
    return _torch().special.zeta(x, q)


def _not_tiny(x):
    """``|x| > eps`` and ``x`` with the tiny values replaced by eps: the Bessel ratios below are 0/0 at 0."""
    t = _torch()
    eps = t.finfo(x.dtype).eps
    keep = x.abs() > eps
    return keep, t.where(keep, x, t.full((), eps, dtype=x.dtype, device=x.device))


def i1_backward(grad, x, result):
    """d/dx I1(x) = I0(x) - I1(x) / x, and 1/2 at 0."""
    t = _torch()
    keep, safe = _not_tiny(x)
    gradx = safe.i0() - result * safe.reciprocal()
    return grad * t.where(keep, gradx, t.full((), 0.5, dtype=x.dtype, device=x.device))


def i1e_backward(grad, x, result):
    """d/dx I1e(x) = I0e(x) - I1e(x) (sgn(x) + 1/x), and 1/2 at 0."""
    t = _torch()
    keep, safe = _not_tiny(x)
    gradx = t.special.i0e(safe) - result * (safe.sgn() + safe.reciprocal())
    return grad * t.where(keep, gradx, t.full((), 0.5, dtype=x.dtype, device=x.device))


def xlog1py_scalar_other_backward(grad, x, other):
    """``xlog1py(grad, other)``, zero where x == 0 when log1p(other) is not finite (other <= -1)."""
    g = special_xlog1py(grad, other)
    return g if float(other) > -1.0 else g.masked_fill(x == 0.0, 0.0)


def mvlgamma_backward(grad, x, p):
    """The sum of digamma over the p shifted arguments x, x - 1/2, ..., x - (p-1)/2."""
    t = _torch()
    args = t.arange(-p / 2.0 + 0.5, 0.5, 0.5, dtype=x.dtype, device=x.device) + x.unsqueeze(-1)
    return grad * args.digamma().sum(-1)


def logit_backward(grad, x, eps):
    """``grad / (x (1 - x))`` inside [eps, 1 - eps] (0 outside), or inside [0, 1] (NaN outside) without eps."""
    t = _torch()
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    inside = (x >= lo) & (x <= hi)
    fill = math.nan if eps is None else 0.0
    return t.where(inside, grad / (x * (1.0 - x)), t.full((), fill, dtype=x.dtype, device=x.device))


def sinc_backward(grad, x):
    """``(pi x cos(pi x) - sin(pi x)) / (pi x^2)``, 0 at x = 0."""
    t = _torch()
    x_pi = x * math.pi
    x_sq_pi = x * x * math.pi
    out = grad * ((x_pi * x_pi.cos() - x_pi.sin()) / x_sq_pi).conj()
    return t.where(x_sq_pi == 0.0, t.zeros((), dtype=out.dtype, device=out.device), out)
