"""The remaining linalg CPU kernels — PyTorch's ``BatchLinearAlgebra.cpp`` (``linalg_ldl_factor_ex``,
``linalg_ldl_solve``: LAPACK's Bunch-Kaufman ``sytrf``/``hetrf`` and ``sytrs``/``hetrs``), ``LinearAlgebra.cpp``
(``linalg_matrix_exp``: PyTorch's Taylor polynomials with scaling and squaring, in matrix_exp.py) and ``Cross.cpp``
(``linalg_cross``).

``ldl_factor`` keeps PyTorch's layout: ``LD`` column-major with its strict upper triangle zeroed, LAPACK's 1-based
pivots (negative for 2x2 blocks) as ``int32``.

Invariant: inputs are never written; outputs are allocated here or are the ``out=`` tensors, resized.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from .lapack import check_errors, checked, column_major_out, lapack_fn, matrices, square_checks, write
from .linalg import is_meta, set_output
from .matrix_exp import mexp

__all__ = ["linalg_ldl_factor_ex_out", "linalg_ldl_factor_ex", "linalg_ldl_solve_out", "linalg_ldl_solve",
           "linalg_matrix_exp", "linalg_cross_out", "linalg_cross"]



def _ldl_routine(dtype, hermitian: bool, suffix: str) -> str:
    return ("he" if hermitian and dtype.is_complex else "sy") + suffix


def linalg_ldl_factor_ex_out(self, hermitian=False, check_errors_=False, LD=None, pivots=None, info=None):
    """``linalg_ldl_factor_ex.out``: ``A = L D Lᵀ`` (``Lᴴ`` when ``hermitian``) with Bunch-Kaufman pivoting."""
    fn = "torch.linalg.ldl_factor_ex"
    square_checks(self, fn)
    checked(self, fn)
    LD = column_major_out(LD, self.sizes, self.dtype, self.device)
    pivots = set_output(pivots, tuple(self.sizes[:-1]), _dt.int32, self.device)
    info = set_output(info, tuple(self.sizes[:-2]), _dt.int32, self.device)
    if is_meta(self, LD, pivots, info):
        return LD, pivots, info
    if self.numel() == 0:
        info.as_numpy()[...] = 0
        return LD, pivots, info
    sytrf = lapack_fn(_ldl_routine(self.dtype, hermitian, "trf"), self.dtype)
    a = matrices(self.as_numpy())
    ld = np.empty(a.shape, self.dtype.np)
    piv = np.empty(a.shape[:-1], np.int32)
    inf = np.empty(a.shape[0], np.int32)
    for i in range(a.shape[0]):
        f, piv[i], inf[i] = sytrf(a[i], lower=1)
        ld[i] = np.tril(f)
    write(LD, ld)
    write(pivots, piv)
    write(info, inf)
    if check_errors_:
        check_errors(inf, fn, self.ndim == 2)
    return LD, pivots, info


def linalg_ldl_factor_ex(self, hermitian=False, check_errors=False):
    return linalg_ldl_factor_ex_out(self, hermitian, check_errors)


def linalg_ldl_solve_out(LD, pivots, B, hermitian=False, out=None):
    """``linalg_ldl_solve.out``: X with ``A X = B`` from ``ldl_factor``'s LD and pivots."""
    fn = "torch.linalg.ldl_solve"
    square_checks(LD, fn, "LD")
    if B.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    if pivots.dtype is not _dt.int32:
        raise RuntimeError(f"{fn}: Expected pivots to be integers. Got {pivots.dtype._short}")
    if LD.dtype is not B.dtype:
        raise RuntimeError(f"{fn}: LD dtype {LD.dtype._short} does not match b dtype {B.dtype._short}")
    batch = tuple(_shape.broadcast_shapes(LD.sizes[:-2], B.sizes[:-2]))
    shape = batch + tuple(B.sizes[-2:])
    out = column_major_out(out, shape, B.dtype, B.device)
    if is_meta(LD, pivots, B, out) or out.numel() == 0:
        return out
    n = LD.sizes[-1]
    sytrs = lapack_fn(_ldl_routine(LD.dtype, hermitian, "trs"), LD.dtype)
    ld = np.broadcast_to(LD.as_numpy(), batch + (n, n)).reshape(-1, n, n)
    piv = np.broadcast_to(pivots.as_numpy(), batch + (n,)).reshape(-1, n)
    b = np.broadcast_to(B.as_numpy(), shape).reshape((-1,) + shape[-2:])
    res = np.empty(b.shape, B.dtype.np)
    for i in range(b.shape[0]):
        res[i], _ = sytrs(ld[i], piv[i], b[i], lower=1)
    write(out, res)
    return out


def linalg_ldl_solve(LD, pivots, B, hermitian=False):
    return linalg_ldl_solve_out(LD, pivots, B, hermitian)


def linalg_matrix_exp(self):
    """``linalg_matrix_exp``: e^A of each square matrix (row-major result, as PyTorch's)."""
    fn = "linalg.matrix_exp"
    square_checks(self, fn)
    checked(self, fn, low_precision=True)
    out = set_output(None, self.sizes, self.dtype, self.device)
    if is_meta(self, out) or out.numel() == 0:
        return out
    a = self.as_numpy()
    if self.sizes[-1] == 1:
        write(out, np.exp(a.astype(np.float32) if self.dtype.itemsize == 2 else a))
    else:
        n = self.sizes[-1]
        write(out, mexp(a.reshape(-1, n, n), repr(self.dtype).split(".")[-1]).reshape(a.shape))
    return out


def linalg_cross_out(self, other, dim=-1, out=None):
    """``linalg_cross.out``: the cross product of 3-vectors along ``dim`` of the broadcast inputs."""
    fn = "linalg.cross"
    if self.ndim != other.ndim:
        raise RuntimeError(f"{fn}: inputs must have the same number of dimensions.")
    if self.sizes[_shape.wrap_dim(dim, self.ndim)] != 3 or other.sizes[_shape.wrap_dim(dim, other.ndim)] != 3:
        raise RuntimeError(f"{fn}: inputs dimension {dim} must have length 3. Got "
                           f"{self.sizes[_shape.wrap_dim(dim, self.ndim)]} and "
                           f"{other.sizes[_shape.wrap_dim(dim, other.ndim)]}")
    shape = tuple(_shape.broadcast_shapes(self.sizes, other.sizes))
    if out is None and self.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {self.dtype._short} but found {other.dtype._short}")
    out = set_output(out, shape, self.dtype, self.device)
    if is_meta(self, other, out) or out.numel() == 0:
        return out
    d = _shape.wrap_dim(dim, len(shape))
    a = np.broadcast_to(self.as_numpy(), shape)
    b = np.broadcast_to(other.as_numpy(), shape)
    write(out, np.cross(a, b, axis=d).astype(self.dtype.np, copy=False))
    return out


def linalg_cross(self, other, dim=-1):
    return linalg_cross_out(self, other, dim)
