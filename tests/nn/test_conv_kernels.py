"""The C convolution kernels (``conv_direct``) against torch: 3-d convolutions of float32/float64 with padding,
strides, dilation, groups and output-channel counts that leave a partial tile, forward and gradients; other dtypes
stay on the numpy path; transposed convolutions, whose col2im runs in C, likewise."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch
from glasstorch._ops.kernels.cpu import conv, conv_direct

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


CONV_T = [
    ("conv_transpose2d", (1, 8, 12, 13), (8, 4, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ("conv_transpose2d", (2, 6, 5, 7), (6, 2, 2, 3), {"stride": (1, 3), "dilation": (2, 1), "groups": 3}),
    ("conv_transpose1d", (2, 3, 9), (3, 5, 4), {"stride": 3, "padding": 2, "dilation": 2}),
    ("conv_transpose3d", (1, 2, 3, 4, 5), (2, 3, 2, 2, 3), {"stride": (2, 1, 2), "output_padding": (1, 0, 1)}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("op", "xs", "ws", "kw"), CONV_T, ids=[f"{c[0]}-{c[1]}" for c in CONV_T])
def test_conv_transpose_col2im_matches_torch(op, xs, ws, kw, dtype):
    rng = np.random.default_rng(1)
    xn, wn = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    tx, tw = torch.tensor(xn, requires_grad=True), torch.tensor(wn, requires_grad=True)
    gx, gw = glasstorch.tensor(xn, requires_grad=True), glasstorch.tensor(wn, requires_grad=True)
    ty = getattr(torch.nn.functional, op)(tx, tw, **kw)
    gy = getattr(glasstorch.nn.functional, op)(gx, gw, **kw)
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-10}
    assert gy.shape == ty.shape and gy.stride() == ty.stride()
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), **tol)
    go = rng.standard_normal(ty.shape).astype(dtype)
    ty.backward(torch.tensor(go))
    gy.backward(glasstorch.tensor(go))
    for g, t in ((gx, tx), (gw, tw)):
        np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), **tol)


def test_col2im_kernel_agrees_with_the_numpy_loop_bit_for_bit():
    rng = np.random.default_rng(2)
    cols = rng.standard_normal((2, 3, 4, 5, 2, 2, 3)).astype(np.float32)  # (g, N, *in, og, *K)
    full_a = np.zeros((2, 3, 2, 3 * 2 + 2 + 1, 4 + 4 + 1), np.float32)  # (g, N, og, *full)
    full_b = full_a.copy()
    conv._col2im_np(cols, full_a, (2, 1), (2, 2), (4, 5), (2, 3))
    if not conv_direct.col2im_add(cols.reshape((6,) + cols.shape[2:]), full_b.reshape((6,) + full_b.shape[2:]),
                                  (2, 1), (2, 2)):
        pytest.skip("no C compiler")
    np.testing.assert_array_equal(full_a, full_b)
