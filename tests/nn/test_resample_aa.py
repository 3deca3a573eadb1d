"""Separable resampling against torch: the uint8 path of bilinear/bicubic ``interpolate`` (integer weights,
bit-equal), ``_upsample_bilinear2d_aa`` / ``interpolate(antialias=True)`` in float32/float64/uint8 with its
gradient, and the output layout (channels-last in, channels-last out)."""

import numpy as np
import pytest
import torch
from oracle import assert_same

import glasstorch as gt

RNG = np.random.default_rng(0)
SIZES = [((3, 3), None), ((5, 7), None), ((23, 41), None), ((10, 9), None), (None, (1.7, 0.9)),
         (None, (0.8, 1.0)), (None, (0.31, 2.5))]


def _interp(lib, x, size, sf, mode, align, antialias=False, channels_last=False, dtype=None):
    t = lib.tensor(x, dtype=dtype)
    if channels_last:
        t = t.to(memory_format=lib.channels_last)
    return lib.nn.functional.interpolate(t, size=size, scale_factor=sf, mode=mode, align_corners=align,
                                         antialias=antialias)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size,sf", SIZES)
@pytest.mark.parametrize("channels", [3, 6])
@pytest.mark.parametrize("channels_last", [False, True])
def test_uint8_bit_equal(mode, align, size, sf, channels, channels_last):
    x = RNG.integers(0, 256, (2, channels, 10, 20)).astype(np.uint8)
    assert_same(_interp(gt, x, size, sf, mode, align, channels_last=channels_last),
                _interp(torch, x, size, sf, mode, align, channels_last=channels_last))


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size,sf", SIZES)
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_antialias_forward(align, size, sf, dtype):
    x = RNG.integers(0, 256, (2, 3, 10, 20)) if dtype == "uint8" else RNG.standard_normal((2, 3, 10, 20))
    got = _interp(gt, x, size, sf, "bilinear", align, True, dtype=getattr(gt, dtype))
    want = _interp(torch, x, size, sf, "bilinear", align, True, dtype=getattr(torch, dtype))
    tol = {} if dtype == "uint8" else dict(rtol=1e-6, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12,
                                                                                                  atol=1e-12)
    assert_same(got, want, **tol)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size,sf", SIZES)
def test_antialias_grad(align, size, sf):
    x = RNG.standard_normal((2, 3, 10, 20))
    outs = []
    for lib in (gt, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.interpolate(t, size=size, scale_factor=sf, mode="bilinear", align_corners=align,
                                          antialias=True)
        w = lib.tensor(np.arange(y.numel()).reshape(tuple(y.shape)) % 7 - 3.0)
        outs.append(lib.autograd.grad(y, t, w)[0])
    assert_same(outs[0], outs[1], rtol=1e-12, atol=1e-12)


def test_antialias_gradcheck_and_ops():
    x = gt.randn(1, 2, 6, 9, dtype=gt.float64, requires_grad=True)
    assert gt.autograd.gradcheck(lambda t: gt.ops.aten._upsample_bilinear2d_aa(t, [4, 5], False), (x,))
    assert gt.autograd.gradgradcheck(lambda t: gt.ops.aten._upsample_bilinear2d_aa(t, [4, 5], True), (x,))
    xt = torch.tensor(x.detach().numpy())
    g = np.ones((1, 2, 4, 5))
    assert_same(gt.ops.aten._upsample_bilinear2d_aa_backward(gt.tensor(g), [4, 5], [1, 2, 6, 9], False, None, None),
                torch.ops.aten._upsample_bilinear2d_aa_backward(torch.tensor(g), [4, 5], [1, 2, 6, 9], False, None,
                                                                None), rtol=1e-12, atol=1e-12)
    assert_same(gt.ops.aten._upsample_bilinear2d_aa(x.detach(), [4, 5], False, 0.5, 0.6),
                torch.ops.aten._upsample_bilinear2d_aa(xt, [4, 5], False, 0.5, 0.6), rtol=1e-12, atol=1e-12)
