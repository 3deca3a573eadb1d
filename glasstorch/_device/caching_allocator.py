"""The caching allocator — PyTorch's ``c10/cuda/CUDACachingAllocator.cpp`` (``DeviceCachingAllocator``).

Device memory is expensive to get (``cudaMalloc`` synchronises the device) and cheap to keep, so freed blocks
are hoarded and reused.  One instance serves one device of one backend (``backend.py``):

- sizes round up to 512 bytes; requests of at most 1 MiB come from the *small* pool, whose segments are
  2 MiB; larger ones from the *large* pool, whose segments are 20 MiB for requests under 10 MiB and the request
  rounded up to 2 MiB otherwise;
- a request takes the best fitting free block *allocated on the same stream* (the pools are ordered by
  (stream, size, address)); a block larger than needed is split when the rest is worth keeping (at least
  512 bytes in the small pool, more than 1 MiB in the large pool, and never for blocks at or over
  ``max_split_size``); freed blocks merge with free neighbours of their segment;
- when no block fits and the device refuses more memory, the cache is given back (oversize blocks first, then
  every unsplit free segment, after waiting for all outstanding stream events) and the request is retried;
  only then ``OutOfMemoryError`` is raised, with PyTorch's message;
- a block used on other streams (``record_stream``) is freed only after events recorded on those streams
  at free time have completed.

Statistics, memory history and snapshots follow ``torch.cuda.memory_stats``/``_record_memory_history``/
``memory._snapshot``; ``memory.py`` formats them for users.

Invariants: the blocks of a segment tile it exactly (prev/next chain, addresses contiguous); a free block is in
exactly one pool and never next to another free block of its segment once merging had a chance; every stat's
``current`` equals the sum over the live blocks it counts.  All state changes happen under one lock; ``free``
never blocks on it (a free that cannot take the lock is queued and applied by the lock's holder), so freeing
from a finaliser or another thread cannot deadlock.
"""

from __future__ import annotations

import collections
import sys
import threading
import time
from bisect import bisect_left, insort

from .allocator_config import (
    ALL,
    ALL_POOLS,
    LARGE_POOL,
    NEVER,
    SIZE_MAX,
    SMALL_POOL,
    STATE,
    AllocatorConfig,
    _roundup_power2_next_division,
    format_size,
    kLargeBuffer,
    kMinBlockSize,
    kMinLargeAlloc,
    kRoundLarge,
    kSmallBuffer,
    kSmallSize,
)
from .allocator_stats import ARRAY_STATS, COUNTERS, DeviceStats, check_invariants, decrease_many, increase_many

__all__ = ["OutOfMemoryError", "AllocatorConfig", "DeviceCachingAllocator", "Block", "format_size",
           "kMinBlockSize", "kSmallSize", "kSmallBuffer", "kLargeBuffer", "kMinLargeAlloc", "kRoundLarge",
           "gather_python_frames"]


class OutOfMemoryError(RuntimeError):
    """The device has no memory left for a request (``torch.OutOfMemoryError``, a RuntimeError)."""


# -- blocks and pools ---------------------------------------------------------------------------------------------
class Block:
    """A range of device memory: a whole segment, or a piece of one (``prev``/``next`` link the pieces)."""

    __slots__ = ("device", "stream", "size", "requested_size", "pool", "ptr", "allocated", "prev", "next",
                 "event_count", "stream_uses", "gc_base", "context", "segment_context", "__weakref__")

    def __init__(self, device, stream, size, pool, ptr):
        self.device = device
        self.stream = stream
        self.size = size
        self.requested_size = 0
        self.pool = pool
        self.ptr = ptr
        self.allocated = False
        self.prev = None
        self.next = None
        self.event_count = 0
        self.stream_uses = None  # a set of other streams that used the block (record_stream)
        self.gc_base = 0
        self.context = None  # stack of the allocation that owns the block (history on)
        self.segment_context = None  # stack of the allocation that created the segment

    def is_split(self) -> bool:
        return self.prev is not None or self.next is not None

    def __repr__(self):
        state = "allocated" if self.allocated else "free"
        return f"Block(ptr={self.ptr:#x}, size={self.size}, stream={self.stream.sid}, {state})"


