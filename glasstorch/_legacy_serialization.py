"""PyTorch's checkpoint formats from before 1.6 — the legacy halves of ``torch/serialization.py``.

Two formats, both still loadable by PyTorch and here:

* the *pickle stream* (PyTorch 0.4–1.5, and ``save(..., _use_new_zipfile_serialization=False)``): five pickles
  in a row — the magic number ``0x1950a86a20f9469cfc6c``, the protocol version 1001, a dict of system info
  (byte order, type sizes), the object graph (storages as persistent ids ``("storage", type, key, location,
  numel, view_metadata)``, ``nn.Module`` classes as ``("module", cls, source_file, source)``), the sorted list of
  storage keys — then each storage's element count (8 bytes, little endian) and raw bytes, in key order;
* the *tar* format (before 0.4): a tar archive of ``storages`` (count, then per storage a pickle
  ``(key, location, storage_type)``, its count and bytes; then the views ``(view_key, root_key, offset,
  numel)``), ``tensors`` (per tensor a pickle ``(key, storage_key, type)`` then ndim, sizes, strides and
  offset as binary integers) and ``pickle`` (the object graph, tensors as persistent ids of their keys).

Loading a module class whose source changed since it was saved warns with :class:`SourceChangeWarning`.

Invariant: storages are allocated while the object graph is unpickled and filled afterwards, so tensors and
storage views over one saved storage share memory.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
import tarfile
import tempfile
import warnings

import numpy as np

from . import _checkpoint_pickle as _cp
from . import _utils
from ._core.device import CPU
from ._inline_container import is_zipfile, read_exact
from ._tensor.storage import UntypedStorage
from .tensor import _tensor_over

__all__ = ["SourceChangeWarning", "NotACheckpointError", "save_legacy", "load_legacy", "byteswap", "MAGIC_NUMBER",
           "PROTOCOL_VERSION"]

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
TAR_WEIGHTS_ONLY_MESSAGE = "Cannot use ``weights_only=True`` with files saved in the legacy .tar format. "
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to "
    "`True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source.")


class SourceChangeWarning(Warning):
    """The source of a saved ``nn.Module`` class differs from the class loaded now (PyTorch's warning)."""


class NotACheckpointError(RuntimeError, pickle.UnpicklingError):
    """Bytes that are neither a zip checkpoint nor PyTorch's legacy format (a RuntimeError and an
    UnpicklingError, so both PyTorch-style handlers catch it)."""


def byteswap(data: np.ndarray, dtype) -> None:
    """Swap each element's bytes in place (a checkpoint written on a machine of the other byte order)."""
    width = dtype.itemsize // 2 if dtype.is_complex else dtype.itemsize
    if width > 1 and data.size:
        data.view(f"u{width}").byteswap(inplace=True)


def host_bytes(storage: UntypedStorage) -> np.ndarray:
    """A storage's bytes as a host array (zeros for a storage without data: meta)."""
    if storage.device.type == "meta":
        return np.zeros(storage.nbytes(), np.uint8)
    return storage.cpu().bytes_view()


# == save =====================================================================================================

def save_legacy(obj, f, protocol: int, tagger, module_class) -> None:
    """PyTorch's pre-1.6 format: magic, version, sys info, the pickle, its storage keys, then raw storages."""
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 8}}
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        pickle.dump(header, f, protocol=protocol)
    table = _cp.StorageTable(tagger, legacy=True)
    _cp.CheckpointPickler(f, protocol, table, module_class).dump(obj)
    keys = sorted(table.storages)
    pickle.dump(keys, f, protocol=protocol)
    for key in keys:
        storage = table.storages[key]
        f.write(struct.pack("<q", storage.nbytes() // table.dtypes[key].itemsize))
        f.write(memoryview(host_bytes(storage)))
    if hasattr(f, "flush"):
        f.flush()


# == load =====================================================================================================

def load_legacy(f, restore, pickle_module, weights_only, load_args):
    """Load the pickle-stream or the tar format from ``f`` (at its current position)."""
    def read_pickle():  # the header pickles go through the load's own unpickler, as PyTorch's pickle_module.load
        return _cp.make_unpickler(f, pickle_module, weights_only, load_args).load()

    if not hasattr(f, "readline"):  # the unpicklers need it: the weights-only one looks it up, pickle's checks it
        if weights_only:
            raise AttributeError(f"'{type(f).__name__}' object has no attribute 'readline'")
        raise TypeError("file must have 'read' and 'readline' attributes")
    if _reads_directly(f) and f.tell() == 0:
        try:
            return _load_tar(f, restore, pickle_module, weights_only, load_args)
        except tarfile.TarError:
            if is_zipfile(f):
                raise RuntimeError(f"{f.name} is a zip archive (did you mean to use torch.jit.load()?)") from None
            f.seek(0)
    try:
        magic = read_pickle()
    except EOFError:
        raise
    except Exception as e:
        raise NotACheckpointError("Invalid magic number; corrupt file? (the data is neither a zip checkpoint nor "
                                  f"PyTorch's legacy format: {e})") from None
    if magic != MAGIC_NUMBER:
        raise NotACheckpointError("Invalid magic number; corrupt file?")
    version = read_pickle()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    sys_info = read_pickle()
    swap = isinstance(sys_info, dict) and sys_info.get("little_endian", True) != (sys.byteorder == "little")
    storages = _LegacyStorages(restore)
    unpickler = _cp.make_unpickler(f, pickle_module, weights_only, load_args)
    unpickler.persistent_load = storages
    result = unpickler.load()
    keys = read_pickle()
    if not _cp.serialization_tls.skip_data:
        for key in keys:
            storages.fill(f, key, swap)
    return result


def _reads_directly(f) -> bool:
    """A real file (it has a working ``fileno``) and not a gzip stream: the tar format is tried only there."""
    if getattr(f, "__module__", None) == "gzip" or type(f).__module__ == "gzip":
        return False
    try:
        return f.fileno() >= 0
    except (OSError, AttributeError, ValueError):
        return False


class _LegacyStorages:
    """``persistent_load`` of the pickle-stream format: storages are made first and filled after the pickle."""

    def __init__(self, restore):
        self.restore = restore
        self.roots: dict[str, tuple] = {}
        self.views: dict[str, UntypedStorage] = {}

    def __call__(self, pid):
        if not isinstance(pid, tuple) or _cp.ascii_str(pid[0]) not in ("storage", "module"):
            raise RuntimeError(f"Unknown saved id type: {pid[0] if isinstance(pid, tuple) else pid!r}")
        if _cp.ascii_str(pid[0]) == "module":
            if all(pid[2:]):
                check_container_source(*pid[1:])
            return pid[1]
        storage_type, root_key, location, numel, view_metadata = pid[1:]
        dtype = _cp.storage_dtype(storage_type)
        if root_key not in self.roots:
            host = UntypedStorage(numel * dtype.itemsize)
            self.roots[root_key] = (self.restore(host, _cp.ascii_str(location)), dtype)
        untyped, _ = self.roots[root_key]
        if view_metadata is not None:
            view_key, offset, size = view_metadata
            if view_key not in self.views:
                begin = offset * dtype.itemsize
                self.views[view_key] = untyped[begin:begin + size * dtype.itemsize]
            untyped = self.views[view_key]
        return _utils.TypedStorage._new_wrapped(untyped, dtype)  # typed even for an UntypedStorage, as PyTorch

    def fill(self, f, key, swap: bool) -> None:
        untyped, dtype = self.roots[key]
        head = f.read(8)
        if len(head) != 8:
            raise RuntimeError(f"legacy checkpoint ends before the data of storage {key}")
        numel = struct.unpack("<q", head)[0]
        if numel * dtype.itemsize != untyped.nbytes():
            raise RuntimeError(f"legacy checkpoint: storage {key} records {numel} elements, the pickle "
                               f"expects {untyped.nbytes() // dtype.itemsize}")
        if untyped.device.type == "cpu":  # straight into the storage: no staging copy of a large tensor
            data = untyped.bytes_view()
            if read_exact(f, memoryview(data)) != data.size:
                raise RuntimeError(f"legacy checkpoint ends inside the data of storage {key}")
            if swap:
                byteswap(data, dtype)
            return
        fill_storage(untyped, _read_bytes(f, untyped.nbytes(), key), dtype, swap)


def _read_bytes(f, nbytes: int, key) -> np.ndarray:
    data = np.empty(nbytes, np.uint8)
    if read_exact(f, memoryview(data)) != data.size:
        raise RuntimeError(f"legacy checkpoint ends inside the data of storage {key}")
    return data


def fill_storage(untyped: UntypedStorage, data: np.ndarray, dtype, swap: bool) -> None:
    if swap:
        byteswap(data, dtype)
    if untyped.device.type == "cpu":
        untyped.bytes_view()[:] = data
    elif untyped.device.type != "meta":
        untyped.copy_(UntypedStorage._wrap(data, data.size, CPU))


def check_container_source(cls: type, source_file, original_source) -> None:
    """Warn (SourceChangeWarning) when a saved module class's source differs from the class loaded now."""
    try:
        current, _ = _cp.container_source(cls)
    except Exception:  # the source is optional: without it there is nothing to compare
        warnings.warn(f"Couldn't retrieve source code for container of type {cls.__name__}. It won't be checked "
                      "for correctness upon loading.", stacklevel=2)
        return
    if original_source != current:
        warnings.warn(f"source code of class '{cls.__module__}.{cls.__qualname__}' has changed. you can retrieve "
                      "the original source code by accessing the object's source attribute or set "
                      "`torch.nn.Module.dump_patches = True` and use the patch tool to revert the changes.",
                      SourceChangeWarning, stacklevel=2)


# -- the tar format -------------------------------------------------------------------------------------------

def _load_tar(f, restore, pickle_module, weights_only, load_args):
    with tarfile.open(fileobj=f, mode="r:", format=tarfile.PAX_FORMAT) as tar, tempfile.TemporaryDirectory() as tmp:
        if weights_only:
            raise RuntimeError(TAR_WEIGHTS_ONLY_MESSAGE + UNSAFE_MESSAGE)
        objects: dict = {}
        tar.extract("storages", path=tmp)
        with open(os.path.join(tmp, "storages"), "rb", 0) as s:
            _tar_storages(s, objects, restore, pickle_module, load_args)
        tar.extract("tensors", path=tmp)
        with open(os.path.join(tmp, "tensors"), "rb", 0) as t:
            _tar_tensors(t, objects, pickle_module, load_args)
        unpickler = _cp.make_unpickler(tar.extractfile("pickle"), pickle_module, False, load_args)

        def persistent_load(saved_id):
            if isinstance(saved_id, tuple):
                if all(saved_id[1:]):
                    check_container_source(*saved_id)
                return saved_id[0]
            return objects[int(saved_id)]
        unpickler.persistent_load = persistent_load
        return unpickler.load()


def _tar_pickle(f, pickle_module, load_args):
    """One pickle of the tar format's members, PyTorch's names mapped to glasstorch's."""
    return _cp.make_unpickler(f, pickle_module, False, load_args).load()


def _tar_storages(s, objects, restore, pickle_module, load_args) -> None:
    for _ in range(_tar_pickle(s, pickle_module, load_args)):
        key, location, storage_type = _tar_pickle(s, pickle_module, load_args)
        dtype = _cp.storage_dtype(storage_type)
        numel = struct.unpack("<q", s.read(8))[0]
        host = UntypedStorage(numel * dtype.itemsize)
        fill_storage(host, _read_bytes(s, host.nbytes(), key), dtype, False)
        objects[key] = _utils.TypedStorage._new_wrapped(restore(host, _cp.ascii_str(location)), dtype)
    for target, root_key, offset, numel in _tar_pickle(s, pickle_module, load_args):
        root = objects[root_key]
        begin = offset * root.dtype.itemsize
        view = root._untyped_storage[begin:begin + numel * root.dtype.itemsize]
        objects[target] = _utils.TypedStorage._new_wrapped(view, root.dtype)


def _tar_tensors(t, objects, pickle_module, load_args) -> None:
    for _ in range(_tar_pickle(t, pickle_module, load_args)):
        key, storage_id, _original_type = _tar_pickle(t, pickle_module, load_args)
        storage = objects[storage_id]
        (ndim,) = struct.unpack("<i", t.read(4))
        t.read(4)
        sizes = struct.unpack(f"<{ndim}q", t.read(8 * ndim))
        strides = struct.unpack(f"<{ndim}q", t.read(8 * ndim))
        (offset,) = struct.unpack("<q", t.read(8))
        objects[key] = _tensor_over(storage._untyped_storage, storage.dtype, offset, sizes, strides)

