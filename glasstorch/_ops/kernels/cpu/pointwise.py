"""Pointwise CPU kernels — PyTorch's ``BinaryOps.cpp``, ``UnaryOps.cpp`` and their ``cpu/*Kernel.cpp``.

Every kernel is *structured*: it takes its ``out`` argument (None to allocate) last, lets
TensorIterator check, promote and allocate, and then runs one numpy ufunc with ``dtype=`` the common
dtype (numpy casts inside its loop).  The same function serves the Meta key: on meta operands the
iterator returns before any data is touched, which is how structured kernels get meta support for
free in PyTorch.

Templates: ``unary(ufunc, float_op=...)`` and ``binary(ufunc, ...)`` build kernels; the names below are
what ``native_functions/*.yaml`` ``dispatch:`` entries refer to.

Invariant: kernels compute in the common dtype and write into ``it.out`` only.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...checks import check_alpha
from ...tensor_iterator import build

__all__ = ["unary", "binary", "add_out", "sub_out", "mul_out", "div_out", "neg_out", "sin_out"]


def unary(ufunc, *, int_to_float=False, name=None):
    """A structured unary kernel: ``kernel(self, out)``."""

    def kernel(self, out):
        it = build((out,), (self,), int_to_float=int_to_float, check_same_dtype=not int_to_float)
        if not it.is_meta:
            ufunc(it.ins_np[0], out=it.out_np, dtype=it.common_dtype.np, casting="unsafe")
        return it.out
    kernel.__qualname__ = kernel.__name__ = f"{name or ufunc.__name__}_out"
    return kernel


def binary(ufunc, *, int_to_float=False, name=None):
    """A structured binary kernel: ``kernel(self, other, out)``."""

    def kernel(self, other, out):
        it = build((out,), (self, other), int_to_float=int_to_float)
        if not it.is_meta:
            ufunc(it.ins_np[0], it.ins_np[1], out=it.out_np, dtype=it.common_dtype.np, casting="unsafe")
        return it.out
    kernel.__qualname__ = kernel.__name__ = f"{name or ufunc.__name__}_out"
    return kernel


def _alpha_binary(ufunc, name):
    """add/sub with ``alpha``: ``self (+|-) alpha * other`` computed in the common dtype."""

    def kernel(self, other, alpha, out):
        it = build((out,), (self, other))
        check_alpha(it.common_dtype, alpha)
        if not it.is_meta:
            a, b = it.ins_np
            dt = it.common_dtype.np
            if alpha != 1:
                b = np.multiply(b, np.asarray(alpha).astype(dt), dtype=dt, casting="unsafe")
            ufunc(a, b, out=it.out_np, dtype=dt, casting="unsafe")
        return it.out
    kernel.__qualname__ = kernel.__name__ = f"{name}_out"
    return kernel


add_out = _alpha_binary(np.add, "add")
sub_out = _alpha_binary(np.subtract, "sub")
mul_out = binary(np.multiply, name="mul")
div_out = binary(np.true_divide, int_to_float=True, name="div")
neg_out = unary(np.negative, name="neg")
sin_out = unary(np.sin, int_to_float=True, name="sin")
