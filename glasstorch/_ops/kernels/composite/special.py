"""Composite special-function kernels with their own derivative formulas — PyTorch's ``deg2rad``/``rad2deg``
(CompositeExplicitAutograd in ``UnaryOps.cpp``: a multiplication by a wrapped double) and ``polygamma_`` (the
``out=`` kernel writing into ``self``).

Invariant: each runs other operators through ``aten`` below the Autograd key, so autograd records one node per
call (``Deg2RadBackward0``, ``PolygammaBackward1``) as in PyTorch.
"""

from __future__ import annotations

from ...._tensor.impl import TensorImpl
from ...aten import aten

__all__ = ["deg2rad", "deg2rad_", "deg2rad_out", "rad2deg", "rad2deg_", "rad2deg_out", "polygamma_"]

_PI_180 = 0.017453292519943295769236907684886127134428718885417  # pi / 180, as M_PI_180 rounds it
_180_PI = 57.295779513082320876798154814105170332405472466564  # 180 / pi


def _scaled(self: TensorImpl, name: str, factor: float, out=None) -> TensorImpl:
    """``self * factor`` (a wrapped double: integers and bool give the default float), into ``out`` if given;
    complex tensors are refused."""
    if self.dtype.is_complex:
        raise RuntimeError(f"{name} is not supported for complex tensors.")
    return aten.mul_Tensor(self, factor) if out is None else aten.mul_out(self, factor, out)


def deg2rad(self: TensorImpl) -> TensorImpl:
    """Degrees to radians: ``x * (pi / 180)``."""
    return _scaled(self, "deg2rad", _PI_180)


def deg2rad_(self: TensorImpl) -> TensorImpl:
    return _scaled(self, "deg2rad", _PI_180, self)


def deg2rad_out(self: TensorImpl, out: TensorImpl) -> TensorImpl:
    return _scaled(self, "deg2rad", _PI_180, out)


def rad2deg(self: TensorImpl) -> TensorImpl:
    """Radians to degrees: ``x * (180 / pi)``."""
    return _scaled(self, "rad2deg", _180_PI)


def rad2deg_(self: TensorImpl) -> TensorImpl:
    return _scaled(self, "rad2deg", _180_PI, self)


def rad2deg_out(self: TensorImpl, out: TensorImpl) -> TensorImpl:
    return _scaled(self, "rad2deg", _180_PI, out)


def polygamma_(self: TensorImpl, n: int) -> TensorImpl:
    """``x.polygamma_(n)``: ``polygamma(n, x, out=x)``."""
    return aten.polygamma_out(n, self, self)
