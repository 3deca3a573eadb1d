"""Scaled dot product attention CPU kernels — PyTorch's ``transformers/attention.cpp`` (backend choice),
``transformers/sdp_utils_cpp.h`` (the flash gate) and ``cpu/FlashAttentionKernel.cpp``.

- ``_fused_sdp_choice`` picks PyTorch's CPU backend: flash attention (1) when every gate of
  ``use_flash_attention_cpp`` passes (4-D q/k/v of one floating dtype, no dropout, equal head sizes, equal
  batch sizes, equal heads or valid grouped-query heads, a 2-D/4-D broadcastable mask without grad,
  non-empty sequences, unit last-dim strides), else math (0);
- ``_scaled_dot_product_flash_attention_for_cpu`` computes, per (batch, head), ``S = q @ k^T`` in the
  accumulation type (float32 for float16/bfloat16), ``S * scale (+ mask)``, the causal ``-inf`` upper
  triangle, then the blocked online softmax over key blocks of 512: probabilities rounded to the input
  dtype before ``P @ V`` (as PyTorch's reduced-precision buffer does), row sums kept unrounded, output
  ``dst * (1 / sum)``; fully masked rows give 0 (and a logsumexp of 0).  The output takes the query's
  layout; ``logsumexp`` is (B, H, L) float32 stored as (B, L, H).

Invariant: the math backend (``_scaled_dot_product_attention_math``) is a decomposition elsewhere; these
kernels only run the fused path.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor.impl import TensorImpl, empty_strided_impl

__all__ = ["fused_sdp_choice_cpp", "flash_attention_for_cpu", "sdpa_use_flash", "SDP_MATH", "SDP_FLASH"]

SDP_MATH, SDP_FLASH = 0, 1
_FLASH_DTYPES = (_dt.float32, _dt.float64, _dt.bfloat16, _dt.float16)
_KV_SPLIT = 512


def _meta(*impls) -> bool:
    return any(type(t) is TensorImpl and t.storage._data is None for t in impls)


def _dim_size(t, d):
    nd = t.ndim
    if not -max(nd, 1) <= d < max(nd, 1):
        lo, hi = -max(nd, 1), max(nd, 1) - 1
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return t.sizes[d] if nd else 1


def _mask_shape_ok(q, k, mask) -> bool:
    """``check_attn_mask_shape``: a 2-D mask, or a 4-D one broadcastable over batch and heads."""
    if mask.autograd is not None and getattr(mask.autograd, "requires_grad", False):
        return False
    b, h, lq, lk = q.sizes[0], q.sizes[1], q.sizes[2], k.sizes[2]
    mq, mk = _dim_size(mask, -2), _dim_size(mask, -1)
    if not (mq == lq or mq == 1) or not (mk == lk or mk == 1):
        return False
    if mask.ndim == 2:
        return True
    if mask.ndim == 4:
        return (mask.sizes[0] in (b, 1)) and (mask.sizes[1] in (h, 1))
    return False


def sdpa_use_flash(q, k, v, mask, dropout_p, is_causal, enable_gqa) -> bool:
    """``use_flash_attention_cpp``: every gate, in PyTorch's order."""
    if dropout_p > 0.0:
        return False
    if not (q.ndim == k.ndim == v.ndim == 4):
        return False
    if not (q.sizes[0] == k.sizes[0] == v.sizes[0]):
        return False
    hq, hk, hv = q.sizes[-3], k.sizes[-3], v.sizes[-3]
    if enable_gqa:
        if hk != hv or hq % hk:
            return False
    elif not (hq == hk == hv):
        return False
    if mask is not None and not _mask_shape_ok(q, k, mask):
        return False
    if not (q.sizes[-1] == k.sizes[-1] == v.sizes[-1]):
        return False
    if q.sizes[-2] == 0 or k.sizes[-2] == 0:
        return False
    if not (q.strides[-1] == 1 and k.strides[-1] == 1 and v.strides[-1] == 1):
        return False
    return q.dtype in _FLASH_DTYPES and q.dtype is k.dtype is v.dtype


