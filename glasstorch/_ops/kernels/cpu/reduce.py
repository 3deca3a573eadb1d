"""Reduction and scan CPU kernels — PyTorch's ``ReduceOps.cpp``, ``ReduceAllOps.cpp``, ``TensorCompare.cpp``
(max/min), ``LinearAlgebra.cpp`` (vector norms) and their ``cpu/*Kernel.cpp``.

Each kernel first does what PyTorch's meta function does — wrap and check the dims, choose the output dtype,
allocate the output or check and resize ``out=`` — and then, unless the operands are meta tensors, runs numpy
over the input's strided view (no copy) and writes the output in place.  Because the dtype/shape work comes
first and the data work is skipped on meta, one function serves the CPU and Meta keys.

Accumulation follows PyTorch's CPU kernels: float16/bfloat16 sums, means, norms and scans accumulate in
float32 and round once; float32 scans accumulate in float64 (``acc_type<float, /*is_cuda=*/false>``);
variances use a float64 two-pass algorithm (PyTorch: Welford in double); float16 products round at every
step, as PyTorch's do.  An input whose dtype differs from the computation dtype is first cast to it
(``self.to(dtype)``) unless that cast is exact.

Dims: ``None`` or ``[]`` means every dim (``all.dims``/``any.dims`` excepted: there ``[]`` reduces nothing),
negative dims wrap, duplicates raise, and a 0-dim tensor accepts dim 0 and -1.

Invariant: a kernel writes only its output tensors, and their dtype and shape are settled before any data
is read.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from ...._core import dtype as _dt
from ...._core.shape import wrap_dim
from ...._core.user_warning import warn as _user_warn
from ...._tensor.impl import TensorImpl, empty_contiguous
from ...overlap import check_outputs_writable
from ...tensor_iterator import check_no_internal_overlap, reduced_shape, reduction_dims, resize_out
from .copy import cast_ready, cast_routed, chalf_values, store_chalf
from .dispatch_types import FLOAT8, not_implemented, refuse

__all__ = [
    "sum_out", "sum_all", "sum_all_out", "mean_out", "mean_all", "mean_all_out", "prod_out", "prod_all",
    "prod_all_out", "max_all", "min_all", "max_unary_out", "min_unary_out", "max_dim_out", "min_dim_out",
    "amax_out", "amin_out", "argmax_out", "argmin_out", "var_correction", "var_correction_out", "std_correction",
    "std_correction_out", "var_mean_correction", "var_mean_correction_out", "std_mean_correction",
    "std_mean_correction_out", "norm_scalar", "norm_scalar_dtype", "norm_out", "norm_dtype_out", "norm_scalar_out",
    "norm_scalar_dtype_out", "linalg_vector_norm_out", "logsumexp", "logsumexp_out", "all_all_out", "all_dims_out",
    "all_dim_out", "any_all_out", "any_dims_out", "any_dim_out", "count_nonzero", "count_nonzero_dims",
    "count_nonzero_out", "count_nonzero_dims_out", "cumsum_out", "cumprod_out", "hash_tensor_out",
]

# C++ type names (caffe2::TypeMeta) used by structured kernels' "Expected out tensor to have dtype" check
_TYPE_META = {
    _dt.bool: "bool", _dt.uint8: "unsigned char", _dt.int8: "signed char", _dt.int16: "short int", _dt.int32: "int",
    _dt.int64: "long int", _dt.float16: "c10::Half", _dt.bfloat16: "c10::BFloat16", _dt.float32: "float",
    _dt.float64: "double", _dt.complex32: "c10::complex<c10::Half>", _dt.complex64: "c10::complex<float>",
    _dt.complex128: "c10::complex<double>",
}
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)
# accumulation dtype of sums, means and norms: reduced floats accumulate in float32
_SUM_ACC = {_dt.float16: _F32, _dt.bfloat16: _F32}
# accumulation dtype of scans (acc_type<T, is_cuda=false>)
_SCAN_ACC = {_dt.float16: _F32, _dt.bfloat16: _F32, _dt.float32: _F64, _dt.complex64: np.dtype(np.complex128),
             _dt.uint8: _I64, _dt.int8: _I64, _dt.int16: _I64, _dt.int32: _I64}
_name = _dt.name_of
_NO_CONTEXT = contextlib.nullcontext()


def _quiet(*dtypes):
    """numpy's floating-point warnings off (overflow to inf, 0/0, NaN compares): PyTorch computes silently."""
    for dt in dtypes:
        if dt._cat >= _dt.FLOAT_CAT:
            return np.errstate(all="ignore")
    return _NO_CONTEXT


# -- shared steps --------------------------------------------------------------------------------------------
def _no_data(*impls) -> bool:
    """Meta operands: shapes and dtypes only."""
    return any(t is not None and t.storage._data is None for t in impls)


def _is_float_or_complex(dt) -> bool:
    return dt._cat >= _dt.FLOAT_CAT


def _is_integral(dt) -> bool:
    """Integral including bool (``isIntegralType(t, /*includeBool=*/true)``)."""
    return dt._cat <= _dt.INT_CAT


