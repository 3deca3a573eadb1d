"""Sorting and selection CPU kernels — PyTorch's ``Sorting.cpp`` (sort, topk, kthvalue), ``Unique.cpp``,
``Bucketization.cpp`` (searchsorted, bucketize) and ``TensorAdvancedIndexing.cpp`` (nonzero).

Everything rests on one numpy stable argsort along the sorted dim.  A *descending* stable sort is the
ascending stable sort of the reversed data, reversed back: equal elements keep their original order and
NaNs come first, exactly PyTorch's ``stable=True, descending=True`` order (NaN counts as the largest value,
-0.0 equals 0.0).  PyTorch's unstable sort is ``std::sort`` for bool/int8/uint8/int16/uint16/uint32/
float16/bfloat16 (x86-simd-sort for the 32/64-bit types, radix for long 1-d integer sorts): glasstorch runs the
same introsort in C for those (``introsort.py``), so ties come out in torch's order.  The other unstable
sorts and the ``topk``/``kthvalue`` selection algorithms get the stable order, which agrees whenever the
values are distinct (``topk`` with a small ``k`` and large ``kthvalue`` inputs partition first, O(n)).
CPU ``unique`` always returns sorted values (PyTorch's CPU kernel sorts too); ``unique(dim=...)`` of rows
holding NaNs is the one known divergence: PyTorch's ``std::sort`` comparator is not an order with NaNs.
``searchsorted`` uses numpy's binary search, or PyTorch's own comparisons (vectorised) for batched
boundaries and for boundaries containing NaN, where the two disagree.

bfloat16 sort keys are widened to float32 (exact, order-preserving); index outputs are int64 (int32
for ``searchsorted(out_int32=True)``).

Invariant: outputs are fresh tensors or the given ``out`` tensors; inputs are never written.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._core.user_warning import warn_once
from ...._tensor.impl import TensorImpl, empty_strided_impl
from ...aten import aten
from ...overlap import check_no_partial_overlap, check_outputs_writable
from ...tensor_iterator import common_dtype, reduced_shape, resize_out
from . import introsort as _introsort
from . import quickselect as _quickselect
from .linalg import is_meta, not_implemented, set_output

__all__ = ["sort_stable_out", "topk_out", "kthvalue_out", "unique_cpu", "unique2_cpu", "unique_dim_cpu",
           "unique_consecutive_cpu", "searchsorted_cpu", "searchsorted_out_cpu", "searchsorted_scalar_cpu",
           "searchsorted_scalar_out_cpu", "bucketize_cpu", "bucketize_out_cpu", "bucketize_scalar_cpu",
           "nonzero_cpu", "nonzero_out_cpu", "nonzero_static_cpu", "nonzero_static_out_cpu", "stable_argsort", "sort",
           "sort_out", "kthvalue", "cummax_out", "cummin_out", "cummax", "cummin", "median_all", "nanmedian_all",
           "median_dim_out", "nanmedian_dim_out", "median_dim", "nanmedian_dim", "mode_out", "mode"]


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _empty(shape, dtype, device, strides=None) -> TensorImpl:
    shape = tuple(shape)
    return empty_strided_impl(shape, strides or _shape.contiguous_strides(shape), dtype, device)


def _keys(a: np.ndarray) -> np.ndarray:
    """Sort keys with numpy's ordering: bfloat16 widened to float32 (exact)."""
    return a.astype(np.float32) if a.dtype == _dt.bfloat16.np else a


