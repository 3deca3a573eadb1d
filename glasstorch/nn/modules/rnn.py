"""Recurrent layers — PyTorch's ``torch/nn/modules/rnn.py``: RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell,
LSTMCell, GRUCell.

The layers hold one set of parameters per layer and direction, named as PyTorch names them (``weight_ih_l0``,
``weight_hh_l1_reverse``, ``bias_ih_l0``, ``weight_hr_l0`` for an LSTM projection) and listed in that order in
``_flat_weights``; ``reset_parameters`` draws every parameter from U(-1/sqrt(hidden), 1/sqrt(hidden)) in parameter
order, so a seeded model equals PyTorch's bit for bit.  The computation is the operators ``lstm`` / ``gru`` /
``rnn_tanh`` / ``rnn_relu`` (their ``.input`` overload for padded input, ``.data`` for a ``PackedSequence``) and
the ``*_cell`` operators, as PyTorch calls them through ``_VF``.

Invariant: ``_flat_weights[i]`` is always the attribute named ``_flat_weights_names[i]``.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ... import _VF
from ..._functions import empty, zeros
from ..._generated.functions import index_select
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATE_CHUNKS = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(tensor, permutation, dim: int = 1):
    return index_select(tensor, dim, permutation)


def _check_config(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size) -> None:
    if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                      f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                      stacklevel=3)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if kind is int and value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """The parameters, checks and ``extra_repr`` shared by ``RNN``, ``LSTM`` and ``GRU`` (``nn.RNNBase``)."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        if mode not in _GATE_CHUNKS:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        _check_config(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        self._flat_weights_names, self._all_weights = [], []
        self._make_parameters(_GATE_CHUNKS[mode] * hidden_size, {"device": device, "dtype": dtype})
        self._init_flat_weights()
        self.reset_parameters()

    def _make_parameters(self, gate_size: int, factory_kwargs: dict) -> None:
        D = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        for layer in range(self.num_layers):
            layer_input = self.input_size if layer == 0 else real_hidden * D
            for direction in range(D):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {"weight_ih": (gate_size, layer_input), "weight_hh": (gate_size, real_hidden)}
                if self.bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if self.proj_size > 0:
                    shapes["weight_hr"] = (self.proj_size, self.hidden_size)
                names = [name + suffix for name in shapes]
                for name, shape in zip(names, shapes.values(), strict=True):
                    setattr(self, name, Parameter(empty(shape, **factory_kwargs)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)

    def _init_flat_weights(self) -> None:
        self._flat_weights = [getattr(self, n) if hasattr(self, n) else None for n in self._flat_weights_names]
        self.flatten_parameters()

    def __setattr__(self, attr, value) -> None:
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self) -> None:
        """A no-op: PyTorch packs the weights into one cuDNN buffer; the CPU loop uses them where they are."""

    def _apply(self, fn, recurse=True):
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def check_input(self, input, batch_sizes) -> None:
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). Convert "
                             f"input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes) -> tuple:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        D = 2 if self.bidirectional else 1
        return (self.num_layers * D, mini_batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(tuple(expected_hidden_size), list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        for name, default in (("num_layers", 1), ("bias", True), ("batch_first", False), ("dropout", 0),
                              ("bidirectional", False)):
            if getattr(self, name) != default:
                s += f", {name}={getattr(self, name)}"
        return s

    def _unpack(self, input, hx, name: str, hx_dims):
        """``(input, batch_sizes, sorted, unsorted, is_batched)``; unbatched input and ``hx`` gain a batch dim."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            return data, batch_sizes, sorted_indices, unsorted_indices, True, hx
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{hx_dims}")
        is_batched = input.dim() == 3
        if not is_batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        return input, None, None, None, is_batched, hx

    def _zeros(self, input, batch_sizes, width: int):
        D = 2 if self.bidirectional else 1
        if batch_sizes is not None:
            B = int(batch_sizes[0])
        else:
            B = input.size(0) if self.batch_first else input.size(1)
        return zeros(self.num_layers * D, B, width, dtype=input.dtype, device=input.device)

    def _call(self, fn, input, batch_sizes, hx):
        args = (hx, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training, self.bidirectional)
        if batch_sizes is None:
            return fn(input, *args, self.batch_first)
        return fn(input, batch_sizes, *args)

    def _finish(self, output, hidden, orig_input, batch_sizes, sorted_indices, unsorted_indices, is_batched):
        if isinstance(orig_input, PackedSequence):
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), hidden
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
        return output, hidden


class RNN(RNNBase):
    """A multi-layer Elman RNN, ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU) (``nn.RNN``).

    Example:
        >>> import glasstorch as torch
        >>> out, h = torch.nn.RNN(3, 4, num_layers=2)(torch.randn(5, 2, 3))
        >>> out.shape, h.shape
        (torch.Size([5, 2, 4]), torch.Size([2, 2, 4]))
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def forward(self, input, hx=None):
        return _single_state_forward(self, "RNN", _VF.rnn_tanh if self.mode == "RNN_TANH" else _VF.rnn_relu,
                                     input, hx)


class GRU(RNNBase):
    """A multi-layer gated recurrent unit (``nn.GRU``); gates ``r, z, n`` in PyTorch's order.

    Example:
        >>> import glasstorch as torch
        >>> out, h = torch.nn.GRU(3, 4, batch_first=True)(torch.randn(2, 5, 3))
        >>> out.shape
        torch.Size([2, 5, 4])
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return _single_state_forward(self, "GRU", _VF.gru, input, hx)


def _single_state_forward(module, name, fn, input, hx):
    """RNN / GRU forward: one hidden state ``h``."""
    orig = input
    input, batch_sizes, sorted_indices, unsorted_indices, is_batched, hx = module._unpack(input, hx, name,
                                                                                          " tensor instead")
    if hx is None:
        hx = module._zeros(input, batch_sizes, module.hidden_size)
    elif batch_sizes is not None:
        hx = module.permute_hidden(hx, sorted_indices)
    elif is_batched and hx.dim() != 3:
        raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
    elif not is_batched:
        if hx.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
        hx = hx.unsqueeze(1)
    module.check_forward_args(input, hx, batch_sizes)
    output, hidden = module._call(fn, input, batch_sizes, hx)
    if batch_sizes is not None:
        hidden = module.permute_hidden(hidden, unsorted_indices)
    elif not is_batched:
        hidden = hidden.squeeze(1)
    return module._finish(output, hidden, orig, batch_sizes, sorted_indices, unsorted_indices, is_batched)


class LSTM(RNNBase):
    """A multi-layer long short-term memory RNN (``nn.LSTM``); gates ``i, f, g, o``, optional projection.

    Example:
        >>> import glasstorch as torch
        >>> out, (h, c) = torch.nn.LSTM(3, 4, proj_size=2)(torch.randn(5, 2, 3))
        >>> out.shape, h.shape, c.shape
        (torch.Size([5, 2, 2]), torch.Size([1, 2, 2]), torch.Size([1, 2, 4]))
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes) -> tuple:
        expected = self.get_expected_hidden_size(input, batch_sizes)
        return (expected[0], expected[1], self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        orig = input
        input, batch_sizes, sorted_indices, unsorted_indices, is_batched, hx = self._unpack(input, hx, "LSTM",
                                                                                            " instead")
        if hx is None:
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(input, batch_sizes, real_hidden), self._zeros(input, batch_sizes, self.hidden_size))
        elif batch_sizes is not None:
            hx = self.permute_hidden(hx, sorted_indices)
        elif is_batched and (hx[0].dim() != 3 or hx[1].dim() != 3):
            raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                               f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        elif not is_batched:
            if hx[0].dim() != 2 or hx[1].dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, batch_sizes)
        result = self._call(_VF.lstm, input, batch_sizes, list(hx))
        output, hidden = result[0], (result[1], result[2])
        if batch_sizes is not None:
            hidden = self.permute_hidden(hidden, unsorted_indices)
        elif not is_batched:
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return self._finish(output, hidden, orig, batch_sizes, sorted_indices, unsorted_indices, is_batched)


