"""Convolution and pooling CPU kernels — PyTorch's ``aten/src/ATen/native/{Convolution,ConvUtils,Pool,
DilatedMaxPool2d,AveragePool2d,AdaptiveAveragePooling}.cpp`` and their ``cpu/*Kernel.cpp``.

Convolution runs on BLAS GEMMs (``np.matmul``), never on Python loops over pixels (3-d float32/float64
convolutions run ``conv_direct``'s C loop instead, when it is available):

- stride 1, one group (the common case): the input is copied once, zero-padded, as (C, N * padded pixels);
  for each kernel offset the inputs of every output position form one contiguous run, so the convolution
  is ``sum_k W[:, :, k] @ x[:, off_k:off_k + L]`` — one strided GEMM per kernel offset, no im2col;
- otherwise im2col: the padded input is viewed as sliding windows (``sliding_window_view``, no copy),
  strided and dilated by slicing, copied once as (N, groups, C/groups * kernel, out pixels) and multiplied
  by the (groups, O/groups, C/groups * kernel) weight in one batched GEMM;
- transposed: ``x @ w`` scattered back onto the output grid one kernel offset at a time (col2im); for
  float16/bfloat16 the columns and their sums are kept in the input dtype where PyTorch takes its slow path,
  and accumulate in float32 where it hands the convolution to oneDNN (Note [oneDNN and reduced-precision
  convolutions]).

float16/bfloat16 otherwise accumulate in float32 and round once; integer dtypes accumulate in int64 and
wrap like PyTorch's.  Any number of spatial dims (1-D, 2-D, 3-D).

``_convolution`` checks its arguments in PyTorch's order with PyTorch's messages
(``expand_param_if_needed``, ``check_shape_forward``); its output is channels-last when the input or the
weight suggests it (4-D only), as PyTorch's CPU backends do.

Pooling loops over the kernel offsets with whole-output numpy operations, in PyTorch's scan order:
``max_pool2d_with_indices`` (flat ``h * W + w`` indices of the first maximum; a NaN always wins, so the last
NaN's index), ``avg_pool2d`` (sums added one offset at a time; ``count_include_pad``, ``divisor_override``)
and ``_adaptive_avg_pool2d``, with PyTorch's output-size rule (``pooling_output_shape``, ``ceil_mode``) and
shape checks.  The CompositeImplicitAutograd wrappers (``conv1d``/``conv2d``, ``padding="same"``,
``max_pool2d``, ``adaptive_avg_pool2d``) sit at the end of this module and call operators through ``aten``.

Invariant: every kernel also runs on ``meta`` tensors, computing only the output geometry.
"""

from __future__ import annotations

import math

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._core.user_warning import warn as _user_warn
from ...._device import cpu_features as _cpu
from ...._tensor.impl import TensorImpl, empty_contiguous, empty_strided_impl
from ...tensor_iterator import resize_out
from . import conv_direct as _conv_direct
from .loss import type_meta_name

__all__ = [
    "convolution_kernel", "convolution_checked", "conv_output_size", "max_pool2d_with_indices_out",
    "avg_pool2d_out", "adaptive_avg_pool2d_kernel", "adaptive_avg_pool2d_out_kernel", "pooling_output_shape",
]

_FLOATS = (_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16)
_INTS = (_dt.int64, _dt.int32, _dt.int16, _dt.int8, _dt.uint8)


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _meta(*impls) -> bool:
    return any(type(t) is TensorImpl and t.storage._data is None for t in impls)


def _suggests_channels_last(t: TensorImpl) -> bool:
    return t.ndim == 4 and _shape.is_channels_last_strides_2d(t.sizes, t.strides)


def _alloc(shape, dtype, device, channels_last=False) -> TensorImpl:
    shape = tuple(shape)
    if channels_last and len(shape) == 4:
        return empty_strided_impl(shape, _shape.channels_last_strides(shape), dtype, device)
    return empty_contiguous(shape, dtype, device)


# -- convolution ---------------------------------------------------------------------------------------
def _expand_param(values, name, dim):
    values = tuple(values)
    if len(values) == 1:
        return values * dim
    if len(values) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} values to match the "
                           f"convolution dimensions, but got {name}={_fmt(values)}")
    return values


