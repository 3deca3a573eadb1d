"""Indexing kernels — PyTorch's ``TensorAdvancedIndexing.cpp``, ``Indexing.cpp``/``IndexingUtils.h``
(advanced indexing), ``ScatterGatherChecks.h`` and ``cpu/ScatterGatherKernel.cpp``, ``cpu/IndexKernel.cpp``.

Indices are validated with PyTorch's messages (dtype, dimensionality, bounds: negative indices wrap only
where PyTorch wraps them) and then the work is one numpy fancy-indexing call: ``take_along_axis`` for
gather, fancy assignment for scatter/index_copy/index_put (the last write wins for duplicates, as in
PyTorch's sequential CPU loops) and ``ufunc.at`` for accumulation (sequential, so duplicates
accumulate in the tensor's own dtype exactly as PyTorch's ``index_add``/``index_put_(accumulate=True)``
do; the scatter reductions of float16/bfloat16 accumulate in float32 like PyTorch's ``opmath``).

Invariant: a kernel writes only its output (``self`` for in-place forms); structured kernels get
``out is self`` for their in-place variant and copy ``self`` into a fresh output otherwise.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._core.shape import wrap_dim
from ...._core.user_warning import warn as _user_warn
from ...._tensor import views as _views
from ...._tensor.impl import TensorImpl, empty_impl, empty_strided_impl
from ... import factories as _fac
from ...aten import aten
from ...overlap import check_no_internal_overlap
from ...tensor_iterator import compute_output_strides, fp_ignore, fp_restore, resize_out, scalar_np
from . import copy as _copy
from . import scatter_rows as _scatter_rows
from .dispatch_types import BAREBONES_UNSIGNED, FLOAT8, not_implemented, refuse
from .shape import assert_no_overlap, fmt, is_meta, prepare_out, write

__all__ = [
    "masked_fill__Scalar", "masked_fill__Tensor", "masked_select", "masked_select_out", "masked_scatter_",
    "index_select", "index_select_out", "gather_out", "take", "take_out", "scatter_src_out", "scatter_value_out",
    "scatter_reduce_out", "scatter_value_reduce_out", "scatter_add_out", "scatter_reduce_two_out", "index_add_out",
    "index_copy_out", "index_fill__int_Scalar", "index_fill__int_Tensor", "index_Tensor_out", "index_put_impl_",
    "expand_indices", "advanced_index_result",
]

# The C++ element type names PyTorch prints for a TypeMeta (``mask.dtype()`` in messages).
_CPP_TYPE = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
             "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
             "float64": "double", "complex32": "c10::complex<c10::Half>", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>"}

_INT_INDEX = (_dt.int64, _dt.int32)
_META_NONZERO = ("The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
                 "data-independent implementation does not exist. This implementation returns a fake value, assuming "
                 "all elements of the tensor are non-zero. To enable this registration, please set "
                 "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")


def _name(d) -> str:
    return _dt.name_of(d)


def _idx(t: TensorImpl) -> np.ndarray:
    """An index tensor's values as int64 numpy (0-dim stays 0-dim).

    On ``meta`` there are no values: the result is a stand-in with the tensor's shape and strides (read
    for geometry only, never for values).
    """
    if t.storage._data is None:
        return np.lib.stride_tricks.as_strided(np.zeros(1, np.int64), t.sizes, tuple(8 * s for s in t.strides))
    return np.asarray(t.as_numpy(), dtype=np.int64)


def _fill_value(value, dtype):
    _fac.check_fits(value, dtype)
    return scalar_np(value, dtype)


def _element(a: np.ndarray, dtype):
    """The first element of a tensor's array as a Python scalar (PyTorch's ``item()``): bfloat16 through float,
    complex32's (real, imag) float16 fields as a complex."""
    v = a.flat[0]
    if dtype is _dt.complex32:
        return complex(float(v["real"]), float(v["imag"]))
    return float(v) if dtype is _dt.bfloat16 else v.item()


def _half_opmath(dtype):
    """PyTorch's ``opmath_type``: float16/bfloat16 accumulate in float32."""
    return np.float32 if dtype in (_dt.float16, _dt.bfloat16) else dtype.np


# -- masks --------------------------------------------------------------------------------------------------------
def _check_fill_mask(self, mask):
    if mask.dtype is not _dt.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_CPP_TYPE.get(mask.dtype._name, mask.dtype._name)}")
    shape = _shape.broadcast_shapes(self.sizes, mask.sizes)
    if shape != self.sizes:
        raise RuntimeError(f"output with shape {fmt(self.sizes)} doesn't match the broadcast shape {fmt(shape)}")


