"""scatter_reduce / index_reduce with ``reduce="prod"`` against torch: two zeros of the source sent to one slot give
the right first-order gradients, but their source gradient refuses to be differentiated again with torch's
message (a DelayedError node); a single zero per slot stays twice differentiable."""

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same_error

FNS = ["scatter_reduce", "index_reduce"]


def _first_order(mod, fn, src_values, create_graph):
    x = mod.tensor([1.0, 3.0], dtype=mod.double, requires_grad=True)
    src = mod.tensor(src_values, dtype=mod.double, requires_grad=True)
    idx = mod.tensor([0, 0, 1])
    out = getattr(mod, fn)(x, 0, idx, src, "prod")
    weights = mod.tensor([2.0, 5.0], dtype=mod.double)
    return src, mod.autograd.grad((out * weights).sum(), (x, src), create_graph=create_graph)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("src_values", [[0.0, 0.0, 2.0], [0.0, 4.0, 2.0], [3.0, 4.0, 0.0]])
def test_first_order_gradients(fn, src_values):
    (_, g), (_, t) = _first_order(gt, fn, src_values, False), _first_order(torch, fn, src_values, False)
    for a, b in zip(g, t, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
        assert a.grad_fn is None and b.grad_fn is None


@pytest.mark.parametrize("fn", FNS)
def test_two_zeros_refuse_double_backward(fn):
    def run(mod):
        src, (_, gsrc) = _first_order(mod, fn, [0.0, 0.0, 2.0], True)
        assert type(gsrc.grad_fn).__name__ == "Error"
        return lambda: mod.autograd.grad(gsrc.sum(), src)
    assert_same_error(run(gt), run(torch))


@pytest.mark.parametrize("fn", FNS)
def test_one_zero_stays_twice_differentiable(fn):
    def second(mod):
        src, (_, gsrc) = _first_order(mod, fn, [0.0, 4.0, 2.0], True)
        return mod.autograd.grad(gsrc.sum(), src)[0].numpy()
    np.testing.assert_allclose(second(gt), second(torch), rtol=1e-12)
