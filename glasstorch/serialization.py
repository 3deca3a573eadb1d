"""``save``/``load`` — PyTorch's ``torch/serialization.py``, writing and reading PyTorch's own checkpoint format.

A checkpoint is a ZIP archive (:mod:`glasstorch._inline_container`) holding ``data.pkl`` — the object graph,
pickled with protocol 2 — and one record ``data/<key>`` per storage with its raw bytes.  In the pickle each
tensor is a call ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)``
and each storage a persistent id ``("storage", torch.FloatStorage, key, location, numel)``.  The pickle
names PyTorch's classes and functions (``torch.float32``, ``torch.Size``, ``collections.OrderedDict`` ...),
so real PyTorch loads glasstorch's files; loading maps those names to glasstorch's objects, so files
written by PyTorch load here.  Views of one storage save it once under one key and load back as views
of one storage.

``load`` is safe by default: ``weights_only=True`` runs the pickle in the restricted VM of
:mod:`glasstorch._weights_only_unpickler`.  PyTorch's legacy (pre-1.6, non-zip) format is read and, with
``_use_new_zipfile_serialization=False``, written.

Invariant: ``load(save(x))`` reproduces values, dtypes, sizes, strides, offsets, ``requires_grad`` and the
sharing of storages; writes to a path are atomic (a temporary file in the same folder, fsync, rename).
"""

from __future__ import annotations

import importlib
import io
import os
import pickle
import re
import struct
import sys
import tempfile
import uuid
import warnings
from collections import OrderedDict
from mmap import MAP_PRIVATE, MAP_SHARED

import numpy as np

from . import _utils
from . import _weights_only_unpickler as _wo
from . import cuda as _cuda
from ._core import dtype as _dt
from ._core.device import CPU, device
from ._core.dispatch_key import MATH_BITS
from ._core.layout import layout, memory_format
from ._core.shape import Size
from ._device.allocator import CPUAllocator
from ._inline_container import ZipReader, ZipWriter, is_zipfile, read_exact
from ._tensor.impl import TensorImpl
from ._tensor.storage import UntypedStorage
from ._weights_only_unpickler import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from .tensor import Tensor, wrap
from .utils import safetensors as _safetensors

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint", "location_tag", "default_restore_location", "DEFAULT_PROTOCOL",
           "set_default_mmap_options", "get_default_mmap_options", "StorageType"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
STORAGE_ALIGNMENT = 64
FILE_FORMAT_VERSION = "3"  # what PyTorch 2.13 writes as `version`
StorageType = _utils.StorageType
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to "
    "`True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source.")
_DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
                 "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
_TRUE_VALUES = ("1", "y", "yes", "true")


class NotACheckpointError(RuntimeError, pickle.UnpicklingError):
    """Bytes that are neither a zip checkpoint nor PyTorch's legacy format (a RuntimeError and an
    UnpicklingError, so both PyTorch-style handlers catch it)."""


# == names PyTorch's pickles use =============================================================================

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


def _name(module: str, name: str) -> _GlobalName:
    key = f"{module}.{name}"
    g = _NAMES.get(key)
    if g is None:
        g = _NAMES[key] = _GlobalName(module, name)
    return g


def location_tag(storage: UntypedStorage) -> str:
    """``"cpu"``, ``"cuda:0"``, ``"meta"``: where a storage lives, as a checkpoint records it."""
    dev = storage.device
    if dev.type == "cpu":
        return "cpu"  # a constant, as PyTorch's tagger returns: the pickle memoizes it like PyTorch's does
    return dev.type if dev.index is None else f"{dev.type}:{dev.index}"


