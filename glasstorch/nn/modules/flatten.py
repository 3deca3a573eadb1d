"""Flatten and Unflatten — PyTorch's ``torch/nn/modules/flatten.py``.

``Flatten`` merges dims ``start_dim..end_dim`` (default: all but the batch dim); ``Unflatten`` splits ``dim``
into ``unflattened_size``.  Both return views when the input's strides allow.

Invariant: ``Unflatten(dim, s)(Flatten(dim, dim + len(s) - 1)(x))`` has ``x``'s shape.
"""

from __future__ import annotations

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flatten a contiguous range of dims (``nn.Flatten``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Flatten()(torch.randn(32, 1, 5, 5)).shape
        torch.Size([32, 25])
    """

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expand dim ``dim`` into ``unflattened_size`` (``nn.Unflatten``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Unflatten(1, (2, 5, 5))(torch.randn(2, 50)).shape
        torch.Size([2, 2, 5, 5])
    """

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input) -> None:
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                    f"{type(elem).__name__} at pos {idx}")
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}")

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
