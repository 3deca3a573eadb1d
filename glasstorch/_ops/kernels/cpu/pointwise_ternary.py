"""Pointwise CPU kernels of three operands — PyTorch's ``TensorCompare.cpp`` (clamp with scalar or tensor bounds,
``where``), ``Lerp.cpp`` and ``PointwiseOps.cpp`` (``addcmul``, ``addcdiv``).

Structured as the kernels of ``pointwise.py`` (whose docstring describes the numerics: ``lerp`` and
``addcmul`` are one fused multiply-add, float16/bfloat16 compute in float32), built from the helpers of
``pointwise_support.py``.

Invariant: kernels compute in the common dtype (or its opmath type) and write into ``it.out`` only.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core.user_warning import warn_once
from ...._tensor.impl import TensorImpl
from ...tensor_iterator import build, common_dtype, dense_scalar, scalar_np
from . import pointwise as _pw  # a module import: the kernel index must see maximum_out once
from .dispatch_types import BOOL, COMPLEX, COMPLEX_HALF, FLOATING, INTEGRAL, REAL, Dispatch
from .pointwise_support import (
    _BF16,
    _BOOL_NP,
    _C32,
    _TYPEMETA,
    _chalf_operand,
    _chalf_store,
    _checked_scalar,
    _fma,
    _fma_into,
    _in_dtype,
    _integral_or_bool,
    _is_float,
    _is_integral,
    _not_implemented,
    _opmath,
    _quiet,
    _store_rounded,
    cast_outputs,
)


# -- clamp -------------------------------------------------------------------------------------------------
def _clamp_scalar(self, lo, hi, out, kname, single=False):
    """clamp/clamp_min/clamp_max with Scalar bounds: the scalars take part in type promotion for integer
    inputs (an in-place op may not change dtype), and ``out`` must have the result dtype.  A complex bound of a
    floating tensor: clamp_min/clamp_max (``single``) refuse it, clamp reads it as a double first."""
    _check_not_complex(self.dtype, self)
    rt = self.dtype
    bounds = [v for v in (lo, hi) if v is not None]
    if _is_float(rt) and any(isinstance(v, complex) for v in bounds):
        if single:
            _check_not_complex(_dt.complex64, self)
        for v in bounds:
            _checked_scalar(v, _dt.float64)
    if not _is_float(rt):
        rt = common_dtype([self] + [v for v in (lo, hi) if v is not None])
        _check_not_complex(rt, self)
        if rt is not self.dtype and out is self:
            raise RuntimeError(f"result type {_dt.name_of(rt)} can't be cast to the desired output type "
                               f"{_TYPEMETA[self.dtype]}")
    if out is not None and out.dtype is not rt:
        raise RuntimeError(f"Found dtype {_dt.name_of(out.dtype)} but expected {_dt.name_of(rt)}")
    it = build((out,), (self,), static_dtype=rt)
    if not it.is_meta:
        if rt is _dt.bool or _dt.is_barebones(rt):
            raise _not_implemented(kname, rt)
        x, o, c = _in_dtype(it.ins_np[0], rt) if rt is _BF16 else it.ins_np[0], it.out_np, rt.np
        lo = None if lo is None else dense_scalar(_checked_scalar(lo, rt), o.shape, c)
        hi = None if hi is None else dense_scalar(_checked_scalar(hi, rt), o.shape, c)
        with _quiet():
            # the bound first: numpy returns the second operand on ties, so -0.0 survives clamp(min=0) as in PyTorch
            if lo is not None and hi is not None:
                np.maximum(lo, x, out=o, dtype=c, casting="unsafe")
                np.minimum(hi, o, out=o, dtype=c, casting="unsafe")
            elif lo is not None:
                np.maximum(lo, x, out=o, dtype=c, casting="unsafe")
            else:
                np.minimum(hi, x, out=o, dtype=c, casting="unsafe")
    return it.out


def _check_not_complex(dt, self) -> None:
    """clamp's meta-function refusal (not on meta operands: Note [Kernel dtype tables])."""
    if dt.is_complex and self.storage._data is not None:
        raise NotImplementedError("clamp is not supported for complex types")


