"""LAPACK-backed CPU kernels of the LU and Cholesky families — PyTorch's ``BatchLinearAlgebra.cpp`` and
``LinearAlgebra.cpp`` (``linalg_lu_factor_ex``, ``linalg_lu``, ``lu_unpack``, ``linalg_lu_solve``, ``_linalg_solve_ex``,
``linalg_inv_ex``, ``_linalg_det``, ``_linalg_slogdet``, ``linalg_cholesky_ex``, ``cholesky_inverse``,
``_cholesky_solve_helper``, ``linalg_solve_triangular``, ``triangular_solve``), on scipy's LAPACK wrappers.

PyTorch's conventions are kept: factors are batches of column-major matrices (LAPACK's layout), pivots are
LAPACK's 1-based ``int32`` row swaps, ``info`` is an ``int32`` per matrix, and a failure is reported through
``check_errors`` (PyTorch's ``_linalg_check_errors``) with PyTorch's messages.  Each matrix of a batch is one
LAPACK call.

Every kernel also serves the Meta key: the checks and the output geometry come first, then (not on meta) the data.

Invariant: inputs are never written; outputs are allocated here or are the ``out=`` tensors, resized.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack as _lapack

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._core.user_warning import warn as _user_warn
from ...._tensor.impl import TensorImpl, empty_strided_impl
from ...tensor_iterator import resize_out
from .linalg import is_meta, set_output
from .spectral import LinAlgError, _column_major

__all__ = ["check_errors", "checked", "write", "square_checks", "column_major_out", "matrices", "lapack_fn",
           "LAPACK_DTYPES",
           "linalg_lu_factor_ex_out", "linalg_lu_out", "lu_unpack_out", "linalg_lu_solve_out",
           "linalg_solve_ex_out", "linalg_inv_ex_out", "linalg_det_out", "linalg_slogdet_out",
           "linalg_cholesky_ex_out", "cholesky_inverse_out", "cholesky_cpu", "cholesky_out_cpu",
           "cholesky_solve_cpu", "cholesky_solve_out_cpu", "linalg_solve_triangular_out",
           "triangular_solve_out", "linalg_check_errors"]

LAPACK_DTYPES = (_dt.float32, _dt.float64, _dt.complex64, _dt.complex128)


# -- checks (PyTorch's LinalgUtils.h) ---------------------------------------------------------------------------
def checked(A: TensorImpl, fn: str, low_precision: bool = False) -> None:
    """``checkFloatingOrComplex``: a floating or complex input, full precision unless ``low_precision``."""
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got {A.dtype._short}")
    if not low_precision and A.dtype not in LAPACK_DTYPES:
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {A.dtype._short}")


def square_checks(A: TensorImpl, fn: str, name: str = "A") -> None:
    """``squareCheckInputs``: at least 2 dims and square matrices."""
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    if A.sizes[-1] != A.sizes[-2]:
        raise RuntimeError(f"{fn}: {name} must be batches of square matrices, but they are {A.sizes[-2]} by "
                           f"{A.sizes[-1]} matrices")


def same_dtype(A: TensorImpl, B: TensorImpl, fn: str, a="A", b="B") -> None:
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{fn}: Expected {a} and {b} to have the same dtype, but found {a} of type "
                           f"{A.dtype._short} and {b} of type {B.dtype._short} instead")


_UNKNOWN = "unknown"


def _error_text(api: str, info: int) -> str:
    if "inv" in api:
        return f"The diagonal element {info} is zero, the inversion could not be completed because the input matrix " \
               f"is singular."
    if "solve" in api:
        return "The solver failed because the input matrix is singular."
    if "cholesky" in api:
        return f"The factorization could not be completed because the input is not positive-definite (the leading " \
               f"minor of order {info} is not positive-definite)."
    if "eig" in api or "syevd" in api:
        return f"The algorithm failed to converge because the input matrix is ill-conditioned or has too many " \
               f"repeated eigenvalues (error code: {info})."
    if "lstsq" in api:
        return f"The least squares solution could not be computed because the input matrix does not have full rank " \
               f"(error code: {info})."
    if "lu_factor" in api:
        return f"U[{info},{info}] is zero and using it on lu_solve would result in a division by zero. If you still " \
               f"want to perform the factorization, consider calling linalg.lu(A, pivot) or " \
               f"linalg.lu_factor_ex(A, pivot)"
    return _UNKNOWN


def check_errors(info: np.ndarray, api: str, is_matrix: bool) -> None:
    """``_linalg_check_errors``: raise PyTorch's error for the first non-zero ``info`` (LinAlgError for a
    numerical failure; lu_factor's is a plain RuntimeError)."""
    flat = np.asarray(info).reshape(-1)
    bad = np.flatnonzero(flat)
    if not bad.size:
        return
    code = int(flat[bad[0]])
    where = "" if is_matrix else f": (Batch element {bad[0]})"
    if code < 0:
        raise RuntimeError(f"{api}{where}: Argument {-code} has illegal value. Most certainly there is a bug in the "
                           f"implementation calling the backend library.")
    text = _error_text(api, code)
    if text is _UNKNOWN:  # PyTorch's TORCH_INTERNAL_ASSERT: a code no branch knows
        raise RuntimeError(f"false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/"
                           f"BatchLinearAlgebra.cpp\":1642, please report a bug to PyTorch. {api}{where}: Unknown "
                           f"error code: {code}.")
    err = RuntimeError if "lu_factor" in api else LinAlgError
    raise err(f"{api}{where}: {text}")


