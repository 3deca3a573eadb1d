"""Pixel shuffles — PyTorch's ``torch/nn/modules/pixelshuffle.py``: PixelShuffle and PixelUnshuffle.

Invariant: forward is the functional call with the stored factor.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r) (``nn.PixelShuffle``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.PixelShuffle(3)(torch.randn(1, 9, 4, 4)).shape
        torch.Size([1, 1, 12, 12])
    """

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W) (``nn.PixelUnshuffle``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.PixelUnshuffle(3)(torch.randn(1, 1, 12, 12)).shape
        torch.Size([1, 9, 4, 4])
    """

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