def conv_output_size(in_sizes, w_sizes, stride, padding, dilation, transposed, output_padding, groups):
    """Output shape of a (transposed) convolution (``conv_output_size`` / ``conv_input_size``)."""
    n = in_sizes[0]
    spatial = []
    for i in range(len(in_sizes) - 2):
        k_eff = dilation[i] * (w_sizes[i + 2] - 1) + 1
        if transposed:
            spatial.append((in_sizes[i + 2] - 1) * stride[i] - 2 * padding[i] + k_eff + output_padding[i])
        else:
            spatial.append((in_sizes[i + 2] + 2 * padding[i] - k_eff) // stride[i] + 1)
    out_ch = w_sizes[1] * groups if transposed else w_sizes[0]
    return (n, out_ch, *spatial)


def _check_shape_forward(inp, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """PyTorch's ``check_shape_forward``, in its order and words."""
    k = inp.ndim
    ws = weight.sizes
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if len(ws) != k:
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {_fmt(ws)}, but "
                           f"got {k}-dimensional input of size {_fmt(inp.sizes)} instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_fmt(ws)} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_fmt(ws)}] instead")
    if not transposed:
        if inp.sizes[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {_fmt(ws)}, expected input{_fmt(inp.sizes)} to "
                               f"have {ws[1] * groups} channels, but got {inp.sizes[1]} channels instead")
        if bias is not None and not (bias.ndim == 1 and bias.sizes[0] == ws[0]):
            raise RuntimeError(f"Given weight of size {_fmt(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                               f"elements, but got bias of size {_fmt(bias.sizes)} instead")
        in_shape = [inp.sizes[i] + 2 * padding[i - 2] for i in range(2, k)]
        k_shape = [dilation[i - 2] * (ws[i] - 1) + 1 for i in range(2, k)]
        if any(a < b for a, b in zip(in_shape, k_shape, strict=True)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, in_shape))}). "
                               f"Kernel size: ({' x '.join(map(str, k_shape))}). Kernel size can't be greater than "
                               f"actual input size")
    else:
        if inp.sizes[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {_fmt(ws)}, expected input{_fmt(inp.sizes)} to "
                               f"have {ws[0]} channels, but got {inp.sizes[1]} channels instead")
        if bias is not None and not (bias.ndim == 1 and bias.sizes[0] == ws[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {_fmt(ws)}, expected bias to be 1-dimensional "
                               f"with {ws[1] * groups} elements, but got bias of size {_fmt(bias.sizes)} instead")


def _check_backend(inp, weight, bias, stride, dilation, transposed, output_padding):
    """The checks of PyTorch's CPU backends (slow_conv2d / mkldnn / slow_conv_transpose2d)."""
    if inp.dtype not in _FLOATS + _INTS:
        name = "slow_conv2d_cpu" if not transposed else "slow_conv_transpose2d_out_cpu"
        raise NotImplementedError(f'"{name}" not implemented for \'{_dt.name_of(inp.dtype)}\'')
    if weight.dtype is not inp.dtype:
        raise RuntimeError(f"expected scalar type {_dt.name_of(inp.dtype)} but found {_dt.name_of(weight.dtype)}")
    if bias is not None and bias.dtype is not inp.dtype:
        raise RuntimeError(f"expected scalar type {_dt.name_of(inp.dtype)} but found {_dt.name_of(bias.dtype)}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {_fmt(dilation)}")
    if transposed and inp.ndim in (3, 4):
        op = output_padding if inp.ndim == 4 else (0, *output_padding)
        st = stride if inp.ndim == 4 else (1, *stride)
        dl = dilation if inp.ndim == 4 else (1, *dilation)
        if any(o >= s and o >= d for o, s, d in zip(op, st, dl, strict=True)):
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                               f"output_padding_height: {op[0]} output_padding_width: {op[1]} stride_height: {st[0]} "
                               f"stride_width: {st[1]} dilation_height: {dl[0]} dilation_width: {dl[1]}")
    if transposed and inp.ndim == 5 and any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation,
                                                                                  strict=True)):
        (od, oh, ow), (sd, sh, sw), (dd, dh, dw) = output_padding, stride, dilation
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                           f"output_padding_depth: {od} output_padding_height: {oh} output_padding_width: {ow} "
                           f"stride_depth: {sd} stride_height: {sh} stride_width: {sw} dilation_depth: {dd} "
                           f"dilation_height: {dh} dilation_width: {dw}")


def _compute_dtype(dtype):
    if dtype in (_dt.float16, _dt.bfloat16):
        return np.float32
    if dtype in _INTS:
        return np.int64
    return dtype.np.type


