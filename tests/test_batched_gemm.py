"""The threaded batch loop of small matmuls (``_ops/kernels/cpu/batched_gemm.py``): bit-equal to numpy's loop,
numpy's path wherever the layout is not one BLAS call per matrix, and torch's values through ``bmm``/``matmul``."""

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch._ops.kernels.cpu import batched_gemm as bg


@pytest.fixture
def two_threads():
    before = gt.get_num_threads()
    gt.set_num_threads(2)
    yield
    gt.set_num_threads(before)


def _heads(rng, dtype, transpose_k):
    """q and k^T as attention reads them: views into one (B, T, 3C) buffer, heads in a transposed layout."""
    buf = rng.standard_normal((3, 64, 3 * 128)).astype(dtype)
    q = buf[..., :128].reshape(3, 64, 4, 32).transpose(0, 2, 1, 3)
    k = buf[..., 128:256].reshape(3, 64, 4, 32).transpose(0, 2, 1, 3)
    return q, (k.swapaxes(-1, -2) if transpose_k else np.ascontiguousarray(k).swapaxes(-1, -2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("transpose_k", [True, False])
def test_bit_equal_to_numpy(two_threads, dtype, transpose_k):
    if not bg.available():
        pytest.skip("no compiler or ILP64 CBLAS")
    q, kt = _heads(np.random.default_rng(0), dtype, transpose_k)
    ref, out = np.empty((3, 4, 64, 64), dtype), np.empty((3, 4, 64, 64), dtype)
    np.matmul(q, kt, out=ref)
    assert bg._threaded(q, kt, out)  # the threaded loop took it
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("case", ["broadcast", "big", "int", "one_batch", "overlap", "inner_stride"])
def test_numpy_keeps_the_other_layouts(two_threads, case):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 8, 16)).astype(np.float32), rng.standard_normal((4, 16, 8)).astype(np.float32)
    out = np.empty((4, 8, 8), np.float32)
    if case == "broadcast":  # numpy broadcasts the batch dims: its loop
        b = b[:1]
    elif case == "big":
        a, b = rng.standard_normal((2, 128, 64)).astype(np.float32), rng.standard_normal((2, 64, 64)).astype(np.float32)
        out = np.empty((2, 128, 64), np.float32)
    elif case == "int":
        a, b, out = a.astype(np.int64), b.astype(np.int64), out.astype(np.int64)
    elif case == "one_batch":
        a, b, out = a[:1], b[:1], out[:1]
    elif case == "overlap":
        a, b = np.ascontiguousarray(a[:, :, :8]), np.ascontiguousarray(b[:, :8])
        out = a  # numpy computes into a copy first
    elif case == "inner_stride":
        a = rng.standard_normal((4, 8, 32)).astype(np.float32)[..., ::2]
    ref = np.matmul(a, b)
    assert not bg._threaded(a, b, out)  # every case is numpy's
    np.testing.assert_array_equal(bg.matmul(a, b, out=out), ref)


@pytest.mark.parametrize("shape_a, shape_b", [((6, 16, 8), (6, 8, 12)), ((2, 3, 16, 8), (2, 3, 8, 12))])
@pytest.mark.parametrize("threads", [1, 2])
def test_bmm_and_matmul_match_torch(shape_a, shape_b, threads):
    before = gt.get_num_threads()
    try:
        gt.set_num_threads(threads)
        rng = np.random.default_rng(2)
        a, b = rng.standard_normal(shape_a).astype(np.float32), rng.standard_normal(shape_b).astype(np.float32)
        ga, gb = gt.from_numpy(a).requires_grad_(), gt.from_numpy(b).requires_grad_()
        ta, tb = torch.from_numpy(a).requires_grad_(), torch.from_numpy(b).requires_grad_()
        (ga @ gb.transpose(-1, -2).transpose(-1, -2)).sum().backward()
        (ta @ tb).sum().backward()
        np.testing.assert_allclose((ga @ gb).detach().numpy(), (ta @ tb).detach().numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(ga.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(gb.grad.numpy(), tb.grad.numpy(), rtol=1e-5, atol=1e-5)
        if len(shape_a) == 3:
            np.testing.assert_allclose(gt.bmm(ga, gb).detach().numpy(), torch.bmm(ta, tb).detach().numpy(),
                                       rtol=1e-5, atol=1e-5)
    finally:
        gt.set_num_threads(before)
