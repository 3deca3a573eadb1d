"""``put_`` / ``put``: write (or accumulate) ``source`` at flat indices of ``self`` — PyTorch's
``TensorAdvancedIndexing.cpp`` (``put_``) and ``cpu/IndexKernel.cpp`` (``cpu_take_put_kernel``).

An index addresses ``self`` as if it were flattened in row-major order whatever its strides; negative indices wrap
once. Without ``accumulate`` the last of duplicate indices wins (PyTorch's sequential loop); with it, duplicates add
one after another in ``self``'s dtype (``np.add.at``). ``put`` is ``self.clone().put_(...)``.

Invariant: ``put_`` writes only ``self``; ``index`` and ``source`` are read in row-major order, one value each.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl
from ...overlap import check_no_internal_overlap
from ..composite.views import clone
from .dispatch_types import not_implemented
from .shape import assert_no_overlap

__all__ = ["put_", "put"]


def _check(self: TensorImpl, index: TensorImpl, source: TensorImpl) -> None:
    if index.dtype is not _dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_dt.name_of(index.dtype)}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_dt.name_of(self.dtype)} and source.dtype = {_dt.name_of(source.dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    check_no_internal_overlap(self)
    assert_no_overlap(self, index)
    assert_no_overlap(self, source)


def put_(self, index, source, accumulate=False):
    _check(self, index, source)
    if index.numel() == 0 or self.storage._data is None:
        return self
    if _dt.is_barebones(self.dtype):
        raise not_implemented("take_put_cpu", self.dtype)
    n = self.numel()
    idx = np.asarray(index.as_numpy(), dtype=np.int64).reshape(-1)
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(idx[bad][0])} on a tensor of {n} elements.")
    idx = np.where(idx < 0, idx + n, idx)
    vals = source.as_numpy().reshape(-1)
    arr = self.as_numpy()
    flat = arr.reshape(-1)  # a view when self is row-major contiguous, else a copy written back below
    if accumulate:
        with np.errstate(all="ignore"):
            np.add.at(flat, idx, vals)
    else:
        flat[idx] = vals
    if not np.shares_memory(flat, arr):
        np.copyto(arr, flat.reshape(arr.shape))
    return self


def put(self, index, source, accumulate=False):
    return put_(clone(self), index, source, accumulate)