def _check_out_dtype(out: TensorImpl, dtype) -> None:
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_TYPE_META[dtype]}, but got {_TYPE_META[out.dtype]} "
                           f"instead")


def _output(self: TensorImpl, shape, dtype, out: TensorImpl | None) -> TensorImpl:
    """A structured kernel's ``set_output``: allocate contiguous, or check the dtype of ``out`` and resize it."""
    if out is None:
        return empty_contiguous(shape, dtype, self.device)
    _check_out_dtype(out, dtype)
    resize_out(out, shape)
    return out


def _reduction_output(self, dims, keepdim, dtype, out):
    return _output(self, reduced_shape(self.sizes, dims, keepdim), dtype, out)


def _axes(self: TensorImpl, dims):
    """numpy ``axis=`` for wrapped dims: None (numpy's fast path) when every dim is reduced."""
    return None if len(dims) == len(self.sizes) else dims


def _count(self: TensorImpl, dims) -> int:
    """Number of elements reduced into each output element."""
    n = 1
    for d in dims:
        n *= self.sizes[d]
    return n


def _input_np(self: TensorImpl, dtype, acc=None) -> np.ndarray:
    """``self`` as numpy for a computation that PyTorch runs on ``self.to(dtype)`` accumulating in ``acc``.

    numpy converts each element straight to ``acc``; that equals converting to ``dtype`` first when ``acc`` is
    ``dtype`` or the conversion to ``dtype`` is exact (a widening within a category, or from bool).  Otherwise
    (float32 -> float16, int -> float16 with a float32 accumulator ...) the input is cast first.
    """
    a = self.as_numpy()
    src = self.dtype
    if src is _dt.complex32:  # numpy has no complex-half: its values, exactly, as complex64
        a, src = chalf_values(a), _dt.complex64
    if src.is_complex and not dtype.is_complex and dtype is not _dt.bool:  # self.to(dtype), as copy_ warns
        _user_warn("Casting complex values to real discards the imaginary part")
        a, src = a.real, src.to_real()
    if src is not dtype and cast_routed(a.dtype, dtype.np):  # Note [c10 casts]: bfloat16 -> uint8 wraps
        with np.errstate(invalid="ignore", over="ignore"):
            return cast_ready(a, dtype.np).astype(dtype.np)
    if src is dtype or (acc is not None and acc == dtype.np) or src is _dt.bool or \
            (src._cat == dtype._cat and _dt.promote_types(src, dtype) is dtype):
        return a
    return a.astype(dtype.np)


def _values(self: TensorImpl) -> np.ndarray:
    """``self`` as numpy values: complex32 storage (two float16 fields) read as complex64."""
    a = self.as_numpy()
    return chalf_values(a) if self.dtype is _dt.complex32 else a


def _chalf_result(kname, self: TensorImpl, out: TensorImpl, identity) -> bool:
    """A complex32 result: PyTorch's reduction kernels have no ComplexHalf loop (``"<kname>" not implemented``),
    but an empty input runs no kernel and only fills the identity.  False for any other result dtype."""
    if out.dtype is not _dt.complex32:
        return False
    if self.numel():
        raise not_implemented(kname, out.dtype)
    store_chalf(out.as_numpy(), identity)
    return True


def _store(out: TensorImpl, value) -> None:
    if out.dtype is _dt.complex32:
        store_chalf(out.as_numpy(), value)
        return
    np.copyto(out.as_numpy(), value, casting="unsafe")


def _sum_acc(a: np.ndarray, axes, n: int, acc):
    """The accumulation dtype of a sum: float32 sums that numpy would add row by row (a reduced axis that is not
    the innermost in memory) lose accuracy with length, where PyTorch's cascade sum does not; those accumulate
    in float64 and round once, which stays within PyTorch's own error."""
    if acc != _F32 or n <= 128:
        return acc
    if axes is None:
        return acc if a.flags.c_contiguous or a.flags.f_contiguous else _F64
    inner = min((abs(st), d) for d, (sz, st) in enumerate(zip(a.shape, a.strides, strict=True)) if sz > 1)[1]
    return acc if inner in axes else _F64


def _reduce_into(ufunc, a, axes, keepdim, out: TensorImpl, acc) -> None:
    """One numpy reduction in ``acc``; written straight into ``out`` when no rounding step is needed."""
    o = out.as_numpy()
    if o.dtype == acc:
        ufunc.reduce(a, axis=axes, dtype=acc, out=o, keepdims=keepdim)
    else:
        np.copyto(o, ufunc.reduce(a, axis=axes, dtype=acc, keepdims=keepdim), casting="unsafe")


def _dims_of(self, dim, wrap_first=True):
    """Wrapped dims of an ``int[1]?`` argument (None or [] = all); ``wrap_first``: see ``reduction_dims``."""
    return reduction_dims(dim, self.ndim, wrap_first=wrap_first)


def _one_dim(self, dim):
    d = wrap_dim(dim, self.ndim)
    return (d,) if self.ndim else ()