class RNNCellBase(Module):
    """The parameters of a single recurrent cell: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input, states):
        """``(input, states, is_batched)``: 1-d input and states gain a batch dim; None states become zeros."""
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        out = []
        for s in states:
            if s is None:
                s = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            elif not is_batched:
                s = s.unsqueeze(0)
            out.append(s)
        return input, out, is_batched

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh


def _check_dims(name, input, states) -> None:
    """PyTorch's cell checks: the input, then each given state, must be 1-d or 2-d."""
    for label, t in [("input", input), *states]:
        if t is not None and t.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {t.dim()}D instead")


class RNNCell(RNNCellBase):
    """An Elman RNN cell, ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ReLU) (``nn.RNNCell``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.RNNCell(3, 4)(torch.randn(2, 3)).shape
        torch.Size([2, 4])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        _check_dims("RNNCell", input, [("hidden", hx)])
        input, (hx,), is_batched = self._batched(input, [hx])
        if self.nonlinearity == "tanh":
            ret = _VF.rnn_tanh_cell(input, hx, *self._weights())
        elif self.nonlinearity == "relu":
            ret = _VF.rnn_relu_cell(input, hx, *self._weights())
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """A long short-term memory cell (``nn.LSTMCell``); returns ``(h', c')``.

    Example:
        >>> import glasstorch as torch
        >>> h, c = torch.nn.LSTMCell(3, 4)(torch.randn(2, 3))
        >>> h.shape, c.shape
        (torch.Size([2, 4]), torch.Size([2, 4]))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        _check_dims("LSTMCell", input, [] if hx is None else [(f"hx[{k}]", v) for k, v in enumerate(hx)])
        input, states, is_batched = self._batched(input, [None, None] if hx is None else list(hx))
        h, c = _VF.lstm_cell(input, states, *self._weights())
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """A gated recurrent unit cell (``nn.GRUCell``); gates ``r, z, n`` in PyTorch's order.

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.GRUCell(3, 4)(torch.randn(3)).shape
        torch.Size([4])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        _check_dims("GRUCell", input, [("hidden", hx)])
        input, (hx,), is_batched = self._batched(input, [hx])
        ret = _VF.gru_cell(input, hx, *self._weights())
        return ret if is_batched else ret.squeeze(0)
