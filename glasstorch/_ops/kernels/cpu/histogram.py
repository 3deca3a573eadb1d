"""Histogram and counting CPU kernels — PyTorch's ``SummaryOps.cpp`` (bincount, histc) and ``Histogram.cpp``
with ``cpu/HistogramKernel.cpp`` (histogram, histogramdd).

``histc`` places an element at ``floor((x - lo) * bins / (hi - lo))`` computed in the input's dtype (PyTorch's
linear kernel without local search, so float16 rounds each step as it does); the element equal to ``hi`` goes in
the last bin, elements outside ``[lo, hi]`` and NaN are dropped.  ``histogram``/``histogramdd`` place each element
by its bin edges (upper bound in the edges, the last edge inclusive), which is what PyTorch's local search over
linear edges and its binary search over given edges both settle on.

Invariant: counts and weights accumulate in float64 and are written once in the output dtype (histc's counts
saturate where PyTorch's running count in the input dtype does).
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl, empty_contiguous
from ...factories import linspace_impl
from ...tensor_iterator import resize_out
from .dispatch_types import not_implemented

__all__ = ["bincount_cpu", "histc_cpu", "histc_out_cpu", "histogram_bins_tensor", "histogram_bins_tensor_out",
           "histogram_bin_ct", "histogram_bin_ct_out", "histogramdd_bin_edges_cpu", "histogramdd_from_bin_cts_cpu",
           "histogramdd_from_bin_tensors_cpu"]


def _fmt(v: float) -> str:
    """A double as C++'s ostream prints it (six significant digits)."""
    return "%g" % v  # noqa: UP031 - %g is the ostream format


def bincount_cpu(self: TensorImpl, weights=None, minlength=0) -> TensorImpl:
    """Occurrences of each non-negative integer (summed ``weights`` when given: float32 weights stay float32,
    others count in float64)."""
    if self.dtype.is_floating_point or self.dtype.is_complex or self.dtype is _dt.bool or _dt.is_barebones(self.dtype):
        raise not_implemented("bincount_cpu", self.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if self.ndim == 1 and self.numel() == 0:
        return _zeros((minlength,), _dt.int64, self.device)
    a = self.as_numpy()
    if self.ndim != 1 or a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.sizes[0] != self.sizes[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        counts, dtype = np.bincount(a, minlength=minlength), _dt.int64
    else:
        dtype = _dt.float32 if weights.dtype is _dt.float32 else _dt.float64
        counts = np.bincount(a, weights=weights.as_numpy().astype(np.float64), minlength=minlength)
    out = empty_contiguous((counts.shape[0],), dtype, self.device)
    np.copyto(out.as_numpy(), counts, casting="unsafe")
    return out


def _zeros(shape, dtype, device) -> TensorImpl:
    out = empty_contiguous(shape, dtype, device)
    out.as_numpy().fill(0)
    return out


def _histc_range(self: TensorImpl, lo: float, hi: float):
    """PyTorch's outer bin edges of histc: ``[min, max]``, the data's own range when they are equal, widened by
    one each side when that range is a single point."""
    if lo == hi and self.numel() > 0:
        a = self.as_numpy()
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_fmt(lo)}, {_fmt(hi)}] is not finite")
    if lo >= hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    return lo, hi


def _linspace_edges(lo: float, hi: float, n: int, dtype) -> np.ndarray:
    """The ``n`` edges ``linspace(lo, hi, n)`` in ``dtype``, as PyTorch's ``linspace_out`` writes them."""
    return linspace_impl(lo, hi, n, dtype).as_numpy()


