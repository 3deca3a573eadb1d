"""Settings of the capture layer (PyTorch: ``torch/_dynamo/config.py``).

Plain module attributes, read on every compile; ``patch(**changes)`` sets some for a ``with`` block or a
decorated function.  ``recompile_limit`` is an alias of ``cache_size_limit`` (PyTorch renamed it; both work).

Invariant: reading or writing an unknown setting through :func:`patch` raises AttributeError.
"""

from __future__ import annotations

import contextlib
import os
import sys
import types

from glasstorch.utils._config_module import ConfigPatch, changes_of

__all__ = ["patch"]

#: compiled entries kept per compiled callable; a miss beyond it warns once and runs the call eagerly
cache_size_limit: int = 8
#: over all compiled callables together
accumulated_cache_size_limit: int = 256
#: raise FailOnRecompileLimitHit instead of falling back to eager when the limit is hit
fail_on_recompile_limit_hit: bool = False
#: raise RecompileError on any recompile (for tests that insist on one graph)
error_on_recompile: bool = False
#: a backend that raises while compiling: False -> raise BackendCompilerFailed; True -> log it and run eagerly
suppress_errors: bool = os.environ.get("GLASSTORCH_SUPPRESS_ERRORS", "0") not in ("", "0")
#: include the internal stack in errors raised by the capture layer
verbose: bool = os.environ.get("GLASSTORCH_DYNAMO_VERBOSE", "0") not in ("", "0")


@contextlib.contextmanager
def _patched(changes: dict):
    module = sys.modules[__name__]
    old = {}
    for name in changes:
        if name.startswith("_") or not hasattr(module, name) or callable(getattr(module, name)):
            raise AttributeError(f"{__name__}.{name} does not exist")
        old[name] = getattr(module, name)
    try:
        for name, value in changes.items():
            setattr(module, name, value)
        yield
    finally:
        for name, value in old.items():
            setattr(module, name, value)


def patch(arg=None, value=None, **changes) -> ConfigPatch:
    """Temporarily change settings: ``patch("cache_size_limit", 2)`` or ``patch(cache_size_limit=2)``.

    Example:
        >>> with patch(cache_size_limit=1):
        ...     pass
    """
    changes = changes_of(arg, value, changes)
    if "recompile_limit" in changes:
        changes["cache_size_limit"] = changes.pop("recompile_limit")
    return ConfigPatch(_patched, changes)


class _ConfigModule(types.ModuleType):
    """Adds the ``recompile_limit`` alias on the module itself."""

    @property
    def recompile_limit(self) -> int:
        return self.cache_size_limit

    @recompile_limit.setter
    def recompile_limit(self, value: int) -> None:
        self.cache_size_limit = value


sys.modules[__name__].__class__ = _ConfigModule
