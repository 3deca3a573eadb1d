"""CPU kernels of complex numbers — PyTorch's ``conj_physical``, ``angle`` (``UnaryOps.cpp``) and ``complex`` /
``polar`` (``TensorFactories.cpp``, ``cpu/ComplexKernel.cpp``).

``angle`` of a complex tensor has its real dtype (``unary_op_impl_with_complex_to_float``); of a real one it is
0 or pi (NaN stays NaN), integers promoting to the default float.  ``complex``/``polar`` build a complex tensor
of two real ones of one floating dtype, each part written on its own (``real + 1j * imag`` would turn an
infinite imaginary part into NaN).

Invariant: inputs arrive with their conjugate/negative bits resolved (Note [Math bits]).
"""

from __future__ import annotations

import math

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl
from ...tensor_iterator import build
from .dispatch_types import ALL, BOOL, COMPLEX_HALF, FLOATING, INTEGRAL, Dispatch, not_implemented
from .pointwise_support import unary, unary_complex_to_float

__all__ = ["conj_physical_out", "angle_out", "complex_out", "polar_out"]

_PARTS = (_dt.float16, _dt.float32, _dt.float64)  # complex_check_floating's dtypes


def _conj(x, out, dt):
    np.copyto(out, np.conjugate(x) if dt.is_complex else x, casting="unsafe")


conj_physical_out = unary(_conj, name="conj_physical", ufunc=False, dispatch=Dispatch("conj_cpu", ALL | COMPLEX_HALF))


def _angle_real(x, out, dt):
    with np.errstate(invalid="ignore"):
        np.copyto(out, np.where(np.isnan(x), x, np.where(x < 0, math.pi, 0.0)), casting="unsafe")


_angle_real_out = unary(_angle_real, name="angle", float_op=True, ufunc=False,
                        dispatch=Dispatch("angle_cpu", BOOL | INTEGRAL | FLOATING))


def angle_out(self: TensorImpl, out=None) -> TensorImpl:
    """The argument of each element: of a complex tensor in its real dtype, like ``abs_out``."""
    if not self.dtype.is_complex:
        return _angle_real_out(self, out)
    return unary_complex_to_float(self, out, _complex_angle)


def _complex_angle(x, out):
    if x.dtype.names:  # complex32: torch's angle kernel does not list it
        raise not_implemented("angle_cpu", _dt.complex32)
    np.copyto(out, np.angle(x), casting="unsafe")


def _check_floating(a: TensorImpl, b: TensorImpl) -> None:
    if a.dtype not in _PARTS or b.dtype not in _PARTS:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dt.name_of(a.dtype)} and {_dt.name_of(b.dtype)}")


def _check_dtypes(a: TensorImpl, b: TensorImpl, out) -> None:
    """``complex_check_dtype``: two real parts of one floating dtype, and an ``out`` of its complex dtype."""
    _check_floating(a, b)
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {_dt.name_of(a.dtype)} but got scalar type "
                           f"{_dt.name_of(b.dtype)} for second argument")
    want = a.dtype.to_complex()
    if out is not None and out.dtype is not want:
        raise RuntimeError(f"Expected object of scalar type {_dt.name_of(want)} but got scalar type "
                           f"{_dt.name_of(out.dtype)} for argument 'out'")


def _from_parts(a: TensorImpl, b: TensorImpl, out, parts, kname: str) -> TensorImpl:
    """A complex tensor whose (real, imag) are ``parts(a_np, b_np)``, broadcast as TensorIterator does."""
    _check_dtypes(a, b, out)
    it = build((out,), (a, b), static_dtype=a.dtype.to_complex() if out is None else None, promote_inputs=False)
    if it.is_meta:
        return it.out
    if kname == "polar_cpu" and a.dtype is _dt.float16:
        raise not_implemented(kname, a.dtype)
    re, im = parts(*it.ins_np)
    o = it.out_np
    if o.dtype.names:  # complex32: float16 fields, each part rounded once
        o["real"], o["imag"] = re, im
    else:
        o.real, o.imag = re, im
    return it.out


def complex_out(real: TensorImpl, imag: TensorImpl, out=None) -> TensorImpl:
    return _from_parts(real, imag, out, lambda r, i: (r, i), "complex_cpu")


def _polar_parts(r, theta):
    with np.errstate(invalid="ignore", over="ignore"):
        return r * np.cos(theta), r * np.sin(theta)


def polar_out(abs: TensorImpl, angle: TensorImpl, out=None) -> TensorImpl:  # noqa: A002 - PyTorch's argument names
    return _from_parts(abs, angle, out, _polar_parts, "polar_cpu")
