"""Pointwise CPU kernels — PyTorch's ``BinaryOps.cpp``, ``UnaryOps.cpp``, the comparisons of ``TensorCompare.cpp``
and their ``cpu/*Kernel.cpp``.  The three-operand ops (clamp, ``where``, ``lerp``, ``addcmul``/``addcdiv``) are in
``pointwise_ternary.py``; the templates and numeric helpers both build on are in ``pointwise_support.py``.

Every kernel is *structured*: it takes its ``out`` argument (None to allocate) last, lets
TensorIterator check, promote and allocate, and then runs numpy ufuncs with ``dtype=`` the computation
dtype (numpy casts inside its loop, so mixed-dtype inputs are not copied first).  The same function
serves the Meta key: on meta operands the iterator returns before any data is touched, which is how
structured kernels get meta support for free in PyTorch.  Checks PyTorch makes in its *meta* functions
(``-bool``, integer ** negative, ``addcdiv`` on integers ...) run on meta too, except the complex refusals
(``sign``, ``floor``, ``maximum`` ...), which torch's meta device does not make; the "not implemented for 'Bool'"
errors of PyTorch's dtype dispatch run only when there is data.  Both come from each kernel's dtype table, a
``Dispatch`` (Note [Kernel dtype tables] in ``dispatch_types.py``), checked before numpy sees an operand;
complex32 runs in complex64 where a table lists it (Note [complex32 kernels]).
``binary`` and add/sub take
``fast_operands`` first for a given ``out`` (in place too) that needs no broadcast, cast or resize: no
iterator object, and one dtype throughout, so numpy is called without ``dtype=``/``casting=``.

Templates (``pointwise_support.py``): ``unary``, ``binary`` and ``comparison`` build kernels from a numpy ufunc
(or a function ``fn(x, out, dtype)`` / ``fn(a, b, out, dtype)``); the names below are what
``native_functions/*.yaml`` ``dispatch:`` entries refer to.

Numerics (PyTorch's CPU kernels, checked bit for bit against torch where the algorithm is not libm's):

- float16/bfloat16 compute in float32 and round once (``opmath``).  numpy's and ml_dtypes' reduced-float
  loops already do so for single ufuncs; multi-step formulas (``rsqrt``, ``sigmoid``, ``lerp``,
  ``addcmul`` ...) run in float32 explicitly.  Operands are first cast to the common dtype, except that
  mul/div read a one-element second operand at full precision (``original_scalar_value<opmath_t>``).
  A few kernels round every step to the reduced dtype, as PyTorch's scalar code does: ``xlogy``,
  ``div(rounding_mode='trunc')`` and ``floor_divide``.
- add/sub with ``alpha``, ``lerp`` and ``addcmul`` are one fused multiply-add (vectorized ``fmadd``):
  emulated in float64 for float32 and in long double for float64.
- Integer division, ``remainder`` and ``fmod`` by zero raise ``RuntimeError: ZeroDivisionError``.
- ``sign(nan)`` is 0; ``x ** n`` for integers follows ``powi`` (negative exponents give 0, 1 or -1).
- ``erf``/``erfc``/``erfinv`` have no numpy ufunc: they are computed here in float64 (Maclaurin series,
  Laplace continued fraction, and Halley refinement), within one float64 ulp or so of libm.
- Transcendental float32 functions agree with PyTorch's SLEEF kernels to an ulp or two, not bit for bit.
- Compiled fast path (``ckernels.py``): templates given ``c=`` try a C loop first for float32/float64 operands
  of one dtype and 4096+ elements (exp, sin, erf, erfc; add/sub/mul/div when broadcast, strided or
  multi-threaded); anything else, a missing compiler or ``GLASSTORCH_DISABLE_CKERNELS=1`` runs numpy.
- An ``out=`` whose dtype c10 reaches from the compute dtype by another route than numpy's direct cast (a double
  result into float16 goes through float) is filled from a compute-dtype buffer with ``copy.cast_ready``.

Invariant: kernels compute in the common dtype (or its opmath type) and write into ``it.out`` only.
"""

from __future__ import annotations

import math

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl, empty_impl, empty_strided_impl
from ...tensor_iterator import (
    build,
    common_dtype,
    fast_operands,
    fp_ignore,
    fp_restore,
    output_strides,
    resize_out,
    scalar_np,
)
from . import ckernels as _ck
from .copy import chalf_values, store_chalf
from .dispatch_types import (
    ALL,
    BAREBONES,
    BAREBONES_UNSIGNED,
    BOOL,
    COMPLEX,
    COMPLEX_HALF,
    FLOAT8,
    FLOATING,
    INTEGRAL,
    REAL,
    Dispatch,
    refuse,
)
from .pointwise_support import (
    _BF16,
    _C32,
    _F16,
    _F32,
    _F64_NP,
    _cast_back,
    _cast_scratch,
    _chalf_into,
    _check_nonzero,
    _checked_scalar,
    _erf64,
    _erfc64,
    _erfinv64,
    _finish,
    _fma_into,
    _fmt_double,
    _in_dtype,
    _is_float,
    _is_integral,
    _not_implemented,
    _operands,
    _opmath,
    _quiet,
    _scratch,
    _special,
    binary,
    cast_outputs,
    comparison,
    negative,
    ufunc_into,
    unary,
    unary_complex_to_float,
)
from .vector_lanes import half_vector_width, iterator_mask


# -- unary: same dtype -------------------------------------------------------------------------------------
def neg_out(self, out):
    if self.dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return _neg_out(self, out)


