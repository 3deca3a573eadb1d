"""The answers a PyTorch build gives for an accelerator it was built without (``torch.cuda``, ``torch.xpu`` ...).

Seeding is queued lazily in PyTorch until the device initialises, so without the device it only checks its argument;
memory counters read 0 because nothing was ever allocated; ``empty_cache`` has nothing to free. Calls that need a
device raise through the allocator registry instead (Note [Devices without a backend]); those stay in each module.
"""

from __future__ import annotations

__all__ = ["empty_cache", "is_initialized", "manual_seed", "manual_seed_all", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "seed", "seed_all"]


def is_initialized() -> bool:
    return False


def manual_seed(seed) -> None:
    int(seed)


def manual_seed_all(seed) -> None:
    int(seed)


def seed() -> None:
    return None


def seed_all() -> None:
    return None


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def empty_cache() -> None:
    return None
