"""addcdiv's gradient for ``tensor1`` is ``grad * (value / tensor2)`` where PyTorch's C++ ``Scalar / Tensor`` fills a
tensor like ``tensor2`` with ``value`` (rounding it to float16/bfloat16) before dividing; the half-precision
gradients agree with torch bit for bit, and so does the graph under create_graph."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("value", [0.7, -1.3, 3.0])
def test_addcdiv_gradients(value, dtype):
    rng = np.random.default_rng(2)
    a, b, c, g = (rng.standard_normal((6, 7)).astype(np.float32) for _ in range(4))
    c = np.where(np.abs(c) < 0.2, 0.5, c)
    grads = []
    for lib in (torch, gt):
        dt = getattr(lib, dtype)
        x, t1, t2 = (lib.tensor(v).to(dt).requires_grad_() for v in (a, b, c))
        lib.addcdiv(x, t1, t2, value=value).backward(lib.tensor(g).to(dt))
        grads.append([t.grad.float().numpy() for t in (x, t1, t2)])
    for got, want in zip(grads[1], grads[0], strict=True):
        np.testing.assert_array_equal(got, want)


def test_addcdiv_double_backward_graph():
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(0.5, 2.0, (3, 4)) for _ in range(3))
    results = []
    for lib in (torch, gt):
        x, t1, t2 = (lib.tensor(v, requires_grad=True) for v in (a, b, c))
        (g1,) = lib.autograd.grad(lib.addcdiv(x, t1, t2, value=0.7).sum(), t1, create_graph=True)
        (gg,) = lib.autograd.grad(g1.sum(), t2)
        results.append((type(g1.grad_fn).__name__, g1.detach().numpy(), gg.numpy()))
    assert results[1][0] == results[0][0]
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-14)
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-14)
