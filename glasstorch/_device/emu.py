"""The emulated accelerator ``emu`` — a device in host memory that behaves like a GPU (PyTorch's PrivateUse1).

What makes a GPU a GPU for PyTorch's device layer is reproduced, not imitated:

- **fixed device memory**: ``GLASSTORCH_EMU_MEMORY`` bytes (default ``2GiB``; ``512MiB``, ``1GiB``, ``3.5GB`` or a
  byte count).  A segment (``raw_malloc``, the ``cudaMalloc`` of this device) is a host ``uint8`` buffer of
  its own, allocated lazily (untouched pages cost nothing), placed at an address of the device's own address
  space.  Like ``cudaMalloc`` behind virtual memory it fails only when the capacity is used up, never because
  the address space is fragmented; then the caching allocator takes over exactly as it does on CUDA;
- **streams**: each stream is a worker thread with an in-order queue; ``launch`` returns at once, so host
  timings without a synchronisation measure the enqueue only; the default stream is stream 0;
- **events**: markers a stream's worker reaches in order, stamped with the time they completed, which is what
  ``elapsed_time`` subtracts; ``stream_wait_event`` queues a wait for the event's latest record;
- errors raised by queued work surface at the next synchronisation, as CUDA's asynchronous errors do.

``EmuAllocator`` is the device's entry in ``allocator.py``: it hands Storages a :class:`DeviceBuffer` (a block
of the caching allocator plus a host view of its bytes).  The Storage class that synchronises host access
lives one layer up (``glasstorch/emu``) and is plugged in through ``EmuAllocator.storage_class``.

Invariant: work queued on one stream runs in queue order, one item at a time; ``synchronize`` returns only when
every queue of the device is empty and idle.
"""

from __future__ import annotations

import itertools
import os
import queue
import re
import threading
import time
from bisect import bisect_left, bisect_right, insort

import numpy as np

from .allocator import Allocator
from .backend import DeviceBackend
from .caching_allocator import AllocatorConfig, DeviceCachingAllocator

__all__ = ["EmuBackend", "EmuAllocator", "DeviceBuffer", "parse_memory_size", "backend", "allocator", "tls",
           "worker_init_hooks"]

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KIB": 1 << 10, "KB": 10**3, "M": 1 << 20, "MIB": 1 << 20, "MB": 10**6,
          "G": 1 << 30, "GIB": 1 << 30, "GB": 10**9, "T": 1 << 40, "TIB": 1 << 40, "TB": 10**12}
_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*$")
_ALIGN = 512
_VA_SPAN = 1 << 40  # each device's address space: 1 TiB at (device + 1) TiB
_VA_ALIGN = 2 << 20  # segments start on 2 MiB boundaries
CLOCK_HZ = 1e9  # the emulated clock: ``_sleep(cycles)`` spins cycles / CLOCK_HZ seconds


def parse_memory_size(text) -> int:
    """Bytes in ``"2GiB"``, ``"512MiB"``, ``"1.5GB"`` or ``"1048576"`` (binary for KiB/K, decimal for KB).

    Example:
        >>> parse_memory_size("512MiB")
        536870912
    """
    if isinstance(text, int):
        return text
    m = _SIZE_RE.match(str(text))
    unit = m.group(2).upper() if m else None
    if m is None or unit not in _UNITS:
        raise ValueError(f"GLASSTORCH_EMU_MEMORY: cannot parse {text!r} as a memory size (e.g. 2GiB, 512MiB)")
    return int(float(m.group(1)) * _UNITS[unit])


worker_init_hooks = []  # run once in every new worker thread (upper layers set their thread-local state there)


class _TLS(threading.local):
    """Per-thread state: the current device, the current stream per device, the worker this thread is."""

    def __init__(self):
        self.device = 0
        self.streams = {}
        self.worker = None


tls = _TLS()