class _StorageTable:
    """Storages met while pickling, keyed ``"0"``, ``"1"`` ... in first-seen order (one key per storage)."""

    def __init__(self, legacy: bool = False):
        self.keys: dict[int, str] = {}
        self.storages: dict[str, UntypedStorage] = {}
        self.dtypes: dict[str, object] = {}
        self.legacy = legacy

    def persistent_id(self, untyped: UntypedStorage, dtype, storage_type: _GlobalName) -> tuple:
        key = self.keys.get(id(untyped))
        if key is None:
            key = self.keys[id(untyped)] = str(len(self.keys))
            self.storages[key] = untyped
            self.dtypes[key] = dtype
        elif self.dtypes[key] is not dtype and untyped.nbytes():
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        numel = untyped.nbytes() // dtype.itemsize
        pid = ("storage", storage_type, key, location_tag(untyped), numel)
        return pid + (None,) if self.legacy else pid


class _CheckpointPickler(pickle._Pickler):
    """pickle's Pickler that writes PyTorch's names for glasstorch's tensors, storages, dtypes, devices, sizes.

    The pure-Python Pickler is used because it lets a GLOBAL name a module (``torch``) that is not
    imported here; only the object graph goes through it, the tensor bytes go straight to the archive.
    """

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol: int, storages: _StorageTable):
        super().__init__(file, protocol)
        self._storages = storages

    def persistent_id(self, obj):
        t = type(obj)
        if t is _utils.TypedStorage:
            dtype = obj.dtype
            return self._storages.persistent_id(obj._untyped_storage, dtype,
                                                _name("torch", _utils.STORAGE_TYPE_NAMES[dtype]))
        if t is UntypedStorage:
            return self._storages.persistent_id(obj, _dt.uint8, _name("torch.storage", "UntypedStorage"))
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return _reduce_tensor(obj)
        t = type(obj)
        if t is Size:
            return (_name("torch", "Size"), (tuple(obj),))
        if t is device:
            return (_name("torch", "device"), (obj.type,) if obj.index is None else (obj.type, obj.index))
        if t is layout:
            return (_name("torch.serialization", "_get_layout"), (repr(obj),))
        return NotImplemented

    def _save_global_name(self, obj: _GlobalName):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    def _save_torch_attr(self, obj):  # dtypes and memory formats: GLOBAL torch.<name>
        self.write(pickle.GLOBAL + f"torch\n{repr(obj).removeprefix('torch.')}\n".encode())
        self.memoize(obj)

    dispatch[_GlobalName] = _save_global_name
    dispatch[_dt.dtype] = _save_torch_attr
    dispatch[memory_format] = _save_torch_attr


def _reduce_tensor(t: Tensor):
    """The reduce tuple PyTorch's ``Tensor.__reduce_ex__`` / ``Parameter.__reduce_ex__`` would give."""
    impl = t._impl
    param = _utils.parameter_class()
    if param is not None and type(t) is param:
        plain = TensorImpl(impl.storage, impl.sizes, impl.strides, impl.offset, impl.dtype, impl.device)
        plain.key_set |= impl.key_set & MATH_BITS  # the data keeps the lazy conj/neg bits (Note [Math bits])
        data = wrap(plain)
        state = _utils._get_obj_state(t)
        if state:
            return (_name("torch._utils", "_rebuild_parameter_with_state"),
                    (data, t.requires_grad, OrderedDict(), state))
        return (_name("torch._utils", "_rebuild_parameter"), (data, t.requires_grad, OrderedDict()))
    if impl.device.type == "meta":
        func = _name("torch._utils", "_rebuild_meta_tensor_no_storage")
        args = (impl.dtype, tuple(impl.sizes), tuple(impl.strides), t.requires_grad)
    elif impl.dtype in _utils.V3_DTYPES:
        func = _name("torch._utils", "_rebuild_tensor_v3")
        args = (impl.storage, impl.offset, tuple(impl.sizes), tuple(impl.strides), t.requires_grad, OrderedDict(),
                impl.dtype)
    else:
        func = _name("torch._utils", "_rebuild_tensor_v2")
        args = (_utils.TypedStorage._new_wrapped(impl.storage, impl.dtype), impl.offset, tuple(impl.sizes),
                tuple(impl.strides), t.requires_grad, OrderedDict())
    metadata = _utils.get_tensor_metadata(t) if impl.device.type != "meta" else None
    if metadata:  # the conjugate/negative bits (PyTorch appends them only when set)
        args += (metadata,)
    state = _utils._get_obj_state(t)
    if type(t) is Tensor and not state:
        return (func, args)
    cls = _name("torch", "Tensor") if type(t) is Tensor else type(t)
    return (_name("torch._tensor", "_rebuild_from_type_v2"), (func, cls, args, state))


