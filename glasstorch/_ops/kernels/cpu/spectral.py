"""Singular value decomposition CPU kernel — PyTorch's ``_linalg_svd`` (``BatchLinearAlgebra.cpp``), on LAPACK's
divide-and-conquer ``gesdd`` through ``numpy.linalg.svd``.

``_linalg_svd(A, full_matrices, compute_uv)`` returns ``(U, S, Vh)`` with ``A = U @ diag(S) @ Vh`` and the
singular values ``S`` real and descending.  The layout is PyTorch's: ``S`` is contiguous, ``U`` and ``Vh`` are
batches of column-major matrices (what LAPACK writes), and without ``compute_uv`` both are empty ``(0,)``
tensors.  ``linalg.svdvals``, ``linalg.svd`` and the spectral matrix norms are composites over this one kernel.

The same function serves the Meta key: the checks and output geometry come first, then (not on meta) the data.

Invariant: the input is never written; outputs are allocated here or are the ``out=`` tensors, resized.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl, empty_strided_impl
from ...tensor_iterator import resize_out
from .linalg import is_meta, set_output

__all__ = ["LinAlgError", "linalg_svd_cpu", "linalg_svd_out_cpu"]

_LAPACK_DTYPES = (_dt.float32, _dt.float64, _dt.complex64, _dt.complex128)


class LinAlgError(RuntimeError):
    """PyTorch's ``torch.linalg.LinAlgError``: a LAPACK routine failed on the given input."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"  # torch._C._LinAlgError's name


def _checks(A: TensorImpl) -> None:
    if A.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"linalg.svd: Expected a floating point or complex tensor as input. Got {A.dtype._short}")


def _column_major(shape) -> tuple:
    """Strides of a batch of column-major matrices (LAPACK's layout, PyTorch's for U and Vh): the contiguous
    strides of the transposed shape, transposed back (sizes 0 count as 1, as in ``contiguous_strides``)."""
    *batch, m, n = shape
    strides, step = [], 1
    for size in reversed((*batch, n, m)):
        strides.insert(0, step)
        step *= max(size, 1)
    return (*strides[:-2], strides[-1], strides[-2])


def _geometry(A: TensorImpl, full_matrices: bool, compute_uv: bool):
    *batch, m, n = A.sizes
    k = min(m, n)
    batch = tuple(batch)
    if not compute_uv:
        return (0,), batch + (k,), (0,)
    if full_matrices:
        return batch + (m, m), batch + (k,), batch + (n, n)
    return batch + (m, k), batch + (k,), batch + (k, n)


def _fill(A: TensorImpl, full_matrices: bool, compute_uv: bool, U, S, Vh) -> None:
    if A.dtype not in _LAPACK_DTYPES:
        raise NotImplementedError(f"\"linalg_svd_cpu\" not implemented for '{A.dtype._short}'")
    a = A.as_numpy()
    if np.isnan(a).any():  # LAPACK reports NaN as a failure to converge; an infinity yields NaN factors instead
        raise LinAlgError(_nan_message(a))
    finite = np.isfinite(a).all(axis=(-2, -1))
    if not finite.all():
        a = np.where(finite[..., None, None], a, 0)
    if compute_uv:
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices, compute_uv=True)
        np.copyto(U.as_numpy(), u, casting="unsafe")
        np.copyto(Vh.as_numpy(), vh, casting="unsafe")
    else:
        s = np.linalg.svd(a, compute_uv=False)
    np.copyto(S.as_numpy(), s, casting="unsafe")
    if not finite.all():
        for out in (S, U, Vh) if compute_uv else (S,):
            arr = out.as_numpy()
            arr[~finite] = np.nan


def _nan_message(a: np.ndarray) -> str:
    text = "The algorithm failed to converge because the input matrix contained non-finite values."
    if a.ndim == 2:
        return f"linalg.svd: {text}"
    bad = np.argwhere(np.isnan(a).reshape(-1, *a.shape[-2:]).any(axis=(-2, -1)))[0, 0]
    return f"linalg.svd: (Batch element {bad}): {text}"


def linalg_svd_cpu(A: TensorImpl, full_matrices=False, compute_uv=True, driver=None):
    """``_linalg_svd``: ``(U, S, Vh)`` of a (batch of) matrices (also the Meta kernel)."""
    return linalg_svd_out_cpu(A, full_matrices, compute_uv, driver, None, None, None)


def linalg_svd_out_cpu(A: TensorImpl, full_matrices=False, compute_uv=True, driver=None, U=None, S=None, Vh=None):
    """``_linalg_svd.U``: the decomposition written into ``U``, ``S`` and ``Vh`` (resized as needed)."""
    _checks(A)
    if driver is not None and A.device.type != "meta":
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    u_shape, s_shape, vh_shape = _geometry(A, full_matrices, compute_uv)
    real = A.dtype.to_real()
    U = _matrices(U, u_shape, A.dtype, A.device, compute_uv)
    S = set_output(S, s_shape, real, A.device)
    Vh = _matrices(Vh, vh_shape, A.dtype, A.device, compute_uv)
    if not is_meta(A, U, S, Vh) and A.numel():
        _fill(A, full_matrices, compute_uv, U, S, Vh)
    elif not is_meta(A, U, S, Vh) and compute_uv:
        _identity_factors(U, Vh)
    return U, S, Vh


def _matrices(out, shape, dtype, device, compute_uv) -> TensorImpl:
    strides = _column_major(shape) if compute_uv else (1,)
    if out is None:
        return empty_strided_impl(shape, strides, dtype, device)
    out = set_output(out, shape, dtype, device)
    if compute_uv and out.strides != strides and out.numel() > 1:
        resize_out(out, shape)
        out.set_geometry(shape, strides, out.offset)
    return out


def _identity_factors(U: TensorImpl, Vh: TensorImpl) -> None:
    """An empty matrix's factors: the identity for whichever square factor is not empty (LAPACK's answer)."""
    for f in (U, Vh):
        if f.numel():
            arr = f.as_numpy()
            arr[...] = 0
            n = min(arr.shape[-2:])
            arr[..., range(n), range(n)] = 1
