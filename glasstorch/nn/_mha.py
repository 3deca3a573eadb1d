"""Multi-head attention — PyTorch's ``F.multi_head_attention_forward`` and its helpers (``torch/nn/functional.py``).

Inputs are sequence-first: query (L, N, E), key/value (S, N, E) (or unbatched (L, E)).  The steps:
project q, k, v (one packed (3E, E) weight, or separate ones), optionally append ``bias_k``/``bias_v`` and a
zero key/value, fold the heads into the batch (N * H, L, E / H), turn boolean masks into additive -inf masks
and merge the key padding mask into the attention mask, then either the explicit softmax(q k^T / sqrt(d) + mask)
path that also returns the attention weights (``need_weights``) or ``scaled_dot_product_attention``; finally
the output projection.  Dropout applies to the attention weights in training only.

Invariant: the output has the query's shape; the weights are (N, L, S) averaged over heads, or (N, H, L, S).
"""

from __future__ import annotations

import math
import warnings

from .._core import dtype as _dt
from .._functions import zeros, zeros_like
from .._generated import functions as _gen
from ..tensor import Tensor

__all__ = ["multi_head_attention_forward"]


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean attention mask (True = masked) as an additive float mask of ``target_type`` (-inf / 0)."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _dt.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      f"instead.", stacklevel=2)
    if not is_float:
        mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """Validate the ranks of MHA's inputs; True for batched (3-D) input, False for unbatched (2-D)."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                     f"found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and attn_mask.shape != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by the packed (3E, E) weight; one matmul when q, k, v are the same tensor."""
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = _gen.linear(q, w, b).unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = _gen.linear(k, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return _gen.linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return _gen.linear(q, w_q, b_q), _gen.linear(k, w_k, b_k), _gen.linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """q, k, v projected by separate weights (key/value dims may differ from the embedding dim)."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for what, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if w.shape != shape:
            raise AssertionError(f"expecting {what} weights shape of {shape}, but got {w.shape}")
    for what, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and bias.shape != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {bias.shape}")
    return _gen.linear(q, w_q, b_q), _gen.linear(k, w_k, b_k), _gen.linear(v, w_v, b_v)


def _check_key_padding_mask(key_padding_mask, src_len, bsz) -> None:
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}")


def _project(query, key, value, num_heads, in_proj_weight, in_proj_bias, use_separate_proj_weight, q_proj_weight,
             k_proj_weight, v_proj_weight):
    if not use_separate_proj_weight:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}")
    for name, w in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                    ("v_proj_weight", v_proj_weight)):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name} is None")
    b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    return _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)


def _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads):
    """A 2-D (L, S) mask becomes (1, L, S); a 3-D one must be (N * H, L, S)."""
    if attn_mask.dim() == 2:
        if attn_mask.shape != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if attn_mask.shape != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _heads(t, static, bsz, num_heads, head_dim, name):
    """(S, N, E) -> (N * H, S, E / H), or the given ``static_k``/``static_v`` after checking its shape."""
    if static is None:
        return t.view(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def _pad_last(mask):
    return None if mask is None else _gen.pad(mask, (0, 1))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention over sequence-first inputs; returns ``(attn_output, attn_weights or None)``.

    Example:
        >>> import glasstorch as torch
        >>> E, H = 4, 2
        >>> x = torch.randn(3, 1, E)
        >>> out, w = torch.nn.functional.multi_head_attention_forward(
        ...     x, x, x, E, H, torch.randn(3 * E, E), torch.zeros(3 * E), None, None, False, 0.0,
        ...     torch.randn(E, E), torch.zeros(E))
        >>> out.shape, w.shape
        (torch.Size([3, 1, 4]), torch.Size([1, 3, 3]))
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                           "`generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    q, k, v = _project(query, key, value, num_heads, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                       q_proj_weight, k_proj_weight, v_proj_weight)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _gen.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _gen.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, bsz, num_heads, head_dim, "static_k")
    v = _heads(v, static_v, bsz, num_heads, head_dim, "static_v")
    if add_zero_attn:
        zero_shape = (bsz * num_heads, 1, head_dim)
        k = _gen.cat([k, zeros(zero_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = _gen.cat([v, zeros(zero_shape, dtype=v.dtype, device=v.device)], dim=1)
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, src_len, bsz)
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    shape = (tgt_len, bsz, embed_dim, src_len, num_heads, head_dim)
    if need_weights:
        out, weights = _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal, shape, out_proj_weight,
                                            out_proj_bias, average_attn_weights)
    else:
        out, weights = _attend_fused(q, k, v, attn_mask, dropout_p, is_causal, shape, out_proj_weight,
                                     out_proj_bias), None
    if not is_batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights


def _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal, shape, out_proj_weight, out_proj_bias, average):
    tgt_len, bsz, embed_dim, src_len, num_heads, _ = shape
    q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
    if is_causal and attn_mask is None:
        raise AssertionError("FIXME: is_causal not implemented for need_weights")
    if attn_mask is not None:
        weights = _gen.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        weights = _gen.bmm(q_scaled, k.transpose(-2, -1))
    weights = weights.softmax(-1)
    if dropout_p > 0.0:
        weights = _gen.dropout(weights, dropout_p, True)
    out = _gen.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = _gen.linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    return out, (weights.mean(dim=1) if average else weights)


def _attend_fused(q, k, v, attn_mask, dropout_p, is_causal, shape, out_proj_weight, out_proj_bias):
    tgt_len, bsz, embed_dim, src_len, num_heads, head_dim = shape
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = _gen.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = _gen.linear(out, out_proj_weight, out_proj_bias)
    return out.view(tgt_len, bsz, out.size(1))
