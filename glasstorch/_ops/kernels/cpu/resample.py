"""Resampling kernels: pixel and channel shuffles, nearest/linear/cubic upsampling, im2col/col2im — PyTorch's
``PixelShuffle.cpp``, ``ChannelShuffle.cpp``, ``UpSample*.cpp`` and ``Im2Col.cpp``/``Col2Im.cpp``.

Invariant: every kernel gathers with precomputed index (and weight) arrays in numpy, never a per-element
Python loop; outputs are fresh tensors (channels-last when a 4-D input suggests it, as PyTorch's are).
"""

from __future__ import annotations

import numpy as np

from ...._core import shape as _shape
from ...._tensor.impl import TensorImpl, empty_contiguous, empty_strided_impl


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
