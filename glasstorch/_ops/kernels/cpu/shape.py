"""Shape and copy kernels — PyTorch's ``TensorShape.cpp`` (cat, stack, repeat), ``TensorTransformations.cpp``
(flip, roll), ``TriangularOps.cpp``, ``PadNd.cpp``, ``ReflectionPad.cpp`` and ``ReplicationPadding.cpp``.

Each kernel checks its arguments with PyTorch's messages, allocates (or resizes the given ``out``) and
fills the result with one numpy call over ``as_numpy()`` views.  The same functions serve the Meta key:
on meta operands they stop after computing the output geometry.

Invariant: inputs are never written; a new output is contiguous unless PyTorch's kernel keeps the input's
layout (``flip``: preserve_format).
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._core.shape import wrap_dim
from ...._tensor import views as _views
from ...._tensor.impl import TensorImpl, empty_impl, empty_strided_impl
from ... import factories as _fac
from ...overlap import check_outputs_writable
from ...tensor_iterator import resize_out
from . import copy as _copy

__all__ = [
    "cat_out", "stack", "stack_out", "repeat", "repeat_out", "repeat_interleave_cpu",
    "flip", "flip_out", "roll", "roll_out", "tril_out", "triu_out", "diag_out", "diag_embed", "diag_embed_out",
    "narrow_copy", "narrow_copy_out", "constant_pad_nd", "constant_pad_nd_out", "reflection_pad1d_out",
    "reflection_pad2d_out", "reflection_pad3d_out", "replication_pad1d_out", "replication_pad2d_out",
    "replication_pad3d_out", "reflection_pad1d_backward_out", "reflection_pad2d_backward_out",
    "reflection_pad3d_backward_out", "replication_pad1d_backward_out", "replication_pad2d_backward_out",
    "replication_pad3d_backward_out", "circular_pad",
]


# -- helpers shared with kernels/cpu/index.py ----------------------------------------------------------------
def fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def is_meta(*impls) -> bool:
    return any(t is not None and t.storage._data is None for t in impls)


def new_output(shape, dtype, device, like: TensorImpl | None = None) -> TensorImpl:
    """A fresh output: contiguous, or with ``like``'s layout when it is dense (``empty_like`` preserve_format)."""
    if like is not None and like.sizes == tuple(shape):
        return empty_strided_impl(tuple(shape), _fac.strides_like(like), dtype, device)
    return empty_impl(tuple(shape), dtype, device)


def prepare_out(out, shape, dtype, device, like=None) -> TensorImpl:
    """The kernel's result tensor: ``out`` resized to ``shape`` (PyTorch's resize_output), or a new one."""
    if out is None:
        return new_output(shape, dtype, device, like)
    resize_out(out, tuple(shape))
    return out


def write(out: TensorImpl, arr) -> TensorImpl:
    """Copy a computed numpy array into ``out`` (casting as ``copy_`` does)."""
    if out.storage._data is not None and out.numel():
        with np.errstate(invalid="ignore", over="ignore"):
            np.copyto(out.as_numpy(), arr, casting="unsafe")
    return out


def assert_no_overlap(a: TensorImpl, b: TensorImpl) -> None:
    """PyTorch's ``assert_no_overlap``: written and read tensors must not share any element."""
    if a.storage is not b.storage or a.numel() == 0 or b.numel() == 0:
        return
    def extent(t):
        lo = t.offset * t.dtype.itemsize
        hi = lo + (sum((s - 1) * st for s, st in zip(t.sizes, t.strides, strict=True)) + 1) * t.dtype.itemsize
        return lo, hi
    (a0, a1), (b0, b1) = extent(a), extent(b)
    if a0 < b1 and b0 < a1:
        raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor refer "
                           "to a single memory location. Please clone() the tensor before performing the operation.")


def not_implemented(kernel: str, dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{_dt.name_of(dtype)}\'')


# -- cat / stack ----------------------------------------------------------------------------------------------
def _cat_skip(t: TensorImpl) -> bool:
    """Legacy rule: a 1-D empty tensor is skipped by cat whatever the other shapes are."""
    return t.ndim == 1 and t.sizes[0] == 0


