"""The caching allocator against PyTorch's rules (pytorch-facts §8, from CUDACachingAllocator.cpp).

torch.cuda cannot run here (the oracle wheel is CPU-only), so the expected numbers are derived by hand from the
documented algorithm: 512-byte rounding, the small pool (<= 1 MiB requests, 2 MiB segments), the large pool
(20 MiB segments under 10 MiB, else rounded to 2 MiB), best fit per stream, split thresholds (>= 512 B small,
> 1 MiB large), merging, max_split_size, free-and-retry, stream-aware reuse.  The one check against real torch
code is the summary table: torch.cuda.memory_summary formats our statistics and must print what we print.
"""

import functools
import random
import threading
import time

import pytest

from glasstorch._device import memory as gmem
from glasstorch._device.caching_allocator import (
    AllocatorConfig,
    DeviceCachingAllocator,
    OutOfMemoryError,
    format_size,
)
from glasstorch._device.emu import EmuBackend

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def make(capacity="256MiB", conf=""):
    backend = EmuBackend(capacity=capacity)
    return backend, DeviceCachingAllocator(backend, 0, AllocatorConfig(conf))


def cur(a, name, pool="all"):
    return a.stats()[name][pool]["current"]


def test_format_size():
    assert [format_size(n) for n in (0, 1024, 1025, MiB, MiB + 1, GiB, 2 * GiB, int(14.75 * GiB))] == [
        "0 bytes", "1024 bytes", "1.00 KiB", "1024.00 KiB", "1.00 MiB", "1024.00 MiB", "2.00 GiB", "14.75 GiB"]


@pytest.mark.parametrize("request_size, block, segment, pool, split", [
    (1, 512, 2 * MiB, "small_pool", True),                     # < 512 -> 512; small segment 2 MiB
    (513, 1024, 2 * MiB, "small_pool", True),                  # rounded to 512 multiple
    (MiB, MiB, 2 * MiB, "small_pool", True),                   # exactly kSmallSize is small; remainder 1 MiB
    (MiB + 1, MiB + 512, 20 * MiB, "large_pool", True),        # large pool, 20 MiB segment, remainder > 1 MiB
    (10 * MiB - 512, 10 * MiB - 512, 20 * MiB, "large_pool", True),
    (10 * MiB, 10 * MiB, 10 * MiB, "large_pool", False),       # >= kMinLargeAlloc: own segment rounded to 2 MiB
    (11 * MiB, 12 * MiB, 12 * MiB, "large_pool", False),       # remainder 1 MiB is not > 1 MiB: not split
    (19 * MiB, 20 * MiB, 20 * MiB, "large_pool", False),
    (21 * MiB + 1, 22 * MiB, 22 * MiB, "large_pool", False),
])
def test_rounding_pools_and_segments(request_size, block, segment, pool, split):
    backend, a = make()
    s = backend.default_stream(0)
    b = a.malloc(request_size, s)
    assert b.size == block
    st = a.stats()
    assert st["reserved_bytes"][pool]["current"] == segment
    assert st["segment"][pool]["current"] == 1
    assert st["allocated_bytes"][pool]["current"] == block
    assert st["requested_bytes"][pool]["current"] == request_size
    assert st["inactive_split"]["all"]["current"] == (1 if split else 0)
    assert st["inactive_split_bytes"]["all"]["current"] == (segment - block if split else 0)
    a.check_invariants()
    a.free(b)
    # freed block merges back: one unsplit cached segment, nothing allocated, nothing non-releasable
    assert (cur(a, "allocated_bytes"), cur(a, "reserved_bytes"), cur(a, "inactive_split")) == (0, segment, 0)
    a.empty_cache()
    assert cur(a, "reserved_bytes") == 0 and a.stats()["num_device_free"] == 1
    a.check_invariants()