def _histc_into(self: TensorImpl, bins, lo, hi, out: TensorImpl) -> TensorImpl:
    if not self.dtype.is_floating_point:
        raise not_implemented("histogram_cpu", self.dtype)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = _histc_range(self, float(lo), float(hi))
    edges = _linspace_edges(lo, hi, bins + 1, self.dtype)
    resize_out(out, (bins,))
    x = self.as_numpy().reshape(-1)
    left, right = edges[0], edges[-1]
    keep = x[(x >= left) & (x <= right)]
    with np.errstate(all="ignore"):
        pos = ((keep - left) * x.dtype.type(bins) / (right - left)).astype(np.int64)
    pos[pos == bins] = bins - 1
    counts = np.bincount(pos, minlength=bins)[:bins]
    # PyTorch counts in the input dtype: adding 1 stops changing a count at 2**(mantissa bits + 1)
    np.copyto(out.as_numpy(), np.minimum(counts, 2 ** (np.finfo(x.dtype).nmant + 1)), casting="unsafe")
    return out


def histc_cpu(self: TensorImpl, bins=100, min=0, max=0) -> TensorImpl:  # noqa: A002 - PyTorch's names
    """Histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when both are 0)."""
    return _histc_into(self, bins, min, max, empty_contiguous((bins,), self.dtype, self.device))


def histc_out_cpu(self: TensorImpl, bins=100, min=0, max=0, out=None) -> TensorImpl:  # noqa: A002
    if out.dtype is not self.dtype:
        raise RuntimeError(f"torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
                           f"{_dt.name_of(self.dtype).lower()} and hist {_dt.name_of(out.dtype).lower()}")
    return _histc_into(self, bins, min, max, out)


# -- histogram / histogramdd ------------------------------------------------------------------------------------
def _dtype_text(dt) -> str:
    """A dtype as ``caffe2::TypeMeta`` prints in these messages (float, double)."""
    return _dt.name_of(dt).lower()


def _check_inputs(x: TensorImpl, bins, weight) -> None:
    """``histogramdd_check_inputs``: ``x`` is (..., N), one 1-d non-empty edge tensor of its dtype per dim, and a
    weight of ``x``'s dtype and shape without the last dim."""
    if x.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions, but got " + str(x.ndim))
    n = x.sizes[-1]
    if len(bins) != n:
        raise RuntimeError(f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional histogram "
                           f"but got {len(bins)}")
    for d, b in enumerate(bins):
        if b.dtype is not x.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {_dtype_text(x.dtype)} and bins for dimension {d} with dtype "
                               f"{_dtype_text(b.dtype)}")
        if b.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {b.ndim} dimensions "
                               f"in the bins tensor for dimension {d}")
        if b.numel() == 0:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in "
                               f"the bins tensor for dimension {d}")
    if weight is not None:
        if weight.dtype is not x.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({_dtype_text(x.dtype)}), and "
                               f"weight({_dtype_text(weight.dtype)})")
        if list(x.sizes[:-1]) != list(weight.sizes or (1,)):
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               f"input tensor excluding its innermost dimension, but got input with shape "
                               f"[{', '.join(map(str, x.sizes))}] and weight with shape "
                               f"[{', '.join(map(str, weight.sizes))}]")


def _check_hist_out(x: TensorImpl, counts, hist: TensorImpl, edges) -> None:
    """``histogramdd_prepare_out``: dtypes of the outputs, positive bin counts; resizes them."""
    if hist.dtype is not x.dtype:
        raise RuntimeError(f"torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
                           f"{_dtype_text(x.dtype)} and hist {_dtype_text(hist.dtype)}")
    for d, (c, e) in enumerate(zip(counts, edges, strict=True)):
        if e.dtype is not x.dtype:
            raise RuntimeError(f"torch.histogram: input tensor and bin_edges tensor should have the same dtype, but "
                               f"got input {_dtype_text(x.dtype)} and bin_edges {_dtype_text(e.dtype)}")
        if c <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {c} for dimension {d}")
        resize_out(e, (c + 1,))
    resize_out(hist, tuple(counts))