_neg_out = unary(negative, name="neg", dispatch=Dispatch("neg_cpu", ALL | COMPLEX_HALF))
_abs_out = unary(np.absolute, name="abs", dispatch=Dispatch("abs_cpu", INTEGRAL | FLOATING | FLOAT8))


def abs_out(self, out):
    """abs; a complex tensor gives its real type (``unary_complex_to_float``); not in place."""
    if not self.dtype.is_complex:
        return _abs_out(self, out)
    if out is self:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return unary_complex_to_float(self, out, _complex_abs)


def _complex_abs(x, out):
    np.absolute(chalf_values(x) if x.dtype.names else x, out=out, casting="unsafe")
bitwise_not_out = unary(np.invert, name="bitwise_not", dispatch=Dispatch("bitwise_not_cpu", INTEGRAL | BOOL))


def _sign(x, out, dt):
    if dt is _dt.bool:
        np.copyto(out, x)
        return
    np.sign(x, out=out, dtype=dt.np, casting="unsafe")
    if _is_float(dt):
        np.copyto(out, 0, where=np.isnan(out))  # PyTorch: (0 < x) - (x < 0), so sign(nan) == 0


_SIGN_COMPLEX = (NotImplementedError, "Unlike NumPy, torch.sign is not intended to support complex numbers. Please "
                                      "use torch.sgn instead.")
sign_out = unary(_sign, name="sign", ufunc=False, dispatch=Dispatch("sign_cpu", REAL, _SIGN_COMPLEX))
sgn_out = unary(_sign, name="sgn", ufunc=False,  # numpy's complex sign is z / |z| (0 at 0), as sgn
                dispatch=Dispatch("sign_cpu", ALL | COMPLEX_HALF))  # a real sgn is sign's kernel


def _rounding(ufunc, name):
    def fn(x, out, dt):
        if _is_integral(dt):
            np.copyto(out, x)  # integers are already whole
        else:
            ufunc(x, out=out, dtype=dt.np, casting="unsafe")
    refusal = None if name == "round" else (NotImplementedError, f"{name} is not supported for complex inputs")
    return unary(fn, name=name, ufunc=False,
                 dispatch=Dispatch(f"{name}_vml_cpu", INTEGRAL | FLOATING | BAREBONES_UNSIGNED, refusal))


floor_out = _rounding(np.floor, "floor")
ceil_out = _rounding(np.ceil, "ceil")
trunc_out = _rounding(np.trunc, "trunc")
round_out = _rounding(np.rint, "round")  # half to even


def _frac(x, out, dt):
    t = np.trunc(x, dtype=dt.np)  # x - trunc(x) is exact in any float format
    np.subtract(x, t, out=out, dtype=dt.np, casting="unsafe")


frac_out = unary(_frac, name="frac", ufunc=False, dispatch=Dispatch("frac_cpu", FLOATING))


def round_decimals_out(self, decimals, out):
    """``round(x, decimals=d)``: ``nearbyint(x * 10^d) / 10^d`` in opmath (d < 0: divide, then multiply)."""
    it = build((out,), (self,), check_same_dtype=out is not None)
    if not it.is_meta:
        dt = it.common_dtype
        if not _is_float(dt):  # decimals=0 is plain round, minus round's shortcut for integers
            raise _not_implemented("round_cpu" if decimals else "round_vml_cpu", dt)
        if decimals == 0:
            np.rint(it.ins_np[0], out=it.out_np, dtype=dt.np, casting="unsafe")
            return it.out
        c = _opmath(dt).np
        with _quiet():
            ten_pow = c.type(math.inf if abs(decimals) > 308 else 10.0 ** abs(decimals))
            x, o = it.ins_np[0], it.out_np
            buf = _scratch(o, c)
            first, second = (np.divide, np.multiply) if decimals < 0 else (np.multiply, np.divide)
            first(x, ten_pow, out=buf, dtype=c, casting="unsafe")
            np.rint(buf, out=buf)
            second(buf, ten_pow, out=buf)
            _finish(o, buf)
    return it.out