def _copy_resize(out: TensorImpl, result: TensorImpl) -> TensorImpl:
    """The autogenerated ``out=`` kernels: compute functionally, resize ``out``, copy (casting)."""
    resize_out(out, result.sizes)
    if not _no_data(out, result):
        _store(out, result.as_numpy())
    return out


# -- sum / mean / prod ---------------------------------------------------------------------------------------
def _sum_dtype(self, dtype, out):
    """``infer_dtype_from_optional``: dtype=, else out's dtype, else self's with integers promoted to int64."""
    if dtype is not None:
        return dtype
    if out is not None:
        return out.dtype
    return _dt.int64 if _is_integral(self.dtype) else self.dtype


def sum_out(self, dim, keepdim, dtype, out):
    dims = _dims_of(self, dim)
    out = _reduction_output(self, dims, keepdim, _sum_dtype(self, dtype, out), out)
    if not _no_data(self, out) and not _chalf_result("sum_cpu", self, out, 0):
        if self.numel():  # an empty sum only fills its identity, without the kernel
            refuse("sum_cpu", out.dtype, FLOAT8)
        acc = _SUM_ACC.get(out.dtype, out.dtype.np)
        a, axes = _input_np(self, out.dtype, acc), _axes(self, dims)
        with _quiet(self.dtype, out.dtype):
            _reduce_into(np.add, a, axes, keepdim, out, _sum_acc(a, axes, _count(self, dims), acc))
    return out


def sum_all(self, dtype):
    return sum_out(self, None, False, dtype, None)


def sum_all_out(self, dtype, out):
    return sum_out(self, None, False, dtype, out)


def mean_out(self, dim, keepdim, dtype, out):
    in_dtype = dtype if dtype is not None else (_dt.int64 if _is_integral(self.dtype) else self.dtype)
    if not _is_float_or_complex(in_dtype):
        what, bad = ("Optional", dtype) if dtype is not None else ("Input", self.dtype)
        raise RuntimeError(f"mean(): could not infer output dtype. {what} dtype must be either a floating point or "
                           f"complex dtype. Got: {_name(bad)}")
    dims = _dims_of(self, dim)
    out = _reduction_output(self, dims, keepdim, _sum_dtype(self, dtype, out), out)
    if not _is_float_or_complex(out.dtype):  # PyTorch: sum_out(...).div_(n) on an integral result
        raise RuntimeError(f"result type {_name(_dt.get_default_dtype())} can't be cast to the desired output type "
                           f"{_name(out.dtype)}")
    if out.dtype is _dt.complex32 and not _no_data(self, out):  # the sum, or for no elements the division by 0
        raise not_implemented("sum_cpu" if self.numel() else "div_cpu", out.dtype)
    if not _no_data(self, out):
        refuse("sum_cpu", out.dtype, FLOAT8)
        check_outputs_writable(out)  # sum_out's result is divided in place (div_): a fresh one always passes
        acc = _SUM_ACC.get(out.dtype, out.dtype.np)
        a = _input_np(self, _dt.float32 if acc != out.dtype.np else out.dtype, acc)  # half: sum in float
        axes, n = _axes(self, dims), _count(self, dims)
        acc = _sum_acc(a, axes, n, acc)
        o = out.as_numpy()
        with _quiet(out.dtype):  # 0/0 is nan
            if o.dtype == acc:
                np.add.reduce(a, axis=axes, dtype=acc, out=o, keepdims=keepdim)
                np.true_divide(o, n, out=o)
            else:
                np.true_divide(np.add.reduce(a, axis=axes, dtype=acc, keepdims=keepdim), n, out=o, casting="unsafe")
    return out


def mean_all(self, dtype):
    return mean_out(self, None, False, dtype, None)


def mean_all_out(self, dtype, out):
    if not _dt.can_cast(self.dtype, out.dtype):  # mean.dtype_out's own check, made before mean.out's
        raise RuntimeError(f"mean.dtype_out(): input types can't be cast to the desired output type "
                           f"{_name(out.dtype)}")
    return mean_out(self, None, False, dtype, out)


def _prod_into(self, dims, keepdim, out):
    if _chalf_result("prod_out_cpu", self, out, 1):
        return
    refuse("prod_out_cpu", out.dtype, FLOAT8)
    a = _input_np(self, out.dtype, None if out.dtype is _dt.float16 else out.dtype.np)
    if out.dtype is not _dt.float16 or not self.ndim:
        _reduce_into(np.multiply, a, _axes(self, dims), keepdim, out, out.dtype.np)
        return
    # float16: PyTorch multiplies in half precision, rounding every partial product; numpy's float16
    # reduction would keep a float32 accumulator, so take the last element of a half-precision scan.
    if len(dims) == 1:
        axis = dims[0]
    else:  # all dims, in memory order as PyTorch's iterator walks them
        a, axis = a.ravel(order="K"), 0
    if a.shape[axis] == 0:
        out.as_numpy().fill(1)
        return
    last = np.take(np.multiply.accumulate(a, axis=axis, dtype=a.dtype), -1, axis=axis)
    if keepdim:
        last = last.reshape(out.sizes)
    _store(out, last)


