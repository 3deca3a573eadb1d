"""The view-inverse scatters (``slice_scatter``, ``select_scatter``, ``diagonal_scatter``, ``as_strided_scatter``)
and the functional ``fill`` — PyTorch's CompositeExplicitAutograd kernels of ``TensorShape.cpp`` and ``Fill.cpp``.

A scatter is its view's inverse: the result is a copy of ``self`` with the view's elements replaced by ``src``.
The copy keeps ``self``'s exact geometry (PyTorch's ``clone_preserve_strides``, Note [*_scatter ops preserve
strides]): the whole storage is cloned and the same sizes, strides and offset are laid over it, unless ``self``
overlaps itself (then a plain clone).

Invariant: the result never aliases ``self`` or ``src``; ``src`` must have exactly the view's sizes.
"""

from __future__ import annotations

from ...._core import shape as _shape
from ...._tensor import views as _views
from ...._tensor.impl import TensorImpl, empty_strided_impl
from ..cpu import copy as _copy
from . import views as _v
from .view_copies import _out_of

__all__ = ["slice_scatter", "slice_scatter_out", "select_scatter", "diagonal_scatter", "as_strided_scatter",
           "fill_functional_Scalar", "fill_functional_Tensor"]


def clone_preserve_strides(self: TensorImpl) -> TensorImpl:
    """A copy of ``self`` with its sizes, strides and storage offset (over a copy of its whole storage)."""
    if any(st == 0 and s > 1 for s, st in zip(self.sizes, self.strides, strict=True)):
        return _v.clone(self)  # internal overlap: the elements cannot each have their own place
    numel = self.storage.nbytes() // self.dtype.itemsize
    whole = _v.clone(_views.as_strided(self, (numel,), (1,), 0))
    return _views.as_strided(whole, self.sizes, self.strides, self.offset)


def _scatter_into(out: TensorImpl, view: TensorImpl, src: TensorImpl) -> TensorImpl:
    if view.sizes != src.sizes:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {_fmt(src.sizes)}, "
                           f"slice size = {_fmt(view.sizes)}")
    _copy.copy_(view, src)
    return out


def _fmt(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    out = clone_preserve_strides(self)
    return _scatter_into(out, _v.slice_Tensor(out, dim, start, end, step), src)


def select_scatter(self, src, dim, index):
    out = clone_preserve_strides(self)
    return _scatter_into(out, _v.select_int(out, dim, index), src)


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    out = clone_preserve_strides(self)
    return _scatter_into(out, _v.diagonal(out, offset, dim1, dim2), src)


def as_strided_scatter(self, src, size, stride, storage_offset=None):
    out = clone_preserve_strides(self)
    return _scatter_into(out, _views.as_strided(out, size, stride, storage_offset), src)


slice_scatter_out = _out_of(slice_scatter, "slice_scatter_out")


def _empty_like(self: TensorImpl) -> TensorImpl:
    return empty_strided_impl(self.sizes, _shape.strides_for_format(self.sizes, self.strides, None), self.dtype,
                              self.device)


def fill_functional_Scalar(self, value):  # noqa: N802
    """``fill.Scalar``: ``empty_like(self).fill_(value)``."""
    return _v.fill_Scalar(_empty_like(self), value)


def fill_functional_Tensor(self, value):  # noqa: N802
    return _v.fill_Tensor(_empty_like(self), value)
