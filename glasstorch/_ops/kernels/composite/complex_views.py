"""The views of complex numbers — PyTorch's ``aten/src/ATen/native/ComplexHelper.h`` and the ``_conj`` /
``_neg_view`` kernels of ``UnaryOps.cpp``.

``_conj`` and ``_neg_view`` alias their input with the conjugate (negative) bit flipped (Note [Math bits] in
``_ops/math_bits.py``); ``view_as_real`` reads a complex tensor as its (real, imag) pairs: one more dim of size
2 and stride 1, every other stride and the storage offset doubled, in units of the real dtype;
``view_as_complex`` is its inverse.  Metadata only, so one kernel serves every backend, meta included.

``_conj_physical`` and ``conj_physical_`` (which do read elements) call the CPU kernel through the dispatcher.

Invariant: a view shares the input's storage and version counter; no element is read.
"""

from __future__ import annotations

from ...._core import dtype as _dt
from ...._core.dispatch_key import bit
from ...._tensor.impl import TensorImpl
from ...aten import aten

__all__ = ["conj_view", "neg_view", "view_as_real", "view_as_complex", "conj_physical_functional",
           "conj_physical_inplace"]

_CONJ_BIT, _NEG_BIT = bit("Conjugate"), bit("Negative")
_COMPLEX_PARTS = (_dt.float16, _dt.float32, _dt.float64)  # the real dtypes view_as_complex accepts


def _flipped(self: TensorImpl, flag: int) -> TensorImpl:
    out = self.view_impl(self.sizes, self.strides, self.offset)
    out.key_set = self.key_set ^ flag
    return out


def conj_view(self: TensorImpl) -> TensorImpl:
    """``_conj``: the same elements, conjugated lazily."""
    return _flipped(self, _CONJ_BIT)


def neg_view(self: TensorImpl) -> TensorImpl:
    """``_neg_view``: the same elements, negated lazily."""
    return _flipped(self, _NEG_BIT)


def _reinterpreted(self: TensorImpl, dtype, sizes, strides, offset) -> TensorImpl:
    out = self.view_impl(tuple(sizes), tuple(strides), offset)
    out.dtype = dtype
    return out


def view_as_real(self: TensorImpl) -> TensorImpl:
    if self.is_conj():
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                           "resulting tensor will NOT alias the original.")
    if not self.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return _reinterpreted(self, self.dtype.to_real(), self.sizes + (2,), tuple(2 * s for s in self.strides) + (1,),
                          2 * self.offset)


def view_as_complex(self: TensorImpl) -> TensorImpl:
    if self.dtype not in _COMPLEX_PARTS:
        raise RuntimeError(f"view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {_dt.name_of(self.dtype)}")
    if not self.sizes:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if self.sizes[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if self.strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 and n != 1 for s, n in zip(self.strides[:-1], self.sizes[:-1], strict=True)):  # size 1: any stride
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self.offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return _reinterpreted(self, self.dtype.to_complex(), self.sizes[:-1], tuple(s // 2 for s in self.strides[:-1]),
                          self.offset // 2)


def conj_physical_functional(self: TensorImpl) -> TensorImpl:
    """``_conj_physical``: a new tensor holding the conjugated values."""
    return aten.conj_physical_out(self, None)


def conj_physical_inplace(self: TensorImpl) -> TensorImpl:
    """``conj_physical_``: conjugate the stored values (nothing to do for a real tensor)."""
    return aten.conj_physical_out(self, self) if self.dtype.is_complex else self
