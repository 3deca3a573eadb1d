"""``glasstorch.cuda`` — PyTorch's ``torch.cuda`` as a build without CUDA answers it.

glasstorch has no CUDA backend registered yet, so this module behaves like a CPU-only PyTorch:
``is_available()`` is False and ``device_count()`` 0; seeding (``manual_seed``, ``manual_seed_all``, ``seed``)
is queued lazily in PyTorch, so it is a silent no-op here; memory counters read 0; every call that needs a
device (``synchronize``, ``current_device``, ``get_device_name`` ...) raises PyTorch's
``AssertionError("Torch not compiled with CUDA enabled")``.  When the device layer registers a ``cuda``
allocator, ``is_available`` turns True through :func:`_backend`.

Invariant: nothing here touches a device; scripts that guard on ``is_available()`` run unchanged.
"""

from __future__ import annotations

from collections import OrderedDict

from .._device.allocator import allocator_for, registered_allocator
from .._device.backendless import (  # noqa: F401  (torch.cuda's names)
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

__all__ = [
    "is_available", "device_count", "is_initialized", "init", "manual_seed", "manual_seed_all", "seed", "seed_all",
    "initial_seed", "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all", "is_bf16_supported",
    "is_tf32_supported", "synchronize", "current_device", "set_device", "get_device_name", "get_device_capability",
    "get_device_properties", "mem_get_info", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_stats", "reset_peak_memory_stats", "reset_max_memory_allocated", "empty_cache",
    "current_stream", "default_stream", "ipc_collect", "get_arch_list", "device", "device_of", "stream", "Stream",
    "Event", "amp",
]

def _backend():
    """The registered CUDA allocator, or None while glasstorch has no CUDA backend."""
    return registered_allocator("cuda")


def _lazy_init() -> None:
    """Every device query starts here: without a backend it fails exactly as a CPU-only PyTorch does
    (``AssertionError: Torch not compiled with CUDA enabled``, Note [Devices without a backend])."""
    allocator_for("cuda")


def is_available() -> bool:
    """Whether a CUDA device can be used (always False without a CUDA backend).

    Example:
        >>> import glasstorch as torch
        >>> torch.cuda.is_available()
        False
    """
    return device_count() > 0


def device_count() -> int:
    backend = _backend()
    return 0 if backend is None else int(getattr(backend, "device_count", lambda: 1)())


def init() -> None:
    _lazy_init()


# -- random: seeding is queued until CUDA initialises, so without CUDA it does nothing (_device/backendless) ---
def initial_seed() -> int:
    _lazy_init()
    return 0


def get_rng_state(device="cuda"):
    _lazy_init()


def set_rng_state(new_state, device="cuda") -> None:
    return None


def get_rng_state_all() -> list:
    return []


def set_rng_state_all(new_states) -> None:
    return None


# -- capabilities -----------------------------------------------------------------------------------------
def is_bf16_supported(including_emulation: bool = True) -> bool:
    return is_available()


def is_tf32_supported() -> bool:
    return False


def get_arch_list() -> list:
    return []


# -- device queries: all need CUDA ---------------------------------------------------------------------------
def synchronize(device=None) -> None:
    _lazy_init()


def current_device() -> int:
    _lazy_init()
    return 0


def set_device(device) -> None:
    _lazy_init()


def get_device_name(device=None) -> str:
    _lazy_init()
    return ""


def get_device_capability(device=None) -> tuple:
    _lazy_init()
    return (0, 0)


def get_device_properties(device=None):
    _lazy_init()


def mem_get_info(device=None) -> tuple:
    _lazy_init()
    return (0, 0)


def current_stream(device=None):
    _lazy_init()


def default_stream(device=None):
    _lazy_init()


def ipc_collect() -> None:
    _lazy_init()


def reset_peak_memory_stats(device=None) -> None:
    _lazy_init()


def reset_max_memory_allocated(device=None) -> None:
    _lazy_init()


# -- memory counters: nothing was ever allocated (the counters come from _device/backendless) ----------------
def memory_stats(device=None) -> OrderedDict:
    return OrderedDict()


# -- context managers and stream/event classes -----------------------------------------------------------------
class device:
    """``with torch.cuda.device(i):`` — selects a device; without CUDA (and for ``-1``/None) it does nothing."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        if self.idx is not None and self.idx >= 0 and _backend() is None:
            raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


class device_of(device):
    """``with torch.cuda.device_of(tensor):`` — the tensor's device if it is a CUDA tensor, else nothing."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if getattr(obj, "is_cuda", False) else -1)


class stream:
    """``with torch.cuda.stream(s):`` — selects a stream; without CUDA there is none, so it does nothing."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


class Stream:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


from . import amp  # noqa: E402,F401  (last: it subclasses glasstorch.amp, which may itself ask for cuda)
