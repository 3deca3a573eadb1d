"""L1 — the device layer: allocators per device type (CPU, meta; emulated and CUDA in later issues)."""
