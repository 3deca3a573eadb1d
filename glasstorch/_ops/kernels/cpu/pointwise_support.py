"""Shared pieces of the pointwise CPU kernels (``pointwise.py``): the kernel templates ``unary``, ``binary`` and
``comparison``, the opmath and scratch-buffer helpers, the exact fused multiply-add emulation (Note [Exact fma])
and the float64 ``erf``/``erfc``/``erfinv`` that numpy lacks.  The numerics they implement are described in
``pointwise.py``'s docstring; this module holds no kernel that ``native_functions/*.yaml`` names.
"""

from __future__ import annotations

import math

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl
from ...tensor_iterator import build, fast_operands, fp_ignore, fp_restore, resize_out, scalar_np
from . import ckernels as _ck
from .copy import cast_ready, cast_routed, chalf_values, store_chalf
from .dispatch_types import Dispatch, not_implemented

__all__ = ["unary", "unary_complex_to_float", "binary", "comparison", "ufunc_into", "cast_outputs"]

_BOOL_NP = np.dtype(np.bool_)
_F32, _F16, _BF16 = _dt.float32, _dt.float16, _dt.bfloat16
_F64_NP = np.dtype(np.float64)

# c10::TypeMeta names, which some PyTorch messages print instead of ScalarType names
_TYPEMETA = {
    _dt.float32: "float", _dt.float64: "double", _dt.float16: "c10::Half", _dt.bfloat16: "c10::BFloat16",
    _dt.int64: "long int", _dt.int32: "int", _dt.int16: "short int", _dt.int8: "signed char",
    _dt.uint8: "unsigned char", _dt.bool: "bool", _dt.complex64: "c10::complex<float>",
    _dt.complex128: "c10::complex<double>", _dt.complex32: "c10::complex<c10::Half>",
}


# -- shared helpers ----------------------------------------------------------------------------------------
def _opmath(dt):
    """PyTorch's ``opmath_type``: float16 and bfloat16 compute in float32."""
    return _F32 if dt is _F16 or dt is _BF16 else dt


_not_implemented = not_implemented  # the name the kernels of this family use


def _is_float(dt) -> bool:
    return dt._cat == _dt.FLOAT_CAT


def _is_integral(dt) -> bool:
    return dt._cat == _dt.INT_CAT


def _integral_or_bool(dt) -> bool:
    return dt._cat <= _dt.INT_CAT


class _quiet:  # noqa: N801 - used like np.errstate
    """numpy's floating-point warnings off: PyTorch computes ``log(-1)`` or ``1/0`` silently (a cheap
    ``np.errstate(all="ignore")``, see Note [Quiet numpy] in tensor_iterator.py)."""

    __slots__ = ("_token",)

    def __enter__(self):
        self._token = fp_ignore()

    def __exit__(self, *exc):
        fp_restore(self._token)


def _fmt_double(x) -> str:
    """A double as C++ ``ostream <<`` prints it (six significant digits)."""
    return f"{x:g}"


# Note [complex32 kernels]
# numpy has no complex-half type: a complex32 tensor's array has two float16 fields (``real``, ``imag``).  The few
# kernels PyTorch compiles for ComplexHalf (add, sub, mul, eq, ne) run here in complex64, its opmath type, on operands
# first rounded to complex<Half> (TensorIterator's cast to the common dtype), and store the parts rounded to half.
_C32 = _dt.complex32
_C64_NP = np.dtype(np.complex64)


def _chalf_operand(x):
    """An operand of a complex32 computation: complex64 values that are complex<Half> values."""
    x = np.asarray(x)
    if x.dtype.names:  # complex32 storage
        return chalf_values(x)
    r = np.empty(x.shape, _C64_NP)
    np.copyto(r, x, casting="unsafe")
    r.real, r.imag = r.real.astype(np.float16), r.imag.astype(np.float16)
    return r


def _chalf_store(out, r) -> None:
    """A complex64 result into complex32 ``out``, or into a given ``out=`` of another dtype through complex<Half>."""
    if out.dtype.names:
        store_chalf(out, r)
    else:
        np.copyto(out, _chalf_operand(r), casting="unsafe")