def prod_out(self, dim, keepdim, dtype, out):
    dims = _one_dim(self, dim)
    out = _reduction_output(self, dims, keepdim, _sum_dtype(self, dtype, out), out)
    if not _no_data(self, out):
        with _quiet(self.dtype, out.dtype):
            _prod_into(self, dims, keepdim, out)
    return out


def prod_all(self, dtype):
    dims = tuple(range(self.ndim))
    out = _reduction_output(self, dims, False, _sum_dtype(self, dtype, None), None)
    if not _no_data(self):
        with _quiet(self.dtype, out.dtype):
            _prod_into(self, dims, False, out)
    return out


def prod_all_out(self, dtype, out):
    return _copy_resize(out, prod_all(self, dtype))


# -- max / min -----------------------------------------------------------------------------------------------
def _empty_reduce_message(name):
    return (f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            f"with the 'dim' argument.")


def _minmax_all(name, ufunc, self):
    if self.numel() == 0:
        raise RuntimeError(_empty_reduce_message(name))
    if self.dtype.is_complex or _dt.is_barebones(self.dtype):
        raise NotImplementedError(f"\"{name}_all\" not implemented for '{_name(self.dtype)}'")
    out = empty_contiguous((), self.dtype, self.device)
    if not _no_data(self):
        with _quiet(self.dtype):
            ufunc.reduce(self.as_numpy(), axis=None, out=out.as_numpy())
    return out


def max_all(self):
    return _minmax_all("max", np.maximum, self)


def min_all(self):
    return _minmax_all("min", np.minimum, self)


def _identity(dtype, largest: bool):
    """The value a max (largest=False: lowest) / min reduction of nothing yields."""
    if dtype is _dt.bool:
        return largest
    if dtype._cat == _dt.INT_CAT:
        info = np.iinfo(dtype.np)
        return info.max if largest else info.min
    return math.inf if largest else -math.inf


def _minmax_unary_out(name, ufunc, self, out):
    if not _dt.can_cast(self.dtype, out.dtype):
        raise RuntimeError("Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) "
                           "to be true, but got false.  (Could this error message be improved?  If so, please report "
                           "an enhancement request to PyTorch.)")
    resize_out(out, ())
    if self.dtype.is_complex or _dt.is_barebones(self.dtype):
        raise NotImplementedError(f"\"{name}_all\" not implemented for '{_name(self.dtype)}'")
    if not _no_data(self, out):
        if self.numel() == 0:  # no emptiness check on this path: the reduction's identity
            _store(out, _identity(self.dtype, name == "min"))
        else:
            with _quiet(self.dtype):
                _store(out, ufunc.reduce(self.as_numpy(), axis=None))
    return out


def max_unary_out(self, out):
    return _minmax_unary_out("max", np.maximum, self, out)


def min_unary_out(self, out):
    return _minmax_unary_out("min", np.minimum, self, out)


def _zero_numel_check(self, d, fname):
    """``zero_numel_check_dims``: a reduction without identity needs a non-empty reduced dim."""
    if self.ndim and self.sizes[wrap_dim(d, self.ndim)] == 0:
        raise IndexError(f"{fname}: Expected reduction dim {d} to have non-zero size.")


def _minmax_dim(name, argfn, valfn, self, dim, keepdim, values, indices):
    d = wrap_dim(dim, self.ndim)
    _zero_numel_check(self, d, f"{name}()")
    if self.dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    dims = (d,) if self.ndim else ()
    shape = reduced_shape(self.sizes, dims, keepdim)
    values = _output(self, shape, self.dtype, values)
    indices = _output(self, shape, _dt.int64, indices)
    if not _no_data(self, values, indices):
        refuse(f"{name}_cpu", self.dtype)
        check_outputs_writable(values, indices)  # the reduction's iterator over both outputs
        a = self.as_numpy()
        vo, io = values.as_numpy(), indices.as_numpy()
        if not self.ndim:
            np.copyto(vo, a)
            io.fill(0)
        else:
            if not keepdim:
                vo, io = np.expand_dims(vo, d), np.expand_dims(io, d)
            with _quiet(self.dtype):
                argfn(a, axis=d, out=io, keepdims=True)  # first index of the extreme; NaN counts as the extreme
                valfn.reduce(a, axis=d, out=vo, keepdims=True)
    return values, indices


def max_dim_out(self, dim, keepdim, max, max_values):  # noqa: A002 - PyTorch's argument names
    return _minmax_dim("max", np.argmax, np.maximum, self, dim, keepdim, max, max_values)


def min_dim_out(self, dim, keepdim, min, min_indices):  # noqa: A002
    return _minmax_dim("min", np.argmin, np.minimum, self, dim, keepdim, min, min_indices)