def test_small_pool_packs_a_segment_then_opens_another():
    backend, a = make()
    s = backend.default_stream(0)
    blocks = [a.malloc(MiB, s) for _ in range(3)]  # 2 per 2 MiB segment
    assert cur(a, "segment") == 2 and cur(a, "reserved_bytes") == 4 * MiB
    assert blocks[1].ptr == blocks[0].ptr + MiB  # the front part of the remainder
    assert cur(a, "inactive_split") == 1 and cur(a, "inactive_split_bytes") == MiB  # the 2nd segment's rest
    for b in blocks:
        a.free(b)
    a.check_invariants()
    assert cur(a, "allocated_bytes") == 0 and cur(a, "inactive_split") == 0


def test_best_fit_same_stream_smallest_then_lowest_address():
    backend, a = make()
    s = backend.default_stream(0)
    # one 2 MiB small segment carved into 4 blocks; keep separators so freed blocks cannot merge
    b1, sep1, b2, sep2, b3, rest = (a.malloc(n, s) for n in (4 * KiB, 512, 8 * KiB, 512, 4 * KiB, 512))
    p1, p2, p3 = b1.ptr, b2.ptr, b3.ptr
    for b in (b1, b2, b3):
        a.free(b)
    a.check_invariants()
    got = a.malloc(3 * KiB, s)  # fits 4 KiB blocks (b1, b3) and 8 KiB (b2): smallest, then lowest address
    assert got.ptr == p1 and got.size == 3 * KiB  # split (remainder 1 KiB >= 512)
    got2 = a.malloc(4 * KiB, s)
    assert got2.ptr == p3 and got2.size == 4 * KiB
    got3 = a.malloc(5 * KiB, s)
    assert got3.ptr == p2
    assert cur(a, "segment") == 1
    a.check_invariants()


def test_split_and_merge_stats():
    backend, a = make()
    s = backend.default_stream(0)
    x, y, z = a.malloc(1000, s), a.malloc(1000, s), a.malloc(1000, s)  # 1024 each, then the rest
    rest = 2 * MiB - 3 * 1024
    assert cur(a, "inactive_split") == 1 and cur(a, "inactive_split_bytes") == rest
    a.free(y)  # neighbours allocated: a new inactive split block
    assert cur(a, "inactive_split") == 2 and cur(a, "inactive_split_bytes") == rest + 1024
    a.free(x)  # merges with y
    assert cur(a, "inactive_split") == 2 and cur(a, "inactive_split_bytes") == rest + 2048
    a.free(z)  # merges with [x y] and the rest: the whole segment, unsplit
    assert cur(a, "inactive_split") == 0 and cur(a, "inactive_split_bytes") == 0
    st = a.stats()
    assert st["allocation"]["all"] == {"current": 0, "peak": 3, "allocated": 3, "freed": 3}
    assert st["active_bytes"]["small_pool"]["freed"] == 3072
    a.check_invariants()


def test_empty_cache_keeps_segments_with_live_blocks():
    backend, a = make()
    s = backend.default_stream(0)
    keep = a.malloc(100, s)  # small segment stays
    big = a.malloc(30 * MiB, s)  # own 30 MiB segment
    mid = a.malloc(2 * MiB, s)  # 20 MiB segment
    a.free(big)
    a.free(mid)
    assert cur(a, "reserved_bytes") == 2 * MiB + 30 * MiB + 20 * MiB
    a.empty_cache()
    assert cur(a, "reserved_bytes") == 2 * MiB and cur(a, "segment") == 1
    assert backend.mem_get_info(0) == (254 * MiB, 256 * MiB)
    a.free(keep)
    a.empty_cache()
    assert cur(a, "reserved_bytes") == 0 and backend.mem_get_info(0)[0] == 256 * MiB


def test_blocks_are_reused_only_on_their_stream():
    backend, a = make()
    s0, s1 = backend.default_stream(0), backend.new_stream(0)
    b = a.malloc(4096, s0)
    ptr = b.ptr
    a.free(b)
    other = a.malloc(4096, s1)
    assert other.ptr != ptr and cur(a, "segment") == 2  # s1 gets its own segment
    same = a.malloc(4096, s0)
    assert same.ptr == ptr
    a.check_invariants()