def linalg_check_errors(info: TensorImpl, api_name: str, is_matrix: bool):
    """``_linalg_check_errors(info, api_name, is_matrix)`` as an operator (nothing is returned)."""
    if not is_meta(info):
        check_errors(info.as_numpy(), api_name, is_matrix)


# -- outputs and LAPACK calls -------------------------------------------------------------------------------------
def column_major_out(out, shape, dtype, device) -> TensorImpl:
    """A batch of column-major matrices (``batched_matrix_contiguous_strides(f_contig=True)``), or ``out`` resized
    to that (a correctly shaped ``out`` keeps its own layout, as PyTorch's ``set_output_strided``)."""
    shape = tuple(shape)
    strides = _column_major(shape) if len(shape) >= 2 else _shape.contiguous_strides(shape)
    if out is None:
        return empty_strided_impl(shape, strides, dtype, device)
    if out.dtype is not dtype:
        set_output(out, shape, dtype, device)  # raises the dtype error
    if out.sizes != shape:
        resize_out(out, shape, strides)
    return out


def matrices(arr: np.ndarray) -> np.ndarray:
    """The batch of ``arr`` flattened into one leading dim (a view where the layout allows)."""
    return arr.reshape((_shape.prod(arr.shape[:-2]),) + arr.shape[-2:])


def lapack_fn(name: str, dtype):
    """scipy's wrapper of the LAPACK routine ``name`` for ``dtype`` (the s/d/c/z prefix chosen from it)."""
    return _lapack.get_lapack_funcs(name, dtype=dtype.np)


def write(out: TensorImpl, values) -> None:
    """Copy a kernel's numpy result into its output (any layout), casting to the output's dtype."""
    np.copyto(out.as_numpy(), np.asarray(values).reshape(out.sizes), casting="unsafe")


def _batch(A: TensorImpl) -> tuple:
    return tuple(A.sizes[:-2])


def _lu_into(a: np.ndarray, dtype, lu_out: np.ndarray, piv_out: np.ndarray, info_out: np.ndarray) -> None:
    """``getrf`` on each matrix of ``a`` (B, m, n): factors into ``lu_out``, 1-based pivots, infos."""
    getrf = lapack_fn("getrf", dtype)
    for i in range(a.shape[0]):
        lu, piv, info = getrf(a[i])
        lu_out[i] = lu
        piv_out[i] = piv + 1
        info_out[i] = info


# Note [Small batched LU]: a batch of many small matrices (attention-sized 4x4 blocks ...) costs one Python-level
# LAPACK call per matrix; below these sizes the elimination runs instead as k vectorised numpy steps over the whole
# batch: LAPACK's unblocked getf2 (partial pivoting on the first largest |a|, a zero pivot recorded in info and
# its column left unscaled), so factors, pivots and infos agree with getrf's up to rounding.
_SMALL_N, _MANY = 16, 8


def _lu_small_batched(a: np.ndarray):
    B, m, n = a.shape
    k = min(m, n)
    lu = a.astype(a.dtype, copy=True)
    piv = np.empty((B, k), np.int32)
    info = np.zeros(B, np.int32)
    rows = np.arange(B)
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        swap = lu[rows, p].copy()
        lu[rows, p] = lu[:, j]
        lu[:, j] = swap
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        if j + 1 < m:
            lu[:, j + 1:, j] /= np.where(zero, 1, pivot)[:, None]
            if j + 1 < n:
                lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return lu, piv, info


