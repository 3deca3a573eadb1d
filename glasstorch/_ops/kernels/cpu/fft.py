"""FFT CPU kernels — PyTorch's ``_fft_r2c``, ``_fft_c2r`` and ``_fft_c2c`` (``native/mkl/SpectralOps.cpp``), on
scipy's pocketfft (``scipy.fft``), the library PyTorch's CPU build falls back to and whose float32 transforms stay
in single precision, as PyTorch's do.

- ``_fft_c2c(x, dim, normalization, forward)``: complex to complex over ``dim``, sign -1 when ``forward``;
- ``_fft_r2c(x, dim, normalization, onesided)``: real to complex, always forward; ``onesided`` keeps the first
  ``n // 2 + 1`` outputs of the last transformed dim, otherwise the whole Hermitian spectrum;
- ``_fft_c2r(x, dim, normalization, last_dim_size)``: the inverse of a onesided ``r2c``: the last transformed dim
  of the output has ``last_dim_size`` points (the input's holds ``last_dim_size // 2 + 1``).

``normalization`` is PyTorch's ``fft_norm_mode``: 0 no scaling, 1 by ``1/sqrt(n)``, 2 by ``1/n`` (``n`` the signal
size), whatever the direction.  Results have PyTorch's layout (``_exec_fft``): the batch dims outermost, in the
input's stride order, then the transformed dims in the order the kernel transforms them.

The same functions serve the Meta key: geometry first, then (not on meta) the data.
Invariant: the input is never written; a result is fresh, or the ``out=`` tensor resized as ``resize_output``.
"""

from __future__ import annotations

import numpy as np
import scipy.fft as _sfft

from ...._core import dtype as _dt
from ...._device.threads import get_num_threads
from ...._tensor.impl import TensorImpl, empty_strided_impl, from_numpy_impl
from ...tensor_iterator import resize_out
from .linalg import is_meta

__all__ = ["fft_r2c", "fft_r2c_out", "fft_c2r", "fft_c2r_out", "fft_c2c", "fft_c2c_out"]

# fft_norm_mode -> scipy's norm, for a forward (sign -1) and for a backward (sign +1) transform
_NORM_FORWARD = ("backward", "ortho", "forward")
_NORM_BACKWARD = ("forward", "ortho", "backward")


def _sort_dims(x: TensorImpl, dim, exclude_last: bool = False) -> list:
    """PyTorch's ``_sort_dims``: transform dims by decreasing input stride (a onesided transform keeps its last)."""
    dims = [d % x.ndim if x.ndim else d for d in dim]
    head, tail = (dims[:-1], dims[-1:]) if exclude_last else (dims, [])
    return sorted(head, key=lambda d: -x.strides[d]) + tail


def _fft_layout(x: TensorImpl, out_sizes, dims) -> tuple:
    """``_exec_fft``'s output strides: batch dims first in decreasing input stride, then ``dims`` in order,
    contiguous in that permuted order."""
    transformed = set(dims)
    batch = sorted((d for d in range(x.ndim) if d not in transformed), key=lambda d: -x.strides[d])
    order = batch + list(dims)
    strides, step = [0] * x.ndim, 1
    for d in reversed(order):
        strides[d] = step
        step *= max(out_sizes[d], 1)
    return tuple(strides)


def _result(x: TensorImpl, out_sizes, dims, dtype, out, values=None) -> TensorImpl:
    """The output: ``out`` resized, or a fresh tensor in PyTorch's layout, holding ``values`` when given (scipy's
    array itself when it already has that layout)."""
    out_sizes = tuple(out_sizes)
    if out is not None:
        resize_out(out, out_sizes)
        res = out
    else:
        strides = _fft_layout(x, out_sizes, dims)
        if values is not None and values.dtype == dtype.np and values.size and \
                tuple(s // values.itemsize for s in values.strides) == strides:
            return from_numpy_impl(values, dtype, x.device)
        res = empty_strided_impl(out_sizes, strides, dtype, x.device)
    if values is not None and res.numel():
        res.as_numpy()[...] = values
    return res


def _check_float_input(x: TensorImpl, complex_input: bool) -> None:
    if x.dtype is _dt.complex32:
        raise RuntimeError("MKL FFT doesn't support tensors of type: Half")  # PyTorch's CPU kernel's words
    ok = x.dtype in ((_dt.complex64, _dt.complex128) if complex_input else (_dt.float32, _dt.float64))
    if not ok:
        raise RuntimeError(f"Unsupported dtype {x.dtype._short}")


def _workers() -> int:
    return max(get_num_threads(), 1)


def _c2c_values(a: np.ndarray, dims, normalization: int, forward: bool) -> np.ndarray:
    if not dims:
        return a
    fn, norms = (_sfft.fftn, _NORM_FORWARD) if forward else (_sfft.ifftn, _NORM_BACKWARD)
    return fn(a, axes=dims, norm=norms[normalization], workers=_workers())


def fft_c2c(self: TensorImpl, dim, normalization: int, forward: bool, out=None) -> TensorImpl:
    """``_fft_c2c``: the complex transform of ``self`` over ``dim``."""
    _check_float_input(self, True)
    dims = _sort_dims(self, dim)
    if is_meta(self, out):
        return _result(self, self.sizes, dims, self.dtype, out)
    values = _c2c_values(self.as_numpy(), dims, normalization, forward)
    return _result(self, self.sizes, dims, self.dtype, out, values)


def fft_c2c_out(self, dim, normalization, forward, out):
    return fft_c2c(self, dim, normalization, forward, out)


def fft_r2c(self: TensorImpl, dim, normalization: int, onesided: bool, out=None) -> TensorImpl:
    """``_fft_r2c``: the forward transform of a real ``self`` over ``dim``; onesided halves the last dim."""
    _check_float_input(self, False)
    dims = _sort_dims(self, dim, exclude_last=True)
    last = dims[-1]
    sizes = list(self.sizes)
    if onesided:
        sizes[last] = sizes[last] // 2 + 1
    if is_meta(self, out):
        return _result(self, sizes, dims, self.dtype.to_complex(), out)
    a = self.as_numpy()
    if onesided:
        values = _sfft.rfftn(a, axes=dims, norm=_NORM_FORWARD[normalization], workers=_workers())
    else:
        values = _sfft.fftn(a, axes=dims, norm=_NORM_FORWARD[normalization], workers=_workers())
    return _result(self, sizes, dims, self.dtype.to_complex(), out, values)


def fft_r2c_out(self, dim, normalization, onesided, out):
    return fft_r2c(self, dim, normalization, onesided, out)


def fft_c2r(self: TensorImpl, dim, normalization: int, last_dim_size: int, out=None) -> TensorImpl:
    """``_fft_c2r``: the real inverse of a onesided spectrum; the last dim of ``dim`` gets ``last_dim_size``."""
    _check_float_input(self, True)
    dims = _sort_dims(self, dim, exclude_last=True)
    sizes = list(self.sizes)
    sizes[dims[-1]] = last_dim_size
    if is_meta(self, out):
        return _result(self, sizes, dims, self.dtype.to_real(), out)
    shape = [sizes[d] for d in dims]
    values = _sfft.irfftn(self.as_numpy(), s=shape, axes=dims, norm=_NORM_BACKWARD[normalization],
                          workers=_workers())
    return _result(self, sizes, dims, self.dtype.to_real(), out, values)


def fft_c2r_out(self, dim, normalization, last_dim_size, out):
    return fft_c2r(self, dim, normalization, last_dim_size, out)
