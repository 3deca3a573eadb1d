"""In-place view operators — PyTorch's ``t_``, ``transpose_``, ``unsqueeze_``, ``squeeze_`` and ``as_strided_``
(``TensorShape.cpp``, tagged ``inplace_view``).

Each gives ``self`` the geometry its functional view would have: the sizes, strides and storage offset change in
place and the storage and data stay.  The geometry and its errors come from ``_tensor/views.py``, so each op checks
exactly what its view does; the ADInplaceOrView layer bumps the version, and the autograd layer makes the op's node
the tensor's own history (``set_history``, not a base's CopySlices).

Invariant: the kernels never allocate and never move data; ``self`` is returned.
"""

from __future__ import annotations

from ...._tensor import views as _views
from ...._tensor.impl import TensorImpl

__all__ = ["t_", "transpose_", "unsqueeze_", "squeeze_", "squeeze__dim", "squeeze__dims", "as_strided_"]


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
