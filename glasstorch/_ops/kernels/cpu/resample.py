"""Resampling kernels: pixel and channel shuffles, nearest/linear/cubic upsampling, im2col/col2im — PyTorch's
``PixelShuffle.cpp``, ``ChannelShuffle.cpp``, ``UpSample*.cpp`` and ``Im2Col.cpp``/``Col2Im.cpp``.

Invariant: every kernel gathers with precomputed index (and weight) arrays in numpy, never a per-element
Python loop; outputs are fresh tensors (channels-last when a 4-D input suggests it, as PyTorch's are).
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor.impl import TensorImpl, empty_contiguous, empty_strided_impl
from . import nn_ckernels as _nnc
from .resample_aa import uint8_resample_2d


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def is_meta(*impls) -> bool:
    return any(type(t) is TensorImpl and t.storage._data is None for t in impls)


def new_like_layout(self, shape, dtype=None) -> TensorImpl:
    """A fresh output of ``shape``: channels-last when ``self`` (4-D) is, else contiguous."""
    shape = tuple(shape)
    dtype = self.dtype if dtype is None else dtype
    if self.ndim == 4 and len(shape) == 4 and _shape.is_channels_last_strides_2d(self.sizes, self.strides):
        return empty_strided_impl(shape, _shape.channels_last_strides(shape), dtype, self.device)
    return empty_contiguous(shape, dtype, self.device)


def _store(out, arr) -> TensorImpl:
    if not is_meta(out) and out.numel():
        np.copyto(out.as_numpy(), arr, casting="unsafe")
    return out


# -- pixel and channel shuffles ------------------------------------------------------------------------------
def _shuffle_checks(self, op, factor, what):
    if self.ndim < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input with {self.ndim} "
                           f"dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{op} expects a positive {what}, but got {factor}")


def pixel_shuffle_kernel(self, upscale_factor):
    """``pixel_shuffle``: (*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    r = upscale_factor
    _shuffle_checks(self, "pixel_shuffle", r, "upscale_factor")
    c, h, w = self.sizes[-3:]
    if c % (r * r) != 0:
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    batch = tuple(self.sizes[:-3])
    oc = c // (r * r)
    out = new_like_layout(self, batch + (oc, h * r, w * r))
    if is_meta(self) or out.numel() == 0:
        return out
    x = self.as_numpy().reshape(batch + (oc, r, r, h, w))
    nb = len(batch)
    axes = tuple(range(nb)) + (nb, nb + 3, nb + 1, nb + 4, nb + 2)
    return _store(out, x.transpose(axes).reshape(out.sizes))


def pixel_unshuffle_kernel(self, downscale_factor):
    """``pixel_unshuffle``: (*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    r = downscale_factor
    _shuffle_checks(self, "pixel_unshuffle", r, "downscale_factor")
    c, h, w = self.sizes[-3:]
    if h % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {r}")
    if w % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {r}")
    batch = tuple(self.sizes[:-3])
    oh, ow = h // r, w // r
    out = new_like_layout(self, batch + (c * r * r, oh, ow))
    if is_meta(self) or out.numel() == 0:
        return out
    x = self.as_numpy().reshape(batch + (c, oh, r, ow, r))
    nb = len(batch)
    axes = tuple(range(nb)) + (nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return _store(out, x.transpose(axes).reshape(out.sizes))


def channel_shuffle_kernel(self, groups):
    """``channel_shuffle`` / ``native_channel_shuffle``: (N, g*k, *) -> channels read as (k, g)."""
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if self.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {_fmt(self.sizes)}")
    c = self.sizes[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    out = new_like_layout(self, self.sizes)
    if is_meta(self) or out.numel() == 0:
        return out
    n, rest = self.sizes[0], tuple(self.sizes[2:])
    x = self.as_numpy().reshape((n, groups, c // groups) + rest)
    return _store(out, x.swapaxes(1, 2).reshape(out.sizes))


def native_channel_shuffle_kernel(self, groups):
    """``native_channel_shuffle``: the kernel of ``channel_shuffle`` (an operator without a derivative)."""
    return channel_shuffle_kernel(self, groups)


# -- upsampling ------------------------------------------------------------------------------------------------
# Note [Upsampling index and weight rules]
# PyTorch's UpSample.h, per spatial dim: the scale is 1/scale_factor when one was given, else in/out
# (align_corners: (in-1)/(out-1)); nearest reads floor(dst * scale) in float32 (an explicit scale is used even
# where out == 2 * in),
# nearest-exact floor((dst + 0.5) * scale); linear and cubic read the source coordinate scale * (dst + 0.5) - 0.5
# (linear clamps it at 0; align_corners: scale * dst) in the op-math type.  The taps of the last dim are summed
# innermost: out = sum_j w_h[j] * (sum_i w_w[i] * x[h_j, w_i]), which applying one dim at a time, last dim
# first, reproduces operation for operation.
_CUBIC_A = -0.75
_UPSAMPLE_NAMES = {1: "W", 2: "H, W", 3: "D, H, W"}


def _scale_value(scale, isz, osz, ft):
    """PyTorch's ``compute_scales_value``."""
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(isz) / ft(osz)


def _area_scale(isz, osz, align_corners, scale, ft):
    """PyTorch's ``area_pixel_compute_scale``."""
    if align_corners:
        return ft(isz - 1) / ft(osz - 1) if osz > 1 else ft(0)
    return _scale_value(scale, isz, osz, ft)


def nearest_index(isz, osz, scale, exact):
    """Source index of each output index along one dim (nearest or nearest-exact)."""
    o = np.arange(osz)
    s = _scale_value(scale, isz, osz, np.float32)
    if exact:
        src = np.floor(((o + 0.5) * np.float64(s)).astype(np.float32))
    else:
        src = np.floor(o.astype(np.float32) * s)
    return np.minimum(src.astype(np.int64), isz - 1)


def _source_coords(isz, osz, align_corners, scale, ft, cubic):
    ratio = _area_scale(isz, osz, align_corners, scale, ft)
    o = np.arange(osz).astype(ft)
    if align_corners:
        return ratio * o
    src = ratio * (o + ft(0.5)) - ft(0.5)
    return src if cubic else np.where(src < 0, ft(0), src)


def _stored(w, wt, ft):
    """Weights as PyTorch stores them: in the tensor's dtype (``wt``), read back in the op-math type."""
    return w if wt is None else w.astype(wt).astype(ft)


def linear_taps(isz, osz, align_corners, scale, ft, wt=None):
    """(osz, 2) source indices and weights of linear interpolation along one dim (lambda0 = 1 - stored lambda1)."""
    if isz == osz:
        o = np.arange(osz)
        return np.stack([o, o], 1), np.stack([np.ones(osz, ft), np.zeros(osz, ft)], 1)
    real = _source_coords(isz, osz, align_corners, scale, ft, cubic=False)
    i0 = np.minimum(np.floor(real).astype(np.int64), isz - 1)
    l1 = _stored(np.clip(real - i0.astype(ft), ft(0), ft(1)).astype(ft), wt, ft)
    i1 = i0 + (i0 < isz - 1)
    return np.stack([i0, i1], 1), np.stack([_stored(ft(1) - l1, wt, ft), l1], 1)


def _cubic1(x):
    return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1


def _cubic2(x):
    return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A


def cubic_taps(isz, osz, align_corners, scale, ft, wt=None):
    """(osz, 4) source indices (clamped to the input) and cubic-convolution weights (A = -0.75) along one dim."""
    real = _source_coords(isz, osz, align_corners, scale, ft, cubic=True)
    i = np.floor(real).astype(np.int64)
    t = (real - i.astype(ft)).astype(ft)
    one, two = ft(1), ft(2)
    w = np.stack([_cubic2(t + one), _cubic1(t), _cubic1(one - t), _cubic2(two - t)], 1).astype(ft)
    idx = np.clip(i[:, None] + np.arange(-1, 3)[None, :], 0, isz - 1)
    return idx, _stored(w, wt, ft)


def _along(arr, axis):
    """A per-index vector shaped to broadcast along ``axis`` of an array."""
    return arr.reshape((-1,) + (1,) * (-axis - 1))


def apply_taps(x, axis, idx, w):
    """sum_t w[:, t] * x.take(idx[:, t], axis) (weights None: a plain gather)."""
    if w is None:
        return np.take(x, idx, axis=axis)
    out = np.take(x, idx[:, 0], axis=axis) * _along(w[:, 0], axis)
    for t in range(1, idx.shape[1]):
        out += np.take(x, idx[:, t], axis=axis) * _along(w[:, t], axis)
    return out


def apply_taps_transposed(g, axis, idx, w, isz):
    """The adjoint of ``apply_taps``: each output's grad times its weights, added at its source indices."""
    moved = np.moveaxis(g, axis, 0)
    out = np.zeros((isz,) + moved.shape[1:], g.dtype)
    for t in range(idx.shape[1] if idx.ndim == 2 else 1):
        cols = idx[:, t] if idx.ndim == 2 else idx
        vals = moved if w is None else moved * w[:, t].reshape((-1,) + (1,) * (moved.ndim - 1))
        np.add.at(out, cols, vals)
    return np.moveaxis(out, 0, axis)


def _weight_dtype(dtype):
    """float16/bfloat16 keep their interpolation weights in their own dtype (PyTorch's weight tensors)."""
    return dtype.np if dtype in (_dt.float16, _dt.bfloat16) else None


def _opmath(dtype):
    return np.float64 if dtype is _dt.float64 else np.float32


def _upsample_checks(self_sizes, output_size, n):
    output_size = tuple(output_size)
    if len(output_size) != n:
        raise RuntimeError(f"It is expected output_size equals to {n}, but got size {len(output_size)}")
    if len(self_sizes) != n + 2:
        raise RuntimeError(f"It is expected input_size equals to {n + 2}, but got size {len(self_sizes)}")
    in_sp = tuple(self_sizes[2:])
    if not (all(v > 0 for v in in_sp) and all(v > 0 for v in output_size)):
        names = _UPSAMPLE_NAMES[n].split(", ")
        ins = ", ".join(f"{k}: {v}" for k, v in zip(names, in_sp, strict=True))
        outs = ", ".join(f"{k}: {v}" for k, v in zip(names, output_size, strict=True))
        sep = " and output" if n == 1 else ") output" if False else " output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}){sep} ({outs})")
    return in_sp, output_size


