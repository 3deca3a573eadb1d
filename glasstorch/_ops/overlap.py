"""Memory-overlap checks — PyTorch's ``aten/src/ATen/MemoryOverlap.cpp``.

An output may be exactly one of the inputs (the in-place case) but may not otherwise share memory
with an input, nor have elements that share memory with each other (an expanded tensor).

Invariant: the checks read geometry only; they never look at data.
"""

from __future__ import annotations

from .._core.shape import is_non_overlapping_and_dense
from .._tensor.impl import TensorImpl

__all__ = ["check_no_internal_overlap", "check_no_partial_overlap", "check_outputs_writable"]


def _extent(impl: TensorImpl):
    n = impl.numel()
    if n == 0:
        return None
    lo = impl.offset
    hi = lo + sum((s - 1) * st for s, st in zip(impl.sizes, impl.strides, strict=True)) + 1
    isz = impl.dtype.itemsize
    return lo * isz, hi * isz


def check_no_internal_overlap(impl: TensorImpl) -> None:
    """An output whose elements share memory (stride 0 on a dim of size > 1) cannot be written."""
    if 0 in impl.sizes:
        return
    for s, st in zip(impl.sizes, impl.strides, strict=True):
        if st == 0 and s > 1:
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                               "single memory location. Please clone() the tensor before performing the operation.")


def check_outputs_writable(*outs) -> None:
    """``assert_no_internal_overlap`` on each given output (``None`` and meta outputs skipped): what PyTorch's
    kernels that write outside TensorIterator (gemm, cat, sort, topk, the reductions with indices) end up
    checking, through an explicit assert or the ``copy_`` they write with."""
    for out in outs:
        if out is not None and not out.is_meta:
            check_no_internal_overlap(out)


def check_no_partial_overlap(out: TensorImpl, inp: TensorImpl, *, allow_same: bool = True) -> None:
    """An input may be exactly the output (in place) but must not otherwise overlap it; ``allow_same=False`` is
    ``assert_no_overlap``, which refuses the in-place case too (kthvalue, the ops that read while writing)."""
    if out.storage is not inp.storage:
        return
    if allow_same and out.offset == inp.offset and out.sizes == inp.sizes and out.strides == inp.strides:
        return
    a, b = _extent(out), _extent(inp)
    if a is None or b is None:
        return
    if not (is_non_overlapping_and_dense(out.sizes, out.strides) and is_non_overlapping_and_dense(inp.sizes,
                                                                                                 inp.strides)):
        return  # PyTorch's get_overlap_status: TOO_HARD for non-dense tensors, which is not an error
    if a[0] < b[1] and b[0] < a[1]:
        raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor refer "
                           "to a single memory location. Please clone() the tensor before performing the operation.")
