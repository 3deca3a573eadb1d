"""Factory kernels — PyTorch's ``TensorFactories.cpp``, ``RangeFactories.cpp`` and
``torch/csrc/utils/tensor_new.cpp`` (dtype inference for ``torch.tensor``).

Everything here returns a fresh TensorImpl.  Dtype inference for ``tensor(data)`` follows PyTorch:
Python bool -> bool, int -> int64, float -> the default dtype, complex -> the default complex dtype,
numpy scalars/arrays and tensors -> their own dtype, and a sequence promotes its elements' dtypes.

Invariant: a factory never aliases its input data (except ``from_numpy``/``as_tensor``, elsewhere).
"""

from __future__ import annotations

import builtins
import math
import numbers
import operator
import warnings

import numpy as np

from .._core import dtype as _dt
from .._core import shape as _shape
from .._core.device import CPU, as_device
from .._core.layout import preserve_format
from .._core.user_warning import warn as _user_warn
from .._device.threads import get_num_threads
from .._tensor.impl import TensorImpl, empty_impl, empty_strided_impl, from_numpy_impl
from .aten import aten
from .kernels.cpu import copy as _copy
from .kernels.cpu.dispatch_types import not_implemented

__all__ = ["tensor_impl", "infer_dtype", "full_impl", "like_impl", "arange_impl", "linspace_impl", "logspace_impl",
           "eye_impl", "check_fits", "not_implemented"]

_SCALARS = (bool, int, float, complex)
_F16 = np.dtype(np.float16)


def _is_tensor(x):
    return hasattr(x, "_impl")


def infer_dtype(data):
    """The dtype ``torch.tensor(data)`` gives (PyTorch's ``infer_scalar_type``)."""
    if isinstance(data, bool):
        return _dt.bool
    if isinstance(data, int):
        return _dt.int64
    if isinstance(data, float) and not isinstance(data, np.floating):
        return _dt.get_default_dtype()
    if isinstance(data, complex) and not isinstance(data, np.complexfloating):
        return _complex_for_default()
    if _is_tensor(data):
        return data._impl.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return _dt.from_numpy_dtype(data.dtype)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, (list, tuple)) or _is_sequence(data):
        if isinstance(data, (list, tuple)) and data:  # fast path: a row of plain Python numbers
            types = set(map(type, data))
            if types <= _PY_NUMBERS:
                return _plain_numbers_dtype(types)
        out = None
        for item in data:
            if item is data:
                raise TypeError("new(): self-referential lists are incompatible")
            d = infer_dtype(item)
            out = d if out is None else _dt.promote_types(out, d)
        return _dt.get_default_dtype() if out is None else out
    if isinstance(data, numbers.Integral):
        return _dt.int64
    if isinstance(data, numbers.Real):
        return _dt.get_default_dtype()
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


_PY_NUMBERS = {bool, int, float, complex}


def _plain_numbers_dtype(types):
    """The promoted dtype of a row holding exactly these plain Python number types."""
    if complex in types:
        return _complex_for_default()
    if float in types:
        return _dt.get_default_dtype()
    return _dt.int64 if int in types else _dt.bool


def _complex_for_default():
    """tensor_new.cpp's complex type for a Python complex: only float/double/half defaults have one."""
    default = _dt.get_default_dtype()
    if default is _dt.bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return default.to_complex()


def _is_sequence(x):
    """PySequence_Check: lists, tuples, str, ndarrays, ranges ... but not tensors, dicts or numpy scalars."""
    if isinstance(x, (list, tuple, str, np.ndarray)):
        return True
    if _is_tensor(x) or isinstance(x, (dict, np.generic)):
        return False
    return hasattr(x, "__len__") and hasattr(x, "__getitem__")


_MAX_DIMS = 64
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1


def _compute_sizes(data) -> tuple:
    """The shape of nested data, read along first elements only (``compute_sizes``); a tensor is a leaf."""
    sizes = []
    seq = data
    while _is_sequence(seq):
        if isinstance(seq, np.ndarray):
            sizes.extend(seq.shape)
            break
        n = len(seq)
        sizes.append(n)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(seq).__name__}'")
        if n == 0:
            break
        seq = seq[0]
    return tuple(sizes)


