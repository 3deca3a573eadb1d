"""``glasstorch.accelerator`` — PyTorch's device-generic ``torch.accelerator`` API.

The current accelerator is CUDA when a CUDA backend is available, else the emulated accelerator ``emu``
(registered like PyTorch's PrivateUse1 backend, so it is always present).  Every function delegates to that
device's module (``glasstorch.cuda`` or ``glasstorch.emu``).

Invariant: ``current_accelerator()`` names the device type every other function here acts on.
"""

from __future__ import annotations

from . import cuda as _cuda
from . import emu as _emu
from ._core.device import device as _Device

__all__ = ["current_accelerator", "current_device_index", "current_device_idx", "get_device_capability",
           "current_stream", "device_count", "device_index", "empty_cache", "get_memory_info", "is_available",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_index", "set_device_idx",
           "set_stream", "synchronize"]


def _module():
    return _cuda if _cuda.is_available() else _emu


def current_accelerator(check_available: bool = False) -> _Device | None:
    """The accelerator device type (``device(type='emu')`` without CUDA).

    Example:
        >>> import glasstorch as torch
        >>> torch.accelerator.current_accelerator()
        device(type='emu')
    """
    mod = _module()
    if check_available and not mod.is_available():
        return None
    return _Device("cuda" if mod is _cuda else "emu")


def device_count() -> int:
    return _module().device_count()


def is_available() -> bool:
    return device_count() > 0


def current_device_index() -> int:
    return _module().current_device()


current_device_idx = current_device_index


def set_device_index(device, /) -> None:
    _module().set_device(device)


set_device_idx = set_device_index


def get_device_capability(device=None, /) -> dict:
    return {"supported_dtypes": [], "capability": _module().get_device_capability(device)}


def current_stream(device=None, /):
    return _module().current_stream(device)


def set_stream(stream) -> None:
    _module().set_stream(stream)


def synchronize(device=None, /) -> None:
    """Wait for all work queued on the accelerator's streams."""
    _module().synchronize(device)


class device_index:
    """``with torch.accelerator.device_index(i):`` — make device ``i`` current inside the block (None: no-op)."""

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc_info):
        if self.idx is not None:
            set_device_index(self.prev_idx)
        return False


def empty_cache() -> None:
    _module().empty_cache()


def memory_stats(device_index=None, /) -> dict:
    return _module().memory_stats(device_index)


def memory_allocated(device_index=None, /) -> int:
    return _module().memory_allocated(device_index)


def max_memory_allocated(device_index=None, /) -> int:
    return _module().max_memory_allocated(device_index)


def memory_reserved(device_index=None, /) -> int:
    return _module().memory_reserved(device_index)


def max_memory_reserved(device_index=None, /) -> int:
    return _module().max_memory_reserved(device_index)


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    _module().reset_accumulated_memory_stats(device_index)


def reset_peak_memory_stats(device_index=None, /) -> None:
    _module().reset_peak_memory_stats(device_index)


def get_memory_info(device_index=None, /) -> tuple:
    return _module().mem_get_info(device_index)
