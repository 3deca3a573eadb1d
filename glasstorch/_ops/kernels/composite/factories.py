"""Factory kernels declared in ``native_functions/factories.yaml`` — PyTorch's ``TensorFactories.cpp``.

CompositeExplicitAutograd: one kernel for every backend (the BackendSelect layer has already chosen it from
``device``).  Invariant: a factory returns a fresh tensor; an unset dtype is the default dtype, as
``TensorOptions`` gives in PyTorch.
"""

from __future__ import annotations

from ...._core import dtype as _dt
from ...._core.device import CPU, as_device
from ...._tensor.impl import TensorImpl
from ...factories import full_impl

__all__ = ["scalar_tensor"]


def scalar_tensor(s, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    """``scalar_tensor(s)``: a 0-dim tensor holding ``s``, of the default dtype whatever ``s``'s type is
    (``fill_``'s checks: a complex or out-of-range ``s`` raises)."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    return full_impl((), s, dtype, CPU if device is None else as_device(device))
