"""Storages of the emulated accelerator — PyTorch's StorageImpl holding a caching-allocator DataPtr.

An ``EmuStorage`` is an ``UntypedStorage`` whose bytes live in the emu device memory: its private slot holds a
:class:`~glasstorch._device.emu.DeviceBuffer` (the allocator block plus a host view of its bytes).  The
Storage layer switches a new storage to this class when the device's allocator asks for it
(``Allocator.storage_class``), so every way of making a storage (``empty``, ``_to_copy``, ``resize_``,
wrapping host bytes) ends here.

The host may touch device bytes only when the device is idle, as a CUDA ``cudaMemcpy`` would wait: reading the
``_data`` attribute from any thread that is not a stream worker first waits for every queued kernel of the
device.  That single rule makes ``item()``, ``tolist()``, printing, ``.cpu()`` and the host-side factories
synchronise, with no change to the code that reads.  Kernels queued on streams read the raw bytes without
waiting (they are already in stream order).

Invariant: the block is freed exactly once, when the storage dies (or is resized); until then nobody else holds
its bytes.
"""

from __future__ import annotations

import numpy as np

from .._core.device import device as _Device
from .._device import emu as _emu
from .._device.emu import DeviceBuffer
from .._tensor.storage import UntypedStorage

__all__ = ["EmuStorage", "raw_array", "raw_buffer", "emu_device"]

_RAW = UntypedStorage.__dict__["_data"]  # the slot the base class reads and writes
_DEV = UntypedStorage.__dict__["device"]
_tls = _emu.tls
_backend = _emu.backend
_DEVICES = [_Device("emu", i) for i in range(_backend.devices)]


def emu_device(index: int | None) -> _Device:
    """The canonical ``emu:i`` device object (``emu`` alone means the current device)."""
    i = _tls.device if index is None else index
    if not 0 <= i < len(_DEVICES):
        raise RuntimeError(f"emu error: invalid device ordinal {i} (there are {len(_DEVICES)} emu devices)")
    return _DEVICES[i]


def raw_buffer(storage) -> DeviceBuffer:
    return _RAW.__get__(storage)


def raw_array(storage) -> np.ndarray:
    """The device bytes of an emu storage as a host array, without waiting for the device."""
    return _RAW.__get__(storage).array


def _from_host(data) -> DeviceBuffer:
    """Device memory holding a copy of host bytes (wrapping host memory in a device storage copies it)."""
    src = np.asarray(data, dtype=np.uint8).reshape(-1)
    buf = _emu.allocator.allocate(src.size)
    if src.size:
        _backend.synchronize(buf.allocator.device)  # the block may still be in use by queued work
        np.copyto(buf.array, src)
    return buf


class EmuStorage(UntypedStorage):
    """A storage in emu device memory (see the module docstring).

    Example:
        >>> import glasstorch as torch
        >>> s = torch.empty(4, device="emu").untyped_storage()
        >>> type(s).__name__, s.nbytes()
        ('EmuStorage', 16)
    """

    __slots__ = ()

    @property
    def _data(self):
        buf = _RAW.__get__(self)
        if _tls.worker is None:
            dev = buf.allocator.device
            if _backend.busy(dev):
                _backend.synchronize(dev)  # the host reads or writes device bytes: wait for the device
        return buf.array

    @_data.setter
    def _data(self, value):
        if type(value) is not DeviceBuffer:
            value = _from_host(value)
        _RAW.__set__(self, value)

    @property
    def device(self):
        return _DEV.__get__(self)

    @device.setter
    def device(self, d):
        buf = _RAW.__get__(self)
        here = buf.allocator.device
        if d.index is not None and d.index != here:
            target = emu_device(d.index).index
            new = _emu.allocator.allocate(len(buf.array), device=target)
            _backend.synchronize(here)
            np.copyto(new.array, buf.array)
            _RAW.__set__(self, new)
            buf.release()
            here = target
        _DEV.__set__(self, _DEVICES[here])

    @property
    def _ptr(self) -> int:
        block = _RAW.__get__(self).block
        return 0 if block is None else block.ptr

    def resize_(self, nbytes: int) -> EmuStorage:
        """Reallocate in device memory, keeping the common prefix."""
        if not self.resizable:
            raise RuntimeError("Trying to resize storage that is not resizable")
        old = _RAW.__get__(self)
        new = _emu.allocator.allocate(nbytes, device=old.allocator.device)
        n = min(nbytes, self._nbytes)
        if n:
            _backend.synchronize(old.allocator.device)
            np.copyto(new.array[:n], old.array[:n])
        _RAW.__set__(self, new)
        self._nbytes = nbytes
        old.release()
        return self

    def _record_stream(self, stream_handle) -> None:
        buf = _RAW.__get__(self)
        if buf.block is not None:
            buf.allocator.record_stream(buf.block, stream_handle)

    def __del__(self):
        try:
            buf = _RAW.__get__(self)
        except AttributeError:  # construction failed before the block arrived
            return
        try:
            buf.release()
        except Exception:  # noqa: BLE001 - interpreter shutdown: the allocator may already be torn down
            if _emu is not None and _emu.allocator is not None:
                raise

    def is_pinned(self, device="cuda") -> bool:
        return False


_emu.EmuAllocator.storage_class = EmuStorage
