"""Loss CPU kernels — PyTorch's ``aten/src/ATen/native/{Loss,LossNLL,LossNLL2d}.cpp`` and the loss parts of
``cpu/PointwiseOpsKernel.cpp``.

- ``nll_loss_forward`` / ``nll_loss2d_forward``: pick ``-input[target] * weight[target]``; the reduced forms
  sum with PyTorch's *cascade sum* (8 levels of partial sums, carried every 16 elements) in the input dtype,
  emulated exactly so float results agree bit for bit; ``total_weight`` is the summed weight;
- ``mse_loss``, ``smooth_l1_loss``, ``huber_loss``: elementwise through TensorIterator, then ``mean``/``sum``
  (``mean`` of float16/bfloat16 sums in float32, PyTorch's rule);
- ``binary_cross_entropy`` (log clamped at -100) and ``binary_cross_entropy_with_logits`` (PyTorch's
  composite formula, op by op, so every intermediate rounds where PyTorch's does).

Reductions are PyTorch's ``at::Reduction`` enum: 0 none, 1 mean, 2 sum.  Every kernel also serves the Meta
key: on meta operands only shapes and dtypes are computed.

Invariant: arithmetic runs in the tensor's own dtype, op by op, as PyTorch's scalar loops do; only the
documented accumulations use a wider type.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core.shape import broadcast_shapes
from ...._tensor.impl import TensorImpl, empty_contiguous
from ...tensor_iterator import build, resize_out

__all__ = [
    "nll_loss_forward_out", "nll_loss2d_forward_out", "nll_loss2d_forward_functional", "nll_loss_backward_out",
    "nll_loss2d_backward_out", "mse_loss_out",
    "smooth_l1_loss_out", "huber_loss_out", "huber_loss_functional", "binary_cross_entropy_out",
    "binary_cross_entropy_functional", "binary_cross_entropy_with_logits_kernel", "type_meta_name", "reduce_loss_np",
]

NONE, MEAN, SUM = 0, 1, 2
_FLOATS = (_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16)
_HALF = (_dt.float16, _dt.bfloat16)
# caffe2 TypeMeta names, which PyTorch prints in "Expected out tensor to have dtype float ..." messages
_TYPE_META = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def type_meta_name(dtype) -> str:
    return _TYPE_META.get(repr(dtype).removeprefix("torch."), repr(dtype))


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _meta(*impls) -> bool:
    return any(type(t) is TensorImpl and t.storage._data is None for t in impls)


def _not_implemented(name, dtype):
    return NotImplementedError(f'"{name}" not implemented for \'{_dt.name_of(dtype)}\'')


def _check_floating(name, dtype):
    if dtype not in _FLOATS:
        raise _not_implemented(name, dtype)


def _structured_out(out, shape, dtype, device):
    """A structured kernel's output: allocate, or check the dtype of ``out`` and resize it."""
    if out is None:
        return empty_contiguous(tuple(shape), dtype, device)
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {type_meta_name(dtype)}, but got "
                           f"{type_meta_name(out.dtype)} instead")
    resize_out(out, tuple(shape))
    return out


def _resized_out(out, shape, dtype, device):
    """A non-structured kernel's output (``resize_output``): any dtype, resized."""
    if out is None:
        return empty_contiguous(tuple(shape), dtype, device)
    resize_out(out, tuple(shape))
    return out


def _expect_dtype(impl, dtype):
    """``tensor.data_ptr<scalar_t>()``: the tensor must hold exactly the kernel's dtype."""
    if impl is not None and impl.dtype is not dtype:
        raise RuntimeError(f"expected scalar type {_dt.name_of(dtype)} but found {_dt.name_of(impl.dtype)}")


