"""``isposinf`` and ``isneginf`` — PyTorch's structured ``TensorCompare.cpp`` kernels: a bool tensor, True where
a floating value is +inf (-inf); an integer or bool tensor holds no infinity. Complex inputs and non-bool
``out=`` tensors are refused with PyTorch's messages.

Invariant: the kernels go through the TensorIterator (out= resizing, overlap and device checks).
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...tensor_iterator import build
from .dispatch_types import not_implemented

__all__ = ["isposinf_out", "isneginf_out"]


def _infinity_test(name: str, test):
    def kernel(self, out=None):
        if self.dtype.is_complex:
            raise RuntimeError(f"{name} does not support complex inputs.")
        if out is not None and out.dtype != _dt.bool:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
        it = build((out,), (self,), static_dtype=_dt.bool)
        if it.is_meta:
            return it.out
        if self.dtype in _dt.FLOAT8_DTYPES:
            raise not_implemented(f"{name}_cpu", self.dtype)
        if self.dtype.is_floating_point:
            test(it.ins_np[0], out=it.out_np)
        else:
            it.out_np[...] = False
        return it.out
    kernel.__name__ = kernel.__qualname__ = f"{name}_out"
    return kernel


isposinf_out = _infinity_test("isposinf", np.isposinf)
isneginf_out = _infinity_test("isneginf", np.isneginf)
