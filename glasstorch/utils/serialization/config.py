"""Settings of ``save``/``load`` — PyTorch's ``torch/utils/serialization/config.py``.

Two namespaces of plain attributes, read by :mod:`glasstorch.serialization` at each call (so a change takes
effect on the next ``save``/``load``):

* ``load.mmap`` — ``load``'s ``mmap`` when the call passes ``mmap=None``;
  ``load.endianness`` — the byte order (a ``serialization.LoadEndianness`` or None) assumed for a checkpoint
  without a ``byteorder`` record; None means little endian;
  ``load.mmap_flags`` — ``mmap.MAP_PRIVATE`` (2) or ``mmap.MAP_SHARED`` for ``load(mmap=True)``;
  ``load.calculate_storage_offsets`` — find each storage's record offset from the previous one instead of
  reading its local header (valid for files ``save`` wrote).
* ``save.compute_crc32`` — write each record's CRC-32 (False writes 0, which zip tools reject);
  ``save.use_pinned_memory_for_d2h`` — in PyTorch, stage accelerator storages in pinned host memory on their
  way to the file; glasstorch has no pinned host memory, so device storages are always copied to ordinary host
  memory and the setting changes nothing but what it reads back;
  ``save.storage_alignment`` — the byte boundary each record's data starts on (64).

Invariant: only plain values live here; the meaning of each is implemented where it is read.
"""

from __future__ import annotations

import mmap as _mmap

__all__ = ["load", "save"]


class load:
    mmap: bool = False
    endianness = None
    mmap_flags: int | None = _mmap.MAP_PRIVATE
    calculate_storage_offsets: bool = False


class save:
    compute_crc32: bool = True
    use_pinned_memory_for_d2h: bool = False
    storage_alignment: int = 64
