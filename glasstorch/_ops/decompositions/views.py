"""View decompositions (CompositeImplicitAutograd) — PyTorch's ``TensorShape.cpp`` composites.

Each calls other operators through the dispatcher, so autograd and tracing see the primitive views.
``reshape`` is the interesting one: a ``view`` when the strides allow it, otherwise a contiguous
``clone`` followed by ``_unsafe_view`` — the result then does not alias the input.
"""

from __future__ import annotations

from ..._core import shape as _shape
from ..._core.layout import contiguous_format
from ..._tensor.impl import TensorImpl
from ..._tensor.views import chunk_plan, movedim_order, narrow_bounds, tensor_split_bounds, unflatten_sizes
from ..._tensor.views import flatten as _flatten_sizes
from ..aten import aten

__all__ = ["view_as", "reshape", "reshape_as", "swapaxes", "swapdims", "swapaxes_", "swapdims_", "expand_as",
           "broadcast_to", "narrow", "flatten", "unflatten", "moveaxis", "movedim", "chunk", "tensor_split"]


def view_as(self: TensorImpl, other: TensorImpl) -> TensorImpl:
    return aten.view(self, other.sizes)


def reshape(self: TensorImpl, shape) -> TensorImpl:
    sizes = _shape.infer_size(shape, self.numel())
    if self.is_contiguous() or _shape.compute_stride(self.sizes, self.strides, sizes) is not None:
        return aten.view(self, sizes)
    return aten._unsafe_view(aten.clone(self, contiguous_format), sizes)


def reshape_as(self: TensorImpl, other: TensorImpl) -> TensorImpl:
    return reshape(self, other.sizes)


def swapaxes(self: TensorImpl, axis0, axis1) -> TensorImpl:
    return aten.transpose_int(self, axis0, axis1)


def swapdims(self: TensorImpl, dim0, dim1) -> TensorImpl:
    return aten.transpose_int(self, dim0, dim1)


def swapaxes_(self: TensorImpl, axis0, axis1) -> TensorImpl:
    return aten.transpose_(self, axis0, axis1)


def swapdims_(self: TensorImpl, dim0, dim1) -> TensorImpl:
    return aten.transpose_(self, dim0, dim1)


def expand_as(self: TensorImpl, other: TensorImpl) -> TensorImpl:
    return aten.expand(self, other.sizes, False)


def broadcast_to(self: TensorImpl, size) -> TensorImpl:
    return aten.expand(self, size, False)


def narrow(self: TensorImpl, dim, start, length) -> TensorImpl:
    d, begin = narrow_bounds(self, dim, start, length)
    return aten.slice_Tensor(self, d, begin, begin + length, 1)


def flatten(self: TensorImpl, start_dim=0, end_dim=-1) -> TensorImpl:
    sizes = _flatten_sizes(self, start_dim, end_dim)
    if self.ndim and sizes == self.sizes:
        return self  # start_dim == end_dim: PyTorch returns the input itself
    return reshape(self, sizes)


def unflatten(self: TensorImpl, dim, sizes) -> TensorImpl:
    return aten.view(self, unflatten_sizes(self, dim, sizes))


def moveaxis(self: TensorImpl, source, destination) -> TensorImpl:
    if isinstance(source, int):
        return aten.movedim_int(self, source, destination)
    return aten.movedim_intlist(self, source, destination)


def movedim(self: TensorImpl, source, destination) -> TensorImpl:
    order = movedim_order(self, source, destination)
    return aten.alias(self) if order is None else aten.permute(self, order)


def chunk(self: TensorImpl, chunks, dim=0) -> list:
    """PyTorch's composite: ``split`` by ceil(size / chunks) (``split_with_sizes`` for an empty dim)."""
    d, split_size, sizes = chunk_plan(self, chunks, dim)
    return aten.split_Tensor(self, split_size, d) if sizes is None else aten.split_with_sizes(self, sizes, d)


def tensor_split(self: TensorImpl, indices_or_sections, dim=0) -> list:
    """PyTorch's composite: one ``slice`` per piece (so the pieces are ordinary views, not a multi-output)."""
    d, pieces = tensor_split_bounds(self, indices_or_sections, dim)
    return [aten.slice_Tensor(self, d, a, b, 1) for a, b in pieces]