# -- unary: floating -------------------------------------------------------------------------------------
_VML = {"exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "asin", "acos", "atan"}


def _float_unary(ufunc, name, c=None):
    """A floating unary op; PyTorch names its kernel ``<name>_vml_cpu`` where it has a VML path (exp2: "exp2")."""
    kname = f"{name}_vml_cpu" if name in _VML else ("exp2" if name == "exp2" else f"{name}_cpu")
    return unary(ufunc, name=name, float_op=True, c=c, dispatch=Dispatch(kname))


exp_out = _float_unary(np.exp, "exp", c="exp")
exp2_out = _float_unary(np.exp2, "exp2")
expm1_out = _float_unary(np.expm1, "expm1")
log_out = _float_unary(np.log, "log")
log2_out = _float_unary(np.log2, "log2")
log10_out = _float_unary(np.log10, "log10")
log1p_out = _float_unary(np.log1p, "log1p")
sqrt_out = _float_unary(np.sqrt, "sqrt")
reciprocal_out = _float_unary(np.reciprocal, "reciprocal")
sin_out = _float_unary(np.sin, "sin", c="sin")
cos_out = _float_unary(np.cos, "cos")
tan_out = _float_unary(np.tan, "tan")
asin_out = _float_unary(np.arcsin, "asin")
acos_out = _float_unary(np.arccos, "acos")
atan_out = _float_unary(np.arctan, "atan")
sinh_out = _float_unary(np.sinh, "sinh")
cosh_out = _float_unary(np.cosh, "cosh")
tanh_out = _float_unary(np.tanh, "tanh")
asinh_out = _float_unary(np.arcsinh, "asinh")
acosh_out = _float_unary(np.arccosh, "acosh")
atanh_out = _float_unary(np.arctanh, "atanh")


def _rsqrt(x, out, dt, blocks=1):
    """``1 / sqrt(x)``; in a half type the scalar op (TensorIterator's tails, strided runs) rounds ``sqrt(x)`` to
    that type before dividing, the vector op does not (Note [Vector and scalar lanes]).  ``blocks``: half vectors
    per vector step, 1 for the rsqrt operator and 2 for pow's call of the kernel (as measured against torch)."""
    c = _opmath(dt).np
    buf = _scratch(out, c, x)
    np.sqrt(x, out=buf, dtype=c, casting="unsafe")
    if dt in (_dt.float16, _dt.bfloat16) and buf.size:
        scalar = buf.astype(dt.np).astype(c)
        np.copyto(buf, scalar, where=~iterator_mask((out, x), blocks * half_vector_width()))
    np.reciprocal(buf, out=buf)
    _finish(out, buf)


def _sigmoid(x, out, dt):
    c = _opmath(dt).np
    buf = _scratch(out, c)
    negative(x, out=buf, dtype=c, casting="unsafe")  # 1 / (1 + exp(-x))
    np.exp(buf, out=buf)
    np.add(buf, 1, out=buf)
    np.reciprocal(buf, out=buf)
    _finish(out, buf)


rsqrt_out = unary(_rsqrt, name="rsqrt", float_op=True, ufunc=False)  # the default table: "rsqrt_cpu"
_sigmoid_out = unary(_sigmoid, name="sigmoid", float_op=True, ufunc=False)


def sigmoid_out(self, out=None):
    """sigmoid; float8, a reduced float, goes to PyTorch's ``sigmoid_cpu_reduced_float`` loop (Half, BFloat16)."""
    if self.dtype in FLOAT8 and self.storage._data is not None:
        raise _not_implemented("sigmoid_cpu_reduced_float", self.dtype)
    return _sigmoid_out(self, out)


# erf, erfc, erfinv in float64.  |x| < 2.5: the Maclaurin series of erf; beyond, erfc from Laplace's
# continued fraction erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), evaluated
# bottom-up with a fixed depth (40 terms reach double precision for x >= 2.5, 80 for x >= 1.5).
erf_out = unary(_special(_erf64), name="erf", float_op=True, ufunc=False, c="erf",
                dispatch=Dispatch("erf_vml_cpu", FLOATING))
erfc_out = unary(_special(_erfc64), name="erfc", float_op=True, ufunc=False, c="erfc",
                 dispatch=Dispatch("erfc_vml_cpu", FLOATING))
erfinv_out = unary(_special(_erfinv64), name="erfinv", float_op=True, ufunc=False,
                   dispatch=Dispatch("erfinv_vml_cpu", FLOATING))


# -- unary: predicates and nan_to_num ----------------------------------------------------------------------
def _predicate(ufunc, name, kname=None, refused=None):
    """A bool-valued unary kernel; ``refused``: the barebones dtypes its PyTorch kernel ``kname`` lacks."""
    def kernel(self, out=None):
        it = build((out,), (self,), static_dtype=_dt.bool)
        if not it.is_meta:
            x = it.ins_np[0]
            if refused is not None and it.common_dtype in refused:
                raise _not_implemented(kname, it.common_dtype)
            if it.common_dtype is _C32:  # logical_not has no ComplexHalf kernel; isnan/isinf/isfinite do
                if ufunc is np.logical_not:
                    raise _not_implemented("logical_not_cpu", _C32)
                x = chalf_values(x)
            ufunc(x, out=it.out_np, casting="unsafe")
        return it.out
    kernel.__qualname__ = kernel.__name__ = name
    return kernel


isnan_out = _predicate(np.isnan, "isnan_out")
# float8_e5m2 alone of the float8 types has infinities, and isinf/isfinite list it
_NO_INF = FLOAT8 - {_dt.float8_e5m2}
isinf_out = _predicate(np.isinf, "isinf_out", "isinf", _NO_INF)
logical_not_out = _predicate(np.logical_not, "logical_not_out", "logical_not_cpu", BAREBONES)
_isfinite_out = _predicate(np.isfinite, "isfinite_out", "isfinite", _NO_INF)


def isfinite(self):
    return _isfinite_out(self, None)


def nan_to_num_out(self, nan, posinf, neginf, out):
    """NaN -> ``nan`` (0), +inf -> ``posinf`` (the dtype's max), -inf -> ``neginf`` (its lowest); complex: each
    part on its own, with the real type's limits."""
    if out is not None and out.dtype is not self.dtype:
        raise RuntimeError(f"nan_to_num: dtype of out: {_dt.name_of(out.dtype)} should be same as input: "
                           f"{_dt.name_of(self.dtype)}")
    if (self.dtype is _C32 or self.dtype in FLOAT8) and self.storage._data is not None:
        raise _not_implemented("nan_to_num", self.dtype)
    it = build((out,), (self,))
    if not it.is_meta:
        x, o = it.ins_np[0], it.out_np
        dt = it.common_dtype
        if it.out is not self:
            np.copyto(o, x)
        if _is_float(dt) or dt in COMPLEX:
            info = _dt.finfo(dt.to_real())
            with _quiet():
                for part in (o.real, o.imag) if dt.is_complex else (o,):  # writable views of the parts
                    isnan, isinf = np.isnan(part), np.isinf(part)
                    pos = isinf & (part > 0)
                    np.copyto(part, 0.0 if nan is None else nan, where=isnan, casting="unsafe")
                    np.copyto(part, info.max if posinf is None else posinf, where=pos, casting="unsafe")
                    np.copyto(part, info.min if neginf is None else neginf, where=isinf & ~pos, casting="unsafe")
    return it.out


# -- binary arithmetic -----------------------------------------------------------------------------------
def _is_bool_operand(x) -> bool:
    return x.dtype is _dt.bool if type(x) is TensorImpl else isinstance(x, bool)


def _alpha_check(dt, alpha, what="alpha") -> None:
    """PyTorch's ``alpha_check`` (BinaryOps.h)."""
    if isinstance(alpha, bool):
        if dt is not _dt.bool:
            raise RuntimeError(f"Boolean {what} only supported for Boolean results.")
        return
    if not (_is_float(dt) or dt.is_complex) and not isinstance(alpha, int):  # a complex alpha too
        raise RuntimeError(f"For integral input tensors, argument {what} must not be a floating point number.")
    if isinstance(alpha, complex) and not dt.is_complex:
        raise RuntimeError(f"For non-complex input tensors, argument {what} must not be a complex number.")


def _add_like(ufunc, name):
    """add/sub: ``self (+|-) alpha * other``, the product and the sum in opmath."""
    is_sub = name == "sub"

    def kernel(self, other, alpha, out=None):
        if is_sub:
            _check_sub_bool(self, other)
        # a given out (in place too) that needs no broadcast, cast or resize skips the iterator object
        ops = fast_operands(out, (self, other)) if out is not None else None
        if ops is None:
            it = build((out,), (self, other), cast_outputs=True)
            dt = it.common_dtype
            if alpha.__class__ is not int:  # an int alpha suits every dtype
                _alpha_check(dt, alpha)
            if it.is_meta:
                return it.out
            result, o = it.out, it.out_np
            a, b = it.ins_np
        else:
            result, dt = out, out.dtype
            if alpha.__class__ is not int:
                _alpha_check(dt, alpha)
            o, a, b = ops
        refuse("add_stub", dt)
        if dt is _C32:
            al = np.complex64(alpha)
            _chalf_into(ufunc if alpha == 1 else (lambda x, y: ufunc(x, y * al)), a, b,
                        o if ops is not None or it.cast_out is None else it.cast_out)
            return result
        c = dt
        if dt is _F16 or dt is _BF16:
            a, b, c = _operands(self, other, a, b, dt, False)
        if alpha == 1 and _ck.binary(name, a, b, o):
            return result if ops is not None else cast_outputs(it)
        buf = o if ops is not None else _cast_scratch(o, c.np)
        token = fp_ignore()
        try:
            if alpha != 1:
                _add_alpha(ufunc, a, b, alpha, buf, dt, c)
            else:
                ufunc_into(ufunc, a, b, buf, c, dt, ops is not None)
        finally:
            fp_restore(token)
        if buf is not o:
            _cast_back(o, buf)
        return result if ops is not None else cast_outputs(it)

    kernel.__qualname__ = kernel.__name__ = f"{name}_out"
    return kernel


def _check_sub_bool(self, other) -> None:
    if _is_bool_operand(self) and _is_bool_operand(other):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                           "`^` or `logical_xor()` operator instead.")
    if _is_bool_operand(self) or _is_bool_operand(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _add_alpha(ufunc, a, b, alpha, out, dt, c) -> None:
    """add: ``fma(other, alpha, self)``; sub: ``fma(other, -alpha, self)`` (floats round once)."""
    al = _checked_scalar(alpha, dt).astype(c.np)
    al = al if ufunc is np.add else -al
    if dt._cat == _dt.FLOAT_CAT:
        _fma_into(out, b, al, a, c.np)
    else:
        # the operands may be wider than c (a 0-dim int16 with a uint8 tensor computes in uint8)
        np.add(a, np.multiply(b, al, dtype=c.np, casting="unsafe"), out=out, dtype=c.np, casting="unsafe")


add_out = _add_like(np.add, "add")
sub_out = _add_like(np.subtract, "sub")


def rsub_out(self, other, alpha, out):
    """``other - alpha * self``."""
    return sub_out(other, self, alpha, out)


mul_out = binary(np.multiply, name="mul", scalar_opmath=True, c="mul",
                 dispatch=Dispatch("mul_cpu", ALL | COMPLEX_HALF | BAREBONES_UNSIGNED,
                                   reduced_scalar="mul_cpu_reduced_float", float8_tensors=True))
div_out = binary(np.true_divide, name="div", float_op=True, scalar_opmath=True, c="div",
                 dispatch=Dispatch("div_cpu", ALL | BAREBONES_UNSIGNED, reduced_scalar="div_cpu_reduced_float"))


def _div_rounding(kind):
    """div(rounding_mode='trunc'|'floor') and floor_divide.

    Integers: exact, zero divisors raise.  float32/float64: ``trunc(a / b)``, and numpy's floor_divide, whose
    divmod is c10's ``div_floor_floating``.  float16/bfloat16: a one-element divisor is read at full precision
    and the quotient computed in float32 (PyTorch's reduced-float scalar fast path); otherwise every step is
    rounded to the dtype, as PyTorch's reduced-float arithmetic does.
    """
    trunc = kind == "trunc"
    dispatch = Dispatch(f"div_{kind}_cpu", INTEGRAL | FLOATING)

    def kernel(self, other, out=None):
        it = build((out,), (self, other))
        if it.is_meta:
            return it.out
        dt = it.common_dtype
        dispatch.check(dt)
        a, b = it.ins_np
        o = it.out_np
        with _quiet():
            if _is_integral(dt):
                _check_nonzero(b, o)
                if trunc:  # a - fmod(a, b) is an exact multiple of b
                    r = np.asarray(np.fmod(a, b, dtype=dt.np, casting="unsafe"))
                    np.subtract(a, r, out=r, dtype=dt.np, casting="unsafe")
                    np.floor_divide(r, b, out=o, dtype=dt.np, casting="unsafe")
                else:
                    np.floor_divide(a, b, out=o, dtype=dt.np, casting="unsafe")
            elif dt is _F16 or dt is _BF16:
                if type(other) is not TensorImpl or other.numel() == 1:
                    bf = scalar_np(other, _F32) if type(other) is not TensorImpl else np.asarray(b).astype(np.float32)
                    af = _in_dtype(a, dt).astype(np.float32)
                    if trunc:
                        np.copyto(o, np.trunc(np.true_divide(af, bf)), casting="unsafe")
                    else:
                        np.copyto(o, np.floor_divide(af, bf), casting="unsafe")
                elif trunc:
                    q = np.true_divide(_in_dtype(a, dt), _in_dtype(b, dt), dtype=dt.np, casting="unsafe")
                    np.trunc(q, out=o, casting="unsafe")
                else:
                    _div_floor_steps(a, b, o, dt)
            elif trunc:
                buf = _scratch(o, dt.np, a, b)
                np.true_divide(a, b, out=buf, dtype=dt.np, casting="unsafe")
                np.trunc(buf, out=buf)
                _finish(o, buf)
            else:
                np.floor_divide(a, b, out=o, dtype=dt.np, casting="unsafe")
        return it.out

    kernel.__qualname__ = kernel.__name__ = "div_trunc_out" if trunc else "floor_divide_out"
    return kernel


def _div_floor_steps(a, b, out, dt):
    """c10::div_floor_floating evaluated in float16/bfloat16 arithmetic, every step rounded to the dtype:
    ``div = (a - fmod(a, b)) / b``, one less when the remainder's sign differs from b's, then ``floor(div)``
    rounded half up; ``a / b`` when ``b == 0``, a signed zero when ``div == 0``."""
    t = dt.np
    a, b = np.asarray(_in_dtype(a, dt), dtype=t), np.asarray(_in_dtype(b, dt), dtype=t)
    one = t.type(1)
    mod = np.fmod(a, b)
    quot = np.true_divide(a, b)
    div = np.asarray(np.true_divide(np.subtract(a, mod), b))
    div = np.where((mod != 0) & ((b < 0) != (mod < 0)), np.subtract(div, one), div)
    res = np.floor(div)
    res = np.where(np.subtract(div, res) > t.type(0.5), np.add(res, one), res)
    res = np.where(div == 0, np.copysign(t.type(0), quot), res)
    res = np.where(b == 0, quot, res)
    np.copyto(out, res, casting="unsafe")


_div_trunc_out = _div_rounding("trunc")
floor_divide_out = _div_rounding("floor")


def div_mode_out(self, other, rounding_mode, out):
    if rounding_mode is None:
        return div_out(self, other, out)
    if rounding_mode == "trunc":
        return _div_trunc_out(self, other, out)
    if rounding_mode == "floor":
        return floor_divide_out(self, other, out)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                       f"'{rounding_mode}'")


