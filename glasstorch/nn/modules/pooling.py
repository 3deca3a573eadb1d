"""Pooling layers — PyTorch's ``torch/nn/modules/pooling.py``: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d.

The layers store their arguments as given (an int stays an int, so the repr prints ``kernel_size=2``);
``stride`` defaults to ``kernel_size``.

Invariant: forward is the functional call with the stored arguments.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling over (N, C, H, W) or (C, H, W) input (``nn.MaxPool2d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.MaxPool2d(2)(torch.randn(1, 3, 8, 8)).shape
        torch.Size([1, 3, 4, 4])
    """

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, ceil_mode=self.ceil_mode,
                            return_indices=self.return_indices)


class AvgPool2d(Module):
    """2-D average pooling (``nn.AvgPool2d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.AvgPool2d(3, stride=2)
        AvgPool2d(kernel_size=3, stride=2, padding=0)
    """

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed output size (None keeps that input dim) (``nn.AdaptiveAvgPool2d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.AdaptiveAvgPool2d((5, 7))(torch.randn(1, 64, 8, 9)).shape
        torch.Size([1, 64, 5, 7])
    """

    __constants__ = ["output_size"]

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
