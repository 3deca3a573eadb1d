"""safetensors files — the Hugging Face format, as ``safetensors.torch`` reads and writes it.

Layout: 8 bytes little-endian ``N``; ``N`` bytes of UTF-8 JSON (padded with spaces to a multiple of 8)
mapping each name to ``{"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}`` plus an optional
``"__metadata__"`` of str -> str; then the byte buffer, each tensor C-contiguous and little-endian, with
offsets relative to the buffer's start.  Tensors are laid out by dtype width (widest first), then by
name, as the reference writer does, so every tensor starts aligned for its dtype.

It lives in ``glasstorch.utils`` (the real package is a separate distribution, ``safetensors``, which this
module does not need); ``glasstorch.load`` of a ``*.safetensors`` path comes here too.

Invariant: the buffer is covered exactly — no gaps, no overlaps — and loading executes no code.
"""

from __future__ import annotations

import io
import json
import os
import struct
import sys

import numpy as np

from .._core import dtype as _dt
from .._core.device import CPU, as_device
from .._tensor.impl import empty_impl
from ..tensor import Tensor, wrap

__all__ = ["save_file", "load_file", "save", "load", "SafetensorError"]

_CODES = {
    _dt.bool: "BOOL", _dt.uint8: "U8", _dt.int8: "I8", _dt.int16: "I16", _dt.int32: "I32", _dt.int64: "I64",
    _dt.float16: "F16", _dt.bfloat16: "BF16", _dt.float32: "F32", _dt.float64: "F64", _dt.complex64: "C64",
}
_DTYPES = {code: dt for dt, code in _CODES.items()}
_MAX_HEADER = 100_000_000  # the reference implementation's limit


class SafetensorError(Exception):
    """A malformed safetensors file or an object that cannot be written as one."""


# -- writing ----------------------------------------------------------------------------------------------------