remainder_out = binary(np.remainder, name="remainder", dispatch=Dispatch("remainder_cpu", INTEGRAL | FLOATING),
                       nonzero=True)
fmod_out = binary(np.fmod, name="fmod", dispatch=Dispatch("fmod_cpu", INTEGRAL | FLOATING), nonzero=True)


def _min_max(ufunc, name):
    """maximum/minimum/fmax/fmin: the meta function refuses complex tensors, the kernel runs on real dtypes."""
    refusal = (RuntimeError, f"{name} not implemented for complex tensors.")
    return binary(ufunc, name=name, dispatch=Dispatch(f"{name}_cpu", REAL, refusal))


maximum_out = _min_max(np.maximum, "maximum")
minimum_out = _min_max(np.minimum, "minimum")
_fmax_out = _min_max(np.fmax, "fmax")
_fmin_out = _min_max(np.fmin, "fmin")


def _integral_as(kernel, kname):
    """fmax/fmin: integral operands go to maximum/minimum, whose kernel (``kname``) lacks the barebones unsigned
    types."""
    def checked(self, other, out=None):
        for x in (self, other):
            if type(x) is TensorImpl and x.dtype in BAREBONES_UNSIGNED and x.storage._data is not None:
                raise _not_implemented(kname, x.dtype)
        return kernel(self, other, out)
    checked.__qualname__ = checked.__name__ = kernel.__name__
    return checked


