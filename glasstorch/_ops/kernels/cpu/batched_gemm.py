"""Batched matmul of small matrices with the batch spread over the OpenMP team (``at::parallel_for`` over bmm's
batch in PyTorch's CPU kernel).

numpy's ``matmul`` runs a batch as a loop of BLAS calls, one matrix after another.  OpenBLAS splits one call
over threads only above ``m * n * k`` of 262144 (its ``SMP_THRESHOLD_MIN`` 65536 times the default
``GEMM_MULTITHREAD_THRESHOLD`` 4), so a batch of attention-sized products (64 x 32 x 64) runs on one core
however many threads are set.  Here a C loop, parallel over the batch, makes the same one-matrix BLAS call for
each matrix (``cblas_sgemm``/``cblas_dgemm`` of the OpenBLAS numpy loaded: same kernels, same numbers as
numpy's loop).  Larger matrices stay with numpy: OpenBLAS threads each of them itself.

Used by the eager matmul family (``linalg.py``) and the inductor's extern matmuls.  Falls back to ``np.matmul``
whenever a layout is not one BLAS call per matrix (a non-unit inner stride, broadcast batch dims), the dtype is
not float32/float64, one thread is set, or no compiler or CBLAS symbol is found.

Invariant: the result equals ``np.matmul(a, b, out=out)`` bit for bit (each matrix is the same BLAS call).
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from ...._device.threads import blas_functions, get_num_threads

__all__ = ["matmul", "available"]

_SMALL = 262144  # m * n * k below which OpenBLAS runs a call on one thread (see the module docstring)
_MAX_BATCH_DIMS = 8

_SOURCE = r"""
#include <stdint.h>
#include <omp.h>

typedef void (*gemm_s64)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *,
                         int64_t, float, float *, int64_t);
typedef void (*gemm_d64)(int, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t,
                         const double *, int64_t, double, double *, int64_t);

/* C[i] = A[i] @ B[i] for every batch index i (nd batch dims of sizes bsz, byte strides sa/sb/sc); row-major
   CBLAS (101), ta/tb: 111 no transpose, 112 transpose. */
void gt_bmm(void *fn, int dbl, int64_t nb, int nd, const int64_t *bsz, const int64_t *sa, const int64_t *sb,
            const int64_t *sc, const char *a, const char *b, char *c, int64_t m, int64_t n, int64_t k,
            int ta, int64_t lda, int tb, int64_t ldb, int64_t ldc, int nt) {
    #pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t i = 0; i < nb; i++) {
        int64_t r = i, oa = 0, ob = 0, oc = 0;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t j = r % bsz[d];
            r /= bsz[d];
            oa += j * sa[d]; ob += j * sb[d]; oc += j * sc[d];
        }
        if (dbl)
            ((gemm_d64)fn)(101, ta, tb, m, n, k, 1.0, (const double *)(a + oa), lda, (const double *)(b + ob), ldb,
                           0.0, (double *)(c + oc), ldc);
        else
            ((gemm_s64)fn)(101, ta, tb, m, n, k, 1.0f, (const float *)(a + oa), lda, (const float *)(b + ob), ldb,
                           0.0f, (float *)(c + oc), ldc);
    }
}
"""

_lock = threading.Lock()
_state: dict = {"tried": False, "fn": None, "gemm": {}}


def _load():
    with _lock:
        if _state["tried"]:
            return _state["fn"]
        _state["tried"] = True
        i64, vp = ctypes.c_int64, ctypes.c_void_p
        # ILP64 CBLAS only (numpy's scipy-openblas): the C loop passes 64-bit sizes
        for ch, names in (("f", ("scipy_cblas_sgemm64_", "cblas_sgemm64_")),
                          ("d", ("scipy_cblas_dgemm64_", "cblas_dgemm64_"))):
            found = blas_functions(names, argtypes=None)
            if found:
                _state["gemm"][ch] = ctypes.cast(found[0], vp).value
        if not _state["gemm"]:
            return None
        try:
            from .... import _cbuild
            lib = _cbuild.load(_SOURCE, openmp=True, name="batched_gemm")
        except RuntimeError:
            return None
        fn = lib.gt_bmm
        fn.argtypes = (vp, ctypes.c_int, i64, ctypes.c_int, vp, vp, vp, vp, vp, vp, vp, i64, i64, i64, ctypes.c_int,
                       i64, ctypes.c_int, i64, i64, ctypes.c_int)
        fn.restype = None
        _state["fn"] = fn
        return fn


def available() -> bool:
    """Whether the threaded batch loop can run here (compiler and an ILP64 CBLAS present)."""
    return (_state["fn"] if _state["tried"] else _load()) is not None


def _operand(strides, rows, cols, item):
    """(transpose code, leading dimension) of a (rows, cols) matrix with these byte strides, None when it is not
    one BLAS operand."""
    sr, sc = strides
    if sc == item and sr % item == 0 and sr // item >= max(1, cols):
        return 111, sr // item
    if sr == item and sc % item == 0 and sc // item >= max(1, rows):
        return 112, sc // item
    return None


def _threaded(a, b, out) -> bool:
    dt = out.dtype
    ch = dt.char
    if a.dtype != dt or b.dtype != dt or ch not in "fd" or not (a.ndim == b.ndim == out.ndim):
        return False
    batch = out.shape[:-2]
    m, n = out.shape[-2:]
    k = a.shape[-1]
    if a.shape[:-2] != batch or b.shape[:-2] != batch or m * n * k >= _SMALL or not m * n * k:
        return False
    nb = 1
    for s in batch:
        nb *= s
    if nb < 2 or len(batch) > _MAX_BATCH_DIMS or np.may_share_memory(out, a) or np.may_share_memory(out, b):
        return False  # an output over an input is numpy's case (it computes into a copy)
    fn = _state["fn"] if _state["tried"] else _load()
    gemm = _state["gemm"].get(ch)
    if fn is None or gemm is None:
        return False
    item = dt.itemsize
    pa = _operand(a.strides[-2:], m, k, item)
    pb = _operand(b.strides[-2:], k, n, item)
    if pa is None or pb is None or out.strides[-1] != item or out.strides[-2] < n * item or out.strides[-2] % item:
        return False
    nd = len(batch)
    arr = ctypes.c_int64 * nd
    fn(gemm, ch == "d", nb, nd, arr(*batch), arr(*a.strides[:-2]), arr(*b.strides[:-2]), arr(*out.strides[:-2]),
       a.ctypes.data, b.ctypes.data, out.ctypes.data, m, n, k, pa[0], pa[1], pb[0], pb[1],
       out.strides[-2] // item, min(get_num_threads(), nb))
    return True


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b, out=out)``, a batch of small matrices spread over the threads when it can be."""
    if out.ndim < 3 or get_num_threads() < 2 or not _threaded(a, b, out):
        np.matmul(a, b, out=out)
    return out
