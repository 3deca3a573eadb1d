"""Complex-number decompositions (CompositeImplicitAutograd) — PyTorch's ``conj``, ``resolve_conj``/``resolve_neg``,
``conj_physical`` (``UnaryOps.cpp``), ``real``/``imag`` (``TensorShape.cpp``... ``UnaryOps.cpp``) and ``isreal``
(``TensorCompare.cpp``).

``conj`` is lazy: the ``_conj`` view flips the conjugate bit (Note [Math bits]); a real tensor is its own
conjugate and comes back as itself.  ``real``/``imag`` select one half of ``view_as_real``; the imaginary part of
a conjugated tensor is a view of the stored imaginary parts with the negative bit set.  The resolvers return
``self`` when there is nothing to resolve and a ``clone`` (which applies the bits) otherwise.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._tensor.impl import TensorImpl, empty_strided_impl
from ..aten import aten
from ..factories import strides_like

__all__ = ["conj", "resolve_conj", "resolve_neg", "conj_physical", "real", "imag", "isreal"]


def conj(self: TensorImpl) -> TensorImpl:
    return aten._conj(self) if self.dtype.is_complex else self


def resolve_conj(self: TensorImpl) -> TensorImpl:
    return aten.clone(self, None) if self.is_conj() else self


def resolve_neg(self: TensorImpl) -> TensorImpl:
    return aten.clone(self, None) if self.is_neg() else self


def conj_physical(self: TensorImpl) -> TensorImpl:
    return aten._conj_physical(self) if self.dtype.is_complex else self


def _pairs(self: TensorImpl) -> TensorImpl:
    """``view_as_real`` of the stored values: of a conjugated tensor, its unconjugated alias."""
    return aten.view_as_real(aten._conj(self) if self.is_conj() else self)


def real(self: TensorImpl) -> TensorImpl:
    if not self.dtype.is_complex:
        return self
    return aten.select_int(_pairs(self), -1, 0)


def imag(self: TensorImpl) -> TensorImpl:
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    pairs = _pairs(self)
    if self.is_conj():
        pairs = aten._neg_view(pairs)  # conj(a + bi) = a - bi: the stored imaginary parts, negated
    return aten.select_int(pairs, -1, 1)


def isreal(self: TensorImpl) -> TensorImpl:
    if not self.dtype.is_complex:
        return aten.fill__Scalar(empty_strided_impl(self.sizes, strides_like(self), _dt.bool, self.device), True)
    return aten.eq_Scalar(imag(self), 0)
