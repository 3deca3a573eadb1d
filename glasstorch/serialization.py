"""``save``/``load`` — PyTorch's ``torch/serialization.py``, writing and reading PyTorch's own checkpoint format.

A checkpoint is a ZIP archive (:mod:`glasstorch._inline_container`, laid out as PyTorch's miniz writer lays
it out) holding ``data.pkl`` — the object graph, pickled with protocol 2 by
:mod:`glasstorch._checkpoint_pickle` with PyTorch's names in it — and one record ``data/<key>`` per storage
with its raw bytes, each on a 64-byte boundary, plus ``.format_version``, ``.storage_alignment``,
``byteorder``, ``version`` and ``.data/serialization_id``.  Real PyTorch loads glasstorch's files and the
other way round.  Views of one storage save it once under one key and load back as views of one storage.

``load`` is safe by default: ``weights_only=True`` runs the pickle in the restricted VM of
:mod:`glasstorch._weights_only_unpickler`.  PyTorch's legacy formats (the pre-1.6 pickle stream and the tar
format, :mod:`glasstorch._legacy_serialization`) are read and, with ``_use_new_zipfile_serialization=False``,
the pickle stream is written.  The options of :mod:`glasstorch.utils.serialization.config` (mmap, byte order,
offsets, CRC-32, alignment) are read at each call; ``register_package`` extends where storages may live.

Invariant: ``load(save(x))`` reproduces values, dtypes, sizes, strides, offsets, ``requires_grad`` and the
sharing of storages; writes to a path are atomic (a temporary file in the same folder, fsync, rename).
"""

from __future__ import annotations

import functools
import io
import os
import pickle
import re
import shutil
import sys
import tempfile
import warnings
from contextlib import contextmanager
from enum import Enum
from mmap import MAP_PRIVATE, MAP_SHARED

import numpy as np

from . import _checkpoint_pickle as _cp
from . import _legacy_serialization as _legacy
from . import _utils
from . import _weights_only_unpickler as _wo
from . import cuda as _cuda
from . import emu as _emu
from . import nn as _nn
from ._atomic_file import AtomicFile as _AtomicFile
from ._core import dtype as _dt
from ._core.device import CPU, device
from ._device.allocator import CPUAllocator
from ._inline_container import PyTorchFileReader, PyTorchFileWriter, archive_name_of, descriptor_size, is_zipfile
from ._legacy_serialization import (
    MAGIC_NUMBER,
    PROTOCOL_VERSION,
    UNSAFE_MESSAGE,
    NotACheckpointError,  # noqa: F401  (its historical home)
    SourceChangeWarning,
)
from ._tensor.impl import TensorImpl
from ._tensor.storage import UntypedStorage
from ._tensor.typed_storage import LEGACY_STORAGES, TypedStorage
from ._weights_only_unpickler import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from .tensor import LEGACY_TYPES, wrap
from .utils import _python_dispatch
from .utils import safetensors as _safetensors
from .utils.serialization import config as _config

__all__ = ["SourceChangeWarning", "mkdtemp", "register_package", "check_module_version_greater_or_equal",
           "validate_cuda_device", "location_tag", "default_restore_location", "normalize_storage_type",
           "storage_to_tensor_type", "save", "load", "StorageType", "LoadEndianness", "get_crc32_options",
           "set_crc32_options", "get_default_load_endianness", "set_default_load_endianness",
           "get_default_mmap_options", "set_default_mmap_options", "clear_safe_globals", "get_safe_globals",
           "add_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint", "skip_data", "DEFAULT_PROTOCOL",
           "MAGIC_NUMBER", "PROTOCOL_VERSION"]

DEFAULT_PROTOCOL = 2
LONG_SIZE, INT_SIZE, SHORT_SIZE = 8, 4, 2
STORAGE_KEY_SEPARATOR = ","
StorageType = _utils.StorageType
_DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
                 "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
