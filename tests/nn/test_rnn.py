"""nn.RNN / LSTM / GRU, their cells and nn.utils.rnn against torch: seeded init bit for bit, outputs, final states
and every parameter gradient per configuration (layers, bidirectional, batch_first, packed, proj_size,
unbatched), and torch's error texts."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch
from tests.nn.nn_oracle import copy_state, pair, randn, to_np

TOL = {"rtol": 1e-4, "atol": 1e-5}


def _both(name, *args, **kwargs):
    return getattr(glasstorch.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)


def _flat(out):
    if hasattr(out, "batch_sizes"):
        return [out.data]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _close(g, t, what):
    assert tuple(g.shape) == tuple(t.shape), what
    assert repr(g.dtype) == repr(t.dtype), what
    np.testing.assert_allclose(to_np(g), to_np(t), err_msg=what, **TOL)


def _compare(gm, tm, g_args, t_args, g_leaves=(), t_leaves=()):
    """Forward both, compare every output, backprop a weighted sum and compare input and parameter gradients."""
    go, to = gm(*g_args), tm(*t_args)
    gs, ts = _flat(go), _flat(to)
    assert len(gs) == len(ts)
    for k, (g, t) in enumerate(zip(gs, ts, strict=True)):
        _close(g, t, f"output {k}")
    weights = [randn(*t.shape) for t in ts]
    sum(t.mul(torch.from_numpy(w)).sum() for t, w in zip(ts, weights, strict=True)).backward()
    sum(g.mul(glasstorch.from_numpy(w)).sum() for g, w in zip(gs, weights, strict=True)).backward()
    for (name, gp), (_, tp) in zip(gm.named_parameters(), tm.named_parameters(), strict=True):
        _close(gp.grad, tp.grad, f"grad {name}")
    for k, (gl, tl) in enumerate(zip(g_leaves, t_leaves, strict=True)):
        _close(gl.grad, tl.grad, f"grad of input {k}")
    return go, to


CONFIGS = [
    {},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False, "num_layers": 2},
]


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_layer_matches_torch(name, cfg):
    gm, tm = _both(name, 3, 5, **cfg)
    copy_state(gm, tm)
    shape = (2, 4, 3) if cfg.get("batch_first") else (4, 2, 3)
    gx, tx = pair(randn(*shape))
    go, to = _compare(gm, tm, (gx,), (tx,), (gx,), (tx,))
    assert tuple(go[0].stride()) == tuple(to[0].stride())


@pytest.mark.parametrize("cfg", [{}, {"num_layers": 2, "bidirectional": True}, {"bias": False}], ids=str)
def test_lstm_proj_size(cfg):
    gm, tm = _both("LSTM", 3, 6, proj_size=2, **cfg)
    copy_state(gm, tm)
    gx, tx = pair(randn(4, 2, 3))
    _compare(gm, tm, (gx,), (tx,), (gx,), (tx,))


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_given_initial_state(name):
    gm, tm = _both(name, 3, 4, num_layers=2, nonlinearity="relu") if name == "RNN" else _both(name, 3, 4, 2)
    copy_state(gm, tm)
    gx, tx = pair(randn(5, 2, 3))
    gh, th = pair(randn(2, 2, 4))
    if name == "LSTM":
        gc, tc = pair(randn(2, 2, 4))
        _compare(gm, tm, (gx, (gh, gc)), (tx, (th, tc)), (gx, gh, gc), (tx, th, tc))
    else:
        _compare(gm, tm, (gx, gh), (tx, th), (gx, gh), (tx, th))


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched(name):
    gm, tm = _both(name, 3, 4, bidirectional=True)
    copy_state(gm, tm)
    gx, tx = pair(randn(5, 3))
    go, to = _compare(gm, tm, (gx,), (tx,), (gx,), (tx,))
    assert tuple(go[0].shape) == (5, 8)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_packed_sequence(name, enforce_sorted, bidirectional):
    gm, tm = _both(name, 3, 4, num_layers=2, bidirectional=bidirectional)
    copy_state(gm, tm)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    gx, tx = pair(randn(5, 4, 3))
    gp = glasstorch.nn.utils.rnn.pack_padded_sequence(gx, lengths, enforce_sorted=enforce_sorted)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=enforce_sorted)
    go, to = _compare(gm, tm, (gp,), (tp,), (gx,), (tx,))
    assert type(go[0]).__name__ == "PackedSequence"
    assert go[0].batch_sizes.tolist() == to[0].batch_sizes.tolist()
    gpad, glen = glasstorch.nn.utils.rnn.pad_packed_sequence(go[0], batch_first=True, total_length=6)
    tpad, tlen = torch.nn.utils.rnn.pad_packed_sequence(to[0], batch_first=True, total_length=6)
    _close(gpad, tpad, "padded output")
    assert glen.tolist() == tlen.tolist()


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_seeded_init_and_names(name):
    kw = {"proj_size": 2} if name == "LSTM" else {}
    glasstorch.manual_seed(3)
    gm = getattr(glasstorch.nn, name)(3, 4, num_layers=2, bidirectional=True, **kw)
    torch.manual_seed(3)
    tm = getattr(torch.nn, name)(3, 4, num_layers=2, bidirectional=True, **kw)
    assert list(gm.state_dict()) == list(tm.state_dict())
    assert gm._flat_weights_names == tm._flat_weights_names
    for g, t in zip(gm._flat_weights, tm._flat_weights, strict=True):
        assert np.array_equal(to_np(g), to_np(t))
    assert [[tuple(p.shape) for p in w] for w in gm.all_weights] == [[tuple(p.shape) for p in w] for w in
                                                                     tm.all_weights]
    assert repr(gm) == repr(tm)
    gm.flatten_parameters()


def test_flat_weights_follow_assignment():
    m = glasstorch.nn.LSTM(3, 4)
    m.weight_ih_l0 = glasstorch.nn.Parameter(glasstorch.zeros(16, 3))
    assert m._flat_weights[0] is m.weight_ih_l0
    m.double()
    assert m._flat_weights[1] is m.weight_hh_l0 and m._flat_weights[1].dtype is glasstorch.float64


@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "dropout": 0.3, "bidirectional": True, "bias": False},
                                {"proj_size": 2, "batch_first": True}], ids=str)
def test_repr(kw):
    assert repr(glasstorch.nn.LSTM(3, 4, **kw)) == repr(torch.nn.LSTM(3, 4, **kw))


@pytest.mark.parametrize("name,extra", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("LSTMCell", {}),
                                        ("GRUCell", {}), ("GRUCell", {"bias": False})])
@pytest.mark.parametrize("batched", [True, False])
def test_cells(name, extra, batched):
    glasstorch.manual_seed(1)
    gm = getattr(glasstorch.nn, name)(3, 4, **extra)
    torch.manual_seed(1)
    tm = getattr(torch.nn, name)(3, 4, **extra)
    for (_, g), (_, t) in zip(gm.named_parameters(), tm.named_parameters(), strict=True):
        assert np.array_equal(to_np(g), to_np(t))
    assert repr(gm) == repr(tm)
    shape = (2,) if batched else ()
    gx, tx = pair(randn(*shape, 3))
    gh, th = pair(randn(*shape, 4))
    if name == "LSTMCell":
        gc, tc = pair(randn(*shape, 4))
        _compare(gm, tm, (gx, (gh, gc)), (tx, (th, tc)), (gx, gh, gc), (tx, th, tc))
    else:
        _compare(gm, tm, (gx, gh), (tx, th), (gx, gh), (tx, th))
    gx2, tx2 = pair(randn(*shape, 3))
    for g, t in zip(_flat(gm(gx2)), _flat(tm(tx2)), strict=True):
        _close(g, t, "default state")


def test_dropout_between_layers_train_only():
    m = glasstorch.nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = glasstorch.randn(6, 2, 3)
    m.eval()
    assert glasstorch.equal(m(x)[0], m(x)[0])
    m.train()
    glasstorch.manual_seed(0)
    a = m(x)[0]
    glasstorch.manual_seed(1)
    assert not glasstorch.equal(a, m(x)[0])


def _raises(fn_g, fn_t):
    with pytest.raises(Exception) as te:
        fn_t()
    with pytest.raises(type(te.value)) as ge:
        fn_g()
    assert str(ge.value) == str(te.value)


@pytest.mark.parametrize("case", ["input_size", "hidden", "dims", "hx_dims", "cell_dims", "lstm_hidden",
                                  "dtype", "cell_input_size", "cell_batch"])
def test_errors(case):
    def run(lib):
        x = lib.randn
        if case == "input_size":
            return lambda: lib.nn.LSTM(10, 20)(x(5, 3, 7))
        if case == "hidden":
            return lambda: lib.nn.GRU(10, 20, 2)(x(5, 3, 10), x(1, 3, 20))
        if case == "dims":
            return lambda: lib.nn.RNN(10, 20)(x(5, 3, 10, 1))
        if case == "hx_dims":
            return lambda: lib.nn.LSTM(10, 20)(x(5, 3, 10), (x(3, 20), x(3, 20)))
        if case == "cell_dims":
            return lambda: lib.nn.GRUCell(10, 20)(x(5, 3, 10))
        if case == "lstm_hidden":
            return lambda: lib.nn.LSTM(10, 20, proj_size=5)(x(5, 3, 10), (x(1, 3, 20), x(1, 3, 20)))
        if case == "dtype":
            return lambda: lib.nn.RNN(10, 20)(x(5, 3, 10, dtype=lib.float64))
        if case == "cell_input_size":
            return lambda: lib.nn.LSTMCell(10, 20)(x(3, 7))
        return lambda: lib.nn.RNNCell(10, 20)(x(3, 10), x(4, 20))
    _raises(run(glasstorch), run(torch))


@pytest.mark.parametrize("kw", [{"dropout": 2.0}, {"proj_size": 9}, {"num_layers": 0}, {"bias": 1},
                                {"hidden_size": 0}])
def test_constructor_errors(kw):
    args = {"input_size": 3, "hidden_size": 4, **kw}
    _raises(lambda: glasstorch.nn.LSTM(**args), lambda: torch.nn.LSTM(**args))


# -- nn.utils.rnn ------------------------------------------------------------------------------------------------
def _utils(lib):
    return lib.nn.utils.rnn


@pytest.mark.parametrize("lengths,enforce", [([3, 1, 2, 2], False), ([3, 3, 2, 1], True)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_pad_round_trip(lengths, enforce, batch_first):
    arr = randn(*((4, 3, 2) if batch_first else (3, 4, 2)))
    (gx, tx) = pair(arr)
    gp = _utils(glasstorch).pack_padded_sequence(gx, lengths, batch_first=batch_first, enforce_sorted=enforce)
    tp = _utils(torch).pack_padded_sequence(tx, lengths, batch_first=batch_first, enforce_sorted=enforce)
    _close(gp.data, tp.data, "packed data")
    for field in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        g, t = getattr(gp, field), getattr(tp, field)
        assert (g is None and t is None) or g.tolist() == t.tolist(), field
    assert repr(gp.batch_sizes.dtype) == repr(tp.batch_sizes.dtype)
    gpad, glen = _utils(glasstorch).pad_packed_sequence(gp, batch_first, -1.0, 5)
    tpad, tlen = _utils(torch).pad_packed_sequence(tp, batch_first, -1.0, 5)
    _close(gpad, tpad, "padded")
    assert glen.tolist() == tlen.tolist()
    w = randn(*tpad.shape)
    (tpad * torch.from_numpy(w)).sum().backward()
    (gpad * glasstorch.from_numpy(w)).sum().backward()
    _close(gx.grad, tx.grad, "grad through pack/pad")


def test_packed_sequence_methods():
    gp = _utils(glasstorch).pack_sequence([glasstorch.ones(2, 1), glasstorch.ones(3, 1)], enforce_sorted=False)
    tp = _utils(torch).pack_sequence([torch.ones(2, 1), torch.ones(3, 1)], enforce_sorted=False)
    assert gp.sorted_indices.tolist() == tp.sorted_indices.tolist()
    assert repr(gp.double().data.dtype) == repr(tp.double().data.dtype)
    assert gp.to(glasstorch.float32) is gp
    assert gp.is_cuda is False and gp._fields == tp._fields
    for g, t in zip(_utils(glasstorch).unpack_sequence(gp), _utils(torch).unpack_sequence(tp), strict=True):
        _close(g, t, "unpacked")


@pytest.mark.parametrize("kw", [{}, {"batch_first": True, "padding_value": 2.0}, {"padding_side": "left"}])
def test_pad_and_unpad_sequence(kw):
    arrs = [randn(2, 3), randn(4, 3), randn(1, 3)]
    g = _utils(glasstorch).pad_sequence([glasstorch.from_numpy(a) for a in arrs], **kw)
    t = _utils(torch).pad_sequence([torch.from_numpy(a) for a in arrs], **kw)
    _close(g, t, "pad_sequence")
    if kw.get("padding_side") != "left":
        lengths = [2, 4, 1]
        bf = kw.get("batch_first", False)
        for a, b in zip(_utils(glasstorch).unpad_sequence(g, glasstorch.tensor(lengths), bf),
                        _utils(torch).unpad_sequence(t, torch.tensor(lengths), bf), strict=True):
            _close(a, b, "unpad_sequence")


@pytest.mark.parametrize("case", ["unsorted", "nonpositive", "count", "total_length", "padding_side"])
def test_utils_errors(case):
    def run(lib):
        u = _utils(lib)
        if case == "unsorted":
            return lambda: u.pack_padded_sequence(lib.zeros(3, 3, 2), [2, 3, 1])
        if case == "nonpositive":
            return lambda: u.pack_padded_sequence(lib.zeros(3, 3, 2), [3, 0, 1], enforce_sorted=False)
        if case == "count":
            return lambda: u.pack_padded_sequence(lib.zeros(3, 4, 2), [3, 2, 1])
        if case == "total_length":
            return lambda: u.pad_packed_sequence(u.pack_sequence([lib.ones(3), lib.ones(1)]), total_length=2)
        return lambda: u.pad_sequence([lib.ones(2)], padding_side="middle")
    _raises(run(glasstorch), run(torch))


@pytest.mark.parametrize("with_bias", [False, True])
def test_fused_lstm_cell_matches_torch_pointwise(with_bias):
    """``_thnn_fused_lstm_cell`` (CUDA-only in torch, the CPU LSTM step here) against torch's pointwise LSTM maths,
    outputs and gradients of every input, and a float64 gradcheck."""
    arrs = [randn(3, 8, dtype=np.float64), randn(3, 8, dtype=np.float64), randn(3, 2, dtype=np.float64)]
    if with_bias:
        arrs += [randn(8, dtype=np.float64), randn(8, dtype=np.float64)]
    pairs = [pair(a) for a in arrs]
    g_in, t_in = [p[0] for p in pairs], [p[1] for p in pairs]
    gh, gc, _ = glasstorch._thnn_fused_lstm_cell(*g_in)
    gates = sum(t_in[:2]) + (t_in[3] + t_in[4] if with_bias else 0)
    i, f, g, o = gates.chunk(4, 1)
    tc = f.sigmoid() * t_in[2] + i.sigmoid() * g.tanh()
    th = o.sigmoid() * tc.tanh()
    _close(gh, th, "hy")
    _close(gc, tc, "cy")
    w1, w2 = randn(3, 2, dtype=np.float64), randn(3, 2, dtype=np.float64)
    (th * torch.from_numpy(w1) + tc * torch.from_numpy(w2)).sum().backward()
    (gh * glasstorch.from_numpy(w1) + gc * glasstorch.from_numpy(w2)).sum().backward()
    for k, (a, b) in enumerate(zip(g_in, t_in, strict=True)):
        _close(a.grad, b.grad, f"grad {k}")
    assert glasstorch.autograd.gradcheck(lambda *xs: glasstorch._thnn_fused_lstm_cell(*xs)[:2],
                                         [x.detach().requires_grad_() for x in g_in])


def test_lstm_double_backward():
    """create_graph through the LSTM loop (the fused cell's differentiable backward) gives torch's second-order
    gradients."""
    gm, tm = _both("LSTM", 3, 5, 2)
    gm.double()
    tm.double()
    copy_state(gm, tm)
    gx, tx = pair(randn(4, 2, 3, dtype=np.float64))
    grads = []
    for lib, m, x in ((glasstorch, gm, gx), (torch, tm, tx)):
        out, (h, c) = m(x)
        (gin,) = lib.autograd.grad((out.sum() + c.pow(2).sum()), x, create_graph=True)
        gin.pow(2).sum().backward()
        grads.append((gin, m.weight_hh_l0.grad, x.grad))
    for k, (g, t) in enumerate(zip(*grads, strict=True)):
        _close(g, t, f"second-order {k}")