def _plans(in_sp, out_sp, scales, mode, align_corners, ft, wt=None):
    plans = []
    for isz, osz, sc in zip(in_sp, out_sp, scales, strict=True):
        if mode in ("nearest", "nearest-exact"):
            plans.append((nearest_index(isz, osz, sc, mode == "nearest-exact"), None))
        elif mode == "linear":
            plans.append(linear_taps(isz, osz, align_corners, sc, ft, wt))
        else:
            plans.append(cubic_taps(isz, osz, align_corners, sc, ft, wt))
    return plans


_DTYPES = {"nearest": "upsample_nearest", "nearest-exact": "_upsample_nearest_exact", "linear": "upsample_linear",
           "cubic": "upsample_bicubic"}


def _upsample_forward(self, output_size, scales, mode, align_corners=False):
    n = len(scales)
    in_sp, out_sp = _upsample_checks(self.sizes, output_size, n)
    if self.numel() == 0 and _prod(self.sizes[1:]) == 0:
        raise RuntimeError(f"Non-empty {n + 2}D data tensor expected but got a tensor with sizes {_fmt(self.sizes)}")
    out = new_like_layout(self, tuple(self.sizes[:2]) + out_sp)
    nearest = mode in ("nearest", "nearest-exact")
    separable_uint8 = n == 2 and mode in ("linear", "cubic")  # PyTorch's integer-weight path (resample_aa.py)
    allowed = (_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16) + ((_dt.uint8,) if nearest or separable_uint8
                                                                      else ())
    if self.dtype not in allowed:
        raise NotImplementedError(f'"{_DTYPES[mode]}{n}d_channels_last" not implemented for '
                                  f'\'{_dt.name_of(self.dtype)}\'')
    if is_meta(self) or out.numel() == 0:
        return out
    if self.dtype is _dt.uint8 and not nearest:
        return uint8_resample_2d(self, out_sp, align_corners, scales, mode == "cubic", out)
    ft = _opmath(self.dtype)
    y = self.as_numpy() if nearest else self.as_numpy().astype(ft, copy=False)
    # bilinear2d keeps op-math weights; linear1d, trilinear3d and bicubic2d store them in the tensor's dtype
    wt = None if (mode == "linear" and n == 2) else _weight_dtype(self.dtype)
    plans = _plans(in_sp, out_sp, scales, mode, align_corners, ft, wt)
    dest = out.as_numpy()
    if not (dest.flags.c_contiguous and dest.dtype == y.dtype):
        dest = None
    if nearest and dest is not None and _nnc.gather(y, [idx for idx, _ in plans], dest):
        return out
    y = _apply_plans(y, plans, dest)
    return out if y is dest else _store(out, y)


