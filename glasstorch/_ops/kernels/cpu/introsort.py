"""PyTorch's unstable CPU sort order: gcc's ``std::sort`` (introsort) on (value, index) pairs, in C.

``sort_kernel`` in ``aten/src/ATen/native/cpu/SortingKernel.cpp`` fills the indices 0..n-1 and, with
``stable=False``, runs ``std::sort`` over the pair of value and index arrays, comparing values only
(NaN counts as the largest, ``-0.0 == 0.0``) -- except int32/int64/float32/float64, which take
x86-simd-sort, and 1-d ascending integer tensors of at least 32768 elements, which take fbgemm's
(stable) radix sort.  torch's wheels are built with gcc, so the order of equal values is libstdc++'s
introsort: median-of-three pivot moved to the front, unguarded Hoare partition, recursion on the right part
while the left loops, a heap sort below a depth limit of ``2 floor(log2 n)``, and a final insertion sort
(the first 16 elements guarded, the rest unguarded).  This module reproduces that algorithm step for step
(own code, written from the algorithm), so ties come out in torch's order.

Invariant: :func:`introsort_rows` sorts each row of a C-contiguous ``(rows, n)`` float64 key array and its
int64 index array in place, exactly as ``std::sort`` on the composite would; False (nothing written) when the
library is unavailable (no compiler, ``GLASSTORCH_DISABLE_CKERNELS=1``).
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from . import ckernels as _ckernels

__all__ = ["introsort_rows", "topk_rows"]

_C_SOURCE = r"""
#include <stdint.h>
#include <math.h>

typedef struct { double *k; int64_t *v; int desc; } gt_seq;

/* the comparator of KeyValueCompAsc / KeyValueCompDesc on keys a, b */
static inline int gt_less(const gt_seq *s, double a, double b) {
    if (s->desc) return (isnan(a) && !isnan(b)) || a > b;
    return (!isnan(a) && isnan(b)) || a < b;
}
#define LESS(i, j) gt_less(s, s->k[i], s->k[j])
static inline void gt_swap(const gt_seq *s, int64_t i, int64_t j) {
    double tk = s->k[i]; s->k[i] = s->k[j]; s->k[j] = tk;
    int64_t tv = s->v[i]; s->v[i] = s->v[j]; s->v[j] = tv;
}