# == save =====================================================================================================

def save(obj, f, pickle_module=pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` to a path or a writable file object in PyTorch's checkpoint format (``torch.save``).

    Args:
        obj: tensors, parameters, dicts/lists/tuples of them, numbers, strings, Size, dtype, device ...
        f: a path (written atomically: temp file, fsync, rename) or a file object with ``write``.
        pickle_module: accepted for compatibility; the pickling is always pickle's own.
        pickle_protocol: the pickle protocol of ``data.pkl`` (PyTorch's default 2).
        _use_new_zipfile_serialization: False writes PyTorch's legacy (pre-1.6) format.

    Raises:
        AttributeError: ``f`` is neither a path nor has ``write``.
        RuntimeError: two tensors view one storage with different dtypes.

    Example:
        >>> import io, glasstorch as torch
        >>> buf = io.BytesIO()
        >>> torch.save({"w": torch.ones(2)}, buf)
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        folder = os.path.splitext(os.path.basename(path))[0] or "archive"
        with _AtomicFile(path) as out:
            _write(obj, out, folder, pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record)
        return
    _write(obj, f, "archive", pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record)


def _write(obj, f, folder, protocol, zip_format, no_byteorder):
    if zip_format:
        _save_zip(obj, f, folder, protocol, no_byteorder)
    else:
        _save_legacy(obj, f, protocol)


def _save_zip(obj, f, folder: str, protocol: int, no_byteorder: bool) -> None:
    table = _StorageTable()
    buf = io.BytesIO()
    _CheckpointPickler(buf, protocol, table).dump(obj)
    writer = ZipWriter(f, folder, STORAGE_ALIGNMENT)
    writer.write_record("data.pkl", buf.getbuffer())
    writer.write_record(".format_version", b"1")
    writer.write_record(".storage_alignment", str(STORAGE_ALIGNMENT).encode())
    if not no_byteorder:
        writer.write_record("byteorder", sys.byteorder.encode())
    for key, storage in table.storages.items():
        writer.write_record(f"data/{key}", _host_bytes(storage))
    writer.write_record("version", f"{FILE_FORMAT_VERSION}\n".encode())
    writer.write_record(".data/serialization_id", f"{uuid.uuid4().int % 10**40:040d}".encode())
    writer.close()


def _host_bytes(storage: UntypedStorage) -> np.ndarray:
    if storage.device.type == "meta":
        return np.zeros(storage.nbytes(), np.uint8)
    return storage.cpu().bytes_view()


def _save_legacy(obj, f, protocol: int) -> None:
    """PyTorch's pre-1.6 format: magic, version, sys info, the pickle, its storage keys, then raw storages."""
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        pickle.dump(header, f, protocol=protocol)
    table = _StorageTable(legacy=True)
    _CheckpointPickler(f, protocol, table).dump(obj)
    keys = sorted(table.storages)
    pickle.dump(keys, f, protocol=protocol)
    for key in keys:
        storage = table.storages[key]
        f.write(struct.pack("<q", storage.nbytes() // table.dtypes[key].itemsize))
        f.write(memoryview(_host_bytes(storage)))
    if hasattr(f, "flush"):
        f.flush()


class _AtomicFile:
    """Write to ``<dir>/.<name>.<random>.tmp``, fsync, then ``os.replace`` onto the target (or delete on error)."""

    def __init__(self, path: str):
        self.path = path

    def __enter__(self):
        folder = os.path.dirname(os.path.abspath(self.path))
        fd, self.tmp = tempfile.mkstemp(prefix=f".{os.path.basename(self.path)}.", suffix=".tmp", dir=folder)
        self.file = os.fdopen(fd, "wb")
        return self.file

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.file.flush()
                os.fsync(self.file.fileno())
            self.file.close()
            if exc_type is None:
                os.chmod(self.tmp, _target_mode(self.path))
                os.replace(self.tmp, self.path)
                _fsync_dir(os.path.dirname(os.path.abspath(self.path)))
        finally:
            if os.path.exists(self.tmp):
                os.unlink(self.tmp)
        return False


def _target_mode(path: str) -> int:
    """Keep an existing file's permissions; a new file gets 0o666 minus the umask, as ``open`` would give."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# == load ======================================================================================================

_mmap_flags = MAP_PRIVATE


def get_default_mmap_options() -> int:
    """``mmap.MAP_PRIVATE`` (writes to a mapped tensor stay in memory) or ``mmap.MAP_SHARED`` (they reach the file)."""
    return _mmap_flags


class set_default_mmap_options:
    """Context manager (or plain call) setting the flags of ``load(mmap=True)``: MAP_PRIVATE or MAP_SHARED."""

    def __init__(self, flags: int):
        global _mmap_flags
        if flags not in (MAP_PRIVATE, MAP_SHARED):
            raise ValueError("Invalid argument in function set_default_mmap_options, expected mmap.MAP_PRIVATE or "
                             f"mmap.MAP_SHARED, but got {flags}")
        self.prev, _mmap_flags = _mmap_flags, flags

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        global _mmap_flags
        _mmap_flags = self.prev


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args):
    """Load an object saved by ``save`` (or by PyTorch's ``torch.save``) (``torch.load``).

    Args:
        f: a path or a readable, seekable file object.
        map_location: where storages go: a str/device for all, a dict ``{saved: new}`` of location tags, or
            ``fn(storage, location) -> storage | None``.
        pickle_module: only with ``weights_only=False``; a module with an ``Unpickler`` class.
        weights_only: True (the default) allows only tensors, containers, numbers, strings and allowlisted
            globals; False runs the full pickle (only for trusted files).
        mmap: map the file; tensors then read their bytes from the mapping (needs a path and the zip format).
        pickle_load_args: ``encoding=...`` etc., for ``weights_only=False``.

    Raises:
        pickle.UnpicklingError: a weights-only load met something outside the allowlist.
        RuntimeError: a truncated or corrupt file, or a storage location that cannot be restored.

    Example:
        >>> import io, glasstorch as torch
        >>> buf = io.BytesIO(); torch.save([torch.arange(3)], buf); _ = buf.seek(0)
        >>> torch.load(buf)
        [tensor([0, 1, 2])]
    """
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_module = pickle_module or pickle
    pickle_load_args.setdefault("encoding", "utf-8")
    if isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors"):
        return _load_safetensors(os.fspath(f), map_location)
    opened = open(os.fspath(f), "rb") if isinstance(f, (str, os.PathLike)) else _check_seekable(f)  # noqa: SIM115
    try:
        return _load_opened(f, opened, map_location, pickle_module, weights_only, bool(mmap), pickle_load_args)
    finally:
        if opened is not f:
            opened.close()


def _check_seekable(f):
    """``f`` itself, once ``f.seek(f.tell())`` worked (PyTorch's ``_check_seekable``); a missing or unsupported
    ``seek``/``tell`` raises its own error with PyTorch's advice appended."""
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError) as e:
        if "seek" in str(e) or "tell" in str(e):
            raise type(e)(f"{e}. You can only torch.load from a file that is seekable. Please pre-load the data into "
                          "a buffer like io.BytesIO and try to load from it instead.") from None
        raise
    return f


def _resolve_weights_only(weights_only, pickle_module) -> bool:
    """PyTorch's rules: default True unless a pickle_module is given; the TORCH_FORCE_* variables override."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force_on = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    force_off = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    if force_on and force_off:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should "
                           "be set, but both were set.")
    if force_on:
        return True
    if force_off and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the`weights_only` "
                      "argument was not explicitly passed to `torch.load`, forcing weights_only=False.", UserWarning,
                      stacklevel=3)
        return False
    return bool(weights_only)


def _load_opened(f, opened, map_location, pickle_module, weights_only, mmap, load_args):
    if is_zipfile(opened):
        reader = ZipReader(opened)
        if reader.has_record("constants.pkl"):
            raise RuntimeError("glasstorch cannot load TorchScript archives (this file was written by "
                               "torch.jit.save)")
        mapped = _map_file(f) if mmap else None
        return _guarded(weights_only, _load_zip, reader, map_location, pickle_module, weights_only, mapped,
                        load_args)
    if mmap:
        f_name = f"{f}, " if isinstance(f, str) else ""
        raise RuntimeError(f"mmap can only be used with files saved with `torch.save({f_name}"
                           "_use_new_zipfile_serialization=True), please torch.save your checkpoint with this "
                           "option in order to use mmap.")
    return _guarded(weights_only, _load_legacy, opened, map_location, pickle_module, weights_only, load_args)


def _guarded(weights_only, fn, *args):
    """Run a loader; a weights-only refusal gets PyTorch's explanation around it."""
    if not weights_only:
        return fn(*args)
    try:
        return fn(*args)
    except NotACheckpointError:
        raise
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(_weights_only_message(str(e))) from None


def _weights_only_message(message: str) -> str:
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check the "
                "recommended steps in the following error message.\n\tWeightsUnpickler error: " + message
                + _DOCS_MESSAGE)
    if re.search(r"(\S+) must be (\S+) to load", message):
        return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
    out = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        out += ("Please file an issue with the following so that we can make `weights_only=True` compatible with "
                "your use case: WeightsUnpickler error: ")
    return out + "\n\n" + message + _DOCS_MESSAGE