def _apply_plans(y, plans, dest):
    """``y`` through every dim's taps, the last dim first; the C loop writes its last pass into ``dest`` (when
    not None)."""
    n = len(plans)
    for step, (d, (idx, w)) in enumerate(reversed(list(enumerate(plans)))):
        res = _nnc.apply_taps(y, d - n, idx, w, dest if step == n - 1 else None)
        y = apply_taps(y, d - n, idx, w) if res is None else res
    return y


def _upsample_backward(grad_output, output_size, input_size, scales, mode, align_corners=False):
    n = len(scales)
    in_sp, out_sp = _upsample_checks(tuple(input_size), output_size, n)
    want = tuple(input_size[:2]) + out_sp
    if tuple(grad_output.sizes) != want:
        for i, (a, b) in enumerate(zip(grad_output.sizes, want, strict=False)):
            if a != b:
                raise RuntimeError(f"Expected grad_output to have the same shape as output; output.size({i}) = {b} "
                                   f"but got grad_output.size({i}) = {a}")
    out = empty_contiguous(tuple(input_size), grad_output.dtype, grad_output.device)
    if is_meta(grad_output) or out.numel() == 0:
        return out
    ft = _opmath(grad_output.dtype)
    g = grad_output.as_numpy().astype(ft)
    for d, (idx, w) in enumerate(_plans(in_sp, out_sp, scales, mode, align_corners, ft)):
        g = apply_taps_transposed(g, d - n, idx, w, in_sp[d])
    return _store(out, g)