def _tp_name(x) -> str:
    """CPython's ``tp_name``: 'list', 'complex', 'numpy.float32' ..."""
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


_INT_RANGES = {d: (int(np.iinfo(d.np).min), int(np.iinfo(d.np).max))
               for d in (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64) + _dt.BAREBONES_UNSIGNED}


def _int_overflows(v, dtype) -> bool:
    """c10's ``overflows<T>(int64)``: an unsigned type also takes negatives down to ``-max`` (two's complement)."""
    lo, hi = _INT_RANGES[dtype]
    if lo == 0:
        return v > hi or (v < 0 and -v > hi)
    return not lo <= v <= hi


def _float_overflows(f, dtype) -> bool:
    """c10's ``overflows<T>(double)`` for an integral ``T``: NaN, infinities and out-of-range values."""
    if f != f:
        return True
    lo, hi = _INT_RANGES[dtype]
    return f < lo or f > hi


# Element types a whole innermost row may hold for each target kind without per-element work.
_PLAIN_ROW = {"int": {int, bool}, "float": {int, bool, float}, "complex": {int, bool, float, complex},
              "bool": {int, bool, float, complex}}


def _plain_row(seq, target):
    """``seq`` unchanged when every element is a plain Python number needing no per-element conversion (the
    common case, checked at C speed); None when the slow path must read each element."""
    if target is _dt.uint64:  # plain ints in range only; the converter raises for the rest
        return seq if set(map(type, seq)) <= {int, bool} and (not seq or (min(seq) >= 0 and max(seq) <= _UINT64_MAX)) \
            else None
    kind = ("bool" if target is _dt.bool else "int" if target._cat == _dt.INT_CAT
            else "complex" if target.is_complex else "float")
    types = set(map(type, seq))
    if kind == "int" and seq and types <= {float, bool}:  # floats into an integral dtype: checked vectorised
        arr = np.asarray(seq, dtype=np.float64)
        lo, hi = _INT_RANGES[target]
        ok = not np.isnan(arr).any() and arr.min() >= lo and arr.max() <= hi
        return seq if ok else None
    if not types <= _PLAIN_ROW[kind]:
        return None
    if kind == "int" and seq:
        lo, hi = min(seq), max(seq)
        if lo < _INT64_MIN or hi > _INT64_MAX or _int_overflows(lo, target) or _int_overflows(hi, target):
            return None  # the element-wise path raises the error of the first bad element, as PyTorch does
    return seq


def _leaf_converter(target):
    """``store_scalar`` for ``target``: a function reading one Python leaf (with PyTorch's checks and errors);
    it carries ``.target`` for the fast path over plain rows."""
    conv = _make_leaf_converter(target)
    conv.target = target
    return conv


def _make_leaf_converter(target):
    if target is _dt.bool:
        def to_bool(x):
            return builtins.bool(x) if _is_tensor(x) else x
        return to_bool
    if target is _dt.uint64:
        def to_uint64(x):  # THPUtils_unpackUInt64: PyLong_AsUnsignedLongLong, no float accepted
            if not hasattr(type(x), "__index__"):
                raise TypeError("an integer is required")
            v = operator.index(x)
            if v < 0:
                raise OverflowError("can't convert negative int to unsigned")
            if v > _UINT64_MAX:
                raise OverflowError("int too big to convert")
            return v
        return to_uint64
    if target._cat == _dt.INT_CAT:
        name = target._name

        def to_int(x):
            if isinstance(x, float):  # unpackIntegral: a Python float is range-checked, then truncated
                if _float_overflows(x, target):
                    raise RuntimeError(f"value cannot be converted to type {name} without overflow")
                return x
            v = operator.index(x)  # THPUtils_unpackLong: __index__ ("'complex' object cannot be interpreted ...")
            if not _INT64_MIN <= v <= _INT64_MAX:
                raise ValueError("Overflow when unpacking long long")
            if _int_overflows(v, target):
                raise RuntimeError(f"value cannot be converted to type {name} without overflow")
            return v
        return to_int
    if target.is_complex:
        def to_complex(x):
            return builtins.complex(x) if _is_tensor(x) else x
        return to_complex

    def to_float(x):  # THPUtils_unpackDouble: PyFloat_AsDouble (no range check: 1e300 -> inf)
        if isinstance(x, (float, int)):
            return x
        if isinstance(x, complex) or not (hasattr(type(x), "__float__") or hasattr(type(x), "__index__")):
            raise TypeError(f"must be real number, not {_tp_name(x)}")
        return float(x)
    return to_float


