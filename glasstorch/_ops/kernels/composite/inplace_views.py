"""In-place view operators — PyTorch's ``t_``, ``transpose_``, ``unsqueeze_``, ``squeeze_`` and ``as_strided_``
(``TensorShape.cpp``, tagged ``inplace_view``).

Each gives ``self`` the geometry its functional view would have: the sizes, strides and storage offset change in
place and the storage and data stay.  The geometry and its errors come from ``_tensor/views.py``, so each op checks
exactly what its view does; the ADInplaceOrView layer bumps the version, and the autograd layer makes the op's node
the tensor's own history (``set_history``, not a base's CopySlices).

``set_`` belongs here too: it points the tensor at another storage (or a fresh empty one) with a given geometry.

Invariant: the kernels never move data (only ``set_()`` allocates, an empty storage); ``self`` is returned.
"""

from __future__ import annotations

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor import views as _views
from ...._tensor.impl import TensorImpl, storage_nbytes_for
from ...._tensor.storage import UntypedStorage
from ..cpu.resize import _checked_numel

__all__ = ["t_", "transpose_", "unsqueeze_", "squeeze_", "squeeze__dim", "squeeze__dims", "as_strided_", "set_",
           "set__source_Storage", "set__source_Storage_storage_offset", "set__source_Tensor"]


def _restride(self: TensorImpl, view: TensorImpl) -> TensorImpl:
    self.set_geometry(view.sizes, view.strides, view.offset)
    return self


def t_(self: TensorImpl) -> TensorImpl:
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _restride(self, _views.t(self))


def transpose_(self: TensorImpl, dim0, dim1) -> TensorImpl:
    return _restride(self, _views.transpose(self, dim0, dim1))


def unsqueeze_(self: TensorImpl, dim) -> TensorImpl:
    return _restride(self, _views.unsqueeze(self, dim))


def squeeze_(self: TensorImpl) -> TensorImpl:
    return _restride(self, _views.squeeze(self, None))


def squeeze__dim(self: TensorImpl, dim) -> TensorImpl:
    return _restride(self, _views.squeeze(self, dim))


def squeeze__dims(self: TensorImpl, dim) -> TensorImpl:
    return _restride(self, _views.squeeze(self, tuple(dim)))


def as_strided_(self: TensorImpl, size, stride, storage_offset=None) -> TensorImpl:
    return _restride(self, _views.as_strided(self, size, stride, storage_offset))


# -- set_: the tensor reads another storage (PyTorch's set_storage_cpu_ / set_tensor_) ---------------------------
def _set_storage(self: TensorImpl, source: UntypedStorage, storage_offset, size, stride) -> TensorImpl:
    """PyTorch's checkSetStorage then resize_impl_: the storage grows to fit a new geometry, but sizes equal to the
    current ones with no strides given leave the geometry (and the storage) alone, so they must fit as they are."""
    if source.device != self.device:
        raise RuntimeError(f'Attempted to set the storage of a tensor on device "{self.device}" to a storage on '
                           f'different device "{source.device}".  This is no longer allowed; the devices must match.')
    size = tuple(size)
    if stride is not None and len(stride) != len(size):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    self.storage = source
    isz = self.dtype.itemsize
    if stride is None and self.sizes == size:
        strides = self.strides
    else:
        numel = _checked_numel(size)
        strides = _shape.contiguous_strides(size) if stride is None else tuple(stride)
        need = storage_nbytes_for(size, strides, storage_offset, isz)
        if numel and need > source.nbytes():
            source.resize_(need)
    self.set_geometry(size, strides, storage_offset)
    need = storage_nbytes_for(size, strides, storage_offset, isz)
    if need > source.nbytes():
        raise RuntimeError(f"setStorage: sizes {_fmt(size)}, strides {_fmt(stride or ())}, storage offset "
                           f"{storage_offset}, and itemsize {isz} requiring a storage size of {need} are out of "
                           f"bounds for storage of size {source.nbytes()}")
    return self


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def set__source_Storage_storage_offset(self: TensorImpl, source, storage_offset, size, stride=()) -> TensorImpl:
    return _set_storage(self, source, storage_offset, size, tuple(stride) if stride else None)


def set__source_Storage(self: TensorImpl, source) -> TensorImpl:
    return _set_storage(self, source, 0, (source.nbytes() // self.dtype.itemsize,), None)


def set__source_Tensor(self: TensorImpl, source: TensorImpl) -> TensorImpl:
    if source.dtype is not self.dtype:
        raise RuntimeError(f"Could not set tensor of type {_dt.cpp_type_name(source.dtype, 'typeid')} to a tensor "
                           f"of type {_dt.cpp_type_name(self.dtype, 'typeid')}")
    if source is not self:
        _set_storage(self, source.storage, source.offset, source.sizes, source.strides)
    return self


def set_(self: TensorImpl) -> TensorImpl:
    return _set_storage(self, UntypedStorage(0, device=self.device), 0, (0,), None)