def _amax(name, ufunc, self, dim, keepdim, out):
    if out is not None and out.dtype is not self.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got {_name(self.dtype)} for input's "
                           f"dtype and {_name(out.dtype)} for out's dtype.")
    if self.numel() == 0:
        if not dim:
            raise RuntimeError(_empty_reduce_message(name))
        for d in dim:
            _zero_numel_check(self, d, f"{name}()")
    dims = _dims_of(self, dim)
    out = _reduction_output(self, dims, keepdim, self.dtype, out)
    if self.dtype.is_complex or _dt.is_barebones(self.dtype):
        raise NotImplementedError(f"\"{name[1:]}_values_cpu\" not implemented for '{_name(self.dtype)}'")
    if not _no_data(self, out):
        with _quiet(self.dtype):
            ufunc.reduce(self.as_numpy(), axis=_axes(self, dims), out=out.as_numpy(), keepdims=keepdim)
    return out


def amax_out(self, dim, keepdim, out):
    return _amax("amax", np.maximum, self, dim, keepdim, out)


def amin_out(self, dim, keepdim, out):
    return _amax("amin", np.minimum, self, dim, keepdim, out)


def hash_tensor_out(self, dim, keepdim, mode, out):
    """``hash_tensor``: the XOR of every reduced element's 64 bits (mode 0, PyTorch's ``xor_sum``).  Floats widen to
    float64 and integers and bool to int64 first, then the bits are read as uint64; the result is uint64."""
    if out is not None and out.dtype is not _dt.uint64:
        raise RuntimeError(f"Expected result to be of dtype uint64, but got {_name(out.dtype)}")
    if self.numel() == 0:
        if not dim:
            raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. Specify "
                               "the reduction dim with the 'dim' argument.")
        for d in dim:
            _zero_numel_check(self, d, "hash_tensor")
    dims = _dims_of(self, dim)
    out = _reduction_output(self, dims, keepdim, _dt.uint64, out)
    if _no_data(self, out):
        return out
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if self.dtype.is_complex or _dt.is_barebones(self.dtype):
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{_name(self.dtype)}'")
    a = self.as_numpy()
    bits = a.astype(_F64).view(np.uint64) if self.dtype.is_floating_point else a.astype(_I64).view(np.uint64)
    np.bitwise_xor.reduce(bits, axis=_axes(self, dims), out=out.as_numpy(), keepdims=keepdim)
    return out


def _argext(name, fn, self, dim, keepdim, out):
    if self.dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    if self.dtype is _dt.bool:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if self.numel() == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        dims = tuple(range(self.ndim))
    else:
        d = wrap_dim(dim, self.ndim)
        _zero_numel_check(self, d, f"{name}()")
        dims = (d,) if self.ndim else ()
    out = _reduction_output(self, dims, keepdim, _dt.int64, out)
    refuse(f"{name}_cpu", self.dtype)
    if not _no_data(self, out):
        a, o = self.as_numpy(), out.as_numpy()
        with _quiet(self.dtype):
            if dim is None or not self.ndim:
                o.fill(fn(a) if self.ndim else 0)  # dim=None: index into the flattened (row-major) tensor
            else:
                fn(a, axis=dims[0], out=o if keepdim else np.expand_dims(o, dims[0]), keepdims=True)
    return out


def argmax_out(self, dim, keepdim, out):
    return _argext("argmax", np.argmax, self, dim, keepdim, out)


def argmin_out(self, dim, keepdim, out):
    return _argext("argmin", np.argmin, self, dim, keepdim, out)


# -- var / std -----------------------------------------------------------------------------------------------
def _moments(self, dims, correction, keepdim, take_sqrt, out_dtype):
    """(var or std, mean) by the two-pass algorithm: in float64 for real input; complex input as PyTorch's
    ``std_var_out`` splits it: the variances of the real and the imaginary part, each rounded to the input's real
    type and then to ``out_dtype`` (the real type of the result), are added (and square-rooted) in ``out_dtype``.

    ``var = sum((x - mean)^2) / max(0, N - correction)``: inf or nan when the divisor is 0, as PyTorch.
    """
    a = _values(self)
    axes, n = _axes(self, dims), _count(self, dims)
    acc = np.complex128 if self.dtype.is_complex else np.float64
    divisor = max(0.0, n - correction)
    with _quiet(self.dtype):
        mean = np.asarray(np.add.reduce(a, axis=axes, dtype=acc, keepdims=True))
        mean /= n
        dev = np.asarray(np.subtract(a, mean, dtype=acc))
        if self.dtype.is_complex:
            part, out_np = self.dtype.to_real().np, out_dtype.to_real().np
            re, im = (np.asarray(np.add.reduce(np.square(d), axis=axes, keepdims=keepdim) / divisor)
                      .astype(part).astype(out_np) for d in (dev.real, dev.imag))
            var = np.asarray(np.add(re, im, dtype=out_np))
        else:
            var = np.asarray(np.add.reduce(np.multiply(dev, dev, out=dev), axis=axes, keepdims=keepdim))
            var /= divisor
        if take_sqrt:
            np.sqrt(var, out=var)
    if not keepdim and self.ndim:
        mean = mean.reshape(var.shape)
    return var, mean