def masked_fill__Scalar(self, mask, value):
    _check_fill_mask(self, mask)
    v = _fill_value(value, self.dtype)
    if not is_meta(self, mask) and self.numel():
        refuse("masked_fill", self.dtype)
        np.copyto(self.as_numpy(), v, where=mask.as_numpy())
    return self


def masked_fill__Tensor(self, mask, value):
    if value.ndim != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    return masked_fill__Scalar(self, mask, _element(value.as_numpy(), value.dtype))


def _masked_select_np(self, mask):
    if mask.dtype is not _dt.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _shape.broadcast_shapes(mask.sizes, self.sizes)
    refuse("masked_select", self.dtype, BAREBONES_UNSIGNED)
    s = np.broadcast_to(self.as_numpy(), shape)
    m = np.broadcast_to(mask.as_numpy(), shape)
    return s[m]


def masked_select(self, mask):
    vals = _masked_select_np(self, mask)
    return write(empty_impl((len(vals),), self.dtype, self.device), vals)


def masked_select_out(self, mask, out):
    if mask.dtype is _dt.bool and self.dtype is not out.dtype:
        raise RuntimeError("masked_select(): self and result must have the same scalar type")
    check_no_internal_overlap(out)
    assert_no_overlap(out, self)
    assert_no_overlap(out, mask)
    vals = _masked_select_np(self, mask)
    resize_out(out, (len(vals),))
    return write(out, vals)


def _expand_mask_inplace(self, mask):
    if mask.ndim > self.ndim:
        raise RuntimeError(f"expand(CPU{mask.dtype._short}Type{{{fmt(mask.sizes)}}}, size={fmt(self.sizes)}): the "
                           f"number of sizes provided ({self.ndim}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({mask.ndim})")
    _shape.expand_strides(mask.sizes, mask.strides, self.sizes)


def masked_scatter_(self, mask, source):
    check_no_internal_overlap(self)
    if _dt.is_barebones(self.dtype) and self.storage._data is not None:
        raise not_implemented("masked_scatter", self.dtype)
    if self.dtype is not source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_name(self.dtype)} and {_name(source.dtype)}")
    if mask.dtype is not _dt.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_name(mask.dtype)}")
    _expand_mask_inplace(self, mask)
    if is_meta(self, mask, source):
        return self
    if self.dtype is _dt.complex32:
        raise not_implemented("masked_scatter", self.dtype)
    m = np.broadcast_to(mask.as_numpy(), self.sizes)
    n = int(m.sum())
    src = source.as_numpy().reshape(-1)
    if n > src.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if n:
        arr = self.as_numpy()
        arr[m] = src[:n]
    return self


# -- gathers --------------------------------------------------------------------------------------------------------
def _index_select_check(self, dim, index):
    dim = wrap_dim(dim, self.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if self.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    if index.dtype not in _INT_INDEX:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    shape = list(self.sizes)
    if self.ndim:
        shape[dim] = index.numel()
    return dim, tuple(shape)


def _index_select_fill(self, dim, index, out):
    if is_meta(self, index, out):
        return out
    refuse("index_select", self.dtype, BAREBONES_UNSIGNED)
    idx = _idx(index).reshape(-1)
    size = self.sizes[dim] if self.ndim else 1
    if self.ndim > 1 and idx.size and size == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        # PyTorch's contiguous "dim1" path, and its check of an empty self, have their own message
        if self.ndim > 1 and (dim == 1 or not self.numel()):
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(idx[bad][0])} axis_dim={size}")
        raise IndexError("index out of range in self")
    if not out.numel():
        return out
    arr = self.as_numpy()
    res = np.take(arr.reshape(1) if self.ndim == 0 else arr, idx, axis=dim)
    return write(out, res.reshape(out.sizes))


def index_select(self, dim, index):
    dim, shape = _index_select_check(self, dim, index)
    return _index_select_fill(self, dim, index, empty_impl(shape, self.dtype, self.device))


def index_select_out(self, dim, index, out):
    dim, shape = _index_select_check(self, dim, index)
    if self.dtype is not out.dtype:
        raise RuntimeError("index_select(): self and result must have the same scalar type")
    check_no_internal_overlap(out)  # before the resize, as index_select_out_cpu_
    assert_no_overlap(out, self)
    assert_no_overlap(out, index)
    resize_out(out, shape)
    return _index_select_fill(self, dim, index, out)


def _nonempty_dim(t):
    return t.ndim or 1


def _nonempty_size(t, d):
    return 1 if t.ndim == 0 else t.sizes[wrap_dim(d, t.ndim)]


def _scatter_gather_dtype_check(name, self, index, src=None):
    if index.numel() != 0 and index.dtype not in _INT_INDEX:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if src is not None and self.dtype is not src.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")


