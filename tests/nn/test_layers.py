"""Every layer against torch.nn with copied weights: forward, input and parameter gradients, buffers,
state_dict keys/shapes and the repr text (see ``nn_oracle.check_layer``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from nn_oracle import check_layer, pair, randn, to_np
from oracle import assert_same_error

import glasstorch

X2 = randn(4, 6)
X3 = randn(2, 5, 6)
IMG = randn(2, 3, 7, 6)
SEQ = randn(2, 4, 9)

# (id, builder, numpy inputs, options)
LAYERS = [
    ("Linear", lambda m: m.nn.Linear(6, 3), [X3], {}),
    ("Linear-nobias", lambda m: m.nn.Linear(6, 3, bias=False), [X2], {}),
    ("Linear-double", lambda m: m.nn.Linear(6, 3, dtype=m.float64), [X2.astype(np.float64)], {}),
    ("Bilinear", lambda m: m.nn.Bilinear(6, 4, 3), [X2, randn(4, 4)], {}),
    ("Identity", lambda m: m.nn.Identity(3, foo=1), [X2], {}),
    ("LayerNorm", lambda m: m.nn.LayerNorm(6), [X3], {}),
    ("LayerNorm-2d-nobias", lambda m: m.nn.LayerNorm([5, 6], eps=1e-3, bias=False), [X3], {}),
    ("LayerNorm-noaffine", lambda m: m.nn.LayerNorm(6, elementwise_affine=False), [X3], {}),
    ("RMSNorm", lambda m: m.nn.RMSNorm(6), [X3], {}),
    ("RMSNorm-eps", lambda m: m.nn.RMSNorm([5, 6], eps=1e-4), [X3], {}),
    ("GroupNorm", lambda m: m.nn.GroupNorm(2, 4), [randn(3, 4, 5)], {}),
    ("GroupNorm-noaffine", lambda m: m.nn.GroupNorm(1, 4, affine=False), [randn(3, 4, 2, 2)], {}),
    ("BatchNorm1d", lambda m: m.nn.BatchNorm1d(6), [X2], {}),
    ("BatchNorm1d-3d", lambda m: m.nn.BatchNorm1d(5), [X3], {}),
    ("BatchNorm1d-eval", lambda m: m.nn.BatchNorm1d(6), [X2], {"train": False}),
    ("BatchNorm1d-cumulative", lambda m: m.nn.BatchNorm1d(6, momentum=None), [X2], {}),
    ("BatchNorm1d-nostats", lambda m: m.nn.BatchNorm1d(6, track_running_stats=False), [X2], {}),
    ("BatchNorm1d-nostats-eval", lambda m: m.nn.BatchNorm1d(6, track_running_stats=False), [X2], {"train": False}),
    ("BatchNorm2d", lambda m: m.nn.BatchNorm2d(3, affine=False), [IMG], {}),
    ("SyncBatchNorm", lambda m: m.nn.SyncBatchNorm(3), [IMG], {}),
    ("SyncBatchNorm-eval-3d", lambda m: m.nn.SyncBatchNorm(5, momentum=None), [X3], {"train": False}),
    ("Dropout-eval", lambda m: m.nn.Dropout(0.3), [X2], {"train": False}),
    ("Dropout-p0", lambda m: m.nn.Dropout(0.0), [X2], {}),
    ("ReLU", lambda m: m.nn.ReLU(), [X2], {}),
    ("GELU", lambda m: m.nn.GELU(), [X2], {}),
    ("GELU-tanh", lambda m: m.nn.GELU(approximate="tanh"), [X2], {}),
    ("SiLU", lambda m: m.nn.SiLU(), [X2], {}),
    ("Tanh", lambda m: m.nn.Tanh(), [X2], {}),
    ("Sigmoid", lambda m: m.nn.Sigmoid(), [X2], {}),
    ("Softmax", lambda m: m.nn.Softmax(dim=1), [X3], {}),
    ("LogSoftmax", lambda m: m.nn.LogSoftmax(dim=-1), [X3], {}),
    ("Softmin", lambda m: m.nn.Softmin(dim=0), [X2], {}),
    ("LeakyReLU", lambda m: m.nn.LeakyReLU(0.2), [X2], {}),
    ("ELU", lambda m: m.nn.ELU(alpha=0.5), [X2], {}),
    ("Hardtanh", lambda m: m.nn.Hardtanh(-0.5, 0.5), [X2], {}),
    ("ReLU6", lambda m: m.nn.ReLU6(), [X2 * 4], {}),
    ("Softplus", lambda m: m.nn.Softplus(beta=2.0), [X2], {}),
    ("Mish", lambda m: m.nn.Mish(), [X2], {}),
    ("Hardswish", lambda m: m.nn.Hardswish(), [X2 * 3], {}),
    ("GLU", lambda m: m.nn.GLU(), [X2], {}),
    ("Softsign", lambda m: m.nn.Softsign(), [X2], {}),
    ("Tanhshrink", lambda m: m.nn.Tanhshrink(), [X2], {}),
    ("Hardshrink", lambda m: m.nn.Hardshrink(0.3), [X2], {}),
    ("Softshrink", lambda m: m.nn.Softshrink(0.3), [X2], {}),
    ("PReLU", lambda m: m.nn.PReLU(), [X2], {}),
    ("PReLU-channels", lambda m: m.nn.PReLU(3, init=0.1), [IMG], {}),
    ("Flatten", lambda m: m.nn.Flatten(), [IMG], {}),
    ("Flatten-range", lambda m: m.nn.Flatten(0, 2), [IMG], {}),
    ("Unflatten", lambda m: m.nn.Unflatten(1, (2, 3)), [X2], {}),
    ("Conv1d", lambda m: m.nn.Conv1d(4, 6, 3, stride=2, padding=1), [SEQ], {}),
    ("Conv1d-same-groups", lambda m: m.nn.Conv1d(4, 6, 4, padding="same", groups=2, bias=False), [SEQ], {}),
    ("Conv1d-circular", lambda m: m.nn.Conv1d(4, 2, 3, padding=2, padding_mode="circular"), [SEQ], {}),
    ("Conv2d-circular", lambda m: m.nn.Conv2d(3, 2, 3, padding=(1, 2), padding_mode="circular"), [IMG], {}),
    ("Conv2d", lambda m: m.nn.Conv2d(3, 4, 3), [IMG], {}),
    ("Conv2d-stride-dilation", lambda m: m.nn.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 2), dilation=2),
     [IMG], {}),
    ("Conv2d-same", lambda m: m.nn.Conv2d(3, 2, (4, 3), padding="same"), [IMG], {}),
    ("Conv2d-valid", lambda m: m.nn.Conv2d(3, 2, 2, padding="valid"), [IMG], {}),
    ("Conv2d-reflect", lambda m: m.nn.Conv2d(3, 2, 3, padding=1, padding_mode="reflect"), [IMG], {}),
    ("Conv2d-replicate-same", lambda m: m.nn.Conv2d(3, 2, 4, padding="same", padding_mode="replicate"), [IMG], {}),
    ("MaxPool2d", lambda m: m.nn.MaxPool2d(2), [IMG], {}),
    ("MaxPool2d-opts", lambda m: m.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), [IMG], {}),
    ("MaxPool2d-indices", lambda m: m.nn.MaxPool2d(2, return_indices=True), [IMG], {}),
    ("AvgPool2d", lambda m: m.nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), [IMG], {}),
    ("AdaptiveAvgPool2d", lambda m: m.nn.AdaptiveAvgPool2d((3, None)), [IMG], {}),
    ("Embedding", lambda m: m.nn.Embedding(10, 4), [np.array([[1, 2, 2], [9, 0, 1]])], {}),
    ("Embedding-padding", lambda m: m.nn.Embedding(10, 4, padding_idx=-1), [np.array([[1, 9, 9], [3, 0, 9]])], {}),
    ("Embedding-maxnorm", lambda m: m.nn.Embedding(10, 4, max_norm=1.0, norm_type=1.5),
     [np.array([1, 2, 2, 7])], {}),
    ("Sequential", lambda m: m.nn.Sequential(m.nn.Linear(6, 8), m.nn.GELU(), m.nn.LayerNorm(8), m.nn.Linear(8, 2)),
     [X3], {}),
    ("ModuleDict-holder", lambda m: _Holder(m), [X2], {}),
    ("MSELoss", lambda m: m.nn.MSELoss(), [X2, randn(4, 6)], {}),
    ("L1Loss-sum", lambda m: m.nn.L1Loss(reduction="sum"), [X2, randn(4, 6)], {}),
    ("CrossEntropyLoss", lambda m: m.nn.CrossEntropyLoss(), [X2, np.array([0, 5, 2, 1])], {}),
    ("CrossEntropyLoss-smooth-ignore", lambda m: m.nn.CrossEntropyLoss(label_smoothing=0.2, ignore_index=2),
     [X2, np.array([0, 5, 2, 1])], {}),
    ("CrossEntropyLoss-weight", lambda m: m.nn.CrossEntropyLoss(weight=m.arange(1.0, 7.0), reduction="none"),
     [X2, np.array([0, 5, 2, 1])], {}),
    ("CrossEntropyLoss-probs", lambda m: m.nn.CrossEntropyLoss(label_smoothing=0.1),
     [X2, np.abs(randn(4, 6))], {}),
    ("CrossEntropyLoss-4d", lambda m: m.nn.CrossEntropyLoss(), [IMG, np.array(np.arange(84) % 3).reshape(2, 7, 6)],
     {}),
    ("NLLLoss", lambda m: m.nn.NLLLoss(weight=m.tensor([1.0, 2.0, 0.5, 1.0, 1.0, 3.0])),
     [X2, np.array([0, 5, 2, 1])], {}),
    ("BCELoss", lambda m: m.nn.BCELoss(), [1 / (1 + np.exp(-X2)), (randn(4, 6) > 0).astype(np.float32)], {}),
    ("BCEWithLogitsLoss", lambda m: m.nn.BCEWithLogitsLoss(pos_weight=m.linspace(0.5, 2.0, 6)),
     [X2, (randn(4, 6) > 0).astype(np.float32)], {}),
    ("BCEWithLogitsLoss-weight", lambda m: m.nn.BCEWithLogitsLoss(weight=m.linspace(0.5, 2.0, 6), reduction="sum"),
     [X2, (randn(4, 6) > 0).astype(np.float32)], {}),
    ("SmoothL1Loss", lambda m: m.nn.SmoothL1Loss(beta=0.5), [X2, randn(4, 6)], {}),
    ("HuberLoss", lambda m: m.nn.HuberLoss(delta=0.5), [X2, randn(4, 6)], {}),
]


class _Holder:
    """A module class defined identically in both libraries (ModuleDict / ParameterList inside)."""

    def __new__(cls, m):
        class Holder(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = m.nn.ModuleDict({"a": m.nn.Linear(6, 6), "b": m.nn.Tanh()})
                self.scales = m.nn.ParameterList([m.nn.Parameter(m.ones(6)), m.ones(6) * 2])
                self.table = m.nn.ParameterDict({"z": m.nn.Parameter(m.zeros(6)), "y": m.ones(6)})
                self.register_buffer("offset", m.full((6,), 0.5))

            def forward(self, x):
                x = self.blocks["b"](self.blocks["a"](x)) * self.scales[0] + self.scales[1] + self.offset
                return x + self.table["z"] * self.table["y"]

        return Holder()


@pytest.mark.parametrize("name,make,inputs,opts", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer(name, make, inputs, opts):
    check_layer(make, inputs, **opts)


def test_batchnorm_running_stats_over_steps():
    """Several training steps then eval: running_mean/var and num_batches_tracked follow torch's."""
    for momentum in (0.1, None):
        th, gt = torch.nn.BatchNorm2d(3, momentum=momentum), glasstorch.nn.BatchNorm2d(3, momentum=momentum)
        for _ in range(3):
            x = randn(4, 3, 2, 2) * 3 + 1
            th(torch.from_numpy(x))
            gt(glasstorch.from_numpy(x))
        assert int(gt.num_batches_tracked) == 3
        for name in ("running_mean", "running_var"):
            np.testing.assert_allclose(to_np(getattr(gt, name)), to_np(getattr(th, name)), rtol=1e-5, atol=1e-6)
        th.eval()
        gt.eval()
        x = randn(2, 3, 2, 2)
        np.testing.assert_allclose(to_np(gt(glasstorch.from_numpy(x))), to_np(th(torch.from_numpy(x))), rtol=1e-5,
                                   atol=1e-5)