def _chalf_into(fn, a, b, out) -> None:
    """``fn(a, b)`` of a complex32 kernel into ``out`` (Note [complex32 kernels])."""
    token = fp_ignore()
    try:
        _chalf_store(out, fn(_chalf_operand(a), _chalf_operand(b)))
    finally:
        fp_restore(token)


def _chalf_unary(fn, ufunc, x, out) -> None:
    """A unary kernel (a ufunc, or ``fn(x, out, dtype)``) on complex32 ``x`` into ``out``, in complex64."""
    token = fp_ignore()
    try:
        z = _chalf_operand(x)
        r = np.empty(z.shape, _C64_NP)
        if ufunc:
            fn(z, out=r)
        else:
            fn(z, r, _dt.complex64)
        _chalf_store(out, r)
    finally:
        fp_restore(token)


def _chalf_comparison(ufunc, it) -> None:
    """A comparison on complex32 operands (their complex64 values), or into a complex32 ``out=``."""
    a, b = it.ins_np
    token = fp_ignore()
    try:
        if it.common_dtype is _C32:
            r = ufunc(_chalf_operand(a), _chalf_operand(b))
        else:
            c = it.common_dtype.np
            r = ufunc(a, b, signature=(c, c, _BOOL_NP), casting="unsafe")
        if it.out_np.dtype.names:
            _chalf_store(it.out_np, r)
        else:
            np.copyto(it.out_np, r, casting="unsafe")
    finally:
        fp_restore(token)


def _check_nonzero(b, out) -> None:
    """Integer division by zero raises (PyTorch's ``ZeroDivisionError`` RuntimeError) -- when some element is
    computed at all: every divisor element reaches a non-empty broadcast output."""
    if out.size and ((b == 0) if np.ndim(b) == 0 else not np.all(b)):
        raise RuntimeError("ZeroDivisionError")


# c10's names of the C++ types a Scalar converts to (``value cannot be converted to type ... without overflow``)
_CTYPE = {
    _dt.float32: "float", _dt.float64: "double", _dt.float16: "c10::Half", _dt.bfloat16: "c10::BFloat16",
    _dt.int64: "int64_t", _dt.int32: "int", _dt.int16: "int16_t", _dt.int8: "int8_t", _dt.uint8: "uint8_t",
    _dt.bool: "bool",
}


def _checked_scalar(value, dt):
    """``Scalar::to<T>()``: the value as a numpy scalar of ``dt``, with c10's overflow check (floats may be
    inf/NaN but not out of range; a float cannot go to an integer outside its range; an integer may wrap
    into an unsigned type from the negative side)."""
    if dt is _dt.bool or dt.is_complex:
        return scalar_np(value, dt)
    bad = False
    if isinstance(value, complex):
        bad, value = value.imag != 0, value.real
    if not bad and not isinstance(value, bool):
        if _is_float(dt):
            bad = math.isfinite(value) and abs(value) > _dt.finfo(dt).max
        elif isinstance(value, float):
            info = _dt.iinfo(dt)
            bad = not (info.min <= value <= info.max)
        else:
            info = _dt.iinfo(dt)
            bad = value > info.max or (value < 0 and (-value > info.max if info.min == 0 else value < info.min))
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_CTYPE[dt]} without overflow")
    return scalar_np(value, dt)


def _scratch(out, c, *later_inputs):
    """Where a multi-step formula accumulates in compute dtype ``c``: ``out`` itself when it has that dtype
    and does not share memory with an input the formula still reads, else a new array."""
    if out.dtype == c and not any(isinstance(x, np.ndarray) and np.may_share_memory(out, x) for x in later_inputs):
        return out
    return np.empty(out.shape, c)


def _finish(out, buf) -> None:
    if buf is not out:
        np.copyto(out, buf, casting="unsafe")


def _fma(x, y, z, c):
    """``x * y + z`` rounded once to ``c``, as the fused multiply-add of PyTorch's vectorized kernels
    (add with alpha, lerp, addcmul): float32 goes through float64 (the product is exact there), float64
    through :func:`_fma64` (exact); integers wrap as usual.  Operands must already be values of ``c``."""
    if c == np.float32:
        wide = _F64_NP
    elif c == np.float64:
        return _fma64(x, y, z)
    else:
        return np.add(np.multiply(x, y, dtype=c, casting="unsafe"), z, dtype=c, casting="unsafe")
    r = np.multiply(x, y, dtype=wide, casting="unsafe")
    if isinstance(r, np.ndarray) and r.shape == np.broadcast_shapes(r.shape, np.shape(z)):
        np.add(r, z, out=r, dtype=wide, casting="unsafe")
        return r
    return np.asarray(np.add(r, z, dtype=wide, casting="unsafe"))


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter for float64


