"""The accelerator backend interface — the slice of the CUDA runtime PyTorch's device layer stands on.

PyTorch's ``c10/cuda`` reaches the driver through a handful of calls: ``cudaMalloc``/``cudaFree`` of raw byte
ranges, ``cudaMemGetInfo``, ``cudaMemcpy`` in and out, kernel launches on a stream, and stream/event
primitives (``cudaStreamSynchronize``, ``cudaEventRecord``/``Query``/``Synchronize``/``ElapsedTime``,
``cudaStreamWaitEvent``).  :class:`DeviceBackend` names exactly those; the caching allocator
(``caching_allocator.py``) and the public stream/event classes are written against it, so one allocator
serves the emulated accelerator (``emu.py``) and a real GPU alike.

Handles are opaque to callers except for two attributes: a stream handle has ``sid`` (a small int, its
identity and sort key; the default stream is 0) and ``device`` (its device index).

Invariant: ``raw_malloc`` either returns a device address for ``nbytes`` bytes nobody else holds, or None when
the device is out of memory (never raises for OOM); ``raw_free`` takes back exactly such an address.
"""

from __future__ import annotations

__all__ = ["DeviceBackend"]


class DeviceBackend:
    """What a device backend provides; every method is abstract here.

    Attributes:
        name: the device type (``"emu"``, ``"cuda"``).
        oom_name: how the out-of-memory message names the device (``"CUDA"`` in PyTorch).
    """

    name = "abstract"
    oom_name = "DEVICE"

    # -- devices and raw memory (cudaGetDeviceCount, cudaMalloc, cudaFree, cudaMemGetInfo) ---------------
    def device_count(self) -> int:
        raise NotImplementedError

    def raw_malloc(self, device: int, nbytes: int):
        """A device address of ``nbytes`` fresh bytes, or None when the device cannot provide them."""
        raise NotImplementedError

    def raw_free(self, device: int, ptr: int, nbytes: int) -> None:
        """Give back a range from :meth:`raw_malloc` (like ``cudaFree``, it waits for the device first)."""
        raise NotImplementedError

    def mem_get_info(self, device: int) -> tuple:
        """``(free_bytes, total_bytes)`` of the device, as ``cudaMemGetInfo``."""
        raise NotImplementedError

    def host_view(self, device: int, ptr: int, nbytes: int):
        """A host-addressable ``uint8`` array over device bytes (emulated devices only; CUDA returns None)."""
        return None

    # -- copies (cudaMemcpyAsync) ----------------------------------------------------------------------------
    def copy_to_device(self, device: int, ptr: int, host_bytes, stream) -> None:
        raise NotImplementedError

    def copy_from_device(self, device: int, ptr: int, nbytes: int, stream):
        raise NotImplementedError

    # -- streams (cudaStreamCreate, launch, cudaStreamQuery/Synchronize) ---------------------------------------
    def default_stream(self, device: int):
        raise NotImplementedError

    def new_stream(self, device: int, priority: int = 0):
        raise NotImplementedError

    def current_stream(self, device: int):
        """The calling thread's current stream on ``device`` (starts as the default stream)."""
        raise NotImplementedError

    def set_current_stream(self, stream) -> None:
        raise NotImplementedError

    def launch(self, stream, fn) -> None:
        """Queue ``fn()`` on ``stream``; it runs after everything queued there before, and returns at once."""
        raise NotImplementedError

    def stream_query(self, stream) -> bool:
        raise NotImplementedError

    def stream_synchronize(self, stream) -> None:
        raise NotImplementedError

    def synchronize(self, device: int | None = None) -> None:
        """Wait for every stream of the device (all devices when None)."""
        raise NotImplementedError

    # -- events (cudaEventCreate/Record/Query/Synchronize/ElapsedTime, cudaStreamWaitEvent) -------------------
    def new_event(self, enable_timing: bool = False):
        raise NotImplementedError

    def record_event(self, event, stream) -> None:
        raise NotImplementedError

    def event_query(self, event) -> bool:
        raise NotImplementedError

    def event_synchronize(self, event) -> None:
        raise NotImplementedError

    def stream_wait_event(self, stream, event) -> None:
        raise NotImplementedError

    def event_elapsed_ms(self, start, end) -> float:
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"