def _check_bounds(idx, size, dim, exc=RuntimeError, prefix=""):
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        v = int(idx[bad].flat[0])
        raise exc(f"{prefix}index {v} is out of bounds for dimension {dim} with size {size}")


def _along_coords(index_np, dim):
    """Full coordinates for ``out[coords] <- src[index positions]`` with ``index`` along ``dim``."""
    coords = list(np.indices(index_np.shape, sparse=True))
    coords[dim] = index_np
    return tuple(coords)


def _sub(arr, shape):
    """The leading ``shape`` block of ``arr`` (scatter/gather read only the index's extent)."""
    return arr[tuple(slice(0, s) for s in shape)]


def gather_out(self, dim, index, sparse_grad, out):
    dim = wrap_dim(dim, self.ndim)
    if out is not None:
        if out.dtype is not self.dtype:  # the structured kernel's set_output, before any other check
            raise RuntimeError(f"Expected out tensor to have dtype {_CPP_TYPE.get(self.dtype._name)}, but got "
                               f"{_CPP_TYPE.get(out.dtype._name)} instead")
        check_no_internal_overlap(out)
        assert_no_overlap(out, self)
    out = prepare_out(out, index.sizes, self.dtype, self.device)
    if not index.numel():  # PyTorch's gather meta: an empty index is checked for nothing more
        return out
    _scatter_gather_dtype_check("gather", self, index)
    if _nonempty_dim(self) != _nonempty_dim(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(_nonempty_dim(self)):
        if d != dim and _nonempty_size(index, d) > _nonempty_size(self, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {fmt(index.sizes)} to be no "
                               f"larger than self {fmt(self.sizes)} apart from dimension {dim}")
    if is_meta(self, index, out) or not out.numel():
        return out
    if self.dtype is _dt.complex32:  # PyTorch's scatter/gather kernels have no ComplexHalf loop
        raise not_implemented("scatter_gather_tensor_cpu", self.dtype)
    # float8 takes the expanded-index path first (a floating self), whose dispatch lists no float8 either
    refuse("gather_expanded_index", self.dtype, FLOAT8)
    refuse("scatter_gather_tensor_cpu", self.dtype)
    idx = _idx(index).reshape(index.sizes or (1,))
    arr = self.as_numpy().reshape(self.sizes or (1,))
    _check_bounds(idx, arr.shape[dim], dim)
    sub = [slice(0, s) if d != dim else slice(None) for d, s in enumerate(idx.shape)]
    res = np.take_along_axis(arr[tuple(sub)], idx, axis=dim)
    return write(out, res.reshape(out.sizes))


def _take_check(self, index):
    if index.dtype is not _dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_name(index.dtype)}")


def _take_fill(self, index, out):
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("take(): tried to take from an empty tensor")
    if is_meta(self, index, out) or not out.numel():
        return out
    idx = _idx(index)
    n = self.numel()
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(idx[bad].flat[0])} on a tensor of {n} elements.")
    flat = self.as_numpy().reshape(-1)
    return write(out, flat[np.where(idx < 0, idx + n, idx)])


def take(self, index):
    _take_check(self, index)
    if _dt.is_barebones(self.dtype) and self.storage._data is not None:
        raise not_implemented("take_cpu", self.dtype)
    return _take_fill(self, index, empty_impl(index.sizes, self.dtype, self.device))


def take_out(self, index, out):
    _take_check(self, index)
    if self.dtype is not out.dtype:
        raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{_name(self.dtype)} and out.dtype = {_name(out.dtype)}")
    check_no_internal_overlap(out)
    assert_no_overlap(out, index)
    assert_no_overlap(out, self)
    resize_out(out, index.sizes)
    return _take_fill(self, index, out)


# -- scatters -------------------------------------------------------------------------------------------------------
_OLD_REDUCE = {"add": "sum", "multiply": "prod"}
_NEW_REDUCE = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin", "max": "amax",
               "min": "amin"}


def _fresh_copy(self: TensorImpl) -> TensorImpl:
    """A new tensor holding ``self``'s values (the functional variants' output): same dtype and shape, so a plain
    numpy copy, without ``copy_``'s checks (a fresh tensor overlaps nothing) and cast handling."""
    out = empty_impl(self.sizes, self.dtype, self.device)
    if not is_meta(self):
        np.copyto(out.as_numpy(), self.as_numpy())
    return out