def clamp_out(self, min, max, out):  # noqa: A002 - PyTorch's argument names
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    kname = "clamp_scalar_cpu" if min is not None and max is not None else \
        ("clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
    return _clamp_scalar(self, min, max, out, kname)


def clamp_min_out(self, min, out):  # noqa: A002
    return _clamp_scalar(self, min, None, out, "clamp_min_scalar_cpu", single=True)


def clamp_max_out(self, max, out):  # noqa: A002
    return _clamp_scalar(self, None, max, out, "clamp_max_scalar_cpu", single=True)


def clamp_Tensor_out(self, min, max, out):  # noqa: A002, N802
    """clamp with tensor bounds: all operands promote together; one bound is maximum/minimum (bool works);
    both bounds are PyTorch's clamp kernel (NaN bounds give NaN, bool unsupported)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _check_not_complex(self.dtype, self)
    if max is None:
        return _pw._clamp_min_tensor_out(self, min, out)
    if min is None:
        return _pw._clamp_max_tensor_out(self, max, out)
    it = build((out,), (self, min, max), cast_outputs=True)
    if not it.is_meta:
        dt = it.common_dtype
        if dt not in REAL - BOOL:
            raise _not_implemented("clamp_cpu", dt)
        x, lo, hi = (_in_dtype(v, dt) for v in it.ins_np) if dt is _BF16 else it.ins_np
        with _quiet():
            t = np.maximum(x, lo, dtype=dt.np, casting="unsafe")
            np.minimum(t, hi, out=it.out_np, dtype=dt.np, casting="unsafe")
    return cast_outputs(it)


def clamp_min_Tensor_out(self, min, out):  # noqa: A002, N802
    return _pw._clamp_min_tensor_out(self, min, out)


def clamp_max_Tensor_out(self, max, out):  # noqa: A002, N802
    return _pw._clamp_max_tensor_out(self, max, out)


# -- where, lerp, addcmul, addcdiv -------------------------------------------------------------------------
def _warn_once_uint8_condition():
    """PyTorch's TORCH_WARN_ONCE: the first uint8 condition of the process warns."""
    warn_once("where received a uint8 condition tensor. This behavior is deprecated and will be removed in "
              "a future version of PyTorch. Use a boolean condition instead.")


def where_self_out(condition, self, other, out):
    """``condition ? self : other``; ``self``/``other`` may be Python scalars (the where.Scalar* overloads)."""
    rt = common_dtype((self, other))
    if out is not None and out.dtype is not rt:
        raise RuntimeError(f"Expected out type to be {_dt.name_of(rt)} but got {_dt.name_of(out.dtype)}")
    if condition.dtype is _dt.uint8:
        _warn_once_uint8_condition()
    elif condition.dtype is not _dt.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_dt.name_of(condition.dtype)}")
    # PyTorch casts self and other to rt first and builds without a common dtype: the condition never promotes
    # with them (bool with uint16 or float8 has no promotion, Note [Barebones dtypes])
    it = build((out,), (condition, self, other), static_dtype=rt, promote_inputs=False)
    if not it.is_meta:
        cond, a, b = it.ins_np
        if cond.dtype != _BOOL_NP:
            cond = cond.astype(_BOOL_NP)
        a = scalar_np(self, rt) if type(self) is not TensorImpl else a
        b = scalar_np(other, rt) if type(other) is not TensorImpl else b
        o = it.out_np
        if rt is _C32:  # Note [complex32 kernels]
            _chalf_store(o, np.where(cond, _chalf_operand(a), _chalf_operand(b)))
        elif it.out is self:
            np.copyto(o, b, casting="unsafe", where=~cond)
        elif it.out is other:
            np.copyto(o, a, casting="unsafe", where=cond)
        else:
            np.copyto(o, b, casting="unsafe")
            np.copyto(o, a, casting="unsafe", where=cond)
    return it.out


def _check_same_dtype(self, other, what):
    if self.dtype is not other.dtype:
        raise RuntimeError(f"expected dtype {_TYPEMETA[self.dtype]} for `{what}` but got dtype "
                           f"{_TYPEMETA[other.dtype]}")


