"""The 2-norm over trailing axes of a contiguous float tensor (one dot per row, as renorm's norm uses) against
torch: values to a few ulps, shape/keepdim/dtype, gradients, and the layouts that take the general path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt

CASES = [((1000, 1000), [1], True), ((3, 4, 5), [1, 2], False), ((3, 4, 5), [-1], True), ((3, 4, 5), [0], True),
         ((3, 4, 5), [0, 2], False), ((7,), [0], False), ((2, 0, 3), [2], True), ((4, 1), [1], False)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dims,keepdim", CASES)
def test_rows_match_torch(dtype, shape, dims, keepdim):
    a = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    g = gt.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    got, want = gt.linalg.vector_norm(g, 2, dims, keepdim), torch.linalg.vector_norm(t, 2, dims, keepdim)
    assert tuple(got.shape) == tuple(want.shape) and str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=4 * np.finfo(dtype).eps, atol=0)
    if got.numel():
        got.sum().backward()
        want.sum().backward()
        np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_transposed_input_takes_general_path():
    a = np.random.default_rng(1).standard_normal((20, 10)).astype("float32")
    got = gt.linalg.vector_norm(gt.tensor(a).t(), 2, [1])
    want = torch.linalg.vector_norm(torch.tensor(a).t(), 2, [1])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_renorm_matches_torch():
    a = np.random.default_rng(2).standard_normal((300, 200)).astype("float32")
    got, want = gt.renorm(gt.tensor(a), 2, 0, 1.0), torch.renorm(torch.tensor(a), 2, 0, 1.0)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)