def _lu_numpy(A: TensorImpl):
    """(LU (B, m, n), pivots (B, k) 1-based int32, info (B,) int32) of A's matrices, as numpy arrays."""
    a = matrices(A.as_numpy())
    m, n = a.shape[-2:]
    if a.shape[0] >= _MANY and 0 < max(m, n) <= _SMALL_N:
        return _lu_small_batched(a)
    lu = np.empty(a.shape, A.dtype.np)
    piv = np.ones((a.shape[0], min(m, n)), np.int32)
    info = np.zeros(a.shape[0], np.int32)
    if a.size:
        _lu_into(a, A.dtype, lu, piv, info)
    return lu, piv, info


def _solve_all(a: np.ndarray, b: np.ndarray, lu, piv, info, dtype) -> np.ndarray:
    """X with A X = B for each matrix: numpy's batched gesv (one C loop) when every A is invertible and the batch
    is large, else getrs per matrix on the LU factors (singular ones give LAPACK's inf/nan)."""
    if a.shape[0] >= _MANY and not info.any():
        return np.linalg.solve(a, b)
    res = np.empty(b.shape, dtype.np)
    for i in range(b.shape[0]):
        res[i] = _lu_solve_matrix(lu[i], piv[i], b[i], False, dtype)
    return res


# -- LU -----------------------------------------------------------------------------------------------------------
def _lu_factor_checks(A: TensorImpl, pivot: bool) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{', '.join(map(str, A.sizes))}] instead")
    if not pivot and A.device.type == "cpu":
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def linalg_lu_factor_ex_out(A, pivot=True, check_errors_=False, LU=None, pivots=None, info=None):
    """``linalg_lu_factor_ex.out``: ``getrf`` of each matrix: (LU, pivots, info)."""
    _lu_factor_checks(A, pivot)
    *batch, m, n = A.sizes
    LU = column_major_out(LU, A.sizes, A.dtype, A.device)
    pivots = set_output(pivots, (*batch, min(m, n)), _dt.int32, A.device)
    info = set_output(info, tuple(batch), _dt.int32, A.device)
    if is_meta(A, LU, pivots, info):
        return LU, pivots, info
    if A.dtype not in LAPACK_DTYPES:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A.dtype._short}'")
    lu, piv, inf = _lu_numpy(A)
    write(LU, lu)
    write(pivots, piv)
    write(info, inf)
    if check_errors_:
        check_errors(inf, "torch.linalg.lu_factor_ex", A.ndim == 2)
    return LU, pivots, info


def linalg_lu_factor_ex(A, pivot=True, check_errors=False):
    return linalg_lu_factor_ex_out(A, pivot, check_errors)


def _permutations(piv: np.ndarray, m: int) -> np.ndarray:
    """The row permutation (B, m) that LAPACK's 1-based swaps ``piv`` (B, k) apply, as PyTorch's
    ``lu_unpack``: P[perm[j], j] = 1."""
    perm = np.tile(np.arange(m), (piv.shape[0], 1))
    rows = np.arange(piv.shape[0])
    for j in range(piv.shape[1]):
        p = piv[:, j].astype(np.int64) - 1
        a, b = perm[rows, j].copy(), perm[rows, p].copy()
        perm[rows, j], perm[rows, p] = b, a
    return perm


def _unpack(lu: np.ndarray, piv, m, n, unpack_data, unpack_pivots, dtype):
    k = min(m, n)
    P = L = U = None
    if unpack_pivots:
        perm = _permutations(piv, m)
        P = np.zeros((lu.shape[0], m, m), dtype)
        P[np.arange(lu.shape[0])[:, None], perm, np.arange(m)[None, :]] = 1
    if unpack_data:
        L = np.tril(lu[..., :, :k], -1)
        L[..., range(k), range(k)] = 1
        U = np.triu(lu[..., :k, :])
    return P, L, U


def lu_unpack_out(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, P=None, L=None, U=None):
    """``lu_unpack.out``: P, L, U of a packed LU factorization (row-major outputs; empty when not unpacked)."""
    if LU_data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{', '.join(map(str, LU_data.sizes))}] instead")
    if unpack_pivots and LU_pivots.dtype is not _dt.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by torch.linalg."
                           "lu_factor")
    *batch, m, n = LU_data.sizes
    k = min(m, n)
    batch = tuple(batch)
    dev, dt = LU_data.device, LU_data.dtype
    P = set_output(P, batch + (m, m) if unpack_pivots else (0,), dt, dev)
    L = set_output(L, batch + (m, k) if unpack_data else (0,), dt, dev)
    U = set_output(U, batch + (k, n) if unpack_data else (0,), dt, dev)
    if is_meta(LU_data, LU_pivots, P, L, U) or LU_data.numel() == 0 and not unpack_pivots:
        return P, L, U
    lu = matrices(LU_data.as_numpy())
    piv = LU_pivots.as_numpy().reshape(lu.shape[0], k) if unpack_pivots else None
    p, lo, up = _unpack(lu, piv, m, n, unpack_data, unpack_pivots, dt.np)
    for out, val in ((P, p), (L, lo), (U, up)):
        if val is not None and out.numel():
            write(out, val)
    return P, L, U


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    return lu_unpack_out(LU_data, LU_pivots, unpack_data, unpack_pivots)