def _map_file(f) -> np.ndarray:
    if not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    mode = "r+" if _mmap_flags == MAP_SHARED else "c"
    return np.memmap(os.fspath(f), dtype=np.uint8, mode=mode).view(np.ndarray)


# -- storages: read, byte-swap, restore to their device ---------------------------------------------------------

def default_restore_location(storage: UntypedStorage, location: str) -> UntypedStorage:
    """Put a freshly read CPU storage where its location tag says (``cpu``, ``meta``, ``cuda:N`` ...)."""
    if location == "cpu":
        return storage
    if location == "meta":
        return UntypedStorage(storage.nbytes(), device="meta")
    m = re.match(r"^([a-zA-Z_]+)(?::(\d+))?$", location)
    if m is None:
        raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
                           f"{location})")
    backend = m.group(1)
    if backend == "cuda":
        _validate_cuda(location, int(m.group(2) or 0))
    try:
        target = device(location)
    except RuntimeError:
        raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
                           f"{location})") from None
    return _move_storage(storage, target)


def _validate_cuda(location: str, index: int) -> None:
    if not _cuda.is_available():
        raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
                           "If you are running on a CPU-only machine, please use torch.load with "
                           "map_location=torch.device('cpu') to map your storages to the CPU.")
    count = _cuda.device_count()
    if index >= count:
        raise RuntimeError(f"Attempting to deserialize object on CUDA device {index} but torch.cuda.device_count() is "
                           f"{count}. Please use torch.load with map_location to map your storages to an existing "
                           "device.")