def _std_var_setup(fname, self, dim, correction, keepdim):
    if not _is_float_or_complex(self.dtype):
        what = "std and var" if fname in ("std", "var") else fname
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    if self.dtype in FLOAT8:
        raise RuntimeError(f"std_var_all: Unsupported dtype {_name(self.dtype)}")
    correction = 1.0 if correction is None else float(correction)
    dims = _dims_of(self, dim, wrap_first=False)
    if _count(self, dims) - correction <= 0:
        _user_warn(f"{fname}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                   f"factor (input numel divided by output numel).")
    return dims, correction


def _std_var(fname, self, dim, correction, keepdim, out, take_sqrt):
    dims, correction = _std_var_setup(fname, self, dim, correction, keepdim)
    out = _reduction_output(self, dims, keepdim, out.dtype if out is not None else self.dtype.to_real(), out)
    real = self.dtype.to_real()  # complex input: the variances of the real and imaginary parts, added
    if not _dt.can_cast(real, out.dtype):
        raise RuntimeError(f"result type {_name(real)} can't be cast to the desired output type {_name(out.dtype)}")
    if not _no_data(self, out):
        if out.dtype.is_complex and not self.dtype.is_complex:  # torch's real kernel dispatches on out's dtype
            raise NotImplementedError(f"\"std_cpu\" not implemented for '{_name(out.dtype)}'")
        _store(out, _moments(self, dims, correction, keepdim, take_sqrt, out.dtype)[0])
    return out


def var_correction(self, dim, correction, keepdim):
    return _std_var("var", self, dim, correction, keepdim, None, False)


def var_correction_out(self, dim, correction, keepdim, out):
    return _std_var("var", self, dim, correction, keepdim, out, False)


def std_correction(self, dim, correction, keepdim):
    return _std_var("std", self, dim, correction, keepdim, None, True)


def std_correction_out(self, dim, correction, keepdim, out):
    return _std_var("std", self, dim, correction, keepdim, out, True)


def _std_var_mean(fname, self, dim, correction, keepdim, take_sqrt):
    dims, correction = _std_var_setup(fname, self, dim, correction, keepdim)
    shape = reduced_shape(self.sizes, dims, keepdim)
    res = empty_contiguous(shape, self.dtype.to_real(), self.device)
    mean = empty_contiguous(shape, self.dtype, self.device)
    if not _no_data(self):
        v, m = _moments(self, dims, correction, keepdim, take_sqrt, res.dtype)
        _store(res, v)
        _store(mean, m)
    return res, mean


def var_mean_correction(self, dim, correction, keepdim):
    return _std_var_mean("var_mean", self, dim, correction, keepdim, False)


def std_mean_correction(self, dim, correction, keepdim):
    return _std_var_mean("std_mean", self, dim, correction, keepdim, True)


def var_mean_correction_out(self, dim, correction, keepdim, out0, out1):
    res, mean = var_mean_correction(self, dim, correction, keepdim)
    return _copy_resize(out0, res), _copy_resize(out1, mean)


def std_mean_correction_out(self, dim, correction, keepdim, out0, out1):
    res, mean = std_mean_correction(self, dim, correction, keepdim)
    return _copy_resize(out0, res), _copy_resize(out1, mean)


# -- norms ---------------------------------------------------------------------------------------------------
def _scalar_text(v) -> str:
    """A Scalar as c10 prints it (a double through an ostream: 2, 0.5, inf)."""
    return str(v) if isinstance(v, int) else f"{float(v):g}"


def _check_linalg_norm_dtype(dtype, self_dtype, name):
    if dtype is None:
        return
    if not _is_float_or_complex(dtype):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {_name(dtype)}")
    if self_dtype.is_complex != dtype.is_complex:
        kind = "complex" if self_dtype.is_complex else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got {_name(dtype)}")
    if _dt.promote_types(self_dtype, dtype) is not dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({_name(self_dtype)}) should be convertible without "
                           f"narrowing to the specified dtype ({_name(dtype)})")


def _trailing_rows(a, axes) -> bool:
    """Whether ``axes`` are the trailing axes of a C-contiguous, non-empty ``a`` (a row-wise reduction)."""
    return (axes is not None and len(axes) > 0 and a.size > 0 and a.flags.c_contiguous
            and tuple(axes) == tuple(range(a.ndim - len(axes), a.ndim)))