def linalg_lu_out(A, pivot=True, P=None, L=None, U=None):
    """``linalg_lu.out``: P, L, U with ``A = P L U`` (``getrf`` then ``lu_unpack``)."""
    if A.ndim < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{', '.join(map(str, A.sizes))}] instead")
    _lu_factor_checks(A, pivot)
    *batch, m, n = A.sizes
    k = min(m, n)
    batch = tuple(batch)
    P = set_output(P, batch + (m, m), A.dtype, A.device)
    L = set_output(L, batch + (m, k), A.dtype, A.device)
    U = set_output(U, batch + (k, n), A.dtype, A.device)
    if is_meta(A, P, L, U):
        return P, L, U
    if A.dtype not in LAPACK_DTYPES:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A.dtype._short}'")
    lu, piv, _ = _lu_numpy(A)
    p, lo, up = _unpack(lu, piv, m, n, True, True, A.dtype.np)
    for out, val in ((P, p), (L, lo), (U, up)):
        if out.numel():
            write(out, val)
    return P, L, U


def linalg_lu(A, pivot=True):
    return linalg_lu_out(A, pivot)


def _apply_pivots(b: np.ndarray, piv: np.ndarray, inverse: bool) -> np.ndarray:
    """Rows of ``b`` (n, k) swapped by LAPACK's 1-based ``piv`` (forwards, or backwards for Pᵀ's inverse)."""
    b = b.copy()
    order = range(len(piv) - 1, -1, -1) if inverse else range(len(piv))
    for j in order:
        p = int(piv[j]) - 1
        if p != j:
            b[[j, p]] = b[[p, j]]
    return b


def _lu_solve_matrix(lu, piv, b, adjoint, dtype):
    """X with ``A X = B`` (or ``Aᴴ X = B``) from one matrix's LU factors (``getrs``)."""
    getrs = lapack_fn("getrs", dtype)
    trans = (2 if dtype.is_complex else 1) if adjoint else 0
    x, _ = getrs(lu, piv - 1, b, trans=trans)
    return x


def _broadcast_solve_batch(A: TensorImpl, B: TensorImpl, fn: str, left: bool, vector: bool = False):
    """The broadcast batch shape of A (*, n, n) and B (*, n, k) / (*, k, n), with the shape check."""
    n = A.sizes[-1]
    rows = B.sizes[-2] if left else B.sizes[-1]
    if rows != n:
        eq = "AX = B" if left else "XA = B"
        bm, bk = B.sizes[-2], B.sizes[-1]
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {bm}x{bk})")
    return tuple(_shape.broadcast_shapes(B.sizes[:-2], A.sizes[:-2]))


def _row_major_result(out: TensorImpl, shape) -> None:
    """A freshly laid out column-major result turned row-major (the layout of a transposed solve)."""
    if out.numel() > 1 and out.strides == _column_major(shape):
        out.set_geometry(tuple(shape), _shape.contiguous_strides(shape), out.offset)


def linalg_lu_solve_out(LU, pivots, B, left=True, adjoint=False, out=None):
    """``linalg_lu_solve.out``: the solution of ``A X = B`` (``XA = B`` when not ``left``) from ``lu_factor``."""
    fn = "linalg.lu_solve"
    if LU.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor LU must have at least 2 dimensions.")
    if B.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    square_checks(LU, fn, "LU")
    same_dtype(LU, B, fn, "LU", "B")
    if pivots.dtype is not _dt.int32:
        raise RuntimeError(f"{fn}: pivots should be a Tensor of scalar type torch.int32")
    batch = _broadcast_solve_batch(LU, B, fn, left)
    shape = batch + tuple(B.sizes[-2:])
    out = column_major_out(out, shape, B.dtype, B.device)
    if not left:
        _row_major_result(out, shape)  # X A = B is solved transposed: PyTorch's result is row-major
    if is_meta(LU, pivots, B, out) or out.numel() == 0:
        return out
    lu = np.broadcast_to(LU.as_numpy(), batch + LU.sizes[-2:]).reshape((-1,) + LU.sizes[-2:])
    piv = np.broadcast_to(pivots.as_numpy(), batch + pivots.sizes[-1:]).reshape(-1, pivots.sizes[-1])
    b = np.broadcast_to(B.as_numpy(), shape).reshape((-1,) + shape[-2:])
    res = np.empty(b.shape, B.dtype.np)
    for i in range(b.shape[0]):
        if left:
            res[i] = _lu_solve_matrix(lu[i], piv[i], b[i], adjoint, B.dtype)
        else:  # X A = B  <=>  Aᵀ Xᵀ = Bᵀ (conjugated for the adjoint)
            bt = b[i].T if not B.dtype.is_complex else b[i].conj().T
            x = _lu_solve_matrix(lu[i], piv[i], bt, not adjoint, B.dtype)
            res[i] = x.T if not B.dtype.is_complex else x.conj().T
    write(out, res)
    return out


