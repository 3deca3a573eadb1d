"""TypedStorage — PyTorch's deprecated ``torch.TypedStorage`` (``torch/storage.py``): an UntypedStorage read as
elements of one dtype.

``tensor.storage()`` returns one over the tensor's own storage (``_untyped_storage`` is that very object), so
writes through either are seen by both.  Its size counts whole elements of the dtype over the entire storage,
not the tensor's view of it.  Making one warns once per process, as PyTorch does, that the class is deprecated.
The legacy classes (``FloatStorage`` ...) make TypedStorages of their dtype and recognise them in ``isinstance``.

Invariant: a TypedStorage never owns bytes of its own: every read and write goes to ``_untyped_storage``.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._core import dtype as _dt
from .._core.device import as_device
from .storage import UntypedStorage

__all__ = ["TypedStorage", "warn_typed_storage_removal", "LEGACY_STORAGES", "DoubleStorage", "FloatStorage",
           "HalfStorage", "BFloat16Storage", "LongStorage", "IntStorage", "ShortStorage", "CharStorage", "ByteStorage",
           "BoolStorage", "ComplexDoubleStorage", "ComplexFloatStorage"]

_REMOVAL = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage "
            "class. This should only matter to you if you are using storages directly.  To access UntypedStorage "
            "directly, use tensor.untyped_storage() instead of tensor.storage()")
_warned = [False]  # PyTorch's _warn_typed_storage_removal.has_warned: once per process


def warn_typed_storage_removal(stacklevel: int = 3) -> None:
    """PyTorch's deprecation warning, given the first time only."""
    if not _warned[0]:
        _warned[0] = True
        warnings.warn(_REMOVAL, UserWarning, stacklevel=stacklevel)


def _legacy_name(dtype) -> str:
    return dtype._tensor_type.removesuffix("Tensor") + "Storage"  # FloatTensor -> FloatStorage


class TypedStorage:
    """Elements of ``dtype`` over an UntypedStorage (``torch.TypedStorage``).

    Args:
        *args: nothing (empty), an element count, or a sequence of values.
        dtype: the element type (default: the default float dtype).
        device: where a new storage is allocated.
        wrap_storage: an UntypedStorage to read instead of allocating one.

    Example:
        >>> import glasstorch as torch
        >>> torch.arange(3.0).storage().tolist()
        [0.0, 1.0, 2.0]
    """

    is_sparse = False

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            warn_typed_storage_removal()
        self.dtype = _dt.get_default_dtype() if dtype is None else dtype
        if wrap_storage is not None:
            if args or device is not None:
                raise RuntimeError("TypedStorage.__init__(): wrap_storage takes no other arguments than dtype")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"expected a Storage object for argument 'wrap_storage', but got "
                                f"{type(wrap_storage)}")
            self._untyped_storage = wrap_storage
            return
        dev = as_device(device)
        if not args:
            self._untyped_storage = UntypedStorage(0, device=dev)
        elif len(args) == 1 and isinstance(args[0], int):
            self._untyped_storage = UntypedStorage(args[0] * self.dtype.itemsize, device=dev)
        elif len(args) == 1:
            values = np.asarray(list(args[0])).astype(self.dtype.np)
            self._untyped_storage = UntypedStorage(values.view(np.uint8).reshape(-1).tolist(), device=dev)
        else:
            raise RuntimeError(f"TypedStorage.__init__() takes at most one positional argument, got {len(args)}")

    @classmethod
    def _new_wrapped(cls, untyped: UntypedStorage, dtype) -> TypedStorage:
        """A TypedStorage over ``untyped``, without the deprecation warning (``tensor.storage()``, checkpoints)."""
        return cls(wrap_storage=untyped, dtype=dtype, _internal=True)

    # -- sizes and identity ----------------------------------------------------------------------------------------
    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def type(self) -> str:
        return f"torch.{_legacy_name(self.dtype)}"

    @property
    def _cdata(self) -> int:
        """The identity of the storage underneath (PyTorch's StorageImpl address): equal for two typed views
        of one storage, different for two storages."""
        return id(self._untyped_storage)

    def _size(self) -> int:
        return self.size()

    def fill_(self, value) -> TypedStorage:
        """Set every element to ``value`` (in this storage's dtype)."""
        if self.device.type == "meta":
            return self
        self._elements()[:] = value
        return self

    def clone(self) -> TypedStorage:
        return TypedStorage._new_wrapped(self._untyped_storage.clone(), self.dtype)

    def cpu(self) -> TypedStorage:
        """A TypedStorage over the host copy (over the same bytes, when they already are on the host)."""
        return TypedStorage._new_wrapped(self._untyped_storage.cpu(), self.dtype)

    # -- elements ----------------------------------------------------------------------------------------------------
    def _elements(self) -> np.ndarray:
        """The whole storage as a 1-d numpy array of ``dtype`` (a view: writes reach the storage)."""
        data = self._untyped_storage.bytes_view()
        return data[: self.size() * self.dtype.itemsize].view(self.dtype.np)

    def _what(self) -> str:
        return "<class 'torch.storage.TypedStorage'>"

    def _index(self, idx) -> int:
        """PyTorch's ``_getitem`` checks then ``_maybe_wrap_index`` (which refuses a bool, an int subclass)."""
        if self.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a {self._what()} with {type(idx)}")
        if type(idx) is not int:
            raise TypeError(f"can't index a {self._what()} with {type(idx)}")
        n = self.size()
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return idx + n if idx < 0 else idx

    def __getitem__(self, idx):
        i = self._index(idx)
        value = self._elements()[i]
        if self.dtype in (_dt.bfloat16, _dt.float16):
            return float(value)
        return value.item()

    def __setitem__(self, idx, value):
        """As PyTorch: ``tensor([]).set_(self)[idx] = value`` (so a bad index gets the tensor's message)."""
        if not isinstance(idx, (int, slice)):
            raise RuntimeError(f"can't index a {self._what()} with {type(idx)}")
        if isinstance(value, (TypedStorage, UntypedStorage)):
            raise RuntimeError(f"cannot set item with value type <class 'torch.storage.{type(value).__name__}'>")
        n = self.size()
        if isinstance(idx, int) and not -n <= idx < n:
            raise IndexError(f"index {idx} is out of bounds for dimension 0 with size {n}")
        self._elements()[idx] = value

    def tolist(self) -> list:
        return [self[i] for i in range(self.size())]

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        info = f"[torch.storage.TypedStorage(dtype={self.dtype!r}, device={self.device}) of size {len(self)}]"
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info

    __str__ = __repr__