def _scatter_prepare(self, dim, index, src, out, reduce=None, new_options=False):
    """PyTorch's ``scatter_meta_impl``: checks, then the output holding a copy of ``self``."""
    dim = wrap_dim(dim, self.ndim)
    src_t = src if type(src) is TensorImpl else None
    _scatter_gather_dtype_check("scatter", self, index, src_t)
    if index.numel():
        if _nonempty_dim(self) != _nonempty_dim(index):
            raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
        wrong = any(d != dim and _nonempty_size(index, d) > _nonempty_size(self, d)
                    for d in range(_nonempty_dim(self)))
        if not wrong and src_t is not None:
            wrong = any(_nonempty_size(index, d) > _nonempty_size(src_t, d) for d in range(_nonempty_dim(self)))
        if src_t is not None and _nonempty_dim(src_t) != _nonempty_dim(index):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        if wrong:
            msg = (f"Expected index {fmt(index.sizes)} to be no larger than self {fmt(self.sizes)} apart from "
                   f"dimension {dim}")
            raise RuntimeError(msg + (f" and to be no larger size than src {fmt(src_t.sizes)}" if src_t is not None
                                      else ""))
    if out is not None:
        check_no_internal_overlap(out)
        assert_no_overlap(out, index)
        if src_t is not None:
            assert_no_overlap(out, src_t)
    op = None
    if reduce is not None:
        table = _NEW_REDUCE if new_options else _OLD_REDUCE
        op = table.get(reduce)
        if op is None:
            raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got " + reduce
                               if new_options else "reduce argument must be either add or multiply.")
    if out is None:
        out = _fresh_copy(self)
    elif out is not self:
        resize_out(out, self.sizes)
        if not is_meta(self, out):
            _copy.copy_(out, self)
    return dim, out, op


def _scatter_values(index, src, dtype):
    """(coords, values) for a scatter: ``values`` has the index's shape."""
    idx = _idx(index).reshape(index.sizes or (1,))
    if type(src) is TensorImpl:
        vals = _sub(src.as_numpy().reshape(src.sizes or (1,)), idx.shape)
    else:
        vals = np.broadcast_to(_fill_value(src, dtype), idx.shape)
    return idx, vals


def _scatter_apply(out, dim, index, src, op, include_self=True):
    if is_meta(out, index) or index.numel() == 0:
        return out
    if out.dtype is _dt.complex32 or _dt.is_barebones(out.dtype):
        raise not_implemented("scatter_gather_tensor_cpu" if type(src) is TensorImpl else "scatter_gather_scalar_cpu",
                              out.dtype)
    idx, vals = _scatter_values(index, src, out.dtype)
    arr = out.as_numpy().reshape(out.sizes or (1,))
    _check_bounds(idx, arr.shape[dim], dim)
    coords = _along_coords(idx, dim)
    if op is None:
        arr[coords] = vals
        return out
    work_dt = _half_opmath(out.dtype)
    if op == "sum" and include_self and arr.dtype == work_dt and vals.dtype == work_dt:
        token = fp_ignore()  # the sum in place: the same adds in the same order as on a working copy
        try:
            np.add.at(arr, coords, vals)
        finally:
            fp_restore(token)
        return out
    work = arr.astype(work_dt)
    v = np.asarray(vals).astype(work_dt)
    if not include_self:
        ident = {"sum": 0, "mean": 0, "prod": 1}.get(op)
        if ident is None:
            info = np.finfo(work_dt) if np.issubdtype(work_dt, np.floating) else \
                (np.iinfo(work_dt) if work_dt != np.bool_ else None)
            if info is None:
                ident = op == "amin"
            elif np.issubdtype(work_dt, np.floating):
                ident = -np.inf if op == "amax" else np.inf
            else:
                ident = info.min if op == "amax" else info.max
        work[coords] = ident
    if op in ("sum", "mean"):
        np.add.at(work, coords, v)
    elif op == "prod":
        np.multiply.at(work, coords, v)
    elif op == "amax":
        np.maximum.at(work, coords, v)
    else:
        np.minimum.at(work, coords, v)
    if op == "mean":
        count = np.ones(work.shape, np.int64) if include_self else np.zeros(work.shape, np.int64)
        np.add.at(count, coords, 1)
        count = np.maximum(count, 1)
        if np.issubdtype(work_dt, np.integer):
            work = np.floor_divide(work, count.astype(work_dt))
        else:
            work = (work / count).astype(work_dt)
    with np.errstate(invalid="ignore", over="ignore"):
        np.copyto(arr, work, casting="unsafe")
    return out


def scatter_src_out(self, dim, index, src, out):
    dim, out, _ = _scatter_prepare(self, dim, index, src, out)
    return _scatter_apply(out, dim, index, src, None)


def scatter_value_out(self, dim, index, value, out):
    dim, out, _ = _scatter_prepare(self, dim, index, value, out)
    return _scatter_apply(out, dim, index, value, None)


def scatter_reduce_out(self, dim, index, src, reduce, out):
    dim, out, op = _scatter_prepare(self, dim, index, src, out, reduce)
    return _scatter_apply(out, dim, index, src, op)


