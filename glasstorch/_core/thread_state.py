"""The thread-local state that follows work onto another thread — PyTorch's ``at::ThreadLocalState``.

Each layer's ``threading.local`` that PyTorch keeps in ``ThreadLocalState`` (grad mode, the dispatch key sets
and mode stack, autocast, the ``__torch_function__`` switches, saved-tensor hooks, anomaly mode, Python objects
stashed by key) registers here; :func:`capture` copies them on one thread and :func:`apply` installs the copy on
another (the autograd engine does so when a reentrant backward moves to a worker thread).

Invariant: the copy is one level deep (lists and dicts are copied, their items shared), so a thread that pushes
and pops a mode stack never changes the stack of the thread it came from.
"""

from __future__ import annotations

import threading

__all__ = ["register", "capture", "apply"]

_LOCALS: list = []


def register(local: threading.local) -> threading.local:
    """Add a layer's thread-local object to what :func:`capture` copies; returns it."""
    _LOCALS.append(local)
    return local


def _copied(values: dict) -> dict:
    return {k: list(v) if type(v) is list else dict(v) if type(v) is dict else v for k, v in values.items()}


def capture() -> list:
    """This thread's registered state, copied."""
    return [(local, _copied(local.__dict__)) for local in _LOCALS]


def apply(snapshot: list) -> None:
    """Install a :func:`capture` of another thread on this one."""
    for local, values in snapshot:
        local.__dict__.update(_copied(values))