def fused_sdp_choice_cpp(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """``_fused_sdp_choice`` on the CPU: 1 (flash attention) or 0 (math)."""
    return SDP_FLASH if sdpa_use_flash(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa) else SDP_MATH


def _like(t: TensorImpl, dtype) -> TensorImpl:
    """``empty_like`` (preserve format): the same strides when ``t`` is dense, else dense strides in ``t``'s
    stride order (so a query split out of a fused projection gives a (B, T, H, D)-ordered output, as PyTorch)."""
    return empty_strided_impl(t.sizes, _shape.strides_for_format(t.sizes, t.strides, None), dtype, t.device)


def _check_flash(q, k, v, dropout_p, mask):
    name = "scaled_dot_product_attention_flash_attention"
    if dropout_p > 0.0:
        raise RuntimeError(f"{name}: Currently do not support dropout > 0")
    if not (q.ndim == 4 and k.ndim == 4 and v.ndim == 4):
        raise RuntimeError(f"{name}: Accept only 4 dims inputs shape of {{B, H, T, K}}")
    if not (q.sizes[3] == k.sizes[3] and q.sizes[3] == v.sizes[3]):
        raise RuntimeError(f"{name}: Q/K/V should have the same head size")
    if mask is not None and mask.dtype is not q.dtype and not (mask.dtype is _dt.float32 and
                                                               q.dtype in (_dt.float16, _dt.bfloat16)):
        raise RuntimeError(f"{name}: Attention mask is the same data type as query")
    for t in (k, v):
        if t.dtype is not q.dtype:
            raise RuntimeError(f"expected scalar type {_dt.name_of(q.dtype)} but found {_dt.name_of(t.dtype)}")


def flash_attention_for_cpu(query, key, value, dropout_p, is_causal, attn_mask, scale):
    """``_scaled_dot_product_flash_attention_for_cpu`` -> (output, logsumexp)."""
    _check_flash(query, key, value, dropout_p, attn_mask)
    b, h, lq, e = query.sizes
    lk = key.sizes[2]
    out = _like(query, query.dtype)
    lse_dtype = _dt.float64 if query.dtype is _dt.float64 else _dt.float32
    lse = empty_strided_impl((b, h, lq), (lq * h, 1, h), lse_dtype, query.device)
    if _meta(query, key, value, attn_mask):
        return out, lse
    dt = query.dtype.np
    acc = np.float64 if query.dtype is _dt.float64 else np.float32
    reduced = query.dtype in (_dt.float16, _dt.bfloat16)
    q = query.as_numpy().astype(acc)
    k = key.as_numpy().astype(acc)
    v = value.as_numpy()
    hk = key.sizes[1]
    if hk != h:  # grouped-query attention: query head j reads key/value head j // (h // hk)
        rep = h // hk
        k = np.repeat(k, rep, axis=1)
        v = np.repeat(v, rep, axis=1)
    scaling = acc(scale if scale is not None else 1.0 / np.sqrt(e))
    s = np.matmul(q, np.swapaxes(k, -1, -2))  # (B, H, Lq, Lk) in acc
    if is_causal:
        s = np.where(np.triu(np.ones((lq, lk), bool), 1), acc(-np.inf), s)
    if attn_mask is not None:
        m = attn_mask.as_numpy().astype(acc)
        m = m.reshape((1, 1) * (4 - m.ndim) + m.shape) if m.ndim < 4 else m
        s = s * scaling + m
    else:
        s = s * scaling
    vv = v.astype(dt, copy=False)
    dst = np.zeros((b, h, lq, value.sizes[3]), acc)
    run_max = np.full((b, h, lq), -np.inf, acc)
    run_sum = np.zeros((b, h, lq), acc)
    with np.errstate(invalid="ignore", over="ignore"):
        for n in range(0, lk, _KV_SPLIT):
            blk = s[..., n:n + _KV_SPLIT]
            new_max = np.maximum(run_max, blk.max(axis=-1))
            dead = np.isneginf(new_max)
            shift = np.where(dead, acc(0), new_max)
            p = np.exp(blk - shift[..., None])
            p = np.where(dead[..., None], acc(0), p)
            bsum = p.sum(axis=-1, dtype=acc)
            if reduced:
                p = p.astype(dt).astype(acc)  # PyTorch keeps P in the input dtype for P @ V
            factor = np.where(dead, acc(0), np.exp(np.where(dead, acc(0), run_max - shift)))
            run_sum = bsum + factor * run_sum
            pv = np.matmul(p, vv[..., n:n + _KV_SPLIT, :].astype(acc))
            dst = pv if n == 0 else dst * factor[..., None] + pv
            run_max = new_max
        recip = np.where(run_sum == 0, acc(0), acc(1) / run_sum)
        result = dst * recip[..., None]
        logsum = np.where(np.isneginf(run_max), acc(0), run_max + np.log(run_sum))
    out.as_numpy()[...] = result
    lse.as_numpy()[...] = logsum
    return out, lse