# -- streams and events -------------------------------------------------------------------------------------------
class _SyncMarker:
    """Queued by ``synchronize``: the worker opens it once everything before it has completed."""

    __slots__ = ("lock",)

    def __init__(self):
        self.lock = threading.Lock()
        self.lock.acquire()

    def __call__(self):
        pass


class EmuStream:
    """A stream handle: a worker thread (started on first use) draining an in-order queue."""

    __slots__ = ("sid", "device", "priority", "_queue", "_submit_lock", "_submitted", "_completed", "_thread",
                 "_error", "__weakref__")

    def __init__(self, sid: int, device: int, priority: int = 0):
        self.sid = sid
        self.device = device
        self.priority = priority
        self._queue = queue.SimpleQueue()
        self._submit_lock = threading.Lock()
        self._submitted = 0  # written by launching threads (under _submit_lock)
        self._completed = 0  # written by the worker only
        self._thread = None
        self._error = None

    def launch(self, fn) -> None:
        with self._submit_lock:
            if self._thread is None:
                self._start()
            self._submitted += 1
            self._queue.put(fn)

    def _start(self):
        t = threading.Thread(target=self._run, name=f"emu:{self.device} stream {self.sid}", daemon=True)
        self._thread = t
        t.start()

    def _run(self):
        tls.worker = self
        tls.streams[self.device] = self
        for hook in worker_init_hooks:
            hook()
        get = self._queue.get
        while True:
            fn = get()
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - surfaces at the next synchronisation, like a CUDA error
                if self._error is None:
                    self._error = e
            self._completed += 1
            if type(fn) is _SyncMarker:
                fn.lock.release()
            fn = None

    @property
    def pending(self) -> int:
        return self._submitted - self._completed

    def query(self) -> bool:
        return self._submitted == self._completed

    def synchronize(self) -> None:
        if self._submitted != self._completed and tls.worker is not self:
            marker = _SyncMarker()
            self.launch(marker)
            marker.lock.acquire()
        self.raise_pending_error()

    def raise_pending_error(self):
        err = self._error
        if err is not None:
            self._error = None
            raise RuntimeError(f"emu: an operation queued on stream {self.sid} failed: "
                               f"{type(err).__name__}: {err}") from err

    def __repr__(self):
        return f"EmuStream(device={self.device}, sid={self.sid})"


class EmuEvent:
    """An event handle; each ``record`` makes a fresh completion token that the stream's worker sets."""

    __slots__ = ("enable_timing", "token", "time", "device", "__weakref__")

    def __init__(self, enable_timing=False):
        self.enable_timing = enable_timing
        self.token = None  # threading.Event of the latest record; None: never recorded
        self.time = None  # perf_counter when the latest record completed
        self.device = None


