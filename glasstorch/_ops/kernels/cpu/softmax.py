"""Softmax and log-softmax on CPU — PyTorch's ``SoftMax.cpp`` (``_softmax``, ``_log_softmax`` and their
``_backward_data`` operators) and ``cpu/SoftMaxKernel.cpp`` / ``cpu/LogSoftmaxKernelImpl.h`` (the loops).

float32 and float64 compute in their own type.  float16 and bfloat16 compute in float32 and round where
PyTorch's loops store a half value (Note [Half-precision softmax]).  Results are contiguous.

Note [Half-precision softmax]
PyTorch's CPU loops differ by path, and the roundings they leave in show in the last bit:
- softmax along the last dim: ``e = exp(x - max)``, ``s = sum(e)`` and ``e * (1 / s)`` in float, rounded once.
- softmax along another dim: the inner positions are walked in vectors of one SIMD register of the half type
  (``Vectorized<Half>::size()``); a full vector divides its float ``e`` by ``s``, the scalar tail first stores
  ``e`` as a half value and divides that.  ``at::parallel_for`` hands each thread ``ceil(n / threads)``
  positions (grain size 0), so where a thread's range ends a vector is cut into a tail too.
- log-softmax along the last dim keeps ``sum(exp(x - max))`` and its log in half-typed scratch arrays (each
  rounded), then ``x - max - log_sum`` in float; along another dim it is float throughout.
- both backward kernels accumulate in float and round the result once: ``(g - sum(g * y)) * y`` and
  ``g - exp(y) * sum(g)``, the latter's multiply-subtract fused (the compiler contracts it) and ``exp`` as
  accurate as Sleef's ``u10``: computed here in double and rounded to float.

Invariant: ``grad`` and ``output`` have one size; every result has the input's size.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core.shape import wrap_dim
from ...._tensor.impl import empty_contiguous
from ...tensor_iterator import resize_out
from .activation import FLOATING, check_out_dtype, not_implemented, opmath
from .vector_lanes import float_lanes, half_vector_width, run_mask

__all__ = ["softmax_out", "log_softmax_out", "softmax_backward_data", "log_softmax_backward_data"]

_HALF = (_dt.float16, _dt.bfloat16)


def _fmt(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _round(a: np.ndarray, dtype) -> np.ndarray:
    """``a`` (float32) rounded to the half type ``dtype`` and read back as float32: one half-typed store."""
    return a.astype(dtype.np).astype(np.float32)


def _exp(a: np.ndarray) -> np.ndarray:
    """float32 ``exp`` as accurate as PyTorch's (Sleef u10, libm): in double, rounded to float."""
    return np.exp(a.astype(np.float64)).astype(np.float32)


def _split(x: np.ndarray, sizes, d: int) -> np.ndarray:
    """``x`` viewed as (outer, dim, inner), the layout PyTorch's loops walk."""
    outer = int(np.prod(sizes[:d], dtype=np.int64))
    inner = int(np.prod(sizes[d + 1:], dtype=np.int64))
    return x.reshape(outer, sizes[d] if sizes else 1, inner)


# -- sums in PyTorch's order ---------------------------------------------------------------------------------------
def _tree(acc: np.ndarray) -> np.ndarray:
    """``vec_reduce_all`` of full float vectors (rows, lanes): halves added pairwise down to lane 0."""
    while acc.shape[-1] > 1:
        half = acc.shape[-1] // 2
        acc = acc[..., :half] + acc[..., half:]
    return acc[..., 0]


def _sequential(a: np.ndarray, axis: int) -> np.ndarray:
    """The sum along ``axis`` added left to right (numpy sums an innermost axis pairwise)."""
    return np.cumsum(a, axis=axis, dtype=a.dtype).take([-1], axis=axis)