def stable_argsort(keys: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices of a stable sort along ``axis``; descending keeps ties in order and puts NaNs first."""
    if not descending:
        return np.argsort(keys, axis=axis, kind="stable")
    idx = np.argsort(np.flip(keys, axis=axis), axis=axis, kind="stable")
    return (keys.shape[axis] - 1) - np.flip(idx, axis=axis)


def _select_indices(keys: np.ndarray, k: int, axis: int, largest: bool) -> np.ndarray:
    """Indices of the ``k`` largest (smallest) keys along ``axis`` in stable sorted order.

    For small ``k`` a partition picks the candidates first (O(n)); only they are sorted."""
    n = keys.shape[axis]
    if k * 64 > n:
        idx = stable_argsort(keys, axis, largest)
        return idx[(slice(None),) * axis + (slice(0, k),)]
    part = np.argpartition(keys, n - k if largest else k - 1, axis=axis)
    cand = part[(slice(None),) * axis + (slice(n - k, n) if largest else slice(0, k),)]
    cand = np.sort(cand, axis=axis)  # index order, so equal keys stay in index order below
    order = stable_argsort(np.take_along_axis(keys, cand, axis=axis), axis, largest)
    return np.take_along_axis(cand, order, axis=axis)


def _like_strides(self: TensorImpl):
    """``empty_like``'s preserve_format: keep a dense input's strides, else row-major."""
    if _shape.is_non_overlapping_and_dense(self.sizes, self.strides):
        return self.strides
    return None


# -- sort / topk / kthvalue ----------------------------------------------------------------------------------
def sort_stable_out(self: TensorImpl, stable, dim=-1, descending=False, values=None, indices=None):
    """Values and int64 indices sorted along ``dim`` (always stable; see the module note)."""
    if self.dtype.is_complex:
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    d = _shape.wrap_dim(dim, self.ndim)
    strides = _like_strides(self)
    values = set_output(values, self.sizes, self.dtype, self.device, strides)
    indices = set_output(indices, self.sizes, _dt.int64, self.device, strides)
    if is_meta(self, values, indices) or self.numel() == 0:
        return values, indices
    if self.dtype in _dt.FLOAT8_DTYPES:
        raise not_implemented("sorting_kernel_method_name", self.dtype)
    check_outputs_writable(values, indices)  # values.copy_(self), then sort_stub's iterator
    a = self.as_numpy()
    if self.ndim == 0:
        values.as_numpy()[()] = a[()]
        indices.as_numpy()[()] = 0
        return values, indices
    idx = None if stable else _introsort_indices(a, d, descending)
    if idx is None:
        idx = stable_argsort(_keys(a), d, descending)
    sorted_values = np.take_along_axis(a, idx, axis=d)
    np.copyto(values.as_numpy(), sorted_values)
    np.copyto(indices.as_numpy(), idx)
    return values, indices


# dtypes whose unstable CPU sort is std::sort (the others take x86-simd-sort; uint64 keys would not fit a double)
_STD_SORT = frozenset(np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.float16)
                      ) | {np.dtype(_dt.bfloat16.np)}
_RADIX_MIN = 32768  # fbgemm's radix sort (stable) takes 1-d ascending integer sorts from GRAIN_SIZE elements


def _rows(a: np.ndarray, d: int):
    """float64 keys with ``d`` last, as a C-contiguous ``(rows, n)`` block, and its fresh 0..n-1 indices."""
    keys = np.moveaxis(a, d, -1).astype(np.float64, order="C")  # always a copy: sorted in place
    flat = keys.reshape(-1, keys.shape[-1])
    idx = np.ascontiguousarray(np.broadcast_to(np.arange(flat.shape[1], dtype=np.int64), flat.shape))
    return keys.shape, flat, idx


def _topk_indices(a: np.ndarray, k: int, d: int, largest: bool, sorted: bool):
    """torch's ``topk`` indices (``topk_impl_loop``'s partial_sort / nth_element, see ``introsort.py``), or None
    where the keys do not fit a double exactly or the C library is unavailable."""
    if a.dtype.kind in "iu" and a.dtype.itemsize == 8 and a.size and np.abs(a).max() >= 2 ** 53:
        return None
    shape, flat, idx = _rows(a, d)
    if not _introsort.topk_rows(flat, idx, k, largest, sorted):
        return None
    return np.moveaxis(idx.reshape(shape)[..., :k], -1, d)


def _introsort_indices(a: np.ndarray, d: int, descending: bool):
    """torch's ``stable=False`` order for the dtypes its CPU kernel hands to ``std::sort`` (see
    ``introsort.py``), or None where that is the stable order or the C library is unavailable."""
    if a.dtype not in _STD_SORT or a.shape[d] <= 1:
        return None
    if a.ndim == 1 and not descending and a.dtype.kind in "iu" and a.size >= _RADIX_MIN:
        return None
    shape, flat, idx = _rows(a, d)
    if not _introsort.introsort_rows(flat, idx, descending):
        return None
    return np.moveaxis(idx.reshape(shape), -1, d)


def sort(self: TensorImpl, dim=-1, descending=False):
    """The unstable ``sort`` overload: ``sort.stable`` with ``stable=False`` (CompositeExplicitAutograd)."""
    return aten.sort_stable(self, False, dim, descending)


def sort_out(self: TensorImpl, dim=-1, descending=False, values=None, indices=None):
    return aten.sort_values_stable(self, False, dim, descending, values, indices)


def topk_out(self: TensorImpl, k, dim=-1, largest=True, sorted=True, values=None, indices=None):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices, sorted."""
    d = _shape.wrap_dim(dim, self.ndim)
    size = self.sizes[d] if self.ndim else 1
    if k < 0 or k > size:
        raise RuntimeError("selected index k out of range")
    shape = self.sizes[:d] + (k,) + self.sizes[d + 1:] if self.ndim else ()
    if _dt.is_barebones(self.dtype) and self.storage._data is not None:
        raise not_implemented("topk_cpu", self.dtype)
    values = set_output(values, shape, self.dtype, self.device)
    indices = set_output(indices, shape, _dt.int64, self.device)
    if is_meta(self, values, indices):
        return values, indices
    if self.dtype is _dt.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if self.dtype.is_complex:
        raise RuntimeError(" topk does not support complex dtypes on CPU")
    if values.numel() == 0:
        return values, indices
    check_outputs_writable(values, indices)  # topk_stub's iterator
    a = self.as_numpy()
    if self.ndim == 0:
        values.as_numpy()[()] = a[()]
        indices.as_numpy()[()] = 0
        return values, indices
    idx = _topk_indices(a, k, d, largest, sorted)
    if idx is None:
        idx = _select_indices(_keys(a), k, d, largest)
    np.copyto(values.as_numpy(), np.take_along_axis(a, idx, axis=d))
    np.copyto(indices.as_numpy(), idx)
    return values, indices


