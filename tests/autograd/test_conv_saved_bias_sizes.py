"""ConvolutionBackward0 keeps the bias's sizes, not the bias, as torch's: ``_saved_bias_sym_sizes_opt`` is the
bias's shape, ``(0,)`` without a bias (torch's getter shows the empty optional so), there is no ``_saved_bias``,
and the gradients (bias included) are torch's."""

import numpy as np
import pytest
import torch

import glasstorch as gt

CASES = [("Conv1d", (1, 2, 5), dict(in_channels=2, out_channels=3, kernel_size=2)),
         ("Conv2d", (1, 1, 3, 3), dict(in_channels=1, out_channels=1, kernel_size=3)),
         ("Conv3d", (1, 2, 3, 3, 3), dict(in_channels=2, out_channels=4, kernel_size=2)),
         ("ConvTranspose2d", (1, 2, 3, 3), dict(in_channels=2, out_channels=3, kernel_size=2))]


def _run(mod, name, shape, kw, bias):
    mod.manual_seed(0)
    layer = getattr(mod.nn, name)(bias=bias, **kw).double()
    with mod.no_grad():
        for p in layer.parameters():
            p.copy_(mod.linspace(-1, 1, p.numel(), dtype=mod.double).reshape(p.shape))
    x = mod.linspace(-2, 2, int(np.prod(shape)), dtype=mod.double).reshape(shape).requires_grad_()
    out = layer(x)
    fn = out.grad_fn
    seen = (fn.name(), fn._saved_bias_sym_sizes_opt, hasattr(fn, "_saved_bias"))
    out.pow(2).sum().backward()
    grads = [x.grad.numpy()] + [p.grad.numpy() for p in layer.parameters()]
    return seen, grads


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("name,shape,kw", CASES)
def test_saved_bias_sizes_and_grads(name, shape, kw, bias):
    (g_seen, g_grads), (t_seen, t_grads) = _run(gt, name, shape, kw, bias), _run(torch, name, shape, kw, bias)
    assert g_seen == t_seen
    assert type(g_seen[1]) is tuple and all(type(s) is int for s in g_seen[1])
    assert len(g_grads) == len(t_grads)
    for g, t in zip(g_grads, t_grads, strict=True):
        np.testing.assert_allclose(g, t, rtol=1e-12, atol=1e-12)
