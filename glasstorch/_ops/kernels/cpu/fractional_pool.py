"""Fractional max pooling CPU kernels — PyTorch's ``FractionalMaxPool2d.cpp`` and ``FractionalMaxPool3d.cpp``.

Each plane draws its window starts from its own random samples (one per spatial dim, in ``(W, H)`` order for
2-D and ``(T, H, W)`` for 3-D): ``start[i] = int((i + u) * alpha) - int(u * alpha)`` with
``alpha = (I - K) / (O - 1)`` and the last start pinned to ``I - K``.  PyTorch evaluates that formula in the
input's own dtype (float16/bfloat16 round after every operation), so it is done here in numpy arrays of that
dtype; with the same ``_random_samples`` the windows, the values and the indices are bit-equal.  A window keeps
its first maximum scanned row by row (a NaN always wins); indices are flat offsets into one input plane.

Invariant: every kernel also runs on ``meta`` tensors, computing only the output geometry.
"""

from __future__ import annotations

import itertools

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl, empty_contiguous
from ...tensor_iterator import resize_out
from .conv import _fmt, _meta
from .pooling import _scatter_add_planes

_FLOATS = (_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16)
_NAMES = {2: ("", "height", "width"), 3: ("time", "height", "width")}


def _check(n, self, kernel_size, output_size, samples):
    """PyTorch's structured meta checks of ``fractional_max_pool{n}d``, in its order and words."""
    op = f"fractional_max_pool{n}d"
    count = "" if n == 2 else "three "
    if len(kernel_size) != n:
        raise RuntimeError(f"{op}: kernel_size must either be a single Int or tuple of {count}Ints")
    if len(output_size) != n:
        raise RuntimeError(f"{op}: output_size must either be a single Int or tuple of {count}Ints")
    where = f"{op}()" if n == 2 else f"{op}_out()"
    if self.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{where}: Expected {n + 1}D or {n + 2}D tensor, but got: {_fmt(self.sizes)}")
    for d in range(self.ndim - n - 1, self.ndim):
        if self.sizes[d] <= 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{_fmt(self.sizes)} with dimension {d} being empty.")
    if samples.dtype != self.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch = self.sizes[0] if self.ndim == n + 2 else 1
    if samples.sizes[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.sizes[1] != self.sizes[self.ndim - n - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.sizes[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {samples.sizes[2]}.")
    in_sp = tuple(self.sizes[self.ndim - n:])
    slack = 0 if n == 2 else 1  # PyTorch's 3-D check is strict: o + k - 1 < i
    for name, o, k, i in zip(_NAMES[n][3 - n:], output_size, kernel_size, in_sp, strict=True):
        if o + k - 1 + slack > i:
            raise RuntimeError(f"{where}: pool {name} {k} too large relative to input {name} {i}")


def _starts(u, in_size, out_size, pool):
    """Window starts, shape (planes, out_size), from the planes' samples ``u`` (numpy, the input's dtype)."""
    dt = u.dtype.type
    seq = np.zeros(u.shape + (out_size,), np.int64)
    if out_size > 1:
        alpha = dt(in_size - pool) / dt(out_size - 1)
        base = (u * alpha).astype(np.float64).astype(np.int64)
        for i in range(out_size - 1):
            seq[:, i] = ((dt(i) + u) * alpha).astype(np.float64).astype(np.int64) - base
    if out_size > 0:
        seq[:, out_size - 1] = in_size - pool
    return seq


def _pool(x, samples, n, kernel_size, output_size):
    """(values, indices) of the planes ``x`` shaped (B, C, *spatial) with samples (>=B, C, n)."""
    B, C = x.shape[:2]
    in_sp = x.shape[2:]
    u = samples[:B].reshape(B * C, n)
    order = (1, 0) if n == 2 else (0, 1, 2)  # 2-D samples are (W, H)
    starts = [_starts(u[:, order[d]], in_sp[d], output_size[d], kernel_size[d]) for d in range(n)]
    planes = x.reshape((B * C,) + in_sp)
    P = B * C
    grids = np.meshgrid(*(np.arange(o) for o in output_size), indexing="ij")
    pidx = np.arange(P).reshape((P,) + (1,) * n)
    base = [s[:, g] for s, g in zip(starts, grids, strict=True)]  # each (P, *out)
    best = np.full((P,) + tuple(output_size), -np.inf, dtype=x.dtype)
    flat = np.zeros(best.shape, np.int64)
    strides = [int(np.prod(in_sp[d + 1:])) for d in range(n)]
    flat += sum(b * s for b, s in zip(base, strides, strict=True))
    for offs in itertools.product(*(range(k) for k in kernel_size)):
        pos = [b + o for b, o in zip(base, offs, strict=True)]
        val = planes[(pidx, *pos)]
        take = (val > best) | np.isnan(val)
        best = np.where(take, val, best)
        flat = np.where(take, sum(p * s for p, s in zip(pos, strides, strict=True)), flat)
    shape = x.shape[:2] + tuple(output_size)
    return best.reshape(shape), flat.reshape(shape)


def _forward(n, self, kernel_size, output_size, random_samples, out=None, indices=None):
    kernel_size, output_size = tuple(kernel_size), tuple(output_size)
    _check(n, self, kernel_size, output_size, random_samples)
    shape = tuple(self.sizes[:self.ndim - n]) + output_size
    out = _result(out, shape, self.dtype, self)
    indices = _result(indices, shape, _dt.int64, self)
    if self.dtype not in _FLOATS:
        raise NotImplementedError(f'"fractional_max_pool{n}d_out_frame" not implemented for '
                                  f"'{_dt.name_of(self.dtype)}'")
    if _meta(self, random_samples, out, indices) or not out.numel():
        return out, indices
    x = self.as_numpy()
    if self.ndim == n + 1:
        x = x[None]
    vals, idx = _pool(np.ascontiguousarray(x), random_samples.as_numpy(), n, kernel_size, output_size)
    np.copyto(out.as_numpy(), vals.reshape(shape), casting="unsafe")
    np.copyto(indices.as_numpy(), idx.reshape(shape))
    return out, indices


def _result(out, shape, dtype, self) -> TensorImpl:
    if out is None:
        return empty_contiguous(shape, dtype, self.device)
    resize_out(out, shape)
    return out


def fractional_max_pool2d_out(self, kernel_size, output_size, random_samples, output=None, indices=None):
    """``fractional_max_pool2d(.output)``: the first maximum of each random window and its flat index."""
    return _forward(2, self, kernel_size, output_size, random_samples, output, indices)


def fractional_max_pool3d_out(self, kernel_size, output_size, random_samples, output=None, indices=None):
    """``fractional_max_pool3d(.output)``."""
    return _forward(3, self, kernel_size, output_size, random_samples, output, indices)


def _backward(n, grad_output, self, output_size, indices, grad_input):
    op = f"fractional_max_pool{n}d_backward"
    g_sp = tuple(grad_output.sizes[grad_output.ndim - n:])
    for name, want, got in zip(_NAMES[n][3 - n:], output_size, g_sp, strict=True):
        if want != got:
            raise RuntimeError(f"{op}(): gradOutput {name} unexpected")
    grad_input = _result(grad_input, tuple(self.sizes), self.dtype, self)
    if _meta(grad_output, self, indices, grad_input) or not grad_input.numel():
        return grad_input
    res = _scatter_add_planes(grad_output.as_numpy(), indices.as_numpy(), tuple(self.sizes), n)
    np.copyto(grad_input.as_numpy(), res, casting="unsafe")
    return grad_input


def fractional_max_pool2d_backward_out(grad_output, self, kernel_size, output_size, indices, grad_input=None):
    """``fractional_max_pool2d_backward(.grad_input)``: each output's grad added at its argmax, in order."""
    return _backward(2, grad_output, self, tuple(output_size), indices, grad_input)


def fractional_max_pool3d_backward_out(grad_output, self, kernel_size, output_size, indices, grad_input=None):
    """``fractional_max_pool3d_backward(.grad_input)``."""
    return _backward(3, grad_output, self, tuple(output_size), indices, grad_input)