def _two_sum(a, b):
    """a + b = s + e exactly (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fma64(x, y, z):
    """float64 ``x * y + z`` with one rounding, from float64 operations only (Note [Exact fma]).

    Note [Exact fma]: numpy has no fused multiply-add, and long double (64-bit mantissa on x86) rounds the
    106-bit product and then the sum, so about one result in a few thousand is an ulp off PyTorch's hardware
    fma.  Boldo and Melquiond's emulation is exact: the product as an unevaluated sum (Dekker's TwoProduct
    with Veltkamp's split), TwoSum with z, the two low parts added with rounding to odd (round to nearest,
    then step to the odd neighbour towards the exact value when inexact), and one final round to nearest.
    Huge operands (where the split would overflow) are scaled by powers of two first, which is exact; where
    an operand is not finite the plain long-double result stands."""
    x, y, z = np.broadcast_arrays(np.asarray(x, _F64_NP), np.asarray(y, _F64_NP), np.asarray(z, _F64_NP))
    big = (np.abs(x) > _BIG) | (np.abs(y) > _BIG)
    if not big.any():
        return _fma64_core(x, y, z)
    r = _fma64_core(x, y, z)
    sx = np.where(np.abs(x) > _BIG, _DOWN, 1.0)[big]
    sy = np.where(np.abs(y) > _BIG, _DOWN, 1.0)[big]
    with np.errstate(over="ignore", under="ignore"):
        r[big] = _fma64_core(x[big] * sx, y[big] * sy, z[big] * (sx * sy)) / (sx * sy)
    return r


_BIG = 2.0 ** 480  # beyond this the split or the partial products may overflow
_DOWN = 2.0 ** -540


def _fma64_core(x, y, z):
    with np.errstate(over="ignore", invalid="ignore"):
        p = x * y
        t = _SPLIT * x
        xh = t - (t - x)
        xl = x - xh
        t = _SPLIT * y
        yh = t - (t - y)
        yl = y - yh
        pl = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
        th, tl = _two_sum(z, p)
        v, ev = _two_sum(tl, pl)
        even = (v.view(np.int64) & 1) == 0
        v = np.where((ev != 0) & even, np.nextafter(v, np.copysign(np.inf, ev)), v)
        r = th + v
        bad = ~np.isfinite(r)
        if bad.any():
            plain = np.add(np.multiply(x, y, dtype=np.longdouble), z, dtype=np.longdouble).astype(_F64_NP)
            r = np.where(bad, plain, r)
    return r


def _store_rounded(out, r, c) -> None:
    """Store a wide (``_fma``) result: rounded to ``c`` first when ``out`` is narrower still (float32 opmath
    results of float16/bfloat16 are rounded twice in PyTorch too)."""
    if r.dtype != c and out.dtype != c:
        r = r.astype(c)
    np.copyto(out, r, casting="unsafe")


def _fma_into(out, x, y, z, c) -> None:
    _store_rounded(out, _fma(x, y, z, c), c)


def _cast_scratch(out, c):
    """Where a kernel computing in ``c`` writes: ``out`` itself, or a ``c`` buffer when ``out`` has a dtype that
    c10 reaches from ``c`` by another route than numpy's direct cast (Note [c10 casts] in copy.py: a double
    bound for float16 or bfloat16 goes through float)."""
    if cast_routed(c, out.dtype):
        return np.empty(out.shape, c)
    return out


def _cast_back(out, buf) -> None:
    if buf is not out:
        np.copyto(out, cast_ready(buf, out.dtype), casting="unsafe")


def cast_outputs(it):
    """TensorIterator's ``cast_outputs()``: a result computed in the common dtype goes into the given output of
    another dtype (Note [Cast outputs] in tensor_iterator.py), with c10's conversions.  Returns ``it.out``."""
    if it.cast_out is not None:
        token = fp_ignore()
        try:
            if it.cast_out.dtype.names:  # into complex32 storage
                store_chalf(it.cast_out, it.out_np)
            else:
                _cast_back(it.cast_out, it.out_np)
        finally:
            fp_restore(token)
    return it.out