fmax_out = _integral_as(_fmax_out, "maximum_cpu")
fmin_out = _integral_as(_fmin_out, "minimum_cpu")
# clamp_min/clamp_max with a tensor bound call the maximum/minimum kernels, without maximum's meta function
_clamp_min_tensor_out = binary(np.maximum, name="clamp_min", dispatch=Dispatch("maximum_cpu", REAL))
_clamp_max_tensor_out = binary(np.minimum, name="clamp_max", dispatch=Dispatch("minimum_cpu", REAL))
atan2_out = binary(np.arctan2, name="atan2", float_op=True, dispatch=Dispatch("atan2_cpu", FLOATING))
hypot_out = binary(np.hypot, name="hypot", dispatch=Dispatch("hypot_cpu", FLOATING))
def _log1p_complex(z):
    """c10's complex ``log1p``: ``log|1 + z|`` as ``log1p(x (2 + x) + y^2) / 2`` when ``|z| < 0.5`` (numpy's complex
    log1p is ``log(1 + z)``, which loses a tiny ``z``'s real part), ``log(hypot(1 + x, y))`` otherwise; the
    angle ``atan2(y, 1 + x)``."""
    x, y = z.real, z.imag
    r = x * (2 + x) + y * y
    small = np.abs(z) < 0.5
    re = np.where(small, np.where(r == 0, x, 0.5 * np.log1p(r)), np.log(np.hypot(1 + x, y)))
    res = np.empty(z.shape, z.dtype)
    res.real, res.imag = re, np.arctan2(y, 1 + x)
    return res


