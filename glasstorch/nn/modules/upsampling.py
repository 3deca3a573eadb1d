"""Upsampling layers — PyTorch's ``torch/nn/modules/upsampling.py``: Upsample, UpsamplingNearest2d and
UpsamplingBilinear2d.

Invariant: forward is ``F.interpolate`` with the stored arguments; a scale factor is stored as a float (or a tuple
of floats), as PyTorch stores it.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resample (N, C, *spatial) input to ``size`` or by ``scale_factor`` (``nn.Upsample``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Upsample(scale_factor=2, mode="bilinear")(torch.randn(1, 1, 2, 2)).shape
        torch.Size([1, 1, 4, 4])
    """

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                 recompute_scale_factor=None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample(mode="nearest")`` for 4-D input (``nn.UpsamplingNearest2d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.UpsamplingNearest2d(scale_factor=2)(torch.randn(1, 1, 2, 2)).shape
        torch.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(mode="bilinear", align_corners=True)`` for 4-D input (``nn.UpsamplingBilinear2d``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.UpsamplingBilinear2d(scale_factor=2)(torch.randn(1, 1, 2, 2)).shape
        torch.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
