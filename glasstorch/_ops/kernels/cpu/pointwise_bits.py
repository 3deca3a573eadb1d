"""Integer and floating-point-representation kernels — PyTorch's ``gcd``/``lcm``/``nextafter``
(``BinaryOpsKernel.cpp``) and ``signbit`` (``UnarySignKernels.cpp``).

gcd and lcm run on the integer dtypes only, nextafter on the floating ones, each with PyTorch's dispatch error
for the others (Note [Kernel dtype tables]); signbit reads the sign bit of any real dtype into a bool tensor.

Invariant: the structured kernels go through the TensorIterator (broadcast, promotion, out= resizing).
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...tensor_iterator import build
from .dispatch_types import FLOATING, INTEGRAL, Dispatch
from .pointwise_support import binary

__all__ = ["gcd_out", "lcm_out", "nextafter_out", "signbit_out"]

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
