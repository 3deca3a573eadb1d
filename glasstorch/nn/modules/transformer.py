"""Transformer encoder — PyTorch's ``torch/nn/modules/transformer.py``: TransformerEncoderLayer, TransformerEncoder.

A layer is self-attention then a feed-forward block (linear1 -> activation -> dropout -> linear2), each with
dropout and a residual connection; ``norm_first`` puts the LayerNorms before the blocks (pre-norm) instead of
after the residual sums (post-norm).  ``TransformerEncoder`` stacks ``num_layers`` deep copies of one layer.

PyTorch's inference fast paths (fused kernels, nested tensors) compute the same values as this path, with one
visible difference that glasstorch reproduces: in eval mode with a left-aligned ``src_key_padding_mask`` (and the
nested-tensor conditions met), the encoder returns zeros at the padded positions.

Invariant: with dropout 0 (or in eval), the output depends only on the input, masks and parameters.
"""

from __future__ import annotations

import copy
import warnings

from ..._core.dtype import bool as _bool
from ..._functions import full
from ..._generated.functions import triu
from ...autograd.grad_mode import is_grad_enabled
from .. import functional as F
from .activation import GELU, MultiheadAttention, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["TransformerEncoder", "TransformerEncoderLayer"]


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None):
    """The (sz, sz) causal mask: -inf above the diagonal, 0 elsewhere."""
    return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first: bool):
    sizes = src.size()
    if len(sizes) == 2:
        return sizes[0]
    return sizes[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None) -> bool:
    """``is_causal`` if given; else whether ``mask`` equals the causal mask of its size."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        make_causal = bool((mask == causal).all()) if mask.size() == causal.size() else False
    return make_causal


def _get_activation_fn(activation: str):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_clones(module, N):
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


class TransformerEncoderLayer(Module):
    """Self-attention + feed-forward block (``nn.TransformerEncoderLayer``).

    Example:
        >>> import glasstorch as torch
        >>> layer = torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
        >>> layer(torch.randn(2, 5, 8)).shape
        torch.Size([2, 5, 8])
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation=F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device=None, dtype=None) -> None:
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal: bool = False):
        src_key_padding_mask = F._canonical_mask(mask=src_key_padding_mask, mask_name="src_key_padding_mask",
                                                 other_type=F._none_or_dtype(src_mask), other_name="src_mask",
                                                 target_type=src.dtype)
        src_mask = F._canonical_mask(mask=src_mask, mask_name="src_mask", other_type=None, other_name="",
                                     target_type=src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _why_not_nested(layer) -> str:
    """PyTorch's reason (if any) why an encoder over ``layer`` cannot use nested tensors."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """A stack of ``num_layers`` copies of ``encoder_layer``, with an optional final norm
    (``nn.TransformerEncoder``).

    Example:
        >>> import glasstorch as torch
        >>> layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        >>> torch.nn.TransformerEncoder(layer, num_layers=2)(torch.randn(2, 5, 8)).shape
        torch.Size([2, 5, 8])
    """

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers: int, norm=None, enable_nested_tensor: bool = True,
                 mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = F._canonical_mask(mask=src_key_padding_mask, mask_name="src_key_padding_mask",
                                                 other_type=F._none_or_dtype(mask), other_name="mask",
                                                 target_type=src.dtype)
        mask = F._canonical_mask(mask=mask, mask_name="mask", other_type=None, other_name="", target_type=src.dtype,
                                 check_other=False)
        first = self.layers[0]
        valid = self._nested_valid_positions(src, mask, src_key_padding_mask)
        seq_len = _get_seq_len(src, first.self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if valid is not None:  # PyTorch's nested-tensor path pads its output back with zeros
            output = output.masked_fill(valid.logical_not().unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_valid_positions(self, src, mask, key_padding_mask):
        """The (B, S) non-padded positions when PyTorch would run the layers on nested tensors, else None."""
        first = self.layers[0]
        if not getattr(self, "use_nested_tensor", False) or first.training or src.dim() != 3:
            return None
        if key_padding_mask is None or mask is not None:
            return None
        valid = key_padding_mask.logical_not()
        if getattr(self, "mask_check", True) and bool((valid[:, 1:] & valid[:, :-1].logical_not()).any()):
            return None  # not left-aligned
        sa = first.self_attn
        params = (sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias, first.norm1.weight,
                  first.norm1.bias, first.norm2.weight, first.norm2.bias, first.linear1.weight, first.linear1.bias,
                  first.linear2.weight, first.linear2.bias)
        if is_grad_enabled() and (src.requires_grad or any(p.requires_grad for p in params)):
            return None
        return valid.to(_bool)
