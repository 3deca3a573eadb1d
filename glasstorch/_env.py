"""Process settings made before anything else in glasstorch loads (the first import of ``glasstorch``).

- ``OPENBLAS_THREAD_TIMEOUT=4``: numpy's OpenBLAS reads it once, when numpy loads; BLAS worker threads then sleep
  soon after a call instead of spinning for a long while, leaving the cores to the compiled C kernels that run
  between BLAS calls.  A value the user set wins; importing numpy before glasstorch keeps OpenBLAS's default.
  Why and how much: ``glasstorch/_device/threads.py``.
- glibc's malloc keeps freed blocks of up to 256 MiB in the heap (``mallopt``: mmap threshold 256 MiB, trim
  threshold 1 GiB) instead of returning each to the kernel.  Tensors are large, short-lived numpy buffers; by
  default every one above a dynamic threshold is a fresh ``mmap`` whose pages fault in again on first write.
  On the baby GPT at 1 thread this measured 137-149 -> 126 ms per compiled step.  Skipped when the user set
  ``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_`` or ``GLASSTORCH_MALLOC_TUNING=0``, and off glibc.
"""

import ctypes
import os
import sys

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _tune_malloc() -> bool:
    if not sys.platform.startswith("linux") or os.environ.get("GLASSTORCH_MALLOC_TUNING", "1") == "0":
        return False
    if any(v in os.environ for v in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")):
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (glibc only: musl has no mallopt thresholds)
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, 256 << 20)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30))
    except (OSError, AttributeError):
        return False


MALLOC_TUNED = _tune_malloc()
