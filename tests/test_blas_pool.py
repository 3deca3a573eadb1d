"""One thread pool for BLAS and the compiled kernels (``glasstorch/_device/blas_pool.py``).

The callback must run every job of an OpenBLAS call at the same time (OpenBLAS's level-3 jobs wait for one
another), also when called from inside a parallel region, where libgomp gives a team of one."""

import os

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch import _cbuild
from glasstorch._device import blas_pool

pytestmark = pytest.mark.skipif(not _cbuild.available(), reason="needs a C compiler")

# Each job counts itself in, then waits (2 s at most) until all have arrived: a job that ran alone, or after
# another had finished, records -1 in its slot, one that met every other records its number + 1.
_HARNESS = r"""
#include <stddef.h>
#include <stdatomic.h>
#include <time.h>
#include <omp.h>
typedef void (*dojob_t)(int, void *, int);
typedef void (*jobs_t)(int, dojob_t, int, size_t, void *, int);
static atomic_int arrived;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static void job(int i, void *slot, int n) {
    atomic_fetch_add(&arrived, 1);
    double end = now() + 2.0;
    while (atomic_load(&arrived) < n && now() < end) {}
    *(int *)slot = atomic_load(&arrived) >= n ? i + 1 : -1;
}
void run(void *fn, int n, int nested, int *slots) {
    atomic_store(&arrived, 0);
    if (!nested) { ((jobs_t)fn)(1, job, n, sizeof(int), slots, n); return; }
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) ((jobs_t)fn)(1, job, n, sizeof(int), slots, n);
    }
}
"""


def _run(n, nested):
    import ctypes
    pool = _cbuild.load(blas_pool.SOURCE, openmp=True, name="blas_pool")
    harness = _cbuild.load(_HARNESS, openmp=True, name="blas_pool_test")
    slots = (ctypes.c_int * n)()
    harness.run.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p)
    harness.run(ctypes.cast(pool.gt_blas_jobs, ctypes.c_void_p), n, nested, slots)
    return list(slots)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_every_job_runs_at_once(n):
    assert _run(n, nested=False) == list(range(1, n + 1))


def test_a_call_from_inside_a_parallel_region_still_runs_all_jobs_at_once():
    # libgomp gives a nested region a team of one: the other jobs get threads of their own
    assert _run(3, nested=True) == [1, 2, 3]


def test_numpy_and_glasstorch_matmuls_on_the_shared_pool():
    before = gt.get_num_threads()
    try:
        gt.set_num_threads(2)
        gt.randn(300_000).exp()  # the first OpenMP library: OpenBLAS joins its pool
        if blas_pool.enabled() and blas_pool._callback_setters():
            assert blas_pool.installed()
        x = np.random.default_rng(0).standard_normal((512, 384)).astype(np.float32)
        ref = x.astype(np.float64) @ x.T.astype(np.float64)
        np.testing.assert_allclose(x @ x.T, ref, rtol=1e-4, atol=1e-3)  # numpy's own call: the callback's jobs
        g = gt.from_numpy(x)
        np.testing.assert_allclose((g @ g.t()).numpy(), (torch.from_numpy(x) @ torch.from_numpy(x).t()).numpy(),
                                   rtol=1e-4, atol=1e-3)
    finally:
        gt.set_num_threads(before)


@pytest.mark.parametrize("env, expect", [
    ({}, {"GOMP_SPINCOUNT": str(blas_pool.SPIN_COUNT)}),
    ({"GLASSTORCH_BLAS_POOL": "0"}, {"OMP_WAIT_POLICY": "PASSIVE"}),
    ({"OMP_WAIT_POLICY": "ACTIVE"}, {"OMP_WAIT_POLICY": "ACTIVE"}),  # the user's choice stays
    ({"GOMP_SPINCOUNT": "5"}, {"GOMP_SPINCOUNT": "5"}),
])
def test_wait_policy_chosen_before_libgomp_loads(monkeypatch, env, expect):
    if not blas_pool._callback_setters() and "GOMP_SPINCOUNT" in expect and not env:
        pytest.skip("this OpenBLAS has no threads callback: two pools, both passive")
    for var in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "GLASSTORCH_BLAS_POOL"):
        monkeypatch.delenv(var, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    blas_pool.prepare()
    got = {k: os.environ.get(k) for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT") if os.environ.get(k) is not None}
    assert got == expect


def _threads_in_worker(lib):
    class DS(lib.utils.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return lib.get_num_threads()

    loader = lib.utils.data.DataLoader(DS(), batch_size=None, num_workers=1)
    return [int(x) for x in loader]


def test_dataloader_workers_run_one_thread_like_torch():
    before = gt.get_num_threads()
    try:
        gt.set_num_threads(2)
        torch_before = torch.get_num_threads()
        torch.set_num_threads(2)
        assert _threads_in_worker(gt) == _threads_in_worker(torch) == [1, 1]
        assert gt.get_num_threads() == 2  # the loader's own process keeps its setting
    finally:
        gt.set_num_threads(before)
        torch.set_num_threads(torch_before)
