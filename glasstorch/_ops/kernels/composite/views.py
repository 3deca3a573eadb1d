"""View, copy and fill kernels registered as CompositeExplicitAutograd — PyTorch's ``TensorShape.cpp``.

The view kernels adapt the geometry functions of ``glasstorch/_tensor/views.py`` to the schemas'
argument order; being metadata-only they serve every backend (the meta device included).  The copy
and fill kernels allocate through the tensor layer and write through ``kernels/cpu/copy.py``.

Invariant: view kernels never allocate; ``_base`` is set by the ADInplaceOrView layer, not here.
"""

from __future__ import annotations

from ...._core import shape as _shape
from ...._core.dispatch_key import MATH_BITS
from ...._core.layout import contiguous_format as _contiguous_format
from ...._core.layout import preserve_format as _preserve_format
from ...._tensor import views as _views
from ...._tensor.impl import INFERENCE_VERSION, TensorImpl, VersionCounter, empty_contiguous_numpy, empty_strided_impl
from ...factories import check_fits
from ..cpu import copy as _copy

__all__ = ["view", "view_dtype", "reshape_alias", "unsafe_view", "as_strided", "transpose", "t", "permute", "expand",
           "slice_Tensor", "slice_inverse",
           "select_int", "unsqueeze", "squeeze", "squeeze_dim", "squeeze_dims", "unfold", "diagonal",
           "split_Tensor", "split_with_sizes", "unsafe_split_Tensor", "unsafe_split_with_sizes", "unbind_int",
           "alias", "fw_primal", "make_dual", "unpack_dual", "clone",
           "copy_",
           "fill_Scalar", "fill_Tensor", "zero_", "to_copy", "test_autograd_multiple_dispatch_view",
           "test_autograd_multiple_dispatch"]

view = _views.view
view_dtype = _views.view_dtype
as_strided = _views.as_strided
transpose = _views.transpose
t = _views.t
permute = _views.permute
unsqueeze = _views.unsqueeze
unfold = _views.unfold
diagonal = _views.diagonal
split_with_sizes = _views.split_with_sizes
unbind_int = _views.unbind
alias = _views.alias


def fw_primal(self: TensorImpl, level) -> TensorImpl:
    """Below autograd a primal is an alias: the tangent lives in autograd's metadata (autograd/forward_grad.py)."""
    return _views.alias(self)


def make_dual(primal: TensorImpl, tangent: TensorImpl, level) -> TensorImpl:
    return _views.alias(primal)


def unpack_dual(dual: TensorImpl, level):
    return _views.alias(dual), None


def expand(self: TensorImpl, size, implicit=False) -> TensorImpl:
    return _views.expand(self, size)


def slice_inverse(self: TensorImpl, src: TensorImpl, dim=0, start=None, end=None, step=1) -> TensorImpl:
    """PyTorch's ``slice_inverse``: ``self`` viewed with ``src``'s geometry (its storage reaches that far)."""
    return _views.as_strided(self, src.sizes, src.strides, src.offset)


def slice_Tensor(self: TensorImpl, dim=0, start=None, end=None, step=1) -> TensorImpl:  # noqa: N802
    return _views.slice_(self, dim, start, end, step)


def select_int(self: TensorImpl, dim, index) -> TensorImpl:
    return _views.select(self, dim, index)


def squeeze(self: TensorImpl) -> TensorImpl:
    return _views.squeeze(self, None)


def squeeze_dim(self: TensorImpl, dim) -> TensorImpl:
    return _views.squeeze(self, dim)


def squeeze_dims(self: TensorImpl, dim) -> TensorImpl:
    return _views.squeeze(self, tuple(dim))


def split_Tensor(self: TensorImpl, split_size, dim=0) -> list:  # noqa: N802
    return _views.split(self, split_size, dim)