def _move_storage(storage: UntypedStorage, target: device) -> UntypedStorage:
    if storage.device == target:
        return storage
    n = storage.nbytes()
    flat = wrap(TensorImpl(storage, (n,), (1,), 0, _dt.uint8, storage.device))
    return flat.to(target)._impl.storage


def _restorer(map_location):
    """``restore(storage, location)`` for the four forms of ``map_location``."""
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda s, loc: default_restore_location(s, _as_location(map_location.get(loc, loc)))
    if isinstance(map_location, (str, bytes, device)):
        where = _as_location(map_location)
        return lambda s, loc: default_restore_location(s, where)

    def call(s, loc):
        out = map_location(s, loc)
        if out is None:
            return default_restore_location(s, loc)
        return out._untyped_storage if isinstance(out, _utils.TypedStorage) else out
    return call


def _as_location(where) -> str:
    if isinstance(where, bytes):
        return where.decode("ascii")
    return str(where)


def _byteswap(data: np.ndarray, dtype) -> None:
    """Swap each element's bytes in place (a checkpoint written on a machine of the other byte order)."""
    width = dtype.itemsize // 2 if dtype.is_complex else dtype.itemsize
    if width > 1 and data.size:
        data.view(f"u{width}").byteswap(inplace=True)


class _LoadedStorages:
    """The ``persistent_load`` of a zip checkpoint: each key read once, byte-swapped if needed, restored."""

    def __init__(self, reader: ZipReader, restore, mapped, swap: bool):
        self.reader, self.restore, self.mapped, self.swap = reader, restore, mapped, swap
        self.by_key: dict[str, UntypedStorage] = {}

    def __call__(self, pid):
        if not isinstance(pid, tuple) or len(pid) != 5 or _ascii(pid[0]) != "storage":
            raise RuntimeError(f"Unknown typename for persistent_load, expected 'storage' but got {pid!r}")
        storage_type, key, location, numel = pid[1:]
        dtype = _storage_dtype(storage_type)
        untyped = self.by_key.get(key)
        if untyped is None:
            untyped = self.by_key[key] = self._read(str(key), numel * dtype.itemsize, dtype, _ascii(location))
        if storage_type is UntypedStorage:
            return untyped
        return _utils.TypedStorage._new_wrapped(untyped, dtype)

    def _read(self, key: str, nbytes: int, dtype, location: str) -> UntypedStorage:
        name = f"data/{key}"
        if self.reader.record_size(name) != nbytes:
            raise RuntimeError(f"storage {key} should hold {nbytes} bytes but its record {name} holds "
                                         f"{self.reader.record_size(name)}; the checkpoint is corrupt")
        if self.mapped is not None:
            start = self.reader.record_offset(name)
            data = self.mapped[start:start + nbytes]
        else:
            data = _cpu_allocator.allocate(nbytes)  # aligned as any new CPU storage
            self.reader.read_into(name, data)
        if self.swap:
            _byteswap(data, dtype)
        return self.restore(UntypedStorage._wrap(data, nbytes, CPU), location)


