"""linalg.householder_product through LAPACK's blocked orgqr (workspace query) against torch: a matrix large
enough to take the blocked path, batched input, fewer reflectors than columns, float64 and complex."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("shape,k", [((200, 160), 160), ((2, 70, 64), 40), ((5, 3), 0), ((96, 96), 96)])
def test_matches_torch(dtype, shape, k):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(shape) / 8).astype(dtype)
    tau = (rng.random(shape[:-2] + (k,)) * 0.2).astype(dtype)
    got = gt.linalg.householder_product(gt.tensor(a), gt.tensor(tau))
    want = torch.linalg.householder_product(torch.tensor(a), torch.tensor(tau))
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    tol = 5e-5 if dtype != "float64" else 1e-12
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
