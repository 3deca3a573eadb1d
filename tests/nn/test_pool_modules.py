"""The pooling and resampling layers (``nn.MaxPool1d/3d``, ``nn.AvgPool1d/3d``, the adaptive pools, ``nn.MaxUnpool*``,
``nn.LocalResponseNorm``, ``nn.PixelShuffle``/``PixelUnshuffle``, ``nn.ChannelShuffle``, ``nn.Upsample*``,
``nn.Unfold``/``Fold``) against torch: the same input gives the same output, gradient and repr."""

import numpy as np
import pytest
import torch
from oracle import assert_same

import glasstorch as gt

RNG = np.random.default_rng(0)

LAYERS = [  # (name, args, kwargs, input shape)
    ("MaxPool1d", (3,), {"stride": 2, "padding": 1}, (2, 3, 9)),
    ("MaxPool3d", (2,), {"ceil_mode": True}, (1, 2, 5, 4, 5)),
    ("AvgPool1d", (3,), {"count_include_pad": False, "padding": 1}, (2, 3, 9)),
    ("AvgPool3d", (2,), {"divisor_override": 3}, (1, 2, 4, 4, 6)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}, (1, 2, 5, 4, 7)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveMaxPool2d", ((3, 5),), {}, (2, 3, 7, 9)),
    ("AdaptiveMaxPool3d", (2,), {}, (1, 2, 5, 4, 7)),
    ("LocalResponseNorm", (3,), {"alpha": 0.01, "k": 2.0}, (2, 5, 4, 3)),
    ("PixelShuffle", (2,), {}, (2, 8, 3, 3)),
    ("PixelUnshuffle", (2,), {}, (2, 2, 4, 6)),
    ("ChannelShuffle", (3,), {}, (2, 6, 2, 2)),
    ("Upsample", (), {"scale_factor": 2.5, "mode": "bilinear"}, (1, 2, 3, 4)),
    ("Upsample", (), {"size": (5, 6, 3), "mode": "trilinear", "align_corners": True}, (1, 2, 3, 4, 2)),
    ("UpsamplingNearest2d", (), {"scale_factor": 2}, (1, 2, 3, 4)),
    ("UpsamplingBilinear2d", (), {"size": (5, 7)}, (1, 2, 3, 4)),
    ("Unfold", ((2, 3),), {"padding": 1, "stride": 2}, (2, 3, 5, 6)),
    ("Fold", ((4, 5), (2, 2)), {}, (2, 12, 12)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", LAYERS, ids=[f"{n}-{i}" for i, (n, *_) in enumerate(LAYERS)])
def test_layer_matches_torch(name, args, kwargs, shape):
    x = RNG.standard_normal(shape)
    mt, mg = getattr(torch.nn, name)(*args, **kwargs), getattr(gt.nn, name)(*args, **kwargs)
    assert repr(mg) == repr(mt)
    xt, xg = torch.tensor(x, requires_grad=True), gt.tensor(x, requires_grad=True)
    yt, yg = mt(xt), mg(xg)
    assert_same(yg.detach(), yt.detach(), rtol=1e-12, atol=1e-12)
    g = RNG.standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(g))
    yg.backward(gt.tensor(g))
    assert_same(xg.grad, xt.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_layer_inverts_the_pool(n):
    shape = (2, 3) + (6, 4, 6)[:n]
    x = RNG.standard_normal(shape)
    outs = []
    for lib in (torch, gt):
        pool = getattr(lib.nn, f"MaxPool{n}d")(2, return_indices=True)
        unpool = getattr(lib.nn, f"MaxUnpool{n}d")(2)
        out, idx = pool(lib.tensor(x))
        outs.append((unpool(out, idx), repr(unpool), unpool(out, idx, output_size=shape[2:])))
    (yt, rt, zt), (yg, rg, zg) = outs
    assert rg == rt
    assert_same(yg, yt)
    assert_same(zg, zt)
