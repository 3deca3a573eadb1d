"""Activation layers — PyTorch's ``torch/nn/modules/activation.py``.

Each layer stores its settings and calls the ``nn.functional`` function of the same name; ``extra_repr``
prints the settings exactly as PyTorch does (``LeakyReLU(negative_slope=0.01)``, ``ReLU(inplace=True)``).
``MultiheadAttention`` lives here too, as in PyTorch: packed (or separate) input projections, an
``out_proj`` Linear, and ``F.multi_head_attention_forward`` for the computation.

Invariant: a layer's forward is its functional counterpart with the stored settings and nothing else.
"""

from __future__ import annotations

import warnings

from ..._functions import empty
from .. import functional as F
from ..init import constant_, xavier_normal_, xavier_uniform_
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["Threshold", "RReLU", "ReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
           "Hardswish",
           "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink",
           "MultiheadAttention", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


class _Inplace(Module):
    """An activation whose only setting is ``inplace``; prints ``inplace=True`` when set."""

    __constants__ = ["inplace"]
    _fn = None

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    """``max(0, x)`` element-wise (``nn.ReLU``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.ReLU()(torch.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    _fn = staticmethod(F.relu)


class SiLU(_Inplace):
    """``x * sigmoid(x)`` (``nn.SiLU``)."""

    _fn = staticmethod(F.silu)


class Mish(_Inplace):
    """``x * tanh(softplus(x))`` (``nn.Mish``)."""

    _fn = staticmethod(F.mish)


class SELU(_Inplace):
    """Scaled ELU with PyTorch's fixed alpha and scale (``nn.SELU``)."""

    _fn = staticmethod(F.selu)


class Hardsigmoid(_Inplace):
    """Piecewise-linear sigmoid ``relu6(x + 3) / 6`` (``nn.Hardsigmoid``); its repr shows no settings."""

    _fn = staticmethod(F.hardsigmoid)

    def extra_repr(self) -> str:
        return ""


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6`` (``nn.Hardswish``); its repr shows no settings."""

    _fn = staticmethod(F.hardswish)

    def extra_repr(self) -> str:
        return ""


class Threshold(Module):
    """``x if x > threshold else value`` (``nn.Threshold``)."""

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{', inplace=True' if self.inplace else ''}"


class RReLU(Module):
    """Randomized leaky ReLU: slopes drawn from U(lower, upper) while training, their mean in eval (``nn.RReLU``)."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{', inplace=True' if self.inplace else ''}"


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)`` (``nn.Hardtanh``)."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False, min_value=None,
                 max_value=None) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning,
                          stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning,
                          stacklevel=2)
            max_val = max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{', inplace=True' if self.inplace else ''}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)`` (``nn.ReLU6``)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` (``nn.Sigmoid``)."""

    def forward(self, input):
        return input.sigmoid()


class Tanh(Module):
    """Hyperbolic tangent (``nn.Tanh``)."""

    def forward(self, input):
        return input.tanh()


class _Alpha(Module):
    __constants__ = ["alpha", "inplace"]
    _fn = None

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{', inplace=True' if self.inplace else ''}"


class ELU(_Alpha):
    """``x if x > 0 else alpha * (exp(x) - 1)`` (``nn.ELU``)."""

    _fn = staticmethod(F.elu)


class CELU(_Alpha):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (``nn.CELU``)."""

    _fn = staticmethod(F.celu)


class GLU(Module):
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second (``nn.GLU``)."""

    __constants__ = ["dim"]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """``x * Phi(x)``; ``approximate='tanh'`` uses the tanh formula (``nn.GELU``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.GELU(approximate="tanh")
        GELU(approximate='tanh')
    """

    __constants__ = ["approximate"]

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """``x if |x| > lambd else 0`` (``nn.Hardshrink``)."""

    __constants__ = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0 (``nn.Softshrink``)."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class LeakyReLU(Module):
    """``x if x >= 0 else negative_slope * x`` (``nn.LeakyReLU``)."""

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{', inplace=True' if self.inplace else ''}"


class LogSigmoid(Module):
    """``log(sigmoid(x))``, computed stably (``nn.LogSigmoid``)."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold`` (``nn.Softplus``)."""

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """LeakyReLU with a learned slope per channel (dim 1) or one shared slope (``nn.PReLU``)."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """``x / (1 + |x|)`` (``nn.Softsign``)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)`` (``nn.Tanhshrink``)."""

    def forward(self, input):
        return F.tanhshrink(input)


class _DimSoftmax(Module):
    __constants__ = ["dim"]
    _fn = None

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_DimSoftmax):
    """``exp(x_i) / sum_j exp(x_j)`` along ``dim`` (``nn.Softmax``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Softmax(dim=1)
        Softmax(dim=1)
    """

    _fn = staticmethod(F.softmax)


class Softmin(_DimSoftmax):
    """``softmax(-x)`` along ``dim`` (``nn.Softmin``)."""

    _fn = staticmethod(F.softmin)


class LogSoftmax(_DimSoftmax):
    """``log(softmax(x))`` along ``dim`` (``nn.LogSoftmax``)."""

    _fn = staticmethod(F.log_softmax)


class Softmax2d(Module):
    """Softmax over the channels of each spatial location (dim -3) (``nn.Softmax2d``)."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of size ``embed_dim // num_heads`` (``nn.MultiheadAttention``).

    Parameters: ``in_proj_weight`` (3E, E) when key/value dims equal ``embed_dim``, else separate
    ``q/k/v_proj_weight``; ``in_proj_bias`` (3E,); ``out_proj`` (a Linear E -> E); optional ``bias_k``/``bias_v``.
    ``forward(query, key, value, ...)`` returns ``(attn_output, attn_weights or None)``.

    Example:
        >>> import glasstorch as torch
        >>> mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        >>> x = torch.randn(3, 5, 8)
        >>> out, w = mha(x, x, x)
        >>> out.shape, w.shape
        (torch.Size([3, 5, 8]), torch.Size([3, 5, 5]))
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **fk))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **fk))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **fk))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **fk))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **fk))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **fk)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **fk))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **fk))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            xavier_uniform_(self.q_proj_weight)
            xavier_uniform_(self.k_proj_weight)
            xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            xavier_normal_(self.bias_v)

    def __setstate__(self, state) -> None:
        state.setdefault("_qkv_same_embed_dim", True)
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True, attn_mask=None,
                average_attn_weights: bool = True, is_causal: bool = False):
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(mask=key_padding_mask, mask_name="key_padding_mask",
                                             other_type=F._none_or_dtype(attn_mask), other_name="attn_mask",
                                             target_type=query.dtype)
        attn_mask = F._canonical_mask(mask=attn_mask, mask_name="attn_mask", other_type=None, other_name="",
                                      target_type=query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # keep the identity of shared tensors: self-attention is recognised by ``query is key``
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        attn_output, attn_weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_weights
        return attn_output, attn_weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """One (B, H, L, L) float mask from an attention mask and a key padding mask, and its type (1 or 2)."""
        mask_type = merged = None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            B, L, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                merged = attn_mask.view(B, -1, L, L)
            else:
                merged = attn_mask.view(1, 1, L, L).expand(B, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged = merged + key_padding_mask.view(B, 1, 1, L).expand(-1, self.num_heads, -1, -1)
        return merged, mask_type