def kthvalue_out(self: TensorImpl, k, dim=-1, keepdim=False, values=None, indices=None):
    """The ``k``-th smallest value along ``dim`` (1-based) and its index."""
    d = _shape.wrap_dim(dim, self.ndim)
    size = self.sizes[d] if self.ndim else 1
    if self.ndim and size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if values.dtype is not self.dtype:
        raise RuntimeError("output values must be of same type as input")
    if indices.dtype is not _dt.int64:
        raise RuntimeError("output indices must be of scalar type Long")
    shape = reduced_shape(self.sizes, (d,), keepdim) if self.ndim else ()
    resize_out(values, shape)
    resize_out(indices, shape)
    if is_meta(self, values, indices):
        return values, indices
    if self.dtype is _dt.bool or self.dtype.is_complex or _dt.is_barebones(self.dtype):
        raise not_implemented("kthvalue_cpu", self.dtype)
    check_outputs_writable(values, indices)
    for out in (values, indices):
        check_no_partial_overlap(out, self, allow_same=False)
    a = self.as_numpy()
    if self.ndim == 0:
        values.as_numpy()[()] = a[()]
        indices.as_numpy()[()] = 0
        return values, indices
    idx = _kth_indices(_keys(a), k, d)
    v = np.take_along_axis(a, idx, axis=d)
    if not keepdim:
        idx, v = np.squeeze(idx, axis=d), np.squeeze(v, axis=d)
    np.copyto(values.as_numpy(), v)
    np.copyto(indices.as_numpy(), idx)
    return values, indices


def _kth_indices(keys: np.ndarray, k: int, d: int) -> np.ndarray:
    """Positions of the ``k``-th smallest keys along ``d`` (kept as a size-1 dim), ties resolved by PyTorch's
    quickselect when the C library is there, else by a stable order (an O(n) partition for long rows)."""
    rows = np.moveaxis(keys, d, -1)
    picked = _quickselect.select_indices(rows.reshape(-1, rows.shape[-1]), k - 1)
    if picked is not None:
        return np.moveaxis(picked.reshape(rows.shape[:-1] + (1,)), -1, d)
    if keys.shape[d] > 64:
        return np.take(np.argpartition(keys, k - 1, axis=d), [k - 1], axis=d)
    return np.take(stable_argsort(keys, d, False), [k - 1], axis=d)


def kthvalue(self: TensorImpl, k, dim=-1, keepdim=False):
    """``kthvalue.values`` into fresh outputs (CompositeExplicitAutograd)."""
    values = _empty((0,), self.dtype, self.device)
    indices = _empty((0,), _dt.int64, self.device)
    return aten.kthvalue_values(self, k, dim, keepdim, values, indices)


