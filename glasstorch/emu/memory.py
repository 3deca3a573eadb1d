"""``glasstorch.emu.memory`` — PyTorch's ``torch.cuda.memory`` for the emulated accelerator.

Statistics, the summary table, memory history and snapshots of the emu caching allocators
(``glasstorch/_device/caching_allocator.py``), with ``torch.cuda.memory``'s names, arguments and errors.

Invariant: a ``device`` argument of None means the current emu device; ``"emu:1"``, ``device("emu", 1)`` and ``1``
all name device 1.
"""

from __future__ import annotations

import pickle
import sys

from .._core.device import device as _Device
from .._device import emu as _emu
from .._device import memory as _memory
from .._device.caching_allocator import AllocatorConfig, OutOfMemoryError

__all__ = ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "memory_stats_as_nested_dict", "reset_peak_memory_stats", "reset_accumulated_memory_stats",
           "reset_max_memory_allocated", "reset_max_memory_cached", "memory_cached", "max_memory_cached",
           "empty_cache", "memory_summary", "mem_get_info", "set_per_process_memory_fraction",
           "get_per_process_memory_fraction", "memory_snapshot", "OutOfMemoryError"]


def _index(device) -> int:
    if device is None:
        return _emu.tls.device
    if isinstance(device, int):
        return device
    d = device if isinstance(device, _Device) else _Device(device)
    if d.type != "emu":
        raise ValueError(f"Expected a emu device, but got: {d}")
    return _emu.tls.device if d.index is None else d.index


def _allocator(device=None):
    i = _index(device)
    caching = _emu.allocator.caching
    if not 0 <= i < len(caching):
        raise RuntimeError(f"emu error: invalid device ordinal {i}")
    return caching[i]


def memory_allocated(device=None) -> int:
    """Bytes occupied by tensors on the device (``allocated_bytes.all.current``).

    Example:
        >>> import glasstorch as torch
        >>> before = torch.emu.memory_allocated()
        >>> x = torch.empty(1000, device="emu")          # 4000 bytes round up to 4096
        >>> torch.emu.memory_allocated() - before
        4096
    """
    return _allocator(device).current("allocated_bytes")


def max_memory_allocated(device=None) -> int:
    return _allocator(device).peak("allocated_bytes")


def memory_reserved(device=None) -> int:
    """Bytes the caching allocator holds in segments (``reserved_bytes.all.current``)."""
    return _allocator(device).current("reserved_bytes")


def max_memory_reserved(device=None) -> int:
    return _allocator(device).peak("reserved_bytes")


def memory_cached(device=None) -> int:
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    return max_memory_reserved(device)


def memory_stats_as_nested_dict(device=None) -> dict:
    return _allocator(device).stats()


def memory_stats(device=None) -> dict:
    """The allocator statistics as PyTorch's flat, sorted dict (``"allocated_bytes.all.peak"`` …)."""
    return _memory.flatten_stats(memory_stats_as_nested_dict(device))


def reset_peak_memory_stats(device=None) -> None:
    """Set every ``peak`` to its ``current`` value."""
    _allocator(device).reset_peak_stats()


def reset_accumulated_memory_stats(device=None) -> None:
    _allocator(device).reset_accumulated_stats()


def reset_max_memory_allocated(device=None) -> None:
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None) -> None:
    reset_peak_memory_stats(device)


def empty_cache() -> None:
    """Give every unused cached segment back to the device memory (``torch.cuda.empty_cache``)."""
    for a in _emu.allocator.caching:
        a.empty_cache()


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """PyTorch's memory summary table for an emu device."""
    i = _index(device)
    return _memory.memory_summary(memory_stats(i), i, abbreviated, name="EMU", malloc_name="emuMalloc")


def mem_get_info(device=None) -> tuple:
    """``(free, total)`` bytes of the device memory (``cudaMemGetInfo``)."""
    return _emu.backend.mem_get_info(_index(device))


def set_per_process_memory_fraction(fraction, device=None) -> None:
    """Limit the allocator to ``fraction`` of the device memory; beyond it allocations fail as OOM."""
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _allocator(device).set_memory_fraction(fraction)


def get_per_process_memory_fraction(device=None) -> float:
    return _allocator(device).get_memory_fraction()


def _record_memory_history(enabled="all", *args, **kwargs) -> None:
    """Record allocation stack traces (and, with ``"all"``, a trace of every alloc/free) for ``_snapshot``.

    Arguments as ``torch.cuda.memory._record_memory_history``: ``enabled`` ("state", "all" or None),
    ``context`` ("state", "alloc", "all" or None), ``stacks`` ("python" or "all"), ``max_entries``,
    ``device``, ``clear_history``; a bool first argument selects the legacy form.
    """
    if isinstance(enabled, bool):
        return _record_legacy(enabled, *args, **kwargs)
    return _record_impl(enabled, *args, **kwargs)


def _record_impl(enabled="all", context="all", stacks="all", max_entries=sys.maxsize, device=None,
                 clear_history=False, compile_context=False, global_record_annotations=False, skip_actions=None):
    _memory.record_memory_history(_emu.allocator.caching, enabled, context, stacks, max_entries, clear_history)


def _record_legacy(enabled, record_context=True, trace_alloc_max_entries=1, trace_alloc_record_context=False,
                   device=None, record_context_cpp=False, clear_history=False, **_):
    _memory.record_memory_history_legacy(_emu.allocator.caching, enabled, record_context, trace_alloc_max_entries,
                                         trace_alloc_record_context, clear_history)


def _snapshot(device=None, augment_with_fx_traces=False) -> dict:
    """The memory state: ``{"segments": [...], "device_traces": [[...]], "allocator_settings": {...}}``."""
    return _memory.snapshot(_emu.allocator.caching, _emu.allocator.config.text)


def _dump_snapshot(filename="dump_snapshot.pickle", augment_with_fx_traces=False) -> None:
    """Pickle :func:`_snapshot` to ``filename`` (view it with ``python -m glasstorch.emu.memory_viz``)."""
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)


def memory_snapshot(mempool_id=None, include_traces=True) -> list:
    """The segments of every emu device (``torch.cuda.memory_snapshot``)."""
    return _snapshot()["segments"]


def _set_allocator_settings(env: str) -> None:
    """Change the allocator settings at run time (``max_split_size_mb:…,roundup_power2_divisions:…``)."""
    old = _emu.allocator.config.text
    _emu.allocator.config = AllocatorConfig(f"{old},{env}" if old else env)  # later keys win, the rest stay
