"""Intra-op thread count — PyTorch's ``at::set_num_threads`` / ``get_num_threads`` (``ATen/Parallel.h``).

glasstorch's kernels are numpy's, and numpy's parallelism is its BLAS (OpenBLAS in numpy's wheels): setting
the thread count sets the BLAS pool of every BLAS library loaded in the process, found by its exported
``*openblas_set_num_threads*`` symbol (what threadpoolctl does, without the dependency).  Inter-op threads
are a number PyTorch reports; glasstorch runs one op at a time, so it is only recorded.

Two kinds of parallel work share the cores: numpy's OpenBLAS (matmuls) and libgomp's team (the compiled C kernels
of ``_ops/kernels/cpu/ckernels.py`` and the inductor).  PyTorch runs both on one OpenMP pool, and so does
glasstorch where it can: ``blas_pool.py`` hands OpenBLAS a callback that runs its jobs on libgomp's team, whose
idle workers then spin briefly (``GOMP_SPINCOUNT``) before they sleep.  Where it cannot (``GLASSTORCH_BLAS_POOL=0``,
no compiler, an OpenBLAS older than 0.3.27) there are two pools, and each pool's idle workers would spin after
their work and starve the other's; both then sleep promptly unless the user set them: ``OPENBLAS_THREAD_TIMEOUT=4``
(set in ``glasstorch/_env.py``, before numpy loads OpenBLAS — importing numpy first keeps OpenBLAS's default) and
``OMP_WAIT_POLICY=PASSIVE``.  Measured on the baby GPT at 2 threads on 2 cores, compiled: 428 ms/iter with two
spinning pools, 88-100 ms with two sleeping ones, 80-84 ms with one pool.

Invariant: ``get_num_threads()`` returns what the BLAS pool was last set to (default: PyTorch's default,
which kernels that split work the way PyTorch's parallel_for does also read).
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads"]

_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads64_",
            "openblas_set_num_threads", "MKL_Set_Num_Threads")


def _default_threads() -> int:
    """PyTorch's default intra-op thread count: OMP_NUM_THREADS / MKL_NUM_THREADS, else the physical cores."""
    for var in ("MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(var, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    try:
        with open("/proc/cpuinfo") as f:
            cores, phys = set(), "0"
            for line in f:
                key, _, val = line.partition(":")
                if key.strip() == "physical id":
                    phys = val.strip()
                elif key.strip() == "core id":
                    cores.add((phys, val.strip()))
        if cores:
            return len(cores)
    except OSError:
        pass
    return os.cpu_count() or 1


_state = {"intra": _default_threads(), "inter": _default_threads(), "inter_used": False}


def blas_functions(names: tuple, argtypes: list) -> list:
    """For each BLAS library mapped into this process (Linux: /proc/self/maps), its first export among ``names``
    (what threadpoolctl does to find thread settings, without the dependency)."""
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if line.rstrip().endswith(".so") or ".so." in line})
    except OSError:
        return []
    found = []
    for path in paths:
        if "blas" not in path.lower() and "mkl" not in path.lower():
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in names:
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.argtypes = argtypes
                found.append(fn)
                break
    return found


def _check_int(n, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{what} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{what} expects a positive integer")
    return n


def set_num_threads(n: int) -> None:
    """Use ``n`` threads inside ops (the BLAS pool); ``torch.set_num_threads``."""
    n = _check_int(n, "set_num_threads")
    for fn in blas_functions(_SETTERS, [ctypes.c_int]):
        fn(n)
    _state["intra"] = n


def get_num_threads() -> int:
    return _state["intra"]


def set_num_interop_threads(n: int) -> None:
    """``torch.set_num_interop_threads``: may be set once, before any inter-op parallel work."""
    n = _check_int(n, "set_num_interop_threads")
    if _state["inter_used"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _state["inter"] = n
    _state["inter_used"] = True


def get_num_interop_threads() -> int:
    return _state["inter"]