_TRUE_VALUES = ("1", "y", "yes", "true")
_serialization_tls = _cp.serialization_tls
# the save-side pieces under their former names here (tests and tools reach them through this module)
_CheckpointPickler, _StorageTable, _name = _cp.CheckpointPickler, _cp.StorageTable, _cp.name


@contextmanager
def mkdtemp():
    """A temporary folder for the ``with`` block, removed afterwards."""
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)


# == options (torch.utils.serialization.config) ==============================================================

class LoadEndianness(Enum):
    """The byte order assumed for a checkpoint that has no ``byteorder`` record."""

    NATIVE = 1
    LITTLE = 2
    BIG = 3


def get_default_load_endianness() -> LoadEndianness | None:
    """The fallback byte order of checkpoints without a byteorder record (None: little endian)."""
    return _config.load.endianness


def set_default_load_endianness(endianness) -> None:
    """Set the fallback byte order of checkpoints without a byteorder record (a LoadEndianness or None).

    Raises:
        TypeError: ``endianness`` is neither.
    """
    if not isinstance(endianness, LoadEndianness) and endianness is not None:
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _config.load.endianness = endianness


def get_crc32_options() -> bool:
    """Whether ``save`` computes and writes each record's CRC-32 (default True)."""
    return _config.save.compute_crc32


def set_crc32_options(compute_crc32: bool) -> None:
    """Choose whether ``save`` computes each record's CRC-32; without it zip tools reject the file, ``load``
    still reads it."""
    _config.save.compute_crc32 = compute_crc32


def get_default_mmap_options() -> int | None:
    """``mmap.MAP_PRIVATE`` (writes to a mapped tensor stay in memory) or ``mmap.MAP_SHARED`` (they reach the file)."""
    return _config.load.mmap_flags


def _get_storage_alignment() -> int:
    return _config.save.storage_alignment


class set_default_mmap_options:
    """Context manager (or plain call) setting the flags of ``load(mmap=True)``: MAP_PRIVATE or MAP_SHARED."""

    def __init__(self, flags: int):
        if flags != MAP_PRIVATE and flags != MAP_SHARED:
            raise ValueError("Invalid argument in function set_default_mmap_options, expected mmap.MAP_PRIVATE or "
                             f"mmap.MAP_SHARED, but got {flags}")
        self.prev = _config.load.mmap_flags
        _config.load.mmap_flags = flags

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _config.load.mmap_flags = self.prev