def scatter_value_reduce_out(self, dim, index, value, reduce, out):
    dim, out, op = _scatter_prepare(self, dim, index, value, out, reduce)
    return _scatter_apply(out, dim, index, value, op)


def scatter_add_out(self, dim, index, src, out):
    dim, out, _ = _scatter_prepare(self, dim, index, src, out)
    return _scatter_apply(out, dim, index, src, "sum")


def scatter_reduce_two_out(self, dim, index, src, reduce, include_self, out):
    dim, out, op = _scatter_prepare(self, dim, index, src, out, reduce, new_options=True)
    return _scatter_apply(out, dim, index, src, op, include_self)


# -- index_add / index_copy / index_fill ---------------------------------------------------------------------------
def _self_output(self, out):
    """Structured in-place/out handling: ``out`` is ``self`` (in place), a given tensor, or None."""
    if out is None:
        return _fresh_copy(self)
    if out is not self:
        resize_out(out, self.sizes)
        if not is_meta(self, out):
            _copy.copy_(out, self)
    return out


def _dim_slices(arr, dim):
    return np.moveaxis(arr.reshape(arr.shape or (1,)), dim, 0)


def _index_func_checks(func, self, dim, index, source, out):
    """PyTorch's ``index_func_meta_impl`` (index_add, index_reduce): the index, dtypes and shapes agree, and a given
    result (in place: self) overlaps nothing it reads.  Returns the wrapped dim."""
    dim = wrap_dim(dim, self.ndim)
    numel = index.numel()
    if index.ndim > 1:
        raise IndexError(f"{func}_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{_name(index.dtype)} and size: {fmt(index.sizes)}")
    if index.dtype not in _INT_INDEX:
        raise RuntimeError(f"{func}_(): Expected dtype int32/int64 for index but got: {_name(index.dtype)}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"{func}_(): self ({_name(self.dtype)}) and source ({_name(source.dtype)}) must have "
                           f"the same scalar type")
    if dim != 0 and dim >= source.ndim:
        raise RuntimeError(f"{func}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                           f"{source.ndim}")
    if source.ndim == 0:
        if numel != 1:  # PyTorch's message reads source.size(dim), which raises for a 0-dim source
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    elif numel != source.sizes[dim]:
        raise RuntimeError(f"{func}_(): Number of indices ({numel}) should be equal to source.size(dim): "
                           f"({source.sizes[dim]}), for dim: {dim}")
    ss, sr = list(self.sizes), list(source.sizes)
    if source.ndim and self.ndim:
        del ss[dim]
        del sr[dim]
    if ss != sr:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {fmt(self.sizes)} source.shape = {fmt(source.sizes)}")
    if out is not None:  # in place too (out is self): index_func_meta_impl checks the result either way
        check_no_internal_overlap(out)
        assert_no_overlap(out, index)
        assert_no_overlap(out, source)
    return dim


def index_add_out(self, dim, index, source, alpha, out):
    dim = _index_func_checks("index_add", self, dim, index, source, out)
    numel = index.numel()
    out = _self_output(self, out)
    if _dt.is_barebones(self.dtype) and not is_meta(out, index, source):
        raise not_implemented("index_add_", self.dtype)
    if is_meta(out, index, source) or numel == 0 or (self.ndim > 1 and not self.numel()):
        return out  # PyTorch's slice loop: nothing to add, no index read
    idx = _idx(index).reshape(-1)
    size = self.sizes[dim] if self.ndim else 1
    if self.ndim > 1:
        _check_bounds(idx, size, dim)
    elif ((idx < 0) | (idx >= size)).any():  # the 0-/1-dim element loop's check: no negative indices either
        raise IndexError("index out of range in self")
    if out.dtype is _dt.complex32:  # complex<Half> arithmetic through complex64 (numpy has no complex-half)
        wide = _copy.chalf_values(out.as_numpy())
        np.add.at(_dim_slices(wide, dim), idx, _dim_slices(_copy.chalf_values(source.as_numpy()) * np.complex64(alpha),
                                                            dim if source.ndim else 0))
        _copy.store_chalf(out.as_numpy(), wide)
        return out
    arr = _dim_slices(out.as_numpy(), dim)
    src = _dim_slices(source.as_numpy(), dim if source.ndim else 0)
    a = scalar_np(alpha, out.dtype)
    if alpha != 1:
        src = np.multiply(src, a, dtype=out.dtype.np, casting="unsafe")
    src = src.astype(out.dtype.np, copy=False)
    if arr.ndim != src.ndim or not _scatter_rows.index_add_rows(arr, idx, src):
        with np.errstate(invalid="ignore", over="ignore"):
            np.add.at(arr, idx, src)
    return out


def _slice_sizes_text(sizes):
    return " ".join(str(s) for s in sizes)


def index_copy_out(self, dim, index, source, out):
    dim = wrap_dim(dim, self.ndim)
    if _dt.is_barebones(self.dtype) and self.storage._data is not None:
        raise not_implemented("index_copy_cpu", self.dtype)
    if out is not None:  # the meta function checks a given result (in place: self) before anything else
        check_no_internal_overlap(out)
        assert_no_overlap(out, index)
        assert_no_overlap(out, source)
    n = index.numel()
    if index.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if source.ndim == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.ndim != self.ndim and source.ndim != 0 and self.ndim != 0:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({self.ndim})")
    if index.dtype is not _dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_name(index.dtype)}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_name(self.dtype)} and (source) {_name(source.dtype)}")
    ss = [s for d, s in enumerate(self.sizes) if d != dim]
    sr = [s for d, s in enumerate(source.sizes) if d != dim]
    if ss != sr:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {_slice_sizes_text(ss)} at dimension {dim} and source slice shape: "
                           f"{_slice_sizes_text(sr)} at dimension 0.")
    if source.ndim and n != source.sizes[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source.sizes[dim]})")
    out = _self_output(self, out)
    if is_meta(out, index, source) or n == 0 or _restrided_is_empty(out, dim, n):
        return out
    idx = _idx(index).reshape(-1)
    size = self.sizes[dim] if self.ndim else 1
    _check_bounds(idx, size, dim, IndexError, "index_copy_(): ")
    arr = _dim_slices(out.as_numpy(), dim)
    src = _dim_slices(source.as_numpy(), dim if source.ndim else 0)
    arr[idx] = src
    return out