def _store(obj, sizes, dim, conv):
    """``recursive_store``: walk every element depth-first with PyTorch's ragged-data errors."""
    if dim == len(sizes):
        return conv(obj)
    if isinstance(obj, np.ndarray):
        for d, (got, want) in enumerate(zip(obj.shape, sizes[dim:], strict=False)):
            if got != want:
                raise ValueError(f"expected sequence of length {want} at dim {dim + d} (got {got})")
        if obj.ndim != len(sizes) - dim:
            raise TypeError("not a sequence")
        return obj
    if isinstance(obj, (list, tuple)):
        seq = obj
    else:
        try:  # PySequence_Fast: anything iterable (a tensor iterates over its first dim)
            seq = list(obj)
        except TypeError:
            raise TypeError("not a sequence") from None
    n = sizes[dim]
    if len(seq) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
    if dim + 1 == len(sizes):
        plain = _plain_row(seq, conv.target)
        return plain if plain is not None else [conv(x) for x in seq]
    return [_store(x, sizes, dim + 1, conv) for x in seq]


def tensor_impl(data, dtype=None, device=CPU) -> TensorImpl:
    """``torch.tensor(data)``: always a copy, dtype inferred when not given.

    Order of checks is PyTorch's: shape first (``compute_sizes``), then dtype inference, then every
    element is read (``recursive_store``: ragged data, element types and integer overflow).  A tensor
    inside a list is one scalar element, as in PyTorch (a multi-element tensor there is an error).
    """
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if _is_tensor(data):
        target = data._impl.dtype if dtype is None else dtype
        impl = data._impl
        if impl.is_meta:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        # Tensor.to(dtype, copy=True): the copy keeps the source's layout (preserve_format)
        return _fill_from(empty_strided_impl(impl.sizes, strides_like(impl), target, device), impl.values_np())
    sizes = _compute_sizes(data)
    target = infer_dtype(data) if dtype is None else dtype
    if isinstance(data, np.ndarray):  # tensor_from_numpy(...).to(dtype, copy=True): the layout is preserved
        # (negative numpy strides are refused here, with from_numpy's error, as in PyTorch)
        strides = strides_like(from_numpy_impl(data, infer_dtype(data)))
        return _fill_from(empty_strided_impl(sizes, strides, target, device), data)
    plain = _store(data, sizes, 0, _leaf_converter(target))
    try:
        arr = np.asarray(plain, dtype=_source_np(target, plain))
    except OverflowError:
        if target._cat == _dt.INT_CAT:
            raise ValueError("Overflow when unpacking long long") from None
        raise
    if arr.dtype == object:
        raise TypeError(f"Could not convert data of type {type(data).__name__} to a tensor")
    return _fill_from(empty_impl(sizes, target, device), arr.reshape(sizes))


def _fill_from(out: TensorImpl, arr: np.ndarray) -> TensorImpl:
    """Cast ``arr`` into ``out``'s storage (float -> int truncates, complex -> real drops the imaginary part)."""
    if out.storage._data is None:
        return out
    dst = out.as_numpy()
    if np.iscomplexobj(arr) and not out.dtype.is_complex and out.dtype is not _dt.bool:
        _user_warn("Casting complex values to real discards the imaginary part")
    with warnings.catch_warnings(), np.errstate(invalid="ignore", over="ignore"):
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        if out.dtype is _dt.complex32:  # (real, imag) float16 fields: numpy has no complex-half
            arr = np.asarray(arr).astype(np.complex128)
            np.copyto(dst["real"], _copy.cast_ready(arr.real, _F16), casting="unsafe")
            np.copyto(dst["imag"], _copy.cast_ready(arr.imag, _F16), casting="unsafe")
        elif out.dtype in _dt.FLOAT8_DTYPES:  # Note [float8 conversions]
            arr = np.asarray(arr)
            np.copyto(dst, _dt.to_float8(arr.real if np.iscomplexobj(arr) else arr, out.dtype))
        else:
            np.copyto(dst, _copy.cast_ready(np.asarray(arr), dst.dtype), casting="unsafe")
    return out


