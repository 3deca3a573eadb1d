"""Pointwise decompositions (CompositeImplicitAutograd) — PyTorch's composites in ``BinaryOps.cpp``,
``UnaryOps.cpp`` and ``TensorCompare.cpp``.

Aliases and thin wrappers call the primitive operator through the dispatcher, exactly as PyTorch's
composite kernels do, so tracing and autograd see ``pow``/``clamp``/``div``/``where``:
``square(x)`` is ``pow(x, 2)``, ``clip`` is ``clamp``, ``true_divide`` is ``div``, and
``where(cond, scalar, other)`` passes the Python number on as a wrapped number (Note [Wrapped numbers]).
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._tensor.impl import TensorImpl
from ..aten import aten

__all__ = ["square", "square_", "square_out", "positive", "clip", "clip_", "clip_out", "clip_Tensor", "clip__Tensor",
           "clip_Tensor_out", "true_divide_Tensor", "true_divide_Scalar", "true_divide__Tensor", "true_divide__Scalar",
           "true_divide_out", "where_ScalarSelf", "where_ScalarOther", "where_Scalar"]


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