def linalg_lu_solve(LU, pivots, B, left=True, adjoint=False):
    return linalg_lu_solve_out(LU, pivots, B, left, adjoint)


# -- solve and inverse ---------------------------------------------------------------------------------------------
def is_vector_rhs(A: TensorImpl, B: TensorImpl) -> bool:
    """``linalg_solve_is_vector_rhs``: B is a (batch of) vector(s) rather than matrices."""
    return B.ndim == 1 or (A.ndim - 1 == B.ndim and tuple(B.sizes) == tuple(A.sizes[:-1]))


def linalg_solve_ex_out(A, B, left=True, check_errors_=False, result=None, LU=None, pivots=None, info=None):
    """``_linalg_solve_ex.result``: X with ``A X = B`` (``X A = B``), and A's LU factors, pivots and info."""
    fn = "linalg.solve"
    checked(A, fn)
    same_dtype(A, B, fn)
    vector = is_vector_rhs(A, B)
    square_checks(A, fn)
    Bm = B.sizes + (1,) if vector else B.sizes
    if len(Bm) < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    n = A.sizes[-1]
    rows = Bm[-2] if left else Bm[-1]
    if rows != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{Bm[-2]}x{Bm[-1]})")
    batch = tuple(_shape.broadcast_shapes(Bm[:-2], A.sizes[:-2]))
    mshape = batch + tuple(Bm[-2:])
    rshape = mshape[:-1] if vector else mshape
    result = column_major_out(result, rshape, A.dtype, A.device)
    if not left:
        _row_major_result(result, rshape)  # X A = B is solved transposed: PyTorch's result is row-major
    LU = column_major_out(LU, A.sizes, A.dtype, A.device)
    pivots = set_output(pivots, tuple(A.sizes[:-1]), _dt.int32, A.device)
    info = set_output(info, tuple(A.sizes[:-2]), _dt.int32, A.device)
    if is_meta(A, B, result, LU, pivots, info):
        return result, LU, pivots, info
    lu, piv, inf = _lu_numpy(A)
    write(LU, lu)
    write(pivots, piv)
    write(info, inf)
    if result.numel():
        lu_b = np.broadcast_to(lu.reshape(A.sizes), batch + (n, n)).reshape(-1, n, n)
        piv_b = np.broadcast_to(piv.reshape(A.sizes[:-1]), batch + (n,)).reshape(-1, n)
        b = np.broadcast_to(B.as_numpy().reshape(Bm), mshape).reshape((-1,) + mshape[-2:])
        if left:
            a_b = np.broadcast_to(A.as_numpy(), batch + (n, n)).reshape(-1, n, n)
            info_b = np.broadcast_to(inf.reshape(A.sizes[:-2]), batch).reshape(-1)
            res = _solve_all(a_b, b, lu_b, piv_b, info_b, A.dtype)
        else:  # X A = B  <=>  Aᴴ Xᴴ = Bᴴ
            res = np.empty(b.shape, A.dtype.np)
            for i in range(b.shape[0]):
                res[i] = _lu_solve_matrix(lu_b[i], piv_b[i], b[i].conj().T, True, A.dtype).conj().T
        write(result, res)
    if check_errors_:
        check_errors(inf, "torch.linalg.solve_ex", A.ndim == 2)
    return result, LU, pivots, info


def linalg_solve_ex(A, B, left=True, check_errors=False):
    return linalg_solve_ex_out(A, B, left, check_errors)