# -- templates ---------------------------------------------------------------------------------------------
def unary(fn, *, name, float_op=False, dispatch=None, ufunc=True, c=None):
    """A structured unary kernel ``kernel(self, out)``.

    ``float_op``: integer and bool inputs promote to the default float, and ``out`` may be any dtype the
    result can be cast to (``build_borrowing_unary_float_op``); otherwise ``out`` must have the input's
    dtype (``build_borrowing_unary_op``).  ``dispatch`` is the kernel's dtype table (Note [Kernel dtype
    tables]), by default every dtype but complex32 under the name ``<name>_cpu``; a table listing complex32 runs
    ``fn`` in complex64 (Note [complex32 kernels]).  ``c`` names the compiled loop (``ckernels.UNARY``) tried
    first for float32/float64.
    """
    if dispatch is None:
        dispatch = Dispatch(f"{name}_cpu")
    dtypes, refuses_complex = dispatch.dtypes, dispatch.complex_error is not None  # read once: the per-call path

    def kernel(self, out=None):
        if refuses_complex:
            dispatch.check_operands((self,))
        it = build((out,), (self,), int_to_float=float_op, check_same_dtype=out is not None and not float_op,
                   cast_outputs=True)
        if not it.is_meta:
            dt = it.common_dtype
            if dt not in dtypes:
                dispatch.check(dt)
            x = it.ins_np[0]
            if dt is _C32:
                _chalf_unary(fn, ufunc, x, it.out_np if it.cast_out is None else it.cast_out)
                return it.out
            if c is not None and _ck.unary(c, x, it.out_np):
                return cast_outputs(it)
            if dt is _BF16 and x.dtype != dt.np:  # ml_dtypes loops take no casts from other integer widths
                x = _in_dtype(x, dt)
            o = _cast_scratch(it.out_np, dt.np)
            token = fp_ignore()
            try:
                if not ufunc:
                    fn(x, o, dt)
                elif x.dtype == dt.np and o.dtype == x.dtype:
                    fn(x, out=o)
                else:
                    fn(x, out=o, dtype=dt.np, casting="unsafe")
            finally:
                fp_restore(token)
            _cast_back(it.out_np, o)
            cast_outputs(it)
        return it.out

    kernel.__qualname__ = kernel.__name__ = f"{name}_out"
    return kernel


def _in_dtype(x, dt):
    """An operand cast to the common dtype, as TensorIterator does before a reduced-float kernel widens it
    to float32 (only arrays of another dtype need it; scalars from the iterator already have ``dt``).
    float64 reaches float16/bfloat16 through float32, as ``c10::Half(float)`` does."""
    if not isinstance(x, np.ndarray) or x.dtype == dt.np:
        return x
    if x.dtype == _F64_NP and _opmath(dt) is not dt:
        x = x.astype(np.float32)
    return x.astype(dt.np)


def _operands(self, other, a, b, dt, scalar_opmath):
    """numpy operands for a computation in ``opmath(dt)``.

    For float16/bfloat16 the operands are first cast to ``dt`` (TensorIterator's common-dtype cast), except
    a one-element second operand of add/sub/mul/div (``scalar_opmath``), which PyTorch's reduced-float
    fast path reads at full precision (``iter.original_scalar_value<opmath_t>``).
    """
    c = _opmath(dt)
    if c is dt:
        return a, b, c
    a = _in_dtype(a, dt)
    if scalar_opmath and type(other) is not TensorImpl:
        b = scalar_np(other, c)
    elif not (scalar_opmath and other.numel() == 1):
        b = _in_dtype(b, dt)
    return a, b, c