class BlockPool:
    """The free blocks of one pool, ordered by (stream, size, address) for best-fit search."""

    __slots__ = ("is_small", "keys", "blocks", "stat_idx", "free_block_calls")

    def __init__(self, is_small: bool):
        self.is_small = is_small
        self.keys = []  # sorted (sid, size, ptr)
        self.blocks = {}  # (sid, size, ptr) -> Block
        self.stat_idx = SMALL_POOL if is_small else LARGE_POOL
        self.free_block_calls = 0  # "age" clock for garbage collection

    def insert(self, block):
        key = (block.stream.sid, block.size, block.ptr)
        insort(self.keys, key)
        self.blocks[key] = block
        block.gc_base = self.free_block_calls

    def remove(self, block):
        key = (block.stream.sid, block.size, block.ptr)
        i = bisect_left(self.keys, key)
        del self.keys[i]
        del self.blocks[key]

    def __iter__(self):
        blocks = self.blocks
        return iter([blocks[k] for k in self.keys])

    def __len__(self):
        return len(self.keys)


class _Params:
    __slots__ = ("size", "stream", "pool", "alloc_size", "block")

    def __init__(self, size, stream, pool, alloc_size):
        self.size, self.stream, self.pool, self.alloc_size = size, stream, pool, alloc_size
        self.block = None