def _cat_memory_format_strides(tensors, shape):
    fmt_cl = None
    for t in tensors:
        cl = t.ndim == 4 and not t.is_contiguous() and _shape.is_channels_last_strides_2d(t.sizes, t.strides)
        if not cl:
            return _shape.contiguous_strides(shape)
        fmt_cl = True
    return _shape.channels_last_strides(shape) if fmt_cl and len(shape) == 4 else _shape.contiguous_strides(shape)


def cat_out(tensors, dim, out):
    """``torch.cat``: result_type promotion over every input, legacy 1-D empties skipped."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    valid = next((t for t in tensors if not _cat_skip(t)), None)
    if valid is not None:
        dim = wrap_dim(dim, valid.ndim)
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dt.promote_types(dtype, t.dtype)
    if out is not None:
        if not _dt.can_cast(dtype, out.dtype):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                            f"{_dt.name_of(out.dtype)}")
        dtype = out.dtype
    if valid is None:
        shape = (0,)
    else:
        size_at_dim = 0
        for i, t in enumerate(tensors):
            if _cat_skip(t):
                continue
            if t.ndim != valid.ndim:
                raise RuntimeError(f"Tensors must have same number of dimensions: got {valid.ndim} and {t.ndim}")
            for d in range(t.ndim):
                if d != dim and t.sizes[d] != valid.sizes[d]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                       f"{valid.sizes[d]} but got size {t.sizes[d]} for tensor number {i} in the list.")
            size_at_dim += t.sizes[dim]
        shape = valid.sizes[:dim] + (size_at_dim,) + valid.sizes[dim + 1:]
    device = tensors[0].device
    for t in tensors:
        if t.device != device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{device} and {t.device}!")
    strides = _cat_memory_format_strides(tensors, shape)
    if out is None:
        out = empty_strided_impl(shape, strides, dtype, device)
    else:
        resize_out(out, shape, strides)  # a resized out= takes the inputs' memory format too
        check_outputs_writable(out)  # cat_out's assert_no_internal_overlap
        for t in tensors:
            assert_no_overlap(out, t)
    if is_meta(out, *tensors) or not out.numel():
        return out
    parts = [t.as_numpy() for t in tensors if not _cat_skip(t)]
    o = out.as_numpy()
    if any(p.dtype.names for p in parts + [o]) and any(p.dtype != o.dtype for p in parts):
        # complex32 ((real, imag) float16 fields) with another dtype: numpy cannot cast it, go through complex64
        parts = [_copy.chalf_values(p) if p.dtype.names else p for p in parts]
        if o.dtype.names:
            _copy.store_chalf(o, np.concatenate(parts, axis=dim).astype(np.complex64))
            return out
    with np.errstate(invalid="ignore", over="ignore"):
        np.concatenate(parts, axis=dim, out=o, casting="unsafe")
    return out


def _stack_inputs(tensors, dim):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    d = wrap_dim(dim, tensors[0].ndim + 1)
    first = tensors[0].sizes
    for i, t in enumerate(tensors[1:], 1):
        if t.sizes != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {fmt(first)} at entry 0 and "
                               f"{fmt(t.sizes)} at entry {i}")
    return [_views.unsqueeze(t, d) for t in tensors], d


def stack(tensors, dim):
    parts, d = _stack_inputs(tensors, dim)
    return cat_out(parts, d, None)


def stack_out(tensors, dim, out):
    parts, d = _stack_inputs(tensors, dim)
    return cat_out(parts, d, out)


# -- repeat ---------------------------------------------------------------------------------------------------
def _repeat_geometry(self, repeats):
    repeats = tuple(repeats)
    if len(repeats) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    padded = (1,) * (len(repeats) - self.ndim) + self.sizes
    return padded, tuple(p * r for p, r in zip(padded, repeats, strict=True)), repeats


def repeat_out(self, repeats, out):
    padded, target, repeats = _repeat_geometry(self, repeats)
    for s in target:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {fmt(target)}")
    out = prepare_out(out, target, self.dtype, self.device)
    if is_meta(self, out) or not out.numel():
        return out
    return write(out, np.tile(self.as_numpy().reshape(padded), repeats))


def repeat(self, repeats):
    return repeat_out(self, repeats, None)


def _repeats_values(repeats: TensorImpl, output_size):
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype not in (_dt.int64, _dt.int32):
        raise not_implemented("repeat_interleave_cpu", repeats.dtype)
    if is_meta(repeats):
        raise NotImplementedError("aten::repeat_interleave.Tensor: data-dependent output size on meta tensors")
    reps = repeats.as_numpy().astype(np.int64)
    if (reps < 0).any():
        raise RuntimeError("repeats can not be negative")
    total = int(reps.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")
    return np.repeat(np.arange(len(reps), dtype=np.int64), reps)


def repeat_interleave_cpu(repeats, output_size):
    """``repeat_interleave(repeats)``: index ``i`` repeated ``repeats[i]`` times, in the dtype of ``repeats``."""
    vals = _repeats_values(repeats, output_size)
    out = empty_impl((len(vals),), repeats.dtype, repeats.device)
    return write(out, vals)


# -- flip / roll ----------------------------------------------------------------------------------------------
def _flip_dims(self, dims):
    seen = []
    for d in dims:
        w = wrap_dim(d, self.ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.append(w)
    return tuple(seen) if self.ndim else ()


def flip_out(self, dims, out):
    axes = _flip_dims(self, dims)
    out = prepare_out(out, self.sizes, self.dtype, self.device, like=self)
    if is_meta(self, out):
        return out
    if (self.dtype is _dt.complex32 or _dt.is_barebones(self.dtype)) and axes and self.numel():
        raise not_implemented("flip_cpu", self.dtype)
    return write(out, np.flip(self.as_numpy(), axes) if axes else self.as_numpy())


def flip(self, dims):
    return flip_out(self, dims, None)


def _roll_array(self, shifts, dims):
    shifts, dims = tuple(shifts), tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        arr = self.as_numpy()
        return np.roll(arr.reshape(-1), shifts[0]).reshape(arr.shape) if arr.size else arr
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    _roll_check_0_dim(self, dims)
    axes = [wrap_dim(d, self.ndim) for d in dims]
    arr = self.as_numpy()
    if arr.size == 0:
        return arr
    return np.roll(arr, shifts, [a for a in axes]) if self.ndim else arr


def _roll_check_0_dim(self, dims):
    """PyTorch's roll reads ``self.size(dims[0])`` unwrapped: a 0-dim tensor has no dim to roll, even -1 or 0."""
    if dims and self.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")


