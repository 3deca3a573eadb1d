"""The nn.functional family's layers and functions of issue 21 against torch: dropout variants after equal seeding
(masks drawn with torch's calls in torch's order), shrink activations, and the losses, forward and input gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from nn_oracle import pair, randn, to_np

import glasstorch

DROPOUTS = [
    ("Dropout1d", (3, 4, 5), {}), ("Dropout1d-unbatched", (4, 5), {}), ("Dropout2d", (2, 3, 4, 5), {}),
    ("Dropout2d-3d", (3, 4, 5), {}), ("Dropout3d", (2, 3, 2, 2, 2), {}), ("Dropout3d-unbatched", (3, 2, 2, 2), {}),
    ("AlphaDropout", (5, 6), {}), ("FeatureAlphaDropout", (2, 3, 4), {}), ("AlphaDropout", (40, 50), {"p": 0.2}),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("name", "shape", "kw"), DROPOUTS, ids=[f"{d[0]}-{len(d[1])}d" for d in DROPOUTS])
def test_dropout_layers_match_torch_after_seeding(name, shape, kw):
    cls = name.split("-")[0]
    gx, tx = pair(randn(*shape))
    glasstorch.manual_seed(7)
    torch.manual_seed(7)
    gy = getattr(glasstorch.nn, cls)(**kw)(gx)
    ty = getattr(torch.nn, cls)(**kw)(tx)
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-6, atol=1e-6)
    gy.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(to_np(gx.grad), to_np(tx.grad), rtol=1e-6, atol=1e-6)
    assert repr(getattr(glasstorch.nn, cls)(0.3)) == repr(getattr(torch.nn, cls)(0.3))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_dropout_layers_eval_and_errors():
    x = randn(2, 3, 4)
    for cls in ("Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
        m = getattr(glasstorch.nn, cls)(0.5).eval()
        np.testing.assert_array_equal(to_np(m(glasstorch.from_numpy(x))), x)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
        glasstorch.nn.functional.dropout1d(glasstorch.ones(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        glasstorch.nn.functional.feature_alpha_dropout(glasstorch.ones(3), 0.5, True)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        glasstorch.nn.functional.alpha_dropout(glasstorch.ones(3), 1.5)


def test_bernoulli_float_mask_is_torchs():
    for m in (glasstorch, torch):
        m.manual_seed(0)
    g = glasstorch.empty(5, 5).bernoulli_(0.7)
    t = torch.empty(5, 5).bernoulli_(0.7)
    np.testing.assert_array_equal(to_np(g), to_np(t))


@pytest.mark.parametrize("name", ["Hardshrink", "Softshrink"])
def test_shrink_layers_and_out(name):
    gx, tx = pair(randn(4, 6))
    gy, ty = getattr(glasstorch.nn, name)(0.4)(gx), getattr(torch.nn, name)(0.4)(tx)
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-6)
    gy.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(to_np(gx.grad), to_np(tx.grad))
    fn = name.lower()
    gout, tout = glasstorch.empty(0), torch.empty(0)
    getattr(glasstorch.nn.functional, fn)(gx.detach(), 0.4, out=gout)
    getattr(torch.nn.functional, fn)(tx.detach(), 0.4, out=tout)
    np.testing.assert_allclose(to_np(gout), to_np(tout), rtol=1e-6)


def _pm(*shape):
    return np.resize(np.array([1.0, -1.0, -1.0, 1.0, 1.0], np.float32), int(np.prod(shape))).reshape(shape)


LOSSES = [
    ("CosineEmbeddingLoss", {"margin": 0.1}, [randn(3, 4), randn(3, 4), _pm(3)]),
    ("HingeEmbeddingLoss", {"margin": 0.5, "reduction": "sum"}, [randn(3, 4), _pm(3, 4)]),
    ("MarginRankingLoss", {"margin": 0.2}, [randn(5), randn(5), _pm(5)]),
    ("SoftMarginLoss", {}, [randn(3, 4), _pm(3, 4)]),
    ("PoissonNLLLoss", {"full": True}, [randn(3, 4), np.abs(randn(3, 4)) * 3]),
    ("GaussianNLLLoss", {"reduction": "none"}, [randn(3, 4), randn(3, 4), np.abs(randn(3, 1)) + 0.1]),
    ("MultiLabelSoftMarginLoss", {}, [randn(3, 4), (randn(3, 4) > 0).astype(np.float32)]),
    ("TripletMarginLoss", {"p": 1.0, "swap": True}, [randn(3, 4), randn(3, 4), randn(3, 4)]),
    ("TripletMarginWithDistanceLoss", {}, [randn(3, 4), randn(3, 4), randn(3, 4)]),
]


@pytest.mark.parametrize(("name", "kw", "arrays"), LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_layers_match_torch(name, kw, arrays):
    pairs = [pair(a, requires_grad=i == 0) for i, a in enumerate(arrays)]
    g_mod, t_mod = getattr(glasstorch.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(g_mod) == repr(t_mod)
    gy, ty = g_mod(*(p[0] for p in pairs)), t_mod(*(p[1] for p in pairs))
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-5, atol=1e-6)
    gy.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(to_np(pairs[0][0].grad), to_np(pairs[0][1].grad), rtol=1e-5, atol=1e-6)


def test_triplet_margin_loss_errors():
    for m in (glasstorch, torch):
        with pytest.raises(ValueError, match="expected margin to be greater than 0, got 0 instead"):
            m.nn.TripletMarginLoss(margin=0)
    with pytest.raises(RuntimeError, match="anchor 2D, positive 1D, and negative 2D inputs"):
        glasstorch.nn.functional.triplet_margin_loss(glasstorch.ones(2, 3), glasstorch.ones(3), glasstorch.ones(2, 3))


@pytest.mark.parametrize("kw", [{}, {"reduction": "none", "ignore_index": 1}, {"reduction": "sum"}])
def test_linear_cross_entropy_matches_torch(kw):
    (gx, tx), (gw, tw) = pair(randn(5, 3)), pair(randn(4, 3))
    gb, tb = pair(randn(4))
    target = np.array([0, 3, 1, 2, 1])
    gy = glasstorch.nn.functional.linear_cross_entropy(gx, gw, glasstorch.from_numpy(target), linear_bias=gb, **kw)
    ty = torch.nn.functional.linear_cross_entropy(tx, tw, torch.from_numpy(target), linear_bias=tb, **kw)
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-5, atol=1e-6)
    gy.sum().backward()
    ty.sum().backward()
    for g, t in ((gx, tx), (gw, tw), (gb, tb)):
        np.testing.assert_allclose(to_np(g.grad), to_np(t.grad), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="expected input with dimensionality 1 or 2, got 3"):
        glasstorch.nn.functional.linear_cross_entropy(glasstorch.ones(2, 2, 3), gw, glasstorch.zeros(2))


CONVS = [
    ("Conv3d", (2, 4, 3), {"stride": 2, "padding": 1, "groups": 2}, (2, 2, 5, 6, 5), None),
    ("Conv3d", (2, 3, 2), {"padding": "same", "padding_mode": "circular"}, (1, 2, 4, 4, 4), None),
    ("ConvTranspose1d", (4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}, (2, 4, 7), None),
    ("ConvTranspose2d", (3, 2, 3), {"stride": 2, "dilation": 2}, (2, 3, 4, 5), [12, 14]),
    ("ConvTranspose3d", (2, 4, 2), {"stride": (1, 2, 2), "bias": False}, (1, 2, 3, 3, 4), None),
]


@pytest.mark.parametrize(("cls", "args", "kw", "shape", "output_size"), CONVS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CONVS)])
def test_conv_layers_match_torch(cls, args, kw, shape, output_size):
    torch.manual_seed(0)
    t_mod = getattr(torch.nn, cls)(*args, **kw).double()
    g_mod = getattr(glasstorch.nn, cls)(*args, **kw).double()
    assert repr(g_mod) == repr(t_mod)
    with glasstorch.no_grad():
        for name, p in t_mod.named_parameters():
            g_mod.get_parameter(name).copy_(glasstorch.from_numpy(p.detach().numpy().copy()))
    gx, tx = pair(randn(*shape).astype(np.float64))
    extra = {} if output_size is None else {"output_size": output_size}
    gy, ty = g_mod(gx, **extra), t_mod(tx, **extra)
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-10, atol=1e-12)
    gy.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(to_np(gx.grad), to_np(tx.grad), rtol=1e-10, atol=1e-12)
    for name, p in t_mod.named_parameters():
        np.testing.assert_allclose(to_np(g_mod.get_parameter(name).grad), to_np(p.grad), rtol=1e-10, atol=1e-12)


def test_complex_conv_is_three_real_convs():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((2, 3, 6)) + 1j * rng.standard_normal((2, 3, 6))).astype(np.complex128)
    w = (rng.standard_normal((4, 3, 3)) + 1j * rng.standard_normal((4, 3, 3))).astype(np.complex128)
    b = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(np.complex128)
    (gx, tx), (gw, tw), (gb, tb) = pair(x, True), pair(w, True), pair(b, True)
    for fn in ("conv1d", "conv_transpose1d"):
        wt = (gw, tw) if fn == "conv1d" else (gw.transpose(0, 1), tw.transpose(0, 1))
        gy = getattr(glasstorch.nn.functional, fn)(gx, wt[0], gb if fn == "conv1d" else None, padding=1)
        ty = getattr(torch.nn.functional, fn)(tx, wt[1], tb if fn == "conv1d" else None, padding=1)
        np.testing.assert_allclose(np.asarray(gy.detach().numpy()), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
        gy.abs().sum().backward()
        ty.abs().sum().backward()
        np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


NORMS = [("InstanceNorm1d", {}, (3, 4, 6), True), ("InstanceNorm1d", {"affine": True}, (4, 6), True),
         ("InstanceNorm2d", {"track_running_stats": True}, (2, 3, 4, 5), True),
         ("InstanceNorm2d", {"track_running_stats": True, "affine": True}, (2, 3, 4, 5), False),
         ("InstanceNorm3d", {"momentum": 0.3, "track_running_stats": True}, (2, 3, 2, 3, 2), True)]


@pytest.mark.parametrize(("cls", "kw", "shape", "train"), NORMS, ids=[f"{n[0]}-{i}" for i, n in enumerate(NORMS)])
def test_instance_norm_layers_match_torch(cls, kw, shape, train):
    channels = shape[len(shape) - {"InstanceNorm1d": 2, "InstanceNorm2d": 3, "InstanceNorm3d": 4}[cls]]
    t_mod, g_mod = getattr(torch.nn, cls)(channels, **kw), getattr(glasstorch.nn, cls)(channels, **kw)
    assert repr(g_mod) == repr(t_mod)
    if not train:
        for m in (t_mod, g_mod):
            m.running_mean.fill_(0.5)
            m.running_var.fill_(2.0)
            m.eval()
    gx, tx = pair(randn(*shape))
    gy, ty = g_mod(gx), t_mod(tx)
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-5, atol=1e-5)
    (gy * gy).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(to_np(gx.grad), to_np(tx.grad), rtol=1e-4, atol=1e-4)
    for name, buf in t_mod.named_buffers():
        np.testing.assert_allclose(to_np(dict(g_mod.named_buffers())[name]), to_np(buf), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("train", [True, False])
def test_rrelu_layer_matches_torch_after_seeding(dtype, train):
    gx, tx = pair(randn(4, 7))
    gx, tx = gx.detach().to(getattr(glasstorch, dtype)).requires_grad_(), tx.detach().to(getattr(torch, dtype))
    tx.requires_grad_()
    g_mod, t_mod = glasstorch.nn.RReLU(0.1, 0.4), torch.nn.RReLU(0.1, 0.4)
    assert repr(g_mod) == repr(t_mod)
    if not train:
        g_mod.eval()
        t_mod.eval()
    glasstorch.manual_seed(3)
    torch.manual_seed(3)
    gy, ty = g_mod(gx), t_mod(tx)
    np.testing.assert_array_equal(to_np(gy), to_np(ty))
    gy.sum().backward()
    ty.sum().backward()
    np.testing.assert_array_equal(to_np(gx.grad), to_np(tx.grad))
    assert float(glasstorch.rand(())) == float(torch.rand(()))  # the same number of draws
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        glasstorch.nn.functional.rrelu(gx, 0.5, 0.1, True)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")])
def test_pdist_matches_torch(p):
    x = randn(6, 4).astype(np.float64)
    x[3] = x[1]  # a zero distance: its gradient is 0 for every p
    gx, tx = pair(x)
    gy, ty = glasstorch.nn.functional.pdist(gx, p), torch.nn.functional.pdist(tx, p)
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-12, atol=1e-12)
    w = randn(gy.shape[0]).astype(np.float64)
    (gy * glasstorch.from_numpy(w)).sum().backward()
    (ty * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(to_np(gx.grad), to_np(tx.grad), rtol=1e-10, atol=1e-12)


MARGIN_LOSSES = [
    ("MultiMarginLoss", {}, randn(4, 5), np.array([0, 4, 2, 2])),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5, "reduction": "none"}, randn(4, 5), np.array([1, 3, 0, 4])),
    ("MultiMarginLoss", {"weight": np.abs(randn(5)), "reduction": "sum"}, randn(5), np.array([2])),
    ("MultiLabelMarginLoss", {}, randn(3, 4), np.array([[0, 2, -1, 1], [3, -1, 0, 0], [1, 1, 2, -1]])),
    ("MultiLabelMarginLoss", {"reduction": "none"}, randn(4), np.array([3, 0, -1, 2])),
]


@pytest.mark.parametrize(("cls", "kw", "x", "target"), MARGIN_LOSSES, ids=[f"{m[0]}-{i}" for i, m in
                                                                            enumerate(MARGIN_LOSSES)])
def test_class_margin_losses_match_torch(cls, kw, x, target):
    gkw = {k: glasstorch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    tkw = {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    g_mod, t_mod = getattr(glasstorch.nn, cls)(**gkw), getattr(torch.nn, cls)(**tkw)
    gx, tx = pair(x)
    gy = g_mod(gx, glasstorch.from_numpy(target))
    ty = t_mod(tx, torch.from_numpy(target))
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-6, atol=1e-6)
    gy.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(to_np(gx.grad), to_np(tx.grad), rtol=1e-6, atol=1e-6)


BAGS = [({"mode": "sum"}, np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 3, 3, 6]), True),
        ({"mode": "mean", "padding_idx": 2}, np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 2, 5]), False),
        ({"mode": "max"}, np.array([[1, 2, 4], [5, 4, 3]]), None, False),
        ({"mode": "mean", "include_last_offset": True}, np.array([1, 2, 4, 5, 4, 3]), np.array([0, 2, 2, 6]), False)]


@pytest.mark.parametrize(("kw", "idx", "offsets", "weighted"), BAGS, ids=[b[0]["mode"] + str(i) for i, b in
                                                                        enumerate(BAGS)])
def test_embedding_bag_matches_torch(kw, idx, offsets, weighted):
    torch.manual_seed(0)
    t_mod = torch.nn.EmbeddingBag(10, 3, **kw)
    g_mod = glasstorch.nn.EmbeddingBag(10, 3, **kw)
    assert repr(g_mod) == repr(t_mod)
    with glasstorch.no_grad():
        g_mod.weight.copy_(glasstorch.from_numpy(t_mod.weight.detach().numpy().copy()))
    args_g = [glasstorch.from_numpy(idx)] + ([glasstorch.from_numpy(offsets)] if offsets is not None else [])
    args_t = [torch.from_numpy(idx)] + ([torch.from_numpy(offsets)] if offsets is not None else [])
    psw = np.abs(randn(*idx.shape)) if weighted else None
    gy = g_mod(*args_g, per_sample_weights=None if psw is None else glasstorch.from_numpy(psw))
    ty = t_mod(*args_t, per_sample_weights=None if psw is None else torch.from_numpy(psw))
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-6, atol=1e-6)
    w = randn(*ty.shape)
    (gy * glasstorch.from_numpy(w)).sum().backward()
    (ty * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(to_np(g_mod.weight.grad), to_np(t_mod.weight.grad), rtol=1e-6, atol=1e-6)
