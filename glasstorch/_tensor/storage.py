"""Storage — PyTorch's ``c10/core/StorageImpl.h`` and ``torch.UntypedStorage``.

A storage is a flat run of bytes on one device, made by that device's allocator.  It has no shape and
no dtype: tensors interpret it.  Every view of a tensor holds the same Storage object, so writes
through one are seen by all.  On the CPU the bytes are a numpy ``uint8`` array; on ``meta`` there are
no bytes at all, only a count.

Invariant: ``nbytes()`` is the byte length of the buffer; two tensors alias exactly when they hold
the same Storage.  CPU storages the allocator makes start on a 64-byte boundary from ``ALIGN_MIN_BYTES``
on (Note [CPU alignment] in ``_device/allocator.py``); storages over user memory (``from_numpy``) keep its
address.
"""

from __future__ import annotations

import numpy as np

from .._core.device import as_device
from .._device.allocator import _ALLOCATORS, ALIGN_MIN_BYTES, CPUAllocator, aligned_empty, allocator_for

__all__ = ["UntypedStorage"]

_empty = np.empty
_U8 = np.dtype(np.uint8)


class UntypedStorage:
    """A flat byte buffer on a device (``torch.UntypedStorage``).

    Example:
        >>> s = UntypedStorage(8)
        >>> s.nbytes()
        8
    """

    # _fake_device / _checkpoint_offset: set only by serialization on storages of fakes (PyTorch's names); unset
    # elsewhere, so they cost the hot allocation path nothing
    __slots__ = ("_data", "_nbytes", "device", "allocator", "resizable", "_ptr_of", "_ptr_val", "_fake_device",
                 "_checkpoint_offset", "__weakref__")

    def __init__(self, nbytes=0, *, device=None):
        if not isinstance(nbytes, int):
            # UntypedStorage([1, 2, 3]) builds from a byte sequence
            src = np.asarray(nbytes, dtype=np.uint8).reshape(-1)
            data = _ALLOCATORS["cpu"].allocate(src.size)
            data[:] = src
            self._init(data, data.size, as_device(device))
            return
        dev = as_device(device)
        self._init(allocator_for(dev.type).allocate(nbytes), nbytes, dev)

    def _init(self, data, nbytes, device):
        alloc = allocator_for(device.type)
        if alloc.storage_class is not None:  # a device backend's storage (emu): it owns the device memory
            self.__class__ = alloc.storage_class
        self._data = data
        self._nbytes = nbytes
        self.device = device
        self.allocator = alloc
        self.resizable = True

    @classmethod
    def _allocate(cls, nbytes: int, device) -> UntypedStorage:
        """A new storage from the device's allocator; ``device`` is already a device object."""
        self = cls.__new__(cls)
        alloc = _ALLOCATORS.get(device.type)  # allocator_for's table, read without a call (it raises when absent)
        if alloc is None:
            alloc = allocator_for(device.type)
        if alloc.storage_class is not None:  # a device backend's storage (emu): it owns the device memory
            self.__class__ = alloc.storage_class
            self._data = alloc.allocate(nbytes)
        elif type(alloc) is CPUAllocator:  # CPUAllocator.allocate, inline: every kernel output comes through here
            if nbytes < ALIGN_MIN_BYTES:
                self._data = _empty(nbytes, _U8)
            else:  # aligned (Note [CPU alignment]); its address is known, so data_ptr() need not ask numpy
                self._data, self._ptr_val = aligned_empty(nbytes)
                self._ptr_of = self._data
        else:
            self._data = alloc.allocate(nbytes)
        self._nbytes = nbytes
        self.device = device
        self.allocator = alloc
        self.resizable = True
        return self

    @classmethod
    def _wrap(cls, data: np.ndarray | None, nbytes: int, device) -> UntypedStorage:
        """A storage over an existing byte buffer (``from_numpy``), sharing its memory."""
        self = cls.__new__(cls)
        self._init(data, nbytes, device)
        return self

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    def __len__(self):
        return self._nbytes

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        """The address of the first byte (0 on ``meta``)."""
        return self._ptr

    @property
    def _ptr(self) -> int:
        data = self._data
        if data is None or not self._nbytes:
            return 0
        try:  # cached per buffer object: asking numpy for the address costs microseconds
            if self._ptr_of is data:
                return self._ptr_val
        except AttributeError:
            pass
        self._ptr_val = val = data.__array_interface__["data"][0]
        self._ptr_of = data
        return val

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def is_meta(self):
        return self.device.type == "meta"

    def resize_(self, nbytes: int) -> UntypedStorage:
        """Reallocate to ``nbytes``, keeping the common prefix (PyTorch's ``resize_bytes_cpu``)."""
        if not self.resizable:
            raise RuntimeError("Trying to resize storage that is not resizable")
        new = self.allocator.allocate(nbytes)
        if new is not None and self._data is not None:
            n = min(nbytes, self._nbytes)
            new[:n] = self._data[:n]
        self._data = new
        self._nbytes = nbytes
        return self

    def bytes_view(self) -> np.ndarray:
        """The raw ``uint8`` buffer; raises on meta, where there are no bytes."""
        if self._data is None:
            raise NotImplementedError("Cannot access data of a meta storage; it has no data!")
        return self._data

    def tolist(self):
        return self.bytes_view().tolist()

    def __getitem__(self, i):
        data = self.bytes_view()[i]
        if isinstance(i, slice):
            return UntypedStorage._wrap(data, data.size, self.device)
        return int(data)

    def __setitem__(self, i, v):
        self.bytes_view()[i] = v

    def fill_(self, value):
        self.bytes_view()[:] = value
        return self

    def copy_(self, src: UntypedStorage, non_blocking=False):
        if src.nbytes() != self._nbytes:
            raise RuntimeError(f"size mismatch, got {src.nbytes()} and {self._nbytes}")
        if self._data is not None and src._data is not None:
            self._data[:] = src._data
        return self

    def clone(self) -> UntypedStorage:
        out = UntypedStorage(self._nbytes, device=self.device)
        if self._data is not None:
            out._data[:] = self._data
        return out

    def cpu(self) -> UntypedStorage:
        if self.device.type == "cpu":
            return self
        return UntypedStorage(self.bytes_view().copy())

    def is_shared(self) -> bool:
        return False

    def is_pinned(self, device="cuda") -> bool:
        return False

    def __repr__(self):
        head = f"[torch.storage.UntypedStorage(device={self.device}) of size {self._nbytes}]"
        if self._data is None:
            return "...\n" + head
        return "\n".join(f" {b}" for b in self._data.tolist()) + "\n" + head

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def __reduce_ex__(self, proto):
        # by value; pickle's memo keeps one copy per storage, so tensors that shared it still share after loading
        data = None if self._data is None else self.bytes_view().tobytes()
        return (_rebuild_untyped_storage, (data, self._nbytes, str(self.device)))


def _rebuild_untyped_storage(data, nbytes, device):
    """The unpickling side of ``UntypedStorage.__reduce_ex__``: a new storage holding the pickled bytes."""
    dev = as_device(device)
    if data is None:
        return UntypedStorage(nbytes, device=dev)
    if dev.type == "cpu":  # a fresh buffer from the allocator (aligned as any new storage), filled with the bytes
        buf = _ALLOCATORS["cpu"].allocate(nbytes)
        buf[:] = np.frombuffer(data, np.uint8)
        return UntypedStorage._wrap(buf, nbytes, dev)
    out = UntypedStorage(nbytes, device=dev)
    out.bytes_view()[:] = np.frombuffer(data, np.uint8)
    return out