# -- the legacy per-dtype classes: torch.FloatStorage & co ----------------------------------------------------------
class _LegacyStorageMeta(type):
    """``isinstance(s, FloatStorage)`` holds for a CPU TypedStorage of that dtype, as PyTorch's metaclass has it."""

    def __instancecheck__(cls, instance):
        if type(instance) is TypedStorage and cls.dtype is not None:
            return instance.dtype is cls.dtype and instance.device.type == "cpu"
        return super().__instancecheck__(instance)


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """``FloatStorage(...)`` makes a TypedStorage of the class's dtype (the class is never instantiated itself)."""

    dtype = None

    def __new__(cls, *args, wrap_storage=None, **kwargs):
        if kwargs:
            raise RuntimeError(f"<class 'torch.{cls.__name__}'>.__new__ received an invalid combination of arguments. "
                               "Expected one of:\n * no arguments\n * (int size)\n * (Sequence data)\n"
                               f" * (*, UntypedStorage wrap_storage)\nKeyword argument '{next(iter(kwargs))}' cannot "
                               "be specified")
        return TypedStorage(*args, dtype=cls.dtype, wrap_storage=wrap_storage)


def _legacy(name: str, dtype) -> type:
    return _LegacyStorageMeta(name, (_LegacyStorage,), {"dtype": dtype, "__doc__": f"``torch.{name}``."})


DoubleStorage = _legacy("DoubleStorage", _dt.float64)
FloatStorage = _legacy("FloatStorage", _dt.float32)
HalfStorage = _legacy("HalfStorage", _dt.float16)
BFloat16Storage = _legacy("BFloat16Storage", _dt.bfloat16)
LongStorage = _legacy("LongStorage", _dt.int64)
IntStorage = _legacy("IntStorage", _dt.int32)
ShortStorage = _legacy("ShortStorage", _dt.int16)
CharStorage = _legacy("CharStorage", _dt.int8)
ByteStorage = _legacy("ByteStorage", _dt.uint8)
BoolStorage = _legacy("BoolStorage", _dt.bool)
ComplexDoubleStorage = _legacy("ComplexDoubleStorage", _dt.complex128)
ComplexFloatStorage = _legacy("ComplexFloatStorage", _dt.complex64)
LEGACY_STORAGES = (DoubleStorage, FloatStorage, HalfStorage, BFloat16Storage, LongStorage, IntStorage, ShortStorage,
                   CharStorage, ByteStorage, BoolStorage, ComplexDoubleStorage, ComplexFloatStorage)
