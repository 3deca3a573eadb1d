"""Normalization backward CPU kernels — PyTorch's ``native_layer_norm_backward`` (``layer_norm.cpp`` with
``cpu/layer_norm_kernel.cpp``'s ``LayerNormBackwardKernelImpl``), ``native_batch_norm_backward``
(``Normalization.cpp``'s ``batch_norm_backward_cpu`` with ``cpu/batch_norm_kernel.cpp``) and
``native_group_norm_backward`` (``cpu/group_norm_kernel.cpp``), on numpy, in PyTorch's order of operations.

Batch norm: a contiguous float16/bfloat16 input takes the reduced-precision channel loop (per channel the float sums
of ``dy`` and ``(x - mean) * dy`` in the order of Note [Half batch norm], then
``dx = (dy - sum / n - (x - mean) * k) * invstd * w`` in float); other inputs are computed in double and rounded
once, within a rounding of PyTorch's double-accumulating float kernel.

The arithmetic is the kernel's: float (``opmath``) for float, half and bfloat16 inputs, double for double; the
row reductions follow Note [Vectorized reduction order] (vec_order.py) and the fused multiply-adds the compiler
forms there.  d weight and d bias are first accumulated per thread, rows split as ``at::parallel_for`` splits
them, into a buffer of the *input's* dtype (so a half input rounds that running sum to half after every row),
then the threads' buffers are added in ``opmath``.

Invariant: no input is written; every result is a fresh contiguous tensor.
"""

from __future__ import annotations

import math

import numpy as np

from ...._core import dtype as _dt
from ...._device.threads import get_num_threads
from ...._tensor.impl import TensorImpl, empty_contiguous
from .normalization import check_layer_norm_inputs, plane_sum
from .vec_order import fma, rnd, row_reduce

__all__ = ["native_layer_norm_backward_kernel", "native_batch_norm_backward_kernel",
           "native_group_norm_backward_kernel", "thread_rows"]

_HALF = (_dt.float16, _dt.bfloat16)


def _values(t: TensorImpl, shape=None) -> np.ndarray:
    """The elements of ``t`` (contiguous order) as float64 values."""
    a = np.ascontiguousarray(t.as_numpy()).astype(np.float64)
    return a if shape is None else a.reshape(shape)


def _store(out: TensorImpl | None, v) -> None:
    if out is not None and out.numel():
        np.copyto(out.as_numpy(), np.asarray(v, np.float64).reshape(out.sizes).astype(out.dtype.np), casting="unsafe")


