"""Recurrent-layer decompositions (CompositeImplicitAutograd) — PyTorch's ``aten/src/ATen/native/RNN.cpp``.

The cells compute one step from the gate matmuls and pointwise activations, with PyTorch's gate order (LSTM
``i, f, g, o``, on the CPU through the fused ``_thnn_fused_lstm_cell``; GRU ``r, z, n`` with
``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``). The multi-layer loops
(``lstm``, ``gru``, ``rnn_tanh``, ``rnn_relu``) take the input projection of every time step in one matmul, then
run a short loop of one ``addmm`` plus the activations per step.  A padded ``.input`` sequence is run as a packed
one whose batch sizes are all equal, so both overloads share one loop: the time-major input ``(T, B, I)`` is viewed
as ``(T * B, I)`` rows, step ``t`` owning ``batch_sizes[t]`` rows.

Invariant: nothing here touches tensor data; every computation is another operator call, so autograd is derived
from the pieces (as in PyTorch, where these operators have no derivative formula of their own).
"""

from __future__ import annotations

from ..aten import aten

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "lstm_input", "lstm_data", "gru_input",
           "gru_data", "rnn_tanh_input", "rnn_tanh_data", "rnn_relu_input", "rnn_relu_data"]

_GATES = {"lstm": 4, "gru": 3, "tanh": 1, "relu": 1}


# -- one step ----------------------------------------------------------------------------------------------------
def _input_gates(kind, x, w_ih, b_ih, b_hh):
    """``x @ w_ih.T + b_ih`` (and ``+ b_hh`` but for the GRU, whose ``b_hh`` sits inside ``r * (...)``)."""
    gates = aten.linear(x, w_ih, b_ih)
    if b_hh is not None and kind != "gru":
        gates = aten.add_Tensor(gates, b_hh, 1)
    return gates


def _step(kind, gi, h, c, w_hh_t, b_hh, w_hr_t):
    """One time step from the precomputed input gates ``gi``; returns ``(h, c)`` (``c`` is None but for LSTM)."""
    if kind == "gru":
        gh = aten.mm(h, w_hh_t) if b_hh is None else aten.addmm(b_hh, h, w_hh_t, 1, 1)
        H = h.sizes[1]
        rz = aten.sigmoid(aten.add_Tensor(aten.narrow(gi, 1, 0, 2 * H), aten.narrow(gh, 1, 0, 2 * H), 1))
        r, z = aten.narrow(rz, 1, 0, H), aten.narrow(rz, 1, H, H)
        hn = aten.mul_Tensor(r, aten.narrow(gh, 1, 2 * H, H))
        n = aten.tanh(aten.add_Tensor(aten.narrow(gi, 1, 2 * H, H), hn, 1))
        return aten.add_Tensor(n, aten.mul_Tensor(z, aten.sub_Tensor(h, n, 1)), 1), None
    if kind == "lstm" and gi.device.type == "cpu":
        h, c, _ = aten._thnn_fused_lstm_cell(gi, aten.mm(h, w_hh_t), c, None, None)
        return (h if w_hr_t is None else aten.mm(h, w_hr_t)), c
    gates = aten.addmm(gi, h, w_hh_t, 1, 1)
    if kind == "tanh":
        return aten.tanh(gates), None
    if kind == "relu":
        return aten.relu(gates), None
    i, f, g, o = aten.chunk(gates, 4, 1)
    c = aten.add_Tensor(aten.mul_Tensor(aten.sigmoid(f), c), aten.mul_Tensor(aten.sigmoid(i), aten.tanh(g)), 1)
    h = aten.mul_Tensor(aten.sigmoid(o), aten.tanh(c))
    return (h if w_hr_t is None else aten.mm(h, w_hr_t)), c


# -- cells -------------------------------------------------------------------------------------------------------
def _check_cell(input, hxs, w_ih, w_hh, gates):
    H = w_hh.sizes[1]
    if w_ih.sizes[0] != gates * H:
        raise RuntimeError(f"weight_ih first dim must be {gates} * hidden_size = {H}, but got {w_ih.sizes[0]}")
    if input.sizes[-1] != w_ih.sizes[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.sizes[-1]} expected {w_ih.sizes[1]}")
    for k, hx in enumerate(hxs):
        if input.sizes[0] != hx.sizes[0]:
            raise RuntimeError(f"Input batch size {input.sizes[0]} doesn't match hidden{k} batch size {hx.sizes[0]}")
        if hx.sizes[1] != H:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {hx.sizes[1]}, expected {H}")


