"""``index_reduce`` CPU kernel — PyTorch's ``index_reduce_func_impl`` (``TensorAdvancedIndexing.cpp``).

Slice ``i`` of ``source`` along ``dim`` is folded into slice ``index[i]`` of the result with ``prod``, ``amax``,
``amin`` (NaN propagating) or ``mean`` (a running sum divided by the count of slices it received, plus one when
``include_self``; integers divide with floor).  Without ``include_self`` the indexed slices start from the
reduction's identity instead of ``self``.  The folds run in index order (see ``_fold``), which rounds as PyTorch's
slice-by-slice loop does in reduced precision; float32/float64 slices with contiguous rows fold in C
(``scatter_rows``), in the same order with the same operations.

Invariant: the checks of ``index_func_meta_impl`` run before any data is read; meta operands stop there.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core.user_warning import warn_once as _warn_once
from . import scatter_rows as _scatter_rows
from .dispatch_types import not_implemented
from .index import _dim_slices, _idx, _index_func_checks, _self_output
from .shape import is_meta

__all__ = ["index_reduce_out"]

_UFUNCS = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum, "mean": np.add}
_C_FOLDS = {"prod": "prod", "amax": "amax", "amin": "amin", "mean": "add"}


def _identity(reduce: str, dtype):
    if reduce == "prod":
        return 1
    if reduce in ("amax", "amin"):
        if dtype.is_floating_point:
            return -np.inf if reduce == "amax" else np.inf
        info = np.iinfo(dtype.np)
        return info.min if reduce == "amax" else info.max
    return 0


def index_reduce_out(self, dim, index, source, reduce, include_self=True, out=None):
    """``out`` (or a copy of ``self``) with the slices of ``source`` reduced into the slices ``index`` names."""
    if reduce not in _UFUNCS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim = _index_func_checks("index_reduce", self, dim, index, source, out)
    _warn_once("index_reduce() is in beta and the API may change at any time.")
    out = _self_output(self, out)
    if is_meta(out, index, source):
        return out
    if self.dtype.is_complex or self.dtype is _dt.bool:
        raise not_implemented("index_reduce_func_exclude_input_init" if not include_self else "index_func_",
                              self.dtype)
    if self.ndim <= 1 and source.ndim > 1:
        raise RuntimeError(f"source.dim() ({source.ndim}) must one or zero for given self.dim() ({self.ndim})")
    idx = _idx(index).reshape(-1)
    arr = _dim_slices(out.as_numpy(), dim)
    if ((idx < 0) | (idx >= arr.shape[0])).any():
        raise IndexError("index out of range in self")
    if not include_self:
        arr[idx] = _identity(reduce, self.dtype)
    src = _dim_slices(source.as_numpy(), dim if source.ndim else 0)
    with np.errstate(all="ignore"):
        if arr.ndim < 2 or not _scatter_rows.index_fold_rows(_C_FOLDS[reduce], arr, idx, src):
            _fold(_UFUNCS[reduce], arr, idx, src)
        if reduce == "mean":
            counts = np.zeros(arr.shape[0], np.int64)
            np.add.at(counts, idx, 1)
            counts += 1 if include_self else 0
            counts = np.maximum(counts, 1).astype(arr.dtype).reshape((-1,) + (1,) * (arr.ndim - 1))
            if self.dtype.is_floating_point:
                np.divide(arr, counts, out=arr)
            else:
                np.floor_divide(arr, counts, out=arr)
    return out


def _fold(ufunc, arr: np.ndarray, idx: np.ndarray, src: np.ndarray) -> None:
    """``arr[idx[i]] = ufunc(arr[idx[i]], src[i])`` for each ``i`` in order.

    Slices (``arr`` of 2+ dims) fold in passes: pass ``r`` takes the ``r``-th source slice of every target at once
    (targets are distinct within a pass), so each target sees its slices in index order, exactly the sequential
    result, in as many vectorised passes as the most repeated index; elements (1-d) use ``ufunc.at``."""
    if arr.ndim < 2 or idx.size == 0:
        ufunc.at(arr, idx, src)
        return
    order = np.argsort(idx, kind="stable")
    _, starts, counts = np.unique(idx[order], return_index=True, return_counts=True)
    rank = np.arange(idx.size) - np.repeat(starts, counts)  # position of each sorted slice within its target
    for r in range(int(counts.max())):
        rows = order[rank == r]
        targets = idx[rows]
        arr[targets] = ufunc(arr[targets], src[rows])
