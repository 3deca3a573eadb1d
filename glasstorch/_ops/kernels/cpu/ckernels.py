"""Compiled element-wise loops: the fast path of the numpy pointwise kernels (PyTorch's vectorized CPU loops).

numpy has no fast float32 ``exp``/``sin``/``erf`` on every machine, runs ``maximum(x, 0)`` and broadcast
arithmetic below memory speed, and uses one thread.  This module compiles the C loops of ``ckernels_src``
once (``glasstorch._cbuild``: system C compiler, on-disk cache, OpenMP when the compiler has it) at the
first call that can use them, and offers three entry points the numpy kernels try first:

- :func:`unary` ``(op, x, out)``: ``out = op(x)`` element-wise (``x`` broadcast to ``out``'s shape);
- :func:`binary` ``(op, a, b, out)``: ``out = a op b`` (``a``/``b`` arrays or 0-d, broadcast);
- :func:`copy` ``(src, out)``: ``out[...] = src`` for same-dtype and float32<->float64 copies.

Each returns True when it did the work and False when the caller must use numpy: another dtype or layout
mix, fewer than :data:`MIN_NUMEL` elements (numpy's per-call cost is lower there; gelu and its derivative, whose
numpy fallback is a long chain of passes, take the C loop at every size), no compiler, or
``GLASSTORCH_DISABLE_CKERNELS=1`` (read when the library is first needed; :func:`reset` reads it again).
The operands must have one dtype (float32 or float64); dims are sorted by the output's strides and
coalesced (TensorIterator's ``reorder_dimensions`` + ``coalesce_dimensions``) so the C row loop runs along
memory; rows go to ``glasstorch.get_num_threads()`` OpenMP threads above 32768 elements.

Invariant: a fast path writes exactly what the numpy path would (same elements, same IEEE values for the
bit-exact operations); nothing here allocates an output.
"""

from __future__ import annotations

import ctypes
import os
import threading

import numpy as np

from ...._device.threads import get_num_threads
from . import ckernels_src as _src

__all__ = ["unary", "binary", "copy", "available", "reset", "set_stream_bytes", "MIN_NUMEL"]

MIN_NUMEL = 4096  # below this numpy's loop costs less than the ctypes call and the layout work

_PYOBJ = ctypes.py_object  # the drivers take numpy arrays themselves and read their geometry in C
_MAXD = 16                 # GT_MAXD: arrays of more dims take numpy
# operations whose numpy fallback is a chain of float64 ufunc passes (tens of us even for one element): the C loop
# runs them at every size, so small and large tensors also get the same values
_ANY_SIZE = frozenset({"gelu", "gelu_onednn", "gelu_onednn512", "gelu_backward"})
# memory-bound operations whose one-thread contiguous loop numpy runs as fast as C (measured): left to numpy
_NUMPY_CONTIGUOUS = frozenset({"add", "sub", "mul", "div"})
_state = {"lib": None, "tried": False}
_lock = threading.Lock()
_unary_fns: dict = {}   # (op, in char, out char) -> address of the C row function
_binary_fns: dict = {}  # (op, char) -> address
_drivers: list = []     # [gt_unary, gt_binary] once loaded


def _load():
    """Compile/load the library once; None (and numpy for good) when disabled or impossible.

    ``tried`` turns true only once the function tables are bound: a thread that finds it false waits on the lock
    for the loading thread (an emu stream worker and the main thread may ask at once), never runs half-loaded.
    """
    with _lock:
        if _state["tried"]:
            return _state["lib"]
        try:
            lib = compile_library(_src.source(), "ckernels")
            if lib is not None and _reads_numpy_arrays(lib):
                _bind(lib)
                _state["lib"] = lib
                llc = _last_level_cache_bytes()
                if llc:
                    ctypes.c_int64.in_dll(lib, "gt_stream_bytes").value = llc // 2
            return _state["lib"]
        finally:
            _state["tried"] = True


class LazyTable:
    """A C library's bound functions, compiled and bound on first use, once: ``get(key)`` is ``bind(lib)``'s entry
    for ``key``, or None (numpy then) when the library cannot be built.  The flag is set only once the table is
    filled, under a lock, so another thread waits instead of seeing half of it."""

    __slots__ = ("_source", "_name", "_bind", "_lock", "_loaded", "_fns")

    def __init__(self, source: str, name: str, bind) -> None:
        self._source, self._name, self._bind = source, name, bind
        self._lock = threading.Lock()
        self._loaded = False
        self._fns: dict = {}

    def get(self, key):
        if not self._loaded:
            self._load()
        return self._fns.get(key)

    def available(self) -> bool:
        if not self._loaded:
            self._load()
        return bool(self._fns)

    def _load(self) -> None:
        with self._lock:
            if self._loaded:
                return
            try:
                lib = compile_library(self._source, self._name)
                if lib is not None:
                    self._fns.update(self._bind(lib))
            finally:
                self._loaded = True


def compile_library(source: str, name: str):
    """The eager C kernels' library for ``source`` (``_cbuild``, OpenMP when the compiler has it), or None when
    ``GLASSTORCH_DISABLE_CKERNELS`` is set, no compiler exists, or neither build works: callers use numpy then."""
    if os.environ.get("GLASSTORCH_DISABLE_CKERNELS", "") not in ("", "0"):
        return None
    from .... import _cbuild  # the build helper sits at the package root, above the op layer

    for openmp in (True, False):  # a compiler without OpenMP still gives single-threaded loops
        try:
            return _cbuild.load(source, openmp=openmp, name=name)
        except _cbuild.CompilerNotFound:
            return None
        except (_cbuild.CompileError, OSError):
            continue
    return None