def _own_versions(pieces: list) -> list:
    """Each piece of an unsafe split counts its own writes (an inference tensor's pieces have no counter)."""
    for t in pieces:
        if t.version is not INFERENCE_VERSION:
            t.version = VersionCounter()
    return pieces


def unsafe_split_Tensor(self: TensorImpl, split_size, dim=0) -> list:  # noqa: N802
    return _own_versions(_views.split(self, split_size, dim))


def unsafe_split_with_sizes(self: TensorImpl, split_sizes, dim=0) -> list:
    return _own_versions(split_with_sizes(self, split_sizes, dim))


def reshape_alias(self: TensorImpl, size, stride) -> TensorImpl:
    """``_reshape_alias``: the given sizes and strides at the same storage offset, unchecked (PyTorch's
    ``alias_with_sizes_and_strides``: reshape has already computed a geometry that fits)."""
    return self.view_impl(tuple(size), tuple(stride), self.offset)


def unsafe_view(self: TensorImpl, size) -> TensorImpl:
    """``_unsafe_view``: a view that autograd treats as a fresh tensor (reshape's copy path)."""
    return _views.view(self, size)


_ROW_MAJOR_FORMATS = (None, _preserve_format, _contiguous_format)  # those that keep a row-major source's strides


def clone(self: TensorImpl, memory_format=None) -> TensorImpl:
    """A copy; ``preserve_format`` keeps dense strides (PyTorch's clone).

    A row-major source (canonical strides, so every format but channels-last keeps them) is the common case and
    takes a short path: a fresh row-major buffer and one copy of the same dtype, which needs none of ``copy_``'s
    shape, overlap or cast work.  The copy has no conjugate or negative bit: ``copy_`` resolves them
    (Note [Math bits])."""
    data = self.storage._data
    if data is not None and memory_format in _ROW_MAJOR_FORMATS and (self._contig or self.is_contiguous()) and \
            self.strides == _shape.contiguous_strides(self.sizes) and not self.key_set & MATH_BITS:
        out, out_np = empty_contiguous_numpy(self.sizes, self.dtype, self.device)
        arr = self._np
        _copy.copy_dense(arr if arr is not None and self._np_key is data else self.as_numpy(), out_np)
        return out
    out = empty_strided_impl(self.sizes, _shape.strides_for_format(self.sizes, self.strides, memory_format),
                             self.dtype, self.device)
    return _copy.copy_(out, self)


def copy_(self: TensorImpl, src: TensorImpl, non_blocking=False) -> TensorImpl:
    if type(src) is not TensorImpl:
        return fill_Scalar(self, src)
    return _copy.copy_(self, src)


def fill_Scalar(self: TensorImpl, value) -> TensorImpl:  # noqa: N802
    check_fits(value, self.dtype)
    return _copy.fill_(self, value)


def fill_Tensor(self: TensorImpl, value: TensorImpl) -> TensorImpl:  # noqa: N802
    if value.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                           "dimensions.")
    return _copy.copy_(self, value)


def zero_(self: TensorImpl) -> TensorImpl:
    return _copy.fill_(self, 0)


def to_copy(self: TensorImpl, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
            memory_format=None) -> TensorImpl:
    """``_to_copy``: a copy in a new dtype and/or on a new device (the kernel behind ``Tensor.to``)."""
    if self.storage._data is None and device is not None and device.type != "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    out = empty_strided_impl(self.sizes, _shape.strides_for_format(self.sizes, self.strides, memory_format),
                             self.dtype if dtype is None else dtype, self.device if device is None else device)
    return _copy.copy_(out, self)


def test_autograd_multiple_dispatch_view(self: TensorImpl) -> TensorImpl:
    """PyTorch's test-only view: ``self.view(-1)``."""
    return _views.view(self, [-1])


def test_autograd_multiple_dispatch(self: TensorImpl) -> TensorImpl:
    """PyTorch's test-only ``_test_autograd_multiple_dispatch.fullcoverage``: ``self.clone()``."""
    return clone(self)