def _outer_edges(x2d: np.ndarray, rng):
    """``select_outer_bin_edges``: the range per dim (the data's, [0, 1] for no data), widened by 0.5 each side when
    it is a single point."""
    n = x2d.shape[1]
    lo, hi = [0.0] * n, [1.0] * n
    if rng is not None:
        if len(rng) != 2 * n:
            raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} "
                               f"elements, but got {len(rng)}")
        lo, hi = [float(r) for r in rng[0::2]], [float(r) for r in rng[1::2]]
    elif x2d.shape[0] > 0:
        lo, hi = [float(v) for v in x2d.min(axis=0)], [float(v) for v in x2d.max(axis=0)]
    for d in range(n):
        if not (np.isfinite(lo[d]) and np.isfinite(hi[d])):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_fmt(lo[d])}, {_fmt(hi[d])}] is not "
                               f"finite")
        if lo[d] > hi[d]:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_fmt(lo[d])} max "
                               f"{_fmt(hi[d])} for dimension {d}")
        if lo[d] == hi[d]:
            lo[d], hi[d] = lo[d] - 0.5, hi[d] + 0.5
    return lo, hi


def _upper_bound(edges: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``std::upper_bound`` of each value in ``edges``, step for step (so unsorted edges place values as PyTorch's
    binary search does)."""
    first = np.zeros(v.shape, np.int64)
    count = np.full(v.shape, edges.shape[0], np.int64)
    while (count > 0).any():
        step = count // 2
        it = first + step
        right = (count > 0) & ~(v < edges[np.minimum(it, edges.shape[0] - 1)])
        first = np.where(right, it + 1, first)
        count = np.where(right, count - step - 1, np.where(count > 0, step, 0))
    return first


def _local_upper_bound(edges: np.ndarray, v: np.ndarray) -> np.ndarray:
    """PyTorch's linear-bins placement: the position ``(v - lo) * bins / (hi - lo)`` in the input's dtype, moved to
    a neighbouring bin when the edges there say so (its local search over ``pos - 1 .. pos + 1``); returns the
    upper bound (bin + 1) like ``_upper_bound``."""
    nb = edges.shape[0] - 1
    with np.errstate(all="ignore"):
        pos = ((v - edges[0]) * v.dtype.type(nb) / (edges[-1] - edges[0])).astype(np.int64)
    np.clip(pos, 0, nb - 1, out=pos)
    pos -= v < edges[pos]
    np.clip(pos, 0, nb - 1, out=pos)
    pos += (v >= edges[np.minimum(pos + 1, nb)]) & (pos < nb - 1)
    return pos + 1


def _histogram_into(x: TensorImpl, edges, weight, density, hist: TensorImpl, linear: bool) -> None:
    """Counts (or summed weights) of the rows of ``x`` (M, N) in the grid of ``edges``, into ``hist``."""
    x2d = x.as_numpy().reshape(-1, x.sizes[-1])
    e = [t.as_numpy() for t in edges]
    counts = [t.shape[0] - 1 for t in e]
    keep = np.ones(x2d.shape[0], bool)
    flat = np.zeros(x2d.shape[0], np.int64)
    for d, ed in enumerate(e):
        v = x2d[:, d]
        keep &= (v >= ed[0]) & (v <= ed[-1])
        pos = (_local_upper_bound(ed, v) if linear else _upper_bound(ed, v)) - 1
        pos = np.clip(np.where(pos == counts[d], counts[d] - 1, pos), 0, counts[d] - 1)
        flat = flat * counts[d] + pos
    w = None if weight is None else weight.as_numpy().reshape(-1)[keep].astype(np.float64)
    total = int(np.prod(counts))
    out = np.bincount(flat[keep], weights=w, minlength=total)[:total].reshape(counts).astype(x2d.dtype)
    if density:
        with np.errstate(all="ignore"):
            out = out / out.sum(dtype=x2d.dtype)
            for d, ed in enumerate(e):
                out = out / np.diff(ed).reshape([-1 if i == d else 1 for i in range(len(e))])
    np.copyto(hist.as_numpy(), out, casting="unsafe")


def _require_float(x: TensorImpl) -> None:
    if not x.dtype.is_floating_point or x.dtype in (_dt.float16, _dt.bfloat16):
        raise not_implemented("histogramdd", x.dtype)


def _reshape(t: TensorImpl, shape) -> TensorImpl:
    """A contiguous copy of ``t`` with the same elements in ``shape`` (PyTorch's ``reshape`` of the operands)."""
    out = empty_contiguous(shape, t.dtype, t.device)
    np.copyto(out.as_numpy(), t.as_numpy().reshape(shape))
    return out


def histogram_bins_tensor_out(self, bins, weight=None, density=False, hist=None, bin_edges=None):
    """Histogram of every element of ``self`` over the edges ``bins``."""
    x = _reshape(self, (self.numel(), 1))
    w = None if weight is None else _reshape(weight, (weight.numel(),))
    _check_inputs(x, [bins], w)
    _check_hist_out(x, [bins.numel() - 1], hist, [bin_edges])
    np.copyto(bin_edges.as_numpy(), bins.as_numpy())
    _require_float(x)
    _histogram_into(x, [bin_edges], w, density, hist, False)
    return hist, bin_edges


def histogram_bins_tensor(self, bins, weight=None, density=False):
    return histogram_bins_tensor_out(self, bins, weight, density, empty_contiguous((0,), self.dtype, self.device),
                                     empty_contiguous((0,), bins.dtype, bins.device))


def histogram_bin_ct_out(self, bins=100, range=None, weight=None, density=False, hist=None,  # noqa: A002
                         bin_edges=None):
    """Histogram of every element of ``self`` in ``bins`` equal bins over ``range`` (the data's by default)."""
    x = _reshape(self, (self.numel(), 1))
    w = None if weight is None else _reshape(weight, (weight.numel(),))
    _check_hist_out(x, [bins], hist, [bin_edges])
    _require_float(x)
    lo, hi = _outer_edges(x.as_numpy(), range)
    np.copyto(bin_edges.as_numpy(), _linspace_edges(lo[0], hi[0], bins + 1, x.dtype))
    _check_inputs(x, [bin_edges], w)
    _histogram_into(x, [bin_edges], w, density, hist, True)
    return hist, bin_edges


def histogram_bin_ct(self, bins=100, range=None, weight=None, density=False):  # noqa: A002
    return histogram_bin_ct_out(self, bins, range, weight, density, empty_contiguous((0,), self.dtype, self.device),
                                empty_contiguous((0,), self.dtype, self.device))


def _bin_edges(self, bins, rng):
    if self.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    _require_float(self)
    x2d = self.as_numpy().reshape(-1, self.sizes[-1])
    lo, hi = _outer_edges(x2d, rng)
    if len(bins) != self.sizes[-1]:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    edges = []
    for d, c in enumerate(bins):
        if c <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {c} for dimension {d}")
        e = empty_contiguous((c + 1,), self.dtype, self.device)
        np.copyto(e.as_numpy(), _linspace_edges(lo[d], hi[d], c + 1, self.dtype))
        edges.append(e)
    return edges


def histogramdd_bin_edges_cpu(self, bins, range=None, weight=None, density=False):  # noqa: A002
    """The equal-width bin edges of each dim (``torch.histogramdd``'s ``bin_edges`` for integer bins)."""
    return _bin_edges(self, bins, range)


def histogramdd_from_bin_cts_cpu(self, bins, range=None, weight=None, density=False):  # noqa: A002
    edges = _bin_edges(self, bins, range)
    return _histogramdd_into(self, edges, weight, density, True)


def histogramdd_from_bin_tensors_cpu(self, bins, weight=None, density=False):
    if self.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    return _histogramdd_into(self, list(bins), weight, density, False)


def _histogramdd_into(self, edges, weight, density, linear):
    _check_inputs(self, edges, weight)
    hist = empty_contiguous((0,), self.dtype, self.device)
    _check_hist_out(self, [e.numel() - 1 for e in edges], hist, [empty_contiguous((0,), e.dtype, e.device)
                                                                  for e in edges])
    _require_float(self)
    _histogram_into(self, edges, weight, density, hist, linear)
    return hist
