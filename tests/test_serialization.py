"""glasstorch.save / glasstorch.load against PyTorch's own checkpoint format (torch 2.13 is the oracle).

Files go both ways: glasstorch writes, torch reads; torch writes, glasstorch reads.  Checked: values, dtypes,
sizes, strides, offsets, requires_grad, Parameter, storage sharing of views, the archive layout (records,
64-byte alignment, the pickle bytes themselves), the weights-only allowlist and its error messages, corrupt
files, map_location, mmap, atomic writes and the legacy (pre-1.6) format.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import stat
import zipfile

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error, both

import glasstorch as gt
from glasstorch import _inline_container, serialization

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]


def _sample(m, name):
    """A 2x3 tensor of dtype ``name`` with distinct values, built the same way in glasstorch and torch."""
    dt = getattr(m, name)
    base = m.arange(6, dtype=m.float64).view(2, 3) - 2.5
    return (base > 0) if name == "bool" else (base.abs() if name == "uint8" else base).to(dt)


def _save_bytes(m, obj, **kw) -> bytes:
    buf = io.BytesIO()
    m.save(obj, buf, **kw)
    return buf.getvalue()


def _load_bytes(m, data: bytes, **kw):
    return m.load(io.BytesIO(data), **kw)


def _views(m):
    base = m.arange(12, dtype=m.float32).view(3, 4)
    return {"base": base, "row": base[1], "t": base.t(), "col": base[:, 2], "slice": base[1:, 1:3]}


# -- round trips through the other library -------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
def test_dtypes_glasstorch_to_torch_and_back(name):
    g, t = both(lambda m: _sample(m, name))
    from_g = _load_bytes(torch, _save_bytes(gt, {"x": g}))["x"]
    assert_same(g, from_g)
    from_t = _load_bytes(gt, _save_bytes(torch, {"x": t}))["x"]
    assert_same(from_t, t)


@pytest.mark.parametrize("writer", ["glasstorch", "torch"])
def test_views_share_one_storage(writer):
    g, t = both(_views)
    data = _save_bytes(gt, g) if writer == "glasstorch" else _save_bytes(torch, t)
    for reader in (gt, torch):
        out = _load_bytes(reader, data)
        for k in t:
            if reader is torch:
                assert_same(g[k], out[k], msg=f"{k}: ")
            else:
                assert_same(out[k], t[k], msg=f"{k}: ")
        ptrs = {out[k].untyped_storage().data_ptr() for k in out}
        assert len(ptrs) == 1, "views must come back over one storage"
        out["base"][1, 2] = 100.0
        assert out["row"][2].item() == 100.0 and out["t"][2, 1].item() == 100.0


def test_archive_layout_matches_torch():
    g, t = both(_views)
    ours = zipfile.ZipFile(io.BytesIO(_save_bytes(gt, g)))
    theirs = zipfile.ZipFile(io.BytesIO(_save_bytes(torch, t)))
    assert [i.filename for i in ours.infolist()] == [i.filename for i in theirs.infolist()]
    for name in ("byteorder", ".format_version", ".storage_alignment", "version"):
        assert ours.read(f"archive/{name}") == theirs.read(f"archive/{name}")
    assert len(ours.read("archive/.data/serialization_id")) == 40
    raw = _save_bytes(gt, g)
    reader = _inline_container.PyTorchFileReader(io.BytesIO(raw))
    for rec in reader.get_all_records():
        assert reader.get_record_offset(rec) % 64 == 0, rec
    assert ours.testzip() is None


def test_pickle_bytes_identical_to_torch():
    # (A device is left out: its "cpu" may be the very string object of a storage's location tag, which
    # pickle then memoizes once - equally valid, different bytes.)
    def build(m):
        sd = collections.OrderedDict(w=m.ones(2, 3), b=m.zeros(3, dtype=m.float64), n=m.tensor(5))
        return {"sd": sd, "shape": m.Size([2, 3]), "dt": m.bfloat16, "lay": m.strided,
                "meta": [1, 2.5, True, None, "s", (1, 2)], "bytes": b"ab"}
    g, t = both(build)
    ours = zipfile.ZipFile(io.BytesIO(_save_bytes(gt, g))).read("archive/data.pkl")
    theirs = zipfile.ZipFile(io.BytesIO(_save_bytes(torch, t))).read("archive/data.pkl")
    assert ours == theirs


def test_python_objects_round_trip_and_cross_load():
    def build(m):
        od = collections.OrderedDict([("a", 1), ("b", [2, 3])])
        od._metadata = {"": {"version": 1}}
        return {"od": od, "nested": [{"x": (1, 2.5, None)}, "str", True], "size": m.Size([4, 5]),
                "dtypes": [m.float32, m.int64, m.bool, m.complex64, m.bfloat16], "dev": m.device("cpu"),
                "big": 2**70, "neg": -3, "bytes": b"\x00\xff", "set": {1, 2}, "cplx": 1 + 2j}
    g, t = both(build)
    for data, reader, ref in ((_save_bytes(gt, g), torch, t), (_save_bytes(torch, t), gt, g)):
        out = _load_bytes(reader, data)
        assert out["od"] == ref["od"] and out["od"]._metadata == ref["od"]._metadata
        assert type(out["od"]) is collections.OrderedDict
        assert out["nested"] == ref["nested"] and out["big"] == 2**70 and out["bytes"] == b"\x00\xff"
        assert out["set"] == {1, 2} and out["cplx"] == 1 + 2j
        assert type(out["size"]) is reader.Size and tuple(out["size"]) == (4, 5)
        assert out["dtypes"] == [reader.float32, reader.int64, reader.bool, reader.complex64, reader.bfloat16]
        assert out["dev"] == reader.device("cpu")


def test_parameter_and_requires_grad_cross():
    g = {"p": gt.nn.Parameter(gt.ones(2, 2)), "frozen": gt.nn.Parameter(gt.zeros(2), requires_grad=False),
         "leaf": gt.ones(3, requires_grad=True), "plain": gt.ones(3)}
    out = _load_bytes(torch, _save_bytes(gt, g))
    assert type(out["p"]) is torch.nn.Parameter and out["p"].requires_grad
    assert type(out["frozen"]) is torch.nn.Parameter and not out["frozen"].requires_grad
    assert out["leaf"].requires_grad and not out["plain"].requires_grad
    back = _load_bytes(gt, _save_bytes(torch, out))
    assert type(back["p"]) is gt.nn.Parameter and back["p"].requires_grad
    assert type(back["frozen"]) is gt.nn.Parameter and not back["frozen"].requires_grad
    assert back["leaf"].requires_grad and back["leaf"].is_leaf and not back["plain"].requires_grad


def test_parameter_with_attributes_and_tensor_with_attributes():
    p = gt.nn.Parameter(gt.ones(2))
    p.tag = "w"
    x = gt.arange(3.0)
    x.note = 7
    out = _load_bytes(torch, _save_bytes(gt, [p, x]), weights_only=False)
    assert type(out[0]) is torch.nn.Parameter and out[0].tag == "w" and out[1].note == 7
    back = _load_bytes(gt, _save_bytes(torch, out), weights_only=False)
    assert type(back[0]) is gt.nn.Parameter and back[0].tag == "w" and back[1].note == 7


def test_module_state_dict_between_libraries():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3))
    gm = gt.nn.Sequential(gt.nn.Linear(4, 3), gt.nn.LayerNorm(3))
    gm.load_state_dict(_load_bytes(gt, _save_bytes(torch, tm.state_dict())))
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(gm(gt.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), rtol=1e-5)
    tm2 = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3))
    tm2.load_state_dict(_load_bytes(torch, _save_bytes(gt, gm.state_dict())))
    for k, v in tm.state_dict().items():
        assert torch.equal(v, tm2.state_dict()[k]), k


@pytest.mark.parametrize("shape_case", ["scalar", "empty", "offset_slice", "expanded"])
def test_odd_geometries(shape_case):
    def build(m):
        if shape_case == "scalar":
            return m.tensor(3.5)
        if shape_case == "empty":
            return m.zeros(0, 3)
        if shape_case == "offset_slice":
            return m.arange(10, dtype=m.int64)[3:7:2]
        return m.arange(3.0).view(3, 1).expand(3, 4)
    g, t = both(build)
    assert_same(g, _load_bytes(torch, _save_bytes(gt, g)))
    assert_same(_load_bytes(gt, _save_bytes(torch, t)), t)


def test_whole_storage_saved_for_a_slice():
    g, t = both(lambda m: m.arange(1000, dtype=m.float32)[10:12])
    ours = zipfile.ZipFile(io.BytesIO(_save_bytes(gt, g)))
    assert ours.getinfo("archive/data/0").file_size == 4000


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_untyped_storage_round_trip():
    s = gt.arange(4, dtype=gt.int32).untyped_storage()
    out = _load_bytes(torch, _save_bytes(gt, s))  # torch hands a loaded storage back as a uint8 TypedStorage
    assert out.dtype == torch.uint8 and list(out) == list(s.tolist())
    back = _load_bytes(gt, _save_bytes(torch, out))  # a typed storage in, a typed storage out
    assert back.dtype is gt.uint8 and back.tolist() == s.tolist() and isinstance(back.untyped(), gt.UntypedStorage)
    assert _load_bytes(gt, _save_bytes(gt, s)).tolist() == s.tolist()


def test_different_dtypes_over_one_storage_is_an_error():
    def save_views(m):
        x = m.zeros(4)
        return lambda: m.save([x, x.view(m.int32)], io.BytesIO())
    g, t = both(save_views)
    assert_same_error(g, t)


def test_pickle_protocol_4_both_ways():
    g, t = both(lambda m: {"a": m.arange(5), "s": m.Size([1]), "l": ["x"] * 3})
    out = _load_bytes(gt, _save_bytes(torch, t, pickle_protocol=4), weights_only=False)
    assert_same(out["a"], t["a"]) and out["l"] == ["x"] * 3
    # torch's weights-only VM has no FRAME opcode, even for its own protocol-4 files: both refuse them alike
    data = _save_bytes(torch, t, pickle_protocol=4)
    with pytest.warns(UserWarning, match="Detected pickle protocol 4"):
        assert_same_error(lambda: _load_bytes(gt, data), lambda: _load_bytes(torch, data))
    out = _load_bytes(torch, _save_bytes(gt, g, pickle_protocol=4), weights_only=False)
    assert_same(g["a"], out["a"]) and tuple(out["s"]) == (1,)


def test_save_type_errors_match_torch():
    assert_same_error(lambda: gt.save(gt.ones(1), 123), lambda: torch.save(torch.ones(1), 123))


# -- weights_only: the allowlist -----------------------------------------------------------------------------------

class _Evil:
    def __reduce__(self):
        return (os.system, ("touch " + self.marker,))


class AllowedPoint:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, AllowedPoint) and other.x == self.x


def _evil_checkpoint(tmp_path) -> tuple[bytes, str]:
    marker = str(tmp_path / "pwned")
    evil = _Evil()
    evil.marker = marker
    return _save_bytes(gt, {"w": gt.ones(1), "payload": evil}), marker


def test_hostile_pickle_runs_nothing(tmp_path):
    data, marker = _evil_checkpoint(tmp_path)
    with pytest.raises(pickle.UnpicklingError):
        _load_bytes(gt, data)
    assert not os.path.exists(marker)
    err_g, err_t = assert_same_error(lambda: _load_bytes(gt, data), lambda: _load_bytes(torch, data))
    assert "blocked" in str(err_g)
    assert not os.path.exists(marker)


def test_unknown_global_message_matches_torch():
    data = _save_bytes(gt, {"p": AllowedPoint(3)})
    assert_same_error(lambda: _load_bytes(gt, data), lambda: _load_bytes(torch, data))
    assert _load_bytes(gt, data, weights_only=False)["p"] == AllowedPoint(3)


def test_add_safe_globals_and_context_manager():
    data = _save_bytes(gt, [AllowedPoint(1)])
    with gt.serialization.safe_globals([AllowedPoint]):
        assert _load_bytes(gt, data) == [AllowedPoint(1)]
    with pytest.raises(pickle.UnpicklingError):
        _load_bytes(gt, data)
    gt.serialization.add_safe_globals([AllowedPoint])
    try:
        assert AllowedPoint in gt.serialization.get_safe_globals()
        assert _load_bytes(gt, data) == [AllowedPoint(1)]
    finally:
        gt.serialization.clear_safe_globals()
    assert gt.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == \
        torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))


def test_weights_only_with_pickle_module_is_an_error():
    data = _save_bytes(gt, [1])
    assert_same_error(lambda: _load_bytes(gt, data, pickle_module=pickle, weights_only=True),
                      lambda: _load_bytes(torch, data, pickle_module=pickle, weights_only=True))
    assert _load_bytes(gt, data, pickle_module=pickle) == [1]  # a pickle_module alone means weights_only=False


def test_restricted_vm_refuses_calls_and_bad_containers():
    from glasstorch import _weights_only_unpickler as wo
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL builtins.eval|GLOBAL eval"):
        wo.load(io.BytesIO(pickle.dumps(eval, protocol=2)))
    crafted = b"\x80\x02}q\x00K\x01a."  # APPEND onto a dict
    with pytest.raises(pickle.UnpicklingError, match="Can only append to lists"):
        wo.load(io.BytesIO(crafted))
    assert wo.load(io.BytesIO(pickle.dumps({"a": [1, 2.0, "x", None, (True,)], "b": {3}}, protocol=2))) == \
        {"a": [1, 2.0, "x", None, (True,)], "b": {3}}
    framed = pickle.dumps({"a": [1]}, protocol=4)  # torch's VM has no FRAME opcode (149), nor does this one
    with pytest.warns(UserWarning, match="protocol 4"):
        assert_same_error(lambda: wo.load(io.BytesIO(framed)),
                          lambda: torch._weights_only_unpickler.load(io.BytesIO(framed)))


# -- corrupt files -------------------------------------------------------------------------------------------------

def test_truncated_file_message_matches_torch():
    data = _save_bytes(gt, {"a": gt.arange(100.0)})
    for cut in (data[: len(data) // 2], data[:-10]):
        err_g, _ = assert_same_error(lambda cut=cut: _load_bytes(gt, cut), lambda cut=cut: _load_bytes(torch, cut))
        assert isinstance(err_g, RuntimeError)


def test_garbage_is_a_clear_runtime_error():
    for junk in (b"\x00garbage" * 50, b"hello world this is not a checkpoint", os.urandom(256)):
        for wo in (True, False):
            with pytest.raises(RuntimeError, match="Invalid magic number; corrupt file"):
                _load_bytes(gt, junk, weights_only=wo)
            with pytest.raises(pickle.UnpicklingError):  # what torch raises for garbage: both handlers catch it
                _load_bytes(gt, junk, weights_only=wo)
    assert_same_error(lambda: _load_bytes(gt, b""), lambda: _load_bytes(torch, b"", weights_only=False))


def test_data_edited_in_place_loads_as_torch_loads_it():
    # PyTorch's reader does not check CRC-32s: bytes changed after saving load as they now are
    data = bytearray(_save_bytes(gt, {"a": gt.arange(100.0)}))
    reader = _inline_container.PyTorchFileReader(io.BytesIO(bytes(data)))
    data[reader.get_record_offset("data/0") + 17] ^= 0xFF
    assert_same(_load_bytes(gt, bytes(data))["a"], _load_bytes(torch, bytes(data))["a"])


def test_geometry_outside_the_storage_is_rejected():
    x = gt.arange(4.0)
    ref = gt._utils.TypedStorage._new_wrapped(x.untyped_storage(), gt.float32)
    evil = io.BytesIO()
    p = serialization._CheckpointPickler(evil, 2, serialization._StorageTable(serialization.location_tag))

    class Bad:
        def __reduce__(self):
            return (serialization._name("torch._utils", "_rebuild_tensor_v2"),
                    (ref, 2, (3,), (1,), False, collections.OrderedDict()))
    p.dump(Bad())
    out = io.BytesIO()
    w = _inline_container.PyTorchFileWriter(out)
    w.write_record("data.pkl", evil.getvalue(), len(evil.getvalue()))
    w.write_record("data/0", x.untyped_storage().bytes_view(), 16)
    w.write_end_of_file()
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 16"):
        _load_bytes(gt, out.getvalue())


# -- map_location --------------------------------------------------------------------------------------------------

def _cuda_checkpoint(monkeypatch) -> bytes:
    monkeypatch.setattr(serialization, "location_tag", lambda storage: "cuda:0")
    data = _save_bytes(gt, {"w": gt.arange(3.0)})
    monkeypatch.undo()
    return data


def test_cuda_checkpoint_without_cuda(monkeypatch):
    data = _cuda_checkpoint(monkeypatch)
    assert_same_error(lambda: _load_bytes(gt, data), lambda: _load_bytes(torch, data))
    for where in ("cpu", gt.device("cpu"), {"cuda:0": "cpu"}):
        assert _load_bytes(gt, data, map_location=where)["w"].tolist() == [0.0, 1.0, 2.0]
    seen = []

    def to_cpu(storage, location):
        seen.append((type(storage).__name__, location))
        return storage
    assert _load_bytes(gt, data, map_location=to_cpu)["w"].tolist() == [0.0, 1.0, 2.0]
    assert seen == [("UntypedStorage", "cuda:0")]


def test_map_location_meta():
    out = _load_bytes(gt, _save_bytes(gt, {"w": gt.arange(6.0).view(2, 3)}), map_location="meta")
    ref = _load_bytes(torch, _save_bytes(torch, {"w": torch.arange(6.0).view(2, 3)}), map_location="meta")
    assert_same(out["w"], ref["w"])


def test_meta_tensor_round_trip():
    g, t = both(lambda m: m.empty(2, 3, device="meta").t())
    assert_same(g, _load_bytes(torch, _save_bytes(gt, g)))
    assert_same(_load_bytes(gt, _save_bytes(torch, t)), t)


# -- paths: atomic writes, mmap ------------------------------------------------------------------------------------

def test_path_save_is_atomic(tmp_path):
    path = tmp_path / "model.pt"
    gt.save({"a": gt.ones(2)}, path)
    assert sorted(os.listdir(tmp_path)) == ["model.pt"]
    assert zipfile.ZipFile(path).namelist()[0] == "model/data.pkl"
    mode = stat.S_IMODE(os.stat(path).st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask
    before = path.read_bytes()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        gt.save({"bad": lambda: 0}, path)
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["model.pt"]
    assert torch.load(path)["a"].tolist() == [1.0, 1.0]


def test_mmap_reads_from_the_file(tmp_path):
    path = tmp_path / "w.pt"
    base = torch.arange(10.0)
    torch.save({"a": base, "v": base[2:5]}, path)
    out = gt.load(path, mmap=True)
    assert out["a"].tolist() == list(range(10)) and out["v"].tolist() == [2.0, 3.0, 4.0]
    data = out["a"].untyped_storage().bytes_view()
    assert isinstance(data.base, np.memmap) or isinstance(getattr(data.base, "base", None), np.memmap)
    out["a"][0] = 42.0  # MAP_PRIVATE: the file is not modified
    assert torch.load(path)["a"][0].item() == 0.0
    assert out["v"].untyped_storage().data_ptr() == out["a"].untyped_storage().data_ptr()


def test_mmap_errors_match_torch(tmp_path):
    data = _save_bytes(gt, [1])
    assert_same_error(lambda: _load_bytes(gt, data, mmap=True), lambda: _load_bytes(torch, data, mmap=True))
    legacy = tmp_path / "old.pt"
    torch.save([torch.ones(1)], legacy, _use_new_zipfile_serialization=False)
    assert_same_error(lambda: gt.load(str(legacy), mmap=True), lambda: torch.load(str(legacy), mmap=True))


# -- the legacy format ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("weights_only", [True, False])
def test_legacy_format_from_torch(weights_only):
    g, t = both(_views)
    out = _load_bytes(gt, _save_bytes(torch, t, _use_new_zipfile_serialization=False), weights_only=weights_only)
    for k in t:
        assert_same(out[k], t[k], msg=f"{k}: ")
    assert len({out[k].untyped_storage().data_ptr() for k in out}) == 1


def test_legacy_format_written_by_glasstorch():
    g, t = both(lambda m: {"x": m.arange(6, dtype=m.int16).view(2, 3).t(), "p": m.nn.Parameter(m.ones(2))})
    out = _load_bytes(torch, _save_bytes(gt, g, _use_new_zipfile_serialization=False))
    assert_same(g["x"], out["x"]) and type(out["p"]) is torch.nn.Parameter
    head = io.BytesIO(_save_bytes(gt, g, _use_new_zipfile_serialization=False))
    assert pickle.load(head) == serialization.MAGIC_NUMBER and pickle.load(head) == 1001


# -- the container itself ------------------------------------------------------------------------------------------

def test_zip64_fields_when_values_overflow(monkeypatch):
    monkeypatch.setattr(_inline_container, "ZIP64_LIMIT", 50)  # every record "needs" ZIP64
    data = _save_bytes(gt, {"a": gt.arange(30.0)})
    z = zipfile.ZipFile(io.BytesIO(data))
    assert z.testzip() is None and z.getinfo("archive/data/0").file_size == 120
    assert torch.load(io.BytesIO(data))["a"].tolist() == list(range(30))
    reader = _inline_container.PyTorchFileReader(io.BytesIO(data))
    assert all(reader.get_record_offset(r) % 64 == 0 for r in reader.get_all_records())


def test_big_endian_checkpoint_is_byteswapped():
    data = _save_bytes(torch, {"a": torch.arange(4, dtype=torch.int32), "c": torch.tensor([1 + 2j])})
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    w = _inline_container.PyTorchFileWriter(out)
    for info in src.infolist():
        name = info.filename.split("/", 1)[1]
        payload = src.read(info)
        if name == "byteorder":
            payload = b"big"
        elif name == "data/0":
            payload = np.frombuffer(payload, "<i4").astype(">i4").tobytes()
        elif name == "data/1":
            payload = np.frombuffer(payload, "<c8").astype(">c8").tobytes()
        w.write_record(name, payload, len(payload))
    w.write_end_of_file()
    back = _load_bytes(gt, out.getvalue())
    assert back["a"].tolist() == [0, 1, 2, 3] and back["c"].tolist() == [1 + 2j]


def _adamw_after_steps(m, steps=3):
    """A small model and its AdamW after a few steps, built identically in torch or glasstorch."""
    model = m.nn.Linear(3, 2)
    with m.no_grad():
        model.weight.copy_(m.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)))
        model.bias.copy_(m.tensor(np.array([0.1, -0.2], dtype=np.float32)))
    opt = m.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1, amsgrad=True)
    x = m.tensor(np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3))
    for _ in range(steps):
        opt.zero_grad()
        (model(x) ** 2).sum().backward()
        opt.step()
    return model, opt


@pytest.mark.parametrize("writer", ["glasstorch", "torch"])
def test_optimizer_checkpoint_round_trip_with_torch(tmp_path, writer):
    """A checkpoint with model and optimizer state written by one library resumes identically in the other."""
    w, r = (gt, torch) if writer == "glasstorch" else (torch, gt)
    model, opt = _adamw_after_steps(w)
    path = tmp_path / "ckpt.pt"
    w.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "iter": 3}, str(path))
    ckpt = r.load(str(path))
    assert ckpt["iter"] == 3
    model2 = r.nn.Linear(3, 2)
    model2.load_state_dict(ckpt["model"])
    opt2 = r.optim.AdamW(model2.parameters(), lr=0.01, weight_decay=0.1, amsgrad=True)
    opt2.load_state_dict(ckpt["optimizer"])
    want_model, want_opt = _adamw_after_steps(w, steps=5)
    x = r.tensor(np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3))
    for _ in range(2):
        opt2.zero_grad()
        (model2(x) ** 2).sum().backward()
        opt2.step()
    np.testing.assert_allclose(model2.weight.detach().numpy(), want_model.weight.detach().numpy(), rtol=1e-6)
    st = opt2.state_dict()["state"][0]
    want = want_opt.state_dict()["state"][0]
    assert float(st["step"]) == float(want["step"]) == 5.0
    for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
        np.testing.assert_allclose(st[key].numpy(), want[key].numpy(), rtol=1e-6, atol=1e-9)


# -- file-likes with fewer methods than io.BytesIO ---------------------------------------------------------------

class _OnlyRead:
    def __init__(self, data: bytes):
        self._b = io.BytesIO(data)

    def read(self, n=-1):
        return self._b.read(n)


class _ReadSeek(_OnlyRead):
    def seek(self, *args):
        return self._b.seek(*args)


class _ReadSeekTell(_ReadSeek):  # what the zip reader needs: no readinto, readline or seekable
    def tell(self):
        return self._b.tell()


class _ReadlineSeekTell(_ReadSeekTell):  # what the legacy loader needs: no readinto or seekable
    def readline(self, *args):
        return self._b.readline(*args)


class _ReportsUnseekable(_ReadlineSeekTell):
    def seekable(self):
        return False


_FILE_LIKES = [_OnlyRead, _ReadSeek, _ReadSeekTell, _ReadlineSeekTell, _ReportsUnseekable]


def _checkpoint(m, legacy):
    return _save_bytes(m, {"w": m.arange(6.0).view(2, 3), "n": 3}, _use_new_zipfile_serialization=not legacy)


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("cls", _FILE_LIKES, ids=lambda c: c.__name__)
def test_load_from_minimal_file_likes(cls, weights_only, legacy):
    """torch.load needs only read/seek/tell for a zip checkpoint (plus readline for the legacy format): the same
    objects load in both libraries, and those torch refuses raise its error (the seekability advice, pickle's
    read/readline rule)."""
    outcomes = []
    for m in (gt, torch):
        try:
            r = m.load(cls(_checkpoint(m, legacy)), weights_only=weights_only)
            outcomes.append(("loaded", r["w"].tolist(), r["w"].stride(), r["n"]))
        except Exception as e:  # noqa: BLE001 - the exception itself is compared
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]
    if cls in (_ReadlineSeekTell, _ReportsUnseekable) or (cls is _ReadSeekTell and not legacy):
        assert outcomes[1][0] == "loaded"


def test_load_from_object_without_file_methods():
    assert_same_error(lambda: gt.load(object()), lambda: torch.load(object()))
