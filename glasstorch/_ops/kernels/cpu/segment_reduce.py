"""``segment_reduce`` CPU kernels — PyTorch's ``SegmentReduce.cpp``.

Along ``axis`` the data is cut into consecutive segments (given by ``lengths``, or by ``offsets`` which win when
both are given; one row of them per index of the dims before ``axis``).  Each segment reduces to one value with
``sum``, ``prod``, ``mean``, ``max`` or ``min``, starting from ``initial`` when given (else the reduction's
identity; an empty mean is NaN).  Every element is folded into its segment with one ``ufunc.at`` in order, so
reduced-precision values round at each step as PyTorch's loop does.

The backward follows PyTorch's kernel, quirks included: a max/min gradient goes to every element equal to the
result (or NaN), and only the positive ones are divided by the number of ties.

Invariant: shapes are settled from ``lengths``/``offsets`` before any data is read.
"""

from __future__ import annotations

import numpy as np

from ...._core.shape import wrap_dim
from ...._tensor.impl import TensorImpl, empty_contiguous

__all__ = ["segment_reduce_cpu", "segment_reduce_backward_cpu"]

_REDUCE = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "max", "amax": "max", "min": "min", "amin": "min"}


def _offsets(data: TensorImpl, lengths, offsets, axis: int, unsafe: bool) -> np.ndarray:
    """The segment boundaries as an (outer, S + 1) int64 array (``outer`` = product of the dims before ``axis``)."""
    if offsets is not None:
        off = np.asarray(offsets.as_numpy(), np.int64)
        return off.reshape(-1, off.shape[-1])
    if lengths is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    lens = np.asarray(lengths.as_numpy(), np.int64)
    lens = lens.reshape(-1, lens.shape[-1] if lens.ndim else 1)
    if (lens < 0).any():
        raise RuntimeError("lengths contains negative value!")
    if not unsafe and (lens.sum(-1) != data.sizes[axis]).any():
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")
    return np.concatenate([np.zeros((lens.shape[0], 1), np.int64), np.cumsum(lens, -1)], -1)


def _layout(data: TensorImpl, axis: int):
    """``data`` as (outer, L, inner) and the sizes around ``axis``."""
    sizes = data.sizes
    outer = int(np.prod(sizes[:axis], dtype=np.int64))
    inner = int(np.prod(sizes[axis + 1:], dtype=np.int64))
    return data.as_numpy().reshape(outer, sizes[axis], inner), sizes[:axis], sizes[axis + 1:]


def _segment_ids(off: np.ndarray, length: int):
    """Per (outer, position): the flat segment index ``o * S + s``, and whether the position is in a segment."""
    pos = np.arange(length)
    seg = (off[:, None, :] <= pos[None, :, None]).sum(-1) - 1  # (outer, L)
    inside = (seg >= 0) & (pos[None, :] < off[:, -1:])
    segments = off.shape[1] - 1
    seg = np.clip(seg, 0, max(segments - 1, 0))
    return seg + segments * np.arange(off.shape[0])[:, None], inside


def _start(reduce: str, dtype: np.dtype, initial):
    if initial is not None:
        return initial
    return {"sum": 0, "mean": 0, "prod": 1, "max": -np.inf, "min": np.inf}[reduce]


def segment_reduce_cpu(data, reduce, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """One reduced value per segment of ``data`` along ``axis``."""
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    reduce = _REDUCE[reduce]
    axis = wrap_dim(axis, data.ndim)
    off = _offsets(data, lengths, offsets, axis, unsafe)
    x, before, after = _layout(data, axis)
    segments = off.shape[1] - 1
    out = empty_contiguous(tuple(before) + (segments,) + tuple(after), data.dtype, data.device)
    if out.storage._data is None:
        return out
    o = out.as_numpy().reshape(-1, x.shape[2])
    o[...] = _start(reduce, x.dtype, initial)
    ids, inside = _segment_ids(off, x.shape[1])
    ufunc = {"sum": np.add, "mean": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[reduce]
    with np.errstate(all="ignore"):
        ufunc.at(o, ids[inside], x[inside])
        if reduce == "mean":
            counts = np.diff(off, axis=-1).reshape(-1, 1)
            o[...] = np.where(counts > 0, o / np.maximum(counts, 1).astype(o.dtype),
                              o if initial is not None else np.nan)
    return out


def segment_reduce_backward_cpu(grad, output, data, reduce, lengths=None, offsets=None, axis=0, initial=None):
    """The gradient of ``segment_reduce`` with respect to ``data`` (PyTorch's kernel rules)."""
    reduce = _REDUCE[reduce]
    axis = wrap_dim(axis, data.ndim)
    off = _offsets(data, lengths, offsets, axis, True)
    x, _, _ = _layout(data, axis)
    out = empty_contiguous(data.sizes, data.dtype, data.device)
    gi = out.as_numpy().reshape(x.shape)
    gi.fill(0)
    ids, inside = _segment_ids(off, x.shape[1])
    g = grad.as_numpy().reshape(-1, x.shape[2])[ids]  # (outer, L, inner): each element's segment gradient
    r = output.as_numpy().reshape(-1, x.shape[2])[ids]
    mask = inside[..., None]
    with np.errstate(all="ignore"):
        if reduce == "sum":
            gi[...] = np.where(mask, g, 0)
        elif reduce == "mean":
            counts = np.diff(off, axis=-1).reshape(-1)[ids][..., None]
            gi[...] = np.where(mask & (counts > 0), g / np.maximum(counts, 1).astype(x.dtype), 0)
        elif reduce in ("max", "min"):
            hit = mask & (np.isnan(x) | (x == r))
            ties = np.zeros((off.shape[0] * (off.shape[1] - 1), x.shape[2]), np.int64)
            np.add.at(ties, ids[inside], hit[inside].astype(np.int64))
            n = ties[ids]
            picked = np.where(hit, g, 0)
            gi[...] = np.where((n >= 2) & (picked > 0), picked / n.astype(x.dtype), picked)
        else:
            gi[...] = np.where(mask, _prod_grad(x, g, r, ids, inside, off, initial), 0)
    return out


def _prod_grad(x, g, r, ids, inside, off, initial):
    """``grad * prod / x``; where ``x`` is 0 or NaN, ``grad`` times the product of the segment's other elements (and
    ``initial``): the product of its ordinary elements, unless another 0 (then 0) or NaN (then NaN) is among them."""
    special = inside[..., None] & (np.isnan(x) | (x == 0))
    if not special.any():
        return g * r / x
    n_seg = off.shape[0] * (off.shape[1] - 1)
    plain = np.ones((n_seg, x.shape[2]), x.dtype)
    np.multiply.at(plain, ids[inside], np.where(special, 1, x)[inside])
    nans = np.zeros((n_seg, x.shape[2]), np.int64)
    zeros = np.zeros_like(nans)
    np.add.at(nans, ids[inside], (inside[..., None] & np.isnan(x))[inside])
    np.add.at(zeros, ids[inside], (inside[..., None] & (x == 0))[inside])
    other_nan = nans[ids] - np.isnan(x)
    other_zero = zeros[ids] - (x == 0)
    exclusive = np.where(other_nan > 0, np.nan, np.where(other_zero > 0, 0, plain[ids]))
    exclusive = exclusive * x.dtype.type(1 if initial is None else initial)
    return np.where(special, g * exclusive.astype(x.dtype), g * r / x)