def _allocation_size(size: int) -> int:
    if size <= kSmallSize:
        return kSmallBuffer
    if size < kMinLargeAlloc:
        return kLargeBuffer
    return kRoundLarge * ((size + kRoundLarge - 1) // kRoundLarge)


def gather_python_frames(skip: int = 2) -> tuple:
    """The calling Python stack, innermost first, as (filename, line, name) triples."""
    f = sys._getframe(skip)
    out = []
    while f is not None:
        code = f.f_code
        out.append((code.co_filename, f.f_lineno, code.co_name))
        f = f.f_back
    return tuple(out)


# -- the allocator ----------------------------------------------------------------------------------------------
class DeviceCachingAllocator:
    """The caching allocator of one device (``DeviceCachingAllocator``); see the module docstring.

    Example:
        >>> from glasstorch._device.emu import EmuBackend
        >>> backend = EmuBackend(capacity=64 << 20)
        >>> alloc = DeviceCachingAllocator(backend, 0)
        >>> b = alloc.malloc(1000, backend.default_stream(0))
        >>> alloc.stats()["reserved_bytes"]["all"]["current"]   # one 2 MiB small segment
        2097152
        >>> alloc.free(b)
    """

    def __init__(self, backend, device: int = 0, config: AllocatorConfig | None = None):
        self.backend = backend
        self.device = device
        self.config = config or AllocatorConfig()
        self.small = BlockPool(True)
        self.large = BlockPool(False)
        self.active = set()
        self.stats_ = DeviceStats()
        self.total_allocated_memory = 0  # bytes held in segments (reserved)
        self.set_fraction = False
        self.allowed_memory_maximum = 0
        self.events = collections.OrderedDict()  # stream sid -> deque of (event, block)
        self._lock = threading.Lock()
        self._deferred = collections.deque()
        # memory history
        self.record_history = False
        self.record_context = NEVER
        self.context_recorder = gather_python_frames
        self.trace = []
        self.trace_next = 0
        self.trace_max = sys.maxsize

    # -- locking: free() never blocks; whoever holds the lock applies queued frees ------------------------------------
    def _acquire(self):
        self._lock.acquire()

    def _release(self):
        while True:
            while self._deferred:
                block, ctx = self._deferred.popleft()
                self._free_locked(block, ctx)
            self._lock.release()
            if not self._deferred or not self._lock.acquire(False):
                return

    # -- public operations --------------------------------------------------------------------------------------
    def malloc(self, orig_size: int, stream) -> Block:
        """A block of at least ``orig_size`` bytes for use on ``stream``; raises OutOfMemoryError."""
        ctx = self.context_recorder(2) if self.record_context >= STATE else None
        self._acquire()
        try:
            block = self._malloc(orig_size, stream, ctx)
        finally:
            self._release()
        if type(block) is OutOfMemoryError:
            raise block
        return block

    def free(self, block: Block) -> None:
        """Return a block; with ``record_stream`` uses it stays active until those streams' events complete."""
        ctx = self.context_recorder(2) if self.record_context >= ALL else None
        if not self._lock.acquire(False):
            self._deferred.append((block, ctx))
            if not self._lock.acquire(False):
                return  # the holder (possibly this very thread, re-entering from a finaliser) applies it
            self._release()
            return
        try:
            self._free_locked(block, ctx)
        finally:
            self._release()

    def record_stream(self, block: Block, stream) -> None:
        """Mark ``block`` as used on ``stream`` too (``recordStream``); the allocation stream is ignored."""
        self._acquire()
        try:
            if stream.sid != block.stream.sid:
                if block.stream_uses is None:
                    block.stream_uses = set()
                block.stream_uses.add(stream)
        finally:
            self._release()

    def empty_cache(self) -> None:
        """Give every unused unsplit segment back to the device (``emptyCache``)."""
        self._acquire()
        try:
            self._release_cached_blocks()
        finally:
            self._release()

    def set_memory_fraction(self, fraction: float) -> None:
        total = self.backend.mem_get_info(self.device)[1]
        self._acquire()
        try:
            self.allowed_memory_maximum = int(fraction * total)
            self.set_fraction = True
        finally:
            self._release()

    def get_memory_fraction(self) -> float:
        if not self.set_fraction:
            return 1.0
        return self.allowed_memory_maximum / self.backend.mem_get_info(self.device)[1]

    # -- malloc -------------------------------------------------------------------------------------------------
    def _round_size(self, size: int) -> int:
        if size < kMinBlockSize:
            return kMinBlockSize
        if not self.config.any_divisions:
            return kMinBlockSize * ((size + kMinBlockSize - 1) // kMinBlockSize)
        d = self.config.divisions_for(size)
        if d > 1 and size > kMinBlockSize * d:
            return _roundup_power2_next_division(size, d)
        return kMinBlockSize * ((size + kMinBlockSize - 1) // kMinBlockSize)

    def _malloc(self, orig_size, stream, ctx):
        if self.events:
            self._process_events()
        size = self._round_size(orig_size)
        pool = self.small if size <= kSmallSize else self.large
        p = _Params(size, stream, pool, _allocation_size(size))
        if not self._get_free_block(p):
            if self.config.garbage_collection_threshold > 0 and self.set_fraction:
                self._garbage_collect_cached_blocks()
            found = (self._alloc_block(p, False, ctx)
                     or (self._release_available_cached_blocks(p) and self._alloc_block(p, False, ctx))
                     or (self._release_cached_blocks() and self._alloc_block(p, True, ctx)))
            if not found:
                return self._out_of_memory(p, ctx)
        return self._alloc_found_block(p, orig_size, ctx, self._should_split(p.block, size))

    def _get_free_block(self, p) -> bool:
        pool = p.pool
        if self.config.garbage_collection_threshold > 0 and self.set_fraction:
            pool.free_block_calls += 1
        keys = pool.keys
        i = bisect_left(keys, (p.stream.sid, p.size))
        if i == len(keys) or keys[i][0] != p.stream.sid:
            return False
        size = keys[i][1]
        max_split = self.config.max_split_size
        if p.size < max_split and size >= max_split:
            return False  # no oversize block for a small request
        if p.size >= max_split and size >= p.size + self.config.max_non_split_rounding_size:
            return False  # nor a much larger oversize block for a large one
        block = pool.blocks.pop(keys[i])
        del keys[i]
        p.block = block
        return True

    def _alloc_block(self, p, is_retry, ctx) -> bool:
        size = p.alloc_size
        st = self.stats_
        if is_retry:
            st.num_alloc_retries += 1
        if self.set_fraction and self.total_allocated_memory + size > self.allowed_memory_maximum:
            return False
        ptr = self.backend.raw_malloc(self.device, size)
        if ptr is None:
            return False
        self.total_allocated_memory += size
        p.block = Block(self.device, p.stream, size, p.pool, ptr)
        idx = p.pool.stat_idx
        st.segment.increase(idx, 1)
        st.reserved_bytes.increase(idx, size)
        if size >= self.config.max_split_size:
            st.oversize_segments.increase(1)
        st.num_device_alloc += 1
        self._record("segment_alloc", ptr, size, p.stream, ctx)
        p.block.segment_context = ctx
        return True

    def _should_split(self, block, size) -> bool:
        remaining = block.size - size
        if block.pool.is_small:
            return remaining >= kMinBlockSize
        return size < self.config.max_split_size and remaining > kSmallSize

    def _alloc_found_block(self, p, orig_size, ctx, split_remainder) -> Block:
        block, size, pool, st = p.block, p.size, p.pool, self.stats_
        idx = pool.stat_idx
        already_split = block.is_split()
        if split_remainder:
            remaining = block
            block = Block(self.device, p.stream, size, pool, remaining.ptr)
            block.prev = remaining.prev
            if block.prev is not None:
                block.prev.next = block
            block.next = remaining
            remaining.prev = block
            remaining.ptr += size
            remaining.size -= size
            pool.insert(remaining)
            if already_split:
                decrease_many(((st.inactive_split_bytes, size),), idx)  # an inactive split block shrank by `size`
            else:  # a new inactive split block
                increase_many(((st.inactive_split_bytes, remaining.size), (st.inactive_split, 1)), idx)
        elif already_split:
            decrease_many(((st.inactive_split_bytes, block.size), (st.inactive_split, 1)), idx)
        block.allocated = True
        block.requested_size = orig_size
        block.context = ctx
        self._record("alloc", block.ptr, orig_size, block.stream, ctx)
        self.active.add(block)
        bsize = block.size
        increase_many(((st.allocation, 1), (st.allocated_bytes, bsize), (st.active, 1), (st.active_bytes, bsize),
                       (st.requested_bytes, orig_size)), idx)
        if bsize >= self.config.max_split_size:
            st.oversize_allocations.increase(1)
        return block

    def _out_of_memory(self, p, ctx) -> OutOfMemoryError:
        device_free, device_total = self.backend.mem_get_info(self.device)
        allowed = f"{format_size(self.allowed_memory_maximum)} allowed; " if self.set_fraction else ""
        self._record("oom", device_free, p.size, p.stream, ctx)
        self.stats_.num_ooms += 1
        allocated = self.stats_.allocated_bytes.all.current
        reserved = self.stats_.reserved_bytes.all.current
        return OutOfMemoryError(
            f"{self.backend.oom_name} out of memory. Tried to allocate {format_size(p.alloc_size)}. GPU "
            f"{self.device} has a total capacity of {format_size(device_total)} of which {format_size(device_free)} "
            f"is free. {allowed}Of the allocated memory {format_size(allocated)} is allocated by PyTorch, and "
            f"{format_size(reserved - allocated)} is reserved by PyTorch but unallocated. If reserved but "
            f"unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
            f"fragmentation.  See documentation for Memory Management  "
            f"(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")

    # -- free ---------------------------------------------------------------------------------------------------
    def _free_locked(self, block, ctx):
        st = self.stats_
        idx = block.pool.stat_idx
        block.allocated = False
        decrease_many(((st.allocation, 1), (st.allocated_bytes, block.size)), idx)
        if self.record_history:
            self._record("free_requested", block.ptr, block.requested_size, block.stream, ctx or block.context)
        if block.size >= self.config.max_split_size:
            st.oversize_allocations.decrease(1)
        if block.stream_uses:
            self._insert_events(block)
        else:
            self._free_block(block, ctx)

    def _free_block(self, block, ctx):
        """Merge with free neighbours and put the block back in its pool (``free_block``)."""
        self._record("free_completed", block.ptr, block.requested_size, block.stream, ctx or block.context)
        block.context = None
        original_size, requested = block.size, block.requested_size
        pool = block.pool
        d_split_blocks = d_split_size = 0
        for cand in (block.prev, block.next):
            subsumed = self._try_merge(block, cand, pool)
            if subsumed:
                d_split_blocks -= 1
                d_split_size -= subsumed
        self.active.discard(block)
        pool.insert(block)
        if block.is_split():
            d_split_blocks += 1
            d_split_size += block.size
        st, idx = self.stats_, pool.stat_idx
        if d_split_blocks or d_split_size:  # each may go either way (a merge can leave the block split)
            ups = [(arr, d) for arr, d in ((st.inactive_split, d_split_blocks), (st.inactive_split_bytes, d_split_size))
                   if d > 0]
            downs = [(arr, -d) for arr, d in ((st.inactive_split, d_split_blocks),
                                             (st.inactive_split_bytes, d_split_size)) if d < 0]
            increase_many(ups, idx)
            decrease_many(downs, idx)
        decrease_many(((st.active, 1), (st.active_bytes, original_size), (st.requested_bytes, requested)), idx)

    @staticmethod
    def _try_merge(dst, src, pool) -> int:
        if src is None or src.allocated or src.event_count > 0 or src.stream_uses:
            return 0
        if dst.prev is src:  # [src dst]
            dst.ptr = src.ptr
            dst.prev = src.prev
            if dst.prev is not None:
                dst.prev.next = dst
            dst.segment_context = src.segment_context
        else:  # [dst src]
            dst.next = src.next
            if dst.next is not None:
                dst.next.prev = dst
        pool.remove(src)
        dst.size += src.size
        return src.size

    # -- cross-stream uses ---------------------------------------------------------------------------------------
    def _insert_events(self, block):
        backend = self.backend
        streams, block.stream_uses = block.stream_uses, None
        for stream in streams:
            event = backend.new_event(False)
            backend.record_event(event, stream)
            block.event_count += 1
            self.events.setdefault(stream.sid, collections.deque()).append((event, block))

    def _process_events(self):
        """Free blocks whose cross-stream events completed; per stream, stop at the first pending one."""
        query = self.backend.event_query
        for sid in list(self.events):
            q = self.events[sid]
            while q:
                event, block = q[0]
                if not query(event):
                    break
                q.popleft()
                block.event_count -= 1
                if block.event_count == 0:
                    self._free_block(block, None)
            if not q:
                del self.events[sid]

    def _synchronize_and_free_events(self):
        self.stats_.num_sync_all_streams += 1
        sync = self.backend.event_synchronize
        for q in self.events.values():
            for event, block in q:
                sync(event)
                block.event_count -= 1
                if block.event_count == 0:
                    self._free_block(block, None)
        self.events.clear()

    # -- giving memory back --------------------------------------------------------------------------------------
    def _release_block(self, block):
        st = self.stats_
        st.num_device_free += 1
        self._record("segment_free", block.ptr, block.size, block.stream, block.segment_context)
        block.pool.remove(block)
        self.backend.raw_free(self.device, block.ptr, block.size)
        self.total_allocated_memory -= block.size
        idx = block.pool.stat_idx
        st.segment.decrease(idx, 1)
        st.reserved_bytes.decrease(idx, block.size)
        if block.size >= self.config.max_split_size:
            st.oversize_segments.decrease(1)

    def _release_available_cached_blocks(self, p) -> bool:
        """Free oversize cached blocks of the request's stream until the request would fit."""
        max_split = self.config.max_split_size
        if max_split == SIZE_MAX:
            return False
        pool, sid = p.pool, p.stream.sid
        want = max(p.size, max_split)
        keys = pool.keys
        i = bisect_left(keys, (sid, want))
        if i < len(keys) and keys[i][0] == sid:
            self._release_block(pool.blocks[keys[i]])
            return True
        released = 0
        j = i - 1
        while j >= 0 and released < want and keys[j][1] >= max_split and keys[j][0] == sid:
            block = pool.blocks[keys[j]]
            released += block.size
            self._release_block(block)
            j -= 1
        return released >= want

    def _release_cached_blocks(self) -> bool:
        self._synchronize_and_free_events()
        for pool in (self.large, self.small):
            for block in list(pool):
                if block.prev is None and block.next is None:
                    self._release_block(block)
        return True

    def _garbage_collect_cached_blocks(self):
        threshold = int(self.config.garbage_collection_threshold * self.allowed_memory_maximum)
        if self.total_allocated_memory <= threshold:
            return
        target = self.total_allocated_memory - threshold
        calls = self.large.free_block_calls
        freeable = [b for b in self.large if not b.is_split()]
        total_age = sum(calls - b.gc_base for b in freeable)
        reclaimed, progress = 0, True
        while reclaimed < target and progress and freeable:
            threshold_age = total_age / len(freeable)
            progress = False
            for b in list(freeable):
                age = calls - b.gc_base
                if age >= threshold_age:
                    progress = True
                    reclaimed += b.size
                    total_age -= age
                    freeable.remove(b)
                    self._release_block(b)

    # -- statistics -----------------------------------------------------------------------------------------------
    def stats(self) -> dict:
        """The nested statistics dict (``torch.cuda.memory_stats_as_nested_dict``)."""
        self._acquire()
        try:
            st = self.stats_
            out = {name: getattr(st, name) for name in COUNTERS}
            ms = self.config.max_split_size
            out["max_split_size"] = ms - (1 << 64) if ms >= 1 << 63 else ms
            out["num_oom_rejections"] = 0
            out["oversize_allocations"] = st.oversize_allocations.as_dict()
            out["oversize_segments"] = st.oversize_segments.as_dict()
            for name in ARRAY_STATS:
                out[name] = getattr(st, name).as_dict()
            return out
        finally:
            self._release()

    def current(self, stat: str, pool: int = ALL_POOLS) -> int:
        """One ``current`` value without building the dict (``memory_allocated`` and friends)."""
        self._acquire()
        try:
            return getattr(self.stats_, stat).by_pool[pool].current
        finally:
            self._release()

    def peak(self, stat: str) -> int:
        self._acquire()
        try:
            return getattr(self.stats_, stat).all.peak
        finally:
            self._release()

    def reset_peak_stats(self) -> None:
        self._acquire()
        try:
            for s in self.stats_.all_stats():
                s.peak = s.current
        finally:
            self._release()

    def reset_accumulated_stats(self) -> None:
        self._acquire()
        try:
            for s in self.stats_.all_stats():
                s.allocated = s.freed = 0
            for name in COUNTERS:
                setattr(self.stats_, name, 0)
        finally:
            self._release()

    # -- history and snapshots -------------------------------------------------------------------------------------
    def set_record_history(self, enabled: bool, recorder, max_entries: int, context_level: int,
                           clear_history: bool = False) -> None:
        """``recordHistory``: trace alloc/free events (ring buffer of ``max_entries``) and gather stacks."""
        self._acquire()
        try:
            self.record_history = enabled
            self.context_recorder = recorder or gather_python_frames
            self.record_context = context_level if enabled else NEVER
            self.trace_max = max(int(max_entries), 1)
            if clear_history or not enabled:
                self.trace, self.trace_next = [], 0
        finally:
            self._release()

    def _record(self, action, addr, size, stream, ctx):
        if not self.record_history:
            return
        entry = (action, addr, size, stream.sid, time.time_ns() // 1000, ctx)
        if len(self.trace) < self.trace_max:
            self.trace.append(entry)
        else:
            self.trace[self.trace_next] = entry
            self.trace_next = (self.trace_next + 1) % self.trace_max

    def snapshot(self) -> tuple:
        """``(segments, trace)`` as plain dicts, PyTorch's ``memory._snapshot()`` schema, for this device."""
        self._acquire()
        try:
            heads = [b for b in (*self.large, *self.small, *self.active) if b.prev is None]
            heads.sort(key=lambda b: b.ptr)
            segments = [self._segment_dict(h) for h in heads]
            total_active = sum(s["active_size"] for s in segments)
            if self.record_history:
                self._record("snapshot", 0, total_active, _DEFAULT_SID, None)
            trace = self.trace[self.trace_next:] + self.trace[:self.trace_next]
            return segments, [_trace_dict(e) for e in trace]
        finally:
            self._release()

    def _segment_dict(self, head) -> dict:
        blocks, total = [], 0
        allocated = active = requested = 0
        b = head
        while b is not None:
            is_active = b.allocated or b.event_count > 0 or bool(b.stream_uses)
            state = "active_allocated" if b.allocated else ("active_pending_free" if is_active else "inactive")
            blocks.append({"address": b.ptr, "size": b.size, "requested_size": b.requested_size, "state": state,
                           "frames": _frames(b.context)})
            total += b.size
            if b.allocated:
                allocated += b.size
            if is_active:
                active += b.size
                requested += b.requested_size
            b = b.next
        return {"device": self.device, "address": head.ptr, "total_size": total, "allocated_size": allocated,
                "active_size": active, "requested_size": requested, "stream": head.stream.sid,
                "segment_type": "small" if head.pool.is_small else "large", "segment_pool_id": (0, 0),
                "is_expandable": False, "frames": _frames(head.segment_context), "blocks": blocks}

    # -- invariants (tests) ---------------------------------------------------------------------------------------
    def check_invariants(self) -> None:
        """Assert the structural invariants and that every stat equals what the live blocks say."""
        self._acquire()
        try:
            check_invariants(self)
        finally:
            self._release()


class _DefaultStream:
    sid = 0


_DEFAULT_SID = _DefaultStream()


def _frames(ctx) -> list:
    if not ctx:
        return []
    return [{"filename": f, "line": ln, "name": n} for f, ln, n in ctx]


def _trace_dict(entry) -> dict:
    action, addr, size, sid, t_us, ctx = entry
    d = {"action": action, ("device_free" if action == "oom" else "addr"): addr, "size": size, "stream": sid,
         "time_us": t_us, "frames": _frames(ctx)}
    return d