def _source_np(target, plain):
    """The numpy dtype to parse Python data with before casting (ints stay exact as int64)."""
    if isinstance(plain, np.ndarray):
        return None
    if target.is_complex:
        return np.complex128
    if target.is_floating_point:
        return np.float64
    if target is _dt.bool:
        return np.bool_ if _all_bool(plain) else None
    if target is _dt.uint64:
        return np.uint64
    return np.int64 if target is _dt.int64 or target._cat == _dt.INT_CAT else None


def _all_bool(x):
    if isinstance(x, (list, tuple)):
        return all(_all_bool(i) for i in x)
    return isinstance(x, (bool, np.bool_))


def check_fits(value, dtype, numel=None) -> None:
    """c10's ``Scalar::to<T>()`` check behind ``full``/``fill_``: "value cannot be converted ... without overflow".

    The rules are c10's ``overflows<T>``: integers must fit (an unsigned type also takes negatives down to
    ``-max``), a float into an integer type must be finite and in range, a finite float into a floating
    type must not exceed its max (inf and NaN pass), a complex value into a real type needs a zero
    imaginary part; bool takes anything.  PyTorch's one-element fill of float16/bfloat16 goes through
    double, so ``numel == 1`` there only refuses non-real values (named ``double``).
    """
    if dtype is _dt.bool:
        return
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return
    name = _dt.cpp_type_name(dtype)
    if (dtype in (_dt.float16, _dt.bfloat16) or dtype in _dt.FLOAT8_DTYPES) and numel == 1:
        dtype, name = _dt.float64, "double"
    err = RuntimeError(f"value cannot be converted to type {name} without overflow")
    if isinstance(value, complex):
        if dtype.is_complex:
            if dtype is not _dt.complex128 and (_float_overflows_float(value.real, dtype.to_real())
                                                or _float_overflows_float(value.imag, dtype.to_real())):
                raise err
            return
        if value.imag != 0:
            raise err
        value = value.real
    if dtype._cat == _dt.INT_CAT:
        if isinstance(value, int):
            if _int_overflows(value, dtype):
                raise err
        elif _float_overflows(float(value), dtype):
            raise err
    elif dtype is not _dt.float64 and _float_overflows_float(float(value), dtype.to_real()):
        raise err


def _float_overflows_float(f, dtype) -> bool:
    """c10's ``overflows<T>(double)`` for a floating ``T``: only finite values beyond the max overflow, and an
    infinity where ``T`` has none (float8_e4m3fn and the fnuz types)."""
    if math.isinf(f):
        return dtype in _NO_INFINITY
    return math.isfinite(f) and abs(f) > _dt.finfo(dtype).max


_NO_INFINITY = frozenset(d for d in _dt.FLOAT8_DTYPES if d is not _dt.float8_e5m2)


def full_impl(sizes, value, dtype, device=CPU) -> TensorImpl:
    return _filled(empty_impl(sizes, dtype, device), value)


def like_impl(self: TensorImpl, value, dtype=None, device=None, memory_format=None) -> TensorImpl:
    """``empty_like`` (``value`` None), ``zeros_like``, ``ones_like``, ``full_like`` of ``self``: its sizes, strides
    by ``memory_format`` (preserve_format when None), its dtype and device unless given."""
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else as_device(device)
    strides = _shape.strides_for_format(self.sizes, self.strides, preserve_format if memory_format is None
                                        else memory_format)
    out = empty_strided_impl(self.sizes, strides, dtype, device)
    return out if value is None else _filled(out, value)


