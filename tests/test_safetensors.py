"""glasstorch.utils.safetensors against the safetensors format, parsed here by hand.

The ``safetensors`` package is not installed in this environment, so the oracle is the format itself:
files written by glasstorch are parsed with ``struct``/``json`` and rebuilt as torch tensors
(``torch.frombuffer``) to compare values; files assembled by hand from torch tensors load in glasstorch.
When ``safetensors`` is installed, the files are also cross-read with it.
"""

from __future__ import annotations

import io
import json
import struct

import numpy as np
import pytest
import torch
from oracle import assert_same, both

import glasstorch as gt
from glasstorch.utils import safetensors as st

CODES = {"bool": "BOOL", "uint8": "U8", "int8": "I8", "int16": "I16", "int32": "I32", "int64": "I64",
         "float16": "F16", "bfloat16": "BF16", "float32": "F32", "float64": "F64", "complex64": "C64"}
TORCH_DTYPES = {code: getattr(torch, name) for name, code in CODES.items()}


def _tensors(m):
    out = {}
    for i, name in enumerate(CODES):
        base = m.arange(6, dtype=m.float64).view(2, 3) - 2.0 + i
        dt = getattr(m, name)
        out[f"t_{name}"] = (base > 0) if name == "bool" else (base.abs() if name == "uint8" else base).to(dt)
    out["scalar"] = m.tensor(1.5)
    out["empty"] = m.zeros(0, 4)
    return out


def _parse(data: bytes):
    """(header, buffer) by the letter of the format."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    return header, data[8 + n:], n


def _torch_from(header, buf):
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        dtype = TORCH_DTYPES[info["dtype"]]
        flat = torch.frombuffer(bytearray(buf[b:e]), dtype=dtype) if e > b else torch.empty(0, dtype=dtype)
        out[name] = flat.reshape(info["shape"])
    return out


def test_written_file_parses_by_hand_and_matches_torch(tmp_path):
    g, t = both(_tensors)
    path = tmp_path / "m.safetensors"
    st.save_file(g, path, metadata={"format": "pt"})
    data = path.read_bytes()
    header, buf, n = _parse(data)
    assert n % 8 == 0 and data[8:8 + n].decode().endswith((" ", "}"))
    assert header["__metadata__"] == {"format": "pt"}
    spans = sorted(v["data_offsets"] for k, v in header.items() if k != "__metadata__")
    assert spans[0][0] == 0 and spans[-1][1] == len(buf)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))  # no gaps, no overlaps
    for name, code in CODES.items():
        assert header[f"t_{name}"]["dtype"] == code and header[f"t_{name}"]["shape"] == [2, 3]
    for name, tt in _torch_from(header, buf).items():
        assert torch.equal(tt, t[name]), name


def test_layout_widest_dtype_first_then_name():
    g = {"b": gt.zeros(3, dtype=gt.int8), "a": gt.zeros(1, dtype=gt.float64), "c": gt.zeros(2, dtype=gt.float64)}
    header, _, _ = _parse(st.save(g))
    order = sorted(header, key=lambda k: header[k]["data_offsets"][0])
    assert order == ["a", "c", "b"]
    for info in header.values():
        width = np.dtype({"F64": "f8", "I8": "i1"}[info["dtype"]]).itemsize
        assert info["data_offsets"][0] % width == 0


def test_hand_built_file_loads(tmp_path):
    t = {"w": torch.randn(3, 4, generator=torch.Generator().manual_seed(0)), "i": torch.arange(5),
         "h": torch.tensor([1.5, -2.0], dtype=torch.bfloat16)}
    header, blobs, off = {"__metadata__": {"k": "v"}}, [], 0
    for name, tt in t.items():
        raw = tt.contiguous().view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": CODES[str(tt.dtype).removeprefix("torch.")], "shape": list(tt.shape),
                        "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    text = json.dumps(header).encode()
    path = tmp_path / "h.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    loaded = st.load_file(path)
    for name, tt in t.items():
        assert_same(loaded[name], tt)
    assert gt.load(str(path))["w"].tolist() == t["w"].tolist()
    assert st.load(path.read_bytes())["i"].tolist() == [0, 1, 2, 3, 4]


def test_round_trip_bytes_and_file_each_tensor_owns_its_storage(tmp_path):
    g = _tensors(gt)
    for loaded in (st.load(st.save(g)), _via_file(g, tmp_path)):
        assert set(loaded) == set(g)
        for k, v in g.items():
            assert loaded[k].dtype is v.dtype and loaded[k].shape == v.shape and loaded[k].tolist() == v.tolist()
        ptrs = [v.untyped_storage() for v in loaded.values()]
        assert len({id(p) for p in ptrs}) == len(ptrs)


def _via_file(g, tmp_path):
    path = tmp_path / "r.safetensors"
    st.save_file(g, str(path))
    return st.load_file(str(path), device="cpu")


def test_non_contiguous_and_shared_tensors_are_refused():
    x = gt.arange(6.0).view(2, 3)
    with pytest.raises(ValueError, match="non contiguous tensor: `t`"):
        st.save({"t": x.t()})
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        st.save({"a": x, "b": x[0]})
    parts = st.load(st.save({"a": x[0], "b": x[1]}))  # disjoint slices of one storage are fine
    assert parts["b"].tolist() == [3.0, 4.0, 5.0]
    with pytest.raises(ValueError, match="safetensors cannot store"):
        st.save({"c": gt.zeros(1, dtype=gt.complex128)})
    with pytest.raises(TypeError, match="metadata must be a dict of str to str"):
        st.save({"a": x}, metadata={"n": 1})


@pytest.mark.parametrize("mutate, message", [
    (lambda d: struct.pack("<Q", 200_000_000) + d[8:], "HeaderTooLarge"),
    (lambda d: struct.pack("<Q", len(d)) + d[8:], "InvalidHeaderLength"),
    (lambda d: d[:-4], "MetadataIncompleteBuffer|InvalidOffset|TensorInvalidInfo"),
    (lambda d: d[:8] + d[8:].replace(b'"F32"', b'"Q99"'), "unsupported dtype"),
    (lambda d: d[:8] + b"[" + d[9:], "InvalidHeaderDeserialization"),
    (lambda d: d[:5], "HeaderTooSmall"),
])
def test_malformed_files_raise(mutate, message):
    data = st.save({"a": gt.arange(4.0), "b": gt.arange(2.0)})
    with pytest.raises(st.SafetensorError, match=message):
        st.load(mutate(data))


def test_against_the_safetensors_package_when_installed(tmp_path):
    sft = pytest.importorskip("safetensors.torch")
    g, t = both(_tensors)
    path = tmp_path / "x.safetensors"
    st.save_file(g, path)
    for name, tt in sft.load_file(str(path)).items():
        assert torch.equal(tt, t[name])
    sft.save_file(t, str(path))
    for name, gg in st.load_file(path).items():
        assert_same(gg, t[name])


def test_load_of_safetensors_path_rejects_dict_map_location(tmp_path):
    path = tmp_path / "d.safetensors"
    st.save_file({"a": gt.ones(1)}, path)
    with pytest.raises(RuntimeError, match="dict map_location is not supported"):
        gt.load(str(path), map_location={"cpu": "cpu"})
    assert gt.load(str(path), map_location="cpu")["a"].tolist() == [1.0]
    assert isinstance(io.BytesIO(st.save({})).getvalue(), bytes)