static void gt_push_heap(const gt_seq *s, int64_t first, int64_t hole, int64_t top, double vk, int64_t vv) {
    int64_t parent = (hole - 1) / 2;
    while (hole > top && gt_less(s, s->k[first + parent], vk)) {
        s->k[first + hole] = s->k[first + parent]; s->v[first + hole] = s->v[first + parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    s->k[first + hole] = vk; s->v[first + hole] = vv;
}

static void gt_adjust_heap(const gt_seq *s, int64_t first, int64_t hole, int64_t len, double vk, int64_t vv) {
    int64_t top = hole, child = hole;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (LESS(first + child, first + child - 1)) child--;
        s->k[first + hole] = s->k[first + child]; s->v[first + hole] = s->v[first + child];
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        s->k[first + hole] = s->k[first + child - 1]; s->v[first + hole] = s->v[first + child - 1];
        hole = child - 1;
    }
    gt_push_heap(s, first, hole, top, vk, vv);
}

static void gt_make_heap(const gt_seq *s, int64_t first, int64_t last) {
    int64_t len = last - first;
    if (len < 2) return;
    for (int64_t parent = (len - 2) / 2;; parent--) {
        gt_adjust_heap(s, first, parent, len, s->k[first + parent], s->v[first + parent]);
        if (parent == 0) return;
    }
}

/* move the heap's top to `result`, re-heap [first, last) with result's old element */
static void gt_pop_heap(const gt_seq *s, int64_t first, int64_t last, int64_t result) {
    double vk = s->k[result]; int64_t vv = s->v[result];
    s->k[result] = s->k[first]; s->v[result] = s->v[first];
    gt_adjust_heap(s, first, 0, last - first, vk, vv);
}

static void gt_sort_heap(const gt_seq *s, int64_t first, int64_t last) {
    while (last - first > 1) { --last; gt_pop_heap(s, first, last, last); }
}

/* the `middle - first` smallest of [first, last) into a heap on [first, middle) */
static void gt_heap_select(const gt_seq *s, int64_t first, int64_t middle, int64_t last) {
    gt_make_heap(s, first, middle);
    for (int64_t i = middle; i < last; ++i)
        if (LESS(i, first)) gt_pop_heap(s, first, middle, i);
}

static void gt_heap_sort(const gt_seq *s, int64_t first, int64_t last) {
    gt_heap_select(s, first, last, last);
    gt_sort_heap(s, first, last);
}

static void gt_median_to_first(const gt_seq *s, int64_t r, int64_t a, int64_t b, int64_t c) {
    if (LESS(a, b)) {
        if (LESS(b, c)) gt_swap(s, r, b);
        else if (LESS(a, c)) gt_swap(s, r, c);
        else gt_swap(s, r, a);
    } else if (LESS(a, c)) gt_swap(s, r, a);
    else if (LESS(b, c)) gt_swap(s, r, c);
    else gt_swap(s, r, b);
}

/* median of three to `first`, then the unguarded partition around it: the cut */
static int64_t gt_partition_pivot(const gt_seq *s, int64_t first, int64_t last) {
    gt_median_to_first(s, first, first + 1, first + (last - first) / 2, last - 1);
    int64_t lo = first + 1, hi = last;
    for (;;) {
        while (LESS(lo, first)) ++lo;
        --hi;
        while (LESS(first, hi)) --hi;
        if (!(lo < hi)) return lo;
        gt_swap(s, lo, hi);
        ++lo;
    }
}

static void gt_introsort_loop(const gt_seq *s, int64_t first, int64_t last, int64_t depth) {
    while (last - first > 16) {
        if (depth == 0) { gt_heap_sort(s, first, last); return; }
        --depth;
        int64_t cut = gt_partition_pivot(s, first, last);
        gt_introsort_loop(s, cut, last, depth);
        last = cut;
    }
}

static int64_t gt_lg(int64_t n) {
    int64_t lg = 0;
    for (; n > 1; n >>= 1) lg++;
    return lg;
}

static void gt_linear_insert(const gt_seq *s, int64_t i) {
    double vk = s->k[i]; int64_t vv = s->v[i];
    int64_t j = i - 1;
    while (gt_less(s, vk, s->k[j])) { s->k[i] = s->k[j]; s->v[i] = s->v[j]; i = j; --j; }
    s->k[i] = vk; s->v[i] = vv;
}

static void gt_insertion_sort(const gt_seq *s, int64_t first, int64_t last) {
    if (first == last) return;
    for (int64_t i = first + 1; i != last; ++i) {
        if (LESS(i, first)) {
            double vk = s->k[i]; int64_t vv = s->v[i];
            for (int64_t j = i; j > first; --j) { s->k[j] = s->k[j - 1]; s->v[j] = s->v[j - 1]; }
            s->k[first] = vk; s->v[first] = vv;
        } else {
            gt_linear_insert(s, i);
        }
    }
}

static void gt_insertion_sort(const gt_seq *s, int64_t first, int64_t last);
static void gt_linear_insert(const gt_seq *s, int64_t i);

/* std::sort on [first, last) */
static void gt_sort_range(const gt_seq *s, int64_t first, int64_t last) {
    if (first == last) return;
    gt_introsort_loop(s, first, last, 2 * gt_lg(last - first));
    if (last - first > 16) {
        gt_insertion_sort(s, first, first + 16);
        for (int64_t i = first + 16; i < last; i++) gt_linear_insert(s, i);
    } else {
        gt_insertion_sort(s, first, last);
    }
}

/* std::nth_element(first, nth, last) */
static void gt_nth_element(const gt_seq *s, int64_t first, int64_t nth, int64_t last) {
    if (first == last || nth == last) return;
    int64_t depth = 2 * gt_lg(last - first);
    while (last - first > 3) {
        if (depth == 0) {
            gt_heap_select(s, first, nth + 1, last);
            gt_swap(s, first, nth);
            return;
        }
        --depth;
        int64_t cut = gt_partition_pivot(s, first, last);
        if (cut <= nth) first = cut; else last = cut;
    }
    gt_insertion_sort(s, first, last);
}

void gt_introsort_rows(double *keys, int64_t *idx, int64_t rows, int64_t n, int desc) {
    for (int64_t r = 0; r < rows; r++) {
        gt_seq s = { keys + r * n, idx + r * n, desc };
        gt_sort_range(&s, 0, n);
    }
}

/* topk_impl_loop: the first k of each row end up as torch's topk leaves them */
void gt_topk_rows(double *keys, int64_t *idx, int64_t rows, int64_t n, int64_t k, int largest, int sorted) {
    if (k == 0) return;
    for (int64_t r = 0; r < rows; r++) {
        gt_seq s = { keys + r * n, idx + r * n, largest };
        if (k * 64 <= n) {
            gt_heap_select(&s, 0, k, n);
            gt_sort_heap(&s, 0, k);
        } else {
            gt_nth_element(&s, 0, k - 1, n);
            if (sorted) gt_sort_range(&s, 0, k - 1);
        }
    }
}
"""

_state = {"loaded": False, "fn": None, "topk": None}
_lock = threading.Lock()


def _load():
    with _lock:  # "loaded" only once fn is bound (another thread waits here meanwhile)
        if _state["loaded"]:
            return
        try:
            lib = _ckernels.compile_library(_C_SOURCE, "introsort")
            if lib is not None:
                fn = lib.gt_introsort_rows
                fn.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int)
                fn.restype = None
                _state["fn"] = fn
                top = lib.gt_topk_rows
                top.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                ctypes.c_int, ctypes.c_int)
                top.restype = None
                _state["topk"] = top
        finally:
            _state["loaded"] = True


def introsort_rows(keys: np.ndarray, idx: np.ndarray, descending: bool) -> bool:
    """Sort each row of ``keys`` (C-contiguous float64, 2-d) with ``idx`` (C-contiguous int64, same shape) in
    place in ``std::sort``'s order; False when the C library is unavailable."""
    if not _state["loaded"]:
        _load()
    fn = _state["fn"]
    if fn is None:
        return False
    fn(keys.ctypes.data, idx.ctypes.data, keys.shape[0], keys.shape[1], int(bool(descending)))
    return True


def topk_rows(keys: np.ndarray, idx: np.ndarray, k: int, largest: bool, sorted: bool) -> bool:
    """Rearrange each row of ``keys``/``idx`` (as :func:`introsort_rows`) as torch's ``topk_impl_loop`` does
    (``partial_sort`` when ``64 k <= n``, else ``nth_element`` and, when sorted, ``sort`` of the first ``k - 1``):
    the first ``k`` columns are then torch's values and indices; False when the C library is unavailable."""
    if not _state["loaded"]:
        _load()
    fn = _state["topk"]
    if fn is None:
        return False
    fn(keys.ctypes.data, idx.ctypes.data, keys.shape[0], keys.shape[1], k, int(bool(largest)), int(bool(sorted)))
    return True