# -- cummax / cummin -----------------------------------------------------------------------------------------
def _cumulative_extreme(name, running, self, dim, values, indices):
    """``cummax`` / ``cummin``: the running extreme along ``dim`` and the last index that attained it (PyTorch's
    ``>=`` / ``<=`` update: a tie moves the index; a NaN is kept once seen, each later NaN moves the index)."""
    if self.ndim == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    d = _shape.wrap_dim(dim, self.ndim) if self.ndim else 0
    for out, dt in ((values, self.dtype), (indices, _dt.int64)):
        if out.dtype is not dt:
            raise RuntimeError(f"expected scalar_type {_dt.name_of(dt)} but found {_dt.name_of(out.dtype)}")
    resize_out(values, self.sizes)
    resize_out(indices, self.sizes)
    if is_meta(self, values, indices):
        return values, indices
    if self.dtype.is_complex:
        raise not_implemented(f"{name}_cpu", self.dtype)
    if not self.numel():
        return values, indices
    a = np.moveaxis(np.atleast_1d(self.as_numpy()), d, -1)
    keys = _keys(a)
    hit = keys == running.accumulate(keys, axis=-1)  # a new (or tied) extreme at this position
    if keys.dtype.kind == "f":
        hit |= np.isnan(keys)
    pos = np.maximum.accumulate(np.where(hit, np.arange(a.shape[-1]), 0), axis=-1)
    v = np.take_along_axis(a, pos, axis=-1)
    np.copyto(values.as_numpy(), np.moveaxis(v, -1, d).reshape(self.sizes))
    np.copyto(indices.as_numpy(), np.moveaxis(pos, -1, d).reshape(self.sizes))
    return values, indices


def cummax_out(self, dim, values, indices):
    return _cumulative_extreme("cummax", np.maximum, self, dim, values, indices)


def cummin_out(self, dim, values, indices):
    return _cumulative_extreme("cummin", np.minimum, self, dim, values, indices)


def cummax(self, dim):
    """``cummax.out`` into fresh contiguous outputs (CompositeExplicitAutograd)."""
    return aten.cummax_out(self, dim, _empty(self.sizes, self.dtype, self.device),
                           _empty(self.sizes, _dt.int64, self.device))


def cummin(self, dim):
    return aten.cummin_out(self, dim, _empty(self.sizes, self.dtype, self.device),
                           _empty(self.sizes, _dt.int64, self.device))


# -- median / nanmedian ----------------------------------------------------------------------------------------
def _lower_median(a: np.ndarray, ignore_nan: bool):
    """(values, indices) of the lower median along the last axis: the ``(n - 1) // 2``-th in sorted order; a slice
    with a NaN gives NaN at its first NaN (median), or NaNs are left out (nanmedian; all NaN: NaN at index 0)."""
    keys = _keys(a)
    order = stable_argsort(keys, -1, False)  # NaNs sort last
    nans = np.isnan(keys) if keys.dtype.kind == "f" else np.zeros(keys.shape, bool)
    n = a.shape[-1]
    m = n - nans.sum(-1) if ignore_nan else np.full(a.shape[:-1], n)
    k = (np.where(m > 0, m, n) - 1) // 2  # an all-NaN slice: the middle NaN, as torch's selection leaves them
    idx = np.take_along_axis(order, k[..., None], axis=-1)[..., 0]
    if not ignore_nan:
        idx = np.where(nans.any(-1), np.argmax(nans, axis=-1), idx)
    return np.take_along_axis(a, idx[..., None], axis=-1)[..., 0], idx


def _check_median_dtype(kernel, self):
    """PyTorch names its median kernels for both medians: ``median_cpu`` (all elements), ``median_out`` (a dim)."""
    if self.dtype is _dt.bool or self.dtype.is_complex or _dt.is_barebones(self.dtype):
        raise not_implemented(kernel, self.dtype)


def _median_all(self, ignore_nan):
    _check_median_dtype("median_cpu", self)
    out = _empty((), self.dtype, self.device)
    if is_meta(self):
        return out
    flat = self.as_numpy().reshape(-1)
    if flat.size == 0:  # NaN, converted as C++ converts it (integer dtypes: the x86 conversion's result)
        with np.errstate(invalid="ignore"):
            out.as_numpy()[()] = np.array(np.nan).astype(self.dtype.np)
    else:
        out.as_numpy()[()] = _lower_median(flat, ignore_nan)[0]
    return out


def median_all(self):
    """``median()``: the lower median of all elements (NaN if any is NaN; NaN when empty)."""
    return _median_all(self, False)


def nanmedian_all(self):
    return _median_all(self, True)


