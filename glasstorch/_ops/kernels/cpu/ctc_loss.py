"""CTC loss CPU kernels — PyTorch's ``LossCTC.cpp`` (``_ctc_loss`` and ``_ctc_loss_backward``, both overloads).

Graves' forward-backward recursion in log space over the extended target ``l'`` (a blank between and around
the labels, state ``s`` is label ``s // 2`` when odd, blank when even).  Every step is PyTorch's scalar
formula, ``log(exp(a - m) + exp(b - m) + exp(c - m)) + m + log_prob`` with ``m = max`` (0 when all are
``-inf``), evaluated in the input's dtype; the loops run over time and states, vectorised across the batch
(and, for alpha and beta, across the states of one time step, which depend only on the previous step).  The
gradient collects ``alpha + beta`` per (time, character) with the same pairwise log-add in descending ``s``,
then ``(exp(lp) - exp(collected + nll - lp)) * grad``; ``zero_infinity`` zeroes the rows of infinite losses.

Invariant: ``log_alpha`` is (batch, T, 2 * max_target_length + 1); states past a sample's own ``2 * L`` and
times past its input length hold ``-inf`` (PyTorch leaves them unwritten).
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl, empty_contiguous
from .conv import _meta

_C = "ctc_loss_allocate_outputs"


def _arg_error(msg, n, name):
    return RuntimeError(f"{msg} for argument #{n} '{name}' (while checking arguments for {_C})")


def _lengths(v, name):
    """An ``int[]`` argument as a list, or the ``.Tensor`` overload's integral tensor read as int64."""
    if not isinstance(v, TensorImpl):
        return [int(x) for x in v]
    if v.dtype.is_floating_point or v.dtype.is_complex or v.dtype is _dt.bool:
        raise RuntimeError(f"{name} must be integral")
    return [int(x) for x in v.as_numpy().reshape(-1)]


def _check(log_probs, targets, il, tl, blank):
    """``ctc_loss_allocate_outputs``: PyTorch's checks, in its order; returns (max_target_length, offsets)."""
    if targets.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"Expected tensor for argument #2 'targets' to have scalar type Int; but got "
                           f"torch.{targets.dtype._tensor_type} instead (while checking arguments for {_C})")
    if log_probs.ndim != 3:
        raise _arg_error(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional tensor", 1,
                         "log_probs")
    if not 1 <= targets.ndim < 3:
        raise _arg_error(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional tensor", 2, "targets")
    T, B, C = log_probs.sizes
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    if len(il) != B:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != B:
        raise RuntimeError("target_lengths must be of size batch_size")
    for n in tl:
        if n < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {n} "
                               f"(while checking arguments for {_C})")
    if targets.ndim == 1:
        offsets = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64) if B else np.zeros(0, np.int64)
        want = int(sum(tl))
        if targets.sizes[0] != want:
            raise _arg_error(f"Expected tensor to have size {want} at dimension 0, but got size "
                             f"{targets.sizes[0]}", 2, "targets")
        max_len = max(tl, default=0)
    else:
        if targets.sizes[0] != B:
            raise _arg_error(f"Expected tensor to have size {B} at dimension 0, but got size {targets.sizes[0]}",
                             2, "targets")
        max_len = max(tl, default=0)
        if targets.sizes[1] < max_len:
            raise _arg_error(f"Expected tensor to have size at least {max_len} at dimension 1, but got size "
                             f"{targets.sizes[1]}", 2, "targets")
        offsets = None
    for n in il:
        if n < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {n} "
                               f"(while checking arguments for {_C})")
        if n > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {n} "
                               f"(while checking arguments for {_C})")
    return max_len, offsets


def _primes(targets, tl, offsets, blank, S):
    """``l'`` per sample: (B, S) label of each extended state (blank when even), and the valid-state mask."""
    tg = targets.as_numpy().astype(np.int64)
    B = len(tl)
    primes = np.full((B, S), blank, np.int64)
    for b, n in enumerate(tl):
        row = tg[offsets[b]:offsets[b] + n] if offsets is not None else tg[b, :n]
        primes[b, 1:2 * n:2] = row
    valid = np.arange(S)[None, :] <= 2 * np.asarray(tl, np.int64)[:, None]
    return primes, valid