# -- reductions ----------------------------------------------------------------------------------------
def reduce_loss_np(arr: np.ndarray, reduction: int, out_np_dtype):
    """``apply_loss_reduction`` on a computed elementwise loss: a 0-d array of ``out_np_dtype``.

    ``mean`` of float16/bfloat16 sums and divides in float32 and rounds once (PyTorch's ``mean_out``);
    ``sum`` accumulates in float32 for them too.
    """
    n = arr.size
    src = arr.dtype
    wide = np.float32 if src in (np.float16, _dt.bfloat16.np) else src.type
    s = np.sum(arr, dtype=wide)
    if reduction == MEAN:
        s = np.divide(s, wide(n)) if n else wide(np.nan)
    return np.asarray(s).astype(out_np_dtype)


def _ceil_log2(n: int) -> int:
    return max(int(n) - 1, 0).bit_length()


def _sequential_segment_sums(values: np.ndarray, seg: np.ndarray, nseg: int) -> np.ndarray:
    """Left-to-right sums of each segment (consecutive runs of ``seg``), rounding to the dtype at every add."""
    dtype = values.dtype
    if nseg == 0:
        return np.zeros(0, dtype)
    starts = np.searchsorted(seg, np.arange(nseg))
    pos = np.arange(values.size) - starts[seg]
    width = int(pos.max()) + 1 if values.size else 0
    mat = np.zeros((nseg, width), dtype)
    mat[seg, pos] = values
    acc = np.zeros(nseg, dtype)
    for c in range(width):
        acc = np.add(acc, mat[:, c], dtype=dtype)
    return acc


def cascade_sum(values: np.ndarray, linear_idx: np.ndarray, numiter: int):
    """PyTorch's NLL cascade sum of ``values`` (one per processed element, at positions ``linear_idx``).

    Level 0 accumulates element by element; after element ``b`` the levels ``j`` whose ``level_power``-bit
    digits of ``b`` are all zero (from the bottom up) are carried into level ``j + 1``.  The result adds the
    eight levels left to right.  All in ``values.dtype``.
    """
    dtype = values.dtype
    levels = 8
    power = max(4, _ceil_log2(numiter) // levels)
    mask = (1 << power) - 1
    depth = np.zeros(values.size, np.int64)
    active = np.ones(values.size, bool)
    for j in range(levels - 1):
        active &= ((linear_idx >> (j * power)) & mask) == 0
        depth += active
    residuals = []
    vals = values
    for _ in range(levels):
        if vals.size == 0:
            residuals.append(dtype.type(0))
            vals, depth = vals, depth
            continue
        ends = depth >= 1
        seg = np.concatenate([[0], np.cumsum(ends)[:-1]]).astype(np.int64)
        nseg = int(seg[-1]) + 1
        totals = _sequential_segment_sums(vals, seg, nseg)
        nclosed = int(ends.sum())
        residuals.append(totals[-1] if not ends[-1] else dtype.type(0))
        vals = totals[:nclosed]
        depth = depth[ends] - 1
    total = dtype.type(0)
    for r in residuals:
        total = np.add(total, r, dtype=dtype)
    return total


# -- nll_loss ------------------------------------------------------------------------------------------
def _check_target_dtype(target):
    if target.dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_dt.name_of(target.dtype)}")


def _nll_reduced(x_picked, w_picked, idx, numiter, count, reduction, dtype):
    """(output, total_weight) of the reduced NLL: cascade sums in ``dtype``."""
    npdt = dtype.np
    if w_picked is None:
        loss = -cascade_sum(x_picked.astype(npdt, copy=False), idx, numiter)
        tw = npdt.type(count)
    else:
        loss = -cascade_sum(np.multiply(x_picked, w_picked, dtype=npdt), idx, numiter)
        tw = cascade_sum(w_picked.astype(npdt, copy=False), idx, numiter)
    loss = npdt.type(loss)
    if reduction == MEAN:
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.divide(loss, tw, dtype=npdt)
    return loss, tw


def _bounds_check(t, valid, n_classes):
    bad = valid & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")