def linalg_inv_ex_out(A, check_errors_=False, inverse=None, info=None):
    """``linalg_inv_ex.inverse``: A⁻¹ (``getrf`` + ``getrs`` against the identity, as PyTorch solves A X = I)."""
    fn = "linalg.inv"
    square_checks(A, fn)
    checked(A, fn)
    inverse = column_major_out(inverse, A.sizes, A.dtype, A.device)
    info = set_output(info, _batch(A), _dt.int32, A.device)
    if is_meta(A, inverse, info):
        return inverse, info
    lu, piv, inf = _lu_numpy(A)
    n = A.sizes[-1]
    if n:
        eye = np.broadcast_to(np.eye(n, dtype=A.dtype.np), lu.shape)
        write(inverse, _solve_all(matrices(A.as_numpy()), eye, lu, piv, inf, A.dtype))
    write(info, inf)
    if check_errors_:
        check_errors(inf, "linalg.inv_ex", A.ndim == 2)
    return inverse, info


def linalg_inv_ex(A, check_errors=False):
    return linalg_inv_ex_out(A, check_errors)


# -- determinants --------------------------------------------------------------------------------------------------
def _det_parts(A: TensorImpl, fn: str, LU, pivots):
    square_checks(A, fn)
    checked(A, fn, low_precision=fn == "linalg.det")  # det lets half reach the LU kernel, which refuses it
    LU = column_major_out(LU, A.sizes, A.dtype, A.device)
    pivots = set_output(pivots, tuple(A.sizes[:-1]), _dt.int32, A.device)
    return LU, pivots


def _lu_for_det(A, LU, pivots):
    if A.dtype not in LAPACK_DTYPES:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A.dtype._short}'")
    lu, piv, _ = _lu_numpy(A)
    write(LU, lu)
    write(pivots, piv)
    n = A.sizes[-1]
    diag = lu[..., range(n), range(n)]
    swaps = (piv != np.arange(1, n + 1)).sum(-1) % 2
    parity = np.where(swaps == 1, -1, 1).astype(A.dtype.np)
    return diag, parity


def linalg_det_out(A, result=None, LU=None, pivots=None):
    """``_linalg_det.result``: det(A) as the product of U's diagonal times the pivots' parity; LU and pivots."""
    LU, pivots = _det_parts(A, "linalg.det", LU, pivots)
    result = set_output(result, _batch(A), A.dtype, A.device)
    if is_meta(A, result, LU, pivots):
        return result, LU, pivots
    diag, parity = _lu_for_det(A, LU, pivots)
    write(result, parity * np.prod(diag, axis=-1))
    return result, LU, pivots


def linalg_det(A):
    return linalg_det_out(A)


def linalg_slogdet_out(A, sign=None, logabsdet=None, LU=None, pivots=None):
    """``_linalg_slogdet.sign``: sign (a unit complex number for complex A) and log|det A|; LU and pivots."""
    LU, pivots = _det_parts(A, "linalg.slogdet", LU, pivots)
    sign = set_output(sign, _batch(A), A.dtype, A.device)
    logabsdet = set_output(logabsdet, _batch(A), A.dtype.to_real(), A.device)
    if is_meta(A, sign, logabsdet, LU, pivots):
        return sign, logabsdet, LU, pivots
    diag, parity = _lu_for_det(A, LU, pivots)
    absd = np.abs(diag)
    with np.errstate(divide="ignore", invalid="ignore"):
        phase = np.where(absd == 0, 0, diag / np.where(absd == 0, 1, absd))
        write(logabsdet, np.sum(np.log(absd), axis=-1))
    write(sign, parity * np.prod(phase, axis=-1))
    return sign, logabsdet, LU, pivots


def linalg_slogdet(A):
    return linalg_slogdet_out(A)


# -- Cholesky ------------------------------------------------------------------------------------------------------
def _cholesky_numpy(A: TensorImpl, upper: bool):
    """(factor (B, n, n), info (B,)) from ``potrf`` on each matrix (the other triangle zeroed)."""
    a = matrices(A.as_numpy())
    potrf = lapack_fn("potrf", A.dtype)
    res = np.zeros(a.shape, A.dtype.np)
    info = np.zeros(a.shape[0], np.int32)
    for i in range(a.shape[0]):
        c, inf = potrf(a[i], lower=not upper, clean=True)
        res[i] = c
        info[i] = inf
    return res, info


def linalg_cholesky_ex_out(A, upper=False, check_errors_=False, L=None, info=None, fn="linalg.cholesky"):
    """``linalg_cholesky_ex.L``: the lower (or upper) Cholesky factor of each Hermitian positive-definite matrix."""
    square_checks(A, fn)
    checked(A, fn, low_precision=True)
    L = column_major_out(L, A.sizes, A.dtype, A.device)
    info = set_output(info, _batch(A), _dt.int32, A.device)
    if is_meta(A, L, info):
        return L, info
    if A.dtype not in LAPACK_DTYPES:
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{A.dtype._short}'")
    c, inf = _cholesky_numpy(A, upper)
    write(L, c)
    write(info, inf)
    if check_errors_:
        check_errors(inf, fn + "_ex", A.ndim == 2)
    return L, info


