"""nn.utils.fusion against torch: fused Conv/Linear + BatchNorm parameters bit for bit, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch
from tests.nn.nn_oracle import copy_state, pair, randn
from tests.oracle import assert_same, assert_same_error


def _pair_modules(make):
    g, t = make(glasstorch), make(torch)
    copy_state(g, t)
    return g, t


def _randomise_bn(g, t):
    # running statistics and affine parameters that are not the defaults, identical in both
    for name in ("running_mean", "running_var", "weight", "bias"):
        arr = randn(t.num_features)
        if name == "running_var":
            arr = abs(arr) + 0.5
        with torch.no_grad():
            getattr(t, name).copy_(torch.from_numpy(arr))
        with glasstorch.no_grad():
            getattr(g, name).copy_(glasstorch.from_numpy(arr.copy()))


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_conv_bn_eval_matches_torch(transpose, bias):
    conv_cls = "ConvTranspose2d" if transpose else "Conv2d"
    if transpose and not hasattr(glasstorch.nn, conv_cls):
        pytest.skip("ConvTranspose2d belongs to the nn issue")
    gc, tc = _pair_modules(lambda m: getattr(m.nn, conv_cls)(3, 4, 3, bias=bias))
    gb, tb = _pair_modules(lambda m: m.nn.BatchNorm2d(4))
    _randomise_bn(gb, tb)
    for mod in (gc, tc, gb, tb):
        mod.eval()
    gf = glasstorch.nn.utils.fusion.fuse_conv_bn_eval(gc, gb, transpose=transpose)
    tf = torch.nn.utils.fusion.fuse_conv_bn_eval(tc, tb, transpose=transpose)
    assert type(gf.weight).__name__ == "Parameter" and gf is not gc
    assert_same(gf.weight.detach(), tf.weight.detach())
    assert_same(gf.bias.detach(), tf.bias.detach())
    assert gf.bias.requires_grad == tf.bias.requires_grad
    xg, xt = pair(randn(2, 3, 6, 6), requires_grad=False)
    assert_same(gf(xg), tf(xt), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gf(xg).detach().numpy(), gb(gc(xg)).detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("features", [5, 1])
def test_fuse_linear_bn_eval_matches_torch(features):
    gl, tl = _pair_modules(lambda m: m.nn.Linear(3, 5))
    gb, tb = _pair_modules(lambda m: m.nn.BatchNorm1d(features))
    _randomise_bn(gb, tb)
    for mod in (gl, tl, gb, tb):
        mod.eval()
    gf = glasstorch.nn.utils.fusion.fuse_linear_bn_eval(gl, gb)
    tf = torch.nn.utils.fusion.fuse_linear_bn_eval(tl, tb)
    assert_same(gf.weight.detach(), tf.weight.detach())
    assert_same(gf.bias.detach(), tf.bias.detach())


def test_fusion_errors_match_torch():
    def training(m):
        return m.nn.utils.fusion.fuse_linear_bn_eval(m.nn.Linear(3, 5), m.nn.BatchNorm1d(5))

    def mismatch(m):
        return m.nn.utils.fusion.fuse_linear_bn_eval(m.nn.Linear(3, 5).eval(), m.nn.BatchNorm1d(4).eval())

    def no_stats(m):
        return m.nn.utils.fusion.fuse_conv_bn_eval(m.nn.Conv2d(3, 4, 1).eval(),
                                                    m.nn.BatchNorm2d(4, track_running_stats=False).eval())

    for case in (training, mismatch, no_stats):
        assert_same_error(lambda c=case: c(glasstorch), lambda c=case: c(torch))