def _median_dim_out(self, dim, keepdim, values, indices, ignore_nan):
    """median.dim_values / nanmedian.dim_values (PyTorch's messages say median for both)."""
    d = _shape.wrap_dim(dim, self.ndim)
    if values.dtype is not self.dtype:
        raise RuntimeError(f"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but "
                           f"type torch.{values.dtype._tensor_type} does not equal torch.{self.dtype._tensor_type} "
                           "(while checking arguments for median)")
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                           f"torch.{indices.dtype._tensor_type} instead (while checking arguments for median)")
    if self.ndim and self.sizes[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    shape = reduced_shape(self.sizes, (d,), keepdim) if self.ndim else ()
    resize_out(values, shape)
    resize_out(indices, shape)
    if is_meta(self, values, indices):
        return values, indices
    _check_median_dtype("median_out", self)
    check_outputs_writable(values, indices)
    a = self.as_numpy()
    if self.ndim == 0:
        values.as_numpy()[()], indices.as_numpy()[()] = a[()], 0
        return values, indices
    v, idx = _lower_median(np.moveaxis(a, d, -1), ignore_nan)
    if keepdim:
        v, idx = np.expand_dims(v, d), np.expand_dims(idx, d)
    np.copyto(values.as_numpy(), v)
    np.copyto(indices.as_numpy(), idx)
    return values, indices


def median_dim_out(self, dim, keepdim=False, values=None, indices=None):
    """``median.dim_values``: the lower median along ``dim`` and its index."""
    return _median_dim_out(self, dim, keepdim, values, indices, False)


def nanmedian_dim_out(self, dim, keepdim=False, values=None, indices=None):
    return _median_dim_out(self, dim, keepdim, values, indices, True)


def median_dim(self, dim, keepdim=False):
    """``median.dim_values`` into fresh outputs (CompositeExplicitAutograd)."""
    return aten.median_dim_values(self, dim, keepdim, _empty((0,), self.dtype, self.device),
                                  _empty((0,), _dt.int64, self.device))


def nanmedian_dim(self, dim, keepdim=False):
    return aten.nanmedian_dim_values(self, dim, keepdim, _empty((0,), self.dtype, self.device),
                                     _empty((0,), _dt.int64, self.device))


# -- mode --------------------------------------------------------------------------------------------------
def _mode_last_axis(a: np.ndarray):
    """(values, indices) of the most frequent value along the last axis: the smallest among equally frequent ones,
    at its last position (PyTorch's sorted scan; how NaNs group is implementation-defined there)."""
    keys = _keys(a)
    order = stable_argsort(keys, -1, False)  # equal values keep their positions' order
    sv = np.take_along_axis(keys, order, axis=-1)
    n = a.shape[-1]
    change = sv[..., 1:] != sv[..., :-1]
    pad = np.ones(a.shape[:-1] + (1,), bool)
    starts, ends = np.concatenate([pad, change], -1), np.concatenate([change, pad], -1)
    pos = np.arange(n)
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=-1)
    run = np.where(ends, pos - first + 1, -1)  # a run's length, at its last element
    last = np.argmax(run, axis=-1)[..., None]  # the first longest run: the smallest value
    idx = np.take_along_axis(order, last, axis=-1)
    return np.take_along_axis(a, idx, axis=-1)[..., 0], idx[..., 0]


