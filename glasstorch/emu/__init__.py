"""``glasstorch.emu`` — the emulated accelerator, with ``torch.cuda``'s API.

``emu`` is a GPU made of host memory and threads (``glasstorch/_device/emu.py``): a fixed device memory
(``GLASSTORCH_EMU_MEMORY``, default 2GiB) served by PyTorch's caching allocator, streams that run kernels
asynchronously on worker threads, events that time them.  It is registered the way PyTorch registers an
out-of-tree backend: the PrivateUse1 dispatch key, renamed ``emu``; every operator runs its CPU kernel on the
device bytes (``_dispatch.py``).  So everything a GPU teaches shows up here: timings without
``synchronize()`` measure the launch, ``memory_allocated()`` and ``memory_reserved()`` differ, fragmentation
and out-of-memory errors happen, ``record_stream`` matters.

Differences from CUDA, on purpose: random operators draw from the default (host) generator, so results on emu
equal results on the CPU bit for bit; ``manual_seed`` here seeds that generator.

Example:
    >>> import glasstorch as torch
    >>> x = torch.arange(6.0, device="emu").reshape(2, 3)
    >>> (x * 2).sum().item()
    30.0
    >>> torch.emu.memory_allocated() > 0
    True
"""

from __future__ import annotations

from .._core.device import device as _Device
from .._device import emu as _emu
from .._device import generator as _generator
from .._device import streams as _streams
from .._device.allocator import register_allocator
from .._device.caching_allocator import OutOfMemoryError
from . import _dispatch, _storage
from .memory import (  # noqa: F401  (_record_memory_history and friends: private names, as in torch.cuda)
    _dump_snapshot,
    _record_memory_history,
    _snapshot,
    empty_cache,
    get_per_process_memory_fraction,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_max_memory_cached,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
)

__all__ = [
    "is_available", "device_count", "is_initialized", "init", "current_device", "set_device", "device", "device_of",
    "synchronize", "Stream", "Event", "stream", "StreamContext", "current_stream", "default_stream", "set_stream",
    "get_device_name", "get_device_properties", "get_device_capability", "manual_seed", "manual_seed_all", "seed",
    "seed_all", "initial_seed", "get_rng_state", "set_rng_state", "memory_allocated", "max_memory_allocated",
    "memory_reserved", "max_memory_reserved", "memory_cached", "max_memory_cached", "memory_stats",
    "memory_stats_as_nested_dict", "reset_peak_memory_stats", "reset_accumulated_memory_stats",
    "reset_max_memory_allocated", "reset_max_memory_cached", "empty_cache", "memory_summary", "mem_get_info",
    "set_per_process_memory_fraction", "get_per_process_memory_fraction", "memory_snapshot", "OutOfMemoryError",
    "EmuStorage",
]

_backend = _emu.backend
EmuStorage = _storage.EmuStorage


# -- devices -----------------------------------------------------------------------------------------------------
def is_available() -> bool:
    """Always True: the emulated device needs no hardware."""
    return True


def device_count() -> int:
    """The number of emu devices (``GLASSTORCH_EMU_DEVICE_COUNT``, default 1)."""
    return _backend.devices


def is_initialized() -> bool:
    return True


def init() -> None:
    return None


def _index(d, optional=True) -> int:
    if d is None:
        return _emu.tls.device
    if isinstance(d, int):
        return d
    if isinstance(d, str):
        d = _Device(d)
    if isinstance(d, _Device):
        if d.type != "emu":
            raise ValueError(f"Expected a emu device, but got: {d}")
        return _emu.tls.device if d.index is None else d.index
    return _index(getattr(d, "device", None))


def current_device() -> int:
    return _emu.tls.device


def set_device(device) -> None:
    """Make ``device`` the current emu device of this thread (negative values are ignored, as on CUDA)."""
    i = _index(device)
    if i >= 0:
        _storage.emu_device(i)  # validates the ordinal
        _emu.tls.device = i


class device:
    """``with torch.emu.device(i):`` — make device ``i`` current inside the block."""

    def __init__(self, device):
        self.idx = _index(device) if device is not None else -1
        self.prev = -1

    def __enter__(self):
        self.prev = _emu.tls.device
        if self.idx >= 0:
            set_device(self.idx)

    def __exit__(self, *exc):
        _emu.tls.device = self.prev
        return False


class device_of(device):
    """``with torch.emu.device_of(tensor):`` — the tensor's device, when it is on emu."""

    def __init__(self, obj):
        dev = getattr(obj, "device", None)
        super().__init__(dev.index if dev is not None and dev.type == "emu" else -1)


def get_device_name(device=None) -> str:
    return "glasstorch emulated accelerator"


def get_device_capability(device=None) -> tuple:
    return (0, 0)


class _DeviceProperties:
    __slots__ = ("name", "total_memory", "multi_processor_count", "major", "minor")

    def __init__(self, index):
        self.name = get_device_name(index)
        self.total_memory = _backend.capacity
        self.multi_processor_count = 1
        self.major, self.minor = 0, 0

    def __repr__(self):
        return (f"_EmuDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, multi_processor_count=1)")


def get_device_properties(device=None) -> _DeviceProperties:
    return _DeviceProperties(_index(device))


def synchronize(device=None) -> None:
    """Wait for every stream of the device; errors of queued work are raised here."""
    _backend.synchronize(_index(device))


# -- streams and events ----------------------------------------------------------------------------------------
class Stream(_streams.Stream):
    """An emu stream (``torch.cuda.Stream``): kernels queued on it run in order on its worker thread."""

    backend = _backend
    device_type = "emu"

    @classmethod
    def _current_device(cls) -> int:
        return _emu.tls.device

    @classmethod
    def _event_class(cls):
        return Event

    @property
    def emu_stream(self) -> int:
        return self._handle.sid


class Event(_streams.Event):
    """An emu event (``torch.cuda.Event``)."""

    backend = _backend
    device_type = "emu"
    stream_class = Stream


StreamContext = _streams.StreamContext


def stream(stream) -> StreamContext:
    """``with torch.emu.stream(s):`` — work inside the block is queued on ``s``."""
    return StreamContext(stream)


def current_stream(device=None) -> Stream:
    return Stream(_handle=_backend.current_stream(_index(device)))


def default_stream(device=None) -> Stream:
    return Stream(_handle=_backend.default_stream(_index(device)))


def set_stream(stream) -> None:
    if stream is not None:
        _backend.set_current_stream(stream._handle)


def _sleep(cycles: int) -> None:
    """Queue a kernel that keeps the current stream busy for ``cycles`` cycles of a 1 GHz clock."""
    _backend.sleep(_backend.current_stream(_emu.tls.device), cycles)


# -- random numbers: emu kernels draw from the default generator -------------------------------------------------
def manual_seed(seed) -> None:
    """Seed the generator emu random operators draw from (the default generator)."""
    synchronize()
    _generator.default_generator.manual_seed(int(seed))


manual_seed_all = manual_seed


def seed() -> None:
    synchronize()
    _generator.default_generator.seed()


seed_all = seed


def initial_seed() -> int:
    return _generator.default_generator.initial_seed()


def get_rng_state(device="emu"):
    synchronize()
    return _generator.default_generator.get_state()


def set_rng_state(new_state, device="emu") -> None:
    synchronize()
    _generator.default_generator.set_state(new_state)


# -- registration: the allocator for device type "emu" and the PrivateUse1 kernels ---------------------------------
register_allocator("emu", _emu.allocator)
_dispatch.install()

from . import memory  # noqa: E402,F401