_cpu_allocator = CPUAllocator()


def _ascii(x) -> str:
    return x.decode("ascii") if isinstance(x, bytes) else x


def _storage_dtype(storage_type):
    if storage_type is UntypedStorage:
        return _dt.uint8
    if isinstance(storage_type, _utils.StorageType):
        return storage_type.dtype
    raise RuntimeError(f"checkpoint names an unknown storage type {storage_type!r}")


def _load_zip(reader: ZipReader, map_location, pickle_module, weights_only, mapped, load_args):
    swap = False
    if reader.has_record("byteorder"):
        order = reader.get_record("byteorder")
        if order not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + order.decode())
        swap = order.decode() != sys.byteorder
    if not reader.has_record("data.pkl"):
        raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
    storages = _LoadedStorages(reader, _restorer(map_location), mapped, swap)
    unpickler = _make_unpickler(io.BytesIO(reader.get_record("data.pkl")), pickle_module, weights_only, load_args)
    unpickler.persistent_load = storages
    return unpickler.load()


def _make_unpickler(file, pickle_module, weights_only, load_args):
    if weights_only:
        return _wo.Unpickler(file, encoding=load_args.get("encoding", "utf-8"))
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


# -- the legacy (pre-1.6) format ----------------------------------------------------------------------------------

def _load_legacy(f, map_location, pickle_module, weights_only, load_args):
    encoding = load_args.get("encoding", "utf-8")
    if not hasattr(f, "readline"):  # the unpicklers need it: the weights-only one looks it up, pickle's checks it
        if weights_only:
            raise AttributeError(f"'{type(f).__name__}' object has no attribute 'readline'")
        raise TypeError("file must have 'read' and 'readline' attributes")
    try:
        magic = _wo.Unpickler(f, encoding=encoding).load()
    except EOFError:
        raise
    except Exception as e:
        raise NotACheckpointError("Invalid magic number; corrupt file? (the data is neither a zip checkpoint nor "
                                  f"PyTorch's legacy format: {e})") from None
    if magic != MAGIC_NUMBER:
        raise NotACheckpointError("Invalid magic number; corrupt file?")
    version = _wo.Unpickler(f, encoding=encoding).load()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    sys_info = _wo.Unpickler(f, encoding=encoding).load()
    swap = isinstance(sys_info, dict) and sys_info.get("little_endian", True) != (sys.byteorder == "little")
    storages = _LegacyStorages(_restorer(map_location))
    unpickler = _make_unpickler(f, pickle_module, weights_only, load_args)
    unpickler.persistent_load = storages
    result = unpickler.load()
    keys = _wo.Unpickler(f, encoding=encoding).load()
    for key in keys:
        storages.fill(f, key, swap)
    return result


