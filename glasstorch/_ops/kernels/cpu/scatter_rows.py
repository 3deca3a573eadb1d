"""Row accumulation in C: ``out[index[i], :] += src[i, :]`` for ``index_add`` (and so the embedding backward),
and ``index_reduce``'s prod/amax/amin folds the same way.

PyTorch's CPU ``index_add_`` along a dimension with contiguous slices adds one source slice at a time, in index
order (``aten/src/ATen/native/TensorAdvancedIndexing.cpp``, ``index_add_cpu_``).  numpy's ``np.add.at`` does
the same arithmetic but costs ~3 µs a row; this loop does the same adds, in the same order, in compiled code.

Invariant: every element gets its additions in index order, one rounding each, exactly as a Python loop of
``out[idx] += src[j]`` would: results are bit-identical to ``np.add.at``.  Callers fall back to numpy when the
library is unavailable (no compiler, ``GLASSTORCH_DISABLE_CKERNELS=1``) or the layout does not fit.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ...._core import shape as _shape
from . import ckernels as _ckernels

_C_SOURCE = r"""
#include <stdint.h>
#define GT_ROWS(NAME, T) \
void NAME(T *out, int64_t out_row, const T *src, int64_t src_row, const int64_t *idx, int64_t n, int64_t inner) { \
    for (int64_t i = 0; i < n; i++) { \
        T *o = out + idx[i] * out_row; \
        const T *s = src + i * src_row; \
        for (int64_t j = 0; j < inner; j++) o[j] += s[j]; \
    } \
}
GT_ROWS(gt_index_add_rows_f, float)
GT_ROWS(gt_index_add_rows_d, double)
/* index_reduce's folds, element by element as numpy's scalar ufunc loops define them (a NaN operand wins; on
   a tie or -0/+0 the accumulator stays) */
#define GT_FOLD(NAME, T, EXPR) \
void NAME(T *out, int64_t out_row, const T *src, int64_t src_row, const int64_t *idx, int64_t n, int64_t inner) { \
    for (int64_t i = 0; i < n; i++) { \
        T *o = out + idx[i] * out_row; \
        const T *s = src + i * src_row; \
        for (int64_t j = 0; j < inner; j++) { const T a = o[j], b = s[j]; o[j] = (EXPR); } \
    } \
}
#define GT_FOLDS(CH, T) \
GT_FOLD(gt_index_prod_rows_##CH, T, a * b) \
GT_FOLD(gt_index_amax_rows_##CH, T, (a >= b || a != a) ? a : b) \
GT_FOLD(gt_index_amin_rows_##CH, T, (a <= b || a != a) ? a : b)
GT_FOLDS(f, float)
GT_FOLDS(d, double)
"""

def _bind(lib) -> dict:
    vp, i64 = ctypes.c_void_p, ctypes.c_int64
    fns = {}
    for ch, dt in (("f", np.float32), ("d", np.float64)):
        for op in ("add", "prod", "amax", "amin"):
            fn = getattr(lib, f"gt_index_{op}_rows_{ch}")
            fn.argtypes = (vp, i64, vp, i64, vp, i64, i64)
            fn.restype = None
            fns[(op, np.dtype(dt))] = fn
    return fns


_fns = _ckernels.LazyTable(_C_SOURCE, "scatter_rows", _bind)


def index_add_rows(arr: np.ndarray, idx: np.ndarray, src: np.ndarray) -> bool:
    """``arr[idx[i]] += src[i]`` over axis 0 when both have contiguous rows of one float dtype; False when the
    caller must do it another way (nothing is written then)."""
    return index_fold_rows("add", arr, idx, src)


def index_fold_rows(op: str, arr: np.ndarray, idx: np.ndarray, src: np.ndarray) -> bool:
    """``arr[idx[i]] = op(arr[idx[i]], src[i])`` over axis 0, in index order, for ``op`` one of add, prod, amax,
    amin (numpy's add, multiply, maximum, minimum); False when the layout or dtype does not fit (nothing is
    written then)."""
    fn = _fns.get((op, arr.dtype))
    if fn is None or src.dtype != arr.dtype or arr.ndim < 1 or src.shape[1:] != arr.shape[1:]:
        return False
    inner = 1
    for s in arr.shape[1:]:
        inner *= s
    out_row, src_row = _row_stride(arr, inner), _row_stride(src, inner)
    if out_row is None or src_row is None:
        return False
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    fn(arr.ctypes.data, out_row, src.ctypes.data, src_row, idx.ctypes.data, idx.shape[0], inner)
    return True


def _row_stride(a: np.ndarray, inner: int):
    """The element stride from one slice ``a[i]`` to the next when each is one dense C-ordered block, else None."""
    isz = a.itemsize
    if any(st % isz for st in a.strides):
        return None
    strides = [st // isz for st in a.strides]
    if not _shape.is_contiguous(a.shape[1:], strides[1:]):
        return None
    return strides[0] if a.shape[0] > 1 else inner