def _cell(kind, input, hx, cx, w_ih, w_hh, b_ih, b_hh):
    _check_cell(input, [hx] if cx is None else [hx, cx], w_ih, w_hh, _GATES[kind])
    gi = _input_gates(kind, input, w_ih, b_ih, b_hh)
    return _step(kind, gi, hx, cx, aten.t(w_hh), b_hh, None)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("tanh", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("relu", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("gru", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    return _cell("lstm", input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


# -- one direction of one layer ------------------------------------------------------------------------------------
def _per_step(gi, sizes):
    """The input gates of each step: one ``split_with_sizes``, whose backward is a single ``cat`` (a ``narrow`` per
    step would scatter each step's gradient into a zero tensor of the whole sequence)."""
    return list(aten.split_with_sizes(gi, sizes, 0))


def _forward_pass(kind, gi, sizes, h, c, p):
    """Steps ``0 .. T-1``; rows whose sequence ended leave the batch (their last state is kept for ``h_n``)."""
    outs, done_h, done_c, cur = [], [], [], h.sizes[0]
    for bs, step_gates in zip(sizes, _per_step(gi, sizes), strict=True):
        if bs < cur:
            done_h.append(aten.narrow(h, 0, bs, cur - bs))
            h = aten.narrow(h, 0, 0, bs)
            if c is not None:
                done_c.append(aten.narrow(c, 0, bs, cur - bs))
                c = aten.narrow(c, 0, 0, bs)
            cur = bs
        h, c = _step(kind, step_gates, h, c, *p)
        outs.append(h)
    h_n = aten.cat([h, *done_h[::-1]], 0) if done_h else h
    c_n = (aten.cat([c, *done_c[::-1]], 0) if done_c else c) if c is not None else None
    return outs, h_n, c_n


def _reverse_pass(kind, gi, sizes, h0, c0, p):
    """Steps ``T-1 .. 0``; rows join the batch from ``h0`` as their sequences begin."""
    cur = sizes[-1] if sizes else h0.sizes[0]
    h = aten.narrow(h0, 0, 0, cur) if cur != h0.sizes[0] else h0
    c = None if c0 is None else (aten.narrow(c0, 0, 0, cur) if cur != c0.sizes[0] else c0)
    outs = []
    for bs, step_gates in zip(reversed(sizes), _per_step(gi, sizes)[::-1], strict=True):
        if bs > cur:
            h = aten.cat([h, aten.narrow(h0, 0, cur, bs - cur)], 0)
            if c is not None:
                c = aten.cat([c, aten.narrow(c0, 0, cur, bs - cur)], 0)
            cur = bs
        h, c = _step(kind, step_gates, h, c, *p)
        outs.append(h)
    return outs[::-1], h, c


def _split_params(params, has_biases, has_proj, count):
    """Per layer and direction: ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` with None where absent (PyTorch's order)."""
    per = 2 + 2 * has_biases + has_proj
    if len(params) != per * count:
        raise RuntimeError(f"Expected {per * count} parameters for the RNN, got {len(params)}")
    out = []
    for k in range(count):
        group = list(params[k * per:(k + 1) * per])
        b_ih, b_hh = (group[2], group[3]) if has_biases else (None, None)
        out.append((group[0], group[1], b_ih, b_hh, group[-1] if has_proj else None))
    return out


def _run(kind, data, sizes, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional):
    """The stacked loop over packed rows ``data`` (N, I); returns ``(output (N, D * H_out), h_n, c_n)``."""
    D = 2 if bidirectional else 1
    has_proj = cx is not None and hx.sizes[2] != cx.sizes[2]
    groups = _split_params(params, has_biases, has_proj, num_layers * D)
    x, h_n, c_n = data, [], []
    for layer in range(num_layers):
        layer_out = []
        for d in range(D):
            w_ih, w_hh, b_ih, b_hh, w_hr = groups[layer * D + d]
            gi = _input_gates(kind, x, w_ih, b_ih, b_hh)
            p = (aten.t(w_hh), b_hh, None if w_hr is None else aten.t(w_hr))
            c0 = None if cx is None else aten.select_int(cx, 0, layer * D + d)
            run = _reverse_pass if d == 1 else _forward_pass
            outs, h, c = run(kind, gi, sizes, aten.select_int(hx, 0, layer * D + d), c0, p)
            layer_out.append(aten.cat(outs, 0))
            h_n.append(h)
            c_n.append(c)
        x = layer_out[0] if D == 1 else aten.cat(layer_out, 1)
        if dropout != 0 and train and layer < num_layers - 1:
            x = aten.dropout(x, dropout, train)
    return x, aten.stack(h_n, 0), (aten.stack(c_n, 0) if cx is not None else None)


def _run_padded(kind, input, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    if batch_first:
        input = aten.transpose_int(input, 0, 1)
    T, B = input.sizes[0], input.sizes[1]
    data = aten.reshape(input, (T * B, input.sizes[2]))
    out, h_n, c_n = _run(kind, data, [B] * T, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional)
    out = aten.view(out, (T, B, out.sizes[1]))
    return (aten.transpose_int(out, 0, 1) if batch_first else out), h_n, c_n


def _sizes(batch_sizes):
    return [int(b) for b in batch_sizes.values_np()]


def lstm_input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    return _run_padded("lstm", input, hx[0], hx[1], params, has_biases, num_layers, dropout, train, bidirectional,
                       batch_first)


def lstm_data(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
    return _run("lstm", data, _sizes(batch_sizes), hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                bidirectional)


def _padded(kind):
    """The ``.input`` kernel of an RNN with one hidden state (GRU, tanh and ReLU Elman RNNs)."""
    def kernel(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        return _run_padded(kind, input, hx, None, params, has_biases, num_layers, dropout, train, bidirectional,
                           batch_first)[:2]
    return kernel


def _packed(kind):
    """The ``.data`` kernel (packed rows) of an RNN with one hidden state."""
    def kernel(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
        return _run(kind, data, _sizes(batch_sizes), hx, None, params, has_biases, num_layers, dropout, train,
                    bidirectional)[:2]
    return kernel


gru_input = _padded("gru")
gru_data = _packed("gru")
rnn_tanh_input = _padded("tanh")
rnn_tanh_data = _packed("tanh")
rnn_relu_input = _padded("relu")
rnn_relu_data = _packed("relu")
