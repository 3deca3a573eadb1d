"""Separable resampling CPU kernels — PyTorch's ``separable_upsample_generic_Nd_kernel_impl`` and the
``HelperInterp{Linear,Cubic}`` weight helpers of ``cpu/UpSampleKernel.cpp``: antialiased bilinear
(``_upsample_bilinear2d_aa`` and its backward) for every dtype, and the uint8 path of plain bilinear/bicubic.

Each output index gets a window ``[xmin, xmin + xsize)`` of input indices and float64 weights:

- antialias (PIL's bounds): ``center = scale * (i + 0.5)``, support ``K/2 * max(scale, 1)``, weights
  ``filter((j + xmin - center + 0.5) / max(scale, 1))`` normalised to sum 1 (bicubic ``a = -0.5``);
- no antialias (uint8 only): the float path's source index and ``lambda``, taps out of range folded onto
  the border ones (bicubic ``a = -0.75``).

Width is resampled first, then height (a dim whose size does not change is skipped).  uint8 rescales the
weights to int16 with PyTorch's precision search and rounds each pass as it does:
``clamp((2**(p - 1) + sum(x * w16)) >> p, 0, 255)``, so the result is bit-equal; float inputs compute in
their own dtype.  The backward adds ``wx * wy * grad`` into the input window (the transposed passes).

Invariant: every kernel also runs on ``meta`` tensors, computing only the output geometry.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor.impl import TensorImpl, empty_contiguous, empty_strided_impl
from .conv import _fmt, _meta

_FLOATS = (_dt.float32, _dt.float64)


def _area_scale(isz, osz, align_corners, scale, ft=np.float64):
    """``area_pixel_compute_scale<ft>`` (a given scale is inverted in double, then rounded to ``ft``)."""
    if align_corners:
        return ft(isz - 1) / ft(osz - 1) if osz > 1 else ft(0)
    return ft(1.0 / scale) if scale is not None and scale > 0 else ft(isz) / ft(osz)


def _linear(x):
    x = abs(x)
    return type(x)(1.0) - x if x < 1.0 else type(x)(0.0)


def _cubic(a):
    def f(x):
        x = abs(x)
        if x < 1.0:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        if x < 2.0:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return 0.0
    return f


def _aa_window(i, isz, scale, support, width, fn, ft):
    """PIL's bounds and normalised weights of output ``i``, with PyTorch's float/double mix for ``ft``."""
    center = ft(float(scale) * (i + 0.5))
    invscale = ft(1.0 / float(scale)) if scale >= 1.0 else ft(1.0)
    xmin = max(int(float(center - support) + 0.5), 0)
    xsize = min(max(min(int(float(center + support) + 0.5), isz) - xmin, 0), width)
    w = [fn(ft((float(ft(j + xmin) - center) + 0.5) * float(invscale))) for j in range(xsize)]
    total = ft(0)
    for v in w:
        total = ft(total + v)
    if total != 0.0:
        w = [ft(v / total) for v in w]
    return xmin, xsize, w


def _plain_window(i, isz, scale, align_corners, width, fn):
    if align_corners:
        real = scale * i
    else:
        real = scale * (i + 0.5) - 0.5
        if width == 2 and real < 0:
            real = 0.0
    idx = min(int(np.floor(np.float32(real))), isz - 1)
    lam = min(max(real - idx, 0.0), 1.0)
    support = width // 2
    lo = idx - support + 1
    xmin = max(lo, 0)
    xsize = min(max(min(idx + support + 1, isz) - xmin, 0), width)
    w = [0.0] * width
    k = 0
    for j in range(width):  # taps past either border fold onto the border tap
        if lo + j <= 0:
            k = 0
        elif lo + j >= isz - 1:
            k = xsize - 1
        w[k] += fn(float(j + 1 - support) - lam)
        k += 1
    return xmin, xsize, w[:width]


def window_weights(isz, osz, align_corners, scale, cubic, antialias, ft=np.float64):
    """(xmin, xsize, weights (osz, width) in ``ft``) of one dim, as ``_compute_index_ranges_weights<ft>``."""
    s = _area_scale(isz, osz, align_corners, scale, ft)
    K = 4 if cubic else 2
    fn = (_cubic(-0.5 if antialias else -0.75)) if cubic else _linear
    if antialias:
        support = ft(K * 0.5 * float(s)) if s >= 1.0 else ft(K * 0.5)
        width = int(np.ceil(support)) * 2 + 1
        rows = [_aa_window(i, isz, s, support, width, fn, ft) for i in range(osz)]
    else:
        width = K
        rows = [_plain_window(i, isz, float(s), align_corners, width, fn) for i in range(osz)]
    xmin = np.array([r[0] for r in rows], np.int64)
    xsize = np.array([r[1] for r in rows], np.int64)
    w = np.zeros((osz, width), ft)
    for i, r in enumerate(rows):
        w[i, :len(r[2])] = r[2]
    w[np.arange(width)[None, :] >= xsize[:, None]] = 0.0
    return xmin, xsize, w


def _int16(w):
    """PyTorch's weights precision search and round-half-away rescaling of the weights to int16."""
    w_max = max(float(w.max(initial=0.0)), 0.0)
    p = 0
    while p < 22 and int(0.5 + w_max * (1 << (p + 1))) < (1 << 15):
        p += 1
    v = w * (1 << p)
    return np.where(v < 0, np.trunc(-0.5 + v), np.trunc(0.5 + v)).astype(np.int64), p