def _conv_forward_np(x, w, stride, padding, dilation, groups, acc):
    """(N, C, *S) * (O, C/g, *K) -> (N, O, *out) in ``acc``: shifted GEMMs (stride 1, one group) or im2col."""
    nd = x.ndim - 2
    w = w.astype(acc, copy=False)
    k_eff = [d * (k - 1) + 1 for d, k in zip(dilation, w.shape[2:], strict=True)]
    out_sp = tuple((x.shape[2 + i] + 2 * padding[i] - k_eff[i]) // stride[i] + 1 for i in range(nd))
    if nd == 3 and math.prod(out_sp) > 0:  # few channels: a direct loop beats one GEMM per kernel offset
        res = _conv_direct.conv3d_forward(x.astype(acc, copy=False), w, stride, padding, dilation, groups, out_sp)
        if res is not None:
            return res
    if groups == 1 and all(s == 1 for s in stride) and math.prod(out_sp) > 0:
        return _conv_shifted(x, w, padding, dilation, out_sp, acc)
    if any(padding):
        x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    return _conv_im2col(x.astype(acc, copy=False), w, stride, dilation, groups, k_eff, out_sp)


def _conv_shifted(x, w, padding, dilation, out_sp, acc):
    """Stride-1 convolution without im2col.  The input is copied once, zero-padded, as (C, N * padded pixels);
    for each kernel offset the inputs of every output position (of every image) then form one contiguous run,
    so ``out += W[:, :, k] @ x[:, off:off + L]`` is one strided BLAS GEMM on a view.  Outputs are read off the
    padded grid (positions that straddle two images are computed and never read)."""
    n, c = x.shape[:2]
    o = w.shape[0]
    sp = tuple(x.shape[2 + i] + 2 * padding[i] for i in range(len(padding)))
    buf = np.zeros((c, n) + sp, acc)
    buf[(slice(None), slice(None)) + tuple(slice(p, p + x.shape[2 + i]) for i, p in enumerate(padding))] = \
        np.swapaxes(x, 0, 1)
    xf = buf.reshape(c, -1)
    pstrides = [math.prod(sp[i + 1:]) for i in range(len(sp))]
    img = math.prod(sp)
    length = (n - 1) * img + sum((out_sp[i] - 1) * pstrides[i] for i in range(len(sp))) + 1
    res = np.zeros((o, length), acc)
    for kidx in np.ndindex(*w.shape[2:]):
        off = sum(kidx[i] * dilation[i] * pstrides[i] for i in range(len(sp)))
        res += np.matmul(w[(slice(None), slice(None)) + kidx], xf[:, off:off + length])
    isz = res.itemsize
    view = np.lib.stride_tricks.as_strided(res, (n, o) + tuple(out_sp),
                                           (img * isz, res.strides[0]) + tuple(p * isz for p in pstrides))
    return np.ascontiguousarray(view)


def _conv_im2col(x, w, stride, dilation, groups, k_eff, out_sp):
    """im2col laid out (N, g, C/g * K, out_pixels) — copied along the output rows — then one batched GEMM."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    o = w.shape[0]
    ks = w.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(x, k_eff, axis=tuple(range(2, 2 + nd)))
    sl = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride) + \
        tuple(slice(None, None, d) for d in dilation)
    win = win[sl]  # (N, C, *out, *K)
    perm = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    cols = np.ascontiguousarray(win.transpose(perm))  # (N, C, *K, *out)
    cg, og = c // groups, o // groups
    cols = cols.reshape(n, groups, cg * math.prod(ks), math.prod(out_sp))
    wm = w.reshape(groups, og, cg * math.prod(ks))
    return np.matmul(wm, cols).reshape((n, o) + tuple(out_sp))


def _conv_transpose_np(x, w, stride, padding, dilation, output_padding, groups, acc, out_shape, store=None):
    """Scatter form: each input pixel adds ``x[n, :, pix] @ w`` over its kernel footprint."""
    nd = x.ndim - 2
    n, cin = x.shape[:2]
    ks = w.shape[2:]
    og = w.shape[1]
    cg = cin // groups
    in_sp = x.shape[2:]
    kprod = math.prod(ks)
    xm = np.ascontiguousarray(np.moveaxis(x.reshape((n, groups, cg) + tuple(in_sp)), 2, -1), dtype=acc)
    xm = xm.reshape(n, groups, -1, cg).transpose(1, 0, 2, 3).reshape(groups, -1, cg)  # (g, N*pix, cg)
    wm = np.ascontiguousarray(w.reshape(groups, cg, og * kprod), dtype=acc)
    cols = np.matmul(xm, wm).reshape((groups, n) + tuple(in_sp) + (og,) + tuple(ks))
    if store is not None:  # float16/bfloat16: PyTorch's columns and col2im sums are in the input dtype
        cols = cols.astype(store)
        acc = store
    full_sp = [(in_sp[i] - 1) * stride[i] + dilation[i] * (ks[i] - 1) + 1 + output_padding[i] for i in range(nd)]
    full = np.zeros((groups, n, og) + tuple(full_sp), acc)
    flat = (groups * n,)  # cols is the GEMM's (or astype's) fresh C-ordered result, full is zeros: reshapes are views
    if not _conv_direct.col2im_add(cols.reshape(flat + cols.shape[2:]), full.reshape(flat + full.shape[2:]), stride,
                                   dilation):
        _col2im_np(cols, full, stride, dilation, in_sp, ks)
    crop = (slice(None), slice(None), slice(None)) + tuple(
        slice(padding[i], padding[i] + out_shape[2 + i]) for i in range(nd))
    res = full[crop]  # (g, N, og, *out)
    return np.moveaxis(res, 0, 1).reshape(out_shape)


def _col2im_np(cols, full, stride, dilation, in_sp, ks):
    """``full`` += the columns ``cols`` (g, N, *in, og, *K) at their output positions, one kernel offset at a time."""
    nd = len(ks)
    # cols: (g, N, *in, og, *K) -> (g, N, og, *K, *in)
    perm = (0, 1, 2 + nd) + tuple(range(3 + nd, 3 + 2 * nd)) + tuple(range(2, 2 + nd))
    cols = cols.transpose(perm)
    for kidx in np.ndindex(*ks):
        dst = (slice(None), slice(None), slice(None)) + tuple(
            slice(kidx[i] * dilation[i], kidx[i] * dilation[i] + stride[i] * (in_sp[i] - 1) + 1, stride[i])
            for i in range(nd))
        full[dst] += cols[(slice(None), slice(None), slice(None)) + tuple(kidx)]


# Note [oneDNN and reduced-precision convolutions]
# PyTorch's CPU convolution goes to oneDNN for bfloat16 on AVX-512 cores (mkldnn_bf16_device_check) and for float16
# with AVX512-FP16 (mkldnn_fp16_device_check), unless a transposed convolution's output_padding reaches its stride;
# oneDNN accumulates in float32 and rounds once.  Elsewhere the slow path's transposed convolution keeps its
# col2im columns and sums in the reduced dtype, rounding after every addition, which can differ by several units
# in the last place where sums cancel.  Forward convolutions accumulate in float32 either way.
def _slow_reduced_transposed(dtype, stride, output_padding) -> bool:
    """Whether PyTorch's slow path (sums in the reduced dtype) computes this transposed convolution."""
    if dtype is not _dt.float16 and dtype is not _dt.bfloat16:
        return False
    if any(p >= s for p, s in zip(output_padding, stride, strict=True)):
        return True  # oneDNN refuses a big output_padding
    return not (_cpu.onednn_bf16() if dtype is _dt.bfloat16 else _cpu.onednn_fp16())


def convolution_checked(inp, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``_convolution``: argument checks, then the numpy convolution."""
    k = weight.ndim
    dim = k - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = _expand_param(stride, "stride", dim)
    padding = _expand_param(padding, "padding", dim)
    dilation = _expand_param(dilation, "dilation", dim)
    output_padding = _expand_param(output_padding, "output_padding", dim)
    _check_shape_forward(inp, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    out_shape = conv_output_size(inp.sizes, weight.sizes, stride, padding, dilation, transposed, output_padding,
                                 groups)
    if inp.numel() == 0:
        if inp.sizes[1] == 0:  # PyTorch's "Empty" backend: input.view(-1) * weight.view(-1)
            out_shape = (out_shape[0], 0, *out_shape[2:])
        return _alloc_zero(out_shape, inp.dtype, inp.device, _meta(inp, weight, bias))
    _check_backend(inp, weight, bias, stride, dilation, transposed, output_padding)
    chl = _suggests_channels_last(inp) or _suggests_channels_last(weight)
    out = _alloc(out_shape, inp.dtype, inp.device, channels_last=chl)
    if _meta(inp, weight, bias, out):
        return out
    acc = _compute_dtype(inp.dtype)
    x = inp.as_numpy()
    w = weight.as_numpy()
    if transposed:
        store = inp.dtype.np if _slow_reduced_transposed(inp.dtype, stride, output_padding) else None
        res = _conv_transpose_np(x, w, stride, padding, dilation, output_padding, groups, acc, out_shape, store)
        acc = res.dtype.type
    else:
        res = _conv_forward_np(x, w, stride, padding, dilation, groups, acc)
    if bias is not None:
        res = np.add(res, bias.as_numpy().astype(acc).reshape((1, -1) + (1,) * dim), dtype=acc)
    out.as_numpy()[...] = res.astype(inp.dtype.np) if acc is np.int64 else res
    return out


def _alloc_zero(shape, dtype, device, meta):
    out = empty_contiguous(tuple(shape), dtype, device)
    if not meta:
        out.as_numpy()[...] = 0
    return out


def convolution_kernel(inp, weight, bias, stride, padding, dilation, transposed, output_padding, groups, benchmark,
                       deterministic, cudnn_enabled, allow_tf32):
    """``_convolution`` (CompositeExplicitAutograd): PyTorch's backend flags are accepted and ignored."""
    return convolution_checked(inp, weight, bias, stride, padding, dilation, transposed, output_padding, groups)


# -- pooling -------------------------------------------------------------------------------------------
def pooling_output_shape(in_size, k, pad_l, stride, dilation, ceil_mode):
    """PyTorch's ``pooling_output_shape``: floor (or ceil) division, and no window may start in the padding."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad_l < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad_l}")
    if pad_l > ((k - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad_l}, "
                           f"kernel_size={k} and dilation={dilation}")
    num = in_size + 2 * pad_l - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= in_size + pad_l:
        out -= 1
    return out


def _pair(name, what, values, allow_empty=False):
    values = tuple(values)
    if len(values) == 1:
        return values * 2
    if len(values) == 2 or (allow_empty and len(values) == 0):
        return values
    raise RuntimeError(f"{name}: {what}")


def _pool_params(op, kernel_size, stride, padding, dilation=None):
    kh, kw = _pair(op, "kernel_size must either be a single int, or a tuple of two ints", kernel_size)
    st = tuple(stride)
    if len(st) not in (0, 1, 2):
        raise RuntimeError(f"{op}: stride must either be omitted, a single int, or a tuple of two ints")
    if len(st) == 0:
        sh, sw = kh, kw
    else:
        sh, sw = st * 2 if len(st) == 1 else st
    ph, pw = _pair(op, "padding must either be a single int, or a tuple of two ints", padding)
    if dilation is None:
        return (kh, kw), (sh, sw), (ph, pw), (1, 1)
    dh, dw = _pair(op, "dilation must be either a single int, or a tuple of two ints", dilation)
    return (kh, kw), (sh, sw), (ph, pw), (dh, dw)


def _pool2d_shape_check(inp, k, s, p, d, out_hw, check_dilation=True):
    """PyTorch's ``pool2d_shape_check``."""
    kh, kw = k
    if not (kw > 0 and kh > 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if not (s[1] > 0 and s[0] > 0):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if check_dilation and not (d[0] > 0 and d[1] > 0):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}")
    ndim = inp.ndim
    valid = (ndim == 3 and inp.sizes[0] != 0 and inp.sizes[1] != 0 and inp.sizes[2] != 0) or \
        (ndim == 4 and inp.sizes[1] != 0 and inp.sizes[2] != 0 and inp.sizes[3] != 0)
    if not valid:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
                           f"{_fmt(inp.sizes)}")
    if not (kw // 2 >= p[1] and kh // 2 >= p[0]):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, padH "
                           f"= {p[0]}, kW = {kw}, kH = {kh}")
    oh, ow = out_hw
    if oh < 1 or ow < 1:
        c = inp.sizes[-3]
        ih, iw = inp.sizes[-2:]
        raise RuntimeError(f"Given input size: ({c}x{ih}x{iw}). Calculated output size: ({c}x{oh}x{ow}). Output size "
                           f"is too small")


def _pool_windows(x, k, s, p, d, fill):
    """(…, OH, OW, kh, kw) windows of ``x`` (…, H, W) padded with ``fill`` (a view of a padded copy)."""
    if p[0] or p[1]:
        pad = [(0, 0)] * (x.ndim - 2) + [(p[0], p[0]), (p[1], p[1])]
        x = np.pad(x, pad, constant_values=fill)
    eff = (d[0] * (k[0] - 1) + 1, d[1] * (k[1] - 1) + 1)
    win = np.lib.stride_tricks.sliding_window_view(x, eff, axis=(-2, -1))
    return win[..., ::s[0], ::s[1], ::d[0], ::d[1]]


def _extend_for_ceil(x, k, s, p, d, out_hw, fill):
    """Pad the bottom/right so that ceil-mode windows (which may run past the input) exist."""
    need_h = (out_hw[0] - 1) * s[0] + d[0] * (k[0] - 1) + 1 - (x.shape[-2] + 2 * p[0])
    need_w = (out_hw[1] - 1) * s[1] + d[1] * (k[1] - 1) + 1 - (x.shape[-1] + 2 * p[1])
    if need_h > 0 or need_w > 0:
        pad = [(0, 0)] * (x.ndim - 2) + [(0, max(need_h, 0)), (0, max(need_w, 0))]
        x = np.pad(x, pad, constant_values=fill)
    return x


def _pool_out(out, shape, dtype, device, channels_last):
    if out is None:
        return _alloc(shape, dtype, device, channels_last)
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {type_meta_name(dtype)}, but got "
                           f"{type_meta_name(out.dtype)} instead")
    resize_out(out, tuple(shape))
    return out