def _filled(out: TensorImpl, value) -> TensorImpl:
    check_fits(value, out.dtype, out.numel())
    if out.device.type not in _HOST_FILLED:  # an accelerator fills on its own stream rather than from the host
        return aten.fill__Scalar(out, fill_value_for(value, out.dtype))
    return _copy.fill_(out, fill_value_for(value, out.dtype))


_HOST_FILLED = {"cpu", "meta"}


def fill_value_for(value, dtype):
    """A checked scalar in the form the fill kernel stores silently: a complex value bound for a real dtype has
    a zero imaginary part (check_fits) and is passed as its real part (bool takes it whole: either part makes
    True); a float too large for float16/bfloat16 is rounded to infinity here, as PyTorch's one-element fill
    does."""
    if isinstance(value, complex) and not dtype.is_complex and dtype is not _dt.bool:
        value = value.real
    if dtype in (_dt.float16, _dt.bfloat16) and isinstance(value, float) and math.isfinite(value):
        with np.errstate(over="ignore"):
            value = float(_copy.cast_ready(np.float64(value), dtype.np).astype(dtype.np))
    return value


def _scalar_float(x):
    return x.item() if _is_tensor(x) else x


def _fmt_double(x) -> str:
    """A double as C++ ``operator<<`` prints it (six significant digits)."""
    return f"{float(x):g}"


