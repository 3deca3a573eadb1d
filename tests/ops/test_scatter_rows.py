"""index_add's compiled row loop (kernels/cpu/scatter_rows.py): bit-identical to np.add.at and to torch."""

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch._ops.kernels.cpu import scatter_rows


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_equal_add_at(dtype):
    rng = np.random.default_rng(0)
    arr = rng.standard_normal((17, 3, 5)).astype(dtype)
    src = rng.standard_normal((40, 3, 5)).astype(dtype)
    idx = rng.integers(0, 17, 40)
    ref = arr.copy()
    np.add.at(ref, idx, src)
    if not scatter_rows.index_add_rows(arr, idx, src):
        pytest.skip("no C compiler: numpy path only")
    assert np.array_equal(arr, ref)


def test_rows_decline_strided_and_other_dtypes():
    arr = np.zeros((4, 6), np.float32)
    src = np.ones((3, 6), np.float32)
    assert not scatter_rows.index_add_rows(arr[:, ::2], np.array([0, 1, 2]), src[:, ::2])
    assert not scatter_rows.index_add_rows(arr.astype(np.int64), np.array([0, 1, 2]), src.astype(np.int64))
    assert not arr.any()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_add_matches_torch(dim):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 7)).astype(np.float32)
    n = 11
    shape = [6, 7]
    shape[dim] = n
    s = rng.standard_normal(shape).astype(np.float32)
    idx = rng.integers(0, x.shape[dim], n)
    for alpha in (1, 0.5):
        got = gt.tensor(x).index_add(dim, gt.tensor(idx), gt.tensor(s), alpha=alpha)
        want = torch.tensor(x).index_add(dim, torch.tensor(idx), torch.tensor(s), alpha=alpha)
        assert np.array_equal(got.numpy(), want.numpy())


def test_embedding_backward_matches_torch():
    rng = np.random.default_rng(2)
    w = rng.standard_normal((30, 8)).astype(np.float32)
    ids = rng.integers(0, 30, (4, 9))
    gw = gt.tensor(w, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    g = rng.standard_normal((4, 9, 8)).astype(np.float32)
    gt.nn.functional.embedding(gt.tensor(ids), gw).backward(gt.tensor(g))
    torch.nn.functional.embedding(torch.tensor(ids), tw).backward(torch.tensor(g))
    np.testing.assert_allclose(gw.grad.numpy(), tw.grad.numpy(), rtol=1e-6, atol=1e-6)