def roll_out(self, shifts, dims, out):
    if is_meta(self):
        shifts, dims = tuple(shifts), tuple(dims)
        if not shifts:
            raise RuntimeError("`shifts` required")
        if (dims or len(shifts) != 1) and len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        for d in dims:
            wrap_dim(d, self.ndim)
        return prepare_out(out, self.sizes, self.dtype, self.device)
    arr = _roll_array(self, shifts, dims)
    out = prepare_out(out, self.sizes, self.dtype, self.device)
    return write(out, arr)


def roll(self, shifts, dims):
    return roll_out(self, shifts, dims, None)


# -- triangles ------------------------------------------------------------------------------------------------
def _triangle(name, np_fn):
    def kernel(self, diagonal, out):
        if self.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        out = prepare_out(out, self.sizes, self.dtype, self.device)
        if is_meta(self, out) or not out.numel():
            return out
        if _dt.is_barebones(self.dtype):
            raise not_implemented(name, self.dtype)
        return write(out, np_fn(self.as_numpy(), diagonal))
    kernel.__qualname__ = kernel.__name__ = f"{name}_out"
    return kernel


tril_out = _triangle("tril", np.tril)
triu_out = _triangle("triu", np.triu)


# -- diagonals ------------------------------------------------------------------------------------------------
def diag_out(self, diagonal, out):
    """``diag``: a 1-D input becomes a square matrix, a 2-D input gives its ``diagonal``-th diagonal."""
    if self.ndim == 1:
        n = self.sizes[0] + abs(diagonal)
        out = prepare_out(out, (n, n), self.dtype, self.device)
        if is_meta(self, out):
            return out
        _copy.fill_(out, 0)
        if self.sizes[0]:
            _copy.copy_(_views.diagonal(out, diagonal, 0, 1), self)
        return out
    if self.ndim == 2:
        view = _views.diagonal(self, diagonal, 0, 1)
        out = prepare_out(out, view.sizes, self.dtype, self.device)
        if is_meta(self, out):
            return out
        return _copy.copy_(out, view)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.ndim}D")