def max_pool2d_with_indices_out(self, kernel_size, stride, padding, dilation, ceil_mode, out, indices):
    """``max_pool2d_with_indices.out``: values and flat ``h * W + w`` indices of each window's maximum."""
    op = "max_pool2d"
    k, s, p, d = _pool_params(op, kernel_size, stride, padding, dilation)
    if _suggests_channels_last(self):
        if self.ndim != 4:
            raise RuntimeError("non-empty 4D (batch mode) tensor expected for input with channels_last layout")
    elif self.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    ih, iw = self.sizes[-2:]
    oh = pooling_output_shape(ih, k[0], p[0], s[0], d[0], ceil_mode)
    ow = pooling_output_shape(iw, k[1], p[1], s[1], d[1], ceil_mode)
    _pool2d_shape_check(self, k, s, p, d, (oh, ow))
    shape = tuple(self.sizes[:-2]) + (oh, ow)
    chl = _suggests_channels_last(self)
    out = _pool_out(out, shape, self.dtype, self.device, chl)
    indices = _pool_out(indices, shape, _dt.int64, self.device, chl)
    if self.dtype not in _FLOATS + _INTS:
        raise NotImplementedError(f'"max_pool2d" not implemented for \'{_dt.name_of(self.dtype)}\'')
    if _meta(self, out, indices):
        return out, indices
    x = self.as_numpy()
    floating = self.dtype in _FLOATS
    lowest = -np.inf if floating else np.iinfo(self.dtype.np).min
    xp = _extend_for_ceil(x, k, s, p, d, (oh, ow), lowest)
    if p[0] or p[1]:
        xp = np.pad(xp, [(0, 0)] * (x.ndim - 2) + [(p[0], p[0]), (p[1], p[1])], constant_values=lowest)
    hstart = np.arange(oh) * s[0] - p[0]
    wstart = np.arange(ow) * s[1] - p[1]
    # PyTorch scans each window row by row from its first in-bounds element; ">" keeps the first maximum,
    # and a NaN always replaces (so the last NaN wins).  Padding holds the lowest value and never wins.
    first_h = hstart + (np.clip(-hstart, 0, None) + d[0] - 1) // d[0] * d[0]
    first_w = wstart + (np.clip(-wstart, 0, None) + d[1] - 1) // d[1] * d[1]
    maxval = np.full(x.shape[:-2] + (oh, ow), lowest, x.dtype)
    maxidx = np.broadcast_to(first_h[:, None] * iw + first_w[None, :], maxval.shape)
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * d[0], j * d[1]
            vals = xp[..., r0:r0 + s[0] * (oh - 1) + 1:s[0], c0:c0 + s[1] * (ow - 1) + 1:s[1]]
            upd = vals > maxval
            if floating:
                upd |= np.isnan(vals)
            maxval = np.where(upd, vals, maxval)
            maxidx = np.where(upd, (hstart[:, None] + r0) * iw + (wstart[None, :] + c0), maxidx)
    out.as_numpy()[...] = maxval
    indices.as_numpy()[...] = maxidx
    return out, indices