# -- the backend --------------------------------------------------------------------------------------------------
class EmuBackend(DeviceBackend):
    """One or more emulated devices of ``capacity`` bytes each (see the module docstring).

    Example:
        >>> b = EmuBackend(capacity=4 << 20)
        >>> p = b.raw_malloc(0, 2 << 20)
        >>> b.mem_get_info(0)
        (2097152, 4194304)
        >>> b.raw_free(0, p, 2 << 20)
    """

    name = "emu"
    oom_name = "EMU"

    def __init__(self, capacity: int | str | None = None, devices: int = 1):
        self._capacity_spec = capacity  # parsed on first use: a bad setting must not break ``import glasstorch``
        self._capacity = None
        self.devices = devices
        self._va_free = [[((d + 1) * _VA_SPAN, _VA_SPAN)] for d in range(devices)]  # sorted free address ranges
        self._bases = [[] for _ in range(devices)]  # sorted segment addresses
        self._segments = [{} for _ in range(devices)]  # address -> host bytes of the segment
        self._used = [0] * devices
        self._mem_lock = threading.Lock()
        self._sids = itertools.count(1)
        self._default = [EmuStream(0, d) for d in range(devices)]
        self._streams = [[s] for s in self._default]  # every stream per device (for synchronize)

    def device_count(self) -> int:
        return self.devices

    @property
    def capacity(self) -> int:
        """Bytes of device memory per device (``GLASSTORCH_EMU_MEMORY``, default 2GiB)."""
        c = self._capacity
        if c is None:
            spec = self._capacity_spec
            c = self._capacity = parse_memory_size(os.environ.get("GLASSTORCH_EMU_MEMORY", "2GiB")
                                                   if spec is None else spec)
        return c

    # -- memory --------------------------------------------------------------------------------------------------
    def raw_malloc(self, device: int, nbytes: int):
        nbytes = -(-nbytes // _ALIGN) * _ALIGN
        with self._mem_lock:
            if self._used[device] + nbytes > self.capacity:
                return None
            try:
                host = np.empty(nbytes, dtype=np.uint8)  # untouched pages cost no host memory yet
            except MemoryError:
                return None
            span = -(-nbytes // _VA_ALIGN) * _VA_ALIGN
            free = self._va_free[device]
            i = next(i for i, (_, size) in enumerate(free) if size >= span)  # first fit: lowest address
            ptr, size = free[i]
            if size > span:
                free[i] = (ptr + span, size - span)
            else:
                del free[i]
            insort(self._bases[device], ptr)
            self._segments[device][ptr] = host
            self._used[device] += nbytes
            return ptr

    def raw_free(self, device: int, ptr: int, nbytes: int) -> None:
        self.synchronize(device)  # cudaFree waits for the device: queued work may still read the range
        with self._mem_lock:
            host = self._segments[device].pop(ptr)
            bases = self._bases[device]
            del bases[bisect_left(bases, ptr)]
            self._used[device] -= host.size
            span = -(-host.size // _VA_ALIGN) * _VA_ALIGN
            free = self._va_free[device]
            insort(free, (ptr, span))
            merged = []
            for off, size in free:
                if merged and merged[-1][0] + merged[-1][1] == off:
                    merged[-1] = (merged[-1][0], merged[-1][1] + size)
                else:
                    merged.append((off, size))
            free[:] = merged

    def mem_get_info(self, device: int) -> tuple:
        return self.capacity - self._used[device], self.capacity

    def host_view(self, device: int, ptr: int, nbytes: int):
        bases = self._bases[device]
        base = bases[bisect_right(bases, ptr) - 1]
        off = ptr - base
        return self._segments[device][base][off:off + nbytes]

    def copy_to_device(self, device, ptr, host_bytes, stream):
        src = np.array(host_bytes, dtype=np.uint8, copy=True).reshape(-1)
        dst = self.host_view(device, ptr, src.size)
        self.launch(stream, lambda: np.copyto(dst, src))

    def copy_from_device(self, device, ptr, nbytes, stream):
        self.stream_synchronize(stream)
        return self.host_view(device, ptr, nbytes).copy()

    # -- streams -------------------------------------------------------------------------------------------------
    def default_stream(self, device: int) -> EmuStream:
        return self._default[device]

    def new_stream(self, device: int, priority: int = 0) -> EmuStream:
        s = EmuStream(next(self._sids), device, max(-3, min(0, priority)))  # clamped to [-3 (highest), 0]
        self._streams[device].append(s)
        return s

    def current_stream(self, device: int) -> EmuStream:
        s = tls.streams.get(device)
        return self._default[device] if s is None else s

    def set_current_stream(self, stream) -> None:
        tls.streams[stream.device] = stream

    def launch(self, stream, fn) -> None:
        stream.launch(fn)

    def stream_query(self, stream) -> bool:
        return stream.query()

    def stream_synchronize(self, stream) -> None:
        stream.synchronize()

    def synchronize(self, device: int | None = None) -> None:
        devices = range(self.devices) if device is None else (device,)
        for d in devices:
            for s in self._streams[d]:
                if s._submitted != s._completed or s._error is not None:
                    s.synchronize()

    def busy(self, device: int) -> bool:
        """Whether any stream of the device has queued work or an unreported error."""
        for s in self._streams[device]:
            if s._submitted != s._completed or s._error is not None:
                return True
        return False

    # -- events --------------------------------------------------------------------------------------------------
    def new_event(self, enable_timing: bool = False) -> EmuEvent:
        return EmuEvent(enable_timing)

    def record_event(self, event, stream) -> None:
        token = threading.Event()
        event.token, event.time, event.device = token, None, stream.device

        def mark():
            event.time = time.perf_counter()
            token.set()
        stream.launch(mark)

    def event_query(self, event) -> bool:
        return event.token is None or event.token.is_set()

    def event_synchronize(self, event) -> None:
        token = event.token
        if token is not None and not token.is_set():
            token.wait()

    def stream_wait_event(self, stream, event) -> None:
        token = event.token
        if token is not None:
            stream.launch(token.wait)

    def event_elapsed_ms(self, start, end) -> float:
        if not (start.enable_timing and end.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if start.token is None or end.token is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        if not (start.token.is_set() and end.token.is_set()):
            raise RuntimeError("Both events must be completed before calculating elapsed time.")
        return (end.time - start.time) * 1000.0

    def sleep(self, stream, cycles: int) -> None:
        """Queue a kernel that keeps the stream busy for ``cycles`` clock cycles (``torch.cuda._sleep``)."""
        seconds = max(int(cycles), 0) / CLOCK_HZ
        stream.launch(lambda: time.sleep(seconds))


# -- the storage allocator registered for device type "emu" -----------------------------------------------------
class DeviceBuffer:
    """What an emu Storage holds: a caching-allocator block and a host view of exactly its bytes."""

    __slots__ = ("block", "array", "allocator")

    def __init__(self, block, array, allocator):
        self.block, self.array, self.allocator = block, array, allocator

    def release(self) -> None:
        block, self.block = self.block, None
        if block is not None:
            self.allocator.free(block)


class EmuAllocator(Allocator):
    """The ``emu`` entry of the allocator table: device memory through one caching allocator per device.

    ``storage_class`` is set by the layer that defines emu Storages; ``allocate`` serves the calling thread's
    current device and stream.
    """

    name = "emu"
    storage_class = None

    def __init__(self, backend_: EmuBackend, config: AllocatorConfig | None = None):
        self.backend = backend_
        self._config = config
        self._caching = None

    @property
    def config(self) -> AllocatorConfig:
        """The settings (``GLASSTORCH_EMU_ALLOC_CONF``, PyTorch's ``PYTORCH_CUDA_ALLOC_CONF`` syntax)."""
        if self._config is None:
            self._config = AllocatorConfig(os.environ.get("GLASSTORCH_EMU_ALLOC_CONF", ""))
        return self._config

    @config.setter
    def config(self, value: AllocatorConfig) -> None:
        self._config = value
        for a in self._caching or ():
            a.config = value

    @property
    def caching(self) -> list:
        """One caching allocator per device, made on first use."""
        if self._caching is None:
            self._caching = [DeviceCachingAllocator(self.backend, d, self.config) for d in range(self.backend.devices)]
        return self._caching

    def allocate(self, nbytes: int, device: int | None = None) -> DeviceBuffer:
        d = tls.device if device is None else device
        caching = self.caching[d]
        if not nbytes:
            return DeviceBuffer(None, np.empty(0, dtype=np.uint8), caching)
        block = caching.malloc(nbytes, self.backend.current_stream(d))
        return DeviceBuffer(block, self.backend.host_view(d, block.ptr, nbytes), caching)

    def device_count(self) -> int:
        return self.backend.devices


backend = EmuBackend(devices=max(1, int(os.environ.get("GLASSTORCH_EMU_DEVICE_COUNT", "1"))))
allocator = EmuAllocator(backend)
