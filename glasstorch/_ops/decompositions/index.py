"""Indexing composites — PyTorch's CompositeExplicitAutograd/ImplicitAutograd kernels of
``TensorAdvancedIndexing.cpp`` (functional ``masked_fill``, ``masked_scatter``, ``index_fill``, ``index_put``,
``take_along_dim``, ``_unsafe_masked_index`` and its accumulating inverse) and ``Onehot.cpp`` (``one_hot``).

Each one clones/broadcasts ``self`` as PyTorch's kernel does and then calls the in-place operator through
``aten`` (so the dispatcher, version counters and traces see the same calls as in PyTorch).

Invariant: nothing here reads or writes tensor data except through an operator or ``copy_``.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core import shape as _shape
from ..._core.layout import contiguous_format
from ..._core.shape import wrap_dim
from ..._tensor.impl import empty_impl
from ..aten import aten

__all__ = ["masked_fill_Scalar", "masked_fill_Tensor", "masked_scatter", "index_fill_int_Scalar",
           "index_fill_int_Tensor", "index_put_", "index_put", "take_along_dim", "take_along_dim_out", "one_hot",
           "unsafe_masked_index", "unsafe_masked_index_put_accumulate"]


def _clone(impl, contiguous=False):
    """``clone()``: preserve_format (the input's dense layout), or ``MemoryFormat::Contiguous``."""
    return aten.clone(impl, contiguous_format if contiguous else None)


def _expand_outplace(mask, self):
    shape = _shape.broadcast_shapes(mask.sizes, self.sizes)
    return aten.expand(mask, shape, False), aten.expand(self, shape, False)


def masked_fill_Scalar(self, mask, value):
    mask_e, self_e = _expand_outplace(mask, self)
    return aten.masked_fill__Scalar(_clone(self_e, contiguous=True), mask, value)


def masked_fill_Tensor(self, mask, value):
    mask_e, self_e = _expand_outplace(mask, self)
    return aten.masked_fill__Tensor(_clone(self_e, contiguous=True), mask, value)


def masked_scatter(self, mask, source):
    mask_e, self_e = _expand_outplace(mask, self)
    return aten.masked_scatter_(_clone(self_e, contiguous=True), mask_e, source)


def index_fill_int_Scalar(self, dim, index, value):
    return aten.index_fill__int_Scalar(_clone(self), dim, index, value)


def index_fill_int_Tensor(self, dim, index, value):
    return aten.index_fill__int_Tensor(_clone(self), dim, index, value)


def index_put_(self, indices, values, accumulate):
    return aten._index_put_impl_(self, indices, values, accumulate, False)


def index_put(self, indices, values, accumulate):
    return aten.index_put_(_clone(self), indices, values, accumulate)


def _take_along_dim_helper(self, indices, dim):
    if self.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {self.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_dt.name_of(indices.dtype)}")
    dim = wrap_dim(dim, self.ndim)
    if self.ndim == 0:  # PyTorch reads self.size(dim) here
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    sizes = list(self.sizes)
    sizes[dim] = indices.sizes[dim]
    idx_b = aten.expand(indices, _shape.broadcast_shapes(tuple(sizes), indices.sizes), False)
    isizes = list(indices.sizes)
    isizes[dim] = self.sizes[dim]
    self_b = aten.expand(self, _shape.broadcast_shapes(tuple(isizes), self.sizes), False)
    return self_b, idx_b, dim


def _wrapped_indices(self, idx_b, d):
    """Along a dim PyTorch takes the indices modulo the dim's size (negative ones count from the end, and so do
    the ones past it); a size-0 dim with indices divides by zero."""
    size = self.sizes[d]
    if size == 0:
        if idx_b.numel():
            raise RuntimeError("ZeroDivisionError")
        return idx_b
    return aten.remainder_Scalar(idx_b, size)


def take_along_dim(self, indices, dim):
    if dim is not None:
        self_b, idx_b, d = _take_along_dim_helper(self, indices, dim)
        return aten.gather(self_b, d, _wrapped_indices(self, idx_b, d), False)
    return aten.gather(aten.view(self, (-1,)), 0, aten.view(indices, (-1,)), False)


def take_along_dim_out(self, indices, dim, out):
    if dim is not None:
        self_b, idx_b, d = _take_along_dim_helper(self, indices, dim)
        return aten.gather_out(self_b, d, _wrapped_indices(self, idx_b, d), False, out)
    return aten.gather_out(aten.view(self, (-1,)), 0, aten.view(indices, (-1,)), False, out)


def one_hot(self, num_classes):
    if self.dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    shape = self.sizes
    if self.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return empty_impl(shape + (num_classes,), self.dtype, self.device)
    vals = self.values_np()
    if int(vals.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(vals.max()) + 1
    elif num_classes <= int(vals.max()):
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = empty_impl(shape + (num_classes,), self.dtype, self.device)
    aten.zero_(out)
    return aten.scatter__value(out, -1, aten.unsqueeze(self, -1), 1)


def _clamped_indices(self, indices):
    """The indices clamped into ``[-size, size - 1]`` of their dimension, so that masked-off positions may hold
    anything (PyTorch's ``_unsafe_masked_index`` clamps, then indexes unchecked)."""
    out = []
    for index, size in zip(indices, self.sizes, strict=False):
        if index is not None:
            if index.dtype not in (_dt.int64, _dt.int32):
                raise RuntimeError(f"_unsafe_masked_index found unexpected index type {_dt.name_of(index.dtype)}")
            index = aten.clamp(index, -size, size - 1)
        out.append(index)
    return out


def unsafe_masked_index(self, mask, indices, fill):
    """``where(mask, self[indices], fill)``, reading ``self`` only where ``mask`` holds."""
    clamped = _clamped_indices(self, indices)
    if self.numel() == 0:  # every read is masked off: index a tensor of ``fill`` with a 1 for each indexed 0 size
        sizes = tuple(1 if i < len(indices) and indices[i] is not None and s == 0 else s
                      for i, s in enumerate(self.sizes))
        base = aten.fill__Scalar(empty_impl(sizes, self.dtype, self.device), fill)
        return aten.index_Tensor(base, clamped)
    return aten.masked_fill_Scalar(aten.index_Tensor(self, clamped), aten.logical_not(mask), fill)


def unsafe_masked_index_put_accumulate(self, mask, indices, values):
    """``index_put(self, indices, values where mask else 0, accumulate=True)``."""
    if self.numel() == 0:
        return _clone(self)
    clamped = _clamped_indices(self, indices)
    return aten.index_put(self, clamped, aten.masked_fill_Scalar(values, aten.logical_not(mask), 0), True)