def _restrided_is_empty(self: TensorImpl, dim: int, n: int) -> bool:
    """PyTorch's index_fill_/index_copy_ iterate over ``self`` restrided to ``n`` along ``dim`` with stride 0: that
    view must fit the storage (as_strided's setStorage error, even for an empty self), and when it has no elements
    no index is read (so none is checked)."""
    sizes, strides = list(self.sizes or (1,)), list(self.strides or (1,))
    sizes[dim], strides[dim] = n, 0
    return _views.as_strided(self, sizes, strides).numel() == 0


def index_fill__int_Scalar(self, dim, index, value):
    if index.dtype is not _dt.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if _dt.is_barebones(self.dtype) and self.storage._data is not None:
        raise not_implemented("index_fill_cpu", self.dtype)
    assert_no_overlap(self, index)
    if isinstance(value, complex) and not self.dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    dim = wrap_dim(dim, self.ndim or 1)
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    v = _fill_value(value, self.dtype)
    if is_meta(self, index) or not index.numel() or _restrided_is_empty(self, dim, index.numel()):
        return self
    idx = _idx(index).reshape(-1)
    size = self.sizes[dim] if self.ndim else 1
    bad = (idx < -size) | (idx >= size)
    if bad.any():
        raise IndexError(f"index {int(idx[bad][0])} is out of bounds for dimension {dim} with size {size}")
    arr = _dim_slices(self.as_numpy(), dim)
    arr[np.where(idx < 0, idx + size, idx)] = v
    return self


def index_fill__int_Tensor(self, dim, index, value):
    if value.ndim != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    if is_meta(value):  # no value to read: the checks and the (unchanged) geometry only
        return index_fill__int_Scalar(self, dim, index, 0)
    return index_fill__int_Scalar(self, dim, index, _element(value.as_numpy(), value.dtype))


# -- advanced indexing ----------------------------------------------------------------------------------------------
def _invalid_mask(self, src_idx, mask, j):
    raise IndexError(f"The shape of the mask {fmt(mask.sizes)} at index {j} does not match the shape of the indexed "
                     f"tensor {fmt(self.sizes)} at index {src_idx}")


