"""Pointwise decompositions (CompositeImplicitAutograd) — PyTorch's composites in ``BinaryOps.cpp``,
``UnaryOps.cpp`` and ``TensorCompare.cpp``.

Aliases and thin wrappers call the primitive operator through the dispatcher, exactly as PyTorch's
composite kernels do, so tracing and autograd see ``pow``/``clamp``/``div``/``where``:
``square(x)`` is ``pow(x, 2)``, ``clip`` is ``clamp``, ``true_divide`` is ``div``, and
``where(cond, scalar, other)`` passes the Python number on as a wrapped number (Note [Wrapped numbers]);
``float_power`` is ``pow`` with both operands in double (complex double when either is complex).
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._tensor.impl import TensorImpl
from ..aten import aten

__all__ = ["square", "square_", "square_out", "positive", "clip", "clip_", "clip_out", "clip_Tensor", "clip__Tensor",
           "clip_Tensor_out", "true_divide_Tensor", "true_divide_Scalar", "true_divide__Tensor", "true_divide__Scalar",
           "true_divide_out", "where_ScalarSelf", "where_ScalarOther", "where_Scalar", "float_power_Tensor_Tensor",
           "float_power_Tensor_Tensor_out", "float_power_Scalar", "float_power_Scalar_out", "float_power_Tensor_Scalar",
           "float_power_Tensor_Scalar_out", "float_power__Tensor", "float_power__Scalar"]


def square(self: TensorImpl) -> TensorImpl:
    return aten.pow_Tensor_Scalar(self, 2)


def square_(self: TensorImpl) -> TensorImpl:
    return aten.pow__Scalar(self, 2)


def square_out(self: TensorImpl, out: TensorImpl) -> TensorImpl:
    return aten.pow_Tensor_Scalar_out(self, 2, out)


def positive(self: TensorImpl) -> TensorImpl:
    """``+x`` is ``x`` itself (an alias, not a copy)."""
    if self.dtype is _dt.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def clip(self, min=None, max=None):  # noqa: A002 - PyTorch's argument names
    return aten.clamp(self, min, max)


def clip_(self, min=None, max=None):  # noqa: A002
    return aten.clamp_(self, min, max)


def clip_out(self, min, max, out):  # noqa: A002
    return aten.clamp_out(self, min, max, out)


def clip_Tensor(self, min=None, max=None):  # noqa: A002, N802
    return aten.clamp_Tensor(self, min, max)


def clip__Tensor(self, min=None, max=None):  # noqa: A002, N802
    return aten.clamp__Tensor(self, min, max)


def clip_Tensor_out(self, min, max, out):  # noqa: A002, N802
    return aten.clamp_Tensor_out(self, min, max, out)


def true_divide_Tensor(self, other):  # noqa: N802
    return aten.div_Tensor(self, other)


def true_divide_Scalar(self, other):  # noqa: N802
    return aten.div_Scalar(self, other)


def true_divide__Tensor(self, other):  # noqa: N802
    return aten.div__Tensor(self, other)


def true_divide__Scalar(self, other):  # noqa: N802
    return aten.div__Scalar(self, other)


def true_divide_out(self, other, out):
    return aten.div_out(self, other, out)


def where_ScalarSelf(condition, self, other):  # noqa: N802
    return aten.where_self(condition, self, other)


def where_ScalarOther(condition, self, other):  # noqa: N802
    return aten.where_self(condition, self, other)


def where_Scalar(condition, self, other):  # noqa: N802
    return aten.where_self(condition, self, other)


# -- float_power (Pow.cpp): pow in double (complex double when either operand is complex) ----------------------
def _float_power_dtype(*operands):
    complex_ = any(o.dtype.is_complex if isinstance(o, TensorImpl) else isinstance(o, complex) for o in operands)
    return _dt.complex128 if complex_ else _dt.float64


def _as(t: TensorImpl, dtype) -> TensorImpl:
    return t if t.dtype is dtype else aten._to_copy(t, dtype, None, None, None, False, None)


def _as_scalar(s, dtype):
    return complex(s) if dtype.is_complex else float(s)


def _check_float_power(t: TensorImpl, dtype, what: str) -> None:
    if t.dtype is not dtype:
        raise RuntimeError(f"the {what} has dtype {t.dtype._short} but the operation's result requires dtype "
                           f"{dtype._short}")


def float_power_Tensor_Tensor(self: TensorImpl, exponent: TensorImpl) -> TensorImpl:  # noqa: N802
    dtype = _float_power_dtype(self, exponent)
    return aten.pow_Tensor_Tensor(_as(self, dtype), _as(exponent, dtype))


def float_power_Tensor_Tensor_out(self: TensorImpl, exponent: TensorImpl, out: TensorImpl) -> TensorImpl:  # noqa: N802
    dtype = _float_power_dtype(self, exponent)
    _check_float_power(out, dtype, "output given to float_power")
    return aten.pow_Tensor_Tensor_out(_as(self, dtype), _as(exponent, dtype), out)


def float_power_Scalar(self, exponent: TensorImpl) -> TensorImpl:  # noqa: N802
    dtype = _float_power_dtype(self, exponent)
    return aten.pow_Scalar(_as_scalar(self, dtype), _as(exponent, dtype))


def float_power_Scalar_out(self, exponent: TensorImpl, out: TensorImpl) -> TensorImpl:  # noqa: N802
    dtype = _float_power_dtype(self, exponent)
    _check_float_power(out, dtype, "output given to float_power")
    return aten.pow_Scalar_out(_as_scalar(self, dtype), _as(exponent, dtype), out)


def float_power_Tensor_Scalar(self: TensorImpl, exponent) -> TensorImpl:  # noqa: N802
    dtype = _float_power_dtype(self, exponent)
    return aten.pow_Tensor_Scalar(_as(self, dtype), _as_scalar(exponent, dtype))


def float_power_Tensor_Scalar_out(self: TensorImpl, exponent, out: TensorImpl) -> TensorImpl:  # noqa: N802
    dtype = _float_power_dtype(self, exponent)
    _check_float_power(out, dtype, "output given to float_power")
    return aten.pow_Tensor_Scalar_out(_as(self, dtype), _as_scalar(exponent, dtype), out)


def float_power__Tensor(self: TensorImpl, exponent: TensorImpl) -> TensorImpl:  # noqa: N802
    dtype = _float_power_dtype(self, exponent)
    _check_float_power(self, dtype, "base given to float_power_")
    return aten.pow__Tensor(self, _as(exponent, dtype))


def float_power__Scalar(self: TensorImpl, exponent) -> TensorImpl:  # noqa: N802
    dtype = _float_power_dtype(self, exponent)
    _check_float_power(self, dtype, "base given to float_power_")
    return aten.pow__Scalar(self, _as_scalar(exponent, dtype))

