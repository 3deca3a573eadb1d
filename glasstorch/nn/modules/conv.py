"""Convolution layers — PyTorch's ``torch/nn/modules/conv.py``: Conv1d/2d/3d and ConvTranspose1d/2d/3d.

``_ConvNd`` validates groups, the padding string (``'same'``/``'valid'``) and ``padding_mode``, stores the
geometry as n-tuples and creates ``weight`` (out_channels, in_channels // groups, *kernel_size) and
``bias``, both initialised like Linear (``kaiming_uniform_(a=sqrt(5))`` and U(-1/sqrt(fan_in), ...)).
A ``padding_mode`` other than ``'zeros'`` pads explicitly with ``F.pad`` (``_reversed_padding_repeated_twice``,
last dim first; for ``'same'`` the extra odd pixel goes to the end) and convolves with padding 0.

Invariant: ``weight.shape[1] * groups == in_channels``.
"""

from __future__ import annotations

import math

from ..._functions import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None) -> None:
        super().__init__()
        _check_conv_args(in_channels, out_channels, stride, padding, groups, padding_mode)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _explicit_padding(padding, kernel_size, dilation)
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(empty((*shape, *kernel_size), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight ~ kaiming_uniform_(a=sqrt(5)); bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


def _check_conv_args(in_channels, out_channels, stride, padding, groups, padding_mode) -> None:
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")
    valid_padding_strings = {"same", "valid"}
    if isinstance(padding, str):
        if padding not in valid_padding_strings:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
    if padding_mode not in valid_padding_modes:
        raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got padding_mode='{padding_mode}'")


def _explicit_padding(padding, kernel_size, dilation) -> list:
    """F.pad's amounts (last dim first, (left, right) each) for a non-zeros ``padding_mode``."""
    if not isinstance(padding, str):
        return list(_reverse_repeat_tuple(padding, 2))
    out = [0, 0] * len(kernel_size)
    if padding == "same":
        for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1), strict=False):
            total = d * (k - 1)
            out[2 * i] = total // 2
            out[2 * i + 1] = total - total // 2
    return out


class _ConvSpatialNd(_ConvNd):
    """Conv1d/2d/3d: the geometry as ``_tuple``-tuples, the forward through ``F.<_fn>``."""

    _tuple = staticmethod(_single)
    _fn = "conv1d"

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        t = self._tuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride),
                         padding if isinstance(padding, str) else t(padding), t(dilation), False, t(0), groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        conv = getattr(F, self._fn)
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                        self.stride, self._tuple(0), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvSpatialNd):
    """1-D convolution over (N, C_in, L) input (``nn.Conv1d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Conv1d(16, 33, 3, stride=2)(torch.randn(20, 16, 50)).shape
        torch.Size([20, 33, 24])
    """


class Conv2d(_ConvSpatialNd):
    """2-D convolution over (N, C_in, H, W) input (``nn.Conv2d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Conv2d(16, 33, 3, stride=2)(torch.randn(2, 16, 10, 10)).shape
        torch.Size([2, 33, 4, 4])
    """

    _tuple = staticmethod(_pair)
    _fn = "conv2d"


class Conv3d(_ConvSpatialNd):
    """3-D convolution over (N, C_in, D, H, W) input (``nn.Conv3d``)."""

    _tuple = staticmethod(_triple)
    _fn = "conv3d"


class _ConvTransposeNd(_ConvNd):
    _nd = 0
    _tuple = staticmethod(_single)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        t = self._tuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride), t(padding), t(dilation), True,
                         t(output_padding), groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        """The output_padding that makes the output ``output_size`` (within the sizes a stride allows)."""
        if output_size is None:
            return _single(self.output_padding)
        non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {non_spatial + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        lows = [(input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1
                for d in range(num_spatial_dims)]
        highs = [lo + stride[d] - 1 for d, lo in enumerate(lows)]
        for size, lo, hi in zip(output_size, lows, highs, strict=True):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {lows} to "
                                 f"{highs} (for an input of {input.size()[2:]})")
        return [size - lo for size, lo in zip(output_size, lows, strict=True)]

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              self._nd, self.dilation)
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._nd - 1]
        return fn(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                  self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution (``nn.ConvTranspose1d``)."""

    _nd = 1
    _tuple = staticmethod(_single)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution (``nn.ConvTranspose2d``)."""

    _nd = 2
    _tuple = staticmethod(_pair)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution (``nn.ConvTranspose3d``)."""

    _nd = 3
    _tuple = staticmethod(_triple)