def _logaddexp(a, b, out, dt):
    """``log(exp(a) + exp(b))``: numpy's logaddexp in opmath for real dtypes; complex as PyTorch's
    ``_log_add_exp_helper`` (``max + log1p(exp(min - max))`` ordered by real part, NaN in either part infectious,
    both real parts -inf gives the smaller operand, both +inf ``log(exp(min) + exp(max))``)."""
    if not dt.is_complex:
        np.logaddexp(_in_dtype(a, dt), _in_dtype(b, dt), out=out, dtype=_opmath(dt).np, casting="unsafe")
        return
    x, y = np.broadcast_arrays(np.asarray(a).astype(dt.np), np.asarray(b).astype(dt.np))
    x_first = x.real < y.real
    lo, hi = np.where(x_first, x, y), np.where(x_first, y, x)
    for v in (x, y):  # a NaN operand (either part) is both min and max; y's is checked first there, so it wins
        nan = np.isnan(v)
        lo, hi = np.where(nan, v, lo), np.where(nan, v, hi)
    res = _log1p_complex(np.exp(lo - hi)) + hi
    infinite = ~np.isfinite(lo.real) & (lo.real == hi.real)
    res = np.where(infinite & (lo.real < 0), lo, res)
    res = np.where(infinite & (lo.real > 0), np.log(np.exp(lo) + np.exp(hi)), res)
    res = np.where(np.isnan(lo), dt.np.type(complex(math.nan, math.nan)), res)
    np.copyto(out, res, casting="unsafe")


logaddexp_out = binary(_logaddexp, name="logaddexp", ufunc=False,
                       dispatch=Dispatch("logaddexp_cpu", FLOATING | COMPLEX))
logaddexp2_out = binary(lambda a, b, out, dt: np.logaddexp2(_in_dtype(a, dt), _in_dtype(b, dt), out=out,
                                                            dtype=_opmath(dt).np, casting="unsafe"),
                        name="logaddexp2", ufunc=False, dispatch=Dispatch("logaddexp2_cpu", FLOATING))
copysign_out = binary(np.copysign, name="copysign", float_op=True, dispatch=Dispatch("copysign_cpu", FLOATING))


def _heaviside(a, b, out, dt):
    """``a == 0 ? b : a > 0`` (NaN gives 0)."""
    np.copyto(out, np.where(np.equal(a, 0), b, np.greater(a, 0)), casting="unsafe")


_heaviside_out = binary(_heaviside, name="heaviside", ufunc=False, dispatch=Dispatch("heaviside_cpu", REAL))
_HEAVISIDE_COMPLEX = Dispatch("heaviside_cpu", REAL, (RuntimeError, "heaviside is not yet implemented for complex "
                                                                    "tensors."))


def heaviside_out(self, values, out):
    """PyTorch's meta function refuses complex tensors (``out`` too) and any dtype mix before the kernel runs."""
    _HEAVISIDE_COMPLEX.check_operands((self, values, out))
    if values.dtype is not self.dtype or out is not None and out.dtype is not self.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _heaviside_out(self, values, out)


def _xlogy(a, b, out, dt):
    """``x * log(y)``, 0 where x == 0 (unless y is NaN), NaN where y is NaN."""
    c = _opmath(dt).np
    if c != dt.np:  # float16/bfloat16: log(y) is rounded to the dtype before the product (Half arithmetic)
        a, b = _in_dtype(a, dt), _in_dtype(b, dt)
        c = dt.np
    with _quiet():
        # float32: PyTorch's scalar std::log is (nearly always) the correctly rounded log; numpy's SIMD logf
        # is not, so take the log in float64 and round it
        r = np.log(b, dtype=_F64_NP, casting="unsafe").astype(c) if dt is _F32 else np.log(b, dtype=c, casting="unsafe")
        r = np.multiply(a, r, dtype=c, casting="unsafe")
        zero = np.equal(a, 0) & ~np.isnan(np.asarray(b).astype(c))
        np.copyto(out, r, casting="unsafe")
        if np.any(zero):
            np.copyto(out, 0, where=zero)


xlogy_out = binary(_xlogy, name="xlogy", float_op=True, ufunc=False, dispatch=Dispatch("xlogy_cpu", FLOATING))


