"""Pooling layers — PyTorch's ``torch/nn/modules/pooling.py``: max, average, adaptive pools (1-3d) and max unpools.

The layers store their arguments as given (an int stays an int, so the repr prints ``kernel_size=2``);
``stride`` defaults to ``kernel_size``.

Invariant: forward is the functional call with the stored arguments.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module
from .utils import _pair, _single, _triple

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


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


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling over (N, C, L) or (C, L) input (``nn.MaxPool1d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.MaxPool1d(2)(torch.randn(1, 3, 8)).shape
        torch.Size([1, 3, 4])
    """

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, ceil_mode=self.ceil_mode,
                            return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W) input (``nn.MaxPool3d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.MaxPool3d(2)(torch.randn(1, 3, 4, 4, 4)).shape
        torch.Size([1, 3, 2, 2, 2])
    """

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation, ceil_mode=self.ceil_mode,
                            return_indices=self.return_indices)


class AvgPool1d(Module):
    """1-D average pooling (``nn.AvgPool1d``); its sizes are stored as 1-tuples.

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.AvgPool1d(3)
        AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))
    """

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(AvgPool2d):
    """3-D average pooling (``nn.AvgPool3d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.AvgPool3d(2)(torch.randn(1, 2, 4, 4, 4)).shape
        torch.Size([1, 2, 2, 2, 2])
    """

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """Average pooling of (N, C, L) to a fixed length (``nn.AdaptiveAvgPool1d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.AdaptiveAvgPool1d(5)(torch.randn(1, 64, 8)).shape
        torch.Size([1, 64, 5])
    """

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """Average pooling of (N, C, D, H, W) to a fixed size (``nn.AdaptiveAvgPool3d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.AdaptiveAvgPool3d((5, 7, 9))(torch.randn(1, 64, 8, 9, 10)).shape
        torch.Size([1, 64, 5, 7, 9])
    """

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, L) to a fixed length (``nn.AdaptiveMaxPool1d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.AdaptiveMaxPool1d(5)(torch.randn(1, 64, 8)).shape
        torch.Size([1, 64, 5])
    """

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, H, W) to a fixed size (``nn.AdaptiveMaxPool2d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.AdaptiveMaxPool2d((5, 7))(torch.randn(1, 64, 8, 9)).shape
        torch.Size([1, 64, 5, 7])
    """

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, D, H, W) to a fixed size (``nn.AdaptiveMaxPool3d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.AdaptiveMaxPool3d(2)(torch.randn(1, 4, 5, 6, 7)).shape
        torch.Size([1, 4, 2, 2, 2])
    """

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _ntuple = staticmethod(_pair)

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = self._ntuple(kernel_size)
        self.stride = self._ntuple(stride if stride is not None else kernel_size)
        self.padding = self._ntuple(padding)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d`` (``nn.MaxUnpool1d``).

    Example:
        >>> import glasstorch as torch
        >>> out, idx = torch.nn.MaxPool1d(2, return_indices=True)(torch.randn(1, 1, 8))
        >>> torch.nn.MaxUnpool1d(2)(out, idx).shape
        torch.Size([1, 1, 8])
    """

    _ntuple = staticmethod(_single)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d`` (``nn.MaxUnpool2d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.MaxUnpool2d(2)
        MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    """

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d`` (``nn.MaxUnpool3d``).

    Example:
        >>> import glasstorch as torch
        >>> out, idx = torch.nn.MaxPool3d(2, return_indices=True)(torch.randn(1, 1, 4, 4, 4))
        >>> torch.nn.MaxUnpool3d(2)(out, idx).shape
        torch.Size([1, 1, 4, 4, 4])
    """

    _ntuple = staticmethod(_triple)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)
