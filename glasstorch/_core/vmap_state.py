"""Whether a legacy vmap is running — the part of PyTorch's ``VmapMode`` TLS (``VmapMode.cpp``) that random
operators consult.

``torch._vmap_internals._vmap`` refuses every random draw made while it runs (PyTorch's batching rules for the
random operators raise), batched arguments or not.  glasstorch's ``_vmap`` runs its function once per sample, so
the refusal cannot come from a batching rule: the vmap counts itself in here and the generator asks before a
draw (:func:`check_random`).

Invariant: ``level`` is the number of legacy vmaps running on this thread (nested ones count each).
"""

from __future__ import annotations

import contextlib
import threading

from . import thread_state

__all__ = ["inside_vmap", "check_random"]

_state = thread_state.register(threading.local())

_RANDOM_IN_VMAP = ("vmap: We do not yet support calling random operations inside of vmap. Please perform random "
                   "operations outside of vmap as a workaround")


def level() -> int:
    return getattr(_state, "level", 0)


@contextlib.contextmanager
def inside_vmap():
    """Count one more running legacy vmap for the ``with`` body."""
    _state.level = level() + 1
    try:
        yield
    finally:
        _state.level -= 1


def check_random() -> None:
    """Raise PyTorch's error for a random draw inside a legacy vmap."""
    if getattr(_state, "level", 0):
        raise RuntimeError(_RANDOM_IN_VMAP)