def test_record_stream_delays_reuse_until_the_other_stream_is_done():
    backend, a = make()
    s0, s1 = backend.default_stream(0), backend.new_stream(0)
    gate = threading.Event()
    s1.launch(gate.wait)  # s1 is busy until the gate opens
    b = a.malloc(4096, s0)
    ptr = b.ptr
    a.record_stream(b, s1)
    a.record_stream(b, s0)  # the allocation stream itself is ignored
    a.free(b)
    st = a.stats()
    assert st["allocated_bytes"]["all"]["current"] == 0  # allocated drops at once
    assert st["active_bytes"]["all"]["current"] == 4096  # but the block stays active, pending
    seg = a.snapshot()[0][0]
    assert [blk["state"] for blk in seg["blocks"]] == ["active_pending_free", "inactive"]
    again = a.malloc(4096, s0)
    assert again.ptr != ptr  # the pending block is not reused
    a.check_invariants()
    gate.set()
    s1.synchronize()
    a.free(again)
    third = a.malloc(4096, s0)  # processing events frees the block: it is reused now (lowest address)
    assert third.ptr == ptr
    a.free(third)
    a.check_invariants()
    assert cur(a, "active_bytes") == 0


def test_max_split_size_oversize_blocks():
    backend, a = make(conf="max_split_size_mb:30")
    s = backend.default_stream(0)
    assert a.stats()["max_split_size"] == 30 * MiB
    big = a.malloc(40 * MiB, s)
    st = a.stats()
    assert st["oversize_segments"]["current"] == 1 and st["oversize_allocations"]["current"] == 1
    a.free(big)
    assert a.stats()["oversize_allocations"] == {"current": 0, "peak": 1, "allocated": 1, "freed": 1}
    small = a.malloc(25 * MiB, s)  # < max_split: may not take the 40 MiB oversize block
    assert small.ptr != big.ptr and small.size == 26 * MiB
    near = a.malloc(38 * MiB, s)  # >= max_split and 40 < 38 + 20: takes it whole, unsplit
    assert near.ptr == big.ptr and near.size == 40 * MiB
    a.free(near)
    far = a.malloc(31 * MiB, s)  # 40 < 32 + 20 as well: taken whole
    assert far.size == 40 * MiB
    a.free(far)
    a.check_invariants()


def test_default_max_split_size_is_unlimited():
    _, a = make()
    assert a.stats()["max_split_size"] == -1  # SIZE_MAX as int64


def test_max_split_size_must_exceed_the_large_buffer():
    with pytest.raises(RuntimeError, match="max_split_size_mb too small, must be > 20"):
        AllocatorConfig("max_split_size_mb:20")
    with pytest.raises(RuntimeError, match="Unrecognized CachingAllocator option: bogus"):
        AllocatorConfig("bogus:1")


def test_roundup_power2_divisions():
    backend, a = make(conf="roundup_power2_divisions:4")
    s = backend.default_stream(0)
    assert a.malloc(3 * MiB + 1, s).size == 3 * MiB + 512 * KiB  # quarters of [2 MiB, 4 MiB)
    assert a.malloc(4 * MiB, s).size == 4 * MiB  # powers of two are kept
    assert a.malloc(1200, s).size == 1536  # not above 512 * 4: plain 512 rounding
    _, a2 = make(conf="roundup_power2_divisions:[1:4,>:1]")
    assert a2.malloc(3 * MiB + 1, backend.default_stream(0)).size == 3 * MiB + 512


def test_free_cached_blocks_and_retry_before_oom():
    backend, a = make("64MiB")
    s0, s1 = backend.default_stream(0), backend.new_stream(0)
    cached = [a.malloc(20 * MiB, s1) for _ in range(3)]  # 3 x 20 MiB = 60 MiB reserved on s1
    for b in cached:
        a.free(b)
    b = a.malloc(30 * MiB, s0)  # s1's cache must be given back first
    st = a.stats()
    assert st["num_alloc_retries"] == 1 and st["num_sync_all_streams"] == 1 and st["num_ooms"] == 0
    assert st["num_device_free"] == 3 and cur(a, "reserved_bytes") == 30 * MiB
    a.free(b)
    a.check_invariants()