def diag_embed_out(self, offset, dim1, dim2, out):
    n = self.ndim + 1
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = (self.sizes[-1] if self.ndim else 1) + abs(offset)
    rest = list(self.sizes[:-1])
    shape = []
    for d in range(n):
        shape.append(size if d in (d1, d2) else rest.pop(0))
    out = prepare_out(out, shape, self.dtype, self.device)
    if is_meta(self, out):
        return out
    _copy.fill_(out, 0)
    diag = _views.diagonal(out, offset, d1, d2)
    if diag.numel():
        _copy.copy_(diag, self)
    return out


def diag_embed(self, offset, dim1, dim2):
    return diag_embed_out(self, offset, dim1, dim2, None)


# -- narrow_copy ----------------------------------------------------------------------------------------------
def narrow_copy_out(self, dim, start, length, out):
    if self.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim < 0:
        dim = wrap_dim(dim, self.ndim)
    elif dim >= self.ndim:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an enhancement request to "
                           "PyTorch.)")
    size = self.sizes[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    view = _views.slice_(self, dim, start, start + length)
    out = prepare_out(out, view.sizes, self.dtype, self.device)
    if is_meta(self, out):
        return out
    return _copy.copy_(out, view)


def narrow_copy(self, dim, start, length):
    return narrow_copy_out(self, dim, start, length, None)


# -- constant padding -----------------------------------------------------------------------------------------
def _constant_pad_plan(self, pad):
    pad = tuple(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    n, l_pad = self.ndim, len(pad) // 2
    if n < l_pad:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)}while the input has {n}dimensions.")
    src = self
    all_non_positive = True
    for i in range(n - l_pad, n):
        k = 2 * (n - i - 1)
        if pad[k] < 0:
            src = _views.narrow(src, i, -pad[k], src.sizes[i] + pad[k])
        elif pad[k]:
            all_non_positive = False
        if pad[k + 1] < 0:
            src = _views.narrow(src, i, 0, src.sizes[i] + pad[k + 1])
        elif pad[k + 1]:
            all_non_positive = False
    if all_non_positive:
        return src, None, None
    shape = list(self.sizes[:n - l_pad])
    for i in range(l_pad):
        k = len(pad) - (i + 1) * 2
        size = self.sizes[n - l_pad + i]
        new = size + pad[k] + pad[k + 1]
        if new < 0:
            raise RuntimeError(f"The input size {size}, plus negative padding {pad[k]} and {pad[k + 1]} resulted in "
                               f"a negative output size, which is invalid. Check dimension {n - l_pad + i} of your "
                               f"input.")
        shape.append(new)
    return src, tuple(shape), pad


