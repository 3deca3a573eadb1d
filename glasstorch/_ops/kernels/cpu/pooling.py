"""Pooling CPU kernels beyond the 2-D forward ones of ``conv.py`` — PyTorch's ``DilatedMaxPool3d.cpp``,
``AveragePool3d.cpp``, ``AdaptiveMaxPooling{2,3}d.cpp``, ``AdaptiveAveragePooling3d.cpp``, ``MaxUnpooling.cpp``
and the backward kernels of ``cpu/{MaxPoolKernel,AvgPoolKernel,AdaptiveAvgPoolKernel}.cpp``.

Every kernel works on numpy arrays shaped (planes..., *spatial) for 1 to 3 spatial dims and loops over window
offsets (never over pixels) with whole-output numpy operations, in PyTorch's scan order:

- max pools keep the first maximum of a window scanned row by row (a NaN always wins), indices are flat
  offsets into one input plane;
- backward kernels add in PyTorch's order, in the tensor's own dtype (float16/bfloat16 round after every
  addition, as ``grad_input[i] += delta`` does): the average pools' ``grad / divide_factor`` is added one
  window offset at a time, offsets in reverse so that each input element sees the outputs in row-major
  order; index-driven backwards (max pools) go through ``np.add.at``, which adds in index order.

Invariant: every kernel also runs on ``meta`` tensors, computing only the output geometry.
"""

from __future__ import annotations

import itertools

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor.impl import TensorImpl, empty_contiguous, empty_strided_impl
from ...tensor_iterator import resize_out
from . import nn_ckernels as _nnc
from .conv import _fmt, _meta, adaptive_bins, pooling_output_shape

_FLOATS = (_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16)
_INTS = (_dt.int64, _dt.int32, _dt.int16, _dt.int8, _dt.uint8)
_DIMS = {1: "one", 2: "two", 3: "three"}


def _not_impl(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_dt.name_of(dtype)}\'')


def _alloc(self, shape, dtype=None) -> TensorImpl:
    """A fresh output: channels-last(3d) when the 4-D (5-D) input suggests it, else contiguous."""
    shape, dtype = tuple(shape), self.dtype if dtype is None else dtype
    if self.ndim == 4 and len(shape) == 4 and _shape.is_channels_last_strides_2d(self.sizes, self.strides):
        return empty_strided_impl(shape, _shape.channels_last_strides(shape), dtype, self.device)
    return empty_contiguous(shape, dtype, self.device)


def _output(out, self, shape, dtype=None) -> TensorImpl:
    if out is None:
        return _alloc(self, shape, dtype)
    resize_out(out, tuple(shape))
    return out


def _store(out, arr) -> TensorImpl:
    if not _meta(out) and out.numel():
        np.copyto(out.as_numpy(), arr, casting="unsafe")
    return out


def _acc(dtype):
    if dtype in (_dt.float16, _dt.bfloat16):
        return np.float32
    return np.int64 if dtype in _INTS else dtype.np.type


# -- window geometry -------------------------------------------------------------------------------------------
def _expand(op, name, values, n, allow_empty=False, verb="must either be"):
    """n-tuple of ``values`` (one value repeats) or PyTorch's length error."""
    values = tuple(values)
    if len(values) == 1:
        return values * n
    if len(values) == n or (allow_empty and not values):
        return values
    if allow_empty:
        raise RuntimeError(f"{op}: {name} must either be omitted, a single int, or a tuple of {_DIMS[n]} ints")
    raise RuntimeError(f"{op}: {name} {verb} a single int, or a tuple of {_DIMS[n]} ints")


def pool_params(op, n, kernel_size, stride, padding, dilation=None, verb="must either be"):
    """kernel, stride (empty: the kernel), padding, dilation as n-tuples, with PyTorch's length checks."""
    k = _expand(op, "kernel_size", kernel_size, n, verb=verb)
    s = _expand(op, "stride", stride, n, allow_empty=True) or k
    p = _expand(op, "padding", padding, n)
    d = (1,) * n if dilation is None else _expand(op, "dilation", dilation, n, verb="must be either")
    return k, s, p, d


