"""Host allocators — PyTorch's ``c10/core/CPUAllocator.cpp`` and the meta device's no-data allocator.

An allocator turns a byte count into a buffer a Storage owns.  The CPU allocator hands out numpy
``uint8`` arrays (numpy aligns them for every element type we store); the meta allocator hands out
nothing, because a meta tensor has shapes and strides but no data.  Invariant: ``allocate(n)``
returns a buffer of exactly ``n`` bytes (or ``None`` for meta), and nothing else holds it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Allocator", "CPUAllocator", "MetaAllocator", "allocator_for"]


class Allocator:
    """The interface every device allocator fills in."""

    name = "abstract"
    # Device backends (emu, cuda) own their memory through a Storage subclass; None: plain UntypedStorage.
    storage_class = None

    def allocate(self, nbytes: int):
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__}>"


class CPUAllocator(Allocator):
    """Plain host memory from numpy; freed when the last Storage referencing it goes away."""

    name = "cpu"

    def allocate(self, nbytes: int):
        return np.empty(nbytes, dtype=np.uint8)


class MetaAllocator(Allocator):
    """The meta device: sizes only, no bytes behind them."""

    name = "meta"

    def allocate(self, nbytes: int):
        return None


_ALLOCATORS = {"cpu": CPUAllocator(), "meta": MetaAllocator()}


def register_allocator(device_type: str, allocator: Allocator) -> None:
    """Backends of higher layers (emulated, CUDA) register their allocator here."""
    _ALLOCATORS[device_type] = allocator


def allocator_for(device_type: str) -> Allocator:
    try:
        return _ALLOCATORS[device_type]
    except KeyError:
        raise RuntimeError(f"no allocator is registered for device type '{device_type}'") from None
