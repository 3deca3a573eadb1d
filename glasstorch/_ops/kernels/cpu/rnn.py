"""The fused LSTM cell pointwise kernels — PyTorch's ``_thnn_fused_lstm_cell`` and its backward
(``aten/src/ATen/native/cuda/RNN.cu``, registered there for CUDA only; here for the CPU, so that the recurrent loop
in ``_ops/decompositions/rnn.py`` runs one node per step instead of a dozen).

``workspace`` holds the activated gates ``[sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)]`` (B, 4H), as PyTorch's.
Invariant: the backward reads only ``cx``, ``cy`` and ``workspace``; nothing is recomputed from the pre-activations.
"""

from __future__ import annotations

import numpy as np

from ...._tensor.impl import TensorImpl, empty_contiguous

__all__ = ["thnn_fused_lstm_cell", "thnn_fused_lstm_cell_backward_impl"]


def _has_data(*ts) -> bool:
    return all(t.storage._data is not None for t in ts if t is not None)


def _check(input_gates: TensorImpl, hidden_gates: TensorImpl, cx: TensorImpl) -> None:
    if input_gates.ndim != 2 or input_gates.sizes != hidden_gates.sizes:
        raise RuntimeError(f"_thnn_fused_lstm_cell: input_gates {list(input_gates.sizes)} and hidden_gates "
                           f"{list(hidden_gates.sizes)} must be equal 2-d sizes")
    B, G = input_gates.sizes
    if G % 4 or cx.sizes != (B, G // 4):
        raise RuntimeError(f"_thnn_fused_lstm_cell: cx {list(cx.sizes)} must be (batch, gates / 4) = [{B}, {G // 4}]")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out = np.negative(x)
    np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


def thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    """``(hy, cy, workspace)`` of one LSTM step from the gate pre-activations (input and hidden parts summed)."""
    _check(input_gates, hidden_gates, cx)
    B, G = input_gates.sizes
    H = G // 4
    dt, dev = input_gates.dtype, input_gates.device
    hy, cy, ws = (empty_contiguous((B, H), dt, dev), empty_contiguous((B, H), dt, dev),
                  empty_contiguous((B, G), dt, dev))
    if not _has_data(input_gates, hidden_gates, cx, input_bias, hidden_bias):
        return hy, cy, ws
    gates = input_gates.as_numpy() + hidden_gates.as_numpy()
    for bias in (input_bias, hidden_bias):
        if bias is not None:
            gates += bias.as_numpy()
    w = ws.as_numpy()
    w[:, :2 * H] = _sigmoid(gates[:, :2 * H])
    np.tanh(gates[:, 2 * H:3 * H], out=w[:, 2 * H:3 * H])
    w[:, 3 * H:] = _sigmoid(gates[:, 3 * H:])
    i, f, g, o = w[:, :H], w[:, H:2 * H], w[:, 2 * H:3 * H], w[:, 3 * H:]
    c = cy.as_numpy()
    np.multiply(f, cx.as_numpy(), out=c)
    c += i * g
    np.multiply(o, np.tanh(c), out=hy.as_numpy())
    return hy, cy, ws


def thnn_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    """``(grad_gates, grad_cx, grad_bias)``: the gates' gradient (shared by the input and hidden parts), ``cx``'s,
    and the gates' gradient summed over the batch when the cell had biases (else undefined)."""
    B, G = workspace.sizes
    H = G // 4
    dt, dev = workspace.dtype, workspace.device
    grad_gates, grad_cx = empty_contiguous((B, G), dt, dev), empty_contiguous((B, H), dt, dev)
    grad_bias = empty_contiguous((G,), dt, dev) if has_bias else None
    if not _has_data(cx, cy, workspace, grad_hy, grad_cy):
        return grad_gates, grad_cx, grad_bias
    w = workspace.as_numpy()
    i, f, g, o = w[:, :H], w[:, H:2 * H], w[:, 2 * H:3 * H], w[:, 3 * H:]
    tanh_cy = np.tanh(cy.as_numpy())
    gh = grad_hy.as_numpy() if grad_hy is not None else np.zeros((B, H), w.dtype)
    gc = gh * o * (1 - tanh_cy * tanh_cy)
    if grad_cy is not None:
        gc += grad_cy.as_numpy()
    out = grad_gates.as_numpy()
    np.multiply(gc * g, i * (1 - i), out=out[:, :H])
    np.multiply(gc * cx.as_numpy(), f * (1 - f), out=out[:, H:2 * H])
    np.multiply(gc * i, 1 - g * g, out=out[:, 2 * H:3 * H])
    np.multiply(gh * tanh_cy, o * (1 - o), out=out[:, 3 * H:])
    np.multiply(gc, f, out=grad_cx.as_numpy())
    if has_bias:
        np.sum(out, axis=0, out=grad_bias.as_numpy())
    return grad_gates, grad_cx, grad_bias