def arange_impl(start, end, step, dtype, device=CPU) -> TensorImpl:
    """``arange`` (``RangeFactories.cpp`` + ``RangeUtils.h``).

    Checks in double: step nonzero, finite bounds, step sign.  Length: for int64 the bounds and step are
    first truncated to int64 and the length is an exact ceiling division; for every other dtype it is
    ``ceil((end - start) / step)`` in double.  Values are ``start + i * step`` in the accumulate type
    (int64 for integral dtypes, so a fractional start/step is truncated first; double for floats).
    """
    start, end, step = (_scalar_float(v) for v in (start, end, step))
    if dtype is _dt.bool or dtype.is_complex or _dt.is_barebones(dtype):
        raise not_implemented("arange_cpu", dtype)
    for v in (start, end, step):
        check_fits(v, _dt.float64)  # Scalar::to<double>: a complex value with an imaginary part fails
    start, end, step = (v.real if isinstance(v, complex) else v for v in (start, end, step))
    fstart, fend, fstep = float(start), float(end), float(step)
    if fstep == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(fstart) and math.isfinite(fend)):
        raise RuntimeError(f"unsupported range: {_fmt_double(fstart)} -> {_fmt_double(fend)}")
    if not ((fstep > 0 and fend >= fstart) or (fstep < 0 and fend <= fstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    integral = dtype._cat == _dt.INT_CAT
    if integral:
        for v in (start, end, step):
            check_fits(v, _dt.int64)  # the accumulate type of every integral dtype is int64
        istart, iend, istep = (builtins.int(v) for v in (start, end, step))  # truncation toward zero
    if dtype is _dt.int64:
        if istep == 0:
            raise ValueError("step must be nonzero")
        n = -((istart - iend) // istep)  # exact ceil((end - start) / step)
    else:
        n = math.ceil((float(end) - float(start)) / float(step))
    n = max(builtins.int(n), 0)
    out = empty_impl((n,), dtype, device)
    if out.storage._data is not None and n:
        if integral:
            vals = istart + istep * np.arange(n, dtype=np.int64)
        else:
            vals = _arange_float_values(fstart, fstep, n, dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            np.copyto(out.as_numpy(), vals, casting="unsafe")
    return out


# How PyTorch's CPU range kernels round, reproduced so that values match bit for bit:
# * cpu_serial_kernel_vec fills a contiguous output two SIMD vectors at a time and the tail one element at a
#   time.  A vector computes its first value ``base`` with the element formula (rounded to the dtype) and the
#   rest as ``base + k * step``.  Widths are AVX2's (32-byte registers), PyTorch's default CPU capability.
# * at::parallel_for splits outputs longer than one grain (32768 elements) into ``min(ceil(n / grain),
#   threads)`` equal chunks (threads: the CPUs this process may use, PyTorch's default); each chunk starts
#   its own vector loop.
# * The kernels are compiled with floating-point contraction: ``a + b * c`` in float or double is one fused
#   multiply-add (a single rounding).  float16/bfloat16 arithmetic rounds after every operation instead.
_VEC_BYTES = 32


_GRAIN_SIZE = 32768


def _vector_layout(n: int, dtype):
    """For each index: the index its SIMD vector starts at, and its offset ``k`` inside that vector."""
    width = max(_VEC_BYTES // dtype.itemsize, 1)
    idx = np.arange(n, dtype=np.int64)
    tasks = max(min(-(-n // _GRAIN_SIZE), get_num_threads()), 1) if n > _GRAIN_SIZE else 1
    chunk = max(-(-n // tasks), 1)
    begin = (idx // chunk) * chunk
    length = np.minimum(begin + chunk, n) - begin
    local = idx - begin
    vectorised = (length // (2 * width)) * 2 * width
    start = np.where(local < vectorised, begin + (local // width) * width, idx)
    return start, idx - start


_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter for doubles


def _fma(a, b, c) -> np.ndarray:
    """``a * b + c`` with one rounding, in float64 (error-free product and sum; Dekker / Knuth)."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    with np.errstate(over="ignore", invalid="ignore"):
        p = a * b
        ta, tb = _SPLIT * a, _SPLIT * b
        a_hi, b_hi = ta - (ta - a), tb - (tb - b)
        a_lo, b_lo = a - a_hi, b - b_hi
        e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
        s = p + c
        bb = s - p
        t = (p - (s - bb)) + (c - bb)
        out = s + (t + e)
        return np.where(np.isfinite(out), out, p + c)


def _arange_float_values(start: float, step: float, n: int, dtype) -> np.ndarray:
    """``arange`` values as the kernel computes them, before the final cast to ``dtype``.

    The accumulate type is double (float for float16/bfloat16): an element is ``fma(step, i, start)``; in a
    vector ``fma(k, step, base)``, except bfloat16 vectors, which round ``k * step`` first.
    """
    base_idx, k = _vector_layout(n, dtype)
    if dtype in (_dt.float16, _dt.bfloat16):
        f32 = np.float32
        s, st = float(f32(start)), float(f32(step))
        base = _fma(st, base_idx, s).astype(f32).astype(dtype.np).astype(np.float64)
        if dtype is _dt.bfloat16:
            return (base + (k * st).astype(f32).astype(np.float64)).astype(f32)
        return _fma(k, st, base).astype(f32)
    base = _fma(step, base_idx, start)
    if dtype is _dt.float32:
        base = base.astype(np.float32).astype(np.float64)
    return _fma(k, step, base)


def _range_kernel_types(dtype):
    """LinspaceKernel's types: integral dtypes step in double; floats step in their own precision."""
    if dtype._cat <= _dt.INT_CAT:
        return np.float64
    return dtype.np.type


def _two_sided(start, end, steps, dtype, fused=True):
    """linspace_kernel: ``start + step*i`` below ``steps // 2``, ``end - step*(steps-1-i)`` from there on.

    ``start``/``end`` are first converted to the dtype; the step is computed in the dtype's own precision for
    floats and in double for integral dtypes.  float32, float64 and integral dtypes evaluate each formula as
    one fused multiply-add (every element on its own, also in the SIMD loop); float16, bfloat16 and complex
    round after every operation.  ``fused=False`` (logspace's kernel) rounds every operation for all dtypes.
    Returns the values in the step type and that type.
    """
    st = _range_kernel_types(dtype)
    fused = fused and st in (np.float64, np.float32, np.complex64, np.complex128)
    with np.errstate(over="ignore", invalid="ignore"):
        s0 = _copy.cast_ready(np.asarray(start), dtype.np).astype(dtype.np).astype(st)
        s1 = _copy.cast_ready(np.asarray(end), dtype.np).astype(dtype.np).astype(st)
        if dtype.is_complex and fused:  # linspace divides each part; logspace divides as complex numbers
            diff = (s1 - s0).astype(st)
            real = dtype.to_real().np
            step = ((diff.real / real.type(steps - 1)).astype(real)
                    + 1j * (diff.imag / real.type(steps - 1)).astype(real)).astype(st)
        else:
            step = ((s1 - s0) / st(steps - 1)).astype(st)
        idx = np.arange(steps)
        up = idx < steps // 2
        if fused and dtype.is_complex:  # complex * integer and + are component-wise fused multiply-adds
            real = dtype.to_real().np

            def part(get):
                return np.where(up, _fma(get(step), idx, get(s0)), _fma(-get(step), steps - 1 - idx, get(s1)))
            vals = part(np.real).astype(real) + 1j * part(np.imag).astype(real)
        elif fused:
            vals = np.where(up, _fma(step, idx, s0), _fma(-step, steps - 1 - idx, s1))
        else:
            lo = (s0 + (step * idx.astype(st)).astype(st)).astype(st)
            hi = (s1 - (step * (steps - 1 - idx).astype(st)).astype(st)).astype(st)
            vals = np.where(up, lo, hi)
        return vals.astype(st), st


def _check_endpoints(start, end, dtype):
    if dtype is _dt.bool:
        return
    check_fits(start, dtype)  # Scalar::to<scalar_t>
    check_fits(end, dtype)


def linspace_impl(start, end, steps, dtype, device=CPU) -> TensorImpl:
    """``linspace``: the first half counts up from ``start``, the second half down from ``end``.

    As PyTorch's CPU kernel (scalar path): ``start``/``end`` are converted to the dtype first; the step
    is computed in double for integral dtypes (values truncated) and in the dtype itself for floats.
    """
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is _dt.bool:
        raise not_implemented("linspace_cpu", dtype)
    start, end = _scalar_float(start), _scalar_float(end)
    _check_endpoints(start, end, dtype)
    out = empty_impl((steps,), dtype, device)
    if out.storage._data is None or steps == 0:
        return out
    if steps == 1:
        return _copy.fill_(out, start)
    vals, _ = _two_sided(start, end, steps, dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        np.copyto(out.as_numpy(), vals, casting="unsafe")
    return out


def logspace_impl(start, end, steps, base, dtype, device=CPU) -> TensorImpl:
    """``logspace``: ``base ** linspace(start, end, steps)`` with the exponent made as linspace makes it;
    the power is taken in the same type as the step (double for integral dtypes)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is _dt.bool:
        raise not_implemented("logspace_cpu", dtype)
    start, end = _scalar_float(start), _scalar_float(end)
    _check_endpoints(start, end, dtype)
    out = empty_impl((steps,), dtype, device)
    if out.storage._data is None or steps == 0:
        return out
    if steps == 1:
        return _copy.fill_(out, float(base) ** float(start.real if isinstance(start, complex) else start))
    exps, st = _two_sided(start, end, steps, dtype, fused=False)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        vals = np.power(st(base), exps).astype(st)
        np.copyto(out.as_numpy(), vals, casting="unsafe")
    return out


def eye_impl(n, m, dtype, device=CPU) -> TensorImpl:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    out = full_impl((n, m), 0, dtype, device)
    if out.storage._data is not None:
        np.fill_diagonal(out.as_numpy(), 1)
    return out


def numpy_impl(arr: np.ndarray) -> TensorImpl:
    """``from_numpy``: share the array's memory."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    dtype = _dt.from_numpy_dtype(arr.dtype)
    if not arr.flags.writeable:
        _user_warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                   "This means writing to this tensor will result in undefined behavior. You may want to copy "
                   "the array to protect its data or make it writable before converting it to a tensor. This "
                   "type of warning will be suppressed for the rest of this program.")
    impl = from_numpy_impl(arr, dtype)
    impl.storage.resizable = False  # numpy owns the buffer (PyTorch's from_numpy storage is not resizable)
    return impl


def strides_like(impl: TensorImpl) -> tuple:
    """Strides ``preserve_format`` gives a new tensor like ``impl`` (PyTorch's empty_like rule)."""
    return _shape.strides_for_format(impl.sizes, impl.strides, None)