def linalg_cholesky_ex(A, upper=False, check_errors=False):
    return linalg_cholesky_ex_out(A, upper, check_errors)


_CHOLESKY_WARNING = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
    "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = "
    "torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will "
    "produce equivalent results for all valid (symmetric positive definite) inputs.")
_warned = set()


def cholesky_out_cpu(self, upper=False, out=None):
    """``cholesky.out`` (deprecated): the factor, raising PyTorch's ``cholesky:`` error when not positive-definite."""
    if "cholesky" not in _warned:
        _warned.add("cholesky")
        _user_warn(_CHOLESKY_WARNING)
    info = set_output(None, _batch(self), _dt.int32, self.device) if self.ndim >= 2 else None
    out, info = linalg_cholesky_ex_out(self, upper, False, out, info, fn="cholesky")
    if not is_meta(out, info):
        check_errors(info.as_numpy(), "cholesky", self.ndim == 2)
    return out


def cholesky_cpu(self, upper=False):
    return cholesky_out_cpu(self, upper)


def cholesky_solve_out_cpu(self, input2, upper=False, out=None):
    """``cholesky_solve.out``: X with ``A X = B`` for A = L Lᴴ (U ᴴU) given its factor ``input2``; B is ``self``."""
    fn = "cholesky_solve"
    for t, name in ((self, "b"), (input2, "u")):
        if t.ndim < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has {t.ndim} dimensions instead")
    batch = tuple(_shape.broadcast_shapes(self.sizes[:-2], input2.sizes[:-2]))  # b's batch first, as PyTorch
    same_dtype(self, input2, fn, "self", "input2")
    square_checks(input2, fn, "A")
    if input2.sizes[-1] != self.sizes[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {fn}: each A matrix is {input2.sizes[-1]} by "
                           f"{input2.sizes[-1]} but each b matrix is {self.sizes[-2]} by {self.sizes[-1]}")
    shape = batch + tuple(self.sizes[-2:])
    out = column_major_out(out, shape, self.dtype, self.device)
    if is_meta(self, input2, out) or out.numel() == 0:
        return out
    n = input2.sizes[-1]
    a = np.broadcast_to(input2.as_numpy(), batch + (n, n)).reshape(-1, n, n)
    b = np.broadcast_to(self.as_numpy(), shape).reshape((-1,) + shape[-2:])
    potrs = lapack_fn("potrs", self.dtype)
    res = np.empty(b.shape, self.dtype.np)
    for i in range(b.shape[0]):
        res[i], _ = potrs(a[i], b[i], lower=not upper)
    write(out, res)
    return out


def cholesky_solve_cpu(self, input2, upper=False):
    return cholesky_solve_out_cpu(self, input2, upper)


def cholesky_inverse_out(self, upper=False, out=None):
    """``cholesky_inverse.out``: (L Lᴴ)⁻¹ (or (Uᴴ U)⁻¹) from a Cholesky factor (``potri``)."""
    fn = "cholesky_inverse"
    square_checks(self, fn)
    checked(self, fn)
    out = column_major_out(out, self.sizes, self.dtype, self.device)
    if is_meta(self, out) or out.numel() == 0:
        return out
    a = matrices(self.as_numpy())
    potri = lapack_fn("potri", self.dtype)
    res = np.empty(a.shape, self.dtype.np)
    info = np.zeros(a.shape[0], np.int32)
    for i in range(a.shape[0]):
        inv, info[i] = potri(a[i], lower=not upper)
        full = np.tril(inv) if not upper else np.triu(inv)  # potri writes one triangle: mirror it
        strict = np.tril(inv, -1) if not upper else np.triu(inv, 1)
        res[i] = full + strict.conj().T
    check_errors(info, fn, self.ndim == 2)
    write(out, res)
    return out


def cholesky_inverse(self, upper=False):
    return cholesky_inverse_out(self, upper)


# -- triangular solves ---------------------------------------------------------------------------------------------
def _trsm(a, b, upper, unitriangular, trans, dtype):
    """One triangular solve (``trtrs``), trans 0 (A), 1 (Aᵀ) or 2 (Aᴴ); singular diagonals give inf/nan as BLAS's
    ``trsm`` (which PyTorch calls) does rather than stopping."""
    diag = np.diagonal(a)
    if not unitriangular and (diag == 0).any():
        tri = np.triu(a) if upper else np.tril(a)
        op = tri if trans == 0 else (tri.T if trans == 1 else tri.conj().T)
        with np.errstate(all="ignore"):
            return _substitute(op, b, upper != (trans != 0))
    trtrs = lapack_fn("trtrs", dtype)
    x, _ = trtrs(a, b, lower=not upper, trans=trans, unitdiag=unitriangular)
    return x


