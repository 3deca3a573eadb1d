"""PyTorch's CPU selection for ``kthvalue``: ``quick_select_template`` (``aten/src/ATen/native/SortingUtils.h``).

Which of several equal values ``kthvalue`` reports, and so its index, is decided by the exact swaps of PyTorch's
median-of-three quickselect (NaN ordered above everything).  This module runs that algorithm, in C, on each row
of a (rows, n) array of float64 or int64 keys and returns the selected original positions; the C library is
compiled once through ``glasstorch._cbuild``.  ``select_indices`` returns None when no compiler is available (the
caller falls back to a stable order, which agrees except among ties).

Invariant: the keys are only read; every row is selected on its own scratch copy.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

__all__ = ["select_indices"]

_SOURCE = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define GT_SELECT(NAME, T, GT)                                                                       \
void NAME(const T* keys, int64_t rows, int64_t n, int64_t k, int64_t* out) {                        \
    T* v = (T*)malloc(sizeof(T) * (n ? n : 1));                                                      \
    int64_t* ix = (int64_t*)malloc(sizeof(int64_t) * (n ? n : 1));                                   \
    for (int64_t r = 0; r < rows; r++) {                                                             \
        memcpy(v, keys + r * n, sizeof(T) * n);                                                      \
        for (int64_t t = 0; t < n; t++) ix[t] = t;                                                   \
        int64_t L = 0, R = n - 1, P, i, j;                                                           \
        T piv, tv; int64_t ti;                                                                       \
        for (;;) {                                                                                   \
            if (R <= L) break;                                                                       \
            if (R == L + 1) { if (GT(v[L], v[R])) { SWAP(L, R); } break; }                          \
            P = L + (R - L) / 2;                                                                     \
            SWAP(P, L + 1);                                                                          \
            if (GT(v[L + 1], v[R])) { SWAP(L + 1, R); }                                              \
            if (GT(v[L], v[R])) { SWAP(L, R); }                                                      \
            if (GT(v[L + 1], v[L])) { SWAP(L + 1, L); }                                              \
            i = L + 1; j = R; piv = v[L];                                                            \
            for (;;) {                                                                               \
                do i++; while (GT(piv, v[i]));                                                       \
                do j--; while (GT(v[j], piv));                                                       \
                if (j < i) break;                                                                    \
                SWAP(i, j);                                                                          \
            }                                                                                        \
            SWAP(L, j);                                                                              \
            if (j <= k) L = i;                                                                       \
            if (j >= k) R = j - 1;                                                                   \
        }                                                                                            \
        out[r] = ix[k];                                                                              \
    }                                                                                                \
    free(v); free(ix);                                                                               \
}

#define SWAP(a, b) do { int64_t a_ = (a), b_ = (b); tv = v[a_]; v[a_] = v[b_]; v[b_] = tv;                \
                        ti = ix[a_]; ix[a_] = ix[b_]; ix[b_] = ti; } while (0)
#define GT_F(x, y) ((isnan(x) && !isnan(y)) || ((x) > (y)))
#define GT_I(x, y) ((x) > (y))
GT_SELECT(gt_select_f64, double, GT_F)
GT_SELECT(gt_select_i64, int64_t, GT_I)
"""

_state: dict = {"lib": None, "tried": False}
_lock = threading.Lock()


def _lib():
    with _lock:
        if not _state["tried"]:
            _state["tried"] = True
            try:
                from .... import _cbuild  # the build helper sits at the package root, above the op layer

                lib = _cbuild.load(_SOURCE, name="quickselect")
                for fn in (lib.gt_select_f64, lib.gt_select_i64):
                    fn.restype = None
                    fn.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
                _state["lib"] = lib
            except RuntimeError:
                _state["lib"] = None
        return _state["lib"]


def select_indices(rows: np.ndarray, k: int):
    """The original position of the ``k``-th smallest (0-based) key of each row of ``rows`` (rows, n), as
    PyTorch's quickselect leaves it; None without a C compiler."""
    lib = _lib()
    if lib is None:
        return None
    floating = rows.dtype.kind in "fc"
    keys = np.ascontiguousarray(rows, dtype=np.float64 if floating else np.int64)
    out = np.empty(keys.shape[0], np.int64)
    fn = lib.gt_select_f64 if floating else lib.gt_select_i64
    fn(keys.ctypes.data, keys.shape[0], keys.shape[1], k, out.ctypes.data)
    return out
