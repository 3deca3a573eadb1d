"""The compiled nn loops (glasstorch/_ops/kernels/cpu/nn_ckernels.py) against torch, bit for bit where torch's
arithmetic order is reproduced: pdist's lane order, the 3-d and adaptive pools' window scans, upsampling's taps.
Shapes cover the loops' edges (rows shorter than a vector register, partial last registers, padding, ceil mode),
and NaN/inf inputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch
from glasstorch._ops.kernels.cpu import nn_ckernels

pytestmark = pytest.mark.skipif(not nn_ckernels.available(), reason="no C compiler: the numpy paths run")


def _same(g, t):
    """Bit-identical values (NaN matches NaN), same dtype and shape."""
    g, t = g.detach().numpy(), t.detach().numpy()
    assert g.dtype == t.dtype and g.shape == t.shape
    np.testing.assert_array_equal(g, t)


def _inputs(shape, dtype, special=True, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    if special and x.size > 8:
        flat = x.reshape(-1)
        flat[3], flat[5], flat[7] = np.nan, np.inf, -np.inf
    return glasstorch.from_numpy(x.copy()), torch.from_numpy(x.copy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", [1, 3, 4, 7, 8, 9, 17, 64, 259])
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, float("inf")])
def test_pdist_bit_identical(dtype, m, p):
    gx, tx = _inputs((13, m), dtype, special=m > 2)
    gx[4], tx[4] = gx[2], tx[2]  # a zero distance
    _same(glasstorch.nn.functional.pdist(gx, p), torch.nn.functional.pdist(tx, p))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("p", [0.5, 3.0])
def test_pdist_general_p_close(dtype, p):
    # pow is libm's here and SLEEF's in torch: both within an ulp, so the sums agree to a few ulp
    gx, tx = _inputs((11, 37), dtype, special=False)
    g, t = glasstorch.nn.functional.pdist(gx, p), torch.nn.functional.pdist(tx, p)
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=tol)