def avg_pool2d_out(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, out):
    """``avg_pool2d.out``: window sums divided by the window size (PyTorch's padded-size rule)."""
    op = "avg_pool2d"
    k, s, p, _ = _pool_params(op, kernel_size, stride, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if self.ndim < 3:  # PyTorch reads input.size(-3) before checking the rank
        lo, hi = -max(self.ndim, 1), max(self.ndim, 1) - 1
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got -3)")
    ih, iw = self.sizes[-2:]
    oh = pooling_output_shape(ih, k[0], p[0], s[0], 1, ceil_mode)
    ow = pooling_output_shape(iw, k[1], p[1], s[1], 1, ceil_mode)
    _pool2d_shape_check(self, k, s, p, (1, 1), (oh, ow), check_dilation=False)
    shape = tuple(self.sizes[:-2]) + (oh, ow)
    out = _pool_out(out, shape, self.dtype, self.device, _suggests_channels_last(self))
    if self.dtype not in _FLOATS + (_dt.int64,):
        raise NotImplementedError(f'"avg_pool2d_out_frame" not implemented for \'{_dt.name_of(self.dtype)}\'')
    if _meta(self, out):
        return out
    acc = _compute_dtype(self.dtype)
    x = self.as_numpy().astype(acc, copy=False)
    xp = _extend_for_ceil(x, k, s, p, (1, 1), (oh, ow), 0)
    win = _pool_windows(xp, k, s, p, (1, 1), 0)[..., :oh, :ow, :, :]
    sums = _sequential_window_sum(win, acc)
    h0 = np.arange(oh) * s[0] - p[0]
    w0 = np.arange(ow) * s[1] - p[1]
    h1 = np.minimum(h0 + k[0], ih + p[0])
    w1 = np.minimum(w0 + k[1], iw + p[1])
    pool_size = (h1 - h0)[:, None] * (w1 - w0)[None, :]
    h0c, w0c = np.maximum(h0, 0), np.maximum(w0, 0)
    h1c, w1c = np.minimum(h1, ih), np.minimum(w1, iw)
    valid = (h1c - h0c)[:, None] * (w1c - w0c)[None, :]
    if divisor_override is not None:
        div = np.full((oh, ow), divisor_override, np.int64)
    elif count_include_pad:
        div = pool_size
    else:
        div = valid
    if acc is np.int64:
        res = _int_div_trunc(sums, np.where(div == 0, 1, div))
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            res = sums / div.astype(acc)
    out.as_numpy()[...] = np.where(valid <= 0, 0, res)  # a window entirely in the padding stays 0
    return out