class skip_data:
    """Context manager: ``save`` writes storages' records without their bytes (zeros in their place) and
    ``load`` leaves loaded storages unfilled.

    Args:
        materialize_fake_tensors: save FakeTensors as if they were real tensors (their storages' bytes skipped).

    Example:
        >>> import io, glasstorch as torch
        >>> buf = io.BytesIO()
        >>> with torch.serialization.skip_data():
        ...     torch.save(torch.ones(2), buf)
    """

    def __init__(self, materialize_fake_tensors: bool = False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        tls = _serialization_tls
        self._old = (tls.skip_data, tls.materialize_fake_tensors)
        tls.skip_data, tls.materialize_fake_tensors = True, self.materialize_fake_tensors

    def __exit__(self, *exc):
        _serialization_tls.skip_data, _serialization_tls.materialize_fake_tensors = self._old


def check_module_version_greater_or_equal(module, req_version_tuple, error_if_malformed: bool = True) -> bool:
    """Whether ``module.__version__`` is at least ``req_version_tuple`` (compared field by field, each field cast
    to the type of the required one).

    Raises:
        RuntimeError: the version string cannot be compared and ``error_if_malformed`` (else a warning).
    """
    try:
        fields = module.__version__.split(".")
        version = tuple(type(req)(fields[i]) for i, req in enumerate(req_version_tuple))
        return version >= req_version_tuple
    except Exception as e:
        message = (f"'{module.__name__}' module version string is malformed '{module.__version__}' and cannot be "
                   f"compared with tuple {str(req_version_tuple)}")
        if error_if_malformed:
            raise RuntimeError(message) from e
        warnings.warn(message + ", but continuing assuming that requirement is met", stacklevel=2)
        return True


def _check_dill_version(pickle_module) -> None:
    if pickle_module is not None and getattr(pickle_module, "__name__", None) == "dill":
        if not check_module_version_greater_or_equal(pickle_module, (0, 3, 1), False):
            raise ValueError(f"'torch' supports dill >= 0.3.1, but you have dill {pickle_module.__version__}. Please "
                             "upgrade dill or switch to 'pickle'")


# == where storages live: taggers and deserializers ===========================================================

_package_registry: list[tuple] = []


def register_package(priority: int, tagger, deserializer) -> None:
    """Register ``tagger(storage) -> str | None`` and ``deserializer(storage, location) -> storage | None``;
    lower ``priority`` runs first, the first non-None answer wins."""
    _package_registry.append((priority, tagger, deserializer))
    _package_registry.sort(key=lambda entry: entry[0])


def _backend_tag(backend: str, storage):
    dev = storage.device
    if dev.type == backend:
        return backend if dev.index is None else f"{backend}:{dev.index}"
    return None


def _cpu_tag(storage):
    return "cpu" if storage.device.type == "cpu" else None  # a constant: the pickle memoizes it as PyTorch's


def _meta_tag(storage):
    return "meta" if storage.device.type == "meta" else None


def _cpu_deserialize(storage, location: str):
    return storage if location == "cpu" else None


def _meta_deserialize(storage, location: str):
    return UntypedStorage(storage.nbytes(), device="meta") if location == "meta" else None


def _mps_deserialize(storage, location: str):
    if location.startswith("mps"):  # glasstorch has no MPS storage, as PyTorch off a Mac
        raise RuntimeError("torch.UntypedStorage(): Storage device not recognized: mps")
    return None


def _backend_deserialize(backend: str, storage, location: str):
    if location == backend or re.match(f"{backend}(:|[0-9]+)", location):
        return _move_storage(storage, _validate_device(location, backend))
    return None


# the device modules a location may name; xpu and mtia exist in PyTorch but are never available here
_DEVICE_MODULES = {"cuda": _cuda, "emu": _emu, "xpu": None, "mtia": None}


def _validate_device(location: str, backend: str) -> device:
    """The device of a location tag, once its backend is registered, available, and has that index."""
    if backend not in _DEVICE_MODULES:
        raise RuntimeError(f"The {backend.upper()} device module is not registered. If you are running on a CPU-only "
                           "machine, please use torch.load with map_location=torch.device('cpu') to map your storages "
                           "to the CPU.")
    module, where = _DEVICE_MODULES[backend], device(location)
    index = where.index or 0
    if module is None or not module.is_available():
        raise RuntimeError(f"Attempting to deserialize object on a {backend.upper()} device but "
                           f"torch.{backend}.is_available() is False. If you are running on a CPU-only machine, please "
                           "use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.")
    count = module.device_count()
    if index >= count:
        raise RuntimeError(f"Attempting to deserialize object on {backend.upper()} device {index} but "
                           f"torch.{backend}.device_count() is {count}. Please use torch.load with map_location to map "
                           "your storages to an existing device.")
    return device(backend, index)


register_package(10, _cpu_tag, _cpu_deserialize)
register_package(20, lambda s: _backend_tag("cuda", s), functools.partial(_backend_deserialize, "cuda"))
register_package(21, lambda s: _backend_tag("mps", s), _mps_deserialize)
register_package(22, _meta_tag, _meta_deserialize)
register_package(23, lambda s: _backend_tag("emu", s), functools.partial(_backend_deserialize, "emu"))
for _priority, _backend in ((24, "hpu"), (25, "xpu"), (26, "mtia")):
    register_package(_priority, functools.partial(_backend_tag, _backend), functools.partial(_backend_deserialize,
                                                                                             _backend))


def location_tag(storage) -> str:
    """``"cpu"``, ``"cuda:0"``, ``"meta"``: where a storage lives, as a checkpoint records it."""
    for _, tagger, _ in _package_registry:
        location = tagger(storage)
        if location:
            return location
    raise RuntimeError(f"don't know how to determine data location of {_typename(storage)}")


def default_restore_location(storage, location: str):
    """Put a freshly read CPU storage where its location tag says, through the registered deserializers."""
    for _, _, fn in _package_registry:
        result = fn(storage, location)
        if result is not None:
            return result
    raise RuntimeError(f"don't know how to restore data location of {_typename(storage)} (tagged with {location})")


def _typename(storage) -> str:
    return "torch.storage.UntypedStorage" if type(storage) is UntypedStorage else f"torch.{type(storage).__name__}"


def validate_cuda_device(location: str) -> int:
    """The CUDA device index of a location tag, once that device exists here."""
    return _validate_device(location, "cuda").index


def _move_storage(storage: UntypedStorage, target: device) -> UntypedStorage:
    if storage.device == target:
        return storage
    n = storage.nbytes()
    flat = wrap(TensorImpl(storage, (n,), (1,), 0, _dt.uint8, storage.device))
    return flat.to(target)._impl.storage


def normalize_storage_type(storage_type):
    """The storage class of this name (``UntypedStorage``, ``FloatStorage`` ...) as the package exports it."""
    return _STORAGE_CLASSES[storage_type.__name__]


_STORAGE_CLASSES = {cls.__name__: cls for cls in (UntypedStorage, TypedStorage) + LEGACY_STORAGES}


def storage_to_tensor_type(storage):
    """The legacy tensor type of a typed storage (``FloatStorage`` -> ``FloatTensor``)."""
    return LEGACY_TYPES[_utils.STORAGE_TYPE_NAMES[storage.dtype].replace("Storage", "Tensor")]


def _restorer(map_location):
    """``restore(storage, location)`` for the four forms of ``map_location``."""
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda s, loc: default_restore_location(s, map_location.get(loc, loc))
    if isinstance(map_location, (str, bytes, device)):  # bytes are passed on as they are, as PyTorch does
        where = str(map_location) if isinstance(map_location, device) else map_location
        return lambda s, loc: default_restore_location(s, where)

    def call(s, loc):
        out = map_location(s, loc)
        if out is None:
            return default_restore_location(s, loc)
        return out._untyped_storage if isinstance(out, _utils.TypedStorage) else out
    return call


def _is_meta_location(map_location) -> bool:
    if isinstance(map_location, str):
        return map_location == "meta"
    return isinstance(map_location, device) and map_location.type == "meta"


def _active_fake_mode():
    """The innermost FakeTensorMode on the dispatch-mode stack, if any (PyTorch's ``detect_fake_mode``)."""
    mod = _cp.fake_tensor_module()
    if mod is None:
        return None
    for mode in reversed(_python_dispatch.mode_stack()):
        if isinstance(mode, mod.FakeTensorMode):
            return mode
    return None


# == files and archives ========================================================================================

def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


class _opener:
    def __init__(self, file_like):
        self.file_like = file_like

    def __enter__(self):
        return self.file_like

    def __exit__(self, *exc):
        pass


class _open_file(_opener):
    def __init__(self, name, mode: str):
        super().__init__(open(name, mode))  # noqa: SIM115

    def __exit__(self, *exc):
        self.file_like.close()


class _open_buffer_reader(_opener):
    def __init__(self, buffer):
        super().__init__(buffer)
        _check_seekable(buffer)


class _open_buffer_writer(_opener):
    def __exit__(self, *exc):
        self.file_like.flush()


def _open_file_like(name_or_buffer, mode: str) -> _opener:
    """A context manager giving an open file for a path, or the buffer itself (checked, flushed)."""
    if _is_path(name_or_buffer):
        return _open_file(name_or_buffer, mode)
    if "w" in mode:
        return _open_buffer_writer(name_or_buffer)
    if "r" in mode:
        return _open_buffer_reader(name_or_buffer)
    raise RuntimeError(f"Expected 'r' or 'w' in mode but got {mode}")


class _open_zipfile_reader(_opener):
    def __init__(self, name_or_buffer):
        super().__init__(PyTorchFileReader(name_or_buffer))


class _open_zipfile_writer(_opener):
    """A PyTorchFileWriter over a path or a buffer, with the CRC-32 and alignment options; finished on exit."""

    def __init__(self, name_or_buffer, archive_name: str | None = None):
        if not _is_path(name_or_buffer):
            write = getattr(name_or_buffer, "write", None)
            if not callable(write):
                msg = f"Buffer of {str(type(name_or_buffer)).strip('<>')} has no callable attribute 'write'"
                raise AttributeError(msg) if write is None else TypeError(msg)
        super().__init__(PyTorchFileWriter(name_or_buffer, get_crc32_options(), _get_storage_alignment(),
                                           archive_name=archive_name))

    def __exit__(self, *exc):
        if exc[0] is None:
            self.file_like.write_end_of_file()  # flushes the buffer (and closes a file it opened)


def _is_zipfile(f) -> bool:
    """Whether ``f`` starts (at its position) with a zip local header; stricter than ``zipfile.is_zipfile``."""
    return is_zipfile(f)


def _is_torchscript_zip(zip_file) -> bool:
    return "constants.pkl" in zip_file.get_all_records()


def _check_seekable(f) -> bool:
    """True once ``f.seek(f.tell())`` worked (PyTorch's ``_check_seekable``); a missing or unsupported
    ``seek``/``tell`` raises its own error with PyTorch's advice appended."""
    try:
        f.seek(f.tell())
        return True
    except (io.UnsupportedOperation, AttributeError) as e:
        if "seek" in str(e) or "tell" in str(e):
            raise type(e)(f"{e}. You can only torch.load from a file that is seekable. Please pre-load the data into "
                          "a buffer like io.BytesIO and try to load from it instead.") from None
        raise


# == save =====================================================================================================

def save(obj, f, pickle_module=pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` to a path or a writable file object in PyTorch's checkpoint format (``torch.save``).

    Args:
        obj: tensors, parameters, dicts/lists/tuples of them, numbers, strings, Size, dtype, device ...
        f: a path (written atomically: temp file, fsync, rename) or a file object with ``write``.
        pickle_module: accepted for compatibility (dill's version is checked); the pickling is pickle's own.
        pickle_protocol: the pickle protocol of ``data.pkl`` (PyTorch's default 2).
        _use_new_zipfile_serialization: False writes PyTorch's legacy (pre-1.6) format.
        _disable_byteorder_record: accepted; as in PyTorch 2.13 the archive still ends with a byteorder record.

    Raises:
        AttributeError: ``f`` is neither a path nor has ``write``.
        TypeError: ``f.write`` is not callable.
        RuntimeError: two tensors view one storage with different dtypes; ``skip_data`` with the legacy format.

    Example:
        >>> import io, glasstorch as torch
        >>> buf = io.BytesIO()
        >>> torch.save({"w": torch.ones(2)}, buf)
    """
    _check_dill_version(pickle_module)
    if not _is_path(f) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    if not _use_new_zipfile_serialization and _serialization_tls.skip_data:
        raise RuntimeError("Cannot use skip_data=True with _use_new_zipfile_serialization=False")
    if _is_path(f):
        path = os.fspath(f)
        with _AtomicFile(path) as out:
            _write(obj, out, path, pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record)
        return
    _write(obj, f, None, pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record)


def _write(obj, f, path, protocol, zip_format, no_byteorder):
    if not zip_format:
        with _open_file_like(f, "wb") as out:
            _legacy.save_legacy(obj, out, protocol, location_tag, _nn.Module)
        return
    # a path is written through a temporary file: the archive folder is still the target's stem
    with _open_zipfile_writer(f, archive_name_of(path) if path is not None else None) as writer:
        _save_zip(obj, writer, protocol, no_byteorder)


def _save_zip(obj, writer: PyTorchFileWriter, protocol: int, no_byteorder: bool) -> None:
    """The records in PyTorch's order: data.pkl, .format_version, .storage_alignment, byteorder, data/<key>..."""
    table = _cp.StorageTable(location_tag)
    buf = io.BytesIO()
    _cp.CheckpointPickler(buf, protocol, table).dump(obj)
    writer.write_record("data.pkl", buf.getbuffer(), buf.getbuffer().nbytes)
    writer.write_record(".format_version", "1", 1)
    alignment = str(_get_storage_alignment())
    writer.write_record(".storage_alignment", alignment, len(alignment))
    if not no_byteorder:
        writer.write_record("byteorder", sys.byteorder, len(sys.byteorder))
    for key, storage in table.storages.items():
        if _serialization_tls.skip_data:
            writer.write_record_metadata(f"data/{key}", storage.nbytes())
        else:
            data = _legacy.host_bytes(storage)
            writer.write_record(f"data/{key}", data, data.size)
# == load ======================================================================================================

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
        mmap: map the file; tensors then read their bytes from the mapping (needs a path and the zip format);
            None takes ``utils.serialization.config.load.mmap``.
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
    mmap = _config.load.mmap if mmap is None else mmap
    _check_dill_version(pickle_module)
    pickle_load_args.setdefault("encoding", "utf-8")
    if _is_path(f) and os.fspath(f).endswith(".safetensors"):
        return _load_safetensors(os.fspath(f), map_location)
    with _open_file_like(f, "rb") as opened:
        return _load_opened(f, opened, map_location, pickle_module, weights_only, bool(mmap), pickle_load_args)
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
        reader = PyTorchFileReader(opened)
        if _is_torchscript_zip(reader):
            if weights_only:
                raise RuntimeError("Cannot use ``weights_only=True`` with TorchScript archives passed to "
                                   "``torch.load``. " + UNSAFE_MESSAGE)
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
    return _guarded(weights_only, _legacy.load_legacy, opened, _restorer(map_location), pickle_module, weights_only,
                    load_args)


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
    if not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    mode = "r+" if get_default_mmap_options() == MAP_SHARED else "c"
    return np.memmap(os.fspath(f), dtype=np.uint8, mode=mode).view(np.ndarray)


def _checkpoint_byteorder(reader: PyTorchFileReader) -> str | None:
    """The byte order of the stored data: its record, else the configured fallback (None: native)."""
    if reader.has_record("byteorder"):
        order = reader.get_record("byteorder")
        if order not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + order.decode())
        return order.decode()
    fallback = get_default_load_endianness()
    if fallback is None and sys.byteorder == "big":
        warnings.warn("The default load endianness for checkpoints without a byteorder mark on big endian machines "
                      "was changed from 'native' to 'little' endian, to avoid this behavior please use "
                      "torch.serialization.set_default_load_endianness to set the desired default load endianness",
                      UserWarning, stacklevel=4)
    if fallback is None or fallback == LoadEndianness.LITTLE:
        return "little"
    if fallback == LoadEndianness.BIG:
        return "big"
    if fallback == LoadEndianness.NATIVE:
        return None
    raise ValueError("Invalid load endianness type")


class _LoadedStorages:
    """The ``persistent_load`` of a zip checkpoint: each key read once, byte-swapped if needed, restored.

    Under a FakeTensorMode, or with ``map_location="meta"``, nothing is read: each storage is a meta storage
    that records where its bytes start in the file (``_checkpoint_offset``).  Offsets come from each record's
    local header, or — for files of ``.format_version`` 1 and up, when ``calculate_storage_offsets`` is on —
    are computed from the previous record's end, as PyTorch's miniz writer laid them out.
    """

    def __init__(self, reader: PyTorchFileReader, map_location, mapped):
        self.reader, self.mapped = reader, mapped
        self.restore, self.meta = _restorer(map_location), _is_meta_location(map_location)
        order = _checkpoint_byteorder(reader)
        self.swap = order is not None and order != sys.byteorder
        version = reader.get_record(".format_version") if reader.has_record(".format_version") else b"0"
        self.can_calculate = version >= b"1"
        self.alignment = int(reader.get_record(".storage_alignment")) if reader.has_record(".storage_alignment") \
            else 64
        self.by_key: dict[str, UntypedStorage] = {}
        self.offsets: dict[str, int] = {}
        self.cursor = None

    def __call__(self, pid):
        if not isinstance(pid, tuple) or len(pid) != 5 or _cp.ascii_str(pid[0]) != "storage":
            raise RuntimeError(f"Unknown typename for persistent_load, expected 'storage' but got {pid!r}")
        storage_type, key, location, numel = pid[1:]
        dtype = _cp.storage_dtype(storage_type)
        untyped = self.by_key.get(key)
        if untyped is None:
            untyped = self.by_key[key] = self._read(str(key), numel * dtype.itemsize, dtype, _cp.ascii_str(location))
        return _utils.TypedStorage._new_wrapped(untyped, dtype)  # typed even for an UntypedStorage, as PyTorch

    def _read(self, key: str, nbytes: int, dtype, location: str) -> UntypedStorage:
        name = f"data/{key}"
        size = self.reader.get_record_size(name)
        if size != nbytes:  # PyTorch reads every storage record as bytes, hence "dtype Byte"
            raise RuntimeError(f"record size ({size} bytes) does not match expected size ({nbytes} bytes = {nbytes} "
                               "elements * 1 bytes/element) for dtype Byte")
        if self.meta or _active_fake_mode() is not None:
            storage = UntypedStorage(nbytes, device="meta")
            storage._checkpoint_offset = self._offset(key, name, nbytes) if self.can_calculate \
                else self.reader.get_record_offset(name)
            if not self.meta:
                storage._fake_device = location
            return storage
        if _serialization_tls.skip_data:
            return self.restore(UntypedStorage(nbytes), location)
        if self.mapped is not None:
            calc = self.can_calculate and _config.load.calculate_storage_offsets
            start = self._offset(key, name, nbytes) if calc else self.reader.get_record_offset(name)
            data = self.mapped[start:start + nbytes]
        else:
            data = _cpu_allocator.allocate(nbytes)  # aligned as any new CPU storage
            self.reader.read_into(name, data)
        if self.swap:
            _legacy.byteswap(data, dtype)
        return self.restore(UntypedStorage._wrap(data, nbytes, CPU), location)

    def _offset(self, key: str, name: str, nbytes: int) -> int:
        """The data offset of record ``name``, computed from where the previous storage record ended."""
        if name in self.offsets:
            return self.offsets[name]
        if self.cursor is None:
            start, header = self.reader.get_record_offset(name), self.reader.get_record_header_offset(name)
        else:
            start = self.reader.get_record_offset_no_read(self.cursor, name, nbytes, self.alignment)
            header = self.cursor
        self.offsets[name] = start
        self.cursor = start + nbytes + (descriptor_size(header, nbytes) if nbytes else 0)
        return start


_cpu_allocator = CPUAllocator()


def _load_zip(reader: PyTorchFileReader, map_location, pickle_module, weights_only, mapped, load_args):
    storages = _LoadedStorages(reader, map_location, mapped)
    unpickler = _cp.make_unpickler(io.BytesIO(reader.get_record("data.pkl")), pickle_module, weights_only, load_args)
    unpickler.persistent_load = storages
    _serialization_tls.map_location = map_location
    try:
        return unpickler.load()
    finally:
        _serialization_tls.map_location = None


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
    safe = set(_wo._get_allowed_globals()) | set(_wo._get_user_allowed_globals())
    with _open_file_like(f, "rb") as opened:
        if not is_zipfile(opened):
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        reader = PyTorchFileReader(opened)
        if _is_torchscript_zip(reader):
            raise ValueError("Expected input to be a checkpoint returned by torch.save but got a torchscript "
                             "checkpoint")
        data = reader.get_record("data.pkl")
    return sorted(g for g in _wo.globals_in_pickle(data) if g not in safe)
