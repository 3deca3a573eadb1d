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
from ...tensor_iterator import resize_out
from .dispatch_types import not_implemented

__all__ = ["bincount_cpu", "histc_cpu", "histc_out_cpu"]


def _fmt(v: float) -> str:
    """A double as C++'s ostream prints it (six significant digits)."""
    return "%g" % v  # noqa: UP031 - %g is the ostream format


def bincount_cpu(self: TensorImpl, weights=None, minlength=0) -> TensorImpl:
    """Occurrences of each non-negative integer (summed ``weights`` when given: float32 weights stay float32,
    others count in float64)."""
    if self.dtype.is_floating_point or self.dtype.is_complex or self.dtype is _dt.bool:
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


def _linspace_edges(lo: float, hi: float, n: int, dtype):
    """``linspace(lo, hi, n)`` as PyTorch's CPU kernel computes it: the first half stepped from ``lo``, the rest
    back from ``hi``, in the dtype's opmath (float32 for reduced floats), then rounded to ``dtype``."""
    acc = np.float64 if dtype is _dt.float64 else np.float32
    step = (acc(hi) - acc(lo)) / acc(n - 1) if n > 1 else acc(0)
    idx = np.arange(n)
    half = n // 2
    front = acc(lo) + step * idx[:half].astype(acc)
    back = acc(hi) - step * (n - 1 - idx[half:]).astype(acc)
    return np.concatenate([front, back]).astype(dtype.np)


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