def test_release_oversize_blocks_first():
    backend, a = make("100MiB", "max_split_size_mb:25")
    s = backend.default_stream(0)
    blocks = [a.malloc(30 * MiB, s) for _ in range(3)]
    for blk in blocks:
        a.free(blk)
    b = a.malloc(26 * MiB, s)  # 26 >= max_split and 30 < 26 + 20: reuses an oversize block whole, no retry
    assert b.size == 30 * MiB and a.stats()["num_alloc_retries"] == 0
    c = a.malloc(36 * MiB, s)  # 10 MiB free: the two cached oversize blocks (60 MiB >= 36) are released
    st = a.stats()
    assert st["num_alloc_retries"] == 0 and st["num_device_free"] == 2 and st["num_sync_all_streams"] == 0
    a.free(b)
    a.free(c)
    a.check_invariants()


def test_release_one_oversize_block_too_big_to_reuse():
    backend, a = make("100MiB", "max_split_size_mb:25")
    s = backend.default_stream(0)
    keep, big = a.malloc(30 * MiB, s), a.malloc(60 * MiB, s)
    a.free(big)
    b = a.malloc(30 * MiB, s)  # 60 >= 30 + 20: not reused; 10 MiB free: that one block is released
    st = a.stats()
    assert st["num_alloc_retries"] == 0 and st["num_device_free"] == 1 and cur(a, "reserved_bytes") == 60 * MiB
    a.free(b)
    a.free(keep)


def test_not_enough_oversize_blocks_falls_back_to_a_full_retry():
    backend, a = make("100MiB", "max_split_size_mb:25")
    s = backend.default_stream(0)
    o1, keep1, keep2 = (a.malloc(30 * MiB, s) for _ in range(3))
    a.free(o1)
    c = a.malloc(36 * MiB, s)  # releasing o1 frees 30 < 36: false, then release everything and retry
    assert a.stats()["num_alloc_retries"] == 1 and a.stats()["num_device_free"] == 1
    for x in (c, keep1, keep2):
        a.free(x)


def test_out_of_memory_message_and_recovery():
    backend, a = make("64MiB")
    s = backend.default_stream(0)
    a.set_record_history(True, None, 100, 0)
    x = a.malloc(30 * MiB, s)
    y = a.malloc(20 * MiB, s)  # 30 + 20 reserved, 14 MiB free
    with pytest.raises(OutOfMemoryError) as info:
        a.malloc(16 * MiB, s)  # needs a 16 MiB segment
    msg = str(info.value)
    assert msg == (
        "EMU out of memory. Tried to allocate 16.00 MiB. GPU 0 has a total capacity of 64.00 MiB of which "
        "14.00 MiB is free. Of the allocated memory 50.00 MiB is allocated by PyTorch, and 0 bytes is reserved "
        "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
        "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    assert isinstance(info.value, RuntimeError)
    st = a.stats()
    assert st["num_ooms"] == 1 and st["num_alloc_retries"] == 1
    oom = [e for e in a.snapshot()[1] if e["action"] == "oom"]
    assert oom and oom[0]["device_free"] == 14 * MiB and oom[0]["size"] == 16 * MiB
    a.check_invariants()
    a.free(y)  # the same request succeeds once memory is freed
    z = a.malloc(16 * MiB, s)
    assert z.size == 16 * MiB
    a.free(x)
    a.free(z)
    a.empty_cache()
    assert cur(a, "reserved_bytes") == 0


def test_memory_fraction_limits_reservation():
    backend, a = make("100MiB")
    s = backend.default_stream(0)
    a.set_memory_fraction(0.5)
    b = a.malloc(40 * MiB, s)
    with pytest.raises(OutOfMemoryError, match=r"Tried to allocate 20.00 MiB\. GPU 0 has a total capacity of "
                                               r"100.00 MiB of which 60.00 MiB is free\. 50.00 MiB allowed; Of"):
        a.malloc(2 * MiB, s)
    a.free(b)
    assert a.get_memory_fraction() == 0.5


def test_garbage_collection_threshold_frees_old_cached_blocks():
    backend, a = make("100MiB", "garbage_collection_threshold:0.5")
    s = backend.default_stream(0)
    a.set_memory_fraction(1.0)
    olds = [a.malloc(20 * MiB, s) for _ in range(3)]
    for b in olds:
        a.free(b)
    assert cur(a, "reserved_bytes") == 60 * MiB
    a.malloc(40 * MiB, s)  # no fit; 60 MiB reserved > 50 MiB threshold: aged cached segments are collected
    assert cur(a, "reserved_bytes") < 100 * MiB and a.stats()["num_alloc_retries"] == 0
    a.check_invariants()


def test_stats_keys_are_pytorchs():
    backend, a = make()
    flat = gmem.flatten_stats(a.stats())
    pooled = {f"{s}.{p}.{m}" for s in ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
                                        "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes")
              for p in ("all", "large_pool", "small_pool") for m in ("current", "peak", "allocated", "freed")}
    singles = {"num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc", "num_device_free",
               "num_oom_rejections", "max_split_size"}
    oversize = {f"{s}.{m}" for s in ("oversize_allocations", "oversize_segments")
                for m in ("current", "peak", "allocated", "freed")}
    assert set(flat) == pooled | singles | oversize
    assert list(flat) == sorted(flat)


