"""Argument checks shared by kernels, with PyTorch's messages (``ATen/native/BinaryOps.h`` alpha_check ...)."""

from __future__ import annotations

from .._core import dtype as _dt

__all__ = ["check_alpha"]


def check_alpha(dtype, alpha) -> None:
    """``alpha`` must fit the computation dtype's category (PyTorch's ``alpha_check``)."""
    if isinstance(alpha, bool):
        if dtype is not _dt.bool:
            return
        return
    if dtype is _dt.bool and alpha is not True:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if dtype._cat <= _dt.INT_CAT and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if not dtype.is_complex and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
