"""Which elements PyTorch's CPU loops compute with the vector op and which with the scalar op —
``cpu/Loops.h`` (``cpu_kernel_vec``'s ``vectorized_loop``), ``TensorIterator::for_each`` and ``at::parallel_for``.

Most kernels give the same bits either way, but some do not in float16/bfloat16: the scalar op of ``rsqrt``
rounds ``sqrt(x)`` to the half type before dividing (c10's half ``std::sqrt``), the vector op converts to float
once.  Where that happens a kernel computes both and picks per element with these masks (Note [Vector and
scalar lanes]).

Note [Vector and scalar lanes]
TensorIterator coalesces the operands' dims and walks the innermost one in runs.  ``at::parallel_for`` splits the
flattened positions into ``ceil(n / threads)``-long ranges (a range cuts runs), when ``n`` is above the grain
size.  Along a run whose operands are all contiguous (or a broadcast scalar), ``vectorized_loop`` takes whole
blocks of ``width`` elements from the run's start with the vector op and leaves the rest to the scalar op; a run
with any other stride is all scalar.  ``width`` is one vector of the half type (two float vectors).

Invariant: pure functions of shapes, strides and thread counts; no data is read.
"""

from __future__ import annotations

import numpy as np

from ...._device import cpu_features as _cpu
from ...._device.threads import get_num_threads

__all__ = ["GRAIN_SIZE", "float_lanes", "half_vector_width", "run_mask", "iterator_mask"]

GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE


def float_lanes() -> int:
    """Lanes of ``Vectorized<float>`` at PyTorch's CPU capability: 16 on AVX-512, else 8."""
    avx512 = _cpu.is_x86() and _cpu.has("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")
    return 16 if avx512 else 8


def half_vector_width() -> int:
    """Elements of one vector block of a half type in PyTorch's loops: two float vectors."""
    return 2 * float_lanes()


def _threads(total: int, grain: int) -> int:
    """How many ranges ``at::parallel_for(0, total, grain)`` makes (grain 0: one per thread)."""
    if total <= 1 or (grain and total <= grain) or get_num_threads() == 1:
        return 1
    threads = get_num_threads()
    return min(threads, -(-total // grain)) if grain else threads


def run_mask(outer: int, inner: int, width: int, grain: int) -> np.ndarray:
    """(outer, inner) mask of the positions computed in whole ``width``-blocks when ``outer`` runs of ``inner``
    elements are split into parallel ranges and each range's pieces of runs are walked from their start."""
    total = outer * inner
    chunk = -(-total // _threads(total, grain))
    p = np.arange(total, dtype=np.int64).reshape(outer, inner)
    row = (p // inner) * inner
    begin = (p // chunk) * chunk
    end = np.minimum(begin + chunk, total)
    k0 = np.maximum(begin - row, 0)
    limit = np.minimum(inner, end - row)
    return (p - row - k0) < ((limit - k0) // width) * width


def _layout(arrays):
    """TensorIterator's dims for same-shape ``arrays`` (the output first): the dims of size > 1 ordered outermost
    first by the operands' strides, adjacent ones coalesced; as (dims in order, sizes, element strides per
    operand)."""
    shape = arrays[0].shape
    strides = [tuple(s // a.itemsize for s in a.strides) for a in arrays]
    dims = sorted((d for d in range(len(shape)) if shape[d] > 1),
                  key=lambda d: tuple(abs(st[d]) for st in strides), reverse=True)
    groups, sizes = [], []
    for d in dims:
        if groups and all(st[groups[-1][-1]] == st[d] * shape[d] for st in strides):
            groups[-1].append(d)
            sizes[-1] *= shape[d]
        else:
            groups.append([d])
            sizes.append(shape[d])
    inner = [st[groups[-1][-1]] for st in strides] if groups else []
    return dims, sizes, inner


def iterator_mask(arrays, width: int) -> np.ndarray:
    """The vector-op positions (a bool array of the arrays' shape) of a TensorIterator loop over same-shape numpy
    ``arrays`` (output first; inputs broadcast to it), following Note [Vector and scalar lanes]."""
    shape = arrays[0].shape
    arrays = [np.broadcast_to(a, shape) for a in arrays]
    dims, sizes, inner = _layout(arrays)
    if not sizes or any(s not in (0, 1) for s in inner) or inner[0] != 1:
        return np.zeros(shape, bool)
    outer = int(np.prod(sizes[:-1], dtype=np.int64))
    mask = run_mask(outer, sizes[-1], width, GRAIN_SIZE).reshape([shape[d] for d in dims])
    # back to the arrays' dim order, the size-1 dims put back
    mask = mask.transpose(np.argsort(dims))
    return mask.reshape(shape)