# pow ------------------------------------------------------------------------------------------------------
def _pow_tensor_scalar(x, e, out, dt):
    """PyTorch's ``pow_tensor_scalar_kernel``: sqrt/rsqrt/reciprocal fast paths for 0.5/-0.5/-1 (rsqrt not for
    float16), square and cube as products (and 1/(x*x) for -2) except for float16; otherwise ``pow`` with the
    exponent converted to the tensor's dtype.  Integers use powi."""
    npdt = dt.np
    if dt.is_complex:
        _pow_complex(x, scalar_np(e, dt), out, dt)
        return
    if _is_float(dt):
        x = _in_dtype(x, dt)
        if e == 0.5:
            np.sqrt(x, out=out, dtype=npdt, casting="unsafe")
            return
        if e == -0.5 and dt is not _F16:  # float16 takes std::pow, rounded once (no rsqrt lanes)
            _rsqrt(x, out, dt, blocks=2)
            return
        if e == -1:
            np.reciprocal(x, out=out, dtype=npdt, casting="unsafe")
            return
        if dt is not _F16:
            if e == 2:
                np.square(x, out=out, dtype=npdt, casting="unsafe")
                return
            if e in (3, -2):
                sq = np.multiply(x, x, dtype=npdt, casting="unsafe")
                if e == 3:
                    np.multiply(sq, x, out=out, dtype=npdt, casting="unsafe")
                else:
                    np.divide(1, sq, out=out, dtype=npdt, casting="unsafe")
                return
    np.power(x, scalar_np(e, dt), out=out, dtype=npdt, casting="unsafe")


def _pow_complex(a, b, out, dt):
    """Complex ``a ** b``: PyTorch's CPU kernels call ``std::pow``, which is glibc's ``cexp(b * clog(a))`` (numpy's
    power has other special cases: ``0 ** 0`` is 1 there, NaN here).  A scalar exponent takes the kernel's fast
    paths first: sqrt, 1/sqrt and 1/x for 0.5, -0.5 and -1, products for 2, 3 and -2."""
    c = dt.np
    if np.ndim(b) == 0 and b.imag == 0 and b.real in (0.5, -0.5, -1.0, 2.0, 3.0, -2.0):
        e = b.real
        x = np.asarray(a).astype(c)
        if e == 0.5:
            np.sqrt(x, out=out, casting="unsafe")
        elif e == -0.5:
            np.divide(c.type(1), np.sqrt(x), out=out, casting="unsafe")
        elif e == -1:
            np.divide(c.type(1), x, out=out, casting="unsafe")
        elif e == -2:
            np.divide(c.type(1), x * x, out=out, casting="unsafe")
        else:
            np.multiply(x * x, x, out=out, casting="unsafe") if e == 3 else np.multiply(x, x, out=out, casting="unsafe")
        return
    np.exp(np.multiply(b, np.log(a, dtype=c, casting="unsafe"), dtype=c, casting="unsafe"), out=out, casting="unsafe")


def _pow_integers(a, b, out, dt):
    """Integer ``a ** b`` with PyTorch's powi: b < 0 gives 1 for a == 1, +-1 for a == -1, else 0."""
    npdt = dt.np
    e = np.asarray(b).astype(npdt)
    neg = e < 0
    if not np.any(neg):
        np.power(a, e, out=out, dtype=npdt, casting="unsafe")
        return
    av = np.asarray(a).astype(npdt)
    fix = np.where(av == 1, 1, np.where(av == -1, np.where(e & 1, -1, 1), 0)).astype(npdt)
    np.power(av, np.where(neg, 0, e), out=out, dtype=npdt, casting="unsafe")
    np.copyto(out, np.broadcast_to(fix, out.shape), where=np.broadcast_to(neg, out.shape), casting="unsafe")


_POW = Dispatch("pow", ALL)
_C32_POW = {0.5: "sqrt_vml_cpu", -0.5: "rsqrt_cpu", -1: "reciprocal_cpu"}


def pow_out(self, exponent, out):
    """pow.Tensor_Tensor, pow.Tensor_Scalar and pow.Scalar (``self`` a Python number).

    A new or resized output is laid out as PyTorch's meta functions do: pow.Tensor_Scalar is a unary op over
    ``self`` (its strides follow ``self`` alone; the exponent is no 0-dim operand), pow.Scalar sets a row-major
    output (on meta, PyTorch's Python meta function lays it out as an elementwise op: the iterator does).
    """
    if type(self) is not TensorImpl and not exponent.is_meta:
        if out is None:
            out = empty_impl(exponent.sizes, common_dtype((self, exponent)), exponent.device)
        else:
            resize_out(out, exponent.sizes)
    if type(exponent) is not TensorImpl:
        if isinstance(exponent, int) and not isinstance(exponent, bool) and exponent < 0 and \
                type(self) is TensorImpl and self.dtype._cat <= _dt.INT_CAT:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        strides = output_strides(self.sizes, (self,), 1)
        if out is None:
            out = empty_strided_impl(self.sizes, strides, common_dtype((self, exponent)), self.device)
        else:
            resize_out(out, self.sizes, strides)
        it = build((out,), (self, exponent))
        if not it.is_meta:
            o = it.out_np
            if it.common_dtype is _C32 and exponent != 1:  # pow_tensor_scalar's sqrt/rsqrt/reciprocal kernels first
                if exponent != 0:
                    raise _not_implemented(_C32_POW.get(exponent, "pow"), _C32)
                store_chalf(o, 1)
            elif exponent == 0:
                _POW.check(it.common_dtype)
                o.fill(1)
            elif exponent == 1:
                np.copyto(o, it.ins_np[0], casting="unsafe")
            else:
                _POW.check(it.common_dtype)
                with _quiet():
                    _pow_tensor_scalar(it.ins_np[0], exponent, o, it.common_dtype)
        return it.out
    it = build((out,), (self, exponent))
    if not it.is_meta:
        dt = it.common_dtype
        a, b = it.ins_np
        o = target = it.out_np
        _POW.check(dt)
        if o.dtype.names and dt is not _C32:  # a complex32 out= or self: compute in dt, store complex<Half> after
            o = np.empty(o.shape, dt.np)
        if type(self) is not TensorImpl and not isinstance(self, bool) and self == 1:
            o.fill(1)
        elif dt is _dt.bool:
            raise _not_implemented("pow", dt)
        elif dt.is_complex:
            with _quiet():
                _pow_complex(a, b, o, dt)
        elif _is_float(dt):  # operands in the dtype first (numpy's power has no mixed bfloat16 loops)
            with _quiet():
                np.power(_in_dtype(a, dt), _in_dtype(b, dt), out=o, dtype=dt.np, casting="unsafe")
        else:
            with _quiet():  # an out= of a narrower float type overflows silently, as in torch
                _pow_integers(a, b, o, dt)
        if o is not target:
            store_chalf(target, o)
    return it.out


