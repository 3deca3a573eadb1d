"""Factory kernels declared in ``native_functions/factories.yaml`` — PyTorch's ``TensorFactories.cpp``.

CompositeExplicitAutograd: one kernel for every backend (the BackendSelect layer has already chosen it from
``device``).  Invariant: a factory returns a fresh tensor; an unset dtype is the default dtype, as
``TensorOptions`` gives in PyTorch.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._core.device import CPU, as_device
from ...._tensor import views as _views
from ...._tensor.impl import TensorImpl, empty_impl, empty_strided_impl, from_numpy_impl
from ...factories import full_impl, like_impl
from ...zero_tensor import ZERO_TENSOR_BIT
from ..cpu.dispatch_types import not_implemented

__all__ = ["scalar_tensor", "tril_indices", "triu_indices", "new_zeros_with_same_feature_meta",
           "efficientzerotensor", "is_zerotensor", "empty_permuted", "ones_like"]


def scalar_tensor(s, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    """``scalar_tensor(s)``: a 0-dim tensor holding ``s``, of the default dtype whatever ``s``'s type is
    (``fill_``'s checks: a complex or out-of-range ``s`` raises)."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    return full_impl((), s, dtype, CPU if device is None else as_device(device))


def efficientzerotensor(size, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    """A tensor of zeros carrying the ZeroTensor key (Note [ZeroTensor]), of the default dtype unless told."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    out = full_impl(tuple(size), 0, dtype, CPU if device is None else as_device(device))
    out.key_set |= ZERO_TENSOR_BIT
    return out


def is_zerotensor(self) -> bool:
    return bool(self.key_set & ZERO_TENSOR_BIT)


def _triangle_indices(name, np_indices):
    """``tril_indices``/``triu_indices``: the (row, column) coordinates of a triangle of a ``row`` x ``col``
    matrix, row by row, as a 2 x N tensor of int64 (or int32)."""
    def kernel(row, col, offset=0, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
        dtype = _dt.int64 if dtype in (None, "long") else dtype
        if dtype not in (_dt.int64, _dt.int32):
            raise not_implemented(name, dtype)
        for label, n in (("row", row), ("col", col)):
            if n < 0:
                raise RuntimeError(f"{label} must be non-negative, got{n}")
        dev = CPU if device is None else as_device(device)
        rows, cols = np_indices(row, offset, col) if row and col else ((), ())
        if dev.type == "meta":
            return empty_impl((2, len(rows)), dtype, dev)
        return from_numpy_impl(np.array([rows, cols], dtype=dtype.np).reshape(2, len(rows)), dtype, dev)
    kernel.__name__ = kernel.__qualname__ = name
    return kernel


tril_indices = _triangle_indices("tril_indices", np.tril_indices)
triu_indices = _triangle_indices("triu_indices", np.triu_indices)


def new_zeros_with_same_feature_meta(self: TensorImpl, other: TensorImpl, self_num_batch_dims=0) -> TensorImpl:
    """Zeros of ``other``'s dtype and device laid out as ``other`` in its (feature) dimensions, led by ``self``'s
    first ``self_num_batch_dims`` sizes: one copy of ``other``'s whole storage per batch element, so that the
    result's feature dims index their storage as ``other``'s do (forward AD lays a tangent out as its primal)."""
    batch = tuple(self.sizes[:self_num_batch_dims])
    per_batch = other.storage.nbytes() // other.dtype.itemsize
    strides, step = [], per_batch
    for n in reversed(batch):
        strides.insert(0, step)
        step *= n
    flat = full_impl((step,), 0, other.dtype, other.device)
    return _views.as_strided(flat, batch + tuple(other.sizes), tuple(strides) + tuple(other.strides), other.offset)


def empty_permuted(size, physical_layout, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    """An uninitialised tensor of logical ``size`` whose memory is row-major in the order ``physical_layout``
    (physical dim ``i`` is logical dim ``physical_layout[i]``: ``[0, 2, 3, 1]`` is channels-last)."""
    size, physical_layout = tuple(size), tuple(physical_layout)
    n = len(size)
    if len(physical_layout) != n:
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {n} is not equal to len(physical_layout) = {len(physical_layout)}")
    seen = set()
    for i, d in enumerate(physical_layout):
        if not 0 <= d < n:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {n - 1}, but got {d} at index "
                               f"{i}).  NB: negative dims not currently supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    physical = _shape.contiguous_strides(tuple(size[d] for d in physical_layout))
    strides = [0] * n
    for i, d in enumerate(physical_layout):
        strides[d] = physical[i]
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    return empty_strided_impl(size, tuple(strides), dtype, CPU if device is None else as_device(device))


def ones_like(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> TensorImpl:
    """Ones with ``self``'s sizes (strides by ``memory_format``, preserve_format when None), dtype and device
    unless given."""
    return like_impl(self, 1, dtype, device, memory_format)