def _pad_for_windows(x, n, k, s, p, d, out_sp, fill):
    """``x`` padded with ``fill``: ``p`` on both sides, and on the right as far as ceil-mode windows reach."""
    pads = [(0, 0)] * (x.ndim - n)
    for i in range(n):
        need = (out_sp[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 - (x.shape[x.ndim - n + i] + 2 * p[i])
        pads.append((p[i], p[i] + max(need, 0)))
    if any(a or b for a, b in pads):
        return np.pad(x, pads, constant_values=fill)
    return x


def _offset_view(xp, offs, s, out_sp):
    """The elements at window offset ``offs`` (padded coordinates) of every output position: (..., *out_sp)."""
    steps = zip(offs, s, out_sp, strict=True)
    return xp[(Ellipsis,) + tuple(slice(o, o + st * (m - 1) + 1, st) for o, st, m in steps)]


def _grid(vectors):
    """1-D arrays -> arrays broadcasting against each other along consecutive axes."""
    n = len(vectors)
    return [np.asarray(v).reshape((1,) * i + (-1,) + (1,) * (n - 1 - i)) for i, v in enumerate(vectors)]


def _flat(coords, in_sp):
    f = 0
    for c, m in zip(coords, in_sp, strict=False):
        f = f * m + c
    return f


def _max_pool_nd(x, n, k, s, p, d, out_sp, floating):
    """(values, flat plane indices) of each window's first maximum (a NaN always replaces)."""
    lowest = -np.inf if floating else np.iinfo(x.dtype).min
    xp = _pad_for_windows(x, n, k, s, p, d, out_sp, lowest)
    in_sp = x.shape[x.ndim - n:]
    starts = [np.arange(m) * st - pd for m, st, pd in zip(out_sp, s, p, strict=False)]
    firsts = [st + (np.clip(-st, 0, None) + dl - 1) // dl * dl for st, dl in zip(starts, d, strict=False)]
    maxval = np.full(x.shape[:x.ndim - n] + tuple(out_sp), lowest, x.dtype)
    maxidx = np.broadcast_to(_flat(_grid(firsts), in_sp), maxval.shape)
    for offs in itertools.product(*(range(m) for m in k)):
        r = [o * dl for o, dl in zip(offs, d, strict=False)]
        vals = _offset_view(xp, r, s, out_sp)
        upd = vals > maxval
        if floating:
            upd |= np.isnan(vals)
        maxval = np.where(upd, vals, maxval)
        maxidx = np.where(upd, _flat(_grid([st + ri for st, ri in zip(starts, r, strict=False)]), in_sp), maxidx)
    return maxval, maxidx


def _avg_divisors(in_sp, out_sp, k, s, p, count_include_pad, divisor_override):
    """(divide factor, window has in-bounds elements) per output position, PyTorch's padded-size rule."""
    pools, counts = [], []
    for m, i, kk, st, pd in zip(out_sp, in_sp, k, s, p, strict=False):
        lo = np.arange(m) * st - pd
        hi = np.minimum(lo + kk, i + pd)
        pools.append(hi - lo)
        counts.append(np.maximum(np.minimum(hi, i) - np.maximum(lo, 0), 0))
    pool, valid = np.ones((), np.int64), np.ones((), np.int64)
    for a, b in zip(_grid(pools), _grid(counts), strict=False):
        pool, valid = pool * a, valid * b
    if divisor_override is not None:
        div = np.full(tuple(out_sp), divisor_override, np.int64)
    else:
        div = pool if count_include_pad else valid
    return div, valid > 0


def _int_div_trunc(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def _avg_pool_nd(x, n, k, s, p, out_sp, count_include_pad, divisor_override, acc):
    xa = x.astype(acc, copy=False)
    xp = _pad_for_windows(xa, n, k, s, p, (1,) * n, out_sp, 0)
    total = np.zeros(x.shape[:x.ndim - n] + tuple(out_sp), acc)
    for offs in itertools.product(*(range(m) for m in k)):
        total += _offset_view(xp, offs, s, out_sp)
    div, nonempty = _avg_divisors(x.shape[x.ndim - n:], out_sp, k, s, p, count_include_pad, divisor_override)
    if acc is np.int64:
        res = _int_div_trunc(total, np.where(div == 0, 1, div))
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            res = total / div.astype(acc)
    return np.where(nonempty, res, 0)


def _avg_pool_backward_nd(g, in_shape, n, k, s, p, count_include_pad, divisor_override):
    """d input of an average pool, added in PyTorch's order in ``g``'s dtype."""
    out_sp = g.shape[g.ndim - n:]
    div, _ = _avg_divisors(in_shape[len(in_shape) - n:], out_sp, k, s, p, count_include_pad, divisor_override)
    wide = np.float64 if g.dtype == np.float64 else np.float32
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        delta = (g.astype(wide) / div.astype(wide)).astype(g.dtype)
    gin = _pad_for_windows(np.zeros(in_shape, g.dtype), n, k, s, p, (1,) * n, out_sp, 0)
    for offs in itertools.product(*(range(m - 1, -1, -1) for m in k)):
        view = _offset_view(gin, offs, s, out_sp)
        view += delta
    inner = tuple(slice(pd, pd + m) for pd, m in zip(p, in_shape[len(in_shape) - n:], strict=False))
    return gin[(Ellipsis,) + inner]


def _scatter_add_planes(g, idx, in_shape, n):
    """``grad_input[plane, idx] += grad_output`` one output after another (PyTorch's max-pool backward)."""
    lead = g.shape[:g.ndim - n]
    planes = int(np.prod(lead, dtype=np.int64))
    plane = int(np.prod(in_shape[len(in_shape) - n:], dtype=np.int64))
    gin = np.zeros((planes, plane), g.dtype)
    if planes and g.size:
        rows = np.arange(planes)[:, None]
        np.add.at(gin, (rows, idx.reshape(planes, -1)), g.reshape(planes, -1))
    return gin.reshape(in_shape)


# -- shape checks ---------------------------------------------------------------------------------------------
def _pool3d_shape_check(inp, k, s, p, d, out_sp, fn, check_input_size=False):
    """PyTorch's ``pool3d_shape_check``."""
    if not all(v > 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if not all(v > 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if not all(v > 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")
    if inp.ndim not in (4, 5):
        raise RuntimeError(f"{fn}: Expected 4D or 5D tensor for input, but got: {_fmt(inp.sizes)}")
    for i in range(inp.ndim - 4, inp.ndim):
        if inp.sizes[i] <= 0:
            raise RuntimeError(f"{fn}: Expected input's non-batch dimensions to have positive length, but input has "
                               f"a shape of {_fmt(inp.sizes)} and non-batch dimension {inp.sizes[i]} has length zero!")
    it, ih, iw = inp.sizes[-3:]
    if check_input_size and not (it >= k[0] and ih >= k[1] and iw >= k[2]):
        raise RuntimeError(f"input image (T: {it} H: {ih} W: {iw}) smaller than kernel size (kT: {k[0]} kH: {k[1]} "
                           f"kW: {k[2]})")
    if not (k[0] // 2 >= p[0] and k[2] // 2 >= p[2] and k[1] // 2 >= p[1]):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: {k[2]} "
                           f"kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}")
    if min(out_sp) < 1:
        c = inp.sizes[-4]
        raise RuntimeError(f"Given input size: ({c}x{it}x{ih}x{iw}). Calculated output size: ({c}x{out_sp[0]}x"
                           f"{out_sp[1]}x{out_sp[2]}). Output size is too small")


def _out_sizes(inp, n, k, s, p, d, ceil_mode):
    return tuple(pooling_output_shape(inp.sizes[inp.ndim - n + i], k[i], p[i], s[i], d[i], ceil_mode)
                 for i in range(n))


# -- 3-D pools ------------------------------------------------------------------------------------------------
def max_pool3d_with_indices_out(self, kernel_size, stride, padding, dilation, ceil_mode, out=None, indices=None):
    """``max_pool3d_with_indices.out``: values and flat ``(t * H + h) * W + w`` indices."""
    k, s, p, d = pool_params("max_pool3d", 3, kernel_size, stride, padding, dilation)
    if self.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    out_sp = _out_sizes(self, 3, k, s, p, d, ceil_mode)
    _pool3d_shape_check(self, k, s, p, d, out_sp, "max_pool3d_with_indices_out_cpu_template()")
    shape = tuple(self.sizes[:-3]) + out_sp
    out = _output(out, self, shape)
    indices = _output(indices, self, shape, _dt.int64)
    if self.dtype not in _FLOATS + _INTS:
        raise _not_impl("max_pool3d_cpu", self.dtype)
    if _meta(self, out, indices) or not out.numel():
        return out, indices
    x = self.as_numpy()
    vals, idx = _nnc.max_pool(x, 3, k, s, p, d, out_sp) or _max_pool_nd(x, 3, k, s, p, d, out_sp, self.dtype in _FLOATS)
    _store(out, vals)
    _store(indices, idx)
    return out, indices


def avg_pool3d_out(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, out=None):
    """``avg_pool3d.out``."""
    k, s, p, d = pool_params("avg_pool3d", 3, kernel_size, stride, padding, verb="must be")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if self.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    out_sp = _out_sizes(self, 3, k, s, p, d, ceil_mode)
    _pool3d_shape_check(self, k, s, p, d, out_sp, "avg_pool3d()", check_input_size=True)
    out = _output(out, self, tuple(self.sizes[:-3]) + out_sp)
    if self.dtype not in _FLOATS + (_dt.int64,):
        raise _not_impl("avg_pool3d_out_frame", self.dtype)
    if _meta(self, out) or not out.numel():
        return out
    x = self.as_numpy()
    res = _nnc.avg_pool(x, 3, k, s, p, out_sp, count_include_pad, divisor_override)
    if res is None:
        res = _avg_pool_nd(x, 3, k, s, p, out_sp, count_include_pad, divisor_override, _acc(self.dtype))
    return _store(out, res)


# -- backward kernels -----------------------------------------------------------------------------------------
def _grad_out(grad_input, self):
    if grad_input is None:
        return _alloc(self, self.sizes)
    resize_out(grad_input, tuple(self.sizes))
    return grad_input


def _check_grad_shape(grad_output, self, n, out_sp, op):
    want = tuple(self.sizes[:self.ndim - n]) + tuple(out_sp)
    if tuple(grad_output.sizes) != want:
        raise RuntimeError(f"{op}: expected grad_output of shape {_fmt(want)}, but got {_fmt(grad_output.sizes)}")


def _max_backward(grad_output, self, indices, n, grad_input):
    grad_input = _grad_out(grad_input, self)
    if _meta(grad_output, self, indices, grad_input) or not grad_input.numel():
        return grad_input
    res = _scatter_add_planes(grad_output.as_numpy(), indices.as_numpy(), tuple(self.sizes), n)
    return _store(grad_input, res)


def max_pool2d_with_indices_backward_out(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
                                         indices, grad_input=None):
    """``max_pool2d_with_indices_backward(.grad_input)``: each output's grad added at its argmax."""
    return _max_backward(grad_output, self, indices, 2, grad_input)


def max_pool3d_with_indices_backward_out(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
                                         indices, grad_input=None):
    """``max_pool3d_with_indices_backward(.grad_input)``."""
    return _max_backward(grad_output, self, indices, 3, grad_input)


def adaptive_max_pool2d_backward_out(grad_output, self, indices, grad_input=None):
    """``adaptive_max_pool2d_backward(.grad_input)``."""
    return _max_backward(grad_output, self, indices, 2, grad_input)


def adaptive_max_pool3d_backward_out(grad_output, self, indices, grad_input=None):
    """``adaptive_max_pool3d_backward(.grad_input)``."""
    return _max_backward(grad_output, self, indices, 3, grad_input)


def _avg_backward(grad_output, self, n, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override, grad_input):
    k, s, p, _ = pool_params(f"avg_pool{n}d_backward", n, kernel_size, stride, padding)
    grad_input = _grad_out(grad_input, self)
    if _meta(grad_output, self, grad_input) or not grad_input.numel():
        return grad_input
    res = _avg_pool_backward_nd(grad_output.as_numpy(), tuple(self.sizes), n, k, s, p, count_include_pad,
                                divisor_override)
    return _store(grad_input, res)


def avg_pool2d_backward_out(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override, grad_input=None):
    """``avg_pool2d_backward(.grad_input)``."""
    return _avg_backward(grad_output, self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override, grad_input)


def avg_pool3d_backward_out(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override, grad_input=None):
    """``avg_pool3d_backward(.grad_input)``."""
    return _avg_backward(grad_output, self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override, grad_input)


# -- adaptive pools -------------------------------------------------------------------------------------------
def _adaptive_check(self, output_size, n, op, sep=": "):
    output_size = tuple(output_size)
    if len(output_size) != n:
        raise RuntimeError(f"{op}: internal error: output_size.size() must be {n}")
    lo, hi = n + 1, n + 2
    if self.ndim not in (lo, hi):
        raise RuntimeError(f"{op}(): Expected {lo}D or {hi}D tensor, but got{sep}{_fmt(self.sizes)}")
    for i in range(1, self.ndim):
        if self.sizes[i] <= 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {_fmt(self.sizes)} with dimension {i} being empty")
    return output_size


def _check_nonnegative(shape):
    for v in shape:
        if v < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {v}: {_fmt(shape)}")


def _adaptive_gather(x, n, bins, offs):
    """x at bin offset ``offs`` of every output position, and whether that offset lies inside the bin."""
    idx = _grid([b[0][:, o] for b, o in zip(bins, offs, strict=False)])
    mask = np.ones((), bool)
    for m in _grid([b[1][:, o] for b, o in zip(bins, offs, strict=False)]):
        mask = mask & m
    return x[(Ellipsis,) + tuple(idx)], mask, idx


def _adaptive_max_nd(x, n, out_sp, floating):
    in_sp = x.shape[x.ndim - n:]
    bins = [adaptive_bins(i, o) for i, o in zip(in_sp, out_sp, strict=False)]
    maxval = np.full(x.shape[:x.ndim - n] + tuple(out_sp), -np.inf if floating else np.iinfo(x.dtype).min, x.dtype)
    maxidx = np.broadcast_to(_flat(_grid([b[0][:, 0] for b in bins]), in_sp), maxval.shape)
    for offs in itertools.product(*(range(b[0].shape[1]) for b in bins)):
        vals, mask, idx = _adaptive_gather(x, n, bins, offs)
        upd = vals > maxval
        if floating:
            upd |= np.isnan(vals)
        upd &= mask
        maxval = np.where(upd, vals, maxval)
        maxidx = np.where(upd, _flat(idx, in_sp), maxidx)
    return maxval, maxidx


def _adaptive_max_out(self, output_size, n, out, indices):
    op = f"adaptive_max_pool{n}d"
    output_size = _adaptive_check(self, output_size, n, op)
    shape = tuple(self.sizes[:self.ndim - n]) + output_size
    _check_nonnegative(shape)
    out = _output(out, self, shape)
    indices = _output(indices, self, shape, _dt.int64)
    if self.dtype not in _FLOATS:
        raise _not_impl(f"adaptive_max_pool{n}d", self.dtype)
    if _meta(self, out, indices) or not out.numel():
        return out, indices
    x = self.as_numpy()
    vals, idx = _nnc.adaptive_max_pool(x, n, output_size) or _adaptive_max_nd(x, n, output_size, True)
    _store(out, vals)
    _store(indices, idx)
    return out, indices


def adaptive_max_pool2d_out(self, output_size, out=None, indices=None):
    """``adaptive_max_pool2d(.out)``: the first maximum of each adaptive bin and its flat index."""
    return _adaptive_max_out(self, output_size, 2, out, indices)


def adaptive_max_pool3d_out(self, output_size, out=None, indices=None):
    """``adaptive_max_pool3d(.out)``."""
    return _adaptive_max_out(self, output_size, 3, out, indices)


def _adaptive_avg_nd(x, n, out_sp):
    """Bin sums added one offset at a time in the input's own dtype (PyTorch's 3-D kernel keeps scalar_t)."""
    in_sp = x.shape[x.ndim - n:]
    bins = [adaptive_bins(i, o) for i, o in zip(in_sp, out_sp, strict=False)]
    total = np.zeros(x.shape[:x.ndim - n] + tuple(out_sp), x.dtype)
    for offs in itertools.product(*(range(b[0].shape[1]) for b in bins)):
        vals, mask, _ = _adaptive_gather(x, n, bins, offs)
        total += np.where(mask, vals, x.dtype.type(0))
    for size in _grid([b[2] for b in bins]):  # PyTorch: sum / kd / kh / kw, each in the input's dtype
        total = total / size.astype(x.dtype)
    return total


def adaptive_avg_pool3d_out(self, output_size, out=None):
    """``_adaptive_avg_pool3d`` / ``adaptive_avg_pool3d.out``: bins ``[floor(i*I/O), ceil((i+1)*I/O))``."""
    output_size = _adaptive_check(self, output_size, 3, "adaptive_avg_pool3d", sep=" ")
    out = _output(out, self, tuple(self.sizes[:-3]) + output_size)
    if self.dtype not in _FLOATS:
        raise _not_impl("adaptive_avg_pool3d_cpu", self.dtype)
    if _meta(self, out) or not out.numel():
        return out
    return _store(out, _adaptive_avg_nd(self.as_numpy(), 3, output_size))


def _adaptive_avg_backward(grad_output, self, n, out):
    out = _grad_out(out, self)
    if _meta(grad_output, self, out) or not out.numel():
        return out
    g = grad_output.as_numpy()
    in_shape = tuple(self.sizes)
    out_sp = g.shape[g.ndim - n:]
    bins = [adaptive_bins(i, o) for i, o in zip(in_shape[len(in_shape) - n:], out_sp, strict=False)]
    wide = np.float64 if g.dtype == np.float64 else np.float32
    delta = g
    for size in _grid([b[2] for b in bins]):  # grad / kh / kw, rounding after each division like PyTorch
        delta = (delta.astype(wide) / size.astype(wide)).astype(g.dtype)
    # (planes, *out_sp, *bin widths) targets and values in PyTorch's loop order, masked to the bins
    widths = [b[0].shape[1] for b in bins]
    coords = [b[0].reshape((1,) * i + (b[0].shape[0],) + (1,) * (n - 1 - i) + (1,) * i + (widths[i],)
                           + (1,) * (n - 1 - i)) for i, b in enumerate(bins)]
    masks = [b[1].reshape(c.shape) for b, c in zip(bins, coords, strict=False)]
    in_sp = in_shape[len(in_shape) - n:]
    target = _flat(coords, in_sp)
    mask = np.ones((), bool)
    for m in masks:
        mask = mask & m
    full = tuple(out_sp) + tuple(widths)
    target = np.broadcast_to(target, full)[np.broadcast_to(mask, full)]
    planes = int(np.prod(in_shape[:len(in_shape) - n], dtype=np.int64))
    vals = np.broadcast_to(delta.reshape((planes,) + tuple(out_sp) + (1,) * n), (planes,) + full)
    vals = vals[:, np.broadcast_to(mask, full)]
    gin = np.zeros((planes, int(np.prod(in_sp, dtype=np.int64))), g.dtype)
    if planes and target.size:
        np.add.at(gin, (np.arange(planes)[:, None], target[None, :]), vals)
    return _store(out, gin.reshape(in_shape))


def adaptive_avg_pool2d_backward_out(grad_output, self, out=None):
    """``_adaptive_avg_pool2d_backward(.out)``."""
    return _adaptive_avg_backward(grad_output, self, 2, out)


def adaptive_avg_pool3d_backward_out(grad_output, self, out=None):
    """``_adaptive_avg_pool3d_backward(.out)``."""
    return _adaptive_avg_backward(grad_output, self, 3, out)


# -- max unpooling --------------------------------------------------------------------------------------------
def _unpool(self, indices, out_sp, n, out, op):
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_dt.name_of(indices.dtype)}")
    if tuple(indices.sizes) != tuple(self.sizes):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({_fmt(self.sizes)}) "
                           f"but got indices tensor with shape: {_fmt(indices.sizes)}")
    for i in range(1, self.ndim):
        if self.sizes[i] <= 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{_fmt(self.sizes)} with dimension {i} being empty.")
    shape = tuple(self.sizes[:self.ndim - n]) + tuple(out_sp)
    out = _output(out, self, shape)
    if _meta(self, indices, out) or not out.numel():
        return out
    planes = int(np.prod(shape[:len(shape) - n], dtype=np.int64))
    plane = int(np.prod(out_sp, dtype=np.int64))
    idx = indices.as_numpy().reshape(planes, -1)
    bad = (idx < 0) | (idx >= plane)
    if bad.any():  # PyTorch's loop records every invalid index and reports the last one
        last = int(idx[bad][-1])
        dims = "x".join(str(v) for v in out_sp)
        raise RuntimeError(f"Found an invalid max index: {last} (output volumes are of size {dims})")
    res = np.zeros((planes, plane), self.dtype.np)
    res[np.arange(planes)[:, None], idx] = self.as_numpy().reshape(planes, -1)
    return _store(out, res.reshape(shape))


def max_unpool2d_out(self, indices, output_size, out=None):
    """``max_unpool2d(.out)``: each value written at its flat index of an (oH, oW) plane of zeros."""
    output_size = tuple(output_size)
    if len(output_size) != 2:
        raise RuntimeError(f"There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    if self.ndim not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
                           f"{self.ndim} dimensions.")
    return _unpool(self, indices, output_size, 2, out, "max_unpooling2d")


def max_unpool3d_out(self, indices, output_size, stride, padding, out=None):
    """``max_unpool3d(.out)``."""
    output_size = tuple(output_size)
    if self.ndim not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
                           f"{self.ndim} dimensions.")
    if len(output_size) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in output_size, but "
                           f"got {len(output_size)} elements.")
    if len(tuple(stride)) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in stride, but got: "
                           f"{len(tuple(stride))} elements.")
    if len(tuple(padding)) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in padding, but got: "
                           f"{len(tuple(padding))} elements.")
    if not all(v > 0 for v in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {_fmt(stride)}")
    return _unpool(self, indices, output_size, 3, out, "max_unpooling3d")
