"""The ``torch.fft`` functions (CompositeImplicitAutograd) — PyTorch's ``native/SpectralOps.cpp``, over the three
transform primitives ``_fft_r2c``, ``_fft_c2r`` and ``_fft_c2c``.

Each function promotes its input (integers to the default float dtype; float16/bfloat16 refused on the CPU, as
PyTorch refuses them), resizes it to the requested signal sizes (slicing or zero-padding: ``_resize_input``),
maps ``norm`` to the primitives' ``fft_norm_mode`` (``_norm``) and calls one primitive, or two for the Hermitian
n-d transforms.  A transform PyTorch computes as the conjugate of another (``ifft`` of real input, ``hfft``,
``ihfft``) returns the lazily conjugated view, as PyTorch's does.  ``out=`` goes to the primitive's ``out``
overload, or ``conj_physical.out`` after a conjugated result.

Invariant: no kernel is called directly; everything dispatches, so autograd sees the primitives.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..aten import aten

__all__ = [f"fft_{n}{suf}" for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft") for suf in ("", "2", "n")]
__all__ += [f"{n}_out" for n in list(__all__)] + ["fft_fftshift", "fft_ifftshift"]

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2  # PyTorch's fft_norm_mode


def _norm(norm, forward: bool) -> int:
    """``norm_from_string``: "backward" (the default) scales the inverse by 1/n, "forward" the forward one,
    "ortho" both by 1/sqrt(n)."""
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x, require_complex: bool = False):
    """``promote_tensor_fft``: complex stays; integers become the default float; only float32/64 transform on
    the CPU; ``require_complex`` makes the real result complex."""
    dt = x.dtype
    if dt.is_complex:
        return x
    if not dt.is_floating_point:
        dt = _dt.get_default_dtype()
    if dt not in (_dt.float32, _dt.float64) and not (x.device.type == "meta" and dt is _dt.float16):
        raise RuntimeError(f"Unsupported dtype {dt._short}")
    if require_complex:
        dt = dt.to_complex()
    return x if dt is x.dtype else aten._to_copy(x, dt, None, None, None, False, None)


def _check_points(n) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize_input(x, dims, sizes):
    """``resize_fft_input``: slice or zero-pad ``x`` so that ``x.size(dims[i]) == sizes[i]``."""
    pad = [0] * (2 * x.ndim)
    padded = False
    for d, n in zip(dims, sizes, strict=True):
        size = x.sizes[d]
        if size > n:
            x = aten.slice_Tensor(x, d, 0, n, 1)
        elif size < n:
            pad[2 * (x.ndim - 1 - d) + 1] = n - size
            padded = True
    return aten.constant_pad_nd(x, pad, 0) if padded else x


def _dims_and_shape(x, s, dim):
    """``canonicalize_fft_shape_and_dim_args``: wrapped unique dims and the signal size in each."""
    ndim, sizes = x.ndim, x.sizes
    dims = None
    if dim is not None:
        dims = [wrap_dim(d, ndim, wrap_scalar=False) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [sizes[d] if n == -1 else n for d, n in zip(dims, s, strict=True)]
    else:
        dims = list(range(ndim)) if dims is None else dims
        shape = [sizes[d] for d in dims]
    for n in shape:
        _check_points(n)
    return dims, shape


# -- the primitives with an optional out= ------------------------------------------------------------------------
def _dtype_name(out) -> str:
    return out.dtype._short


def _c2c(fname, x, dims, norm, forward, out):
    if out is None:
        return aten._fft_c2c(x, dims, norm, forward)
    if not out.dtype.is_complex:
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {_dtype_name(out)}")
    return aten._fft_c2c_out(x, dims, norm, forward, out)


def _c2r(fname, x, dims, norm, last_dim_size, out):
    if out is None:
        return aten._fft_c2r(x, dims, norm, last_dim_size)
    if not out.dtype.is_floating_point:
        raise RuntimeError(f"{fname} expects a floating point output tensor, but got {_dtype_name(out)}")
    return aten._fft_c2r_out(x, dims, norm, last_dim_size, out)


def _r2c(fname, x, dims, norm, onesided, out, conj: bool = False):
    """``_fft_r2c``; ``conj``: the conjugate of the result (lazy, or written into ``out``)."""
    if out is not None and not out.dtype.is_complex:
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {_dtype_name(out)}")
    if conj:
        ret = aten._fft_r2c(x, dims, norm, onesided)
        return aten._conj(ret) if out is None else aten.conj_physical_out(ret, out)
    return aten._fft_r2c(x, dims, norm, onesided) if out is None else aten._fft_r2c_out(x, dims, norm, onesided, out)


# -- one-dimensional transforms --------------------------------------------------------------------------------
def _one_c2c(fname, x, n, dim, norm, forward, out):
    d = wrap_dim(dim, x.ndim, wrap_scalar=False)
    n = x.sizes[d] if n is None else n
    _check_points(n)
    return _c2c(fname, _resize_input(x, [d], [n]), [d], _norm(norm, forward), forward, out)


def _one_r2c(fname, x, n, dim, norm, forward, onesided, out):
    if x.dtype.is_complex:
        raise RuntimeError(f"{fname} expects a real input tensor, but got {x.dtype._short}")
    if out is not None and not out.dtype.is_complex:
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {_dtype_name(out)}")
    x = _promote(x)
    d = wrap_dim(dim, x.ndim, wrap_scalar=False)
    n = x.sizes[d] if n is None else n
    _check_points(n)
    x = _resize_input(x, [d], [n])
    return _r2c(fname, x, [d], _norm(norm, forward), onesided, out, conj=not forward)


def _one_c2r(fname, x, n, dim, norm, forward, out):
    if out is not None and not out.dtype.is_floating_point:
        raise RuntimeError(f"{fname} expects a floating point output tensor, but got {_dtype_name(out)}")
    x = _promote(x, require_complex=True)
    d = wrap_dim(dim, x.ndim, wrap_scalar=False)
    last = 2 * (x.sizes[d] - 1) if n is None else n
    _check_points(last)
    if n is not None:
        x = _resize_input(x, [d], [last // 2 + 1])
    if forward:
        x = aten._conj(x)  # hfft: the c2r primitive only runs backward
    return _c2r(fname, x, [d], _norm(norm, forward), last, out)


def fft_fft(self, n=None, dim=-1, norm=None, out=None):
    if self.dtype.is_complex:
        return _one_c2c("fft", self, n, dim, norm, True, out)
    return _one_r2c("fft", self, n, dim, norm, True, False, out)


def fft_ifft(self, n=None, dim=-1, norm=None, out=None):
    if self.dtype.is_complex:
        return _one_c2c("ifft", self, n, dim, norm, False, out)
    return _one_r2c("ifft", self, n, dim, norm, False, False, out)


def fft_rfft(self, n=None, dim=-1, norm=None, out=None):
    return _one_r2c("rfft", self, n, dim, norm, True, True, out)


def fft_irfft(self, n=None, dim=-1, norm=None, out=None):
    return _one_c2r("irfft", self, n, dim, norm, False, out)


def fft_hfft(self, n=None, dim=-1, norm=None, out=None):
    return _one_c2r("hfft", self, n, dim, norm, True, out)


def fft_ihfft(self, n=None, dim=-1, norm=None, out=None):
    return _one_r2c("ihfft", self, n, dim, norm, False, True, out)


# -- n-dimensional transforms ----------------------------------------------------------------------------------
def _fftn(self, s, dim, norm, forward, out):
    dims, shape = _dims_and_shape(self, s, dim)
    x = _resize_input(_promote(self, require_complex=True), dims, shape)
    return _c2c("fftn", x, dims, _norm(norm, forward), forward, out)


def _rfftn(self, s, dim, norm, out):
    if self.dtype.is_complex:
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {self.dtype._short}")
    dims, shape = _dims_and_shape(self, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize_input(_promote(self), dims, shape)
    return _r2c("rfftn", x, dims, _norm(norm, True), True, out)


def _c2r_dims(fname, self, s, dim):
    """``canonicalize_fft_c2r_shape_and_dim_args``: the dims, the input's (halved) shape and the output's last
    signal size."""
    dims, shape = _dims_and_shape(self, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    last = 2 * (self.sizes[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    _check_points(last)
    shape[-1] = last // 2 + 1
    return dims, shape, last


def _irfftn(self, s, dim, norm, out):
    dims, shape, last = _c2r_dims("irfftn", self, s, dim)
    x = _resize_input(_promote(self, require_complex=True), dims, shape)
    return _c2r("irfftn", x, dims, _norm(norm, False), last, out)


def _hfftn(self, s, dim, norm, out):
    dims, shape, last = _c2r_dims("hfftn", self, s, dim)
    x = _resize_input(_promote(self, require_complex=True), dims, shape)
    mode = _norm(norm, True)
    if len(dims) > 1:
        x = aten._fft_c2c(x, dims[:-1], mode, True)
    return _c2r("hfftn", aten._conj(x), dims[-1:], mode, last, out)


def _ihfftn(self, s, dim, norm, out):
    dims, shape = _dims_and_shape(self, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resize_input(_promote(self), dims, shape)
    mode = _norm(norm, False)
    if len(dims) == 1:
        if out is None:
            return _r2c("ihfftn", x, dims, mode, True, None, conj=True)
        # PyTorch's ihfftn passes the pair to conj_physical_out the other way round: the spectrum is overwritten
        # with conj(out) and out is returned as it came (kept here, so results agree with torch's)
        aten.conj_physical_out(out, aten._fft_r2c(x, dims, mode, True))
        return out
    tmp = aten.conj_physical(aten._fft_r2c(x, dims[-1:], mode, True))
    return _c2c("ihfftn", tmp, dims[:-1], mode, False, out)


def fft_fftn(self, s=None, dim=None, norm=None, out=None):
    return _fftn(self, s, dim, norm, True, out)


def fft_ifftn(self, s=None, dim=None, norm=None, out=None):
    return _fftn(self, s, dim, norm, False, out)


def fft_rfftn(self, s=None, dim=None, norm=None, out=None):
    return _rfftn(self, s, dim, norm, out)


def fft_irfftn(self, s=None, dim=None, norm=None, out=None):
    return _irfftn(self, s, dim, norm, out)


def fft_hfftn(self, s=None, dim=None, norm=None, out=None):
    return _hfftn(self, s, dim, norm, out)


def fft_ihfftn(self, s=None, dim=None, norm=None, out=None):
    return _ihfftn(self, s, dim, norm, out)


def fft_fft2(self, s=None, dim=(-2, -1), norm=None, out=None):
    return fft_fftn(self, s, dim, norm, out)


def fft_ifft2(self, s=None, dim=(-2, -1), norm=None, out=None):
    return fft_ifftn(self, s, dim, norm, out)


def fft_rfft2(self, s=None, dim=(-2, -1), norm=None, out=None):
    return fft_rfftn(self, s, dim, norm, out)


def fft_irfft2(self, s=None, dim=(-2, -1), norm=None, out=None):
    return fft_irfftn(self, s, dim, norm, out)


def fft_hfft2(self, s=None, dim=(-2, -1), norm=None, out=None):
    return fft_hfftn(self, s, dim, norm, out)


def fft_ihfft2(self, s=None, dim=(-2, -1), norm=None, out=None):
    return fft_ihfftn(self, s, dim, norm, out)


# the .out kernels are the functional ones (out is their last argument)
fft_fft_out = fft_fft
fft_fft2_out = fft_fft2
fft_fftn_out = fft_fftn
fft_ifft_out = fft_ifft
fft_ifft2_out = fft_ifft2
fft_ifftn_out = fft_ifftn
fft_rfft_out = fft_rfft
fft_rfft2_out = fft_rfft2
fft_rfftn_out = fft_rfftn
fft_irfft_out = fft_irfft
fft_irfft2_out = fft_irfft2
fft_irfftn_out = fft_irfftn
fft_hfft_out = fft_hfft
fft_hfft2_out = fft_hfft2
fft_hfftn_out = fft_hfftn
fft_ihfft_out = fft_ihfft
fft_ihfft2_out = fft_ihfft2
fft_ihfftn_out = fft_ihfftn


# -- fftshift / ifftshift ---------------------------------------------------------------------------------------
def _shift(self, dim, inverse: bool):
    dims = list(range(self.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    shifts = [(self.sizes[wrap_dim(d, self.ndim)] + inverse) // 2 for d in dims]
    return aten.roll(self, shifts, dims)


def fft_fftshift(self, dim=None):
    return _shift(self, dim, False)


def fft_ifftshift(self, dim=None):
    return _shift(self, dim, True)
