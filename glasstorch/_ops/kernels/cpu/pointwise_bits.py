"""Integer and floating-point-representation kernels — PyTorch's ``gcd``/``lcm``/``nextafter``
(``BinaryOpsKernel.cpp``), ``signbit`` (``UnarySignKernels.cpp``), ``frexp`` (``UnaryOps.cpp``) and ``ldexp``
(``BinaryOps.cpp``).

gcd and lcm run on the integer dtypes only, nextafter on the floating ones, each with PyTorch's dispatch error
for the others (Note [Kernel dtype tables]); signbit reads the sign bit of any real dtype into a bool tensor;
frexp splits a floating tensor into a mantissa of its dtype (magnitude in [0.5, 1)) and an int32 exponent; ldexp
scales a floating tensor by an integral power of two exactly (C's ldexp), and is ``self * 2 ** other`` otherwise.

Invariant: the structured kernels go through the TensorIterator (broadcast, promotion, out= resizing).
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor.impl import empty_strided_impl
from ... import factories as _fac
from ...aten import aten
from ...tensor_iterator import build, resize_out
from .dispatch_types import FLOATING, INTEGRAL, Dispatch, not_implemented
from .pointwise_support import binary

__all__ = ["gcd_out", "lcm_out", "nextafter_out", "signbit_out", "frexp_Tensor", "frexp_Tensor_out", "ldexp_Tensor",
           "ldexp_out", "ldexp_"]

gcd_out = binary(np.gcd, name="gcd", dispatch=Dispatch("gcd_cpu", INTEGRAL))
lcm_out = binary(np.lcm, name="lcm", dispatch=Dispatch("lcm_cpu", INTEGRAL))


def _nextafter_in_dtype(a, b, buf, dt):
    # the next representable value of the dtype itself: Half/BFloat16 must not step in the float32 opmath
    buf[...] = np.nextafter(np.asarray(a, dtype=dt.np), np.asarray(b, dtype=dt.np))


nextafter_out = binary(_nextafter_in_dtype, name="nextafter", dispatch=Dispatch("nextafter_cpu", FLOATING),
                       ufunc=False)


def signbit_out(self, out=None):
    """True where the sign bit is set: ``x < 0`` for integers, never for bool, ``-0.0`` and ``-nan`` included for
    floats."""
    if self.dtype.is_complex:
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    if out is not None and out.dtype != _dt.bool:
        raise RuntimeError("signbit does not support non-boolean outputs.")
    it = build((out,), (self,), static_dtype=_dt.bool)
    if self.dtype in _dt.FLOAT8_DTYPES and not it.is_meta:
        raise not_implemented("signbit_cpu", self.dtype)
    if it.is_meta:
        return it.out
    x = it.ins_np[0]
    if self.dtype == _dt.bool:
        it.out_np[...] = False
    elif self.dtype.is_floating_point:
        np.signbit(x, out=it.out_np)
    else:
        np.less(x, 0, out=it.out_np)
    return it.out


def frexp_Tensor_out(self, mantissa, exponent):  # noqa: N802
    """``x = mantissa * 2 ** exponent``, computed exactly in float32 for the half types (numpy's frexp)."""
    if not self.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if mantissa.dtype is not self.dtype:
        raise RuntimeError(f"torch.frexp() expects mantissa to have dtype {_dt.cpp_type_name(self.dtype, 'typeid')} "
                           f"but got {_dt.cpp_type_name(mantissa.dtype, 'typeid')}")
    if exponent.dtype is not _dt.int32:
        raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got "
                           f"{_dt.cpp_type_name(exponent.dtype, 'typeid')}")
    resize_out(mantissa, self.sizes)
    resize_out(exponent, self.sizes)
    if self.storage._data is None:
        return mantissa, exponent
    x = self.as_numpy()
    m, e = np.frexp(x.astype(np.float32) if self.dtype in (_dt.float16, _dt.bfloat16) else x)
    np.copyto(mantissa.as_numpy(), m, casting="unsafe")
    np.copyto(exponent.as_numpy(), e, casting="unsafe")
    return mantissa, exponent


def frexp_Tensor(self):  # noqa: N802
    """``frexp`` into fresh tensors laid out like ``self`` (``empty_like``)."""
    strides = _shape.strides_for_format(self.sizes, self.strides, None)
    return frexp_Tensor_out(self, empty_strided_impl(self.sizes, strides, self.dtype, self.device),
                            empty_strided_impl(self.sizes, strides, _dt.int32, self.device))


_INT32 = np.iinfo(np.int32)


def _ldexp_exact(self, other) -> bool:
    """An integral exponent on a floating ``self``: C's ``ldexp`` (PyTorch's ``ldexp_stub``), no power is rounded."""
    return (other.dtype is _dt.bool or other.dtype._cat == _dt.INT_CAT) and self.dtype.is_floating_point


def _ldexp_int_exponent(self, other, out):
    it = build((out,), (self, other), promote_inputs=False, static_dtype=self.dtype)
    if it.is_meta:
        return it.out
    x, e = it.ins_np
    wide = x.astype(np.float32) if self.dtype is _dt.bfloat16 else x
    np.copyto(it.out_np, np.ldexp(wide, np.clip(e, _INT32.min, _INT32.max).astype(np.int32)), casting="unsafe")
    return it.out


def _pow2(self, other):
    """``2 ** other`` as PyTorch's ldexp builds it: a float32 power for integral and float32 ``self``, else a
    power of a 0-dim 2 of ``self``'s dtype (ordinary promotion)."""
    if self.dtype is _dt.bool or self.dtype._cat == _dt.INT_CAT or self.dtype is _dt.float32:
        return aten.pow_Scalar(2.0, other)
    return aten.pow_Tensor_Tensor(_fac.full_impl((), 2.0, self.dtype, self.device), other)


def ldexp_Tensor(self, other):  # noqa: N802
    if _ldexp_exact(self, other):
        return _ldexp_int_exponent(self, other, None)
    return aten.mul_Tensor(self, _pow2(self, other))


def ldexp_out(self, other, out):
    if out.dtype is _dt.bool or out.dtype._cat == _dt.INT_CAT:
        raise RuntimeError(f"ldexp can't be cast to the desired output type {_dt.name_of(out.dtype)}")
    if _ldexp_exact(self, other) and out.dtype is self.dtype:
        return _ldexp_int_exponent(self, other, out)
    return aten.mul_out(self, _pow2(self, other), out)


def ldexp_(self, other):
    return ldexp_out(self, other, self)