def _prod(xs):
    p = 1
    for v in xs:
        p *= v
    return p


def upsample_nearest1d_kernel(self, output_size, scales=None):
    return _upsample_forward(self, output_size, (scales,), "nearest")


def upsample_nearest2d_kernel(self, output_size, scales_h=None, scales_w=None):
    return _upsample_forward(self, output_size, (scales_h, scales_w), "nearest")


def upsample_nearest3d_kernel(self, output_size, scales_d=None, scales_h=None, scales_w=None):
    return _upsample_forward(self, output_size, (scales_d, scales_h, scales_w), "nearest")


def upsample_nearest_exact1d_kernel(self, output_size, scales=None):
    return _upsample_forward(self, output_size, (scales,), "nearest-exact")


def upsample_nearest_exact2d_kernel(self, output_size, scales_h=None, scales_w=None):
    return _upsample_forward(self, output_size, (scales_h, scales_w), "nearest-exact")


def upsample_nearest_exact3d_kernel(self, output_size, scales_d=None, scales_h=None, scales_w=None):
    return _upsample_forward(self, output_size, (scales_d, scales_h, scales_w), "nearest-exact")


def upsample_linear1d_kernel(self, output_size, align_corners, scales=None):
    return _upsample_forward(self, output_size, (scales,), "linear", align_corners)