def _lse3(a, b, c, neginf):
    """PyTorch's three-term log-sum-exp around the maximum (0 when all three are ``-inf``)."""
    m = np.maximum(np.maximum(a, b), c)
    m = np.where(m == neginf, m.dtype.type(0), m)
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) is the -inf of an unreachable state
        return np.log(np.exp(a - m) + np.exp(b - m) + np.exp(c - m)) + m


def _alpha(lp, primes, valid, il, tl, neginf):
    """log_alpha (B, T, S) and the negative log likelihood (B,)."""
    T, B, _ = lp.shape
    S = primes.shape[1]
    lpb = np.transpose(lp, (1, 0, 2))  # (B, T, C)
    emit = np.take_along_axis(lpb, np.broadcast_to(primes[:, None, :], (B, T, S)), axis=2)  # lp[t, l'[s]]
    alpha = np.full((B, T, S), neginf, lp.dtype)
    il_a = np.asarray(il, np.int64)
    tl_a = np.asarray(tl, np.int64)
    started = il_a > 0
    alpha[started, 0, 0] = emit[started, 0, 0]
    first = started & (tl_a > 0)
    if first.any():  # with every target empty there is no second state to index (S == 1)
        alpha[first, 0, 1] = emit[first, 0, 1]
    skip = np.zeros((B, S), bool)
    skip[:, 2:] = primes[:, :-2] != primes[:, 2:]
    for t in range(1, T):
        prev = alpha[:, t - 1]
        la2 = np.concatenate([np.full((B, 1), neginf, lp.dtype), prev[:, :-1]], axis=1)
        la3 = np.where(skip, np.concatenate([np.full((B, 2), neginf, lp.dtype), prev[:, :-2]], axis=1), neginf)
        new = _lse3(prev, la2, la3, neginf) + emit[:, t]
        upd = valid & (t < il_a)[:, None]
        alpha[:, t] = np.where(upd, new, alpha[:, t])
    nll = np.empty(B, lp.dtype)
    for b in range(B):
        n, length = il[b], tl[b]
        if n == 0:
            nll[b] = -(lp.dtype.type(0) if length == 0 else neginf)
        elif length == 0:
            nll[b] = -alpha[b, n - 1, 0]
        else:
            l1, l2 = alpha[b, n - 1, 2 * length], alpha[b, n - 1, 2 * length - 1]
            m = max(l1, l2)
            m = lp.dtype.type(0) if m == neginf else m
            with np.errstate(divide="ignore"):
                nll[b] = -(np.log(np.exp(l1 - m) + np.exp(l2 - m)) + m)
    return alpha, nll