def mode_out(self, dim=-1, keepdim=False, values=None, indices=None):
    """``mode.values``: the most frequent value along ``dim`` and its (last) index."""
    d = _shape.wrap_dim(dim, self.ndim)
    for out, dt, what in ((values, self.dtype, "values"), (indices, _dt.int64, "indices")):
        if out.dtype is not dt:
            raise RuntimeError(f"expected scalar type '{_dt.name_of(dt)}' but got '{_dt.name_of(out.dtype)}' for "
                               f"{what} output")
    if self.ndim and self.sizes[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    shape = reduced_shape(self.sizes, (d,), keepdim) if self.ndim else ()
    resize_out(values, shape)
    resize_out(indices, shape)
    if is_meta(self, values, indices):
        return values, indices
    if self.dtype.is_complex:
        raise not_implemented("mode_cpu", self.dtype)
    check_outputs_writable(values, indices)
    a = self.as_numpy()
    if self.ndim == 0:
        values.as_numpy()[()], indices.as_numpy()[()] = a[()], 0
        return values, indices
    v, idx = _mode_last_axis(np.moveaxis(a, d, -1))
    if keepdim:
        v, idx = np.expand_dims(v, d), np.expand_dims(idx, d)
    np.copyto(values.as_numpy(), v)
    np.copyto(indices.as_numpy(), idx)
    return values, indices


def mode(self, dim=-1, keepdim=False):
    """``mode.values`` into fresh outputs (CompositeExplicitAutograd)."""
    return aten.mode_values(self, dim, keepdim, _empty((0,), self.dtype, self.device),
                            _empty((0,), _dt.int64, self.device))


# -- unique --------------------------------------------------------------------------------------------------
def _flat_groups(flat: np.ndarray, consecutive: bool):
    """(order, first-of-group mask) of a 1-d array: sorted groups, or runs of equal neighbours."""
    if consecutive:
        order, s = None, flat
    else:
        order = np.argsort(_keys(flat), kind="stable")
        s = flat[order]
    mask = np.empty(flat.shape[0], dtype=bool)
    mask[:1] = True
    np.not_equal(s[1:], s[:-1], out=mask[1:])  # NaN != NaN: every NaN is its own value, as in PyTorch
    return order, mask


def _unique_flat(self: TensorImpl, consecutive, return_inverse, return_counts):
    if self.dtype.is_complex or self.dtype in _dt.FLOAT8_DTYPES:
        raise not_implemented("unique", self.dtype)
    long, dev = _dt.int64, self.device
    flat = np.ascontiguousarray(self.as_numpy()).reshape(-1)
    n = flat.shape[0]
    order, mask = _flat_groups(flat, consecutive)
    picked = flat if order is None else flat[order]
    output = picked[mask]
    out = _empty(output.shape, self.dtype, dev)
    np.copyto(out.as_numpy(), output)
    inverse = _empty(self.sizes if return_inverse else (0,), long, dev)
    if return_inverse and n:
        group = np.cumsum(mask) - 1
        inv = inverse.as_numpy().reshape(-1)
        if order is None:
            inv[:] = group
        else:
            inv[order] = group
    counts = _empty((output.shape[0],) if return_counts else (0,), long, dev)
    if return_counts and n:
        starts = np.flatnonzero(mask)
        np.copyto(counts.as_numpy(), np.diff(np.append(starts, n)))
    return out, inverse, counts


def _unique_along(self: TensorImpl, dim, consecutive):
    """unique slices along ``dim`` (PyTorch's ``_unique_dim_cpu_template``): inverse and counts always."""
    if self.dtype.is_complex:
        raise not_implemented("unique_dim", self.dtype)
    d = _shape.wrap_dim(dim, self.ndim, wrap_scalar=False)
    long, dev = _dt.int64, self.device
    zeros = sum(1 for s in self.sizes if s == 0)
    if self.sizes[d] == 0:
        if zeros != 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
        return _empty(self.sizes, self.dtype, dev), _empty((0,), long, dev), _empty((0,), long, dev)
    if zeros:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    moved = np.moveaxis(self.as_numpy(), d, 0)
    rows = moved.reshape(moved.shape[0], -1)
    keys = _keys(rows)
    order = None if consecutive else np.lexsort(keys.T[::-1])
    s = keys if order is None else keys[order]
    mask = np.empty(rows.shape[0], dtype=bool)
    mask[:1] = True
    np.any(s[1:] != s[:-1], axis=1, out=mask[1:])
    picked = (rows if order is None else rows[order])[mask]
    moved_shape = (picked.shape[0],) + moved.shape[1:]
    uniq = np.moveaxis(picked.reshape(moved_shape), 0, d)
    cs = _shape.contiguous_strides(moved_shape)  # PyTorch's result is the moved-dim buffer, moved back
    out = _empty(uniq.shape, self.dtype, dev, cs[1:d + 1] + cs[:1] + cs[d + 1:])
    np.copyto(out.as_numpy(), uniq)
    group = np.cumsum(mask) - 1
    inverse = _empty((rows.shape[0],), long, dev)
    inv = inverse.as_numpy()
    if order is None:
        inv[:] = group
    else:
        inv[order] = group
    counts = _empty((picked.shape[0],), long, dev)
    np.copyto(counts.as_numpy(), np.diff(np.append(np.flatnonzero(mask), rows.shape[0])))
    return out, inverse, counts


def unique_cpu(self: TensorImpl, sorted=True, return_inverse=False):
    """``torch._unique``: the sorted distinct values (PyTorch's CPU kernel sorts either way) and the inverse
    indices, empty unless requested."""
    out, inverse, _ = _unique_flat(self, False, return_inverse, False)
    return out, inverse


def unique2_cpu(self: TensorImpl, sorted=True, return_inverse=False, return_counts=False):
    """``torch._unique2``: the sorted distinct values; inverse/counts are empty unless requested."""
    return _unique_flat(self, False, return_inverse, return_counts)


def unique_dim_cpu(self: TensorImpl, dim, sorted=True, return_inverse=False, return_counts=False):
    return _unique_along(self, dim, False)


def unique_consecutive_cpu(self: TensorImpl, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal values (or equal slices along ``dim``)."""
    if dim is None or (dim == 0 and self.ndim == 1):
        return _unique_flat(self, True, return_inverse, return_counts)
    return _unique_along(self, dim, True)


# -- searchsorted / bucketize --------------------------------------------------------------------------------
def _warn_once(what: str) -> None:
    warn_once(f"torch.searchsorted(): {what} tensor is non-contiguous, this will lower the performance due to "
              f"extra data copy when converting non-contiguous tensor to contiguous, please use contiguous "
              f"{what} tensor if possible. This message will only appear once per program.")


def _dims_match_before_last(boundaries: TensorImpl, input_sizes) -> bool:
    return boundaries.ndim == len(input_sizes) and boundaries.sizes[:-1] == tuple(input_sizes[:-1])


def _pre_check(boundaries, input_sizes, input_numel, result_dtype, out_int32, right, side, sorter) -> None:
    """PyTorch's ``searchsorted_pre_check``, message for message."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side != "right":
            raise RuntimeError(f"torch.searchsorted(): side and right can't be set to opposites, got side of {side} "
                               "while right was True")
    if sorter is not None:
        if sorter.sizes != boundaries.sizes:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {_fmt(boundaries.sizes)}and got sorter tensor {_fmt(sorter.sizes)}")
        if sorter.dtype is not _dt.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{sorter.dtype._short}")
        if not is_meta(sorter) and sorter.numel():
            s = sorter.as_numpy()
            if s.max() >= sorter.sizes[-1] or s.min() < 0:
                raise RuntimeError("torch.searchsorted(): sorter index out of range")
    ndim = len(input_sizes)
    if not (ndim > 0 or (input_numel == 1 and boundaries.ndim == 1)):
        raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                           f"is 1, but we got boundaries tensor dim({boundaries.ndim}) and input value's dim({ndim}) "
                           f"numel({input_numel})")
    if boundaries.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if not (boundaries.ndim == 1 or _dims_match_before_last(boundaries, input_sizes)):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got boundaries "
                           f"tensor {_fmt(boundaries.sizes)} and input value tensor {_fmt(input_sizes)}")
    if not ((result_dtype is _dt.int64 and not out_int32) or (result_dtype is _dt.int32 and out_int32)):
        raise RuntimeError(f"torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                           f"Long(int64) depending on whether out_int32 flag is True, but we got output tensor's dtype "
                           f"{result_dtype._short} and out_int32 flag is {'True' if out_int32 else 'False'}")


