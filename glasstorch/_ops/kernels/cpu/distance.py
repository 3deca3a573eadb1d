"""Pairwise distance CPU kernels — PyTorch's ``Distance.cpp`` / ``cpu/DistanceOpsKernel.cpp`` (``_pdist_forward``,
``_pdist_backward``), on numpy.

``_pdist_forward(x, p)`` gives the ``p``-norm distance of every row pair ``i < j`` of the ``(N, M)`` input in
row-major pair order (``N * (N - 1) / 2`` values): ``p = 0`` counts differing features, ``p = inf`` takes the
largest difference, others ``(sum |d|^p)^(1/p)`` (1 and 2 without the powers), accumulated over the features in the
input's dtype.  ``_pdist_backward`` scatters each pair's gradient ``+g(d)`` to row ``i`` and ``-g(d)`` to row ``j``
with PyTorch's per-``p`` formulas (0 where the distance is 0).

Invariant: inputs are contiguous (``pdist`` makes them so) and floating.
"""

from __future__ import annotations

import math

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import empty_contiguous

__all__ = ["pdist_forward_cpu", "pdist_backward_cpu"]


def _row_blocks(x: np.ndarray):
    """For each row ``k``, the differences ``x[k] - x[k + 1:]``: the pairs of ``k``, in pdist's order (one vector
    operation per row, so no (pairs, features) temporary is built at once)."""
    for k in range(x.shape[0] - 1):
        yield k, x[k] - x[k + 1:]


def _norms(d: np.ndarray, p: float) -> np.ndarray:
    if p == 2:  # one pass over the differences: the row sums of squares straight from einsum
        return np.sqrt(np.einsum("ij,ij->i", d, d))
    a = np.abs(d)
    if p == 0:
        return (a != 0).sum(axis=1).astype(d.dtype)
    if p == 1:
        return a.sum(axis=1)
    if math.isinf(p):
        return a.max(axis=1, initial=0)
    return np.power(np.power(a, p).sum(axis=1), 1.0 / p)


def _check_dtype(self) -> None:
    if self.dtype not in (_dt.float32, _dt.float64):
        raise NotImplementedError(f"\"pdist\" not implemented for '{_dt.name_of(self.dtype)}'")


def pdist_forward_cpu(self, p):
    _check_dtype(self)
    n = self.sizes[0]
    out = empty_contiguous((n * (n - 1) // 2,), self.dtype, self.device)
    if self.storage._data is None or out.numel() == 0:
        return out
    x = self.as_numpy()
    res = out.as_numpy()
    start = 0
    with np.errstate(all="ignore"):
        for _, d in _row_blocks(x):
            res[start:start + d.shape[0]] = _norms(d, float(p)) if x.shape[1] else 0
            start += d.shape[0]
    return out


def _pair_grads(d: np.ndarray, g: np.ndarray, r: np.ndarray, p: float) -> np.ndarray:
    g, r = g[:, None], r[:, None]
    if p == 0:
        return np.zeros_like(d)
    if p == 1:
        return g * np.sign(d)
    if math.isinf(p):
        return g * np.sign(d) * (np.abs(d) == r)
    if p < 2:
        zero = (r == 0) | ((d == 0) & (p < 1))
        return np.where(zero, 0, np.sign(d) * np.power(np.abs(d), p - 1) * g / np.power(r, p - 1))
    return np.where(r == 0, 0, d * np.power(np.abs(d), p - 2) * g / np.power(r, p - 1))


def pdist_backward_cpu(grad, self, p, pdist):
    _check_dtype(self)
    out = empty_contiguous(self.sizes, self.dtype, self.device)
    if self.storage._data is None:
        return out
    x = self.as_numpy()
    res = np.zeros(x.shape, x.dtype)
    if pdist.numel() and x.shape[1]:
        g = grad.as_numpy().astype(x.dtype).reshape(-1)
        r = pdist.as_numpy().astype(x.dtype).reshape(-1)
        start = 0
        with np.errstate(all="ignore"):
            for k, d in _row_blocks(x):  # pair (k, j) adds its gradient to row k and subtracts it from row j
                gk, rk = g[start:start + d.shape[0]], r[start:start + d.shape[0]]
                if p == 2:  # d * (g / r), 0 where r == 0: one scale per pair, the row sum a matrix-vector product
                    coef = np.divide(gk, rk, out=np.zeros_like(gk), where=rk != 0)
                    res[k] += coef @ d
                    res[k + 1:] -= coef[:, None] * d
                else:
                    block = _pair_grads(d, gk, rk, float(p))
                    res[k] += block.sum(axis=0)
                    res[k + 1:] -= block
                start += d.shape[0]
    out.as_numpy()[...] = res
    return out
