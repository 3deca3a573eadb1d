"""The pickle half of a checkpoint — the picklers and unpicklers of PyTorch's ``torch/serialization.py``.

Saving: :class:`CheckpointPickler` writes the object graph with PyTorch's names in it, so that real PyTorch
loads glasstorch's files: each tensor becomes a call ``torch._utils._rebuild_tensor_v2(storage, offset,
size, stride, requires_grad, hooks)`` (what ``Tensor.__reduce_ex__`` gives in PyTorch), each storage a
persistent id ``("storage", torch.FloatStorage, key, location, numel)`` handed out by a
:class:`StorageTable` (one key per storage, in first-seen order), dtypes ``torch.float32``, sizes
``torch.Size``.  The legacy format adds a sixth element (view metadata) to storage ids and records each
``nn.Module`` class met with its source (``("module", cls, file, source)``), so loading can warn when the
class changed since.

Loading: :func:`make_unpickler` gives the weights-only VM (:mod:`glasstorch._weights_only_unpickler`) or
pickle's own Unpickler with PyTorch's names mapped to glasstorch's objects (``torch.FloatStorage`` to a
:class:`_utils.StorageType`, ``torch._utils._rebuild_tensor_v2`` to glasstorch's, any other ``torch.X`` to
``glasstorch.X``).

Invariant: the pickle bytes of tensors, storages, dtypes, sizes and containers are the ones PyTorch writes.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import sys
import threading
import types
import warnings
from collections import OrderedDict

from . import _utils
from . import _weights_only_unpickler as _wo
from ._core import dtype as _dt
from ._core.device import device
from ._core.dispatch_key import MATH_BITS
from ._core.layout import layout, memory_format, sparse_bsr, sparse_coo, sparse_csr
from ._core.shape import Size
from ._tensor.impl import TensorImpl
from ._tensor.storage import UntypedStorage
from .tensor import Tensor, _is_wrapper_subclass, wrap, wrapper_subclass_args

__all__ = ["CheckpointPickler", "StorageTable", "make_unpickler", "storage_dtype", "serialization_tls", "name"]


class _SerializationLocal(threading.local):
    """Per-thread state of a save/load in progress (PyTorch's ``_serialization_tls``)."""

    def __init__(self):
        super().__init__()
        self.map_location = None
        self.skip_data = False
        self.materialize_fake_tensors = False


serialization_tls = _SerializationLocal()


class _GlobalName:
    """A ``module.name`` written into the pickle as-is (a GLOBAL opcode), e.g. ``torch._utils._rebuild_tensor_v2``."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle requires the "function" of a reduce tuple to be callable
        raise TypeError(f"{self.module}.{self.name} is a name in a checkpoint, not a function")

    def __repr__(self):
        return f"{self.module}.{self.name}"


_NAMES: dict[str, _GlobalName] = {}


def name(module: str, attr: str) -> _GlobalName:
    key = f"{module}.{attr}"
    g = _NAMES.get(key)
    if g is None:
        g = _NAMES[key] = _GlobalName(module, attr)
    return g


class StorageTable:
    """Storages met while pickling, keyed ``"0"``, ``"1"`` ... in first-seen order (one key per storage).

    ``tagger(storage)`` gives a storage's location tag (``"cpu"``, ``"cuda:0"``).  The legacy format's ids
    carry a sixth element, the view metadata (always None: a storage is saved whole).
    """

    def __init__(self, tagger, legacy: bool = False):
        self.keys: dict[int, str] = {}
        self.storages: dict[str, UntypedStorage] = {}
        self.dtypes: dict[str, object] = {}
        self._ptr_dtypes: dict[int, object] = {}
        self.tagger, self.legacy = tagger, legacy

    def persistent_id(self, untyped: UntypedStorage, dtype, storage_type: _GlobalName, numel: int) -> tuple:
        self._check_dtype(untyped, dtype)
        key = self.keys.get(id(untyped))
        if key is None:
            key = self.keys[id(untyped)] = str(len(self.keys))
            self.storages[key] = untyped
            self.dtypes[key] = dtype
        fake_device = getattr(untyped, "_fake_device", None)
        location = str(fake_device) if fake_device is not None else self.tagger(untyped)
        pid = ("storage", storage_type, key, location, numel)
        return pid + (None,) if self.legacy else pid

    def _check_dtype(self, untyped: UntypedStorage, dtype) -> None:
        """PyTorch refuses two views of one allocation as different dtypes (keyed by data pointer)."""
        if untyped.device.type == "meta" or untyped.data_ptr() == 0:
            return
        seen = self._ptr_dtypes.setdefault(untyped.data_ptr(), dtype)
        if seen is not dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")


class CheckpointPickler(pickle._Pickler):
    """pickle's Pickler that writes PyTorch's names for glasstorch's tensors, storages, dtypes, devices, sizes.

    The pure-Python Pickler is used because it lets a GLOBAL name a module (``torch``) that is not
    imported here; only the object graph goes through it, the tensor bytes go straight to the archive.
    ``module_class`` (the legacy format only) is ``nn.Module``: its subclasses are recorded with their source.
    """

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol: int, storages: StorageTable, module_class=None):
        super().__init__(file, protocol)
        self._storages = storages
        self._module_class = module_class
        self._containers: set[type] = set()

    def persistent_id(self, obj):
        t = type(obj)
        if t is _utils.TypedStorage:
            dtype = obj.dtype
            return self._storages.persistent_id(obj._untyped_storage, dtype,
                                                name("torch", _utils.STORAGE_TYPE_NAMES[dtype]),
                                                obj._untyped_storage.nbytes() // dtype.itemsize)
        if t is UntypedStorage:
            return self._storages.persistent_id(obj, _dt.uint8, name("torch.storage", "UntypedStorage"),
                                                obj.nbytes())
        if self._module_class is not None and isinstance(obj, type) and issubclass(obj, self._module_class):
            return self._container_id(obj)
        return None

    def _container_id(self, cls: type):
        if cls in self._containers:
            return None
        self._containers.add(cls)
        source = source_file = None
        try:
            source, source_file = container_source(cls)
        except Exception:  # the source is optional: it only lets loading warn about changes
            warnings.warn(f"Couldn't retrieve source code for container of type {cls.__name__}. It won't be checked "
                          "for correctness upon loading.", stacklevel=2)
        return ("module", cls, source_file, source)

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return _reduce_tensor(obj)
        t = type(obj)
        if t is Size:
            return (name("torch", "Size"), (tuple(obj),))
        if t is device:
            return (name("torch", "device"), (obj.type,) if obj.index is None else (obj.type, obj.index))
        if t is layout:
            return (name("torch.serialization", "_get_layout"), (repr(obj),))
        return NotImplemented

    def save_global(self, obj, name=None):
        """A class or function of glasstorch's is written under PyTorch's module name (:func:`torch_module_name`):
        the file then names what PyTorch's would (``torch.testing._internal.two_tensor.TwoTensor``), PyTorch loads
        it as its own class, and glasstorch maps the name back when loading."""
        qualname = name or getattr(obj, "__qualname__", None) or obj.__name__
        module = getattr(obj, "__module__", None) or ""
        torch_module = _wo.torch_module_name(module)
        if torch_module == module or "." in qualname or getattr(sys.modules.get(module), qualname, None) is not obj:
            return super().save_global(obj, name)
        if self.proto >= 4:
            self.save(torch_module)
            self.save(qualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{torch_module}\n{qualname}\n".encode())
        self.memoize(obj)

    def _save_global_name(self, obj: _GlobalName):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    def _save_torch_attr(self, obj):  # dtypes and memory formats: GLOBAL torch.<name>
        self.write(pickle.GLOBAL + f"torch\n{repr(obj).removeprefix('torch.')}\n".encode())
        self.memoize(obj)

    dispatch[types.FunctionType] = save_global  # pickle's table holds its own save_global for functions
    dispatch[_GlobalName] = _save_global_name
    dispatch[_dt.dtype] = _save_torch_attr
    dispatch[memory_format] = _save_torch_attr


def container_source(cls: type) -> tuple[str, str]:
    """The source text of a class and the file it is in (PyTorch's ``get_source_lines_and_file``)."""
    lines, _ = inspect.getsourcelines(cls)
    return "".join(lines), inspect.getsourcefile(cls)


def fake_tensor_module():
    """``glasstorch._subclasses.fake_tensor`` once something imported it, else None: no FakeTensor or
    FakeTensorMode can exist before that, and this layer does not import the compile stack itself."""
    return sys.modules.get("glasstorch._subclasses.fake_tensor")


def _is_fake(t: Tensor) -> bool:
    mod = fake_tensor_module()
    return mod is not None and isinstance(t, mod.FakeTensor)


def _tensor_hooks(impl: TensorImpl) -> list:
    """The hooks ``register_hook`` put on this tensor (on its grad_fn's output, or on the leaf itself)."""
    meta = impl.autograd
    if meta is None:
        return []
    if meta.grad_fn is not None:
        by_output = meta.grad_fn._tensor_pre_hooks or {}
        return list(by_output.get(meta.output_nr, {}).values())
    return list((meta.hooks or {}).get(0, {}).values())


def _warn_if_has_hooks(impl: TensorImpl) -> None:
    """Hooks are not saved (PyTorch's Note [Don't serialize hooks]); say so unless marked unserializable."""
    for hook in _tensor_hooks(impl):
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
                          "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this "
                          "warning", stacklevel=4)


def _reduce_tensor(t: Tensor):
    """The reduce tuple PyTorch's ``Tensor.__reduce_ex__`` / ``Parameter.__reduce_ex__`` would give."""
    impl = t._impl
    _warn_if_has_hooks(impl)
    param = _utils.parameter_class()
    if param is not None and type(t) is param and impl.sparse is not None:
        data = wrap(impl.view_impl(impl.sizes, impl.strides, impl.offset))  # the same parts, no autograd
        return (name("torch._utils", "_rebuild_parameter"), (data, t.requires_grad, OrderedDict()))
    if param is not None and type(t) is param:
        plain = TensorImpl(impl.storage, impl.sizes, impl.strides, impl.offset, impl.dtype, impl.device)
        plain.key_set |= impl.key_set & MATH_BITS  # the data keeps the lazy conj/neg bits (Note [Math bits])
        data = wrap(plain)
        state = _utils._get_obj_state(t)
        if state:
            return (name("torch._utils", "_rebuild_parameter_with_state"),
                    (data, t.requires_grad, OrderedDict(), state))
        return (name("torch._utils", "_rebuild_parameter"), (data, t.requires_grad, OrderedDict()))
    fake = _is_fake(t)
    if fake and not (serialization_tls.skip_data and serialization_tls.materialize_fake_tensors):
        return t.__reduce_ex__(2)  # a fake outside skip_data(materialize_fake_tensors=True) has no data to save
    if impl.sparse is not None:
        func, args = _reduce_sparse(t, impl)
        state = _utils._get_obj_state(t)
        if type(t) is Tensor and not state:
            return (func, args)
        cls = name("torch", "Tensor") if type(t) is Tensor else type(t)
        return (name("torch._tensor", "_rebuild_from_type_v2"), (func, cls, args, state))
    if _is_wrapper_subclass(t):  # its data is its Python state (TwoTensor's a and b), saved as ordinary tensors
        return (name("torch._tensor", "_rebuild_from_type_v2"),
                (name("torch._utils", "_rebuild_wrapper_subclass"), type(t), wrapper_subclass_args(t),
                 _utils._get_obj_state(t)))
    func, args = _reduce_plain(t, impl, fake)
    metadata = _utils.get_tensor_metadata(t) if impl.device.type != "meta" else None
    if metadata:  # the conjugate/negative bits (PyTorch appends them only when set)
        args += (metadata,)
    if fake:  # a materialised fake saves as a plain tensor: its state (its mode) is not data
        return (func, args)
    state = _utils._get_obj_state(t)
    if type(t) is Tensor and not state:
        return (func, args)
    cls = name("torch", "Tensor") if type(t) is Tensor else type(t)
    return (name("torch._tensor", "_rebuild_from_type_v2"), (func, cls, args, state))


def _reduce_sparse(t: Tensor, impl: TensorImpl):
    """PyTorch's reduction of a sparse tensor: its layout and its parts (saved as dense tensors), no autograd state."""
    sp = impl.sparse
    if sp.layout is sparse_coo:
        parts = (t._indices(), t._values(), t.size(), t.is_coalesced())
    elif sp.layout in (sparse_csr, sparse_bsr):
        parts = (t.crow_indices(), t.col_indices(), t.values(), t.size())
    else:
        parts = (t.ccol_indices(), t.row_indices(), t.values(), t.size())
    return (name("torch._utils", "_rebuild_sparse_tensor"), (sp.layout, parts))


def _reduce_plain(t: Tensor, impl: TensorImpl, fake: bool):
    if impl.device.type == "meta" and not fake:
        if serialization_tls.skip_data:
            warnings.warn("Serializing tensors on the meta device under skip_data context manager is a no-op",
                          stacklevel=4)
        return (name("torch._utils", "_rebuild_meta_tensor_no_storage"),
                (impl.dtype, tuple(impl.sizes), tuple(impl.strides), t.requires_grad))
    storage = impl.storage
    if fake:
        storage._fake_device = impl.device
    if impl.dtype in _utils.V3_DTYPES:
        return (name("torch._utils", "_rebuild_tensor_v3"),
                (storage, impl.offset, tuple(impl.sizes), tuple(impl.strides), t.requires_grad, OrderedDict(),
                 impl.dtype))
    return (name("torch._utils", "_rebuild_tensor_v2"),
            (_utils.TypedStorage._new_wrapped(storage, impl.dtype), impl.offset, tuple(impl.sizes),
             tuple(impl.strides), t.requires_grad, OrderedDict()))


# == load ======================================================================================================

def ascii_str(x) -> str:
    return x.decode("ascii") if isinstance(x, bytes) else x


def storage_dtype(storage_type):
    if storage_type is UntypedStorage:
        return _dt.uint8
    if isinstance(storage_type, _utils.StorageType):
        return storage_type.dtype
    raise RuntimeError(f"checkpoint names an unknown storage type {storage_type!r}")


def make_unpickler(file, pickle_module, weights_only, load_args):
    if weights_only:  # every load argument reaches it, as in PyTorch: one it does not take is a TypeError
        return _wo.Unpickler(file, **load_args)
    if pickle_module is pickle:
        return _FullUnpickler(file, **load_args)
    base = pickle_module.Unpickler
    return type("_ModuleUnpickler", (base,), {"find_class": _FullUnpickler.find_class})(file, **load_args)


class _FullUnpickler(pickle.Unpickler):
    """pickle's Unpickler (``weights_only=False``) with PyTorch's names mapped to glasstorch's objects."""

    def find_class(self, module, name):
        if module == "torch" and "Storage" in name:
            try:
                return _utils.StorageType(name)
            except KeyError:
                pass
        module = "torch._tensor" if module == "torch.tensor" else module
        names = self.__dict__.get("_torch_names")
        if names is None:
            names = self._torch_names = _wo.allowed_globals()  # PyTorch's names of glasstorch objects
        known = names.get(f"{module}.{name}")
        if known is not None:
            return known
        if module == "torch" or module.startswith("torch."):
            return _glasstorch_counterpart(module, name)
        return super().find_class(module, name)


def _glasstorch_counterpart(module: str, name: str):
    target = "glasstorch" + module[len("torch"):]
    if module == "torch" and name in _wo.UNSUPPORTED_TORCH_DTYPES:
        raise pickle.UnpicklingError(f"the checkpoint uses dtype torch.{name}, which glasstorch does not support")
    try:
        obj = importlib.import_module(target)
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    except (ImportError, AttributeError):
        raise pickle.UnpicklingError(f"the checkpoint needs {module}.{name}, which has no glasstorch counterpart "
                                     f"(looked for {target}.{name})") from None
