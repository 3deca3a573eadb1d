"""The C convolution kernels (``conv_direct``) against torch: 3-d convolutions of float32/float64 with padding,
strides, dilation, groups and output-channel counts that leave a partial tile, forward and gradients; other dtypes
stay on the numpy path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch
from glasstorch._ops.kernels.cpu import conv_direct

CONV3D = [
    ((2, 8, 16, 16, 16), (16, 8, 3, 3, 3), {"padding": 1}),
    ((1, 6, 9, 10, 21), (9, 2, 2, 3, 4), {"stride": (2, 1, 3), "padding": (0, 2, 1), "dilation": (1, 2, 1),
                                          "groups": 3}),
    ((2, 3, 5, 7, 40), (21, 3, 1, 2, 3), {"stride": (1, 2, 1), "padding": (1, 0, 0), "dilation": (2, 1, 1)}),
    ((1, 4, 3, 3, 3), (2, 4, 3, 3, 3), {}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("xs", "ws", "kw"), CONV3D, ids=[str(c[0]) for c in CONV3D])
def test_conv3d_matches_torch(xs, ws, kw, dtype):
    rng = np.random.default_rng(0)
    xn, wn, bn = (rng.standard_normal(s).astype(dtype) for s in (xs, ws, ws[:1]))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (xn, wn, bn))
    gx, gw, gb = (glasstorch.tensor(a, requires_grad=True) for a in (xn, wn, bn))
    ty = torch.nn.functional.conv3d(tx, tw, tb, **kw)
    gy = glasstorch.nn.functional.conv3d(gx, gw, gb, **kw)
    tol = {"rtol": 1e-3, "atol": 2e-3} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-10}
    assert gy.shape == ty.shape and gy.stride() == ty.stride() and str(gy.dtype) == str(ty.dtype)
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), **tol)
    go = rng.standard_normal(ty.shape).astype(dtype)
    ty.backward(torch.tensor(go))
    gy.backward(glasstorch.tensor(go))
    for g, t in ((gx, tx), (gw, tw), (gb, tb)):
        np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), **tol)


def test_conv3d_kernel_declines_other_dtypes():
    x = np.ones((1, 2, 3, 3, 3), np.int64)
    assert conv_direct.conv3d_forward(x, np.ones((1, 2, 1, 1, 1), np.int64), (1,) * 3, (0,) * 3, (1,) * 3, 1,
                                      (3, 3, 3)) is None
    half = glasstorch.ones(1, 2, 3, 3, 3, dtype=glasstorch.float16)
    ref = torch.nn.functional.conv3d(torch.ones(1, 2, 3, 3, 3, dtype=torch.float16),
                                     torch.ones(3, 2, 2, 2, 2, dtype=torch.float16))
    got = glasstorch.nn.functional.conv3d(half, glasstorch.ones(3, 2, 2, 2, 2, dtype=glasstorch.float16))
    assert str(got.dtype) == "torch.float16"
    np.testing.assert_array_equal(got.float().numpy(), ref.float().numpy())
