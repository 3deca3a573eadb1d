"""Dropout — PyTorch's ``torch/nn/modules/dropout.py``.

In training, each element is zeroed with probability ``p`` and the survivors are scaled by ``1 / (1 - p)``;
in eval mode (``module.eval()``) the input passes through unchanged.

Invariant: ``0 <= p <= 1``, checked at construction.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Randomly zero elements with probability ``p`` while training (``nn.Dropout``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Dropout(0.2).eval()(torch.ones(3))
        tensor([1., 1., 1.])
    """

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` / ``(C, L)`` inputs with probability ``p`` while training."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` inputs with probability ``p`` while training."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` / ``(C, D, H, W)`` inputs with probability ``p`` while training."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalizing statistics (``nn.AlphaDropout``)."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (``nn.FeatureAlphaDropout``)."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
