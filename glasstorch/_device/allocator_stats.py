"""Caching-allocator statistics — PyTorch's ``c10::CachingDeviceAllocator::Stat``/``DeviceStats``, and the
structural check the tests run after every step.

A :class:`Stat` has ``current``, ``peak`` and the cumulative ``allocated``/``freed``; most statistics are kept
for all pools and per pool (``[all, small_pool, large_pool]``).  :func:`check_invariants` recomputes every
``current`` from the live blocks and compares.

Invariant: ``peak >= current`` and ``allocated - freed == current`` since the last reset of accumulated stats.
"""

from __future__ import annotations

import collections

from .allocator_config import LARGE_POOL, SMALL_POOL

__all__ = ["Stat", "DeviceStats", "ARRAY_STATS", "COUNTERS", "check_invariants", "increase_many", "decrease_many"]


# -- statistics ------------------------------------------------------------------------------------------------
class Stat:
    """One counter: ``current``, ``peak``, and the cumulative ``allocated`` (increases) and ``freed``."""

    __slots__ = ("current", "peak", "allocated", "freed")

    def __init__(self):
        self.current = self.peak = self.allocated = self.freed = 0

    def increase(self, n):
        self.current += n
        if self.current > self.peak:
            self.peak = self.current
        self.allocated += n

    def decrease(self, n):
        self.current -= n
        self.freed += n

    def as_dict(self):
        return {"current": self.current, "peak": self.peak, "allocated": self.allocated, "freed": self.freed}


class _StatArray:
    """A stat kept for all pools together and per pool: ``[all, small_pool, large_pool]``."""

    __slots__ = ("all", "by_pool", "pair")

    def __init__(self):
        self.all = Stat()
        self.by_pool = (self.all, Stat(), Stat())
        self.pair = (None, (self.all, self.by_pool[1]), (self.all, self.by_pool[2]))  # what one pool's change touches

    def increase(self, pool_idx, n):
        self.all.increase(n)
        self.by_pool[pool_idx].increase(n)

    def decrease(self, pool_idx, n):
        self.all.decrease(n)
        self.by_pool[pool_idx].decrease(n)

    def as_dict(self):
        return {"all": self.all.as_dict(), "small_pool": self.by_pool[SMALL_POOL].as_dict(),
                "large_pool": self.by_pool[LARGE_POOL].as_dict()}


def increase_many(changes, pool_idx) -> None:
    """``(stat array, amount)`` pairs increased for ``all`` and one pool: the allocator's hot path, inlined."""
    for arr, n in changes:
        for st in arr.pair[pool_idx]:
            c = st.current + n
            st.current = c
            st.allocated += n
            if c > st.peak:
                st.peak = c


def decrease_many(changes, pool_idx) -> None:
    for arr, n in changes:
        for st in arr.pair[pool_idx]:
            st.current -= n
            st.freed += n


ARRAY_STATS = ("allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
                "active_bytes", "inactive_split_bytes", "requested_bytes")
COUNTERS = ("num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc", "num_device_free")


class DeviceStats:
    __slots__ = ARRAY_STATS + COUNTERS + ("oversize_allocations", "oversize_segments")

    def __init__(self):
        for name in ARRAY_STATS:
            setattr(self, name, _StatArray())
        for name in COUNTERS:
            setattr(self, name, 0)
        self.oversize_allocations = Stat()
        self.oversize_segments = Stat()

    def all_stats(self):
        for name in ARRAY_STATS:
            yield from getattr(self, name).by_pool
        yield self.oversize_allocations
        yield self.oversize_segments


def check_invariants(a) -> None:
    """Assert the allocator's structure and that every ``current`` equals what its live blocks add up to."""
    heads = [b for b in (*a.large, *a.small, *a.active) if b.prev is None]
    sums = collections.Counter()
    for head in heads:
        idx = head.pool.stat_idx
        expect, seg_size, b, prev_free = head.ptr, 0, head, False
        while b is not None:
            assert b.ptr == expect, f"gap or overlap at {b!r}"
            assert b.pool is head.pool and b.stream is head.stream, f"mixed pool/stream in segment {head!r}"
            is_free = not b.allocated and b.event_count == 0 and not b.stream_uses
            in_pool = (b.stream.sid, b.size, b.ptr) in b.pool.blocks
            assert in_pool == (not b.allocated and b.event_count == 0), f"pool membership wrong for {b!r}"
            assert not (is_free and prev_free), f"two free neighbours not merged at {b!r}"
            prev_free = is_free
            if b.allocated:
                sums["allocated_bytes", idx] += b.size
                sums["allocation", idx] += 1
            if b.allocated or b.event_count > 0 or b.stream_uses:
                sums["active_bytes", idx] += b.size
                sums["active", idx] += 1
                sums["requested_bytes", idx] += b.requested_size
            elif b.is_split():
                sums["inactive_split_bytes", idx] += b.size
                sums["inactive_split", idx] += 1
            expect += b.size
            seg_size += b.size
            b = b.next
        sums["reserved_bytes", idx] += seg_size
        sums["segment", idx] += 1
    for name in ("allocated_bytes", "allocation", "active_bytes", "active", "requested_bytes", "reserved_bytes",
                 "segment", "inactive_split_bytes", "inactive_split"):
        arr = getattr(a.stats_, name)
        for idx in (SMALL_POOL, LARGE_POOL):
            assert arr.by_pool[idx].current == sums[name, idx], (name, idx, arr.by_pool[idx].current, sums[name, idx])
        assert arr.all.current == sums[name, SMALL_POOL] + sums[name, LARGE_POOL], name
    assert a.total_allocated_memory == a.stats_.reserved_bytes.all.current
    assert a.total_allocated_memory <= a.backend.mem_get_info(a.device)[1], "reserved beyond the device capacity"
    spans = sorted((h.ptr, h.ptr + sum_sizes(h)) for h in heads)
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert end <= start, "segments overlap"


def sum_sizes(head) -> int:
    n, b = 0, head
    while b is not None:
        n += b.size
        b = b.next
    return n