def upsample_bilinear2d_kernel(self, output_size, align_corners, scales_h=None, scales_w=None):
    return _upsample_forward(self, output_size, (scales_h, scales_w), "linear", align_corners)


def upsample_trilinear3d_kernel(self, output_size, align_corners, scales_d=None, scales_h=None, scales_w=None):
    return _upsample_forward(self, output_size, (scales_d, scales_h, scales_w), "linear", align_corners)


def upsample_bicubic2d_kernel(self, output_size, align_corners, scales_h=None, scales_w=None):
    return _upsample_forward(self, output_size, (scales_h, scales_w), "cubic", align_corners)


def upsample_nearest1d_backward_kernel(grad_output, output_size, input_size, scales=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales,), "nearest")


def upsample_nearest2d_backward_kernel(grad_output, output_size, input_size, scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales_h, scales_w), "nearest")


def upsample_nearest3d_backward_kernel(grad_output, output_size, input_size, scales_d=None, scales_h=None,
                                       scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales_d, scales_h, scales_w), "nearest")


def upsample_nearest_exact1d_backward_kernel(grad_output, output_size, input_size, scales=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales,), "nearest-exact")


def upsample_nearest_exact2d_backward_kernel(grad_output, output_size, input_size, scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales_h, scales_w), "nearest-exact")


def upsample_nearest_exact3d_backward_kernel(grad_output, output_size, input_size, scales_d=None, scales_h=None,
                                             scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales_d, scales_h, scales_w), "nearest-exact")


def upsample_linear1d_backward_kernel(grad_output, output_size, input_size, align_corners, scales=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales,), "linear", align_corners)


def upsample_bilinear2d_backward_kernel(grad_output, output_size, input_size, align_corners, scales_h=None,
                                        scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales_h, scales_w), "linear", align_corners)


def upsample_trilinear3d_backward_kernel(grad_output, output_size, input_size, align_corners, scales_d=None,
                                         scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales_d, scales_h, scales_w), "linear",
                              align_corners)


def upsample_bicubic2d_backward_kernel(grad_output, output_size, input_size, align_corners, scales_h=None,
                                       scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, (scales_h, scales_w), "cubic", align_corners)


# -- im2col / col2im (F.unfold / F.fold) ----------------------------------------------------------------------
def _im2col_params(kernel_size, dilation, padding, stride):
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (tuple(v) for v in (kernel_size, dilation, padding, stride))
    if not (kh > 0 and kw > 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}")
    if not (sh > 0 and sw > 0):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}")
    if not (dh > 0 and dw > 0):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dh} dilation_width: {dw}")
    if not (ph >= 0 and pw >= 0):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}")
    return (kh, kw), (dh, dw), (ph, pw), (sh, sw)


def _blocks(size, k, d, p, s):
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


