"""Distance modules — PyTorch's ``torch/nn/modules/distance.py``: ``PairwiseDistance`` and ``CosineSimilarity``
over their functionals.

Invariant: no parameters or buffers; the forward is the functional with the constructor's arguments.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dim (``nn.PairwiseDistance``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.PairwiseDistance()(torch.ones(2, 3), torch.zeros(2, 3)).shape
        torch.Size([2])
    """

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine similarity of ``x1`` and ``x2`` along ``dim`` (``nn.CosineSimilarity``)."""

    __constants__ = ["dim", "eps"]

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