def constant_pad_nd_out(self, pad, value, out):
    src, shape, pad = _constant_pad_plan(self, pad)
    if shape is None:  # only cropping: a copy of the narrowed view
        out = prepare_out(out, src.sizes, self.dtype, self.device, like=src)
        return out if is_meta(self, out) else _copy.copy_(out, src)
    if out is None:
        strides = _shape.channels_last_strides(shape) if self.ndim == 4 and not self.is_contiguous() and \
            _shape.is_channels_last_strides_2d(self.sizes, self.strides) else _shape.contiguous_strides(shape)
        out = empty_strided_impl(shape, strides, self.dtype, self.device)
    else:
        resize_out(out, shape)
    _fac.check_fits(value, self.dtype)
    if is_meta(self, out):
        return out
    _copy.fill_(out, value)
    dst = out
    n = self.ndim
    for i in range(n - len(pad) // 2, n):
        k = 2 * (n - i - 1)
        if pad[k] > 0:
            dst = _views.narrow(dst, i, pad[k], dst.sizes[i] - pad[k])
        if pad[k + 1] > 0:
            dst = _views.narrow(dst, i, 0, dst.sizes[i] - pad[k + 1])
    _copy.copy_(dst, src)
    return out


def constant_pad_nd(self, pad, value):
    return constant_pad_nd_out(self, pad, value, None)


# -- reflection / replication padding ---------------------------------------------------------------------------
def _check_pad_input(self, padding, nd, name, strict_len_msg):
    padding = tuple(padding)
    if len(padding) != 2 * nd:
        raise RuntimeError(f"padding size is expected to be {2 * nd}, but got: {len(padding)}" if strict_len_msg
                           else f"padding size is expected to be {2 * nd}")
    batch = self.ndim == nd + 2
    ok = batch and all(self.sizes[d] for d in range(1, self.ndim)) or \
        (self.ndim == nd + 1 and all(self.sizes))
    if not ok:
        raise RuntimeError(f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {fmt(self.sizes)}")
    return padding


def _pad_index(size, before, after, mode):
    idx = np.arange(-before, size + after)
    if mode == "reflect":
        idx = np.abs(idx)
        idx = np.where(idx >= size, 2 * (size - 1) - idx, idx)
    else:
        idx = np.clip(idx, 0, size - 1)
    return idx


def _pad_apply(self, pads_by_dim, mode, out):
    """Gather along each padded dim (``pads_by_dim``: {dim: (before, after)}) into ``out``."""
    if is_meta(self, out) or not out.numel():
        return out
    arr = self.as_numpy()
    for d, (before, after) in pads_by_dim.items():
        arr = np.take(arr, _pad_index(self.sizes[d], before, after, mode), axis=d)
    return write(out, arr)


def _check_3d_output(self, shape):
    if shape[-1] < 1 and shape[-2] < 1 and shape[-3] < 1:
        raise RuntimeError(f"input (D: {self.sizes[-3]} H: {self.sizes[-2]}, W: {self.sizes[-1]}) is too small. "
                           f"Calculated output D: {shape[-3]} H: {shape[-2]} W: {shape[-1]}")


def _reflection_pad(nd):
    name = f"reflection_pad{nd}d"

    def kernel(self, padding, out):
        padding = _check_pad_input(self, padding, nd, name, True)
        if self.dtype is _dt.bool:
            raise not_implemented(name, self.dtype)
        pads = {}
        shape = list(self.sizes)
        arg_no = 4
        for j in range(nd):  # padding pairs go from the last dim backwards
            d = self.ndim - 1 - j
            before, after = padding[2 * j], padding[2 * j + 1]
            size = self.sizes[d]
            if not (before < size and after < size):
                raise RuntimeError(f"Argument #{arg_no}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({before}, {after}) at dimension {d} of input "
                                   f"{fmt(self.sizes)}")
            arg_no += 2
            pads[d] = (before, after)
            shape[d] = size + before + after
        ow = shape[-1]
        if nd == 1 and ow < 1:
            raise RuntimeError(f"input (W: {self.sizes[-1]}) is too small. Calculated output W: {ow}")
        if nd == 2 and not (ow >= 1 or shape[-2] >= 1):
            raise RuntimeError(f"input (H: {self.sizes[-2]}, W: {self.sizes[-1]}) is too small. Calculated output H: "
                               f"{shape[-2]} W: {ow}")
        if nd == 3:
            _check_3d_output(self, shape)
        out = prepare_out(out, shape, self.dtype, self.device)
        return _pad_apply(self, pads, "reflect", out)
    kernel.__qualname__ = kernel.__name__ = f"{name}_out"
    return kernel


def _replication_pad(nd):
    name = f"replication_pad{nd}d"

    def kernel(self, padding, out):
        padding = _check_pad_input(self, padding, nd, name, False)
        if self.dtype is _dt.bool:
            raise not_implemented(name, self.dtype)
        pads = {}
        shape = list(self.sizes)
        for j in range(nd):
            d = self.ndim - 1 - j
            before, after = padding[2 * j], padding[2 * j + 1]
            pads[d] = (before, after)
            shape[d] = self.sizes[d] + before + after
        if nd == 1 and shape[-1] < 1:
            raise RuntimeError(f"input (W: {self.sizes[-1]}) is too small. Calculated output W: {shape[-1]}")
        if nd == 2 and shape[-1] < 1 and shape[-2] < 1:
            raise RuntimeError(f"input (H: {self.sizes[-2]}, W: {self.sizes[-1]} ) is too small. Calculated output "
                               f"H: {shape[-2]} W: {shape[-1]}")
        if nd == 3:
            _check_3d_output(self, shape)
        out = prepare_out(out, shape, self.dtype, self.device)
        return _pad_apply(self, pads, "replicate", out)
    kernel.__qualname__ = kernel.__name__ = f"{name}_out"
    return kernel


reflection_pad1d_out = _reflection_pad(1)
reflection_pad2d_out = _reflection_pad(2)
reflection_pad3d_out = _reflection_pad(3)
replication_pad1d_out = _replication_pad(1)
replication_pad2d_out = _replication_pad(2)
replication_pad3d_out = _replication_pad(3)


# The gradient sizes each backward checks, last dim first, with PyTorch's wording per operator
_PAD_GRAD_WORDS = ("width", "height", "depth")
_PAD_GRAD_MSG = {"reflection_pad1d": "grad_output {} unexpected. Expected: {}, Got: {}",
                 "reflection_pad2d": "gradOutput {} unexpected. Expected: {}, Got: {}",
                 "reflection_pad3d": "grad_output {} unexpected. Expected: {}, Got: {}",
                 "replication_pad1d": "gradOutput {} unexpected. Expected: {} Got: {}",
                 "replication_pad2d": "gradOutput {} unexpected. Expected: {}, Got: {}",
                 "replication_pad3d": "gradOutput {} unexpected. Expected: {}, Got: {}"}


def _pad_backward(nd, mode):
    """``<mode>_pad<nd>d_backward``: each padded position's gradient is added back to the input position it read
    (the forward's index along each padded dim); ``grad_input`` is contiguous, shaped like ``self``."""
    name = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{nd}d"

    def kernel(grad_output, self, padding, out=None):
        padding = tuple(padding)
        dims = [(self.ndim - 1 - j, padding[2 * j], padding[2 * j + 1]) for j in range(nd)]
        for j, (d, before, after) in enumerate(dims):
            want = self.sizes[d] + before + after
            if grad_output.sizes[d] != want:
                raise RuntimeError(_PAD_GRAD_MSG[name].format(_PAD_GRAD_WORDS[j], want, grad_output.sizes[d]))
        dt = grad_output.dtype
        if not (dt.is_floating_point or dt.is_complex):
            raise not_implemented(f"{name}_backward", dt)
        if self.dtype is not dt:
            raise RuntimeError(f"expected scalar type {_dt.name_of(dt)} but found {_dt.name_of(self.dtype)}")
        out = prepare_out(out, self.sizes, dt, self.device)
        if is_meta(grad_output, self, out) or not out.numel():
            return out
        # one pass in the output's raster order, as PyTorch's loop adds (the same rounding in half precision)
        padded = grad_output.sizes[-nd:]
        flat = np.zeros(padded, np.int64)
        stride = 1
        for k, (d, before, after) in enumerate(dims):
            shape = [1] * nd
            shape[nd - 1 - k] = padded[nd - 1 - k]
            flat = flat + _pad_index(self.sizes[d], before, after, mode).reshape(shape) * stride
            stride *= self.sizes[d]
        if not flat.size:  # cropped to nothing: no position reads the input
            return write(out, np.zeros(self.sizes, dt.np))
        g = grad_output.as_numpy().reshape(-1, flat.size)
        acc = np.zeros((g.shape[0], stride), dt.np)
        np.add.at(acc, (np.arange(g.shape[0])[:, None], flat.reshape(1, -1)), g)
        return write(out, acc.reshape(self.sizes))
    kernel.__qualname__ = kernel.__name__ = f"{name}_backward_out"
    return kernel


reflection_pad1d_backward_out = _pad_backward(1, "reflect")
reflection_pad2d_backward_out = _pad_backward(2, "reflect")
reflection_pad3d_backward_out = _pad_backward(3, "reflect")
replication_pad1d_backward_out = _pad_backward(1, "replicate")
replication_pad2d_backward_out = _pad_backward(2, "replicate")
replication_pad3d_backward_out = _pad_backward(3, "replicate")


def circular_pad(self, pad) -> TensorImpl:
    """``_pad_circular``: wrap around each padded dim (negative pads crop)."""
    pad = tuple(pad)
    n_padded = len(pad) // 2
    n_keep = self.ndim - n_padded
    if n_keep not in (1, 2):
        raise RuntimeError(f"Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent "
                           f"to padding of length {(self.ndim - 1) * 2} or {(self.ndim - 2) * 2} respectively but got "
                           f"{len(pad)}")
    shape = list(self.sizes)
    index = {}
    for i in range(n_padded):
        before, after = pad[2 * (n_padded - i - 1)], pad[2 * (n_padded - i - 1) + 1]
        d = n_keep + i
        size = self.sizes[d]
        shape[d] = size + before + after
        if not (before <= size and after <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        index[d] = np.arange(-before, size + after) % max(size, 1)
    out = empty_impl(shape, self.dtype, self.device)
    if is_meta(self) or not out.numel():
        return out
    arr = self.as_numpy()
    for d, idx in index.items():
        arr = np.take(arr, idx, axis=d)
    return write(out, arr)