def _forward(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    if log_probs.dtype not in (_dt.float32, _dt.float64):
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for '{_dt.name_of(log_probs.dtype)}'")
    if not _meta(log_probs) and log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    max_len, offsets = _check(log_probs, targets, il, tl, blank)
    T, B, _ = log_probs.sizes
    S = 2 * max_len + 1
    nll = empty_contiguous((B,), log_probs.dtype, log_probs.device)
    log_alpha = empty_contiguous((B, T, S), log_probs.dtype, log_probs.device)
    if _meta(log_probs, targets, nll):
        return nll, log_alpha
    lp = log_probs.as_numpy()
    neginf = lp.dtype.type(-np.inf)
    primes, valid = _primes(targets, tl, offsets, blank, S)
    alpha, loss = _alpha(lp, primes, valid, il, tl, neginf)
    log_alpha.as_numpy()[...] = alpha
    nll.as_numpy()[...] = loss
    return nll, log_alpha


def ctc_loss_cpu(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    """``_ctc_loss`` (and ``.Tensor``): (neg_log_likelihood (B,), log_alpha (B, T, 2 * max_target + 1))."""
    return _forward(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)


def _beta(lp, primes, valid, il, tl, neginf):
    """log_beta (B, T, S): the recursion of eq. (10)/(11) from each sample's last input step down."""
    T, B, _ = lp.shape
    S = primes.shape[1]
    lpb = np.transpose(lp, (1, 0, 2))
    emit = np.take_along_axis(lpb, np.broadcast_to(primes[:, None, :], (B, T, S)), axis=2)
    beta = np.full((B, T, S), neginf, lp.dtype)
    tl_a = np.asarray(tl, np.int64)
    for b in range(B):
        n, length = il[b], tl[b]
        if n > 0:
            beta[b, n - 1, 2 * length] = emit[b, n - 1, 2 * length]
            if length > 0:
                beta[b, n - 1, 2 * length - 1] = emit[b, n - 1, 2 * length - 1]
    ends = 2 * tl_a[:, None]
    s = np.arange(S)[None, :]
    skip = np.zeros((B, S), bool)
    skip[:, :-2] = primes[:, 2:] != primes[:, :-2]
    skip &= s < ends - 1
    il_a = np.asarray(il, np.int64)
    for t in range(T - 2, -1, -1):
        nxt = beta[:, t + 1]
        lb2 = np.where(s < ends, np.concatenate([nxt[:, 1:], np.full((B, 1), neginf, lp.dtype)], axis=1), neginf)
        lb3 = np.where(skip, np.concatenate([nxt[:, 2:], np.full((B, 2), neginf, lp.dtype)], axis=1), neginf)
        new = _lse3(nxt, lb2, lb3, neginf) + emit[:, t]
        upd = valid & (t <= il_a - 2)[:, None]
        beta[:, t] = np.where(upd, new, beta[:, t])
    return beta


def _collect(lp, alpha, beta, primes, valid, il, tl, neginf):
    """log of sum over states s with l'[s] == c of alpha * beta, at (t, b, c); PyTorch's order of log-adds."""
    T, B, C = lp.shape
    S = primes.shape[1]
    grad = np.full((T, B, C), neginf, lp.dtype)
    for b in range(B):  # the last step of each sample is assigned, not log-added
        n, length = il[b], tl[b]
        if n > 0:
            grad[n - 1, b, primes[b, 2 * length]] = alpha[b, n - 1, 2 * length] + beta[b, n - 1, 2 * length]
            if length > 0:
                c = primes[b, 2 * length - 1]
                grad[n - 1, b, c] = alpha[b, n - 1, 2 * length - 1] + beta[b, n - 1, 2 * length - 1]
    il_a = np.asarray(il, np.int64)
    t_idx = np.arange(T)[:, None]
    b_idx = np.broadcast_to(np.arange(B)[None, :], (T, B))
    rows = t_idx <= (il_a - 2)[None, :]  # (T, B)
    for s in range(S - 1, -1, -1):
        mask = rows & valid[:, s][None, :]
        if not mask.any():
            continue
        c = np.broadcast_to(primes[:, s][None, :], (T, B))
        ab = (alpha[:, :, s] + beta[:, :, s]).T  # (T, B)
        cur = grad[t_idx, b_idx, c]
        m = np.maximum(cur, ab)
        with np.errstate(invalid="ignore"):
            added = np.log(np.exp(cur - m) + np.exp(ab - m)) + m
        new = np.where(cur == neginf, ab, added)
        grad[t_idx, b_idx, c] = np.where(mask, new, cur)
    return grad


def _backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha, blank,
              zero_infinity):
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    if log_probs.dtype not in (_dt.float32, _dt.float64):
        raise NotImplementedError(f"\"ctc_loss_backward_cpu\" not implemented for '{_dt.name_of(log_probs.dtype)}'")
    out = empty_contiguous(tuple(log_probs.sizes), log_probs.dtype, log_probs.device)
    if _meta(grad, log_probs, targets, neg_log_likelihood, log_alpha, out):
        return out
    lp = log_probs.as_numpy()
    neginf = lp.dtype.type(-np.inf)
    T, B, _ = lp.shape
    S = log_alpha.sizes[2]
    offsets = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64) if targets.ndim == 1 else None
    primes, valid = _primes(targets, tl, offsets, blank, S)
    alpha = log_alpha.as_numpy()
    beta = _beta(lp, primes, valid, il, tl, neginf)
    collected = _collect(lp, alpha, beta, primes, valid, il, tl, neginf)
    nll = neg_log_likelihood.as_numpy()
    gr = grad.as_numpy()
    with np.errstate(invalid="ignore", over="ignore"):
        res = (np.exp(lp) - np.exp(collected + nll[None, :, None] - lp)) * gr[None, :, None]
    live = np.arange(T)[:, None] < np.asarray(il, np.int64)[None, :]
    if zero_infinity:
        live &= ~(nll == np.inf)[None, :]
    out.as_numpy()[...] = np.where(live[:, :, None], res, lp.dtype.type(0))
    return out


def ctc_loss_backward_cpu(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                          blank, zero_infinity=False):
    """``_ctc_loss_backward`` (and ``.Tensor``): the gradient w.r.t. ``log_probs``, shaped like it."""
    return _backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha, blank,
                     zero_infinity)
