"""``glasstorch.multiprocessing`` — PyTorch's ``torch.multiprocessing``: Python's ``multiprocessing`` plus the
tensor sharing-strategy switches.

glasstorch tensors live in host memory and are pickled by value between processes (DataLoader workers
send batches this way), so the strategy is recorded and reported as PyTorch does but changes nothing.

Invariant: everything ``multiprocessing`` offers is available under the same name.
"""

from __future__ import annotations

import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403

__all__ = [*_mp.__all__, "set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how tensors are shared between processes ("file_descriptor" or "file_system")."""
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise ValueError(f"invalid sharing strategy: {new_strategy}")  # PyTorch asserts; a clear error here
    _strategy = new_strategy


def get_sharing_strategy() -> str:
    return _strategy


def get_all_sharing_strategies() -> set:
    return set(_STRATEGIES)
