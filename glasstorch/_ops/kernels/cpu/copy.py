"""Copy and fill kernels — PyTorch's ``aten/src/ATen/native/Copy.cpp`` and ``Fill.cpp`` (CPU, on numpy).

``copy_(dst, src)`` writes ``src`` into ``dst`` in place, broadcasting ``src`` to ``dst``'s shape and
converting dtype (float -> int truncates toward zero, nonzero -> True).  Meta tensors check shapes only.
Invariant: ``dst``'s geometry never changes; its version counter is bumped by the caller's layer.
"""

from __future__ import annotations

import warnings

import numpy as np

from ...._core.shape import broadcast_shapes
from ...._tensor.impl import TensorImpl
from ...overlap import check_no_internal_overlap, check_no_partial_overlap

__all__ = ["copy_", "fill_", "check_copy_shapes"]


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def check_copy_shapes(dst: TensorImpl, src_sizes) -> None:
    """``src`` must broadcast to ``dst``'s shape exactly (an output is never broadcast)."""
    if tuple(src_sizes) == dst.sizes:
        return
    out = broadcast_shapes(dst.sizes, src_sizes)
    if out != dst.sizes:
        raise RuntimeError(f"output with shape {_fmt(dst.sizes)} doesn't match the broadcast shape {_fmt(out)}")


def copy_(dst: TensorImpl, src: TensorImpl) -> TensorImpl:
    check_copy_shapes(dst, src.sizes)
    check_no_internal_overlap(dst)
    check_no_partial_overlap(dst, src)
    if dst.storage._data is None:
        return dst
    if src.storage._data is None:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if dst.storage is src.storage and dst.offset == src.offset and dst.sizes == src.sizes \
            and dst.strides == src.strides and dst.dtype is src.dtype:
        return dst  # copying a tensor onto itself
    s = src.as_numpy()
    if src.dtype.is_complex and dst.dtype._name == "bool":
        s = s != 0  # a complex value is True when either part is non-zero
    elif src.dtype.is_complex and not dst.dtype.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        s = s.real
    with np.errstate(invalid="ignore", over="ignore"):
        np.copyto(dst.as_numpy(), s, casting="unsafe")
    return dst


def fill_(dst: TensorImpl, value) -> TensorImpl:
    """Write one scalar into every element, converted to ``dst``'s dtype."""
    if dst.storage._data is None:
        return dst
    arr = dst.as_numpy()
    if isinstance(value, complex) and not dst.dtype.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        value = value.real
    try:
        arr.fill(value)
    except (ValueError, OverflowError, TypeError):
        with np.errstate(invalid="ignore", over="ignore"):
            arr[...] = np.asarray(value).astype(dst.dtype.np)
    return dst