def test_dropout_training_statistics():
    m = glasstorch.nn.Dropout(0.25)
    y = m(glasstorch.ones(20000))
    kept = y != 0
    assert abs(float(kept.float().mean()) - 0.75) < 0.02
    np.testing.assert_allclose(to_np(y[kept]), 1 / 0.75, rtol=1e-6)
    assert bool((glasstorch.nn.Dropout(1.0)(glasstorch.ones(5)) == 0).all())


def test_embedding_padding_idx_and_from_pretrained():
    emb = glasstorch.nn.Embedding(5, 3, padding_idx=1)
    assert bool((emb.weight[1] == 0).all())
    out = emb(glasstorch.tensor([1, 2, 1]))
    out.sum().backward()
    assert bool((emb.weight.grad[1] == 0).all()) and bool((emb.weight.grad[2] == 1).all())
    w = glasstorch.randn(4, 2)
    frozen = glasstorch.nn.Embedding.from_pretrained(w)
    th_frozen = torch.nn.Embedding.from_pretrained(torch.randn(4, 2))
    assert frozen.weight.requires_grad is th_frozen.weight.requires_grad is False
    assert frozen.weight.data_ptr() == w.data_ptr()
    assert repr(frozen) == repr(th_frozen)
    assert glasstorch.nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    assert_same_error(lambda: glasstorch.nn.Embedding.from_pretrained(glasstorch.ones(3)),
                      lambda: torch.nn.Embedding.from_pretrained(torch.ones(3)))