def _lerp(start, end, weight, out, c, scalar_weight):
    """``|weight| < 0.5 ? start + weight * (end - start) : end - (end - start) * (1 - weight)`` in opmath,
    each branch one fused multiply-add as in PyTorch's ``lerp_vec``."""
    diff = np.asarray(np.subtract(end, start, dtype=c, casting="unsafe"))
    if scalar_weight:
        w = c.type(weight)
        if abs(weight) < 0.5:
            _fma_into(out, w, diff, start, c)
        else:
            _fma_into(out, -(c.type(1) - w), diff, end, c)
        return
    w = np.asarray(weight).astype(c)
    small = np.abs(w) < 0.5
    one_minus_w = np.subtract(c.type(1), w, dtype=c, casting="unsafe")
    res = np.where(small, _fma(w, diff, start, c), _fma(-one_minus_w, diff, end, c))
    _store_rounded(out, res, c)


_LERP_SCALAR = Dispatch("lerp_kernel_scalar", FLOATING | COMPLEX)
_LERP_TENSOR = Dispatch("lerp_kernel_tensor", FLOATING | COMPLEX)


def lerp_Scalar_out(self, end, weight, out):  # noqa: N802
    _check_same_dtype(self, end, "end")
    it = build((out,), (self, end), cast_outputs=True)
    if not it.is_meta:
        dt = it.common_dtype
        _LERP_SCALAR.check(dt)
        _checked_scalar(weight, _opmath(dt))  # weight.to<opmath_t>()
        with _quiet():
            _lerp(it.ins_np[0], it.ins_np[1], weight, it.out_np, _opmath(dt).np, True)
    return cast_outputs(it)


def lerp_Tensor_out(self, end, weight, out):  # noqa: N802
    _check_same_dtype(self, end, "end")
    if weight.ndim != 0:  # a 0-dim weight promotes with the other operands
        _check_same_dtype(self, weight, "weight")
    it = build((out,), (self, end, weight), cast_outputs=True)
    if not it.is_meta:
        dt = it.common_dtype
        _LERP_TENSOR.check(dt)
        with _quiet():
            _lerp(it.ins_np[0], it.ins_np[1], _in_dtype(it.ins_np[2], dt), it.out_np, _opmath(dt).np, False)
    return cast_outputs(it)


def _scalar_value(value, dt):
    """``value.to<opmath_t>()``: checked, and truncated toward zero for integer dtypes."""
    c = _opmath(dt)
    v = _checked_scalar(value, c)
    return scalar_np(int(value.real if isinstance(value, complex) else value), c) if _is_integral(dt) else v


_ADDCDIV_INT_MSG = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def _addc(op, name, kname):
    """addcmul/addcdiv: ``self + value * tensor1 (*|/) tensor2``, evaluated left to right in opmath (complex32:
    addcmul only, in complex64)."""
    dispatch = Dispatch(kname, INTEGRAL | FLOATING | COMPLEX | (COMPLEX_HALF if op is np.multiply else frozenset()))

    def kernel(self, tensor1, tensor2, value, out=None):
        if name == "addcdiv" and _integral_or_bool(tensor1.dtype) and _integral_or_bool(tensor2.dtype):
            raise RuntimeError(_ADDCDIV_INT_MSG)
        it = build((out,), (self, tensor1, tensor2), cast_outputs=True)
        if not it.is_meta:
            dt = it.common_dtype
            dispatch.check(dt)
            if dt is _C32:  # into a given out= of another dtype directly (numpy cannot cast complex32)
                s, t1, t2 = (_chalf_operand(x) for x in it.ins_np)
                _chalf_store(it.out_np if it.cast_out is None else it.cast_out, s + np.complex64(value) * t1 * t2)
                return it.out
            c = _opmath(dt).np
            s, t1, t2 = (_in_dtype(x, dt) for x in it.ins_np) if c != dt.np else it.ins_np
            with _quiet():
                t = np.multiply(t1, _scalar_value(value, dt), dtype=c, casting="unsafe")
                if op is np.multiply and dt._cat == _dt.FLOAT_CAT:  # fma(value * t1, t2, self)
                    _fma_into(it.out_np, t, t2, s, c)
                else:
                    np.add(s, op(t, t2, dtype=c, casting="unsafe"), out=it.out_np, dtype=c, casting="unsafe")
        return cast_outputs(it)

    kernel.__qualname__ = kernel.__name__ = f"{name}_out"
    return kernel


addcmul_out = _addc(np.multiply, "addcmul", "addcmul_cpu_out")
addcdiv_out = _addc(np.true_divide, "addcdiv", "addcdiv_cpu_out")