def nll_loss_forward_out(self, target, weight, reduction, ignore_index, output, total_weight):
    """``nll_loss_forward.output``: 1-D or 2-D log-probabilities, 0-D or 1-D class indices."""
    if not (0 < self.ndim <= 2):
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if self.ndim == 1 and target.ndim == 1:
        if target.sizes[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.sizes[0]}")
    elif not (self.ndim == 1 and target.ndim == 0):
        if target.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if self.sizes[0] != target.sizes[0]:
            raise RuntimeError(f"size mismatch (got input: {_fmt(self.sizes)}, target: {_fmt(target.sizes)})")
    n_classes = self.sizes[-1]
    if weight is not None and not (weight.ndim == 1 and weight.numel() == n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {_fmt(weight.sizes)}")
    none2d = reduction == NONE and self.ndim == 2
    out_shape = (self.sizes[0],) if none2d else ()
    output = _structured_out(output, out_shape, self.dtype, self.device)
    total_weight = _structured_out(total_weight, (), self.dtype, self.device)
    _check_target_dtype(target)
    _check_floating("nll_loss_out_frame", self.dtype)
    _expect_dtype(weight, self.dtype)
    if _meta(self, target, weight, output):
        return output, total_weight
    npdt = self.dtype.np
    x = self.as_numpy()
    t = target.as_numpy().astype(np.int64).reshape(-1)
    w = weight.as_numpy() if weight is not None else None
    x2 = x.reshape(1, -1) if self.ndim == 1 else x
    valid = t != ignore_index
    if none2d:
        _bounds_check(t, valid, n_classes)
        safe = np.where(valid, t, 0)
        picked = np.negative(x2[np.arange(x2.shape[0]), safe] if x2.shape[0] else np.zeros(0, npdt))
        if w is not None:
            picked = np.multiply(picked, w[safe], dtype=npdt)
        output.as_numpy()[...] = np.where(valid, picked, npdt.type(0))
        total_weight.as_numpy()[()] = 0
        return output, total_weight
    if t.size == 0:
        output.as_numpy()[()] = np.nan if reduction == MEAN else 0
        total_weight.as_numpy()[()] = 0
        return output, total_weight
    batch = 1 if self.ndim == 1 else self.sizes[0]
    t = t[:batch]
    valid = valid[:batch]
    _bounds_check(t, valid, n_classes)
    idx = np.nonzero(valid)[0]
    tv = t[idx]
    x_picked = x2[idx, tv]
    loss, tw = _nll_reduced(x_picked, w[tv] if w is not None else None, idx, batch, idx.size, reduction,
                            self.dtype)
    output.as_numpy()[()] = loss
    total_weight.as_numpy()[()] = tw
    return output, total_weight


def _check_inputs_nll_loss2d(self, target, weight):
    if target.ndim != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.ndim}")
    if self.ndim != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{self.ndim}")
    if weight is not None and weight.numel() != self.sizes[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if not (self.sizes[0] == target.sizes[0] and self.sizes[2] == target.sizes[1] and
            self.sizes[3] == target.sizes[2]):
        raise RuntimeError(f"size mismatch (got input: {_fmt(self.sizes)} , target: {_fmt(target.sizes)}")


def nll_loss2d_forward_out(self, target, weight, reduction, ignore_index, output, total_weight):
    """``nll_loss2d_forward.output``: (N, C, H, W) log-probabilities, (N, H, W) class indices."""
    _check_inputs_nll_loss2d(self, target, weight)
    _check_target_dtype(target)
    if total_weight is None:
        total_weight = empty_contiguous((), self.dtype, self.device)
    else:
        resize_out(total_weight, ())
    _check_floating("nll_loss2d_forward_out_frame", self.dtype)
    n, c, h, w_ = self.sizes
    none = reduction == NONE
    output = _resized_out(output, (n, h, w_) if none else (), self.dtype, self.device)
    _expect_dtype(total_weight, self.dtype)
    _expect_dtype(weight, self.dtype)
    _expect_dtype(output, self.dtype)
    _expect_dtype(target, _dt.int64)
    if _meta(self, target, weight, output):
        return output, total_weight
    npdt = self.dtype.np
    x = self.as_numpy()
    t = target.as_numpy()
    w = weight.as_numpy().reshape(-1) if weight is not None else None
    valid = t != ignore_index
    if none:
        _bounds_check(t, valid, c)
        safe = np.where(valid, t, 0)
        picked = np.negative(np.take_along_axis(x, safe[:, None], axis=1)[:, 0])
        if w is not None:
            picked = np.multiply(picked, w[safe], dtype=npdt)
        output.as_numpy()[...] = np.where(valid, picked, npdt.type(0))
        total_weight.as_numpy()[()] = 0
        return output, total_weight
    if t.size == 0:
        output.as_numpy()[()] = np.nan if reduction == MEAN else 0
        total_weight.as_numpy()[()] = 0
        return output, total_weight
    tf = t.reshape(-1)
    vf = valid.reshape(-1)
    _bounds_check(tf, vf, c)
    idx = np.nonzero(vf)[0]
    tv = tf[idx]
    b, elem = np.divmod(idx, h * w_)
    x_picked = x.reshape(n, c, h * w_)[b, tv, elem]
    loss, tw = _nll_reduced(x_picked, w[tv] if w is not None else None, idx, tf.size, idx.size, reduction,
                            self.dtype)
    output.as_numpy()[()] = loss
    total_weight.as_numpy()[()] = tw
    return output, total_weight


def nll_loss2d_forward_functional(self, target, weight, reduction, ignore_index):
    return nll_loss2d_forward_out(self, target, weight, reduction, ignore_index, None, None)


# -- the NLL backwards ----------------------------------------------------------------------------------
def _check_total_weight(total_weight, space):
    if total_weight.numel() != 1:
        raise RuntimeError(f"expected total_weight to be a{space}single element tensor, got: "
                           f"{_fmt(total_weight.sizes)} ({total_weight.numel()} elements)")


def _check_single_grad(grad_output):
    if not (grad_output.ndim <= 1 and grad_output.numel() == 1):
        raise RuntimeError(f"Expected a single element grad_output tensor, but got: {_fmt(grad_output.sizes)}")


def _nll_grad_input(grad_output, self, target, weight, reduction, ignore_index, total_weight, kname, out):
    """``grad_input[..., target, ...] = -weight[target] * grad`` (divided by ``total_weight`` under mean) where the
    target is not ``ignore_index``; ``target`` is laid out as ``self`` without its class dim (dim 1, or 0 for 1-D)."""
    _check_floating(kname, self.dtype)
    if target.dtype is not _dt.uint8:  # a Byte target is read as such (nll_loss2d_backward refused it already)
        _expect_dtype(target, _dt.int64)
    _expect_dtype(grad_output, self.dtype)
    _expect_dtype(total_weight, self.dtype)
    _expect_dtype(weight, self.dtype)
    out = _structured_out(out, self.sizes, self.dtype, self.device)
    if _meta(grad_output, self, target, weight, total_weight, out):
        return out
    npdt = self.dtype.np
    cls = 0 if self.ndim == 1 else 1
    res = np.zeros(self.sizes, npdt)
    t = target.as_numpy().astype(np.int64).reshape(res.shape[:cls] + res.shape[cls + 1:])
    valid = t != ignore_index
    _bounds_check(t, valid, self.sizes[cls])
    g = grad_output.as_numpy()
    if reduction != NONE:  # PyTorch's order: -(grad / total_weight), then times the weight
        g = g.reshape(())
        if reduction == MEAN:
            with np.errstate(divide="ignore", invalid="ignore"):
                g = np.divide(g, total_weight.as_numpy().reshape(()), dtype=npdt)
    g = np.broadcast_to(np.negative(g, dtype=npdt), t.shape)
    safe = np.where(valid, t, 0)
    vals = np.where(valid, g if weight is None else np.multiply(weight.as_numpy()[safe], g, dtype=npdt), 0)
    np.put_along_axis(res, np.expand_dims(safe, cls), np.expand_dims(vals.astype(npdt), cls), axis=cls)
    out.as_numpy()[...] = res
    return out


def nll_loss_backward_out(grad_output, self, target, weight, reduction, ignore_index, total_weight, out=None):
    """``nll_loss_backward`` / ``.grad_input`` (structured): the gradient of ``nll_loss_forward`` as an operator."""
    if not (0 < self.ndim <= 2):
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if not (self.ndim == 1 and target.ndim == 0) and self.sizes[0] != target.sizes[0]:
        raise RuntimeError(f"size mismatch (got input: {_fmt(self.sizes)}, target: {_fmt(target.sizes)})")
    _check_total_weight(total_weight, "  ")
    if weight is not None and weight.numel() != self.sizes[-1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if reduction == NONE and self.ndim == 2:
        n = self.sizes[0]
        if grad_output.ndim != 1 or grad_output.sizes[0] != n:
            raise RuntimeError(f"Expected a tensor of dimension 1 and tensor.size[0] == {n} but got: dimension "
                               f"{grad_output.ndim} and tensor.size[0] = {grad_output.sizes[0]}")
    else:
        _check_single_grad(grad_output)
    return _nll_grad_input(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                           "nll_loss_backward_out_frame", out)


def nll_loss2d_backward_out(grad_output, self, target, weight, reduction, ignore_index, total_weight, out=None):
    """``nll_loss2d_backward`` / ``.grad_input``: (N, C, H, W) inputs, (N, H, W) targets."""
    _check_inputs_nll_loss2d(self, target, weight)
    _check_target_dtype(target)
    _expect_dtype(target, _dt.int64)
    _check_total_weight(total_weight, " ")
    if reduction == NONE:
        if grad_output.sizes != target.sizes:
            raise RuntimeError(f"size mismatch (got grad_output: {_fmt(grad_output.sizes)} target: "
                               f"{_fmt(target.sizes)}")
    else:
        _check_single_grad(grad_output)
    return _nll_grad_input(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                           "nll_loss2d_backward_out_frame", out)


# -- pointwise losses ----------------------------------------------------------------------------------
def _pointwise_loss(name, fn, self, target, reduction, out, *, out_like_input=False):
    """A TensorIterator loss: ``fn(a, b, npdtype)`` elementwise, then mean/sum unless ``reduction`` is none.

    ``out_like_input``: the elementwise loss is written into ``empty_like(input)`` (huber_loss).
    """
    if reduction == NONE or (out_like_input and reduction not in (MEAN, SUM)):
        dest = out
        if out_like_input and out is None:
            dest = empty_contiguous(self.sizes, self.dtype, self.device)
        it = build((dest,), (self, target))
        _check_floating(name, it.common_dtype)
        if not it.is_meta:
            dt = it.common_dtype.np
            a, b = (x.astype(dt, copy=False) for x in it.ins_np)
            it.out_np[...] = fn(a, b, dt)
        return it.out
    if reduction not in (MEAN, SUM):
        line = {"mse_cpu": 97, "smooth_l1_cpu": 86}.get(name, 0)
        raise RuntimeError(f'reduction == Reduction::Mean || reduction == Reduction::Sum INTERNAL ASSERT FAILED at '
                           f'"/__w/pytorch/pytorch/aten/src/ATen/native/Loss.cpp":{line}, please report a bug to '
                           f'PyTorch. ')
    tmp_like = empty_contiguous(self.sizes, self.dtype, self.device) if out_like_input else None
    it = build((tmp_like,), (self, target))
    _check_floating(name, it.common_dtype)
    loss_dtype = it.out.dtype
    if out is None:
        result = empty_contiguous((), loss_dtype, self.device)
    else:
        if not _dt.can_cast(loss_dtype, out.dtype):
            raise RuntimeError(f"result type {_dt.name_of(loss_dtype)} can't be cast to the desired output type "
                               f"{_dt.name_of(out.dtype)}")
        resize_out(out, ())
        result = out
    if it.is_meta or _meta(result):
        return result
    dt = it.common_dtype.np
    a, b = (x.astype(dt, copy=False) for x in it.ins_np)
    elem = np.asarray(fn(a, b, dt)).astype(loss_dtype.np, copy=False)
    res_dt = result.dtype.np  # mean_out/sum_out into ``out`` reduce in the out dtype
    result.as_numpy()[()] = reduce_loss_np(elem.astype(res_dt, copy=False), reduction, res_dt)
    return result


def _mse(a, b, dt):
    d = np.subtract(a, b, dtype=dt)
    return np.multiply(d, d, dtype=dt)


def mse_loss_out(self, target, reduction, out):
    """``mse_loss.out``: ``(a - b)**2``, computed as ``d = a - b; d * d`` in the common dtype."""
    return _pointwise_loss("mse_cpu", _mse, self, target, reduction, out)


def _smooth_l1(beta):
    def fn(a, b, dt):
        if dt == _dt.bfloat16.np:  # PyTorch computes bfloat16 in float32 and rounds once
            z = np.abs(np.subtract(a, b, dtype=np.float32))
            f32 = np.float32
            res = np.where(z < f32(beta), f32(0.5) * z * z / f32(beta), z - f32(0.5) * f32(beta))
            return res.astype(dt)
        z = np.abs(np.subtract(a, b, dtype=dt))
        bt = dt.type(beta)
        half = dt.type(0.5)
        with np.errstate(divide="ignore", invalid="ignore"):
            quad = np.divide(np.multiply(np.multiply(half, z, dtype=dt), z, dtype=dt), bt, dtype=dt)
        lin = np.subtract(z, np.multiply(half, bt, dtype=dt), dtype=dt)
        return np.where(z < bt, quad, lin)
    return fn


def smooth_l1_loss_out(self, target, reduction, beta, out):
    """``smooth_l1_loss.out``: ``0.5 z**2 / beta`` below ``beta``, ``z - beta/2`` above."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _pointwise_loss("smooth_l1_cpu", _smooth_l1(beta), self, target, reduction, out)


def _huber(delta):
    def fn(a, b, dt):
        if dt == np.float16:  # PyTorch computes float16 in float32 and rounds once (bfloat16: op by op)
            z = np.abs(np.subtract(a, b, dtype=np.float32))
            f32 = np.float32
            res = np.where(z < f32(delta), f32(0.5) * z * z, f32(delta) * (z - f32(0.5) * f32(delta)))
            return res.astype(dt)
        z = np.abs(np.subtract(a, b, dtype=dt))
        d = dt.type(delta)
        half = dt.type(0.5)
        quad = np.multiply(np.multiply(half, z, dtype=dt), z, dtype=dt)
        lin = np.multiply(d, np.subtract(z, np.multiply(half, d, dtype=dt), dtype=dt), dtype=dt)
        return np.where(z < d, quad, lin)
    return fn


def huber_loss_out(self, target, reduction, delta, out):
    """``huber_loss.out``: ``0.5 z**2`` below ``delta``, ``delta (z - delta/2)`` above."""
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if reduction != NONE:
        reduction = MEAN if reduction == MEAN else SUM
    return _pointwise_loss("huber_cpu", _huber(delta), self, target, reduction, out)


def huber_loss_functional(self, target, reduction, delta):
    """``huber_loss``: the loss goes into ``empty_like(input)``, then ``apply_loss_reduction``."""
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return _pointwise_loss("huber_cpu", _huber(delta), self, target, reduction, None, out_like_input=True)


# -- binary cross entropy ------------------------------------------------------------------------------
def _bce_elementwise(x, y, dt):
    if ((x < 0) | (x > 1) | np.isnan(x)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if ((y < 0) | (y > 1) | np.isnan(y)).any():
        raise RuntimeError("all elements of target should be between 0 and 1")
    one = dt.type(1)
    lo = dt.type(-100)
    with np.errstate(divide="ignore"):
        log1m = np.maximum(np.log1p(np.negative(x)).astype(dt), lo)
        logx = np.maximum(np.log(x).astype(dt), lo)
    return np.subtract(np.multiply(np.subtract(y, one, dtype=dt), log1m, dtype=dt),
                       np.multiply(y, logx, dtype=dt), dtype=dt)


def _resize_as_(t, shape):
    """``Tensor.resize_as_``: restride in place without the ``out=`` deprecation warning."""
    from ...._core import shape as _shape
    shape = tuple(shape)
    if t.sizes != shape:
        need = (t.offset + _shape.prod(shape)) * t.dtype.itemsize
        if need > t.storage.nbytes():
            t.storage.resize_(need)
        t.set_geometry(shape, _shape.contiguous_strides(shape), t.offset)
    return t


def _squeezed(sizes):
    return tuple(d for d in sizes if d != 1)


def binary_cross_entropy_out(self, target, weight, reduction, out):
    """``binary_cross_entropy.out``: ``-w (y log x + (1 - y) log(1 - x))``, logs clamped at -100.

    PyTorch writes the elementwise loss into ``out`` (``empty_like(input)`` for the functional form), multiplies
    by ``weight`` in place, then ``resize_as_``s it to the reduced value.
    """
    loss = empty_contiguous(self.sizes, self.dtype, self.device) if out is None else out
    # PyTorch iterates over *squeezed views* of out/input/target: an ``out`` of another shape is not resized
    # (its resized squeezed view is), so the reduction then reads ``out``'s own, unchanged elements.
    detached = out is not None and _squeezed(out.sizes) != _squeezed(broadcast_shapes(
        _squeezed(self.sizes), _squeezed(target.sizes)))
    it = build((None if detached else loss,), (self, target), check_same_dtype=True)
    if detached and loss.dtype is not it.common_dtype:
        raise RuntimeError(f"Found dtype {_dt.name_of(loss.dtype)} but expected {_dt.name_of(it.common_dtype)}")
    _check_floating("binary_cross_entropy", loss.dtype)
    if weight is not None:
        _inplace_check(loss.sizes, loss.dtype, weight.sizes, weight.dtype)
    reduced = reduction in (MEAN, SUM)
    if it.is_meta or _meta(weight, loss):
        return _resize_as_(loss, ()) if reduced else loss
    dt = loss.dtype.np
    x, y = it.ins_np
    val = _bce_elementwise(x, y, dt)
    if detached:
        val = loss.as_numpy().copy()
    if weight is not None:
        val = np.multiply(val, weight.as_numpy(), dtype=np.result_type(dt, weight.dtype.np)).astype(dt)
    if reduced:
        red = reduce_loss_np(np.asarray(val, dt), reduction, dt)
        _resize_as_(loss, ())
        loss.as_numpy()[()] = red
    else:
        loss.as_numpy()[...] = val
    return loss


def binary_cross_entropy_functional(self, target, weight, reduction):
    return binary_cross_entropy_out(self, target, weight, reduction, None)


def _log_sigmoid(x, dt):
    """PyTorch's ``log_sigmoid``: ``min(x, 0) - log1p(exp(-|x|))``, in float32 for float16/bfloat16."""
    wide = np.float32 if dt in (np.float16, _dt.bfloat16.np) else np.dtype(dt).type
    xf = x.astype(wide, copy=False)
    with np.errstate(over="ignore"):
        return (np.minimum(xf, wide(0)) - np.log1p(np.exp(-np.abs(xf)))).astype(dt)


def _inplace_check(self_shape, self_dtype, other_shape, other_dtype):
    """``self.op_(other)``: the broadcast must keep ``self``'s shape and the result must cast back."""
    shape = broadcast_shapes(tuple(self_shape), tuple(other_shape))
    if tuple(shape) != tuple(self_shape):
        raise RuntimeError(f"output with shape {_fmt(self_shape)} doesn't match the broadcast shape {_fmt(shape)}")
    common = _dt.promote_types(self_dtype, other_dtype)
    if not _dt.can_cast(common, self_dtype):
        raise RuntimeError(f"result type {_dt.name_of(common)} can't be cast to the desired output type "
                           f"{_dt.name_of(self_dtype)}")


def _bce_logits_plan(self, target, weight, pos_weight):
    """PyTorch's composite, checked op by op: (loss shape, loss dtype, log-weight dtype or None).

    ``log_sigmoid(input)``; ``log_weight = (pos_weight - 1).mul(target).add_(1)``;
    ``log_sigmoid_input.mul_(log_weight)``; ``loss = (1 - target).mul_(input).sub_(log_sigmoid_input)``;
    ``loss.mul_(weight)``.
    """
    if self.dtype not in _FLOATS:
        raise _not_implemented("log_sigmoid_cpu", self.dtype)
    lw_dt = None
    if pos_weight is not None:
        pw_dt = pos_weight.dtype
        if pw_dt is _dt.bool:
            raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                               "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        lw_shape = broadcast_shapes(tuple(pos_weight.sizes), tuple(target.sizes))
        lw_dt = _dt.promote_types(pw_dt, target.dtype)
        _inplace_check(self.sizes, self.dtype, lw_shape, lw_dt)
    tgt_dt = target.dtype
    if tgt_dt is _dt.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    _inplace_check(target.sizes, tgt_dt, self.sizes, self.dtype)
    if weight is not None:
        _inplace_check(target.sizes, tgt_dt, weight.sizes, weight.dtype)
    return tuple(target.sizes), tgt_dt, lw_dt


def _bce_logits_np(x, y, w, pw, in_dt, tgt_dt, lw_dt):
    """The composite's arithmetic, each op in the dtype PyTorch computes it in."""
    log_sig = _log_sigmoid(x, in_dt)
    if pw is not None:
        pm1 = np.subtract(pw, pw.dtype.type(1), dtype=pw.dtype)
        log_weight = np.add(np.multiply(pm1, y, dtype=lw_dt), lw_dt.type(1), dtype=lw_dt)
        log_sig = np.multiply(log_sig, log_weight, dtype=np.result_type(in_dt, lw_dt)).astype(in_dt)
    loss = np.subtract(tgt_dt.type(1), y, dtype=tgt_dt)
    loss = np.multiply(loss, x, dtype=np.result_type(tgt_dt, in_dt)).astype(tgt_dt)
    loss = np.subtract(loss, log_sig, dtype=np.result_type(tgt_dt, in_dt)).astype(tgt_dt)
    if w is not None:
        loss = np.multiply(loss, w, dtype=np.result_type(tgt_dt, w.dtype)).astype(tgt_dt)
    return loss


def _bce_logits(self, target, weight, pos_weight, reduction):
    shape, tgt_dt, lw_dt = _bce_logits_plan(self, target, weight, pos_weight)
    reduced = reduction in (MEAN, SUM)
    result = empty_contiguous(() if reduced else shape, tgt_dt, self.device)
    if _meta(self, target, weight, pos_weight):
        return result
    x = self.as_numpy()
    y = target.as_numpy()
    w = weight.as_numpy() if weight is not None else None
    pw = pos_weight.as_numpy() if pos_weight is not None else None
    loss = _bce_logits_np(x, y, w, pw, self.dtype.np, tgt_dt.np, lw_dt.np if lw_dt is not None else None)
    if reduced:
        result.as_numpy()[()] = reduce_loss_np(np.asarray(loss), reduction, tgt_dt.np)
    else:
        result.as_numpy()[...] = loss
    return result


def binary_cross_entropy_with_logits_kernel(self, target, weight, pos_weight, reduction):
    """``binary_cross_entropy_with_logits`` (CompositeExplicitAutograd): PyTorch's composite, op by op."""
    return _bce_logits(self, target, weight, pos_weight, reduction)
