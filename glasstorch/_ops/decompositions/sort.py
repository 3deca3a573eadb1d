"""Sorting composites (CompositeImplicitAutograd) — PyTorch's ``Sorting.cpp`` (argsort, msort) and
``TensorAdvancedIndexing.cpp`` (argwhere): thin wrappers over ``sort`` and ``nonzero``.

Invariant: each calls operators through the dispatcher; the indices returned are ``sort``'s own tensors.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._tensor.impl import TensorImpl, empty_strided_impl
from ..aten import aten

__all__ = ["argsort", "argsort_stable", "argsort_stable_out", "msort", "msort_out", "argwhere"]


def argsort(self: TensorImpl, dim=-1, descending=False) -> TensorImpl:
    """The indices that sort ``self`` along ``dim``."""
    return aten.sort(self, dim, descending)[1]


def argsort_stable(self: TensorImpl, stable, dim=-1, descending=False) -> TensorImpl:
    return aten.sort_stable(self, stable, dim, descending)[1]


def argsort_stable_out(self: TensorImpl, stable, dim=-1, descending=False, out=None) -> TensorImpl:
    values = empty_strided_impl((0,), (1,), self.dtype, self.device)
    aten.sort_values_stable(self, stable, dim, descending, values, out)
    return out


def msort(self: TensorImpl) -> TensorImpl:
    """``sort(self, dim=0).values``."""
    return aten.sort(self, 0, False)[0]


def msort_out(self: TensorImpl, out: TensorImpl) -> TensorImpl:
    indices = empty_strided_impl((0,), (1,), _dt.int64, self.device)
    aten.sort_values(self, 0, False, out, indices)
    return out


def argwhere(self: TensorImpl) -> TensorImpl:
    """``nonzero(self)``: the coordinates of the nonzero elements."""
    return aten.nonzero(self)
