"""Resizing a tensor in place — PyTorch's ``aten/src/ATen/native/Resize.cpp`` (``resize_``, ``resize_as_``) and
``TensorImpl::empty_tensor_restride``.

``resize_`` gives a tensor new sizes with contiguous strides (or those of a memory format) and keeps its storage
offset; the storage grows (never shrinks) when the new geometry needs more bytes, keeping the bytes it had, so
the elements in the common prefix keep their values and new ones are uninitialised.  Equal sizes leave the
geometry alone.  Being metadata plus a storage reallocation, one kernel serves CPU and Meta (a meta storage
only counts bytes).  The autograd checks ("cannot resize variables that require grad") and the version rule live
in ``autograd/manual_kernels.py``, as PyTorch keeps them in ``VariableTypeManual.cpp``.

Invariant: after ``resize_(sizes)`` the storage holds at least ``(offset + numel) * itemsize`` bytes (for a
non-empty result) and every byte it held before is unchanged.
"""

from __future__ import annotations

from ...._core import shape as _shape
from ...._core.layout import channels_last, channels_last_3d, contiguous_format, preserve_format
from ...._tensor.impl import TensorImpl, contiguous_nbytes

__all__ = ["resize_", "resize_as_", "resize_impl", "restride", "suggest_memory_format"]

_U64 = 1 << 64
_INT64_MAX = (1 << 63) - 1


def _checked_numel(sizes) -> int:
    """The element count, with PyTorch's overflow rule (``safe_compute_numel``): sizes multiplied as unsigned
    64-bit values, an overflowing step or a product above INT64_MAX raises (so does a negative size, unless a
    zero size makes the product 0)."""
    n, overflow = 1, False
    for s in sizes:
        n *= s % _U64
        if n >= _U64:
            overflow, n = True, n % _U64
    if overflow or n > _INT64_MAX:
        raise RuntimeError("numel: integer multiplication overflow")
    return n


def resize_impl(self: TensorImpl, sizes: tuple) -> None:
    """New sizes with contiguous strides, growing the storage if needed (PyTorch's ``resize_impl_cpu_`` and
    ``maybe_resize_storage_cpu``); nothing happens when the sizes are already ``sizes``."""
    if self.sizes == sizes:
        return
    numel = _checked_numel(sizes)
    self.set_geometry(sizes, _shape.contiguous_strides(sizes), self.offset)
    if numel == 0:  # nothing to hold: an offset past the end must not grow the storage
        return
    if self.is_meta:  # meta: symbolic in PyTorch, unchecked
        need = (numel + self.offset) * self.dtype.itemsize
    else:
        need = contiguous_nbytes(sizes, self.dtype.itemsize, self.offset)
    if need > self.storage.nbytes():
        self.storage.resize_(need)


def restride(self: TensorImpl, memory_format) -> None:
    """Dense strides of ``memory_format`` for the current sizes (``empty_tensor_restride``)."""
    if memory_format is preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")  # resize_'s wording (no space), not empty's
    self.set_geometry(self.sizes, _shape.memory_format_strides(self.sizes, memory_format), self.offset)


def suggest_memory_format(t: TensorImpl):
    """The memory format ``t``'s strides look like (``TensorBase::suggest_memory_format``)."""
    if _shape.is_channels_last_strides_2d(t.sizes, t.strides):
        return channels_last
    if _shape.is_channels_last_strides_3d(t.sizes, t.strides):
        return channels_last_3d
    return contiguous_format


def resize_(self: TensorImpl, size, memory_format=None) -> TensorImpl:
    """``Tensor.resize_(*sizes, memory_format=None)``: resize in place; ``memory_format`` restrides after."""
    resize_impl(self, tuple(size))
    if memory_format is not None:
        restride(self, memory_format)
    return self


def resize_as_(self: TensorImpl, the_template: TensorImpl, memory_format=None) -> TensorImpl:
    """``resize_as_(self, template)``: ``self.resize_(template.size())``; ``preserve_format`` takes the
    template's suggested memory format."""
    resize_impl(self, the_template.sizes)
    if memory_format is preserve_format:
        memory_format = suggest_memory_format(the_template)
    if memory_format is not None:
        restride(self, memory_format)
    return self
