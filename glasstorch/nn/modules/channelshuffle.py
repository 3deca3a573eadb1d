"""Channel shuffle — PyTorch's ``torch/nn/modules/channelshuffle.py``.

Invariant: forward is the functional call with the stored group count.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Regroup (N, g * k, *) channels as (k, g) (``nn.ChannelShuffle``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.ChannelShuffle(2)(torch.arange(4.0).reshape(1, 4, 1, 1)).flatten().tolist()
        [0.0, 2.0, 1.0, 3.0]
    """

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
