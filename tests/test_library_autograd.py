"""``library.register_autograd`` against torch: the custom op becomes differentiable through an
``autograd.Function`` whose node PyTorch names ``GeneratedBackwardFor_<ns>_<name>_<overload>Backward``."""

import itertools

import numpy as np
import torch

import glasstorch as gt

_ids = itertools.count()


def _define(m, with_scale=True):
    """The same custom op (x * sin(x) * scale) defined in torch or glasstorch under a fresh name."""
    name = f"gtlibtest::scaled_xsin{next(_ids)}"

    @m.library.custom_op(name, mutates_args=())
    def op(x: m.Tensor, scale: float) -> m.Tensor:
        return x * x.sin() * scale

    @op.register_fake
    def _(x, scale):
        return m.empty_like(x)

    def setup_context(ctx, inputs, output):
        x, scale = inputs
        ctx.save_for_backward(x)
        ctx.scale = scale

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x.sin() + x * x.cos()) * ctx.scale, None

    op.register_autograd(backward, setup_context=setup_context)
    return op, name


def test_custom_op_gradients_match_torch():
    x0 = np.random.default_rng(0).standard_normal((3, 4))
    res = {}
    for m in (torch, gt):
        op, name = _define(m)
        x = m.tensor(x0, requires_grad=True)
        y = op(x, 2.5)
        (y * y).sum().backward()
        res[m.__name__] = (y.detach().numpy(), x.grad.numpy(),
                           type(y.grad_fn).__name__.replace(name.split("::")[1], "OP"))
    np.testing.assert_allclose(res["glasstorch"][0], res["torch"][0], rtol=1e-12)
    np.testing.assert_allclose(res["glasstorch"][1], res["torch"][1], rtol=1e-12)
    assert res["glasstorch"][2] == res["torch"][2]


def test_custom_op_without_grad_records_nothing():
    op, _ = _define(gt)
    y = op(gt.ones(3), 1.0)
    assert y.grad_fn is None and not y.requires_grad
    with gt.no_grad():
        assert op(gt.ones(3, requires_grad=True), 1.0).grad_fn is None


def test_custom_op_gradcheck():
    op, _ = _define(gt)
    x = gt.randn(4, dtype=gt.float64, requires_grad=True)
    assert gt.autograd.gradcheck(lambda t: op(t, 0.7), (x,))