def _searchsorted(boundaries, value, out_int32, right, side, sorter, out):
    """``value``: a TensorImpl, or a Python scalar (a wrapped number: PyTorch's Scalar overloads)."""
    is_tensor = type(value) is TensorImpl
    sizes, numel = (value.sizes, value.numel()) if is_tensor else ((), 1)
    if out is None:
        out = _empty((0,), _dt.int32 if out_int32 else _dt.int64, boundaries.device)
    _pre_check(boundaries, sizes, numel, out.dtype, out_int32, right, side, sorter)
    resize_out(out, sizes)
    if numel == 0 or is_meta(boundaries, out, value if is_tensor else None):
        return out
    check_outputs_writable(out)
    is_right = side == "right" if side is not None else right
    for what, t in (("input value", value), ("boundary", boundaries), ("sorter", sorter)):
        if type(t) is TensorImpl and not t.is_contiguous():
            _warn_once(what)
    common = common_dtype([boundaries, value])
    if common is _dt.bool or common.is_complex:
        raise not_implemented("searchsorted_out_cpu", common)
    npdt = np.float32 if common is _dt.bfloat16 else common.np
    bd = boundaries.as_numpy().astype(npdt, copy=False)
    if sorter is not None:
        bd = np.take_along_axis(bd, sorter.as_numpy(), axis=-1)
    vals = (value.as_numpy() if is_tensor else np.asarray(value)).astype(npdt, copy=False)
    res = out.as_numpy()
    if bd.ndim == 1 and not (bd.dtype.kind == "f" and np.isnan(bd).any()):
        np.copyto(res, np.searchsorted(bd, vals, side="right" if is_right else "left"), casting="unsafe")
        return out
    rows_b = bd.reshape(-1, bd.shape[-1])
    rows_v = vals.reshape(rows_b.shape[0], -1)
    np.copyto(res, _binary_search(rows_b, rows_v, is_right).reshape(res.shape), casting="unsafe")
    return out


def _binary_search(bd: np.ndarray, vals: np.ndarray, right: bool) -> np.ndarray:
    """PyTorch's ``cus_lower_bound``/``cus_upper_bound`` for every value at once (rows of ``bd`` pair with rows
    of ``vals``).  Its raw comparisons differ from numpy's NaN-last order when the boundaries hold NaNs."""
    n = bd.shape[1]
    lo = np.zeros(vals.shape, dtype=np.int64)
    hi = np.full(vals.shape, n, dtype=np.int64)
    rows = np.arange(bd.shape[0])[:, None]
    with np.errstate(invalid="ignore"):
        while True:
            active = lo < hi
            if not active.any():
                return lo
            mid = (lo + hi) >> 1
            mid_val = bd[rows, np.minimum(mid, n - 1)]
            go_right = ~(mid_val > vals) if right else ~(mid_val >= vals)
            lo = np.where(active & go_right, mid + 1, lo)
            hi = np.where(active & ~go_right, mid, hi)


