"""View decompositions (CompositeImplicitAutograd) — PyTorch's ``TensorShape.cpp`` composites.

Each calls other operators through the dispatcher, so autograd and tracing see the primitive views.
``reshape`` is the interesting one: a ``view`` (``_reshape_alias`` for a non-contiguous input) when the strides
allow it, otherwise a contiguous ``clone`` followed by ``_unsafe_view`` — the result then does not alias the input.
"""

from __future__ import annotations

from ..._core import shape as _shape
from ..._core.dispatch_key import bit as _dk_bit
from ..._core.dispatch_key import tls as _dk_tls
from ..._core.layout import contiguous_format
from ..._tensor.impl import TensorImpl
from ..._tensor.views import chunk_plan, movedim_order, narrow_bounds, tensor_split_bounds, unflatten_sizes
from ..._tensor.views import flatten as _flatten_sizes
from ..aten import aten

__all__ = ["view_as", "reshape", "reshape_as", "swapaxes", "swapdims", "swapaxes_", "swapdims_", "expand_as",
           "broadcast_to", "narrow", "flatten", "unflatten", "moveaxis", "movedim", "chunk", "unsafe_chunk",
           "tensor_split",
           "hsplit", "vsplit", "dsplit", "ravel", "atleast_1d", "atleast_2d", "atleast_3d", "atleast_nd"]


def view_as(self: TensorImpl, other: TensorImpl) -> TensorImpl:
    return aten.view(self, other.sizes)


def reshape(self: TensorImpl, shape) -> TensorImpl:
    """A contiguous input: ``view``; another viewable one: ``_reshape_alias`` with computeStride's strides (a
    tensor-subclass-like input, a FakeTensor or one under a dispatch mode, takes ``view`` there too, as in
    PyTorch); otherwise a contiguous clone and ``_unsafe_view``."""
    sizes = _shape.infer_size(shape, self.numel())
    if self.is_contiguous():
        return aten.view(self, sizes)
    strides = _shape.compute_stride(self.sizes, self.strides, sizes)
    if strides is not None:
        if self.key_set & _PYTHON_KEY or _dk_tls.included & _PYTHON_KEY:
            return aten.view(self, sizes)
        return aten._reshape_alias(self, sizes, strides)
    return aten._unsafe_view(aten.clone(self, contiguous_format), sizes)


_PYTHON_KEY = _dk_bit("Python")


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


def unsafe_chunk(self: TensorImpl, chunks, dim=0) -> list:
    """``chunk`` through the unsafe splits: pieces that are no views to autograd."""
    d, split_size, sizes = chunk_plan(self, chunks, dim)
    return aten.unsafe_split_Tensor(self, split_size, d) if sizes is None else aten.unsafe_split_with_sizes(self, sizes,
                                                                                                              d)


def tensor_split(self: TensorImpl, indices_or_sections, dim=0) -> list:
    """PyTorch's composite: one ``slice`` per piece (so the pieces are ordinary views, not a multi-output)."""
    d, pieces = tensor_split_bounds(self, indices_or_sections, dim)
    return [aten.slice_Tensor(self, d, a, b, 1) for a, b in pieces]


def _nd_split(self: TensorImpl, indices_or_sections, name: str, min_dim: int, dim: int) -> list:
    """PyTorch's ``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along ``dim``; whole sections must divide it."""
    if self.ndim < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor with "
                           f"{self.ndim} dimensions!")
    if isinstance(indices_or_sections, int):
        sections, size = indices_or_sections, self.sizes[dim]
        if sections == 0 or size % sections != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {sections}!")
        return aten.tensor_split_sections(self, sections, dim)
    return aten.tensor_split_indices(self, list(indices_or_sections), dim)


def hsplit(self: TensorImpl, indices_or_sections) -> list:
    return _nd_split(self, indices_or_sections, "hsplit", 1, 0 if self.ndim == 1 else 1)


def vsplit(self: TensorImpl, indices_or_sections) -> list:
    return _nd_split(self, indices_or_sections, "vsplit", 2, 0)


def dsplit(self: TensorImpl, indices_or_sections) -> list:
    return _nd_split(self, indices_or_sections, "dsplit", 3, 2)


def ravel(self: TensorImpl) -> TensorImpl:
    """PyTorch's ``contiguous().view(-1)``: a view of the input when it is contiguous, else of a contiguous copy."""
    src = self if self.is_contiguous() else aten.clone(self, contiguous_format)
    return aten.view(src, (-1,))


def atleast_nd(t: TensorImpl, n: int) -> TensorImpl:
    """``t`` with at least ``n`` (1-3) dims, as PyTorch's ``atleast_{n}d``: itself, ``unsqueeze`` views or a reshape."""
    if t.ndim >= n:
        return t
    if t.ndim == 0:
        return aten.reshape(t, (1,) * n)
    if n == 2:
        return aten.unsqueeze(t, 0)
    return aten.unsqueeze(aten.unsqueeze(t, 0), -1) if t.ndim == 1 else aten.unsqueeze(t, -1)


def _atleast(arg, n: int):
    return [atleast_nd(t, n) for t in arg] if isinstance(arg, (list, tuple)) else atleast_nd(arg, n)


def atleast_1d(self) -> TensorImpl | list:
    return _atleast(self, 1)


def atleast_2d(self) -> TensorImpl | list:
    return _atleast(self, 2)


def atleast_3d(self) -> TensorImpl | list:
    return _atleast(self, 3)


def test_autograd_multiple_dispatch_ntonly(self: TensorImpl, b) -> TensorImpl:
    """PyTorch's test-only ``_test_autograd_multiple_dispatch.ntonly``: ``self.clone()`` (CompositeImplicit: the
    clone records autograd; its per-key formula is for nested tensors only)."""
    return aten.clone(self, None)
