"""``set_num_threads`` / ``get_num_threads`` against torch: the BLAS pool follows, errors match."""

import ctypes

import pytest
import torch

import glasstorch as gt


def _blas_threads():
    with open("/proc/self/maps") as f:
        paths = [line.split()[-1] for line in f if "openblas" in line]
    if not paths:
        pytest.skip("numpy is not linked against OpenBLAS here")
    lib = ctypes.CDLL(paths[0])
    for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads"):
        fn = getattr(lib, name, None)
        if fn is not None:
            return fn()
    pytest.skip("no OpenBLAS thread getter")


def test_set_num_threads_sets_the_blas_pool():
    before = gt.get_num_threads()
    try:
        gt.set_num_threads(1)
        assert gt.get_num_threads() == 1 and _blas_threads() == 1
    finally:
        gt.set_num_threads(before)


@pytest.mark.parametrize("bad", [0, -2, "a", 1.5, True])
def test_errors_match_torch(bad):
    msgs = []
    for m in (torch, gt):
        with pytest.raises(RuntimeError) as e:
            m.set_num_threads(bad)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