def binary(fn, *, name, float_op=False, dispatch=None, ufunc=True, nonzero=False, scalar_opmath=False, c=None):
    """A structured binary kernel ``kernel(self, other, out)``; either operand may be a Python scalar.

    ``float_op``: integer/bool common dtypes promote to the default float (``build_borrowing_binary_float_op``).
    ``nonzero``: integer division by zero raises.  ``fn`` is a numpy ufunc, or ``fn(a, b, out, dtype)``.
    ``dispatch``: the kernel's dtype table (Note [Kernel dtype tables]), by default every dtype but complex32
    under the name ``<name>_cpu``.  ``c`` names the compiled loop (``ckernels.BINARY``) tried first for
    float32/float64.
    """
    if dispatch is None:
        dispatch = Dispatch(f"{name}_cpu")
    dtypes, refuses_complex = dispatch.dtypes, dispatch.complex_error is not None

    def kernel(self, other, out=None):
        if refuses_complex:
            dispatch.check_operands((self, other))
        # a given out (in place too) that needs no broadcast, cast or resize skips the iterator object
        ops = fast_operands(out, (self, other), True, float_op) if out is not None else None
        if ops is None:
            it = build((out,), (self, other), int_to_float=float_op, cast_outputs=True)
            if it.is_meta:
                return it.out
            result, dt, o = it.out, it.common_dtype, it.out_np
            a, b = it.ins_np
        else:
            result, dt = out, out.dtype
            o, a, b = ops
        if dt not in dtypes:
            dispatch.check_binary(dt, other)
        if dt is _C32:  # straight into a given out= of another dtype (numpy cannot cast complex32)
            _chalf_into(fn, a, b, o if ops is not None or it.cast_out is None else it.cast_out)
            return result
        if c is not None and _ck.binary(c, a, b, o):
            return result if ops is not None else cast_outputs(it)
        if nonzero and dt._cat <= _dt.INT_CAT:
            _check_nonzero(b, o)
        reduced = dt is _F16 or dt is _BF16
        buf = o if ops is not None else _cast_scratch(o, (_F32 if reduced else dt).np)
        token = fp_ignore()
        try:
            if not ufunc:
                fn(a, b, buf, dt)
            elif reduced:
                a, b, cd = _operands(self, other, a, b, dt, scalar_opmath)
                ufunc_into(fn, a, b, buf, cd, dt, ops is not None)
            else:
                ufunc_into(fn, a, b, buf, dt, dt, ops is not None)
        finally:
            fp_restore(token)
        if buf is not o:
            _cast_back(o, buf)
        return result if ops is not None else cast_outputs(it)

    kernel.__qualname__ = kernel.__name__ = f"{name}_out"
    return kernel


def ufunc_into(fn, a, b, buf, cd, dt, given: bool) -> None:
    """``fn(a, b)`` into ``buf`` computed in ``cd``: one dtype throughout (a given output, ``cd`` the result
    dtype ``dt``) calls numpy without ``dtype=``/``casting=``, which resolves its loop faster."""
    if given and cd is dt:
        fn(a, b, out=buf)
    else:
        fn(a, b, out=buf, dtype=cd.np, casting="unsafe")


# Note [numpy negative on strided operands]
# numpy 2.4's ``negative`` loop (Highway SIMD) reads the wrong elements when its input steps by 16 bytes (4-byte
# dtypes) or 64 bytes (8-byte dtypes) and its output is not unit-stride: ``b[::4].neg_()`` on float32 or int32
# wrote b[0], b[1], b[2] negated into b[0], b[4], b[8].  Every other unary and binary ufunc was checked on such
# layouts (tests/test_strided_inplace.py sweeps the ops).  A non-contiguous output therefore takes the result
# of a fresh, contiguous output (a layout numpy computes correctly) and a copy.
def negative(x, out, **kw) -> None:
    """``np.negative(x, out=out, **kw)`` for every layout (Note [numpy negative on strided operands])."""
    if out.flags.c_contiguous or out.flags.f_contiguous:
        np.negative(x, out=out, **kw)
    else:
        np.copyto(out, np.negative(x, **kw), casting="unsafe")