def _sequential_window_sum(win, acc):
    """Sum over the last two axes in row-major order, one add at a time (PyTorch's loop order)."""
    kh, kw = win.shape[-2:]
    if kh * kw > 256:
        return win.sum(axis=(-2, -1), dtype=acc)
    total = np.zeros(win.shape[:-2], acc)
    for i in range(kh):
        for j in range(kw):
            total += win[..., i, j]
    return total


def _int_div_trunc(a, b):
    """C++ integer division (truncation toward zero)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def _adaptive_out(self, output_size, out):
    if len(tuple(output_size)) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    ndim = self.ndim
    if ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {_fmt(self.sizes)}")
    for i in (ndim - 2, ndim - 1):
        if self.sizes[i] <= 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {_fmt(self.sizes)} with dimension {i} being empty")
    oh, ow = output_size
    shape = tuple(self.sizes[:-2]) + (oh, ow)
    chl = _suggests_channels_last(self)
    if out is None:
        out = _alloc(shape, self.dtype, self.device, chl)
    else:
        if out.dtype is not self.dtype:
            raise RuntimeError(f"expected dtype {_dt.name_of(self.dtype)} for `output` but got dtype "
                               f"{_dt.name_of(out.dtype)}")
        resize_out(out, shape)
    if self.dtype not in _FLOATS:
        raise NotImplementedError(f'"adaptive_avg_pool2d" not implemented for \'{_dt.name_of(self.dtype)}\'')
    if _meta(self, out):
        return out
    ih, iw = self.sizes[-2:]
    acc = _compute_dtype(self.dtype)
    x = self.as_numpy().astype(acc, copy=False)
    rows, rmask, kh = adaptive_bins(ih, oh)
    cols, cmask, kw = adaptive_bins(iw, ow)
    total = np.zeros(x.shape[:-2] + (oh, ow), acc)
    for i in range(rows.shape[1]):
        for j in range(cols.shape[1]):
            vals = x[..., rows[:, i][:, None], cols[:, j][None, :]]
            total += np.where(rmask[:, i][:, None] & cmask[:, j][None, :], vals, acc(0))
    # PyTorch: scalar_t(sum / kh / kw), in the accumulation type
    res = total / kh[:, None].astype(acc) / kw[None, :].astype(acc)
    out.as_numpy()[...] = res
    return out


def adaptive_bins(isize, osize):
    """Per output index: the input indices of its bin ``[floor(o*I/O), ceil((o+1)*I/O))`` (padded), mask, sizes."""
    start = (np.arange(osize) * isize) // osize
    end = -((-(np.arange(osize) + 1) * isize) // osize)
    size = end - start
    width = int(size.max()) if osize else 0
    idx = start[:, None] + np.arange(width)[None, :]
    mask = idx < end[:, None]
    return np.minimum(idx, isize - 1), mask, size


def adaptive_avg_pool2d_kernel(self, output_size):
    """``_adaptive_avg_pool2d``: bins ``[floor(i*I/O), ceil((i+1)*I/O))``."""
    return _adaptive_out(self, output_size, None)


def adaptive_avg_pool2d_out_kernel(self, output_size, out):
    """``adaptive_avg_pool2d.out``."""
    return _adaptive_out(self, output_size, out)



# -- CompositeImplicitAutograd wrappers (PyTorch's Convolution.cpp / Pooling.cpp composites) -------------
# They reach other operators through the dispatcher (``aten``), so autograd records what PyTorch records.
_same_warned = False


def convolution_composite(inp, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``convolution`` (CompositeExplicitAutograd): ``at::_convolution`` with the global backend flags."""
    from ...aten import aten
    return aten._convolution(inp, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
                             False, False, True, True)


