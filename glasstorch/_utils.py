"""Tensor rebuild functions for checkpoints — PyTorch's ``torch/_utils.py`` (``_rebuild_tensor_v2`` & co).

A checkpoint's pickle names these functions (as ``torch._utils._rebuild_tensor_v2``, ...) and calls them
with a storage and the tensor's geometry; :mod:`glasstorch.serialization` maps those names to the functions
here, so files written by PyTorch load in glasstorch and the other way round.

Storages in a checkpoint are typed: PyTorch pickles a tensor's storage as ``torch.FloatStorage``-style
records.  :class:`TypedStorage` (``_tensor/typed_storage.py``, what ``tensor.storage()`` returns) is that pairing
(an :class:`UntypedStorage` plus the dtype it is read as); :class:`StorageType` stands in for the legacy
``torch.<Type>Storage`` classes when loading.

Invariant: a rebuilt tensor is a new TensorImpl over the given storage (never a copy), with exactly the
saved sizes, strides and offset; two tensors rebuilt over one storage share memory.  PyTorch's lazy conj/neg bits
travel as the rebuild's metadata and are set again on the rebuilt tensor.
"""

from __future__ import annotations

from collections import OrderedDict

from . import nn as _nn
from ._core import dtype as _dt
from ._core import layout as _layout
from ._core.device import as_device
from ._sparse_functions import sparse_compressed_tensor, sparse_coo_tensor
from ._tensor.impl import from_numpy_impl, storage_nbytes_for
from ._tensor.storage import UntypedStorage
from ._tensor.typed_storage import TypedStorage
from .tensor import (  # noqa: F401  (the pickling half of the tensor layer, re-exported under torch's names)
    Tensor,
    _as_subclass,
    _get_obj_state,
    _rebuild_from_type_v2,
    _rebuild_pickled_tensor,
    _rebuild_wrapper_subclass,
    _set_obj_state,
    _tensor_over,
    get_tensor_metadata,
    set_tensor_metadata,
    wrap,
)

__all__ = ["TypedStorage", "StorageType", "STORAGE_TYPE_NAMES", "V3_DTYPES", "parameter_class"]

# dtype -> the legacy storage class name PyTorch pickles (``_dtype_to_storage_type_map``)
STORAGE_TYPE_NAMES = {
    _dt.float64: "DoubleStorage", _dt.float32: "FloatStorage", _dt.float16: "HalfStorage", _dt.int64: "LongStorage",
    _dt.int32: "IntStorage", _dt.int16: "ShortStorage", _dt.int8: "CharStorage", _dt.uint8: "ByteStorage",
    _dt.bool: "BoolStorage", _dt.bfloat16: "BFloat16Storage", _dt.complex128: "ComplexDoubleStorage",
    _dt.complex64: "ComplexFloatStorage",
}
_DTYPE_OF_STORAGE_TYPE = {name: dt for dt, name in STORAGE_TYPE_NAMES.items()}
# dtypes PyTorch saves as an UntypedStorage plus a dtype argument (``_rebuild_tensor_v3``)
V3_DTYPES = (_dt.complex32,) + _dt.BAREBONES_UNSIGNED + _dt.FLOAT8_DTYPES


class StorageType:
    """The load-side stand-in for ``torch.FloatStorage`` & co: only its dtype matters."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str):
        if name not in _DTYPE_OF_STORAGE_TYPE:
            raise KeyError(name)
        self.name = name
        self.dtype = _DTYPE_OF_STORAGE_TYPE[name]

    def __repr__(self):
        return f"StorageType(dtype={self.dtype})"

    def __eq__(self, other):
        return isinstance(other, StorageType) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


def parameter_class():
    """``nn.Parameter`` if the nn layer defines it yet, else None (then parameters load as plain tensors)."""
    return getattr(_nn, "Parameter", None)


def _element_size(dtype) -> int:
    return dtype.itemsize


def _rebuild_tensor(storage, storage_offset, size, stride) -> Tensor:
    """A tensor of ``storage``'s dtype over ``storage`` with this geometry (``set_``), bounds-checked."""
    untyped = storage._untyped_storage if isinstance(storage, TypedStorage) else storage
    return _tensor_over(untyped, storage.dtype, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    tensor = set_tensor_metadata(tensor, metadata)
    tensor.requires_grad = requires_grad
    return tensor


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    untyped = storage._untyped_storage if isinstance(storage, TypedStorage) else storage
    tensor = _tensor_over(untyped, dtype, storage_offset, size, stride)
    tensor = set_tensor_metadata(tensor, metadata)
    tensor.requires_grad = requires_grad
    return tensor


def _rebuild_parameter(data, requires_grad, backward_hooks):
    cls = parameter_class()
    if cls is None:
        return data.detach().requires_grad_(requires_grad)
    return cls(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    untyped = UntypedStorage(storage_nbytes_for(tuple(size), tuple(stride), 0, dtype.itemsize), device="meta")
    tensor = _tensor_over(untyped, dtype, 0, size, stride)
    tensor.requires_grad = requires_grad
    return tensor


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    tensor = data.to(dtype=dtype, device=as_device(device))
    tensor.requires_grad = requires_grad
    return tensor


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    tensor = wrap(from_numpy_impl(data, _dt.from_numpy_dtype(data.dtype))).to(dtype=dtype, device=as_device(device))
    tensor.requires_grad = requires_grad
    return tensor


def _rebuild_sparse_tensor(layout, data) -> Tensor:
    """A sparse tensor from its pickled parts: ``(indices, values, size[, is_coalesced])`` for COO,
    ``(compressed_indices, plain_indices, values, size)`` for the compressed layouts (PyTorch's
    ``_rebuild_sparse_tensor``; the invariants are not checked, as PyTorch defers them)."""
    if layout is _layout.sparse_coo:
        indices, values, size = data[:3]
        is_coalesced = data[3] if len(data) > 3 else None
        return sparse_coo_tensor(indices, values, size, check_invariants=False, is_coalesced=is_coalesced)
    if layout in (_layout.sparse_csr, _layout.sparse_csc, _layout.sparse_bsr, _layout.sparse_bsc):
        compressed_indices, plain_indices, values, size = data
        return sparse_compressed_tensor(compressed_indices, plain_indices, values, size, layout=layout,
                                        check_invariants=False)
    raise NotImplementedError(f"rebuilding sparse tensor for layout {layout}")


_LAYOUTS = {repr(v): v for v in vars(_layout).values() if isinstance(v, _layout.layout)}


def _get_layout(name: str):
    """The layout named ``name`` (``'torch.strided'`` ...): pickled layouts come back through this, as in PyTorch
    (an unknown name raises KeyError there too)."""
    return _LAYOUTS[name]


def empty_hooks() -> OrderedDict:
    """The backward-hooks slot of a pickled tensor: always empty (PyTorch's Note [Don't serialize hooks])."""
    return OrderedDict()


def _tensor_setstate(t: Tensor, state) -> None:
    """PyTorch's ``Tensor.__setstate__`` for very old checkpoints that BUILD a tensor.

    A 4-tuple ``(storage, offset, size, stride)`` re-points the tensor (``set_``); a 5-tuple is a legacy
    Variable ``(data, _, hooks, requires_grad, _)``; otherwise ``(requires_grad, _, hooks)``.
    """
    if not isinstance(state, tuple) or len(state) not in (3, 4, 5):
        raise RuntimeError(f"Invalid serialized tensor state: {state!r}")
    if len(state) == 4:
        t.data = _rebuild_tensor(*state)
        return
    if len(state) == 5:
        t.data = state[0]
        state = (state[3], state[4], state[2])
    t.requires_grad = bool(state[0])