def searchsorted_cpu(sorted_sequence, self, out_int32=False, right=False, side=None, sorter=None):
    """Indices where ``self``'s values would be inserted into each innermost row of ``sorted_sequence``."""
    if _dt.is_barebones(self.dtype):
        raise not_implemented("searchsorted_out_cpu", self.dtype)
    return _searchsorted(sorted_sequence, self, out_int32, right, side, sorter, None)


def searchsorted_out_cpu(sorted_sequence, self, out_int32=False, right=False, side=None, sorter=None, out=None):
    return _searchsorted(sorted_sequence, self, out_int32, right, side, sorter, out)


def searchsorted_scalar_cpu(sorted_sequence, self, out_int32=False, right=False, side=None, sorter=None):
    return _searchsorted(sorted_sequence, self, out_int32, right, side, sorter, None)


def searchsorted_scalar_out_cpu(sorted_sequence, self, out_int32=False, right=False, side=None, sorter=None,
                                out=None):
    return _searchsorted(sorted_sequence, self, out_int32, right, side, sorter, out)


def _check_boundaries(boundaries: TensorImpl) -> None:
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")


def bucketize_cpu(self, boundaries, out_int32=False, right=False):
    """The bucket of each value of ``self`` among the 1-d sorted ``boundaries``."""
    _check_boundaries(boundaries)
    return _searchsorted(boundaries, self, out_int32, right, None, None, None)


def bucketize_out_cpu(self, boundaries, out_int32=False, right=False, out=None):
    _check_boundaries(boundaries)
    return _searchsorted(boundaries, self, out_int32, right, None, None, out)


def bucketize_scalar_cpu(self, boundaries, out_int32=False, right=False):
    _check_boundaries(boundaries)
    return _searchsorted(boundaries, self, out_int32, right, None, None, None)


# -- nonzero -------------------------------------------------------------------------------------------------
def _nonzero_coords(self: TensorImpl):
    a = self.as_numpy()
    if a.dtype.names:  # complex32's (real, imag) float16 pairs: nonzero when either part is
        a = (a["real"] != 0) | (a["imag"] != 0)
    if self.ndim == 0:
        return (), 1 if a[()] != 0 else 0
    coords = np.nonzero(a != 0)  # NaN counts as nonzero
    return coords, coords[0].shape[0]


def _write_coords(out: TensorImpl, coords) -> None:
    o = out.as_numpy()
    for d, c in enumerate(coords):
        o[:, d] = c


def nonzero_cpu(self: TensorImpl) -> TensorImpl:
    """The (n, ndim) int64 coordinates of the nonzero elements, in row-major order (column-major storage)."""
    if _dt.is_barebones(self.dtype):
        raise not_implemented("nonzero_count_cpu", self.dtype)
    coords, n = _nonzero_coords(self)
    out = empty_strided_impl((n, self.ndim), (1, n), _dt.int64, self.device)
    _write_coords(out, coords)
    return out


def nonzero_out_cpu(self: TensorImpl, out: TensorImpl) -> TensorImpl:
    if out.dtype is not _dt.int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                           f"{out.dtype._short}")
    check_outputs_writable(out)
    coords, n = _nonzero_coords(self)
    shape = (n, self.ndim)
    if out.sizes != shape:
        resize_out(out, shape)
        out.set_geometry(shape, (1, n), out.offset)
    _write_coords(out, coords)
    return out


def _nonzero_static(self, size, fill_value, out):
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    coords, n = _nonzero_coords(self)
    shape = (size, self.ndim)
    if out is None:
        out = _empty(shape, _dt.int64, self.device)
    else:
        if out.dtype is not _dt.int64:
            raise RuntimeError(f"nonzero_static: Expected out tensor to have scalar type Long but got scalar type"
                               f"{out.dtype._short}")
        resize_out(out, shape)
    o = out.as_numpy()
    o.fill(fill_value)
    m = min(n, size)
    for d, c in enumerate(coords):
        o[:m, d] = c[:m]
    return out


def nonzero_static_cpu(self: TensorImpl, size, fill_value=-1) -> TensorImpl:
    """``nonzero`` padded (with ``fill_value``) or truncated to exactly ``size`` rows."""
    return _nonzero_static(self, size, fill_value, None)


def nonzero_static_out_cpu(self: TensorImpl, size, fill_value=-1, out=None) -> TensorImpl:
    return _nonzero_static(self, size, fill_value, out)
