"""``glasstorch.xpu`` — PyTorch's ``torch.xpu`` (Intel GPUs) as a build without XPU answers it.

As in a CPU-only PyTorch: ``is_available()`` is False, ``device_count()`` 0, seeding and ``empty_cache`` are silent
no-ops, memory counters read 0, and every call that needs a device raises
``AssertionError("Torch not compiled with XPU enabled")`` (Note [Devices without a backend] in the device layer).
"""

from __future__ import annotations

from .._device.allocator import allocator_for, registered_allocator
from .._device.backendless import (  # noqa: F401  (torch.xpu's names)
    empty_cache,
    is_initialized,
    manual_seed,
    manual_seed_all,
    max_memory_allocated,
    max_memory_reserved,
    memory_allocated,
    memory_reserved,
    seed,
    seed_all,
)

__all__ = ["current_device", "device_count", "empty_cache", "get_device_name", "init", "initial_seed",
           "is_available", "is_bf16_supported", "is_initialized", "manual_seed", "manual_seed_all",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved", "seed", "seed_all",
           "synchronize"]


def _lazy_init() -> None:
    allocator_for("xpu")


def is_available() -> bool:
    return device_count() > 0


def device_count() -> int:
    return 0 if registered_allocator("xpu") is None else 1


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return is_available()


def init() -> None:
    _lazy_init()


def synchronize(device=None) -> None:
    _lazy_init()


def current_device() -> int:
    _lazy_init()
    return 0


def get_device_name(device=None) -> str:
    _lazy_init()
    return ""


def initial_seed() -> int:
    _lazy_init()
    return 0