def expand_indices(self, indices):
    """PyTorch's ``checkIndexTensorTypes`` + ``expandTensors`` + broadcasting (``make_info``).

    Returns (indices, shape, geometry): one entry per dim of ``self`` (``None`` for an unindexed dim) of
    int64 numpy arrays broadcast to ``shape``, and for each the (sizes, strides) PyTorch's broadcast index
    tensor has (a mask's ``nonzero().select(1, j)`` column has stride ``mask.dim()``), which decide the
    layout of ``index``'s output.
    """
    for t in indices:
        if t is not None and t.dtype not in (_dt.int64, _dt.int32, _dt.uint8, _dt.bool):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    out, geoms = [], []
    for t in indices:
        if t is None:
            out.append(None)
            geoms.append(None)
            continue
        if t.dtype in (_dt.uint8, _dt.bool):
            if t.dtype is _dt.uint8:
                _user_warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                           "instead.")
            for j in range(t.ndim):
                src = len(out) + j
                if src >= self.ndim:
                    wrap_dim(src, self.ndim)
                if t.sizes[j] != self.sizes[src]:
                    _invalid_mask(self, src, t, j)
            nz = np.nonzero(t.as_numpy()) if t.ndim else ()  # a 0-dim mask indexes no dim (nonzero is [n, 0])
            for a in nz:
                out.append(a.astype(np.int64))
                geoms.append((a.shape, (t.ndim,)))
        else:
            out.append(_idx(t))
            geoms.append((t.sizes, t.strides))
    shapes = [g[0] for g in geoms if g is not None]
    try:
        shape = _shape.broadcast_shapes(*shapes) if shapes else ()
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(fmt(s) for s in shapes)) from None
    out = [None if a is None else np.broadcast_to(a, shape) for a in out]
    geoms = [None if g is None else _shape.expand_strides(g[0], g[1], shape) for g in geoms]
    while len(out) < self.ndim:
        out.append(None)
        geoms.append(None)
    return out, shape, geoms


def advanced_index_result(self, idx, shape):
    """Result geometry of ``index``: (result shape, dims_before, indexed dims, transposed?)."""
    pos = [d for d, a in enumerate(idx) if a is not None]
    contiguous = pos == list(range(pos[0], pos[-1] + 1)) if pos else True
    order = list(range(self.ndim)) if contiguous else pos + [d for d in range(self.ndim) if d not in pos]
    sizes = [self.sizes[d] for d in order]
    strides = [self.strides[d] for d in order]
    ind = [idx[d] for d in order]
    before = 0
    while before < len(ind) and ind[before] is None:
        before += 1
    n_idx = len(pos)
    res_shape = tuple(sizes[:before]) + tuple(shape) + tuple(sizes[before + n_idx:])
    indexed = [sizes[before + k] for k in range(n_idx)]
    if 0 in indexed and 0 not in shape:
        raise IndexError("index is out of bounds for dimension with size 0")
    return res_shape, order, before, n_idx, strides


class _Geom:
    __slots__ = ("sizes", "strides", "ndim")

    def __init__(self, sizes, strides):
        self.sizes, self.strides, self.ndim = tuple(sizes), tuple(strides), len(sizes)


def _index_output_strides(self, idx, shape, geoms):
    """The layout TensorIterator gives ``index``'s output.  Its operands are the restrided source (stride 0
    over the replacement dims) and each broadcast index reshaped to ``[1]*before + shape + [1]*after``
    (``reshape_indexer``); an output follows them (TensorIterator's fast setup, else its dim reordering)."""
    res_shape, order, before, n_idx, strides = advanced_index_result(self, idx, shape)
    k = len(shape)
    after = len(res_shape) - before - k
    ops = [_Geom(res_shape, tuple(strides[:before]) + (0,) * k + tuple(strides[before + n_idx:]))]
    for g in (geoms[d] for d in order):
        if g is None:
            continue
        sizes = (1,) * before + tuple(shape) + (1,) * after
        st = _shape.compute_stride(g[0], g[1], sizes)
        ops.append(_Geom(sizes, st if st is not None else _shape.contiguous_strides(sizes)))
    if all(o.sizes == res_shape for o in ops):
        if all(_shape.is_contiguous(o.sizes, o.strides) for o in ops):
            return res_shape, _shape.contiguous_strides(res_shape)
        if all(o.strides == ops[0].strides for o in ops) and \
                _shape.is_non_overlapping_and_dense(res_shape, ops[0].strides):
            return res_shape, ops[0].strides
    return res_shape, compute_output_strides(res_shape, ops)


def _bounds_check_indices(self, idx, result_numel):
    """PyTorch checks each index while it copies: nothing when the result is empty, else the first bad
    element in iteration order (and, within it, the first indexed dim) is reported."""
    if result_numel == 0:
        return
    dims = [(d, a) for d, a in enumerate(idx) if a is not None]
    bads = [(a < -self.sizes[d]) | (a >= self.sizes[d]) for d, a in dims]
    if not any(b.any() for b in bads):
        return
    first = int(np.argmax(np.any(np.stack(bads).reshape(len(bads), -1), axis=0)))
    for k, ((d, a), b) in enumerate(zip(dims, bads, strict=True)):
        if b.reshape(-1)[first]:
            raise IndexError(f"index {int(a.reshape(-1)[first])} is out of bounds for dimension {k} with size "
                             f"{self.sizes[d]}")


def _np_key(idx):
    return tuple(slice(None) if a is None else a for a in idx)


