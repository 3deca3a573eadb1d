"""The pooling and resampling part of ``torch.nn.functional`` (PyTorch's ``torch/nn/functional.py``), in its own
file and re-exported by ``glasstorch.nn.functional``: ``max_pool1d/3d`` (``return_indices``), ``avg_pool1d/3d``,
the adaptive pools, ``max_unpool1d/2d/3d``, ``local_response_norm``, pixel and channel shuffles.

Invariant: each function repeats PyTorch's Python-level checks and calls the operator PyTorch's wrapper calls.
"""

from __future__ import annotations

import collections.abc
from itertools import repeat

from glasstorch._generated import functions as _gen


def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    return parse


_single, _pair, _triple = _ntuple(1), _ntuple(2), _ntuple(3)


def _list_with_default(out_size, defaults):
    """``torch.nn.modules.utils._list_with_default``: ``None`` entries take the input's trailing sizes."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):], strict=False)]


pixel_shuffle = _gen.pixel_shuffle  # torch.nn.functional.pixel_shuffle is torch.pixel_shuffle
pixel_unshuffle = _gen.pixel_unshuffle
channel_shuffle = _gen.channel_shuffle
native_channel_shuffle = _gen.native_channel_shuffle
avg_pool1d = _gen.avg_pool1d
avg_pool3d = _gen.avg_pool3d
adaptive_avg_pool1d = _gen.adaptive_avg_pool1d


# -- max pools ------------------------------------------------------------------------------------------------
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """1-D max pooling returning (values, indices)."""
    return _gen.max_pool1d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                        ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-D max pooling; ``return_indices=True`` also returns the argmax indices."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _gen.max_pool1d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """3-D max pooling returning (values, flat indices into each input volume)."""
    return _gen.max_pool3d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                        ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling; ``return_indices=True`` also returns the argmax indices."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _gen.max_pool3d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


# -- adaptive pools -------------------------------------------------------------------------------------------
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _gen.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D adaptive max pooling; ``return_indices=True`` also returns the indices."""
    out = _gen.adaptive_max_pool1d(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _gen.adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D adaptive max pooling (``None`` keeps that input size)."""
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _gen.adaptive_max_pool3d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D adaptive max pooling (``None`` keeps that input size)."""
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling (``None`` keeps that input size)."""
    return _gen.adaptive_avg_pool3d(input, _list_with_default(output_size, input.size()))


# -- max unpooling --------------------------------------------------------------------------------------------
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.size()
    n = len(kernel_size)
    default = [(input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not (lo < output_size[d] < hi):
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return output_size


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d``: values written back at their indices, zeros elsewhere."""
    kernel_size = _single(kernel_size)
    stride = _single(stride) if stride is not None else kernel_size
    padding = _single(padding)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    size = list(size) + [1] if isinstance(size, list) else tuple(size) + (1,)
    return _gen.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``."""
    kernel_size = _pair(kernel_size)
    stride = _pair(stride) if stride is not None else kernel_size
    padding = _pair(padding)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _gen.max_unpool2d(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool3d``."""
    kernel_size = _triple(kernel_size)
    stride = _triple(stride) if stride is not None else kernel_size
    padding = _triple(padding)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _gen.max_unpool3d(input, indices, size, stride, padding)
