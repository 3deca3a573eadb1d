"""Pairwise distance CPU kernels — PyTorch's ``cdist_impl`` (``Distance.cpp``) and ``cpu/DistanceOpsKernel.cpp``.

``_cdist_forward`` broadcasts the batch dims of its operands and writes the ``p``-norm distance of every row pair:
counts of differing coordinates for ``p = 0``, the largest difference for ``inf``, and ``(sum |d|^p)^(1/p)``
otherwise (SciPy's C loops, in float64, then rounded once).  ``p = 2`` with the matrix-multiplication mode takes
PyTorch's ``_euclidean_dist`` route instead: ``sqrt(clamp(|x|^2 - 2 x.y + |y|^2, 0))`` from one matmul.

Invariant: the output shape is settled before any data is read; meta operands stop there.
"""

from __future__ import annotations

import numpy as np
import scipy.spatial.distance as _ssd

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor.impl import TensorImpl, empty_contiguous
from .dispatch_types import not_implemented
from .shape import is_meta

__all__ = ["cdist_forward_cpu", "euclidean_dist_cpu", "cdist_checks", "uses_mm"]


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
