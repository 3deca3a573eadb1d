"""The order of operations of ATen's vectorized CPU helpers (``at::vec::map*_reduce_all``, ``vec_reduce_all``,
``Vectorized<T>`` arithmetic), emulated on numpy rows so that a kernel written with them rounds as PyTorch does.

PyTorch's x86 wheels run the AVX512 build of these kernels: a ``Vectorized<float>`` holds 16 lanes, a
``Vectorized<double>`` 8, and a ``Vectorized<BFloat16>``/``<Half>`` 32 (two float vectors once converted).  The
compiler fuses a product whose only use is an addition into one fused multiply-add (GCC's default
``-ffp-contract=fast``), so ``acc + x * y`` rounds once.

Note [Vectorized reduction order]: ``map*_reduce_all(map, add, data..., n)`` over a row of ``n`` elements

- with ``n`` below the vector width: maps one partial vector and adds its first ``n`` lanes left to right;
- otherwise: element ``j`` goes to lane ``j % width``; each lane starts at its first mapped value and adds
  the later ones in order (the tail vector only updates the lanes it has); a float vector's lanes are then
  folded in halves (lane ``i`` with lane ``i + width / 2``, and so on down to one), the AVX512 shuffle tree of
  ``vec_reduce_all``; a double vector's are added left to right (no SIMD specialisation for double).

The reduced types convert each 32-element vector into two float vectors that accumulate side by side; they are
added lane by lane before the 16-lane tree.  A row of 17..31 elements adds its second vector into the first
and sums those 16 lanes left to right; a row of up to 16 elements is summed left to right.

Invariant: every function here takes and returns float64 numpy arrays holding values of the working type
(float32 or float64), rounded to it after each step as the hardware does.
"""

from __future__ import annotations

import numpy as np

from .pointwise_support import _fma

__all__ = ["fma", "rnd", "row_reduce", "lanes_of"]


def rnd(x, ct):
    """``x`` rounded to the working type ``ct`` (np.float32 or np.float64)."""
    return np.asarray(x, dtype=np.float64).astype(ct)


def fma(x, y, z, ct):
    """``x * y + z`` with one rounding to ``ct`` (the fused multiply-add the compiler emits)."""
    return rnd(_fma(np.asarray(x, ct), np.asarray(y, ct), np.asarray(z, ct), ct), ct)


def lanes_of(ct, reduced: bool) -> int:
    """The vector width (elements) of a row loop: 32 for bfloat16/half, else 512 bits of ``ct``."""
    return 32 if reduced else 64 // np.dtype(ct).itemsize


def _tree(v, ct):
    """``vec_reduce_all``'s shuffle tree over the last axis (a power of two wide)."""
    while v.shape[-1] > 1:
        h = v.shape[-1] // 2
        v = rnd(v[..., :h] + v[..., h:], ct)
    return v[..., 0]


def _left_to_right(v, ct):
    acc = v[..., 0]
    for k in range(1, v.shape[-1]):
        acc = rnd(acc + v[..., k], ct)
    return acc


def row_reduce(first, step, n: int, ct, reduced: bool = False):
    """Sum over the last axis (length ``n``) in the order of Note [Vectorized reduction order].

    ``first(sl)`` maps the elements ``sl`` (a slice of the last axis) as a vector's first values; ``step(acc, sl)``
    returns ``acc`` plus the mapped elements (with the fusion the kernel gets, e.g. ``fma(p, q, acc)``)."""
    width = lanes_of(ct, reduced)
    half = width // 2 if reduced else width
    if n < width:
        v = first(slice(0, n))
        if not reduced or n <= half:
            return _left_to_right(v, ct)
        lo = v[..., :half].copy()
        lo[..., :n - half] = rnd(lo[..., :n - half] + v[..., half:], ct)
        return _left_to_right(lo, ct)
    acc = first(slice(0, width))
    d = width
    while d + width <= n:
        acc = step(acc, slice(d, d + width))
        d += width
    if d < n:
        acc = acc.copy()
        acc[..., :n - d] = step(acc[..., :n - d], slice(d, n))
    if reduced:
        acc = rnd(acc[..., :half] + acc[..., half:], ct)
    return _tree(acc, ct) if ct == np.float32 else _left_to_right(acc, ct)