def _batchify(inp, nsp, name):
    from ...aten import aten
    no_batch = nsp + 1
    batched = inp.ndim == no_batch + 1
    if not (inp.ndim == no_batch or batched):
        raise RuntimeError(f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to {name}, but got "
                           f"input of size: {_fmt(inp.sizes)}")
    return (inp if batched else aten.unsqueeze(inp, 0)), batched


def _unbatch(out, batched):
    from ...aten import aten
    return out if batched else aten.squeeze_dim(out, 0)


def _complex_parts(t):
    """``complex_to_real``: the real and imaginary parts of a complex tensor, as views."""
    from ...aten import aten
    pairs = aten.view_as_real(aten.resolve_conj(t))
    return aten.select_int(pairs, -1, 0), aten.select_int(pairs, -1, 1)


def _complex_convolution(conv, inp, weight, bias):
    """Note [Complex Convolution] in PyTorch's Convolution.cpp: three real convolutions (Gauss's trick),
    ``conv(x, w) = a - b + i (c - a - b)`` with ``a = conv(xr, wr, br)``, ``b = conv(xi, wi)`` and
    ``c = conv(xr + xi, wr + wi, br + bi)``; ``conv(x, w, b)`` is the real convolution with the other arguments."""
    from ...aten import aten
    if weight.dtype is not inp.dtype or (bias is not None and bias.dtype is not inp.dtype):
        other = weight if weight.dtype is not inp.dtype else bias
        raise RuntimeError(f"Input type ({type_meta_name(inp.dtype)}) and {'weight' if other is weight else 'bias'} "
                           f"type ({type_meta_name(other.dtype)}) should be the same")
    xr, xi = _complex_parts(inp)
    wr, wi = _complex_parts(weight)
    br = bi = None
    if bias is not None:
        br, bi = _complex_parts(bias)
    a = conv(xr, wr, br)
    b = conv(xi, wi, None)
    c = conv(aten.add_Tensor(xr, xi, 1), aten.add_Tensor(wr, wi, 1),
             None if bias is None else aten.add_Tensor(br, bi, 1))
    imag = aten.sub_Tensor(aten.sub_Tensor(c, a, 1), b, 1)
    return aten.add_Tensor(aten.sub_Tensor(a, b, 1), aten.mul_Scalar(imag, 1j), 1)


def _convnd(inp, weight, bias, stride, padding, dilation, groups, nsp, name, transposed=False, output_padding=None):
    from ...aten import aten
    if bias is not None and bias.dtype is not inp.dtype and not transposed:
        raise RuntimeError(f"Input type ({type_meta_name(inp.dtype)}) and bias type ({type_meta_name(bias.dtype)}) "
                           f"should be the same")
    x, batched = _batchify(inp, nsp, name)
    args = (list(stride), list(padding), list(dilation), transposed,
            [0] * nsp if output_padding is None else list(output_padding), groups)
    if inp.dtype.is_complex:
        out = _complex_convolution(lambda i, w, b: aten.convolution(i, w, b, *args), x, weight, bias)
    else:
        out = aten.convolution(x, weight, bias, *args)
    return _unbatch(out, batched)


