"""Softmax and log-softmax in float16/bfloat16 bit for bit as torch's CPU kernels (Note [Half-precision softmax]
in glasstorch/_ops/kernels/cpu/softmax.py), and their gradients through ``_softmax_backward_data`` /
``_log_softmax_backward_data``, as torch's derivatives call them.

Shapes cover the last dim and other dims, inner sizes below, at and past one SIMD vector of the half type, and
thread ranges that cut a vector (``at::parallel_for`` with grain size 0 over 1 and 2 threads).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt

HALF = ("float16", "bfloat16")
CASES = [((5, 5), 1), ((5, 5), 0), ((3, 40), 1), ((40, 3), 0), ((2, 7, 9), 1), ((3, 4, 40), 1), ((2, 3, 64), 1),
         ((2, 5, 70), 1), ((300,), 0), ((), 0)]


def _pair(values: np.ndarray, dtype: str, requires_grad=False):
    t = torch.tensor(values).to(getattr(torch, dtype))
    g = gt.tensor(values).to(getattr(gt, dtype))
    return g.requires_grad_(requires_grad), t.requires_grad_(requires_grad)


def _same(got, want):
    assert got.dtype.__repr__().split(".")[-1] == repr(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    np.testing.assert_array_equal(got.float().detach().numpy(), want.float().detach().numpy())


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_forward_bits(fn, shape, dim, dtype, threads):
    rng = np.random.default_rng(sum(shape) + dim)
    for _ in range(5):
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        gx, tx = _pair(x, dtype)
        _same(getattr(gt, fn)(gx, dim), getattr(torch, fn)(tx, dim))


@pytest.mark.parametrize("dtype", HALF + ("float32", "float64"))
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_gradient_bits(fn, shape, dim, dtype, threads):
    """The gradient of softmax/log_softmax in a half type: one rounding, as torch's backward kernels."""
    rng = np.random.default_rng(7 + sum(shape) + dim)
    for _ in range(5):
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        g = rng.standard_normal(shape).astype(np.float32)
        (gx, tx), (gg, tg) = _pair(x, dtype, True), _pair(g, dtype)
        getattr(gt, fn)(gx, dim).backward(gg)
        getattr(torch, fn)(tx, dim).backward(tg)
        if dtype in HALF:
            _same(gx.grad, tx.grad)
        else:
            np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", HALF + ("float32",))
@pytest.mark.parametrize("shape,dim", [((3, 40), 1), ((4, 6, 5), 1), ((7,), 0)])
def test_log_softmax_backward_data_operator(shape, dim, dtype):
    rng = np.random.default_rng(3)
    y = torch.log_softmax(torch.tensor(rng.standard_normal(shape).astype(np.float32)), dim).numpy()
    g = rng.standard_normal(shape).astype(np.float32)
    (gy, ty), (gg, tg) = _pair(y, dtype), _pair(g, dtype)
    got = gt.ops.aten._log_softmax_backward_data(gg, gy, dim, getattr(gt, dtype))
    want = torch.ops.aten._log_softmax_backward_data(tg, ty, dim, getattr(torch, dtype))
    if dtype in HALF:
        _same(got, want)
    else:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("fn,node", [("softmax", "SoftmaxBackwardDataBackward0"),
                                     ("log_softmax", "LogSoftmaxBackwardDataBackward0")])
def test_double_backward_goes_through_the_backward_operator(fn, node):
    """With create_graph the gradient is the backward operator's output, and its second derivative is torch's."""
    x = np.random.default_rng(0).standard_normal((3, 4))
    gx, tx = _pair(x, "float64", True)
    grads = []
    for lib, t in ((gt, gx), (torch, tx)):
        y = getattr(lib, fn)(t, 1)
        w = lib.arange(12.0, dtype=lib.float64).reshape(3, 4)
        (g,) = lib.autograd.grad((y * w).sum(), t, create_graph=True)
        assert type(g.grad_fn).__name__ == node
        (gg,) = lib.autograd.grad((g * g).sum(), t)
        grads.append(gg.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["_softmax_backward_data", "_log_softmax_backward_data"])
def test_backward_data_errors(name):
    for lib in (gt, torch):
        op = getattr(lib.ops.aten, name)
        g = lib.ones(3, 4)
        with pytest.raises(RuntimeError, match="expected scalar type Float but found Half"):
            op(g, g.half(), 1, lib.float16)
        kernel = "log_softmax_backward" if name.startswith("_log") else "softmax_backward"
        with pytest.raises(NotImplementedError, match=f'"{kernel}_kernel_impl" not implemented for \'Long\''):
            op(g.long(), g.long(), 0, lib.int64)
        with pytest.raises(NotImplementedError, match=f'"{kernel}_lastdim_kernel_impl" not implemented for \'Long\''):
            op(g.long(), g.long(), 1, lib.int64)
        empty = lib.ones(0, 3)
        assert op(empty, empty.long(), 1, lib.float32).shape == (0, 3)
