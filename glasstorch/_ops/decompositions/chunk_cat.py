"""``_chunk_cat``: split each tensor into ``num_chunks`` chunks along ``dim`` (zero-padded to a multiple) and
concatenate the chunks chunk-wise — PyTorch's ``_chunk_cat`` of ``TensorShape.cpp`` (FSDP's all-gather layout).

Each input becomes a view of shape ``sizes[:dim] + (num_chunks, -1)`` (after padding ``dim`` up to a multiple of
``num_chunks`` with zeros), and the views are concatenated along ``dim + 1``.

Invariant: the inputs share a dtype, a device and their sizes before ``dim``; none is empty.
"""

from __future__ import annotations

from ..._core.shape import wrap_dim
from ..aten import aten

__all__ = ["chunk_cat", "chunk_cat_out"]


def _check(tensors, dim, num_chunks) -> int:
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    first = tensors[0]
    for t in tensors:
        if t.numel() == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if t.dtype is not first.dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
        if t.device != first.device:
            raise RuntimeError("_chunk_cat expects all inputs tensors on the same device")
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    if any(t.ndim != first.ndim for t in tensors):
        if dim < 0:
            raise RuntimeError("_chunk_cat expects non-negative dim when input tensors have different ndims")
    else:
        dim = wrap_dim(dim, first.ndim)
    if any(dim >= t.ndim for t in tensors):
        raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    if any(t.sizes[:dim] != first.sizes[:dim] for t in tensors):
        raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
    return dim


def _chunked(t, dim, num_chunks):
    size = t.sizes[dim]
    padded = -(-size // num_chunks) * num_chunks
    if padded != size:  # zeros after the last element along dim: constant_pad_nd pads from the last dim backwards
        t = aten.constant_pad_nd(t, [0, 0] * (t.ndim - 1 - dim) + [0, padded - size], 0)
    return aten.view(t, (*t.sizes[:dim], num_chunks, -1))


def chunk_cat(tensors, dim, num_chunks):
    dim = _check(tensors, dim, num_chunks)
    return aten.cat([_chunked(t, dim, num_chunks) for t in tensors], dim + 1)


def chunk_cat_out(tensors, dim, num_chunks, out):
    dim = _check(tensors, dim, num_chunks)
    return aten.cat_out([_chunked(t, dim, num_chunks) for t in tensors], dim + 1, out)