def _substitute(t, b, upper):
    """Forward/back substitution through zero pivots (IEEE results, as trsm)."""
    n = t.shape[0]
    x = np.array(b, dtype=np.result_type(t, b), copy=True)
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        rest = slice(i + 1, n) if upper else slice(0, i)
        x[i] = (x[i] - t[i, rest] @ x[rest]) / t[i, i]
    return x


def linalg_solve_triangular_out(self, B, upper, left=True, unitriangular=False, out=None):
    """``linalg_solve_triangular.out``: X with ``A X = B`` (``X A = B``) for a triangular A (``self``)."""
    fn = "linalg.solve_triangular"
    if B.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    square_checks(self, fn)
    batch = _broadcast_solve_batch(self, B, fn, left)
    shape = batch + tuple(B.sizes[-2:])
    out = column_major_out(out, shape, self.dtype, B.device)  # the result (and B, cast) take A's dtype
    if is_meta(self, B, out) or out.numel() == 0:
        return out
    if self.dtype not in LAPACK_DTYPES:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{self.dtype._short}'")
    n = self.sizes[-1]
    a = np.broadcast_to(self.as_numpy(), batch + (n, n)).reshape(-1, n, n)
    b = np.broadcast_to(B.as_numpy(), shape).reshape((-1,) + shape[-2:]).astype(self.dtype.np, copy=False)
    res = np.empty(b.shape, self.dtype.np)
    for i in range(b.shape[0]):
        if left:
            res[i] = _trsm(a[i], b[i], upper, unitriangular, 0, self.dtype)
        else:  # X A = B  <=>  Aᵀ Xᵀ = Bᵀ
            res[i] = _trsm(a[i], b[i].T, upper, unitriangular, 1, self.dtype).T
    write(out, res)
    return out


def linalg_solve_triangular(self, B, upper, left=True, unitriangular=False):
    return linalg_solve_triangular_out(self, B, upper, left, unitriangular)


_TRIANGULAR_SOLVE_WARNING = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a future "
    "PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a copy of one of "
    "the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
    "torch.linalg.solve_triangular(A, B).")


def triangular_solve_out(self, A, upper=True, transpose=False, unitriangular=False, X=None, M=None):
    """``triangular_solve.X``: the legacy ``(solution, cloned_coefficient)`` of ``op(A) X = B`` (B is ``self``)."""
    fn = "torch.triangular_solve"
    if "triangular_solve" not in _warned:
        _warned.add("triangular_solve")
        _user_warn(_TRIANGULAR_SOLVE_WARNING)
    for t, name in ((self, "b"), (A, "A")):
        if t.ndim < 2:
            raise RuntimeError(f"{fn}: Expected {name} to have at least 2 dimensions, but it has {t.ndim} dimensions "
                               f"instead")
    if self.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {self.dtype._short} and A "
                           f"of type {A.dtype._short} instead.")
    square_checks(A, fn)
    if A.sizes[-1] != self.sizes[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.sizes[-1]} by {A.sizes[-1]} but each b matrix is {self.sizes[-2]} by {self.sizes[-1]}")
    batch = tuple(_shape.broadcast_shapes(self.sizes[:-2], A.sizes[:-2]))
    shape_b, shape_a = batch + tuple(self.sizes[-2:]), batch + tuple(A.sizes[-2:])
    X = column_major_out(X, shape_b, self.dtype, self.device)
    M = column_major_out(M, shape_a, A.dtype, A.device)
    if is_meta(self, A, X, M):
        return X, M
    a_full = np.broadcast_to(A.as_numpy(), shape_a)
    write(M, a_full)
    if X.numel() == 0:
        return X, M
    n = A.sizes[-1]
    a = a_full.reshape(-1, n, n)
    b = np.broadcast_to(self.as_numpy(), shape_b).reshape((-1,) + shape_b[-2:])
    res = np.empty(b.shape, self.dtype.np)
    for i in range(b.shape[0]):
        res[i] = _trsm(a[i], b[i], upper, unitriangular, 1 if transpose else 0, self.dtype)
    write(X, res)
    return X, M


def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    return triangular_solve_out(self, A, upper, transpose, unitriangular)
