"""The memory viewer: a self-contained HTML page drawn from a snapshot (segments, blocks, timeline)."""

import pickle
import re
import subprocess
import sys

import pytest

from glasstorch._device import memory as gmem
from glasstorch._device import memory_viz
from glasstorch._device.caching_allocator import AllocatorConfig, DeviceCachingAllocator, OutOfMemoryError
from glasstorch._device.emu import EmuBackend

MiB = 1 << 20


@pytest.fixture
def snap():
    backend = EmuBackend(capacity="64MiB")
    a = DeviceCachingAllocator(backend, 0, AllocatorConfig())
    gmem.record_memory_history([a], "all")
    s0, s1 = backend.default_stream(0), backend.new_stream(0)

    def load_weights():
        return a.malloc(3 * MiB, s0)

    w = load_weights()
    keep = [a.malloc(4096, s0) for _ in range(3)]
    a.free(keep[1])  # a split hole in the small segment
    a.free(a.malloc(2 * MiB, s1))  # a 20 MiB segment on s1, free again (merged back whole)
    with pytest.raises(OutOfMemoryError):
        a.malloc(60 * MiB, s0)  # the retry gives the cached s1 segment back first
    a.free(a.malloc(2 * MiB, s1))  # a fresh s1 segment, entirely free: cached
    return gmem.snapshot([a]), w


def test_segment_summary_counts_each_kind(snap):
    snapshot, w = snap
    s = memory_viz.segment_summary(snapshot)
    assert s["allocated"] == 3 * MiB + 2 * 4096
    assert s["split"] == 2 * MiB - 2 * 4096 + (20 * MiB - 3 * MiB)  # holes and rests of segments in use
    assert s["cached"] == 20 * MiB and s["pending_free"] == 0
    assert sum(s.values()) == sum(seg["total_size"] for seg in snapshot["segments"])


def test_timeline_ends_at_the_snapshot_state(snap):
    snapshot, _ = snap
    points = memory_viz.timeline(snapshot)
    assert [p[1] for p in points][:3] == ["segment_alloc", "alloc", "segment_alloc"]
    assert "oom" in [p[1] for p in points] and points[-1][1] == "snapshot"
    assert points[-1][2] == sum(seg["total_size"] for seg in snapshot["segments"])
    assert points[-1][3] == 3 * MiB + 2 * 4096
    assert max(p[2] for p in points) == 2 * MiB + 20 * MiB + 20 * MiB  # before the retry released s1's segment


def test_html_is_self_contained_and_draws_every_block(snap):
    snapshot, _ = snap
    page = memory_viz.render_html(snapshot, "test <page>")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "test &lt;page&gt;" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", page)  # nothing fetched from the network
    n_blocks = sum(len(seg["blocks"]) for seg in snapshot["segments"])
    assert page.count("<rect ") == n_blocks
    for colour in memory_viz.COLOURS.values():
        assert colour in page
    assert "load_weights" in page  # the allocating stack, in the block's tooltip
    assert "out of memory" in page and "Timeline, device 0" in page


def test_empty_snapshot_and_no_trace():
    page = memory_viz.render_html({"segments": [], "device_traces": []})
    assert "No segments" in page


def test_command_line(tmp_path, snap):
    snapshot, _ = snap
    src, out = tmp_path / "snap.pickle", tmp_path / "out.html"
    src.write_bytes(pickle.dumps(snapshot))
    proc = subprocess.run([sys.executable, "-m", "glasstorch.emu.memory_viz", "segment_plot", str(src), "-o",
                           str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().count("<rect ") == sum(len(seg["blocks"]) for seg in snapshot["segments"])
