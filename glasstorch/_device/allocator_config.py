"""Caching-allocator constants and settings — PyTorch's ``c10/cuda/CUDAAllocatorConfig.h`` and the constants
of ``CUDACachingAllocator.cpp``.

The size classes (512-byte rounding, 1 MiB small requests in 2 MiB segments, 20 MiB segments under 10 MiB,
2 MiB rounding above), the ``PYTORCH_CUDA_ALLOC_CONF``-style settings string, and c10's size printer.

Invariant: an :class:`AllocatorConfig` is immutable once parsed; a new settings string makes a new one.
"""

from __future__ import annotations

import warnings

__all__ = ["AllocatorConfig", "format_size", "kMinBlockSize", "kSmallSize", "kSmallBuffer", "kLargeBuffer",
           "kMinLargeAlloc", "kRoundLarge", "NEVER", "STATE", "ALLOC", "ALL", "ALL_POOLS", "SMALL_POOL",
           "LARGE_POOL", "SIZE_MAX"]

kMinBlockSize = 512          # every size rounds up to a multiple of 512 bytes
kSmallSize = 1048576         # largest "small" request: 1 MiB
kSmallBuffer = 2097152       # small-pool segments: 2 MiB
kLargeBuffer = 20971520      # large-pool segments for requests under kMinLargeAlloc: 20 MiB
kMinLargeAlloc = 10485760    # requests from 1 to 10 MiB share 20 MiB segments
kRoundLarge = 2097152        # larger requests round up to 2 MiB
SIZE_MAX = (1 << 64) - 1    # std::numeric_limits<size_t>::max(): "no limit"
_INTERVALS = 16              # roundup_power2_divisions intervals: 1 MiB .. 64 GiB, one per power of two
_MB = 1048576

# RecordContext levels: which calls gather a stack trace
NEVER, STATE, ALLOC, ALL = 0, 1, 2, 3
ALL_POOLS, SMALL_POOL, LARGE_POOL = 0, 1, 2

def format_size(size: int) -> str:
    """c10's size pretty-printer: ``512 bytes``, ``2.00 KiB``, ``20.00 MiB``, ``1.50 GiB``."""
    if size <= 1024:
        return f"{size} bytes"
    if size <= 1048576:
        return f"{size / 1024.0:.2f} KiB"
    if size <= 1073741824:
        return f"{size / 1048576.0:.2f} MiB"
    return f"{size / 1073741824.0:.2f} GiB"


# -- configuration (PYTORCH_CUDA_ALLOC_CONF) --------------------------------------------------------------------
class AllocatorConfig:
    """Allocator settings parsed from a ``key:value,key:value`` string (PyTorch's ``CUDAAllocatorConfig``).

    Keys: ``max_split_size_mb``, ``max_non_split_rounding_mb``, ``garbage_collection_threshold``,
    ``roundup_power2_divisions`` (an int or ``[256:4,512:2,>:1]``), ``expandable_segments`` (accepted, not
    supported here: ignored with a warning).

    Example:
        >>> AllocatorConfig("max_split_size_mb:100").max_split_size
        104857600
    """

    __slots__ = ("max_split_size", "max_non_split_rounding_size", "garbage_collection_threshold",
                 "roundup_power2_divisions", "expandable_segments", "text")

    def __init__(self, text: str = ""):
        self.max_split_size = SIZE_MAX
        self.max_non_split_rounding_size = kLargeBuffer
        self.garbage_collection_threshold = 0.0
        self.roundup_power2_divisions = [0] * _INTERVALS
        self.expandable_segments = False
        self.text = text or ""
        for item in filter(None, (s.strip() for s in _split_top(self.text))):
            key, _, value = item.partition(":")
            self._set(key.strip(), value.strip())

    def _set(self, key, value):
        if key == "max_split_size_mb":
            mb = _parse_int(key, value)
            if mb <= kLargeBuffer // _MB:
                raise RuntimeError(f"CachingAllocator option max_split_size_mb too small, must be > "
                                   f"{kLargeBuffer // _MB}")
            self.max_split_size = min(mb, SIZE_MAX // _MB) * _MB
        elif key == "max_non_split_rounding_mb":
            mb = _parse_int(key, value)
            if mb < kLargeBuffer // _MB:
                raise RuntimeError(f"CachingAllocator option max_non_split_rounding_mb too small, must be >= "
                                   f"{kLargeBuffer // _MB}")
            self.max_non_split_rounding_size = mb * _MB
        elif key == "garbage_collection_threshold":
            v = float(value)
            if not 0.0 < v < 1.0:
                raise RuntimeError("garbage_collect_threshold is invalid, set it in (0.0, 1.0)")
            self.garbage_collection_threshold = v
        elif key == "roundup_power2_divisions":
            self._set_divisions(value)
        elif key == "expandable_segments":
            if value not in ("True", "False"):
                raise RuntimeError("Expected a single True/False argument for expandable_segments")
            if value == "True":
                warnings.warn("expandable_segments not supported on this platform", UserWarning, stacklevel=4)
        elif key in ("release_lock_on_cudamalloc", "pinned_use_cuda_host_register", "pinned_num_register_threads",
                     "pinned_use_background_threads", "backend", "large_segment_size_mb"):
            pass  # host-allocator and driver options: nothing to do on these backends
        else:
            raise RuntimeError(f"Unrecognized CachingAllocator option: {key}")

    def _set_divisions(self, value):
        if not value.startswith("["):
            d = _check_pow2(_parse_int("roundup_power2_divisions", value))
            self.roundup_power2_divisions = [d] * _INTERVALS
            return
        last, seen_any = 0, False
        for entry in filter(None, value.strip("[]").split(",")):
            k, _, v = entry.partition(":")
            d = _check_pow2(_parse_int("roundup_power2_divisions", v))
            if k.strip() == ">":
                for i in range(last, _INTERVALS):
                    self.roundup_power2_divisions[i] = d
                continue
            mb = _parse_int("roundup_power2_divisions", k)
            if mb & (mb - 1):
                raise RuntimeError("For roundups, the intervals have to be power of 2")
            idx = min(max(mb.bit_length() - 1, 0), _INTERVALS - 1)
            fill_from = 0 if not seen_any else last
            for i in range(fill_from, idx + 1):
                self.roundup_power2_divisions[i] = d
            last, seen_any = idx + 1, True

    @property
    def any_divisions(self) -> bool:
        return any(self.roundup_power2_divisions)

    def divisions_for(self, size: int) -> int:
        log_size = size.bit_length() - 1
        index = max(log_size - 20, 0)  # intervals start at 1 MiB (2**20)
        return self.roundup_power2_divisions[min(index, _INTERVALS - 1)]


def _split_top(text):
    """Split on commas that are not inside ``[...]``."""
    out, depth, cur = [], 0, []
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _parse_int(key, value):
    try:
        return int(value)
    except ValueError:
        raise RuntimeError(f"Error parsing CachingAllocator option {key}: expected an integer, got '{value}'") from None


def _check_pow2(d):
    if d != 0 and d & (d - 1):
        raise RuntimeError("For roundups, the divisions has to be power of 2 or 0 to disable roundup ")
    return d


def _roundup_power2_next_division(size: int, divisions: int) -> int:
    if size & (size - 1) == 0:
        return size
    floor = 1 << (size.bit_length() - 1)
    step = floor >> (divisions.bit_length() - 1)
    if step == 0:
        return floor << 1
    down = size & ~(step - 1)
    return size if down == size else down + step