def im2col_kernel(self, kernel_size, dilation, padding, stride):
    """``im2col`` (``F.unfold``): (N, C, H, W) -> (N, C * kh * kw, L) sliding blocks, kernel offsets major."""
    k, d, p, s = _im2col_params(kernel_size, dilation, padding, stride)
    nd = self.ndim
    if not (nd in (3, 4) and all(v != 0 for v in self.sizes[nd - 3:])):  # a 4-D batch may be empty
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {_fmt(self.sizes)}")
    c, h, w = self.sizes[-3:]
    oh, ow = _blocks(h, k[0], d[0], p[0], s[0]), _blocks(w, k[1], d[1], p[1], s[1])
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {h}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array of sliding blocks as "
                           f"({oh}, {ow}), but its components must be at least one.")
    batch = tuple(self.sizes[:-3])
    out = empty_contiguous(batch + (c * k[0] * k[1], oh * ow), self.dtype, self.device)
    if not (self.dtype.is_floating_point or self.dtype.is_complex or self.dtype is _dt.bool):
        raise NotImplementedError(f'"im2col_out_cpu" not implemented for \'{_dt.name_of(self.dtype)}\'')
    if is_meta(self) or out.numel() == 0:
        return out
    x = self.as_numpy()
    if p[0] or p[1]:
        x = np.pad(x, [(0, 0)] * (x.ndim - 2) + [(p[0], p[0]), (p[1], p[1])])
    win = np.lib.stride_tricks.sliding_window_view(x, (d[0] * (k[0] - 1) + 1, d[1] * (k[1] - 1) + 1), axis=(-2, -1))
    win = win[..., ::s[0], ::s[1], ::d[0], ::d[1]][..., :oh, :ow, :, :]  # (..., C, oh, ow, kh, kw)
    nb = len(batch)
    cols = win.transpose(tuple(range(nb)) + (nb, nb + 3, nb + 4, nb + 1, nb + 2))
    return _store(out, cols.reshape(out.sizes))


def col2im_kernel(self, output_size, kernel_size, dilation, padding, stride):
    """``col2im`` (``F.fold``): sums the sliding blocks back into (N, C, H, W), one kernel offset at a time."""
    if len(tuple(output_size)) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(tuple(output_size))}")
    k, d, p, s = _im2col_params(kernel_size, dilation, padding, stride)
    oh_, ow_ = tuple(output_size)
    nd = self.ndim
    valid = (nd == 2 and self.sizes[0] != 0 and self.sizes[1] != 0) or \
        (nd == 3 and self.sizes[1] != 0 and self.sizes[2] != 0)
    if not valid:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {_fmt(self.sizes)}")
    planes, length = self.sizes[-2:]
    if planes % (k[0] * k[1]) != 0:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={planes} and kernel_size=({k[0]}, {k[1]}).")
    bh, bw = _blocks(oh_, k[0], d[0], p[0], s[0]), _blocks(ow_, k[1], d[1], p[1], s[1])
    params = (f"Given output_size=({oh_}, {ow_}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, {d[1]}), "
              f"padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), ")
    if bh < 1 or bw < 1:
        raise RuntimeError(params + f"calculated shape of the array of sliding blocks as ({bh}, {bw}), which is too "
                           f"small (non-positive)")
    if length != bh * bw:
        raise RuntimeError(params + f"expected size of input's dimension 2 to match the calculated number of sliding "
                           f"blocks {bh} * {bw} = {bh * bw}, but got input.size(2)={length}.")
    batch = tuple(self.sizes[:-2])
    c = planes // (k[0] * k[1])
    out = empty_contiguous(batch + (c, oh_, ow_), self.dtype, self.device)
    if is_meta(self) or out.numel() == 0:
        return out
    cols = self.as_numpy().reshape(batch + (c, k[0], k[1], bh, bw))
    hp, wp = oh_ + 2 * p[0] + s[0] * bh, ow_ + 2 * p[1] + s[1] * bw  # room for every block, cropped below
    acc = np.zeros(batch + (c, hp + d[0] * k[0], wp + d[1] * k[1]), cols.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            r, q = i * d[0], j * d[1]
            acc[..., r:r + s[0] * (bh - 1) + 1:s[0], q:q + s[1] * (bw - 1) + 1:s[1]] += cols[..., i, j, :, :]
    return _store(out, acc[..., p[0]:p[0] + oh_, p[1]:p[1] + ow_])