def conv1d(inp, weight, bias, stride, padding, dilation, groups):
    return _convnd(inp, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(inp, weight, bias, stride, padding, dilation, groups):
    return _convnd(inp, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(inp, weight, bias, stride, padding, dilation, groups):
    return _convnd(inp, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(inp, weight, bias, stride, padding, output_padding, groups, dilation):
    return _convnd(inp, weight, bias, stride, padding, dilation, groups, 1, "conv_transpose1d", True, output_padding)


def conv_transpose2d(inp, weight, bias, stride, padding, output_padding, groups, dilation):
    return _convnd(inp, weight, bias, stride, padding, dilation, groups, 2, "conv_transpose2d", True, output_padding)


def conv_transpose3d(inp, weight, bias, stride, padding, output_padding, groups, dilation):
    return _convnd(inp, weight, bias, stride, padding, dilation, groups, 3, "conv_transpose3d", True, output_padding)


def _convnd_padding(inp, weight, bias, stride, padding, dilation, groups, nsp, name):
    from ...aten import aten
    x, batched = _batchify(inp, nsp, name)
    if inp.dtype.is_complex:
        out = _complex_convolution(lambda i, w, b: aten._convolution_mode(i, w, b, list(stride), padding,
                                                                          list(dilation), groups), x, weight, bias)
    else:
        out = aten._convolution_mode(x, weight, bias, list(stride), padding, list(dilation), groups)
    return _unbatch(out, batched)


def conv1d_padding(inp, weight, bias, stride, padding, dilation, groups):
    return _convnd_padding(inp, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d_padding(inp, weight, bias, stride, padding, dilation, groups):
    return _convnd_padding(inp, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d_padding(inp, weight, bias, stride, padding, dilation, groups):
    return _convnd_padding(inp, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _convolution_same(inp, weight, bias, stride, dilation, groups):
    """``_convolution_same``: symmetric padding when possible, else pad the input by the difference first."""
    global _same_warned
    from ...aten import aten
    k = weight.ndim
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = k - 2
    if k != inp.ndim:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight{_fmt(weight.sizes)}, but got "
                           f"{inp.ndim}-dimensional input of size {_fmt(inp.sizes)} instead")
    if not (len(stride) == dim or len(stride) == 1):
        raise RuntimeError(f"stride cannot broadcast to {dim} dimensions")
    if not (len(dilation) == dim or len(dilation) == 1):
        raise RuntimeError(f"dilation cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    pad_l, pad_r = [], []
    for i in range(dim):
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        total = d * (weight.sizes[i + 2] - 1)
        pad_l.append(total // 2)
        pad_r.append(total - total // 2)
    if pad_l == pad_r:
        return aten.convolution(inp, weight, bias, list(stride), pad_l, list(dilation), False, [0] * dim, groups)
    if not _same_warned:
        _same_warned = True
        _user_warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy "
                   "of the input be created")
    pad_nd = [0] * (2 * dim)
    for i in range(dim):
        delta = pad_r[i] - pad_l[i]
        idx = 2 * (dim - 1 - i)
        if delta > 0:
            pad_nd[idx + 1] = delta
        else:
            pad_nd[idx] = delta
            pad_l[i] = pad_r[i]
    padded = aten.constant_pad_nd(inp, pad_nd, 0)
    return aten.convolution(padded, weight, bias, list(stride), pad_l, list(dilation), False, [0] * dim, groups)


def convolution_mode(inp, weight, bias, stride, padding, dilation, groups):
    """``_convolution_mode``: ``padding="same"`` or ``"valid"``."""
    from ...aten import aten
    if padding == "same":
        return _convolution_same(inp, weight, bias, stride, dilation, groups)
    if padding == "valid":
        return aten.convolution(inp, weight, bias, list(stride), [0], list(dilation), False, [0], groups)
    raise RuntimeError(f"Invalid padding string: '{padding}'")


def max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool2d``: the values of ``max_pool2d_with_indices``."""
    from ...aten import aten
    return aten.max_pool2d_with_indices(self, list(kernel_size), list(stride), list(padding), list(dilation),
                                        ceil_mode)[0]


def adaptive_avg_pool2d(self, output_size):
    """``adaptive_avg_pool2d``: a ``mean`` over H, W for a 1x1 output, else ``_adaptive_avg_pool2d``."""
    from ...aten import aten
    output_size = tuple(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if not (output_size[0] >= 0 and output_size[1] >= 0):
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]}}}")
    if output_size == (1, 1):
        out = aten.mean_dim(self, [-1, -2], True, None)
        if _suggests_channels_last(self):
            n, c = self.sizes[:2]
            out = aten.as_strided(out, [n, c, 1, 1], [c, 1, c, c], None)
        return out
    return aten._adaptive_avg_pool2d(self, list(output_size))