def comparison(ufunc, *, name, dispatch=None):
    """A structured comparison/logical kernel: inputs promote to their common dtype; a new output is bool,
    a given ``out`` may have any dtype (PyTorch's ``build_borrowing_comparison_op``).  ``dispatch`` as for
    :func:`binary`."""
    if dispatch is None:
        dispatch = Dispatch(f"{name}_cpu")
    dtypes = dispatch.dtypes

    def kernel(self, other, out=None):
        it = build((out,), (self, other), static_dtype=_dt.bool)
        if not it.is_meta:
            if it.common_dtype not in dtypes:
                dispatch.check(it.common_dtype)
            if it.common_dtype is _C32 or it.out_np.dtype.names:  # complex32 operands, or a complex32 out=
                _chalf_comparison(ufunc, it)
                return it.out
            c = it.common_dtype.np
            token = fp_ignore()
            try:
                ufunc(it.ins_np[0], it.ins_np[1], out=it.out_np, signature=(c, c, _BOOL_NP), casting="unsafe")
            finally:
                fp_restore(token)
        return it.out

    kernel.__qualname__ = kernel.__name__ = f"{name}_out"
    return kernel



# -- erf, erfc, erfinv in float64 (no numpy ufunc) --------------------------------------------------------
_SQRT_PI = math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2.0 / _SQRT_PI
_ERF_SERIES = tuple((-1) ** n / (math.factorial(n) * (2 * n + 1)) * _TWO_OVER_SQRT_PI for n in range(48))


def _erf_series(x):
    x2 = x * x
    acc = np.full_like(x, _ERF_SERIES[-1])
    for coef in _ERF_SERIES[-2::-1]:
        acc *= x2
        acc += coef
    return acc * x


def _erfc_cf(x, depth):
    t = x.copy()
    for k in range(depth, 0, -1):
        t = x + (0.5 * k) / t
    return np.exp(-x * x) / (_SQRT_PI * t)


def _erf64(x):
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    a = np.abs(x)
    near = a < 2.5  # NaN goes to the far branch and stays NaN
    out[near] = _erf_series(x[near])
    far = ~near
    out[far] = np.copysign(1.0 - _erfc_cf(a[far], 40), x[far])
    return out


def _erfc64(x):
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    near = x < 1.5  # 1 - erf(x) loses no significant digits here
    out[near] = 1.0 - _erf64(x[near])
    far = ~near
    out[far] = _erfc_cf(x[far], 80)
    return out


def _erfinv64(y):
    """Winitzki's closed-form estimate, then three Halley steps on erf(x) = |y| (on erfc(x) = 1 - |y| in the
    tails, where 1 - |y| is exact and erf's derivative is tiny)."""
    y = np.asarray(y, dtype=np.float64)
    a = np.abs(y)
    ln = np.log1p(-a * a)
    k = 0.147
    c = 2.0 / (math.pi * k) + 0.5 * ln
    x = np.sqrt(np.sqrt(c * c - ln / k) - c)
    tail = a > 0.5
    comp = 1.0 - a
    for _ in range(3):
        f = np.where(tail, comp - _erfc64(x), _erf64(x) - a)
        deriv = _TWO_OVER_SQRT_PI * np.exp(-x * x)
        x = x - f / (deriv + x * f)  # Halley: f'' = -2x f'
    x = np.where(a == 1, np.inf, x)
    x = np.where(a > 1, np.nan, x)
    return np.copysign(x, y)


def _special(fn64):
    def fn(x, out, dt):
        res = fn64(x)
        if _opmath(dt) is not dt:  # PyTorch computes float16/bfloat16 in float and rounds that
            res = res.astype(np.float32)
        np.copyto(out, res, casting="unsafe")
    return fn


def unary_complex_to_float(self: TensorImpl, out, fn) -> TensorImpl:
    """A unary op of a complex tensor whose result has its real dtype (PyTorch's
    ``unary_op_impl_with_complex_to_float``: abs, angle): a new result laid out as the input, or any ``out`` the
    real type casts to (resized row-major; a complex ``out`` gets ``value + 0j`` through the iterator).
    ``fn(x, out_np)`` writes the values."""
    real = self.dtype.to_real()
    if out is not None and not out.dtype.is_complex:  # the real part of a complex result is copied into out
        if not _dt.can_cast(real, out.dtype):
            raise RuntimeError(f"result type {_dt.name_of(real)} can't be cast to the desired output type "
                               f"{_dt.name_of(out.dtype)}")
        resize_out(out, self.sizes)
    it = build((out,), (self,), static_dtype=real if out is None else out.dtype)
    if not it.is_meta:
        fn(it.ins_np[0], it.out_np)
    return it.out