def _vector_norm_into(self, ord, dims, keepdim, out):  # noqa: A002 - PyTorch's argument name
    """|x| reduced in out's dtype (reduced floats: float32): sum for 1, sqrt(sum x^2) for 2, max/min for ±inf,
    count of nonzeros for 0, (sum |x|^p)^(1/p) otherwise."""
    acc = _SUM_ACC.get(out.dtype, out.dtype.np)
    a = _values(self)
    if self.dtype.is_complex:
        a = np.abs(a)
    axes = _axes(self, dims)
    p = float(ord)
    with _quiet(out.dtype):
        if p == 2.0 and axes is None and a.dtype == acc and acc.kind == "f":
            flat = a.reshape(-1)
            r = np.sqrt(np.dot(flat, flat))  # sum of squares in one BLAS call
            if keepdim:
                r = np.reshape(r, out.sizes)
        elif p == 2.0 and _trailing_rows(a, axes) and a.dtype == acc and acc.kind == "f":
            rows = a.reshape(-1, math.prod(a.shape[axes[0]:]))
            r = np.sqrt(np.vecdot(rows, rows)).reshape(out.sizes)  # one dot per row, no temporary of squares
        elif p == 2.0:
            r = np.sqrt(np.add.reduce(np.square(a, dtype=acc), axis=axes, keepdims=keepdim))
        elif p == 1.0:
            r = np.add.reduce(np.abs(a, dtype=acc), axis=axes, keepdims=keepdim)
        elif p == math.inf:
            r = np.maximum.reduce(np.abs(a, dtype=acc), axis=axes, keepdims=keepdim)
        elif p == -math.inf:
            r = np.minimum.reduce(np.abs(a, dtype=acc), axis=axes, keepdims=keepdim)
        elif p == 0.0:
            r = np.add.reduce(a != 0, axis=axes, dtype=acc, keepdims=keepdim)
        else:
            s = np.add.reduce(np.power(np.abs(a, dtype=acc), acc.type(p)), axis=axes, keepdims=keepdim)
            r = np.power(s, acc.type(1.0 / p))
    _store(out, r)


def _vector_norm(self, ord, dim, keepdim, dtype, out):  # noqa: A002
    name = "linalg.vector_norm"
    if not _is_float_or_complex(self.dtype):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_name(self.dtype)}")
    p = float(ord)
    if self.numel() == 0 and (p < 0.0 or p == math.inf):
        if not dim:
            raise RuntimeError(f"{name} cannot compute the {_scalar_text(ord)} norm on an empty tensor because the "
                               f"operation does not have an identity")
        for d in dim:
            if self.sizes[wrap_dim(d, self.ndim)] == 0:
                raise RuntimeError(f"{name} cannot compute the {_scalar_text(ord)} norm on the dimension {d}because "
                                   f"this dimension is empty and the operation does not have an identity")
    _check_linalg_norm_dtype(dtype, self.dtype, name)
    dims = _dims_of(self, dim, wrap_first=False)
    out = _reduction_output(self, dims, keepdim, (dtype or self.dtype).to_real(), out)
    if not _no_data(self, out):
        _vector_norm_into(self, ord, dims, keepdim, out)
    return out


def linalg_vector_norm_out(self, ord, dim, keepdim, dtype, out):  # noqa: A002
    return _vector_norm(self, ord, dim, keepdim, dtype, out)


def norm_out(self, p, dim, keepdim, out):
    if not _is_float_or_complex(self.dtype):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {_name(self.dtype)} "
                           f"instead.")
    return _vector_norm(self, 2 if p is None else p, dim, keepdim, None, out)


def norm_dtype_out(self, p, dim, keepdim, dtype, out):
    if not _is_float_or_complex(dtype):
        raise RuntimeError(f"norm(): the desired output dtype should be either floating point or complex. Got "
                           f"{_name(dtype)} instead.")
    return _vector_norm(self, 2 if p is None else p, dim, keepdim, dtype, out)


def norm_scalar(self, p):
    return norm_out(self, p, (), False, None)


def norm_scalar_dtype(self, p, dtype):
    return norm_dtype_out(self, p, (), False, dtype, None)


def norm_scalar_out(self, p, out):
    return _copy_resize(out, norm_scalar(self, p))


def norm_scalar_dtype_out(self, p, dtype, out):
    return _copy_resize(out, norm_scalar_dtype(self, p, dtype))


# -- logsumexp -----------------------------------------------------------------------------------------------
def _logsumexp(self, dim, keepdim, out):
    """PyTorch's algorithm step by step (each step rounds in its dtype, as there):
    ``m = amax(x, dims, keepdim=True)`` with infinite maxima replaced by 0; ``log(sum(exp(x - m))) + m``."""
    dims = _dims_of(self, dim)
    shape = reduced_shape(self.sizes, dims, keepdim)
    out = _output(self, shape, out.dtype, out) if out is not None else \
        empty_contiguous(shape, _dt.get_default_dtype() if _is_integral(self.dtype) else self.dtype, self.device)
    if self.numel() and not dim and not keepdim and self.ndim:
        # PyTorch squeezes the kept-dim maxima by the given (empty) dim list, and the in-place add then fails
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape [{', '.join('1' * self.ndim)}]")
    if _no_data(self, out):
        return out
    check_outputs_writable(out)  # the last step adds the maxima in place (add_)
    a = self.as_numpy()
    if _is_integral(self.dtype):
        a = a.astype(_dt.get_default_dtype().np)
    axes = _axes(self, dims)
    acc = _SUM_ACC.get(out.dtype, out.dtype.np)
    with _quiet(out.dtype):
        if self.numel() == 0:
            s = np.add.reduce(np.exp(a), axis=axes, dtype=acc, keepdims=keepdim)
            s = np.log(np.asarray(s).astype(out.dtype.np))
        else:
            m = np.asarray(np.maximum.reduce(a.real if self.dtype.is_complex else a, axis=axes, keepdims=True))
            m = np.where(np.isinf(m), m.dtype.type(0), m)
            t = np.asarray(np.subtract(a, m))
            np.exp(t, out=t)
            s = np.asarray(np.add.reduce(t, axis=axes, dtype=acc, keepdims=keepdim)).astype(out.dtype.np)
            np.log(s, out=s)
            s = np.add(s, m.reshape(s.shape), casting="unsafe")
    _store(out, s)
    return out