def _reads_numpy_arrays(lib) -> bool:
    """Whether the drivers' view of numpy's array object (``gt_ndarray``: data, nd, dims, strides after the object
    header) is this interpreter's and numpy's.  The header is checked before any pointer in it is followed, so a
    build with another object layout (a debug or free-threaded interpreter) gets numpy, not a crash."""
    probe = lib.gt_probe
    probe.argtypes = (_PYOBJ, ctypes.c_void_p, ctypes.c_int)
    probe.restype = None
    a = np.empty((3, 7), np.float32)[::2, ::-2]
    info = (ctypes.c_int64 * (2 + 2 * _MAXD))()
    probe(a, info, 0)
    if info[0] != a.ctypes.data or info[1] != a.ndim:
        return False
    probe(a, info, 1)
    return list(info[2:4]) == list(a.shape) and list(info[2 + _MAXD:4 + _MAXD]) == list(a.strides)


def _last_level_cache_bytes() -> int:
    """Size of the largest CPU cache (Linux sysfs), 0 when unknown."""
    best = (0, 0)
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in os.listdir(base):
            if entry.startswith("index"):
                with open(f"{base}/{entry}/level") as f:
                    level = int(f.read())
                with open(f"{base}/{entry}/size") as f:
                    text = f.read().strip()
                scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:], 1)
                best = max(best, (level, int(text.rstrip("KM")) * scale))
    except (OSError, ValueError):
        return 0
    return best[1]


def _bind(lib) -> None:
    vp, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
    u, b = lib.gt_unary_nd, lib.gt_binary_nd
    u.argtypes = (vp, _PYOBJ, _PYOBJ, i64, i64, i32)
    b.argtypes = (vp, _PYOBJ, _PYOBJ, _PYOBJ, i64, i32)
    u.restype = b.restype = i32
    _drivers[:] = [u, b]
    addr = ctypes.cast
    for op, by_dtype in _src.UNARY.items():
        for ch in by_dtype:
            _unary_fns[(op, ch, ch)] = addr(getattr(lib, _src.row_name("u", op, ch)), vp).value
    for s, d in _src.CASTS:
        _unary_fns[("copy", s, d)] = addr(getattr(lib, _src.row_name("u", "copy", s, d)), vp).value
    for op, by_dtype in _src.BINARY.items():
        for ch in by_dtype:
            _binary_fns[(op, ch)] = addr(getattr(lib, _src.row_name("b", op, ch)), vp).value


def set_stream_bytes(n: int) -> None:
    """Calls whose output has at least ``n`` bytes write it with non-temporal stores (a tuning knob; half the
    last-level cache by default, 16 MiB when the cache size is unknown)."""
    if available():
        ctypes.c_int64.in_dll(_state["lib"], "gt_stream_bytes").value = n


def available() -> bool:
    """Whether the compiled loops are in use (loads them on first call)."""
    return (_state["lib"] if _state["tried"] else _load()) is not None


def reset() -> None:
    """Forget the loaded state so the next call re-reads ``GLASSTORCH_DISABLE_CKERNELS`` (for tests)."""
    with _lock:
        _state["lib"] = None
        _state["tried"] = False
        _unary_fns.clear()
        _binary_fns.clear()
        _drivers.clear()


def _contig(x, out) -> bool:
    return x.shape == out.shape and x.flags.c_contiguous


def _contig_or_scalar(x, out) -> bool:
    return x.size == 1 or _contig(x, out)


def unary(op: str, x, out: np.ndarray) -> bool:
    """``out[...] = op(x)`` through C when it fits (see the module docstring); False: use numpy."""
    n = out.size
    if (n < MIN_NUMEL and (op not in _ANY_SIZE or not n)) or not isinstance(x, np.ndarray):
        return False
    if not _state["tried"]:
        _load()
    fn = _unary_fns.get((op, x.dtype.char, out.dtype.char))
    if fn is None:
        return False
    return not _drivers[0](fn, x, out, x.itemsize, out.itemsize, get_num_threads())


def copy(src, out: np.ndarray) -> bool:
    """``np.copyto(out, src)`` (same dtype or float32<->float64) through C; False: use numpy (a one-thread copy
    between contiguous arrays of one dtype is a memcpy there)."""
    if src.dtype == out.dtype and get_num_threads() == 1 and out.flags.c_contiguous and _contig(src, out):
        return False
    return unary("copy", src, out)


def binary(op: str, a, b, out: np.ndarray) -> bool:
    """``out[...] = a op b`` through C when it fits; ``a``/``b`` may be numpy scalars of ``out``'s dtype."""
    n = out.size
    if n < MIN_NUMEL and (op not in _ANY_SIZE or not n):
        return False
    if not _state["tried"]:
        _load()
    dt = out.dtype
    fn = _binary_fns.get((op, dt.char))
    if fn is None or a.dtype != dt or b.dtype != dt:
        return False
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if not isinstance(b, np.ndarray):
        b = np.asarray(b)
    nt = get_num_threads()
    if nt == 1 and op in _NUMPY_CONTIGUOUS and out.flags.c_contiguous and _contig_or_scalar(a, out) \
            and _contig_or_scalar(b, out):
        return False  # numpy's own SIMD loops are as fast for these memory-bound cases (incl. x.mul_(2.0))
    return not _drivers[1](fn, a, b, out, dt.itemsize, nt)
