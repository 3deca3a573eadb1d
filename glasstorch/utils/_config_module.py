"""What the settings modules share (PyTorch: ``torch/utils/_config_module.py``): ``patch(...)``.

``glasstorch._dynamo.config`` and ``glasstorch._inductor.config`` are plain modules of settings; each supplies
its own ``patched(changes)`` context manager (which names exist, how a dotted name resolves) and builds its
``patch`` from :func:`changes_of` and :class:`ConfigPatch`.

Invariant: leaving a patch restores every setting it changed, also when the block or function raised.
"""

from __future__ import annotations

import functools

__all__ = ["ConfigPatch", "changes_of"]


def changes_of(arg, value, changes: dict) -> dict:
    """The ``{name: value}`` of ``patch("name", value)``, ``patch({"name": value})`` or ``patch(name=value)``."""
    if isinstance(arg, dict):
        changes.update(arg)
    elif arg is not None:
        changes[arg] = value
    return changes


class ConfigPatch:
    """``with config.patch(...):`` or ``@config.patch(...)`` over a module's ``patched(changes)`` context manager;
    reusable, and nestable (each entry keeps its own restore)."""

    __slots__ = ("_patched", "changes", "_ctx")

    def __init__(self, patched, changes: dict):
        self._patched, self.changes, self._ctx = patched, changes, []

    def __enter__(self):
        ctx = self._patched(self.changes)
        ctx.__enter__()
        self._ctx.append(ctx)

    def __exit__(self, *exc):
        return self._ctx.pop().__exit__(*exc)

    def __call__(self, fn):
        @functools.wraps(fn)
        def patched(*args, **kwargs):
            with self._patched(self.changes):
                return fn(*args, **kwargs)
        return patched
