"""L1 — the device layer: allocators, generators, and the accelerator machinery.

- ``allocator.py``: the per-device-type allocator table (CPU, meta; device backends register theirs);
- ``backend.py``: the interface an accelerator backend fills in (raw memory, copies, streams, events);
- ``caching_allocator.py`` (+ ``allocator_config.py``, ``allocator_stats.py``): PyTorch's caching allocator;
- ``emu.py``: the emulated accelerator backend; ``streams.py``: Stream/Event over any backend;
- ``memory.py``, ``memory_viz.py``: statistics, summaries, snapshots and the HTML memory viewer.
"""