def thread_rows(M: int) -> list[range]:  # noqa: N803 - PyTorch's names
    """The row ranges each thread of ``at::parallel_for(0, M, 1, ...)`` takes (OpenMP: equal chunks, in order;
    one range when a single thread or a single row runs it serially)."""
    nt = min(get_num_threads(), M)
    if nt <= 1:
        return [range(M)]
    chunk = -(-M // nt)
    return [range(b, min(M, b + chunk)) for b in range(0, M, chunk)]


def _buffered_sum(terms, M: int, N: int, buf_np, ct):  # noqa: N803
    """The two-pass d weight / d bias reduction: ``terms(acc, i)`` adds row ``i`` to a thread's buffer (kept in
    ``buf_np``, the input's dtype); the buffers are then added in ``ct``."""
    total = np.zeros(N)
    for rows in thread_rows(M):
        buf = np.zeros(N)
        for i in rows:
            buf = np.asarray(terms(buf, i), np.float64).astype(buf_np).astype(np.float64)
        total = rnd(total + buf, ct)
    return total


def _row_sums(dy, x, g, ct, reduced: bool, mixed: bool):
    """(ds, db) of every row: sum(dy * x * gamma) and sum(dy * gamma) as ``layer_norm_backward_frame`` forms them."""
    M, N = dy.shape  # noqa: N806
    if g is None:
        ds = row_reduce(lambda s: rnd(dy[:, s] * x[:, s], ct), lambda a, s: fma(dy[:, s], x[:, s], a, ct), N, ct,
                        reduced)
        db = row_reduce(lambda s: dy[:, s], lambda a, s: rnd(a + dy[:, s], ct), N, ct, reduced)
        return ds, db
    dg = rnd(dy * g, ct)
    if mixed:  # the float-parameter frame: x * (dy * gamma), the product reused by both sums
        ds = row_reduce(lambda s: rnd(x[:, s] * dg[:, s], ct), lambda a, s: fma(x[:, s], dg[:, s], a, ct), N, ct,
                        reduced)
        db = row_reduce(lambda s: dg[:, s], lambda a, s: rnd(a + dg[:, s], ct), N, ct, reduced)
        return ds, db
    dx_ = rnd(dy * x, ct)
    ds = row_reduce(lambda s: rnd(dx_[:, s] * g[:, s], ct), lambda a, s: fma(dx_[:, s], g[:, s], a, ct), N, ct,
                    reduced)
    db = row_reduce(lambda s: dg[:, s], lambda a, s: fma(dy[:, s], g[:, s], a, ct), N, ct, reduced)
    return ds, db


def _grad_input(dy, x, mean, a, g, ct, reduced: bool, mixed: bool):
    """dX = a * dy * gamma + b * x + c per row (the ``b * x`` product fused into the first sum), b and c from
    the row sums (``layer_norm_backward_frame``)."""
    N = dy.shape[1]  # noqa: N806
    scale = rnd(1.0 / N, ct)
    ds, db = _row_sums(dy, x, None if g is None else np.broadcast_to(g, dy.shape), ct, reduced, mixed)
    b = rnd(rnd(rnd(rnd(fma(db, mean, -ds, ct) * a, ct) * a, ct) * a, ct) * scale, ct)
    c = fma(-b, mean, -rnd(rnd(db * a, ct) * scale, ct), ct)
    a, b, c = a[:, None], b[:, None], c[:, None]
    ady = rnd(a * dy, ct) if g is None else rnd(rnd(a * dy, ct) * g, ct)
    return rnd(fma(b, x, ady, ct) + c, ct)


def native_layer_norm_backward_kernel(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    """``(d input, d weight, d bias)`` of ``native_layer_norm`` from its saved ``mean``/``rstd``; a result is
    None where ``output_mask`` does not ask for it."""
    axis = check_layer_norm_inputs(input, normalized_shape, weight, bias)
    M, N = math.prod(input.sizes[:axis]), math.prod(input.sizes[axis:])  # noqa: N806
    dx = empty_contiguous(input.sizes, input.dtype, input.device) if output_mask[0] else None
    dw = _param_grad(weight, output_mask[1], M)
    db = _param_grad(bias, output_mask[2], M)
    if M == 0 or N == 0 or input.storage._data is None:
        return dx, dw, db
    ct = np.float64 if input.dtype is _dt.float64 else np.float32
    reduced, mixed = input.dtype in _HALF, weight is not None and weight.dtype is not input.dtype
    dy, x = _values(grad_out, (M, N)), _values(input, (M, N))
    mu, a = _values(mean, (M,)), _values(rstd, (M,))
    g = None if weight is None else _values(weight, (N,))
    buf_np = input.dtype.np if reduced else ct
    if dw is not None:
        b = rnd(-a * mu, ct)
        _store(dw, _buffered_sum(lambda acc, i: fma(dy[i], fma(a[i], x[i], b[i], ct), acc, ct), M, N, buf_np, ct))
    if db is not None:
        _store(db, _buffered_sum(lambda acc, i: rnd(acc + dy[i], ct), M, N, buf_np, ct))
    if dx is not None:
        _store(dx, _grad_input(dy, x, mu, a, g, ct, reduced, mixed))
    return dx, dw, db


def _param_grad(p: TensorImpl | None, wanted: bool, M: int) -> TensorImpl | None:  # noqa: N803
    """d weight / d bias: like the parameter, zero-filled when there are no rows to reduce."""
    if not wanted or p is None:
        return None
    out = empty_contiguous(p.sizes, p.dtype, p.device)
    if M == 0 and out.storage._data is not None:
        out.as_numpy()[...] = 0
    return out


def _channel_values(t: TensorImpl | None, c: int, default: float) -> np.ndarray:
    return np.full(c, default) if t is None else _values(t, (c,))


def _batch_norm_stats(c, running_mean, running_var, save_mean, save_invstd, train, eps, half):
    """(mean, invstd) per channel as the backward reads them: the saved ones in training, else from the running
    statistics (``1 / sqrt(var + eps)`` in double, kept in float for a half input)."""
    if train:
        return _values(save_mean, (c,)), _values(save_invstd, (c,))
    invstd = 1.0 / np.sqrt(_values(running_var, (c,)) + eps)
    return _values(running_mean, (c,)), (rnd(invstd, np.float32) if half else invstd)


def native_batch_norm_backward_kernel(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd,
                                      train, eps, output_mask):
    """``(d input, d weight, d bias)`` of ``native_batch_norm``; None where ``output_mask`` does not ask."""
    c = input.sizes[1]
    params = (weight, running_mean, running_var, save_mean, save_invstd)
    pdt = _dt.float32 if any(p is not None and p.dtype is not input.dtype for p in params) else input.dtype
    dx = empty_contiguous(input.sizes, input.dtype, input.device) if output_mask[0] else None
    dw = empty_contiguous((c,), pdt, input.device) if output_mask[1] else None
    db = empty_contiguous((c,), pdt, input.device) if output_mask[2] else None
    if input.storage._data is None or input.numel() == 0:
        return dx, dw, db
    half = input.dtype in _HALF and input.is_contiguous() and grad_out.is_contiguous()
    B = input.sizes[0]  # noqa: N806
    x, dy = _values(input, (B, c, -1)), _values(grad_out, (B, c, -1))
    n = x.shape[0] * x.shape[2]
    mean, invstd = _batch_norm_stats(c, running_mean, running_var, save_mean, save_invstd, train, eps, half)
    w = _channel_values(weight, c, 1.0)
    m3, i3, w3 = mean[None, :, None], invstd[None, :, None], w[None, :, None]
    with np.errstate(all="ignore"):
        if half:
            f32 = np.float32
            cen = rnd(x - m3, f32)
            total = plane_sum(lambda a, g: rnd(a + g, f32), dy)
            dotp = plane_sum(lambda a, e, g: fma(e, g, a, f32), cen, dy)
            if train:
                k = rnd(rnd(rnd(dotp * invstd, f32) * invstd, f32) / f32(n), f32)[None, :, None]
                gm = rnd(total / f32(n), f32)[None, :, None]
                g = rnd(rnd(fma(-cen, k, rnd(dy - gm, f32), f32) * i3, f32) * w3, f32)
            else:
                g = rnd(rnd(dy * i3, f32) * w3, f32)
        else:
            total, dotp = dy.sum(axis=(0, 2)), ((x - m3) * dy).sum(axis=(0, 2))
            if train:
                g = (dy - total[None, :, None] / n - (x - m3) * (dotp * invstd * invstd / n)[None, :, None]) * i3 * w3
            else:
                g = dy * i3 * w3
        _store(dx, g)
        _store(dw, dotp * invstd)
        _store(db, total)
    return dx, dw, db


# -- group norm ---------------------------------------------------------------------------------------------
# Note [Group norm backward order]: ``cpu/group_norm_kernel.cpp`` first reduces every (n, c) plane to
# ``ds = sum(dy * x)`` and ``db = sum(dy)`` in opmath: for a half input the plane's first ``HxW // 32 * 32``
# elements go to the lanes of one float vector (element ``j`` to lane ``j % 16``, products fused into the running
# sums), the lanes are added left to right from 0, then the rest of the plane is added in order; a float or double
# input uses ``map2_reduce_all`` / ``reduce_all`` (Note [Vectorized reduction order]).
# The same shape of loop reduces ``ds * gamma`` and ``db * gamma`` over a group's channels.  Then
# ``dx = c1 * dy + c2 * x + c3`` with ``c1 = rstd * gamma``, ``c2 = (db * mean - ds) * rstd**3 / (D * HxW)`` and
# ``c3 = -c2 * mean - db * rstd / (D * HxW)``; d gamma sums ``(ds - db * mean) * rstd`` and d beta sums ``db`` over
# the batch in order.
def _lanes_then_tail(prod, n: int, width: int, lanes: int, ct, lead):
    """Sum over the last axis of ``prod(sl)`` products (``(a, b)`` pairs, fused into the sum) in the order of
    Note [Group norm backward order]."""
    cut = n // width * width
    acc = np.zeros(lead + (lanes,))
    for j in range(0, cut, lanes):
        a, b = prod(slice(j, j + lanes))
        acc = fma(a, b, acc, ct)
    total = np.zeros(lead)
    for k in range(lanes):
        total = rnd(total + acc[..., k], ct)
    for j in range(cut, n):
        a, b = prod(slice(j, j + 1))
        total = fma(a[..., 0], b[..., 0], total, ct)
    return total


def native_group_norm_backward_kernel(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):  # noqa: N803
    """``(d input, d weight, d bias)`` of ``native_group_norm`` from its saved mean/rstd (Note [Group norm backward
    order]); None where ``output_mask`` does not ask."""
    pdt = weight.dtype if weight is not None else input.dtype
    dx = empty_contiguous(input.sizes, input.dtype, input.device) if output_mask[0] else None
    dw = empty_contiguous((C,), pdt, input.device) if output_mask[1] else None
    db_out = empty_contiguous((C,), pdt, input.device) if output_mask[2] else None
    if input.storage._data is None:
        return dx, dw, db_out
    if input.numel() == 0:
        for t in (dw, db_out):
            if t is not None:
                t.as_numpy()[...] = 0
        return dx, dw, db_out
    G, D = group, C // group  # noqa: N806
    reduced = input.dtype in _HALF
    ct = np.float64 if input.dtype is _dt.float64 else np.float32
    width = 32 if reduced else 64 // np.dtype(ct).itemsize
    lanes = 16 if ct == np.float32 else 8
    x, dy = _values(input, (N, C, HxW)), _values(grad_out, (N, C, HxW))
    mu, r = _values(mean, (N, G)), _values(rstd, (N, G))
    ones = np.ones(C)
    g = ones if weight is None else _values(weight, (C,))
    if reduced:
        ds = _lanes_then_tail(lambda s: (dy[..., s], x[..., s]), HxW, width, lanes, ct, (N, C))
        db = _lanes_then_tail(lambda s: (dy[..., s], np.ones_like(dy[..., s])), HxW, width, lanes, ct, (N, C))
    else:  # map2_reduce_all / reduce_all over each plane
        ds = row_reduce(lambda s: rnd(dy[..., s] * x[..., s], ct), lambda a, s: fma(dy[..., s], x[..., s], a, ct),
                        HxW, ct)
        db = row_reduce(lambda s: dy[..., s], lambda a, s: rnd(a + dy[..., s], ct), HxW, ct)
    if dx is not None:
        pwidth = 32 if pdt in _HALF else 64 // np.dtype(ct).itemsize
        dsg, dbg, gg = ds.reshape(N, G, D), db.reshape(N, G, D), np.broadcast_to(g.reshape(1, G, D), (N, G, D))
        ds_v = _lanes_then_tail(lambda s: (dsg[..., s], gg[..., s]), D, pwidth, lanes, ct, (N, G))
        db_v = _lanes_then_tail(lambda s: (dbg[..., s], gg[..., s]), D, pwidth, lanes, ct, (N, G))
        s = rnd(1.0 / (D * HxW), ct)
        c2 = rnd(rnd(rnd(rnd(fma(db_v, mu, -ds_v, ct) * r, ct) * r, ct) * r, ct) * s, ct)
        c3 = fma(-c2, mu, -rnd(rnd(db_v * r, ct) * s, ct), ct)
        c1 = rnd(np.repeat(r, D, axis=1) * g[None, :], ct)[..., None]
        c2, c3 = np.repeat(c2, D, axis=1)[..., None], np.repeat(c3, D, axis=1)[..., None]
        _store(dx, rnd(fma(c2, x, rnd(c1 * dy, ct), ct) + c3, ct))
    if dw is not None:
        acc = np.zeros(C)
        mur, rr = np.repeat(mu, D, axis=1), np.repeat(r, D, axis=1)
        for n in range(N):
            acc = fma(fma(-db[n], mur[n], ds[n], ct), rr[n], acc, ct)
        _store(dw, acc)
    if db_out is not None:
        acc = np.zeros(C)
        for n in range(N):
            acc = rnd(acc + db[n], ct)
        _store(db_out, acc)
    return dx, dw, db_out
