"""Host allocators — PyTorch's ``c10/core/CPUAllocator.cpp`` and the meta device's no-data allocator.

An allocator turns a byte count into a buffer a Storage owns.  The CPU allocator hands out numpy
``uint8`` arrays; the meta allocator hands out nothing, because a meta tensor has shapes and strides but
no data.  Invariant: ``allocate(n)`` returns a buffer of exactly ``n`` bytes (or ``None`` for meta), and
nothing else holds it.

Note [CPU alignment]
c10's ``alloc_cpu`` starts every buffer on a 64-byte boundary (``gAlignment``); numpy's ``np.empty`` only
promises 16 (glibc's ``malloc``: large blocks sit 16 bytes past a page, heap blocks anywhere on 16), so a
vector loop over it straddles a cache line every other load (measured, 1M float32 elements at offset 16
against 0: in-place ``mul_`` ~15 % slower, a float32 -> float64 ``copy_`` 30-50 %, a broadcast add 10-30 %;
numpy's own add/mul and the compute-bound exp/gelu loops no different).  :func:`aligned_empty` over-allocates
63 bytes and slices from the first boundary.  Asking numpy for the address costs about a microsecond (~12 %
more instructions for a 1-element ``a + b``), and at 256 KiB and below the aligned loops were not measurably
faster, so only buffers of at least :data:`ALIGN_MIN_BYTES` are aligned; smaller ones stay a plain
``np.empty``.  PyTorch aligns every size: ``data_ptr() % 64`` can differ from torch's only below that size.
"""

from __future__ import annotations

import ctypes

import numpy as np

__all__ = ["ALIGNMENT", "ALIGN_MIN_BYTES", "Allocator", "CPUAllocator", "MetaAllocator", "aligned_empty",
           "allocator_for"]

ALIGNMENT = 64  # bytes: c10's gAlignment, one cache line
ALIGN_MIN_BYTES = 256 << 10  # smaller CPU buffers are not aligned: see Note [CPU alignment]

_empty = np.empty
_U8 = np.dtype(np.uint8)
_char_at = ctypes.c_char.from_buffer  # with addressof: a buffer's address for ~0.3 us (numpy's own take ~2 us)
_addressof = ctypes.addressof


def aligned_empty(nbytes: int) -> tuple:
    """``(buffer, address)``: an uninitialised ``uint8`` buffer of ``nbytes`` starting on an :data:`ALIGNMENT`
    boundary, and that start's address (Note [CPU alignment]).

    Example:
        >>> buf, ptr = aligned_empty(100)
        >>> buf.size, ptr % ALIGNMENT
        (100, 0)
    """
    raw = _empty(nbytes + ALIGNMENT - 1, _U8)
    ptr = _addressof(_char_at(raw))
    shift = -ptr & (ALIGNMENT - 1)
    return raw[shift:shift + nbytes], ptr + shift


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
    """Host memory from numpy, cache-line aligned from :data:`ALIGN_MIN_BYTES` on (Note [CPU alignment]);
    freed when the last Storage referencing it goes away."""

    name = "cpu"

    def allocate(self, nbytes: int):
        if nbytes < ALIGN_MIN_BYTES:
            return _empty(nbytes, _U8)
        return aligned_empty(nbytes)[0]


class MetaAllocator(Allocator):
    """The meta device: sizes only, no bytes behind them."""

    name = "meta"

    def allocate(self, nbytes: int):
        return None


_ALLOCATORS = {"cpu": CPUAllocator(), "meta": MetaAllocator()}


def register_allocator(device_type: str, allocator: Allocator) -> None:
    """Backends of higher layers (emulated, CUDA) register their allocator here."""
    _ALLOCATORS[device_type] = allocator


# Note [Devices without a backend]: a tensor on an accelerator this build has no backend for fails as torch's
# CPU build fails.  CUDA, XPU and MTIA tensors first run their module's lazy init, which asserts that the backend
# was compiled in; any other device type has no allocator to reach ("not linked with support").
_NOT_COMPILED = {
    "cuda": "Torch not compiled with CUDA enabled",
    "xpu": "Torch not compiled with XPU enabled",
    "mtia": "Torch not compiled with MTIA enabled. Ensure you have "
            "`import mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
            "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!",
}


def registered_allocator(device_type: str) -> Allocator | None:
    """The allocator a backend registered for ``device_type``, or None (a query that never raises)."""
    return _ALLOCATORS.get(device_type)


def allocator_for(device_type: str) -> Allocator:
    try:
        return _ALLOCATORS[device_type]
    except KeyError:
        if device_type in _NOT_COMPILED:
            raise AssertionError(_NOT_COMPILED[device_type]) from None
        raise RuntimeError(f"PyTorch is not linked with support for {device_type} devices") from None