class _LegacyStorages:
    """``persistent_load`` of the legacy format: storages are made first and filled after the pickle."""

    def __init__(self, restore):
        self.restore = restore
        self.roots: dict[str, tuple] = {}
        self.views: dict[str, UntypedStorage] = {}

    def __call__(self, pid):
        if not isinstance(pid, tuple) or _ascii(pid[0]) not in ("storage", "module"):
            raise RuntimeError(f"Unknown saved id type: {pid[0] if isinstance(pid, tuple) else pid!r}")
        if _ascii(pid[0]) == "module":
            return pid[1]
        storage_type, root_key, location, numel, view_metadata = pid[1:]
        dtype = _storage_dtype(storage_type)
        if root_key not in self.roots:
            host = UntypedStorage(numel * dtype.itemsize)
            self.roots[root_key] = (self.restore(host, _ascii(location)), dtype)
        untyped, _ = self.roots[root_key]
        if view_metadata is not None:
            view_key, offset, size = view_metadata
            if view_key not in self.views:
                begin = offset * dtype.itemsize
                self.views[view_key] = untyped[begin:begin + size * dtype.itemsize]
            untyped = self.views[view_key]
        return untyped if storage_type is UntypedStorage else _utils.TypedStorage._new_wrapped(untyped, dtype)

    def fill(self, f, key, swap: bool) -> None:
        untyped, dtype = self.roots[key]
        head = f.read(8)
        if len(head) != 8:
            raise RuntimeError(f"legacy checkpoint ends before the data of storage {key}")
        numel = struct.unpack("<q", head)[0]
        if numel * dtype.itemsize != untyped.nbytes():
            raise RuntimeError(f"legacy checkpoint: storage {key} records {numel} elements, the pickle "
                                         f"expects {untyped.nbytes() // dtype.itemsize}")
        data = np.empty(untyped.nbytes(), np.uint8)
        if read_exact(f, memoryview(data)) != data.size:
            raise RuntimeError(f"legacy checkpoint ends inside the data of storage {key}")
        if swap:
            _byteswap(data, dtype)
        if untyped.device.type == "cpu":
            untyped.bytes_view()[:] = data
        elif untyped.device.type != "meta":
            untyped.copy_(UntypedStorage._wrap(data, data.size, CPU))


# -- safetensors and inspection ---------------------------------------------------------------------------------

def _load_safetensors(path: str, map_location):
    if isinstance(map_location, dict):
        raise RuntimeError("Loading safetensors file with dict map_location is not supported. Use a device string "
                           "or torch.device instead.")
    if callable(map_location) and not isinstance(map_location, device):
        raise RuntimeError("Loading safetensors file with callable map_location is not supported. Use a device "
                           "string or torch.device instead.")
    return _safetensors.load_file(path, device="cpu" if map_location is None else str(map_location))


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The ``module.name`` globals a checkpoint needs that the weights-only allowlist does not allow."""
    opened = open(os.fspath(f), "rb") if isinstance(f, (str, os.PathLike)) else f  # noqa: SIM115
    try:
        if not is_zipfile(opened):
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        data = ZipReader(opened).get_record("data.pkl")
    finally:
        if opened is not f:
            opened.close()
    safe = set(_wo.allowed_globals()) | set(_wo._user_allowed())
    return sorted(g for g in _wo.globals_in_pickle(data) if g not in safe)
