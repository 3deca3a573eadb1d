"""The per-compile debug folder (PyTorch: ``TORCH_COMPILE_DEBUG=1`` and ``torch._dynamo.utils.get_debug_dir``).

With ``GLASSTORCH_COMPILE_DEBUG=1`` every compile gets a folder
``./glasstorch_compile_debug/run_<timestamp>-pid_<pid>/<n>/`` (base folder overridable with
``GLASSTORCH_COMPILE_DEBUG_DIR``); each layer of the compile stack writes its files there (dynamo: the
captured graph and its guards; AOT: joint/forward/backward graphs and the partition; inductor: IR, fusion
decisions, generated C and the wrapper).

Invariant: :func:`debug_dir` is None unless the debug flag is on and a compile is in progress; nested
:func:`compile_debug_scope` calls share the outer compile's folder.
"""

from __future__ import annotations

import contextlib
import os
import time

__all__ = ["compile_debug_enabled", "debug_dir", "compile_debug_scope", "write_debug_file"]

_run_dir: str | None = None
_counter = 0
_current: list[str] = []   # stack of folders of the compiles in progress


def compile_debug_enabled() -> bool:
    """Whether ``GLASSTORCH_COMPILE_DEBUG`` is set to something other than ``0``/empty (read on each call)."""
    return os.environ.get("GLASSTORCH_COMPILE_DEBUG", "0") not in ("", "0")


def _run_root() -> str:
    global _run_dir
    if _run_dir is None:
        base = os.environ.get("GLASSTORCH_COMPILE_DEBUG_DIR") or os.getcwd()
        stamp = time.strftime("%Y_%m_%d_%H_%M_%S")
        _run_dir = os.path.join(base, "glasstorch_compile_debug", f"run_{stamp}-pid_{os.getpid()}")
    return _run_dir


def debug_dir() -> str | None:
    """The folder of the compile in progress, or None (debug off, or no compile running).

    Example:
        >>> debug_dir() is None
        True
    """
    return _current[-1] if _current else None


@contextlib.contextmanager
def compile_debug_scope(folder: str | None = None):
    """Open a numbered debug folder for one compile (yields its path, or None when debugging is off).

    A scope inside another reuses the outer folder, so the backend's files land beside dynamo's.  Passing
    ``folder`` (a path :func:`debug_dir` gave earlier) re-enters that compile's folder, e.g. for a backward graph
    compiled lazily on the first backward.
    """
    global _counter
    if folder is not None:
        _current.append(folder)
    elif _current:
        _current.append(_current[-1])
    elif compile_debug_enabled():
        path = os.path.join(_run_root(), str(_counter))
        _counter += 1
        os.makedirs(path, exist_ok=True)
        _current.append(path)
    else:
        yield None
        return
    try:
        yield _current[-1]
    finally:
        _current.pop()


def write_debug_file(name: str, text: str) -> str | None:
    """Write ``text`` to ``name`` inside the current debug folder; returns the path, or None when there is none."""
    folder = debug_dir()
    if folder is None:
        return None
    path = os.path.join(folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path
