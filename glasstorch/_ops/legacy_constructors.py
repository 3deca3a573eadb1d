"""``Tensor.new(...)`` and ``Tensor.set_(...)`` — PyTorch's hand-written bindings (``legacy_tensor_new`` in
``torch/csrc/utils/tensor_new.cpp``, ``THPVariable_set_`` in ``python_variable_methods.cpp``).

Both parse their overloads with the argument parser (so a bad call gets PyTorch's "invalid combination" text) and
work on TensorImpls.  ``new`` makes a tensor of ``self``'s dtype and device: empty, over a storage, an alias of a
tensor of the same type, of given sizes, or from data (never inferring a dtype); ``set_`` goes to the ``aten::set_``
overloads, after the binding's own check that a TypedStorage has ``self``'s dtype.

Invariant: ``new`` never reads ``self``'s data and never records autograd history.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._core import dtype as _dt
from .._core.shape import Size
from .._tensor.impl import TensorImpl, empty_impl
from .._tensor.typed_storage import TypedStorage
from .aten import aten
from .factories import tensor_impl
from .python_arg_parser import Signatures

__all__ = ["tensor_new", "tensor_set_"]

_NEW = Signatures("new", [
    "new(*, Device? device=None)",
    "new(Storage storage)",
    "new(Tensor other)",
    "new(Tensor other, *, Device? device=None)|hidden",
    "new(SymInt[] size, *, Device? device=None)",
    "new(Any data, *, Device? device=None)",
], is_method=True)

_SET = Signatures("set_", [
    "set_()",
    "set_(Storage source)",
    "set_(Storage source, SymInt storage_offset, SymInt[] size, SymInt[] stride=None)",
    "set_(Tensor source)",
    "set_(Tensor source, SymInt storage_offset, SymInt[] size, SymInt[] stride=None)",
], is_method=True)


def _check_device(self: TensorImpl, device) -> None:
    """``check_legacy_ctor_device``: a legacy constructor keeps its tensor's device type."""
    if device is not None and device.type != self.device.type:
        raise RuntimeError(f"legacy constructor expects device type: {self.device.type} but device type: "
                           f"{device.type} was passed")


def _options(impl: TensorImpl) -> str:
    return (f"TensorOptions(dtype={_dt.cpp_type_name(impl.dtype, 'typeid')}, device={impl.device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _untyped(storage, self: TensorImpl, expected: str):
    """The UntypedStorage behind ``storage``; a TypedStorage must hold ``self``'s dtype."""
    if isinstance(storage, TypedStorage):
        if storage.dtype is not self.dtype:
            raise RuntimeError(f"Expected a Storage of type {expected} or an UntypedStorage, but got type "
                               f"{storage.dtype._short} for argument 1 'storage'")
        return storage._untyped_storage
    return storage


def tensor_new(self: TensorImpl, args, kwargs) -> TensorImpl:
    """``self.new(*args, **kwargs)`` (PyTorch's legacy_tensor_new)."""
    idx, r = _NEW.parse(args, kwargs)
    if idx == 0:
        _check_device(self, r[0])
        return empty_impl((0,), self.dtype, self.device)
    if idx == 1:
        storage = _untyped(r[0], self, self.dtype._short)
        out = empty_impl((0,), self.dtype, self.device)
        return aten.set__source_Storage(out, storage)
    if idx == 2:
        other = r[0]
        if other.dtype is not self.dtype or other.device != self.device:
            raise TypeError(f"expected {_options(self)} (got {_options(other)})")
        return aten.alias(other)
    if idx == 3:
        raise RuntimeError("Legacy tensor new of the form tensor.new(tensor, device=device) is not supported.  Use "
                           "torch.as_tensor(...) instead.")
    _check_device(self, r[1])
    data = r[0]
    if idx == 4:
        if not (args and args[0] is not None and isinstance(args[0], (list, tuple)) and not isinstance(args[0], Size)):
            return empty_impl(tuple(r[0]), self.dtype, self.device)
        data = args[0]  # new([2, 3]) binds the sizes overload but is data (a torch.Size stays sizes)
    if not isinstance(data, (Sequence, np.ndarray)):  # PySequence_Check
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return tensor_impl(data, self.dtype, self.device)


def tensor_set_(self: TensorImpl, args, kwargs) -> TensorImpl:
    """``self.set_(*args, **kwargs)``: the overload by its arguments, then ``aten::set_``."""
    idx, r = _SET.parse(args, kwargs)
    if idx == 0:
        return aten.set_(self)
    if idx == 3:
        return aten.set__source_Tensor(self, r[0])
    if idx == 4:
        source = r[0]
        return aten.set__source_Storage_storage_offset(self, source.storage, r[1], r[2], r[3] or ())
    storage = _untyped(r[0], self, _dt.cpp_type_name(self.dtype, "typeid"))
    if idx == 1:
        return aten.set__source_Storage(self, storage)
    return aten.set__source_Storage_storage_offset(self, storage, r[1], r[2], r[3] or ())
