"""The system C compiler behind one function: C source in, a loaded shared library out.

This is the piece PyTorch keeps in ``torch/_inductor/cpp_builder.py`` and ``codecache.py``: eager CPU kernels
that numpy cannot do well and the compiler's generated kernels both come through here.  ``load(source)``
hashes the source together with the flags and the compiler's identity, compiles once into an on-disk cache
(``$GLASSTORCH_CACHE_DIR``, default ``~/.cache/glasstorch``) and returns a ``ctypes.CDLL``; later calls —
in this process or the next — reuse the shared object without running the compiler.

The compiler is ``$GLASSTORCH_CC``, else ``$CC``, else the first of ``cc``/``gcc``/``clang`` on PATH.  With
none, :class:`CompilerNotFound` (a RuntimeError) names what was looked for; callers fall back to numpy.

Invariants: a cache entry is written to a temporary name and renamed into place, so concurrent processes
never load a half-written library; the C source sits beside each ``.so`` for reading; a library is loaded
at most once per process.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
import threading

__all__ = ["CompilerNotFound", "CompileError", "compiler", "available", "load", "cache_dir", "DEFAULT_FLAGS"]

# IEEE arithmetic kept (no -ffast-math, no FMA contraction): generated kernels give the numbers of the
# separate numpy operations they replace.  -fno-math-errno lets gcc inline sqrt and vectorise.
DEFAULT_FLAGS = ("-O3", "-march=native", "-fPIC", "-shared", "-fno-math-errno", "-fno-trapping-math",
                 "-ffp-contract=off", "-std=c11")


class CompilerNotFound(RuntimeError):
    """No C compiler could be found (``torch._inductor.exc.InvalidCxxCompiler``)."""


class CompileError(RuntimeError):
    """The C compiler rejected a source file; the message holds its diagnostics."""


_lock = threading.Lock()
_loaded: dict = {}       # hash -> CDLL
_compiler: list = []     # [(path, identity)] once found
_openmp_loaded: list = []  # [True] once an OpenMP library has been loaded in this process


def cache_dir() -> str:
    root = os.environ.get("GLASSTORCH_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "glasstorch")
    return os.path.join(root, "ccache")


def compiler() -> tuple:
    """``(path, identity)`` of the C compiler; raises :class:`CompilerNotFound` when there is none."""
    if _compiler:
        return _compiler[0]
    names = [n for n in (os.environ.get("GLASSTORCH_CC"), os.environ.get("CC")) if n] + ["cc", "gcc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path is None:
            continue
        try:
            ident = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        _compiler.append((path, ident.splitlines()[0] if ident else path))
        return _compiler[0]
    raise CompilerNotFound(f"No working C compiler found (looked for {', '.join(names)} on PATH). Install gcc or "
                           f"clang, or point GLASSTORCH_CC at one.")


def available() -> bool:
    """Whether a C compiler is present (never raises)."""
    try:
        compiler()
    except CompilerNotFound:
        return False
    return True


def _key(source: str, flags: tuple, ident: str) -> str:
    h = hashlib.sha256()
    for part in (ident, platform.machine(), " ".join(flags), source):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:40]


def load(source: str, *, openmp: bool = False, extra_flags: tuple = (), name: str = "kernel") -> ctypes.CDLL:
    """Compile ``source`` (C11) into a shared library, cached by content hash, and load it.

    ``openmp`` adds ``-fopenmp``; ``name`` only labels the cache file for humans.  Raises
    :class:`CompilerNotFound` without a compiler and :class:`CompileError` with its diagnostics.
    """
    path, ident = compiler()
    flags = DEFAULT_FLAGS + (("-fopenmp",) if openmp else ()) + tuple(extra_flags)
    key = _key(source, flags, ident)
    lib = _loaded.get(key)
    if lib is not None:
        return lib
    first_openmp = False
    with _lock:
        lib = _loaded.get(key)
        if lib is None:
            so = _build(path, source, flags, key, name)
            if openmp and not _openmp_loaded:
                _openmp_loaded.append(True)
                first_openmp = True
                _before_first_openmp()
            lib = _loaded[key] = ctypes.CDLL(so)
    if first_openmp:
        _after_first_openmp()
    return lib


def _before_first_openmp() -> None:
    """libgomp reads its settings once, when the first OpenMP library loads: choose its idle policy now (a short
    spin when BLAS will share its pool, else sleep at once; ``_device/blas_pool.py``)."""
    from ._device import blas_pool
    blas_pool.prepare()


def _after_first_openmp() -> None:
    """A second thread pool now exists beside OpenBLAS's: make OpenBLAS run its jobs on this one."""
    from ._device import blas_pool
    blas_pool.install()


def _build(cc: str, source: str, flags: tuple, key: str, name: str) -> str:
    folder = os.path.join(cache_dir(), key[:2])
    so = os.path.join(folder, f"{name}_{key}.so")
    if os.path.exists(so):
        return so
    os.makedirs(folder, exist_ok=True)
    c_file = os.path.join(folder, f"{name}_{key}.c")
    if not os.path.exists(c_file):
        _write_atomic(c_file, source.encode())
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=folder)
    os.close(fd)
    try:
        proc = subprocess.run([cc, *flags, c_file, "-o", tmp, "-lm"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(f"C compiler failed on {c_file} (exit {proc.returncode}):\n{proc.stderr.strip()}")
        os.replace(tmp, so)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return so


def _write_atomic(path: str, data: bytes):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