def index_Tensor_out(self, indices, out):
    indices = list(indices)
    if len(indices) > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim} (got {len(indices)})")
    if not indices:
        raise IndexError("at least one index must be provided")
    if out is not None:
        check_no_internal_overlap(out)
        assert_no_overlap(out, self)
        for t in indices:
            if t is not None:
                assert_no_overlap(out, t)
    meta = is_meta(self, *indices)
    if any(t is not None and t.dtype in (_dt.bool, _dt.uint8) and is_meta(t) for t in indices):
        raise NotImplementedError(_META_NONZERO)
    idx, shape, geoms = expand_indices(self, indices)
    if all(a is None for a in idx):
        out = prepare_out(out, self.sizes, self.dtype, self.device)
        return out if meta else _copy.copy_(out, self)
    res_shape, strides = _index_output_strides(self, idx, shape, geoms)
    if out is None:
        out = empty_strided_impl(res_shape, strides, self.dtype, self.device)
    else:
        if out.dtype is not self.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_name(self.dtype)}, but got "
                               f"{_name(out.dtype)} instead")
        resize_out(out, res_shape)
    if meta:
        return out
    _bounds_check_indices(self, idx, out.numel())
    if not out.numel():
        return out
    return write(out, self.as_numpy()[_np_key(idx)])


def _mask_fill_dispatch(self, indices, value):
    """PyTorch's ``canDispatchToMaskedFill``: one bool mask and a one-element value → ``masked_fill_``.

    The mask gets a trailing size-1 dim for every dim of ``self`` after it; a ``None`` after the mask indexes
    nothing and is not counted (pytorch/pytorch#158413: counting it misaligned the mask).
    """
    if value.numel() != 1:
        return None
    num_ind, mask = 0, None
    for t in indices:
        if t is None:
            num_ind += mask is None
            continue
        if t.dtype not in (_dt.uint8, _dt.bool) or mask is not None:
            return None
        mask = t
        for j in range(t.ndim):
            src = num_ind + j
            if src >= self.ndim:
                wrap_dim(src, self.ndim)
            if t.sizes[j] != self.sizes[src]:
                _invalid_mask(self, src, t, j)
        num_ind += t.ndim
    if mask is None:
        return None
    for _ in range(num_ind, self.ndim):
        mask = _views.unsqueeze(mask, -1)
    return mask


def index_put_impl_(self, indices, values, accumulate, unsafe):
    indices = list(indices)
    if len(indices) > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim} (got {len(indices)})")
    if any(st == 0 and s > 1 for s, st in zip(self.sizes, self.strides, strict=True)):
        _user_warn("Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
                   "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
                   "tensor")
    if not accumulate:
        mask = _mask_fill_dispatch(self, indices, values)
        if mask is not None:
            if is_meta(self, values):
                return self
            v = _element(values.as_numpy(), values.dtype)
            return aten.masked_fill__Scalar(self, mask if mask.dtype is _dt.bool else _as_bool(mask), v)
    refuse("index_put", self.dtype, BAREBONES_UNSIGNED)
    assert_no_overlap(self, values)
    for t in indices:
        if t is not None:
            assert_no_overlap(self, t)
    if any(t is not None and t.dtype in (_dt.bool, _dt.uint8) and is_meta(t) for t in indices):
        raise NotImplementedError(_META_NONZERO)
    idx, shape, _ = expand_indices(self, indices)
    if all(a is None for a in idx):
        res_shape = self.sizes
    else:
        res_shape = advanced_index_result(self, idx, shape)[0]
    if not _expandable(values.sizes, res_shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {fmt(values.sizes)} cannot be broadcast to "
                           f"indexing result of shape {fmt(res_shape)}")
    if values.dtype is not self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_name(self.dtype)} "
                           f"for the destination and {_name(values.dtype)} for the source.")
    if is_meta(self, values, *indices):
        return self
    _bounds_check_indices(self, idx, _shape.prod(res_shape))
    if not self.numel():
        return self
    arr = self.as_numpy()
    key = _np_key(idx)
    v = np.broadcast_to(values.as_numpy(), res_shape)
    if accumulate and self.dtype is _dt.complex32:  # each part adds as c10's complex<Half> does: in float, rounded
        np.add.at(arr["real"], key, v["real"])
        np.add.at(arr["imag"], key, v["imag"])
    elif accumulate:
        np.add.at(arr, key, v)
    else:
        arr[key] = v
    return self


def _as_bool(mask):
    out = empty_impl(mask.sizes, _dt.bool, mask.device)
    return _copy.copy_(out, mask)


def _expandable(src, target) -> bool:
    """PyTorch's ``is_expandable_to``: ``src`` broadcasts to exactly ``target``."""
    if len(src) > len(target):
        return False
    for s, t in zip(reversed(src), reversed(target), strict=False):
        if s != t and s != 1:
            return False
    return True
