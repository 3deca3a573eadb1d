"""``ctc_loss`` (both overloads) over ``_ctc_loss`` — PyTorch's ``ctc_loss_impl`` in ``LossCTC.cpp``.

The composite adds the batch dimension of an unbatched input, casts the targets to int64, zeroes infinite
losses under ``zero_infinity``, and reduces: ``mean`` divides each loss by its target length (clamped to at
least 1) before the batch mean, ``sum`` adds; ``none`` keeps the per-sample losses.  The ``.Tensor`` overload
reads the lengths to host integers first (PyTorch's fast path), so both reach the ``int[]`` kernel.

Invariant: only differentiable operators on ``log_probs``, so autograd reaches ``_ctc_loss``'s formula.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..aten import aten
from ..factories import full_impl, tensor_impl

__all__ = ["ctc_loss_intlist", "ctc_loss_tensor"]

_MEAN, _SUM = 1, 2


def ctc_loss_intlist(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    """``ctc_loss.IntList``: the loss per sample from ``_ctc_loss``, then zero_infinity and the reduction."""
    batched = log_probs.ndim == 3
    lp = log_probs if batched else aten.unsqueeze(log_probs, 1)
    if targets.dtype is not _dt.int64:
        targets = aten._to_copy(targets, _dt.int64, None, None, None, False, None)
    res = aten._ctc_loss(lp, targets, list(input_lengths), list(target_lengths), blank, zero_infinity)[0]
    if zero_infinity:
        zero = full_impl((), 0, res.dtype, res.device)
        res = aten.where_self(aten.eq_Scalar(res, float("inf")), zero, res)
    if reduction == _MEAN:
        lengths = aten.clamp_min(tensor_impl(list(target_lengths), res.dtype, res.device), 1)
        return aten.mean(aten.div_Tensor(res, lengths), None)
    if reduction == _SUM:
        return aten.sum(res, None)
    return res if batched else aten.squeeze_dim(res, 0)


def _host_lengths(t, name):
    if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype is _dt.bool:
        raise RuntimeError(f"{name} must be integral")
    return [int(v) for v in t.as_numpy().reshape(-1)]


def ctc_loss_tensor(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    """``ctc_loss.Tensor``: the lengths read as host integers, then ``ctc_loss.IntList``."""
    il = _host_lengths(input_lengths, "input_lengths")
    tl = _host_lengths(target_lengths, "target_lengths")
    return ctc_loss_intlist(log_probs, targets, il, tl, blank, reduction, zero_infinity)