def _pass(x, axis, xmin, w, uint8):
    """One resampling pass along ``axis`` (the taps ``xmin + j`` with weights ``w[:, j]``, added in order)."""
    x = np.moveaxis(x, axis, -1)
    isz = x.shape[-1]
    width = w.shape[1]
    idx = np.minimum(xmin[:, None] + np.arange(width)[None, :], isz - 1)
    if uint8:
        w16, p = _int16(w)
        acc = np.full(x.shape[:-1] + (len(xmin),), 1 << (p - 1), np.int64)
        xi = x.astype(np.int64)
        for j in range(width):
            acc += xi[..., idx[:, j]] * w16[:, j]
        out = np.clip(acc >> p, 0, 255).astype(np.uint8)
    else:
        wt = w.astype(x.dtype)
        out = x[..., idx[:, 0]] * wt[:, 0]
        for j in range(1, width):
            out = out + x[..., idx[:, j]] * wt[:, j]
    return np.moveaxis(out, -1, axis)


def separable_resample(x, out_sp, scales, align_corners, cubic, antialias):
    """(N, C, H, W) numpy ``x`` resampled to ``out_sp``: width first, then height; unchanged dims skipped."""
    uint8 = x.dtype == np.uint8
    for axis in (3, 2):
        isz, osz = x.shape[axis], out_sp[axis - 2]
        if isz == osz:
            continue
        ft = np.float64 if uint8 else x.dtype.type
        xmin, _, w = window_weights(isz, osz, align_corners, scales[axis - 2], cubic, antialias, ft)
        x = _pass(x, axis, xmin, w, uint8)
    return x


def _checks(self_sizes, output_size):
    output_size = tuple(output_size)
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(output_size)}")
    if len(self_sizes) != 4:
        raise RuntimeError(f"It is expected input_size equals to 4, but got size {len(self_sizes)}")
    H, W = self_sizes[2:]
    if not (H > 0 and W > 0 and all(v > 0 for v in output_size)):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input (H: {H}, W: {W}) "
                           f"output (H: {output_size[0]}, W: {output_size[1]})")
    return output_size


def _out_like(self, shape) -> TensorImpl:
    if _shape.is_channels_last_strides_2d(self.sizes, self.strides) and self.sizes[1] > 1:
        return empty_strided_impl(shape, _shape.channels_last_strides(shape), self.dtype, self.device)
    return empty_contiguous(shape, self.dtype, self.device)


def _forward(self, output_size, align_corners, scales, cubic, antialias, name):
    output_size = _checks(self.sizes, output_size)
    if self.numel() == 0 and int(np.prod(self.sizes[1:])) == 0:
        raise RuntimeError(f"Non-empty 4D data tensor expected but got a tensor with sizes {_fmt(self.sizes)}")
    out = _out_like(self, tuple(self.sizes[:2]) + output_size)
    if self.dtype not in _FLOATS + (_dt.uint8,):
        raise NotImplementedError(f"\"{name}\" not implemented for '{_dt.name_of(self.dtype)}'")
    if _meta(self) or out.numel() == 0:
        return out
    x = np.ascontiguousarray(self.as_numpy())
    y = separable_resample(x, output_size, scales, align_corners, cubic, antialias)
    np.copyto(out.as_numpy(), y, casting="unsafe")
    return out


def uint8_resample_2d(self, output_size, align_corners, scales, cubic, out):
    """The uint8 branch of ``upsample_bilinear2d`` / ``upsample_bicubic2d`` (antialias off) into ``out``."""
    y = separable_resample(np.ascontiguousarray(self.as_numpy()), tuple(output_size), scales, align_corners, cubic,
                           False)
    np.copyto(out.as_numpy(), y, casting="unsafe")
    return out


def upsample_bilinear2d_aa_kernel(self, output_size, align_corners, scales_h=None, scales_w=None):
    """``_upsample_bilinear2d_aa``: antialiased bilinear (a triangle filter widened by the downscale factor)."""
    return _forward(self, output_size, align_corners, (scales_h, scales_w), False, True,
                    "upsample_bilinear2d_aa")


def upsample_bilinear2d_aa_backward_kernel(grad_output, output_size, input_size, align_corners, scales_h=None,
                                           scales_w=None):
    """``_upsample_bilinear2d_aa_backward``: ``wx * wy * grad`` added over each output's input window."""
    output_size = _checks(tuple(input_size), output_size)
    want = tuple(input_size[:2]) + output_size
    for i, (a, b) in enumerate(zip(grad_output.sizes, want, strict=False)):
        if a != b:
            raise RuntimeError(f"Expected grad_output to have the same shape as output; output.size({i}) = {b} "
                               f"but got grad_output.size({i}) = {a}")
    out = empty_contiguous(tuple(input_size), grad_output.dtype, grad_output.device)
    if grad_output.dtype not in _FLOATS:
        raise NotImplementedError(f"\"upsample_bilinear2d_aa_backward_cpu\" not implemented for "
                                  f"'{_dt.name_of(grad_output.dtype)}'")
    if _meta(grad_output) or out.numel() == 0:
        return out
    g = grad_output.as_numpy()
    for axis, sc in ((2, scales_h), (3, scales_w)):
        isz, osz = input_size[axis], output_size[axis - 2]
        xmin, _, w = window_weights(isz, osz, align_corners, sc, False, True, g.dtype.type)
        g = _pass_transposed(g, axis, xmin, w, isz)
    np.copyto(out.as_numpy(), g, casting="unsafe")
    return out


def _pass_transposed(g, axis, xmin, w, isz):
    g = np.moveaxis(g, axis, -1)
    width = w.shape[1]
    idx = xmin[:, None] + np.arange(width)[None, :]
    keep = idx < isz
    wt = np.where(keep, w, 0.0).astype(g.dtype)
    idx = np.minimum(idx, isz - 1)
    out = np.zeros(g.shape[:-1] + (isz,), g.dtype)
    for j in range(width):
        np.add.at(out, (..., idx[:, j]), g * wt[:, j])
    return np.moveaxis(out, -1, axis)
