"""Sliding-block layers — PyTorch's ``torch/nn/modules/fold.py``: Unfold (im2col) and Fold (col2im).

Invariant: forward is the functional call with the stored arguments.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Unfold(Module):
    """Extract sliding local blocks as columns: (N, C, H, W) -> (N, C * prod(kernel_size), L) (``nn.Unfold``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Unfold(kernel_size=(2, 3))(torch.randn(2, 5, 3, 4)).shape
        torch.Size([2, 30, 4])
    """

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class Fold(Module):
    """Sum columns of sliding blocks back into (N, C, *output_size) (``nn.Fold``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Fold(output_size=(4, 5), kernel_size=(2, 2))(torch.randn(1, 12, 12)).shape
        torch.Size([1, 3, 4, 5])
    """

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
