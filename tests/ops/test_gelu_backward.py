"""``aten::gelu_backward`` as an operator: gelu's gradient runs one fused kernel, and that kernel is itself
differentiable (``GeluBackwardBackward0``) — values, double and triple backward against torch 2.13.

The OpInfo entry (op_db_nn.py) covers dtypes, layouts, ``grad_input=`` and errors on small samples; here: tensors
large enough for the compiled loop, the meta kernel, and the graph gelu's backward builds.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt

APPROX = ("none", "tanh")


def _both(values: np.ndarray, requires_grad=False):
    return (gt.tensor(values, requires_grad=requires_grad), torch.tensor(values, requires_grad=requires_grad))


@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_values_match_torch(approximate, dtype):
    """50k elements (the compiled loop for 'none'), incl. the tails and the erf branch point."""
    rng = np.random.default_rng(0)
    x = np.concatenate([np.linspace(-12, 12, 40_000), rng.normal(0, 2, 10_000)]).astype(dtype)
    g = rng.uniform(-2, 2, x.shape).astype(dtype)
    (gx, tx), (gg, tg) = _both(x), _both(g)
    got = gt.ops.aten.gelu_backward(gg, gx, approximate=approximate).numpy()
    want = torch.ops.aten.gelu_backward(tg, tx, approximate=approximate).numpy()
    # float32 'tanh': where tanh rounds to -1 torch's float32 formula gives 0 for a true ~1e-6 (we use float64)
    rtol, atol = (2e-6, 4e-6) if dtype == "float32" else (1e-12, 1e-14)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_gelu_gradient_is_the_operator():
    """gelu's backward calls gelu_backward: with create_graph its gradient has a GeluBackwardBackward0 node."""
    x = gt.linspace(-3.0, 3.0, 7, dtype=gt.float64).requires_grad_()
    (gx,) = gt.autograd.grad(gt.nn.functional.gelu(x).sum(), x, create_graph=True)
    assert type(gx.grad_fn).__name__ == "GeluBackwardBackward0"
    assert len(gx.grad_fn.next_functions) == 2  # grad_output (from the sum's backward) and self


@pytest.mark.parametrize("approximate", APPROX)
def test_double_and_triple_backward_match_torch(approximate):
    rng = np.random.default_rng(1)
    xs, gs, vs = (rng.uniform(-4, 4, 20) for _ in range(3))
    results = []
    for lib in (gt, torch):
        x, g = lib.tensor(xs, requires_grad=True), lib.tensor(gs, requires_grad=True)
        y = lib.ops.aten.gelu_backward(g, x, approximate=approximate)
        dg, dx = lib.autograd.grad(y, (g, x), lib.tensor(vs), create_graph=True)
        (ddx,) = lib.autograd.grad((dx * dx).sum() + dg.sum(), x)
        results.append([t.detach().numpy() for t in (y, dg, dx, ddx)])
    for got, want in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("approximate", APPROX)
def test_gradgradcheck(approximate):
    x = gt.tensor(np.linspace(-3, 3, 6), requires_grad=True)
    g = gt.tensor(np.linspace(-1, 2, 6), requires_grad=True)
    fn = lambda g, x: gt.ops.aten.gelu_backward(g, x, approximate=approximate)  # noqa: E731
    assert gt.autograd.gradcheck(fn, (g, x))
    assert gt.autograd.gradgradcheck(fn, (g, x))


def test_meta_kernel():
    g = gt.empty(3, 1, dtype=gt.float16, device="meta")
    x = gt.empty(4, dtype=gt.float64, device="meta")
    out = gt.ops.aten.gelu_backward(g, x, approximate="tanh")
    assert out.device.type == "meta" and out.shape == (3, 4) and out.dtype == gt.float64
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        gt.ops.aten.gelu_backward(g, x, approximate="erf")


def test_grad_input_out():
    gx, tx = _both(np.linspace(-2, 2, 5).astype(np.float32))
    out = gt.empty(0)
    res = gt.ops.aten.gelu_backward.grad_input(gx, gx, grad_input=out)
    assert res is out
    np.testing.assert_allclose(out.numpy(), torch.ops.aten.gelu_backward(tx, tx).numpy(), rtol=2e-6, atol=1e-7)