def _check_tensors(tensors) -> None:
    if not isinstance(tensors, dict):
        raise TypeError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"Key `{name}` is invalid, expected str but received {type(name)}")
        if not isinstance(t, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received {type(t)}")
        if t._impl.dtype not in _CODES:
            raise ValueError(f"Tensor `{name}` has dtype {t._impl.dtype}, which safetensors cannot store")
        if not t._impl.is_contiguous():
            raise ValueError(f"You are trying to save a non contiguous tensor: `{name}` which is not allowed. It "
                             "either means you are trying to save tensors which are reference of each other in which "
                             "case it's recommended to save only the full tensors, and reslice at load time, or "
                             "simply call `.contiguous()` on your tensor to pack it before saving.")
    _check_not_shared(tensors)


def _check_not_shared(tensors) -> None:
    """Two entries over overlapping bytes of one storage would load back as two copies: refused."""
    by_storage: dict[int, list] = {}
    for name, t in tensors.items():
        impl = t._impl
        if impl.numel() == 0:
            continue
        begin = impl.offset * impl.dtype.itemsize
        by_storage.setdefault(id(impl.storage), []).append((begin, begin + impl.numel() * impl.dtype.itemsize, name))
    failing = []
    for spans in by_storage.values():
        spans.sort()
        group = [spans[0]]
        for span in spans[1:]:
            if span[0] < max(s[1] for s in group):
                group.append(span)
                continue
            if len(group) > 1:
                failing.append({s[2] for s in group})
            group = [span]
        if len(group) > 1:
            failing.append({s[2] for s in group})
    if failing:
        raise RuntimeError(f"Some tensors share memory, this will lead to duplicate memory on disk and potential "
                           f"differences when loading them again: {failing}.\nA potential way to correctly save your "
                           "model is to use `save_model`.\nMore information at "
                           "https://huggingface.co/docs/safetensors/torch_shared_tensors")


def _layout(tensors, metadata):
    """(header bytes with its 8-byte length prefix, [(tensor, name)] in buffer order)."""
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in metadata.items()):
            raise TypeError("metadata must be a dict of str to str")
    order = sorted(tensors.items(), key=lambda kv: (-kv[1]._impl.dtype.itemsize, kv[0]))
    header: dict = {} if metadata is None else {"__metadata__": metadata}
    offset = 0
    for name, t in order:
        n = t._impl.numel() * t._impl.dtype.itemsize
        header[name] = {"dtype": _CODES[t._impl.dtype], "shape": list(t._impl.sizes),
                        "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, order


def _tensor_bytes(t: Tensor) -> memoryview:
    impl = t._impl
    if impl.device.type != "cpu":
        impl = t.cpu()._impl
    arr = impl.values_np()  # the values, lazy conj/neg bits applied
    if sys.byteorder == "big" and impl.dtype.itemsize > 1:
        arr = arr.byteswap()
    return memoryview(np.ascontiguousarray(arr).reshape(-1).view(np.uint8))


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    """The safetensors bytes of ``{name: tensor}`` (``safetensors.torch.save``).

    Example:
        >>> import glasstorch as torch
        >>> data = save({"w": torch.zeros(2)})
        >>> load(data)["w"]
        tensor([0., 0.])
    """
    _check_tensors(tensors)
    head, order = _layout(tensors, metadata)
    return head + b"".join(_tensor_bytes(t) for _, t in order)


def save_file(tensors: dict, filename, metadata: dict | None = None) -> None:
    """Write ``{name: tensor}`` to ``filename`` (``safetensors.torch.save_file``).

    Raises:
        ValueError: a tensor is not contiguous or has a dtype safetensors cannot store.
        RuntimeError: two entries share memory.
    """
    _check_tensors(tensors)
    head, order = _layout(tensors, metadata)
    with open(os.fspath(filename), "wb") as f:
        f.write(head)
        for _, t in order:
            f.write(_tensor_bytes(t))


# -- reading ----------------------------------------------------------------------------------------------------

def _parse_header(read, total: int) -> tuple[dict, int]:
    """``(entries, buffer start)`` with every rule of the format checked."""
    prefix = read(8)
    if len(prefix) != 8:
        raise SafetensorError("Error while deserializing header: HeaderTooSmall")
    n = struct.unpack("<Q", prefix)[0]
    if n > _MAX_HEADER:
        raise SafetensorError("Error while deserializing header: HeaderTooLarge")
    if 8 + n > total:
        raise SafetensorError("Error while deserializing header: InvalidHeaderLength")
    try:
        header = json.loads(read(n).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SafetensorError(f"Error while deserializing header: InvalidHeaderDeserialization: {e}") from None
    if not isinstance(header, dict):
        raise SafetensorError("Error while deserializing header: InvalidHeaderDeserialization")
    header.pop("__metadata__", None)
    _check_entries(header, total - 8 - n)
    return header, 8 + n


def _check_entries(header: dict, buffer_len: int) -> None:
    end = 0
    for name, info in sorted(header.items(), key=lambda kv: _offsets(kv)[0]):
        begin, stop = _offsets((name, info))
        if info.get("dtype") not in _DTYPES:
            raise SafetensorError(f"Error while deserializing header: unsupported dtype {info.get('dtype')!r} for "
                                  f"tensor {name!r}")
        shape = info.get("shape")
        if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
            raise SafetensorError(f"Error while deserializing header: invalid shape for tensor {name!r}")
        if begin != end:
            raise SafetensorError(f"Error while deserializing header: InvalidOffset({name})")
        nbytes = int(np.prod(shape, dtype=np.int64)) * _DTYPES[info["dtype"]].itemsize
        if stop - begin != nbytes:
            raise SafetensorError(f"Error while deserializing header: TensorInvalidInfo for tensor {name!r}")
        end = stop
    if end != buffer_len:
        raise SafetensorError("Error while deserializing header: MetadataIncompleteBuffer")


def _offsets(item) -> tuple[int, int]:
    name, info = item
    offs = info.get("data_offsets") if isinstance(info, dict) else None
    if not (isinstance(offs, list) and len(offs) == 2 and all(isinstance(o, int) for o in offs) and offs[0] >= 0
            and offs[1] >= offs[0]):
        raise SafetensorError(f"Error while deserializing header: invalid data_offsets for tensor {name!r}")
    return offs[0], offs[1]


def _tensor_from(info: dict, fill) -> Tensor:
    dtype = _DTYPES[info["dtype"]]
    impl = empty_impl(tuple(info["shape"]), dtype, CPU)
    data = impl.storage.bytes_view()
    fill(data)
    if sys.byteorder == "big" and dtype.itemsize > 1:
        impl.as_numpy().byteswap(inplace=True)
    return wrap(impl)


def _place(tensors: dict, device) -> dict:
    dev = as_device(device)
    if dev.type == "cpu":
        return tensors
    return {name: t.to(dev) for name, t in tensors.items()}


def load(data: bytes, device="cpu") -> dict:
    """``{name: tensor}`` from safetensors bytes (``safetensors.torch.load``)."""
    view = memoryview(data)
    header, start = _parse_header(io.BytesIO(view).read, len(view))
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        src = np.frombuffer(view, np.uint8, end - begin, start + begin)
        out[name] = _tensor_from(info, lambda d, src=src: d.__setitem__(slice(None), src))
    return _place(out, device)


def load_file(filename, device="cpu") -> dict:
    """``{name: tensor}`` from a safetensors file; each tensor owns its own storage (``load_file``)."""
    path = os.fspath(filename)
    with open(path, "rb") as f:
        header, start = _parse_header(f.read, os.fstat(f.fileno()).st_size)

        def fill_from(begin):
            def fill(d):
                f.seek(start + begin)
                if d.size and f.readinto(memoryview(d)) != d.size:
                    raise SafetensorError("the file ended inside a tensor's data")
            return fill
        out = {name: _tensor_from(info, fill_from(info["data_offsets"][0])) for name, info in header.items()}
    return _place(out, device)