MHA_CASES = [
    ("self", dict(), {}, True),
    ("batch_first", dict(batch_first=True), {}, True),
    ("no-weights", dict(batch_first=True), {"need_weights": False}, True),
    ("per-head-weights", dict(), {"average_attn_weights": False}, True),
    ("bias_kv-zero_attn", dict(add_bias_kv=True, add_zero_attn=True), {}, True),
    ("kdim-vdim", dict(kdim=3, vdim=5), {}, False),
    ("no-bias", dict(bias=False), {"need_weights": False}, True),
]


def _mha_inputs(batch_first, same, kdim=None, vdim=None):
    L, S, N, E = 4, 5, 2, 8
    q = randn(N, L, E) if batch_first else randn(L, N, E)
    if same:
        return [q]
    k = randn(N, S, kdim or E) if batch_first else randn(S, N, kdim or E)
    v = randn(N, S, vdim or E) if batch_first else randn(S, N, vdim or E)
    return [q, k, v]


@pytest.mark.parametrize("name,ctor,call,same", MHA_CASES, ids=[c[0] for c in MHA_CASES])
def test_multihead_attention(name, ctor, call, same):
    arrays = _mha_inputs(ctor.get("batch_first", False), same, ctor.get("kdim"), ctor.get("vdim"))

    class SelfAttn:
        def __new__(cls, m):
            class Wrap(m.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.mha = m.nn.MultiheadAttention(8, 2, **ctor)

                def forward(self, *xs):
                    q, k, v = (xs[0],) * 3 if len(xs) == 1 else xs
                    return self.mha(q, k, v, **call)

            return Wrap()

    check_layer(SelfAttn, arrays, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_masks(need_weights):
    L, N, E = 4, 3, 8
    q = randn(L, N, E)
    kpm = np.array([[False] * 4, [False, False, True, True], [False, True, False, True]])
    bool_mask = np.triu(np.ones((L, L), dtype=bool), 1)
    float_mask = randn(2 * N, L, L)
    for attn_mask in (bool_mask, float_mask, None):
        def kwargs(m, attn_mask=attn_mask):
            am = None if attn_mask is None else m.from_numpy(attn_mask.copy())
            return {"key_padding_mask": m.from_numpy(kpm.copy()), "attn_mask": am, "need_weights": need_weights}

        check_layer(lambda m: _MHA(m), [q], kwargs=kwargs, rtol=1e-4, atol=1e-5)


def _MHA(m):
    class Wrap(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = m.nn.MultiheadAttention(8, 2)

        def forward(self, x, **kw):
            return self.mha(x, x, x, **kw)

    return Wrap()


def test_multihead_attention_unbatched_and_causal():
    x = randn(5, 8)
    check_layer(lambda m: _MHA(m), [x], rtol=1e-4, atol=1e-5)
    causal = np.triu(np.full((5, 5), -np.inf, dtype=np.float32), 1)
    check_layer(lambda m: _MHA(m), [randn(5, 2, 8)], rtol=1e-4, atol=1e-5,
                kwargs=lambda m: {"attn_mask": m.from_numpy(causal.copy()), "is_causal": True,
                                  "need_weights": False})


def test_multihead_attention_errors():
    assert_same_error(lambda: glasstorch.nn.MultiheadAttention(6, 4), lambda: torch.nn.MultiheadAttention(6, 4))
    assert_same_error(lambda: glasstorch.nn.MultiheadAttention(0, 4), lambda: torch.nn.MultiheadAttention(0, 4))
    gm, tm = glasstorch.nn.MultiheadAttention(4, 2), torch.nn.MultiheadAttention(4, 2)
    g, t = pair(randn(3, 2, 4))
    assert_same_error(lambda: gm(g, g, g, attn_mask=glasstorch.zeros(2, 2)),
                      lambda: tm(t, t, t, attn_mask=torch.zeros(2, 2)))
    assert_same_error(lambda: gm(g, g, g, is_causal=True), lambda: tm(t, t, t, is_causal=True))
    assert_same_error(lambda: gm(g, g, g, key_padding_mask=glasstorch.zeros(2, 3, dtype=glasstorch.int64)),
                      lambda: tm(t, t, t, key_padding_mask=torch.zeros(2, 3, dtype=torch.int64)))


TRANSFORMER_CASES = [
    ("post-norm", dict(), {}),
    ("pre-norm-gelu", dict(norm_first=True, activation="gelu"), {}),
    ("batch-first-module-act", dict(batch_first=True, activation=None), {}),
    ("no-bias", dict(bias=False, layer_norm_eps=1e-3), {}),
]


@pytest.mark.parametrize("name,opts,call", TRANSFORMER_CASES, ids=[c[0] for c in TRANSFORMER_CASES])
def test_transformer_encoder_layer(name, opts, call):
    def make(m):
        o = dict(opts)
        if "activation" in o and o["activation"] is None:
            o["activation"] = m.nn.SiLU()
        return m.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **o)

    shape = (2, 5, 8)
    check_layer(make, [randn(*shape)], rtol=1e-4, atol=1e-5)


def test_transformer_encoder_masks_and_final_norm():
    mask = np.triu(np.full((5, 5), -np.inf, dtype=np.float32), 1)
    kpm = np.array([[False] * 5, [False, False, False, True, True]])

    def make(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = m.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
            return m.nn.TransformerEncoder(layer, num_layers=2, norm=m.nn.LayerNorm(8))

    kwargs = lambda m: {"mask": m.from_numpy(mask.copy()), "src_key_padding_mask": m.from_numpy(kpm.T.copy().T)}
    check_layer(make, [randn(5, 2, 8)], rtol=1e-4, atol=1e-5, kwargs=kwargs)


def test_transformer_encoder_nested_tensor_eval_zeros_padding():
    """Eval + batch_first + a left-aligned padding mask: PyTorch's nested path returns zeros at the padding."""
    kpm = np.array([[False] * 5, [False, False, False, True, True]])

    def make(m):
        layer = m.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
        return m.nn.TransformerEncoder(layer, num_layers=2)

    with torch.no_grad(), glasstorch.no_grad():
        check_layer(make, [randn(2, 5, 8)], train=False, backward=False, rtol=1e-4, atol=1e-5,
                    kwargs=lambda m: {"src_key_padding_mask": m.from_numpy(kpm.copy())})


def test_transformer_encoder_warning_text():
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2), 1)
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        glasstorch.nn.TransformerEncoder(glasstorch.nn.TransformerEncoderLayer(8, 2), 1)
    assert [str(w.message) for w in wg] == [str(w.message) for w in wt]
    assert_same_error(lambda: glasstorch.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
                      lambda: torch.nn.TransformerEncoderLayer(8, 2, activation="tanh"))


REPRS = [
    lambda m: m.nn.Conv2d(3, 4, (3, 2), stride=2, padding=1, bias=False, padding_mode="reflect", dilation=2),
    lambda m: m.nn.Conv1d(4, 4, 3, padding="same", groups=2),
    lambda m: m.nn.MaxPool2d(2),
    lambda m: m.nn.AvgPool2d(3, 2),
    lambda m: m.nn.AdaptiveAvgPool2d((None, 3)),
    lambda m: m.nn.Embedding(10, 3, padding_idx=0, max_norm=1.0, norm_type=3, scale_grad_by_freq=True),
    lambda m: m.nn.Flatten(0, 2),
    lambda m: m.nn.Unflatten(1, (2, 3)),
    lambda m: m.nn.CrossEntropyLoss(),
    lambda m: m.nn.BatchNorm1d(4, momentum=None, affine=False),
    lambda m: m.nn.LeakyReLU(0.1, inplace=True),
    lambda m: m.nn.ReLU(inplace=True),
    lambda m: m.nn.Threshold(0.1, 20),
    lambda m: m.nn.ModuleList([m.nn.Linear(2, 2), m.nn.Linear(2, 2), m.nn.ReLU(), m.nn.Linear(2, 2)]),
    lambda m: m.nn.ModuleList(),
    lambda m: m.nn.ParameterList([m.nn.Parameter(m.ones(2, 3)), m.ones(1, dtype=m.float64)]),
    lambda m: m.nn.ParameterDict({"b": m.nn.Parameter(m.ones(2)), "a": m.ones(3, 1)}),
    lambda m: m.nn.Sequential(m.nn.Sequential(m.nn.Linear(2, 2)), m.nn.Dropout()),
    lambda m: m.nn.MultiheadAttention(4, 2, kdim=3),
    lambda m: m.nn.TransformerEncoderLayer(4, 2, 8),
    lambda m: m.nn.Softmax2d(),
    lambda m: m.nn.Softmax(),
    lambda m: m.nn.Hardswish(inplace=True),
    lambda m: m.nn.Bilinear(2, 3, 4, bias=False),
    lambda m: m.nn.RMSNorm(3, eps=1e-6),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_repr(i):
    assert repr(REPRS[i](glasstorch)) == repr(REPRS[i](torch))


CTOR_ERRORS = [
    lambda m: m.nn.Conv2d(3, 4, 3, groups=2),
    lambda m: m.nn.Conv2d(4, 3, 3, groups=2),
    lambda m: m.nn.Conv2d(4, 4, 3, groups=0),
    lambda m: m.nn.Conv2d(4, 4, 3, padding="same", stride=2),
    lambda m: m.nn.GroupNorm(3, 4),
    lambda m: m.nn.Dropout(1.5),
    lambda m: m.nn.Embedding(4, 2, padding_idx=4),
    lambda m: m.nn.Embedding(4, 2, padding_idx=-5),
    lambda m: m.nn.Unflatten(1, (2, 2.0)),
    lambda m: m.nn.Unflatten(1, 4),
    lambda m: m.nn.Hardtanh(1.0, -1.0),
    lambda m: m.nn.HuberLoss(delta="1"),
    lambda m: m.nn.Bilinear(0, 0, 0),
    lambda m: m.nn.Bilinear(-1, 2, 3),
]


@pytest.mark.parametrize("i", range(len(CTOR_ERRORS)))
def test_constructor_errors(i):
    assert_same_error(lambda: CTOR_ERRORS[i](glasstorch), lambda: CTOR_ERRORS[i](torch))


def _set_order_free(msg: str) -> str:
    """The message with a printed set's elements sorted (set order depends on the .pyc that built it)."""
    start, end = msg.index("{"), msg.index("}")
    return msg[:start] + ",".join(sorted(msg[start + 1:end].split(", "))) + msg[end:]


@pytest.mark.parametrize("kw", [{"padding_mode": "zero"}, {"padding": "full"}])
def test_constructor_errors_with_sets(kw):
    with pytest.raises(ValueError) as eg:
        glasstorch.nn.Conv1d(4, 4, 3, **kw)
    with pytest.raises(ValueError) as et:
        torch.nn.Conv1d(4, 4, 3, **kw)
    assert _set_order_free(str(eg.value)) == _set_order_free(str(et.value))


def test_forward_errors():
    g, t = pair(randn(2, 3, 4, 4))
    assert_same_error(lambda: glasstorch.nn.BatchNorm1d(3)(g), lambda: torch.nn.BatchNorm1d(3)(t))
    assert_same_error(lambda: glasstorch.nn.BatchNorm2d(3)(g[0]), lambda: torch.nn.BatchNorm2d(3)(t[0]))
    assert_same_error(lambda: glasstorch.nn.Softmax2d()(g[0, 0, 0]), lambda: torch.nn.Softmax2d()(t[0, 0, 0]))
    assert_same_error(lambda: glasstorch.nn.BatchNorm1d(3)(glasstorch.ones(1, 3)),
                      lambda: torch.nn.BatchNorm1d(3)(torch.ones(1, 3)))


def test_default_init_bounds_and_shapes():
    """Init distributions are glasstorch's own stream; bounds and shapes must be PyTorch's."""
    glasstorch.manual_seed(0)
    lin = glasstorch.nn.Linear(50, 40)
    bound = 1 / np.sqrt(50)
    assert float(lin.weight.abs().max()) <= bound and float(lin.weight.abs().max()) > 0.9 * bound
    assert float(lin.bias.abs().max()) <= bound
    conv = glasstorch.nn.Conv2d(4, 6, 3)
    b = 1 / np.sqrt(4 * 9)
    assert float(conv.weight.abs().max()) <= b and float(conv.bias.abs().max()) <= b
    emb = glasstorch.nn.Embedding(200, 50)
    assert abs(float(emb.weight.std()) - 1) < 0.05
    mha = glasstorch.nn.MultiheadAttention(8, 2, add_bias_kv=True)
    assert float(mha.in_proj_bias.abs().sum()) == 0 and float(mha.out_proj.bias.abs().sum()) == 0
    assert float(mha.in_proj_weight.abs().max()) <= np.sqrt(6 / (8 + 24))
    bn = glasstorch.nn.BatchNorm1d(3)
    assert bn.num_batches_tracked.dtype == glasstorch.int64 and int(bn.num_batches_tracked) == 0
    assert bool((bn.running_var == 1).all()) and bool((bn.weight == 1).all()) and bool((bn.bias == 0).all())


def test_functional_extras():
    x1, t1 = pair(randn(4, 6))
    x2, t2 = pair(randn(4, 6))
    F, TF = glasstorch.nn.functional, torch.nn.functional
    for fn in (lambda f, a, b: f.cosine_similarity(a, b), lambda f, a, b: f.cosine_similarity(a, b[:1], dim=1),
               lambda f, a, b: f.normalize(a, p=1.5, dim=0), lambda f, a, b: f.pairwise_distance(a, b, p=3.0),
               lambda f, a, b: f.softmin(a, dim=1)):
        g, t = fn(F, x1, x2), fn(TF, t1, t2)
        np.testing.assert_allclose(to_np(g), to_np(t), rtol=1e-5, atol=1e-6)
        seed = randn(*t.shape)
        t.backward(torch.from_numpy(seed.copy()))
        g.backward(glasstorch.from_numpy(seed.copy()))
        np.testing.assert_allclose(to_np(x1.grad), to_np(t1.grad), rtol=1e-4, atol=1e-5)
        x1.grad = x2.grad = t1.grad = t2.grad = None
    z, tz = pair(np.zeros((2, 6), np.float32))
    np.testing.assert_allclose(to_np(F.cosine_similarity(z, x1[:2])), to_np(TF.cosine_similarity(tz, t1[:2])))


def test_sync_batchnorm_convert_and_errors():
    def build(m):
        inner = m.nn.Sequential(m.nn.BatchNorm2d(3))
        net = m.nn.Sequential(m.nn.Linear(6, 6), m.nn.BatchNorm1d(6, affine=False), inner)
        net[2][0].eval()
        out = m.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        return net, out
    (g_in, g_out), (_, t_out) = build(glasstorch), build(torch)
    assert repr(g_out) == repr(t_out)
    assert [type(c).__name__ for c in g_out.modules()] == [type(c).__name__ for c in t_out.modules()]
    assert g_out[1].running_mean is g_in[1].running_mean and g_out[2][0].training is False
    assert g_out[2][0].weight is g_in[2][0].weight
    lone = glasstorch.nn.SyncBatchNorm.convert_sync_batchnorm(glasstorch.nn.BatchNorm2d(2))
    assert type(lone) is glasstorch.nn.SyncBatchNorm
    for shape in [(3,), (2, 0, 4)]:
        assert_same_error(lambda m=glasstorch, s=shape: m.nn.SyncBatchNorm(3)(m.zeros(s)),
                          lambda m=torch, s=shape: m.nn.SyncBatchNorm(3)(m.zeros(s)))
