"""One thread pool for BLAS and the compiled kernels: numpy's OpenBLAS runs its parallel jobs on libgomp's team.

PyTorch runs its pointwise kernels and its BLAS (MKL, or OpenBLAS built for OpenMP) on one OpenMP pool.
glasstorch's matmuls are numpy's, and numpy's OpenBLAS has a pthreads pool of its own, while the C kernels
(``_ops/kernels/cpu/ckernels.py``, the inductor's) run on libgomp's.  Two pools on the same cores cannot both
keep their idle workers spinning, so with two pools each must sleep the moment its work ends, and every parallel
region then pays a wake-up.  OpenBLAS 0.3.27+ lets the application run its jobs instead
(``openblas_set_threads_callback_function``): the callback below puts them on libgomp's team, so there is one
pool, and its workers may spin between regions (``GOMP_SPINCOUNT``) as PyTorch's do.  Measured on the baby GPT,
compiled, 2 threads on 2 cores: 88-100 ms/iter with two sleeping pools, 80-84 ms with one pool spinning 10000
iterations; then, four interleaved pairs of steady-state runs: 83-88 ms median at 10000, 78-81 ms at libgomp's
default 300000 (a worker that stays awake across the Python between two GEMMs needs no wake-up).

- The pool is joined when the first OpenMP library loads (``_cbuild.load(openmp=True)``): before that no second
  pool exists.  :func:`prepare` picks the wait policy just before libgomp reads it; :func:`install` compiles the
  callback and hands it to every OpenBLAS mapped into the process.
- A user's own ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` is left alone, as is ``GLASSTORCH_BLAS_POOL=0`` (keep
  OpenBLAS's pool; both pools then sleep promptly: see ``threads.py``).

Invariant: every job of one OpenBLAS call runs at the same time (its level-3 jobs wait for one another), so a
team smaller than the job count (a call from inside a parallel region, a thread limit) gets threads of its own
for the rest.  OpenBLAS decides the job count from its thread setting, which ``set_num_threads`` sets.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["SPIN_COUNT", "enabled", "prepare", "install", "installed", "SOURCE"]

SPIN_COUNT = 300000  # libgomp spin iterations before an idle worker sleeps (libgomp's own default, PyTorch's)

_SETTERS = ("scipy_openblas_set_threads_callback_function64_", "scipy_openblas_set_threads_callback_function",
            "openblas_set_threads_callback_function64_", "openblas_set_threads_callback_function")

SOURCE = r"""
#include <stddef.h>
#include <pthread.h>
#include <omp.h>

typedef void (*gt_dojob)(int job, void *data, int arg);
typedef struct { gt_dojob fn; int job; void *data; int arg; } gt_job;

static void *gt_job_main(void *p) {
    gt_job *j = (gt_job *)p;
    j->fn(j->job, j->data, j->arg);
    return NULL;
}

/* Jobs lo..hi-1 on threads of their own, while the caller runs job `mine`. */
static void gt_jobs_on_pthreads(gt_dojob fn, int mine, int lo, int hi, size_t el, char *data, int arg) {
    enum { MAXJ = 256 };
    pthread_t th[MAXJ];
    gt_job jobs[MAXJ];
    int started[MAXJ];
    for (int i = lo; i < hi && i - lo < MAXJ; i++) {
        gt_job *j = &jobs[i - lo];
        j->fn = fn; j->job = i; j->data = data + (size_t)i * el; j->arg = arg;
        started[i - lo] = pthread_create(&th[i - lo], NULL, gt_job_main, j) == 0;
        if (!started[i - lo]) gt_job_main(j);  /* no thread to be had: the best left is to run it here */
    }
    fn(mine, data + (size_t)mine * el, arg);
    for (int i = lo; i < hi && i - lo < MAXJ; i++)
        if (started[i - lo]) pthread_join(th[i - lo], NULL);
}

/* OpenBLAS's threads callback: job i is dojob(i, jobdata + i * elsize, arg); all run at once, all done on return. */
void gt_blas_jobs(int sync, gt_dojob dojob, int numjobs, size_t elsize, void *jobdata, int arg) {
    (void)sync;
    char *data = (char *)jobdata;
    if (numjobs <= 1) {
        if (numjobs == 1) dojob(0, data, arg);
        return;
    }
    #pragma omp parallel num_threads(numjobs)
    {
        int t = omp_get_thread_num(), k = omp_get_num_threads();
        if (t == 0 && k < numjobs)
            gt_jobs_on_pthreads(dojob, 0, k, numjobs, elsize, data, arg);
        else
            dojob(t, data + (size_t)t * elsize, arg);
    }
}
"""

_state = {"installed": False, "busy": False}


def enabled() -> bool:
    """Whether glasstorch may join OpenBLAS to its OpenMP pool (``GLASSTORCH_BLAS_POOL`` unset or not ``0``)."""
    return os.environ.get("GLASSTORCH_BLAS_POOL", "1") != "0"


def _callback_setters() -> list:
    from .threads import blas_functions
    return blas_functions(_SETTERS, argtypes=[ctypes.c_void_p])


def prepare() -> None:
    """Choose libgomp's idle policy (it reads the environment once, when the first OpenMP library loads): a short
    spin when OpenBLAS will share the pool, else sleep at once.  A user's choice wins."""
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return
    if enabled() and _callback_setters():
        os.environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)
    else:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"


def install() -> bool:
    """Hand the OpenMP callback to every OpenBLAS in the process; False when disabled or impossible (no
    compiler, an OpenBLAS without the callback)."""
    if _state["installed"] or _state["busy"] or not enabled():
        return _state["installed"]
    setters = _callback_setters()
    if not setters:
        return False
    from .. import _cbuild
    _state["busy"] = True
    try:
        lib = _cbuild.load(SOURCE, openmp=True, name="blas_pool")
    except RuntimeError:  # no compiler, or it failed: OpenBLAS keeps its own pool
        return False
    finally:
        _state["busy"] = False
    address = ctypes.cast(lib.gt_blas_jobs, ctypes.c_void_p).value
    for fn in setters:
        fn(address)
    _state["installed"] = True
    return True


def installed() -> bool:
    """Whether OpenBLAS's parallel jobs run on the OpenMP pool in this process."""
    return _state["installed"]