def logsumexp(self, dim, keepdim):
    return _logsumexp(self, dim, keepdim, None)


def logsumexp_out(self, dim, keepdim, out):
    if not _is_float_or_complex(out.dtype):
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: {_name(out.dtype)}")
    return _logsumexp(self, dim, keepdim, out)


# -- all / any -----------------------------------------------------------------------------------------------
def _allany(name, fn, self, dims, keepdim, out):
    """Note [all, any : uint8 compatibility]: bool results, except uint8 for uint8 input; out may be either."""
    if out is not None and out.dtype is not _dt.bool and out.dtype is not _dt.uint8:
        raise RuntimeError(f"{name} only supports bool tensor for result, got: {_name(out.dtype)}")
    dtype = out.dtype if out is not None else (_dt.uint8 if self.dtype is _dt.uint8 else _dt.bool)
    out = _reduction_output(self, dims, keepdim, dtype, out)
    if not _no_data(self, out):
        fn(_values(self), axis=_axes(self, dims), out=out.as_numpy(), keepdims=keepdim)
    return out


def _allany_dims(self, dim):
    """``all.dims``: None reduces everything, [] reduces nothing (``allow_empty_dims``)."""
    if dim is not None and len(dim) == 0:
        return ()
    return _dims_of(self, dim)


def all_all_out(self, out):
    return _allany("all", np.all, self, tuple(range(self.ndim)), False, out)


def all_dims_out(self, dim, keepdim, out):
    return _allany("all", np.all, self, _allany_dims(self, dim), keepdim, out)


def all_dim_out(self, dim, keepdim, out):
    return _allany("all", np.all, self, _one_dim(self, dim), keepdim, out)


def any_all_out(self, out):
    return _allany("any", np.any, self, tuple(range(self.ndim)), False, out)


def any_dims_out(self, dim, keepdim, out):
    return _allany("any", np.any, self, _allany_dims(self, dim), keepdim, out)


def any_dim_out(self, dim, keepdim, out):
    return _allany("any", np.any, self, _one_dim(self, dim), keepdim, out)


# -- count_nonzero -------------------------------------------------------------------------------------------
def count_nonzero_dims(self, dim):
    dims = _dims_of(self, dim)
    out = empty_contiguous(reduced_shape(self.sizes, dims, False), _dt.int64, self.device)
    if not _no_data(self):
        refuse("nonzero_count_cpu", self.dtype)
        _store(out, np.count_nonzero(_values(self), axis=_axes(self, dims)))
    return out


def count_nonzero(self, dim):
    return count_nonzero_dims(self, None if dim is None else (dim,))


def count_nonzero_out(self, dim, out):
    return _copy_resize(out, count_nonzero(self, dim))


def count_nonzero_dims_out(self, dim, out):
    return _copy_resize(out, count_nonzero_dims(self, dim))


# -- scans ---------------------------------------------------------------------------------------------------
def _scan(name, ufunc, self, dim, dtype, out):
    d = wrap_dim(dim, self.ndim)
    out = _output(self, self.sizes, _sum_dtype(self, dtype, out), out)
    if _no_data(self, out):
        return out
    refuse(f"{name}_out_cpu", out.dtype, FLOAT8)
    acc = _SCAN_ACC.get(out.dtype, out.dtype.np)
    a, o = _input_np(self, out.dtype, acc), out.as_numpy()
    if not self.ndim or not self.numel():  # fill_(self) / nothing: no typed kernel, no iterator
        if out.dtype is _dt.complex32:
            store_chalf(o, a)
        else:
            np.copyto(o, a, casting="unsafe")
        return out
    if out.dtype is _dt.bool or out.dtype is _dt.complex32:
        raise not_implemented(f"{name}_out_cpu", out.dtype)
    check_no_internal_overlap(out)
    with _quiet(out.dtype):
        if o.dtype == acc:
            ufunc.accumulate(a, axis=d, dtype=acc, out=o)
        else:  # widen once, scan in place, round once (faster than a casting scan)
            wide = a.astype(acc)
            ufunc.accumulate(wide, axis=d, out=wide)
            np.copyto(o, wide, casting="unsafe")
    return out


def cumsum_out(self, dim, dtype, out):
    return _scan("cumsum", np.add, self, dim, dtype, out)


def cumprod_out(self, dim, dtype, out):
    return _scan("cumprod", np.multiply, self, dim, dtype, out)
