"""Pairwise distance CPU kernels — PyTorch's ``Distance.cpp`` and ``cpu/DistanceOpsKernel.cpp``: ``_pdist_forward``/
``_pdist_backward`` and ``_cdist_forward``/``_euclidean_dist``, on numpy.

``_pdist_forward(x, p)`` gives the ``p``-norm distance of every row pair ``i < j`` of the ``(N, M)`` input in
row-major pair order (``N * (N - 1) / 2`` values): ``p = 0`` counts differing features, ``p = inf`` takes the
largest difference, others ``(sum |d|^p)^(1/p)`` (1 and 2 without the powers), accumulated over the features in the
input's dtype.  ``_pdist_backward`` scatters each pair's gradient ``+g(d)`` to row ``i`` and ``-g(d)`` to row ``j``
with PyTorch's per-``p`` formulas (0 where the distance is 0).

Invariant: pdist inputs are contiguous (``pdist`` makes them so) and floating.

``_cdist_forward`` broadcasts the batch dims of its operands and writes the ``p``-norm distance of every row pair:
counts of differing coordinates for ``p = 0``, the largest difference for ``inf``, and ``(sum |d|^p)^(1/p)``
otherwise (SciPy's C loops, in float64, then rounded once).  ``p = 2`` with the matrix-multiplication mode takes
PyTorch's ``_euclidean_dist`` route instead: ``sqrt(clamp(|x|^2 - 2 x.y + |y|^2, 0))`` from one matmul.

Invariant: the output shape is settled before any data is read; meta operands stop there.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.spatial.distance as _ssd

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor.impl import TensorImpl, empty_contiguous
from . import nn_ckernels as _nnc
from .dispatch_types import not_implemented
from .shape import is_meta

__all__ = ["pdist_forward_cpu", "pdist_backward_cpu", "cdist_forward_cpu", "euclidean_dist_cpu", "cdist_checks",
           "uses_mm"]


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
    if x.shape[1] and _nnc.pdist(x, float(p), res):
        return out
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


def cdist_checks(x1: TensorImpl, x2: TensorImpl, p: float, compute_mode) -> None:
    """The operand checks of ``cdist``/``_cdist_forward`` in PyTorch's order."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.sizes[-1] != x2.sizes[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.sizes[-1]} X2: {x2.sizes[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dtype in (_dt.float16, _dt.bfloat16):
            raise not_implemented("cdist", x.dtype)
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_dt.name_of(x.dtype)}")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {_dt.name_of(x1.dtype)} but found {_dt.name_of(x2.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode is not None and compute_mode not in (0, 1, 2):
        raise RuntimeError(f"possible modes: 0, 1, 2, but was: {compute_mode}")


def uses_mm(p: float, compute_mode, r1: int, r2: int) -> bool:
    """Whether ``p = 2`` distances come from the matmul identity (mode 1, or mode 0 with more than 25 rows)."""
    mode = 0 if compute_mode is None else compute_mode
    return p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))


def _pairwise(a: np.ndarray, b: np.ndarray, p: float, mm: bool) -> np.ndarray:
    """Distances of the rows of ``a`` (R1, M) to those of ``b`` (R2, M) in ``a``'s dtype."""
    if mm:
        a_norm = (a * a).sum(-1, keepdims=True)
        b_norm = (b * b).sum(-1, keepdims=True)
        left = np.concatenate([a * a.dtype.type(-2), a_norm, np.ones_like(a_norm)], -1)
        right = np.concatenate([b, np.ones_like(b_norm), b_norm], -1)
        return np.sqrt(np.maximum(left @ right.T, 0))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if p == 0:
        out = _ssd.cdist(a64, b64, "hamming") * a.shape[-1]
    elif p == np.inf:
        out = _ssd.cdist(a64, b64, "chebyshev")
    elif p == 1:
        out = _ssd.cdist(a64, b64, "cityblock")
    elif p == 2:
        out = _ssd.cdist(a64, b64, "euclidean")
    else:
        out = _ssd.cdist(a64, b64, "minkowski", p=p)
    return out.astype(a.dtype)


def cdist_forward_cpu(x1: TensorImpl, x2: TensorImpl, p: float, compute_mode=None) -> TensorImpl:
    """Distances between the rows of ``x1`` (..., R1, M) and of ``x2`` (..., R2, M), batch dims broadcast."""
    cdist_checks(x1, x2, p, compute_mode)
    batch = _shape.broadcast_shapes(x1.sizes[:-2], x2.sizes[:-2])
    r1, r2, m = x1.sizes[-2], x2.sizes[-2], x1.sizes[-1]
    out = empty_contiguous(tuple(batch) + (r1, r2), x1.dtype, x1.device)
    if is_meta(x1, x2, out) or out.numel() == 0:
        return out
    o = out.as_numpy().reshape(-1, r1, r2)
    if m == 0:
        o.fill(0)
        return out
    a = np.broadcast_to(x1.as_numpy(), tuple(batch) + (r1, m)).reshape(-1, r1, m)
    b = np.broadcast_to(x2.as_numpy(), tuple(batch) + (r2, m)).reshape(-1, r2, m)
    mm = uses_mm(p, compute_mode, r1, r2)
    with np.errstate(all="ignore"):
        for i in range(o.shape[0]):  # one C-level pairwise pass per batch entry
            o[i] = _pairwise(a[i], b[i], p, mm)
    return out


def euclidean_dist_cpu(x1: TensorImpl, x2: TensorImpl) -> TensorImpl:
    """``_euclidean_dist``: the matmul-identity distances of (..., R1, M) and (..., R2, M) rows (batch dims equal
    or broadcast), as PyTorch's composite computes them, in one numpy pass per batch entry."""
    batch = _shape.broadcast_shapes(x1.sizes[:-2], x2.sizes[:-2])
    r1, r2, m = x1.sizes[-2], x2.sizes[-2], x1.sizes[-1]
    out = empty_contiguous(tuple(batch) + (r1, r2), x1.dtype, x1.device)
    if is_meta(x1, x2, out) or out.numel() == 0:
        return out
    a = np.broadcast_to(x1.as_numpy(), tuple(batch) + (r1, m)).reshape(-1, r1, m)
    b = np.broadcast_to(x2.as_numpy(), tuple(batch) + (r2, m)).reshape(-1, r2, m)
    o = out.as_numpy().reshape(-1, r1, r2)
    with np.errstate(all="ignore"):
        for i in range(o.shape[0]):
            o[i] = _pairwise(a[i], b[i], 2.0, True)
    return out