def _functional_sum(p: np.ndarray) -> np.ndarray:
    """Row sums of the float32 (rows, n) ``p`` in ``vec::reduce_all``'s order for half-typed data
    (functional_bfloat16.h): two float accumulators per half vector, a short row folded into one, then a tree."""
    fw = float_lanes()
    rows, n = p.shape
    full = n // (2 * fw) * (2 * fw)
    padded = np.zeros((rows, max(-(-n // (2 * fw)), 1) * 2 * fw), np.float32)
    padded[:, :n] = p
    if n < 2 * fw:
        acc = padded[:, :fw].copy()
        if n <= fw:
            return _sequential(acc[:, :n], 1)[:, 0] if n else np.zeros(rows, np.float32)
        acc[:, :n - fw] += padded[:, fw:n]
        return _tree(acc)
    blocks = padded.reshape(rows, -1, 2, fw)
    acc = blocks[:, 0].copy()
    for b in range(1, full // (2 * fw)):
        acc += blocks[:, b]
    if n > full:  # the partial last vector: only its loaded lanes are added
        rest = n - full
        tail = blocks[:, -1].reshape(rows, 2 * fw)
        acc.reshape(rows, 2 * fw)[:, :rest] += tail[:, :rest]
    return _tree(acc[:, 0] + acc[:, 1])


def _buffer_sum(e: np.ndarray) -> np.ndarray:
    """Row sums of the float32 (rows, n) ``e`` as ``_vec_softmax_lastdim`` adds its float buffer: one float vector
    accumulator over whole vectors, its tree, then the leftover elements one by one."""
    fw = float_lanes()
    rows, n = e.shape
    full = n // fw * fw
    total = np.zeros(rows, np.float32)
    if full:
        blocks = e[:, :full].reshape(rows, -1, fw)
        acc = blocks[:, 0].copy()
        for b in range(1, full // fw):
            acc += blocks[:, b]
        total = _tree(acc)
    for j in range(full, n):
        total = total + e[:, j]
    return total


def _row_sum(a: np.ndarray, lastdim: bool, buffer: bool = False) -> np.ndarray:
    """Sum over axis 1 of the float32 (outer, dim, inner) ``a``, keepdims, in the loop order of PyTorch's half
    kernels: vector functionals along the last dim, one position at a time along another."""
    if not lastdim:
        return _sequential(a, 1)
    rows = a.reshape(a.shape[0], a.shape[1])
    return (_buffer_sum(rows) if buffer else _functional_sum(rows)).reshape(a.shape[0], 1, 1)


# -- forward ------------------------------------------------------------------------------------------------------
def _half_softmax(x: np.ndarray, dtype, lastdim: bool, log: bool) -> np.ndarray:
    """Softmax or log-softmax over axis 1 of the float32 (outer, dim, inner) ``x``, as PyTorch's half loops."""
    shifted = x - x.max(axis=1, keepdims=True)
    e = _exp(shifted)
    total = _row_sum(e, lastdim, buffer=not log)
    if log:
        log_sum = _round(np.log(_round(total, dtype)), dtype) if lastdim else np.log(total)
        return shifted - log_sum
    if lastdim:
        return e * (np.float32(1) / total)
    vec = run_mask(x.shape[0], x.shape[2], half_vector_width(), grain=0)[:, None, :]
    return np.where(vec, e / total, _round(e, dtype) / total)


def _softmax_common(self, dim, half_to_float, out, log: bool):
    d = wrap_dim(dim, self.ndim)
    if out is None:
        out = empty_contiguous(self.sizes, self.dtype, self.device)
    else:
        check_out_dtype(out, self.dtype)
        resize_out(out, self.sizes)
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    if self.numel() == 0 or out.storage._data is None:
        return out
    name = "log_softmax" if log else "softmax"
    lastdim = self.ndim == 0 or d == self.ndim - 1
    if self.dtype not in FLOATING:
        raise not_implemented(f"{name}_lastdim_kernel_impl" if lastdim else f"{name}_kernel_impl", self.dtype)
    x = _split(self.as_numpy().astype(opmath(self.dtype), copy=False), self.sizes, d if self.ndim else 0)
    with np.errstate(all="ignore"):
        if self.dtype in _HALF:
            res = _half_softmax(x, self.dtype, lastdim, log)
        else:
            shifted = x - np.max(x, axis=1, keepdims=True)
            e = np.exp(shifted)
            total = np.sum(e, axis=1, keepdims=True)
            res = shifted - np.log(total) if log else e / total
    np.copyto(out.as_numpy(), res.reshape(self.sizes), casting="unsafe")
    return out


def softmax_out(self, dim, half_to_float, out):
    """``exp(x - max) / sum(exp(x - max))`` along ``dim``; the result is contiguous."""
    return _softmax_common(self, dim, half_to_float, out, log=False)


def log_softmax_out(self, dim, half_to_float, out):
    """``x - max - log(sum(exp(x - max)))`` along ``dim``."""
    return _softmax_common(self, dim, half_to_float, out, log=True)


# -- backward -----------------------------------------------------------------------------------------------------
def _backward_common(grad_output, output, dim, input_dtype, log: bool):
    """The checks, allocation and dtype dispatch both ``_backward_data`` kernels share; their own maths run on
    float32 (half types) or native (g, y) arrays shaped (outer, dim, inner)."""
    d = wrap_dim(dim, grad_output.ndim)
    dtype = grad_output.dtype
    if dtype is _dt.float32 and input_dtype is _dt.float16:  # CUDA's half_to_float; the CPU kernel refuses it below
        dtype = _dt.float16
    out = empty_contiguous(grad_output.sizes, dtype, grad_output.device)
    if out.storage._data is None or out.numel() == 0:
        return out
    for t in (out, output):  # the CPU kernel reads both as grad's type
        if t.dtype is not grad_output.dtype:
            raise RuntimeError(f"expected scalar type {_dt.name_of(grad_output.dtype)} but found "
                               f"{_dt.name_of(t.dtype)}")
    lastdim = grad_output.ndim == 0 or d == grad_output.ndim - 1
    if dtype not in FLOATING:
        name = "log_softmax_backward" if log else "softmax_backward"
        raise not_implemented(f"{name}_lastdim_kernel_impl" if lastdim else f"{name}_kernel_impl", dtype)
    work = opmath(dtype)
    axis = d if grad_output.ndim else 0
    g = _split(grad_output.as_numpy().astype(work, copy=False), grad_output.sizes, axis)
    y = _split(output.as_numpy().astype(work, copy=False), output.sizes, axis)
    half = dtype in _HALF
    with np.errstate(all="ignore"):
        res = _log_softmax_grad(g, y, lastdim, half) if log else (g - _grad_sum(g * y, lastdim, half)) * y
    np.copyto(out.as_numpy(), res.reshape(out.sizes), casting="unsafe")
    return out


def _grad_sum(a: np.ndarray, lastdim: bool, half: bool) -> np.ndarray:
    return _row_sum(a, lastdim) if half else a.sum(axis=1, keepdims=True)


def _log_softmax_grad(g: np.ndarray, y: np.ndarray, lastdim: bool, half: bool) -> np.ndarray:
    """``g - exp(y) * sum(g)``; in float32 the product and difference are one fused step (exact in double)."""
    total = _grad_sum(g, lastdim, half)
    if g.dtype != np.float32:
        return g - np.exp(y) * total
    return (g.astype(np.float64) - _exp(y).astype(np.float64) * total).astype(np.float32)


def softmax_backward_data(grad_output, output, dim, input_dtype):
    """``(grad - sum(grad * output, dim)) * output``: softmax's gradient from its output."""
    if grad_output.sizes != output.sizes:
        raise RuntimeError(f"Expected tensor for argument #1 'grad' to have same size as tensor for argument #2 "
                           f"'output'; but {_fmt(grad_output.sizes)} does not equal {_fmt(output.sizes)} (while "
                           f"checking arguments for softmax_backward)")
    return _backward_common(grad_output, output, dim, input_dtype, log=False)


def log_softmax_backward_data(grad_output, output, dim, input_dtype):
    """``grad - exp(output) * sum(grad, dim)``: log-softmax's gradient from its output."""
    if grad_output.sizes != output.sizes:  # PyTorch does not check, and reads past output's end
        raise RuntimeError(f"log_softmax_backward: grad {_fmt(grad_output.sizes)} and output "
                           f"{_fmt(output.sizes)} differ in size")
    return _backward_common(grad_output, output, dim, input_dtype, log=True)