# -- comparisons and logical/bitwise ----------------------------------------------------------------------
eq_out = comparison(np.equal, name="eq", dispatch=Dispatch("eq_cpu", ALL | COMPLEX_HALF | BAREBONES))
ne_out = comparison(np.not_equal, name="ne", dispatch=Dispatch("ne_cpu", ALL | COMPLEX_HALF | BAREBONES))
lt_out = comparison(np.less, name="lt", dispatch=Dispatch("lt_cpu", REAL))  # complex numbers have no order
le_out = comparison(np.less_equal, name="le", dispatch=Dispatch("le_cpu", REAL))
gt_out = comparison(np.greater, name="gt", dispatch=Dispatch("gt_cpu", REAL))
ge_out = comparison(np.greater_equal, name="ge", dispatch=Dispatch("ge_cpu", REAL))
logical_and_out = comparison(np.logical_and, name="logical_and")
logical_or_out = comparison(np.logical_or, name="logical_or")
logical_xor_out = comparison(np.logical_xor, name="logical_xor")

_BITWISE = INTEGRAL | BOOL | BAREBONES_UNSIGNED
bitwise_and_out = binary(np.bitwise_and, name="bitwise_and", dispatch=Dispatch("bitwise_and_cpu", _BITWISE))
bitwise_or_out = binary(np.bitwise_or, name="bitwise_or", dispatch=Dispatch("bitwise_or_cpu", _BITWISE))
bitwise_xor_out = binary(np.bitwise_xor, name="bitwise_xor", dispatch=Dispatch("bitwise_xor_cpu", _BITWISE))
# numpy shifts match PyTorch's: a shift count < 0 or >= the bit width gives 0 (left) or the sign fill (right)
bitwise_left_shift_out = binary(np.left_shift, name="bitwise_left_shift", dispatch=Dispatch("lshift_cpu", INTEGRAL))
bitwise_right_shift_out = binary(np.right_shift, name="bitwise_right_shift", dispatch=Dispatch("rshift_cpu", INTEGRAL))


def isclose(self, other, rtol, atol, equal_nan):
    """``|a - b| <= atol + rtol * |b|`` or ``a == b`` (PyTorch's composite ``isclose``, step by step in the
    inputs' dtype; integer and bool inputs are compared in the default float dtype).  Complex: the distances
    are absolute values in the real type, and an element is NaN when either part is."""
    if self.dtype is not other.dtype:
        raise RuntimeError(f"{_dt.name_of(self.dtype)} did not match {_dt.name_of(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {_fmt_double(rtol)}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {_fmt_double(atol)}")
    it = build((None,), (self, other), static_dtype=_dt.bool)
    if it.is_meta:
        return it.out
    a, b = it.ins_np
    dt = self.dtype
    if dt is _C32:  # compared through complex64 values
        a, b, dt = chalf_values(a), chalf_values(b), _dt.complex64
    o = it.out_np
    floating = _is_float(dt) or dt.is_complex
    with _quiet():
        np.equal(a, b, out=o)
        if equal_nan and floating:
            o |= np.isnan(a) & np.isnan(b)
        if rtol == 0 and atol == 0:
            return it.out
        if dt in FLOAT8:  # rtol * other: the reduced-float scalar loop, which has no float8
            raise _not_implemented("mul_cpu_reduced_float", dt)
        if not floating:
            dt = _dt.get_default_dtype()
            a, b = a.astype(dt.np), b.astype(dt.np)
        t, c = dt.np, _opmath(dt).np
        rt, rc = dt.to_real().np, _opmath(dt.to_real()).np  # the type of an absolute value
        allowed = np.abs(np.multiply(b, c.type(rtol), dtype=c).astype(t))     # (rtol * other).abs()
        allowed = np.add(allowed, rc.type(atol), dtype=rc).astype(rt)          # atol + ...
        actual = np.abs(np.subtract(a, b, dtype=c).astype(t))                  # (self - other).abs()
        o |= np.isfinite(actual) & (actual <= allowed)
    return it.out
