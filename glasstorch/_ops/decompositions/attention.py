"""Scaled dot product attention decompositions — PyTorch's ``transformers/attention.cpp``.

- ``scaled_dot_product_attention``: ``validate_sdpa_input`` (PyTorch's messages), ``_fused_sdp_choice``,
  a boolean mask turned into an additive one (``0`` where True, ``-inf`` where False), then either the
  fused CPU flash kernel or the math reference;
- ``_scaled_dot_product_attention_math``: the composite reference — float16/bfloat16 computed in float32;
  ``q`` and ``k`` each scaled by ``sqrt(scale)``; the causal mask as a lower-triangular boolean mask;
  grouped-query heads repeated; ``matmul``, ``+ mask``, ``_safe_softmax`` (fully masked rows give 0),
  ``dropout``; returns (output, attention weights) in the input dtype.

Every step goes through ``aten`` so autograd records PyTorch's graph.

Invariant: no data is touched here.
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..aten import aten
from ..factories import full_impl
from ..kernels.cpu.attention import SDP_FLASH
from ..kernels.cpu.loss import type_meta_name

__all__ = ["scaled_dot_product_attention", "scaled_dot_product_attention_math", "convert_boolean_attn_mask"]


def _validate(q, k, v, mask):
    if not (q.dtype is k.dtype and q.dtype is v.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{type_meta_name(q.dtype)} key.dtype: {type_meta_name(k.dtype)} and value.dtype: "
                           f"{type_meta_name(v.dtype)} instead.")
    if not (q.device == k.device and q.device == v.device):
        raise RuntimeError(f"Expected query, key, and value to have the same device type, but got query.device: "
                           f"{q.device.type} key.device: {k.device.type} and value.device: {v.device.type} instead.")
    if not (q.ndim >= 2 and k.ndim >= 2 and v.ndim >= 2):
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{q.ndim} key.dim: {k.ndim} and value.dim: {v.ndim} instead.")
    if mask is not None:
        if not (mask.dtype is _dt.bool or mask.dtype is _dt.float32 or mask.dtype is q.dtype):
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {type_meta_name(mask.dtype)} and  query.dtype: "
                               f"{type_meta_name(q.dtype)} instead.")


def convert_boolean_attn_mask(mask, dtype):
    """A boolean mask becomes additive: 0 where attending, ``-inf`` where masked out (``zeros_like`` is a leaf)."""
    if mask is None or mask.dtype is not _dt.bool:
        return mask
    zeros = full_impl(mask.sizes, 0.0, dtype, mask.device)
    return aten.masked_fill__Scalar(zeros, aten.logical_not(mask), float("-inf"))


def _safe_softmax(x, dim):
    """``_safe_softmax``: ``softmax``, with rows that are entirely ``-inf`` giving 0 instead of NaN."""
    out = aten.softmax_int(x, dim, None)
    masked_rows = aten.all_dim(aten.eq_Scalar(x, float("-inf")), dim, True)
    return aten.where_ScalarSelf(masked_rows, 0.0, out)


def scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """``scaled_dot_product_attention`` (CompositeImplicitAutograd): pick the backend, run it."""
    _validate(query, key, value, attn_mask)
    choice = aten._fused_sdp_choice(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                                    enable_gqa=enable_gqa)
    mask = convert_boolean_attn_mask(attn_mask, query.dtype)
    if choice == SDP_FLASH:
        return aten._scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p, is_causal,
                                                                attn_mask=mask, scale=scale)[0]
    return aten._scaled_dot_product_attention_math(query, key, value, mask, dropout_p, is_causal, None,
                                                   scale=scale, enable_gqa=enable_gqa)[0]


def _gqa(query, key, value, enable_gqa):
    """``pre_process_group_query_attention_input``: repeat key/value heads for grouped queries."""
    if not enable_gqa:
        return key, value
    hq, hk, hv = query.sizes[-3], key.sizes[-3], value.sizes[-3]
    if hq % hk or hq % hv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    if hk != hq:
        key = aten.repeat_interleave_self_int(key, hq // hk, -3, output_size=None)
    if hv != hq:
        value = aten.repeat_interleave_self_int(value, hq // hv, -3, output_size=None)
    return key, value


def scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal, dropout_mask, scale,
                                      enable_gqa):
    """``_scaled_dot_product_attention_math`` -> (output, attention weights)."""
    origin = query.dtype
    reduced = origin in (_dt.float16, _dt.bfloat16)

    def up(t):
        return aten._to_copy(t, _dt.float32, None, None, None, False, None) if reduced else t
    q, k, v = up(query), up(key), up(value)
    negative = scale is not None and scale < 0.0
    sc = abs(scale) if negative else scale
    factor = math.sqrt(sc if sc is not None else 1.0 / math.sqrt(q.sizes[-1]))
    q = aten.mul_Tensor(q, (0.0 - factor) if negative else factor)
    mask = attn_mask
    if is_causal:
        if mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        lq, lk = q.sizes[-2], k.sizes[-2]
        ones = full_impl((lq, lk), True, _dt.bool, q.device)
        mask = convert_boolean_attn_mask(aten.tril(ones, 0), q.dtype)
    k, v = _gqa(q, k, v, enable_gqa)
    attn = aten.matmul(q, aten.mul_Tensor(aten.transpose_int(k, -2, -1), factor))
    if mask is not None:
        attn = aten.add_Tensor(attn, mask, 1)
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        if dropout_mask is not None:
            attn = aten.masked_fill_Scalar(attn, aten.logical_not(dropout_mask), 0.0)
            out = aten.matmul(attn, aten.mul_Tensor(v, 1.0 / (1.0 - dropout_p)))
            return _down(out, origin), _down(attn, origin)
        attn = aten.dropout(attn, dropout_p, True)
    return _down(aten.matmul(attn, v), origin), _down(attn, origin)


def _down(t, dtype):
    return t if t.dtype is dtype else aten._to_copy(t, dtype, None, None, None, False, None)
