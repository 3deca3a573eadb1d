"""Memory statistics, summaries, history and snapshots — PyTorch's ``torch/cuda/memory.py`` for any backend.

Device modules (``glasstorch.emu.memory``; ``glasstorch.cuda`` once it has a backend) bind these functions
to their caching allocators (``caching_allocator.py``):

- :func:`flatten_stats` turns the nested statistics into PyTorch's flat, sorted ``memory_stats()`` dict
  (``"allocated_bytes.all.current"`` …);
- :func:`memory_summary` prints PyTorch's fixed-width table;
- :func:`record_memory_history` validates ``_record_memory_history``'s options with PyTorch's messages;
- :func:`snapshot` assembles ``memory._snapshot()``: every device's segments (sorted by address, with their
  blocks and stack frames) and one trace list per device.

Invariant: nothing here changes allocator state except the history settings and the trace's ``snapshot`` entry.
"""

from __future__ import annotations

import collections
import sys

from .allocator_config import ALL, ALLOC, NEVER, STATE
from .caching_allocator import gather_python_frames

__all__ = ["flatten_stats", "memory_summary", "record_memory_history", "snapshot"]


def flatten_stats(nested: dict) -> collections.OrderedDict:
    """``{"a": {"b": 1}}`` -> ``OrderedDict([("a.b", 1)])``, keys sorted, as ``torch.cuda.memory_stats``."""
    result = []

    def add(prefix, obj):
        if isinstance(obj, dict):
            for k, v in obj.items():
                key = "_".join(str(p) for p in k) if isinstance(k, tuple) else str(k)
                add(f"{prefix}.{key}" if prefix else key, v)
        else:
            result.append((prefix, obj))

    add("", nested)
    result.sort()
    return collections.OrderedDict(result)


def _format_size(sz, pref_sz):
    prefixes = ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_sz < 768 * 1024:
            break
        prefix = new_prefix
        sz //= 1024
        pref_sz /= 1024
    return f"{sz:6d} {prefix}"


def _format_count(cnt, pref_cnt):
    prefixes = [" ", "K", "M"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_cnt < 750 * 1000:
            break
        prefix = new_prefix
        cnt //= 1000
        pref_cnt /= 1000
    return f"{cnt:7d} {prefix} "


_POOLED_ROWS = (
    ("allocated_bytes", "Allocated memory", _format_size),
    ("active_bytes", "Active memory", _format_size),
    ("requested_bytes", "Requested memory", _format_size),
    ("reserved_bytes", "GPU reserved memory", _format_size),
    ("inactive_split_bytes", "Non-releasable memory", _format_size),
    ("allocation", "Allocations", _format_count),
    ("active", "Active allocs", _format_count),
    ("segment", "GPU reserved segments", _format_count),
    ("inactive_split", "Non-releasable allocs", _format_count),
)
_OVERSIZE_ROWS = (("oversize_allocations", "Oversize allocations"), ("oversize_segments", "Oversize GPU segments"))


def memory_summary(stats: dict, device: int, abbreviated: bool = False, name: str = "CUDA",
                   malloc_name: str = "cudaMalloc") -> str:
    """PyTorch's ``memory_summary`` table for flat ``stats``; ``name``/``malloc_name`` label the device.

    The table is 75 columns wide whatever the labels (the padding after them absorbs the difference).
    """
    rule, thin = "=" * 75, "-" * 75
    head = f"PyTorch {name} memory summary, device ID {device:<{17 + 4 - len(name)}d} "
    ooms = (f"  {'':9} {name} OOMs: {stats['num_ooms']:<{12 + 4 - len(name)}d} | {'':6} {malloc_name} retries: "
            f"{stats['num_alloc_retries']:<{8 + 10 - len(malloc_name)}d}  ")
    lines = [rule, f" {'':16} {head}", thin, ooms, rule,
             "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  "]
    for key, label, fmt in _POOLED_ROWS:
        lines.append(thin)
        rows = [("all", label)]
        if not abbreviated:
            rows += [("large_pool", "      from large pool"), ("small_pool", "      from small pool")]
        ref = None
        for pool, sub in rows:
            vals = [stats[f"{key}.{pool}.{m}"] for m in ("current", "peak", "allocated", "freed")]
            ref = ref or vals
            lines.append(f" {sub:<21} | " + " | ".join(fmt(v, r) for v, r in zip(vals, ref, strict=True)) + " ")
    for key, label in _OVERSIZE_ROWS:
        lines.append(thin)
        vals = [stats[f"{key}.{m}"] for m in ("current", "peak", "allocated", "freed")]
        lines.append(f" {label:<21} | " + " | ".join(_format_count(v, v) for v in vals) + " ")
    lines.append(rule)
    return "|" + "|\n|".join(lines) + "|\n"


_CONTEXT_LEVELS = {None: NEVER, "state": STATE, "alloc": ALLOC, "all": ALL}


def record_memory_history(allocators, enabled="all", context="all", stacks="all", max_entries=sys.maxsize,
                          clear_history=False) -> None:
    """Turn history recording on (``"state"``/``"all"``) or off (None) for ``allocators``, PyTorch's checks."""
    if enabled is not None and enabled not in ("state", "all"):
        raise RuntimeError("expected state to be 'state', 'all', or None")
    if context is not None and context not in ("state", "alloc", "all"):
        raise RuntimeError("expected context to be 'state', 'alloc', 'all', or None")
    if stacks not in ("python", "all"):
        raise RuntimeError("expected stacks to be 'python', or 'all'")
    entries = max_entries if enabled == "all" else 1
    for a in allocators:
        a.set_record_history(enabled is not None, gather_python_frames, entries, _CONTEXT_LEVELS[context],
                             clear_history)


def record_memory_history_legacy(allocators, enabled: bool, record_context=True, trace_alloc_max_entries=1,
                                 trace_alloc_record_context=False, clear_history=False) -> None:
    """The boolean form, ``_record_memory_history(True, trace_alloc_max_entries=…)``."""
    level = ALLOC if trace_alloc_record_context else (STATE if record_context else NEVER)
    for a in allocators:
        a.set_record_history(bool(enabled), gather_python_frames, trace_alloc_max_entries, level, clear_history)


def snapshot(allocators, settings: str = "") -> dict:
    """``memory._snapshot()``: segments of every device sorted by address, and each device's trace."""
    segments, traces = [], []
    for a in allocators:
        segs, trace = a.snapshot()
        segments.extend(segs)
        traces.append(trace)
    return {"segments": segments, "device_traces": traces, "allocator_settings": _settings_dict(settings)}


def _settings_dict(text: str) -> dict:
    out = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        k, _, v = item.partition(":")
        out[k.strip()] = v.strip()
    return out