def test_reset_peak_and_accumulated():
    backend, a = make()
    s = backend.default_stream(0)
    b = a.malloc(5 * MiB, s)
    a.free(b)
    c = a.malloc(1 * KiB, s)
    a.reset_peak_stats()
    st = a.stats()["allocated_bytes"]["all"]
    assert st["peak"] == st["current"] == 1024
    a.reset_accumulated_stats()
    st = a.stats()
    assert st["allocated_bytes"]["all"]["allocated"] == 0 and st["num_device_alloc"] == 0
    a.free(c)


def test_memory_summary_matches_torchs_formatter(monkeypatch):
    torch = pytest.importorskip("torch")
    backend, a = make()
    s = backend.default_stream(0)
    held = [a.malloc(n, s) for n in (100, 3 * MiB, 700 * MiB // 10, 2 * KiB)]
    a.free(held[1])
    flat = gmem.flatten_stats(a.stats())
    monkeypatch.setattr(torch.cuda.memory, "memory_stats", lambda device=None: flat)
    for abbreviated in (False, True):
        expected = torch.cuda.memory.memory_summary(device=0, abbreviated=abbreviated)
        assert gmem.memory_summary(flat, 0, abbreviated) == expected


def test_snapshot_segments_blocks_and_trace():
    backend, a = make()
    s = backend.default_stream(0)
    a.set_record_history(True, None, 1000, 3)

    def allocate_here():
        return a.malloc(3000, s)

    b = allocate_here()
    c = a.malloc(2 * MiB, s)
    a.free(b)
    segments, trace = a.snapshot()
    assert sorted(seg["segment_type"] for seg in segments) == ["large", "small"]
    assert [seg["address"] for seg in segments] == sorted(seg["address"] for seg in segments)
    small = next(seg for seg in segments if seg["segment_type"] == "small")
    assert small["total_size"] == 2 * MiB and small["allocated_size"] == 0 and small["blocks"][0]["state"] == "inactive"
    large = next(seg for seg in segments if seg["segment_type"] == "large")
    assert [(blk["size"], blk["state"]) for blk in large["blocks"]] == [(2 * MiB, "active_allocated"),
                                                                        (18 * MiB, "inactive")]
    assert large["allocated_size"] == large["active_size"] == 2 * MiB and large["requested_size"] == 2 * MiB
    assert set(large) >= {"device", "address", "total_size", "allocated_size", "active_size", "requested_size",
                          "stream", "segment_type", "segment_pool_id", "is_expandable", "frames", "blocks"}
    assert large["blocks"][0]["frames"][0]["name"] == "test_snapshot_segments_blocks_and_trace"
    assert large["blocks"][1]["frames"] == []  # free blocks keep no stack
    # as in PyTorch, a segment's stack stays with its original head block, which the first split moved on
    assert small["frames"] == []
    actions = [e["action"] for e in trace]
    assert actions == ["segment_alloc", "alloc", "segment_alloc", "alloc", "free_requested", "free_completed",
                       "snapshot"]
    assert trace[1]["addr"] == small["address"] and trace[1]["size"] == 3000 and trace[0]["size"] == 2 * MiB
    names = [f["name"] for f in trace[0]["frames"]]  # the stack of the allocation that created the segment
    assert names[0] == "allocate_here" and "test_snapshot_segments_blocks_and_trace" in names
    assert trace[1]["frames"] == trace[0]["frames"] and trace[4]["frames"][0]["name"] == names[1]
    a.free(c)
    a.empty_cache()
    assert [e["action"] for e in a.snapshot()[1][-4:]] == ["free_completed", "segment_free", "segment_free",
                                                           "snapshot"]


def test_history_ring_buffer_keeps_the_newest_entries():
    backend, a = make()
    s = backend.default_stream(0)
    a.set_record_history(True, None, 3, 0)
    blocks = [a.malloc(512 * (i + 1), s) for i in range(4)]
    trace = a.snapshot()[1]
    assert [e["size"] for e in trace] == [1536, 2048, 5120]  # last two allocs, then the snapshot (active bytes)
    assert [e["action"] for e in trace] == ["alloc", "alloc", "snapshot"] and trace[0]["frames"] == []
    for b in blocks:
        a.free(b)


def test_free_from_a_finaliser_inside_an_allocator_call_is_deferred():
    backend, a = make()
    s = backend.default_stream(0)
    b = a.malloc(512, s)
    a._acquire()  # as if this thread were inside malloc when a finaliser frees a block
    try:
        a.free(b)
        assert b.allocated  # not applied yet: the lock holder applies it
    finally:
        a._release()
    assert not b.allocated and cur(a, "allocated_bytes") == 0


def _stress(n_ops, seed, n_threads=3):
    backend, a = make("192MiB", "max_split_size_mb:40")
    cap = backend.capacity
    errors = []
    streams = [backend.default_stream(0)] + [backend.new_stream(0) for _ in range(n_threads)]

    def check():
        a.check_invariants()  # under the lock: tiling, no overlap, pools, every stat == sum over live blocks

    def worker(tid):
        rng = random.Random(seed * 100 + tid)
        mine = []
        try:
            for _ in range(n_ops // n_threads):
                stream = streams[rng.choice((0, tid + 1))]
                if mine and (rng.random() < 0.45 or len(mine) > 40):
                    b = mine.pop(rng.randrange(len(mine)))
                    if rng.random() < 0.1:
                        user = streams[rng.randrange(len(streams))]
                        user.launch(functools.partial(time.sleep, 0.0002))  # still busy when the block is freed
                        a.record_stream(b, user)
                    a.free(b)
                else:
                    size = rng.choice((rng.randint(1, 4096), rng.randint(1, MiB), rng.randint(MiB, 12 * MiB),
                                       rng.randint(12 * MiB, 48 * MiB)))
                    try:
                        mine.append(a.malloc(size, stream))
                    except OutOfMemoryError:
                        pass
                if rng.random() < 0.02:
                    a.empty_cache()
                check()
        except BaseException as e:  # noqa: BLE001
            errors.append(e)
        finally:
            for b in mine:
                a.free(b)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    backend.synchronize()
    a.empty_cache()
    check()
    segs, _ = a.snapshot()
    assert segs == []
    st = a.stats()
    assert st["allocated_bytes"]["all"]["current"] == 0 and st["active_bytes"]["all"]["current"] == 0
    assert st["reserved_bytes"]["all"]["current"] == 0 and backend.mem_get_info(0)[0] == cap
    assert st["allocation"]["all"]["allocated"] == st["allocation"]["all"]["freed"] > n_ops // 4


def test_stress_threads_and_streams():
    _stress(10_000, seed=0)


@pytest.mark.slow
def test_stress_threads_and_streams_long():
    _stress(100_000, seed=1, n_threads=4)
