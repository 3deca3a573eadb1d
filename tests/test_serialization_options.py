"""save/load's container, options and helper API against PyTorch's (torch 2.13 is the oracle).

Checked: the archive bytes PyTorch's miniz writer lays out (headers, data descriptors, offsets), the
``PyTorchFileWriter``/``PyTorchFileReader`` API, ``utils.serialization.config`` (CRC-32, storage alignment,
mmap, load endianness, computed storage offsets), ``skip_data``, loads under FakeTensorMode or to meta,
``register_package``, ``check_module_version_greater_or_equal``, ``SourceChangeWarning``, the tar format, the
TorchScript refusal and ``sparse.check_sparse_tensor_invariants``.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
import sys
import tarfile
import types
import warnings
import zipfile

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error, both
from torch.utils.serialization import config as th_config

import glasstorch as gt
from glasstorch._subclasses.fake_tensor import FakeTensorMode
from glasstorch.utils.serialization import config as gt_config


def _save_bytes(m, obj, **kw) -> bytes:
    buf = io.BytesIO()
    m.save(obj, buf, **kw)
    return buf.getvalue()


def _state(m):
    return {"w": m.arange(12, dtype=m.float32).view(3, 4), "b": m.arange(3, dtype=m.float64), "n": 5}


def _without_id(raw: bytes) -> bytes:
    """The archive bytes with the random serialization id (40 digits, its CRC and its central copy) blanked."""
    z = zipfile.ZipFile(io.BytesIO(raw))
    info = z.getinfo(f"{z.namelist()[0].split('/')[0]}/.data/serialization_id")
    out = bytearray(raw)
    data_at = raw.index(b"PK\x07\x08", info.header_offset) - 40
    out[data_at:data_at + 40] = b"0" * 40
    for crc in {struct.pack("<I", info.CRC)}:
        out = bytearray(bytes(out).replace(crc, b"\0\0\0\0"))
    return bytes(out)


_OPTIONS = {"load": ("mmap", "endianness", "mmap_flags", "calculate_storage_offsets"),
            "save": ("compute_crc32", "use_pinned_memory_for_d2h", "storage_alignment")}


@pytest.fixture
def restore_config():
    saved = [(cfg, part, key, getattr(getattr(cfg, part), key)) for cfg in (gt_config, th_config)
             for part, keys in _OPTIONS.items() for key in keys]
    yield
    for cfg, part, key, value in saved:
        setattr(getattr(cfg, part), key, value)


# -- the container, byte for byte ------------------------------------------------------------------------------------

def test_archive_bytes_identical_to_torch():
    g, t = both(_state)
    assert _without_id(_save_bytes(gt, g)) == _without_id(_save_bytes(torch, t))


def test_archive_folder_of_a_path_is_its_stem(tmp_path):
    for name in ("model.v1.pt", "noext"):
        gt.save(gt.ones(2), tmp_path / f"g_{name}")
        torch.save(torch.ones(2), tmp_path / f"t_{name}")
        ours = zipfile.ZipFile(tmp_path / f"g_{name}").namelist()
        theirs = zipfile.ZipFile(tmp_path / f"t_{name}").namelist()
        assert [n.replace("g_", "t_", 1) for n in ours] == theirs


def test_file_writer_and_reader_api_match_torch():
    records = {"a": b"12039810948234589", "b": "a str record", "c/d": b"94589480984058"}

    def write(m, buf):
        writer_cls = torch._C.PyTorchFileWriter if m is torch else gt._inline_container.PyTorchFileWriter
        w = writer_cls(buf, True, 64)
        for k, v in records.items():
            w.write_record(k, v, len(v))
        w.write_record_metadata("data/0", 100)
        w.write_end_of_file()
        return w.get_all_written_records(), w.archive_name(), len(w.serialization_id())

    ours, theirs = io.BytesIO(), io.BytesIO()
    assert write(gt, ours) == write(torch, theirs)
    assert _without_id(ours.getvalue()) == _without_id(theirs.getvalue())
    g = gt._inline_container.PyTorchFileReader(io.BytesIO(ours.getvalue()))
    t = torch._C.PyTorchFileReader(io.BytesIO(theirs.getvalue()))
    assert sorted(g.get_all_records()) == sorted(t.get_all_records())
    for name in t.get_all_records():
        assert name == ".data/serialization_id" or g.get_record(name) == t.get_record(name)
        assert g.get_record_offset(name) == t.get_record_offset(name)
        assert g.get_record_header_offset(name) == t.get_record_header_offset(name)
    for cursor in (0, 1000, 2**32 - 1, 2**32):
        for size in (10, 2**32 - 1, 2**32):
            for align in (1, 64, 4096):
                assert g.get_record_offset_no_read(cursor, "data/0", size, align) == \
                    t.get_record_offset_no_read(cursor, "data/0", size, align)


def test_open_zipfile_helpers_round_trip_both_ways(tmp_path):
    data = {"a": b"xyz", "c/d": b"0123456789"}
    for writer, reader in ((gt, torch), (torch, gt)):
        path = str(tmp_path / f"{writer.__name__}.zip")
        with writer.serialization._open_zipfile_writer(path) as z:
            for k, v in data.items():
                z.write_record(k, v, len(v))
        with reader.serialization._open_file_like(path, "rb") as f, \
                reader.serialization._open_zipfile_reader(f) as z:
            assert {k: z.get_record(k) for k in data} == data


def test_buffer_without_callable_write_errors_match_torch():
    class NoCall:
        write = "bar"
    assert_same_error(lambda: gt.save(1, NoCall()), lambda: torch.save(1, NoCall()))
    with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like object"):
        gt.save(1, gt.ones(2))


def test_crc32_option(restore_config):
    g, t = both(_state)
    gt.serialization.set_crc32_options(False)
    torch.serialization.set_crc32_options(False)
    assert gt.serialization.get_crc32_options() is False
    ours, theirs = _save_bytes(gt, g), _save_bytes(torch, t)
    assert _without_id(ours) == _without_id(theirs)
    for raw in (ours, theirs):
        with pytest.raises(zipfile.BadZipFile, match="Bad CRC-32 for file"):
            zipfile.ZipFile(io.BytesIO(raw)).read("archive/data/0")
    assert_same(gt.load(io.BytesIO(ours))["w"], torch.load(io.BytesIO(ours))["w"])


def test_storage_alignment_option(restore_config):
    gt_config.save.storage_alignment = th_config.save.storage_alignment = 4096
    g, t = both(_state)
    ours, theirs = _save_bytes(gt, g), _save_bytes(torch, t)
    assert _without_id(ours) == _without_id(theirs)
    assert zipfile.ZipFile(io.BytesIO(ours)).read("archive/.storage_alignment") == b"4096"
    r = gt._inline_container.PyTorchFileReader(io.BytesIO(ours))
    assert r.get_record_offset("data/0") % 4096 == 0 and r.get_record_offset("data/1") % 4096 == 0
    assert_same(gt.load(io.BytesIO(theirs))["b"], torch.load(io.BytesIO(ours))["b"])


# -- byte order of checkpoints without a byteorder record ------------------------------------------------------------

def _no_byteorder_record(m, values: np.ndarray, order: str) -> bytes:
    """A checkpoint of one float64 tensor whose data is in ``order`` and that has no byteorder record."""
    raw = _save_bytes(m, m.zeros(values.size, dtype=m.float64))
    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            name = info.filename.split("/", 1)[1]
            if name == "byteorder":
                continue
            payload = values.astype(">f8" if order == "big" else "<f8").tobytes() if name == "data/0" \
                else src.read(info)
            dst.writestr(info.filename, payload)
    return out.getvalue()


@pytest.mark.parametrize("order", ["little", "big"])
def test_load_endianness_fallback_matches_torch(order):
    values = np.array([1.5, -2.25, 3.0])
    data = _no_byteorder_record(torch, values, order)
    before = gt.serialization.get_default_load_endianness()
    for g_end, t_end in ((None, None),) + tuple(
            (getattr(gt.serialization.LoadEndianness, n), getattr(torch.serialization.LoadEndianness, n))
            for n in ("NATIVE", "LITTLE", "BIG")):
        try:
            gt.serialization.set_default_load_endianness(g_end)
            torch.serialization.set_default_load_endianness(t_end)
            assert gt.serialization.get_default_load_endianness() is g_end
            np.testing.assert_array_equal(gt.load(io.BytesIO(data)).numpy(), torch.load(io.BytesIO(data)).numpy())
        finally:
            gt.serialization.set_default_load_endianness(before)
            torch.serialization.set_default_load_endianness(None)
    assert_same_error(lambda: gt.serialization.set_default_load_endianness("little"),
                      lambda: torch.serialization.set_default_load_endianness("little"))


# -- skip_data, fake and meta loads ------------------------------------------------------------------------------------

def test_skip_data_save_writes_room_for_the_bytes():
    g, t = both(_state)
    with gt.serialization.skip_data():
        ours = _save_bytes(gt, g)
    with torch.serialization.skip_data():
        theirs = _save_bytes(torch, t)
    assert _without_id(ours) == _without_id(theirs)
    assert_same(gt.load(io.BytesIO(ours))["w"], torch.zeros(3, 4))
    assert not gt.serialization._serialization_tls.skip_data


def test_skip_data_refuses_the_legacy_format():
    g, t = both(_state)
    with gt.serialization.skip_data(), torch.serialization.skip_data():
        assert_same_error(lambda: _save_bytes(gt, g, _use_new_zipfile_serialization=False),
                          lambda: _save_bytes(torch, t, _use_new_zipfile_serialization=False))


def test_skip_data_meta_tensor_warns_like_torch():
    for m in (gt, torch):
        with m.serialization.skip_data(), pytest.warns(UserWarning, match="meta device under skip_data context "
                                                                         "manager is a no-op"):
            _save_bytes(m, m.empty(2, 3, device="meta"))


def test_skip_data_load_leaves_storages_unread():
    g = _state(gt)
    data = _save_bytes(gt, g)
    with gt.serialization.skip_data():
        out = gt.load(io.BytesIO(data))
    assert out["w"].shape == g["w"].shape and out["w"].dtype == g["w"].dtype and out["n"] == 5


def test_fake_mode_load_records_checkpoint_offsets_like_torch():
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeMode
    for mode_g, mode_t in ((FakeTensorMode, TorchFakeMode), (None, None)):
        g, t = both(lambda m: m.nn.Linear(10, 10).state_dict())
        data = _save_bytes(torch, t)
        if mode_g is None:
            out_g, out_t = gt.load(io.BytesIO(data), map_location="meta"), torch.load(io.BytesIO(data),
                                                                                    map_location="meta")
        else:
            with mode_g():
                out_g = gt.load(io.BytesIO(data))
            with mode_t():
                out_t = torch.load(io.BytesIO(data))
        for k in ("weight", "bias"):
            assert out_g[k].untyped_storage()._checkpoint_offset == out_t[k].untyped_storage()._checkpoint_offset
            assert out_g[k].shape == tuple(out_t[k].shape)


def test_computed_storage_offsets_with_mmap(tmp_path, restore_config):
    g = {f"t{i}": gt.arange(float(i + 1)) for i in range(20)}
    path = tmp_path / "many.pt"
    gt.save(g, path)
    gt_config.load.calculate_storage_offsets = True
    out = gt.load(path, mmap=True)
    for k in g:
        assert out[k].tolist() == g[k].tolist()
    gt_config.load.mmap = True  # mmap=None now maps
    sd = gt.load(path)
    assert all(gt.equal(sd[k], g[k]) for k in g)


def test_map_shared_writes_reach_the_file(tmp_path):
    path = tmp_path / "sd.pt"
    gt.save({"w": gt.ones(4)}, path)
    with gt.serialization.set_default_mmap_options(gt.serialization.MAP_SHARED):
        gt.load(path, mmap=True)["w"][0] = 7.0
        assert gt.serialization.get_default_mmap_options() == gt.serialization.MAP_SHARED
    assert gt.serialization.get_default_mmap_options() == gt.serialization.MAP_PRIVATE
    assert torch.load(path)["w"].tolist() == [7.0, 1.0, 1.0, 1.0]


# -- helpers of torch.serialization ---------------------------------------------------------------------------------

@pytest.mark.parametrize("version,req", [("0.3.1", (0, 3, 1)), ("1.10.2", (1, 9)), ("0.2", (0, 3, 1)),
                                         ("1.2.dev0", (1, 2, 1)), ("2.x", (2, 1))])
def test_check_module_version_greater_or_equal(version, req):
    mod = types.ModuleType("fakemod")
    mod.__version__ = version
    assert_same_error(lambda: gt.serialization.check_module_version_greater_or_equal(mod, req),
                      lambda: torch.serialization.check_module_version_greater_or_equal(mod, req)) \
        if "x" in version or "dev" in version else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gt.serialization.check_module_version_greater_or_equal(mod, req, False) == \
            torch.serialization.check_module_version_greater_or_equal(mod, req, False)


def test_register_package_tagger_and_deserializer():
    seen = []

    def deserialize(storage, location):
        if location == "cpu" and not seen:
            seen.append(storage.nbytes())
        return None  # fall through to the default

    gt.serialization.register_package(1, lambda s: None, deserialize)
    try:
        out = gt.load(io.BytesIO(_save_bytes(gt, {"a": gt.arange(4.0)})))
    finally:
        gt.serialization._package_registry[:] = [e for e in gt.serialization._package_registry if e[0] != 1]
    assert seen == [16] and out["a"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert_same_error(lambda: gt.serialization.default_restore_location(gt.UntypedStorage(4), "nowhere:x"),
                      lambda: torch.serialization.default_restore_location(torch.UntypedStorage(4), "nowhere:x"))


def test_normalize_storage_type_and_tensor_type():
    for name in ("UntypedStorage", "FloatStorage", "ByteStorage", "TypedStorage"):
        assert gt.serialization.normalize_storage_type(getattr(torch, name)) is getattr(gt, name)
        assert torch.serialization.normalize_storage_type(getattr(gt, name)) is getattr(torch, name)
    assert gt.serialization.storage_to_tensor_type(gt.ones(2).storage()) is gt.FloatTensor


_NET_SRC = ("import {m} as torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.fc = torch.nn.Linear(2, {n})\n")


def _net(m, folder, n):
    name = f"ser19_net_{m.__name__}"
    path = os.path.join(folder, f"{name}.py")
    with open(path, "w") as f:
        f.write(_NET_SRC.format(m=m.__name__, n=n))
    spec = __import__("importlib.util").util.spec_from_file_location(name, path)
    mod = __import__("importlib.util").util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules[name] = mod
    return mod


def test_source_change_warning_of_legacy_module_checkpoints(tmp_path):
    for m in (gt, torch):
        data = _save_bytes(m, _net(m, tmp_path, 3).Net(), _use_new_zipfile_serialization=False)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m.load(io.BytesIO(data), weights_only=False)
        assert not [x for x in w if x.category is m.serialization.SourceChangeWarning]
        _net(m, tmp_path, 4)
        with pytest.warns(m.serialization.SourceChangeWarning, match=r"source code of class 'ser19_net_\w+\.Net' "
                                                                      "has changed"):
            loaded = m.load(io.BytesIO(data), weights_only=False)
        assert type(loaded).__name__ == "Net"


def _tar_checkpoint(path):
    """A file in PyTorch's pre-0.4 tar format holding ``[tensor([1., 2., 3.]) viewed (3,), its storage]``."""
    def member(tar, name, payload):
        info = tarfile.TarInfo(name)
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))

    storages = io.BytesIO()
    pickle.dump(1, storages, protocol=2)
    # (key 1, 'cpu', GLOBAL torch.FloatStorage), written as opcodes: neither library need be imported to name it
    storages.write(b"\x80\x02(K\x01X\x03\x00\x00\x00cpuctorch\nFloatStorage\nt.")
    storages.write(struct.pack("<q", 3) + np.array([1, 2, 3], "<f4").tobytes())
    pickle.dump([], storages, protocol=2)
    tensors = io.BytesIO()
    pickle.dump(1, tensors, protocol=2)
    pickle.dump((7, 1, "torch.FloatTensor"), tensors, protocol=2)
    tensors.write(struct.pack("<ii", 1, 0) + struct.pack("<qqq", 3, 1, 0))
    graph = io.BytesIO()

    class P(pickle.Pickler):  # the tensor (key 7) and the storage (key 1) as persistent ids
        def persistent_id(self, obj):
            return obj if type(obj) is int else None
    P(graph, protocol=2).dump([7, 1])
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
        member(tar, "storages", storages.getvalue())
        member(tar, "tensors", tensors.getvalue())
        member(tar, "pickle", graph.getvalue())


def test_tar_format_loads_like_torch(tmp_path):
    path = str(tmp_path / "old.tar.pt")
    _tar_checkpoint(path)
    t, s = torch.load(path, weights_only=False)
    g, gs = gt.load(path, weights_only=False)
    assert_same(g, t)
    assert gs.tolist() == s.tolist() and g.untyped_storage().data_ptr() == gs._untyped_storage.data_ptr()
    assert_same_error(lambda: gt.load(path, weights_only=True), lambda: torch.load(path, weights_only=True))


def test_torchscript_archive_is_refused_under_weights_only(tmp_path):
    path = str(tmp_path / "scripted.pt")
    torch.jit.save(torch.jit.script(torch.nn.Linear(3, 4)), path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(lambda: gt.load(path, weights_only=True), lambda: torch.load(path, weights_only=True))


def test_get_unsafe_globals_in_checkpoint_matches_torch():
    data = _save_bytes(torch, {"x": torch.ones(2), "call": print, "od": __import__("collections").OrderedDict()})
    assert sorted(gt.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))) == \
        sorted(torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
    old = gt._weights_only_unpickler._get_allowed_globals
    gt._weights_only_unpickler._get_allowed_globals = dict
    try:
        everything = set(gt.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
    finally:
        gt._weights_only_unpickler._get_allowed_globals = old
    assert {"torch._utils._rebuild_tensor_v2", "torch.FloatStorage", "builtins.print"} <= everything


def test_check_sparse_tensor_invariants_flag():
    for m in (gt, torch):
        flag = m.sparse.check_sparse_tensor_invariants
        assert not flag.is_enabled()
        with flag():
            assert flag.is_enabled()
            with flag(enable=False):
                assert not flag.is_enabled()
            assert flag.is_enabled()
        assert not flag.is_enabled()
        assert flag(enable=True)(flag.is_enabled)() is True
        ctx = flag()
        with ctx:
            with pytest.raises(RuntimeError, match="already activated"):
                ctx.__enter__()


# -- Python state of tensor subclasses, and allowlisted bound methods -----------------------------------------------

def _subclasses(m):
    class Slotted(m.Tensor):
        __slots__ = ["elem", "other"]

    class OwnState(m.Tensor):
        __slots__ = ["elem"]

        def __getstate__(self):
            return ("foo", getattr(self, "elem", None), self.__dict__)

        def __setstate__(self, state):
            marker, self.elem, self.__dict__ = state
            self.reloaded = marker == "foo"
    return Slotted, OwnState


_G_SLOTTED, _G_OWN = _subclasses(gt)
_T_SLOTTED, _T_OWN = _subclasses(torch)
for _cls, _name in ((_G_SLOTTED, "GSlotted"), (_G_OWN, "GOwn"), (_T_SLOTTED, "TSlotted"), (_T_OWN, "TOwn")):
    _cls.__name__ = _cls.__qualname__ = _name
    globals()[_name] = _cls


@pytest.mark.parametrize("kind", ["slotted", "own_state"])
def test_subclass_slots_and_getstate_survive_a_round_trip(kind):
    results = []
    for m, cls in ((gt, _G_SLOTTED if kind == "slotted" else _G_OWN), (torch, _T_SLOTTED if kind == "slotted"
                                                                       else _T_OWN)):
        x = m.arange(3.0).as_subclass(cls)
        x.elem, x.foo = m.ones(2), "bar"
        with m.serialization.safe_globals([cls]):
            y = m.load(io.BytesIO(_save_bytes(m, x)))
        results.append((type(y) is cls, y.elem.tolist(), y.foo, getattr(y, "reloaded", None), y.tolist()))
    assert results[0] == results[1]


def test_allowlisted_bound_method_may_be_called():
    import datetime
    import zoneinfo
    value = datetime.datetime(2025, 1, 1, 12, 0, tzinfo=zoneinfo.ZoneInfo(key="UTC"))
    for m in (gt, torch):
        data = _save_bytes(m, {"b": value})
        with m.serialization.safe_globals([datetime.datetime, getattr, zoneinfo.ZoneInfo]):
            with pytest.raises(pickle.UnpicklingError, match="Trying to call reduce for unrecognized function "
                                                             "<built-in method _unpickle"):
                m.load(io.BytesIO(data))
        with m.serialization.safe_globals([datetime.datetime, getattr, zoneinfo.ZoneInfo, zoneinfo.ZoneInfo._unpickle]):
            assert m.load(io.BytesIO(data)) == {"b": value}


def test_file_like_with_readinto_is_read_through_it():
    class Reader:  # read/readline/seek/tell/readinto only, as PyTorch's FilelikeMock
        def __init__(self, data):
            self._b, self.calls = io.BytesIO(data), set()
            for name in ("read", "readline", "seek", "tell"):
                setattr(self, name, getattr(self._b, name))

        def readinto(self, view):
            self.calls.add("readinto")
            return self._b.readinto(view)
    for m in (gt, torch):
        r = Reader(_save_bytes(m, m.arange(20.0)))
        assert m.load(r).tolist() == list(range(20)) and r.calls == {"readinto"}


def test_fake_tensors_saved_under_materialize_keep_their_views():
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeMode
    for m, mode in ((gt, FakeTensorMode), (torch, TorchFakeMode)):
        with mode():
            t = m.randn(2, 3)
            sd = {"t": t, "view": t.view(-1), "row": t[1]}
        with m.serialization.skip_data(materialize_fake_tensors=True):
            data = _save_bytes(m, sd)
        out = m.load(io.BytesIO(data), weights_only=True)
        assert out["view"].untyped_storage() is out["t"].untyped_storage()
        assert out["row"].untyped_storage() is out["t"].untyped_storage()
        assert out["row"].storage_offset() == 3 and out["t"].shape == (2, 3)


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_typed_storage_helpers_checkpoints_use():
    for m in (gt, torch):
        base = m.arange(6.0)
        s, again, other = base.storage(), base.view(2, 3).storage(), base.clone().storage()
        assert s._cdata == again._cdata and s._cdata != other._cdata
        assert s._size() == 6 and isinstance(s, m.storage.TypedStorage)
        filled = m.FloatStorage(4).fill_(10)
        assert filled.tolist() == [10.0] * 4
        copy = s.clone()
        copy[0] = 5.0
        assert s[0] == 0.0 and copy[0] == 5.0 and s.cpu().data_ptr() == s.data_ptr()
        assert m.CharStorage([1, 2, 3]).tolist() == [1, 2, 3]


def test_other_pickle_protocols_warn_under_weights_only():
    data = _save_bytes(torch, {"a": torch.arange(3)}, pickle_protocol=3)
    for m in (gt, torch):
        with pytest.warns(UserWarning, match="Detected pickle protocol 3 in the checkpoint, which was not the default"):
            assert m.load(io.BytesIO(data), weights_only=True)["a"].tolist() == [0, 1, 2]


def test_legacy_headers_read_by_the_loads_unpickler():
    g, t = both(lambda m: {"a": m.arange(4.0)})
    for data in (_save_bytes(gt, g, _use_new_zipfile_serialization=False, pickle_protocol=4),
                 _save_bytes(torch, t, _use_new_zipfile_serialization=False, pickle_protocol=4)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the full unpickler: no weights-only protocol warning
            assert_same(gt.load(io.BytesIO(data), weights_only=False)["a"],
                        torch.load(io.BytesIO(data), weights_only=False)["a"])


# -- corrupt archives: PyTorch's errors --------------------------------------------------------------------------------

def _archive(records: dict, folder: str = "archive") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for k, v in records.items():
            z.writestr(f"{folder}/{k}" if folder else k, v)
    return out.getvalue()


def _pickle_of_three_floats() -> bytes:
    data = _save_bytes(torch, {"a": torch.arange(3.0)})
    return zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")


@pytest.mark.parametrize("case", ["no_version", "no_pickle", "no_data", "short_data", "long_data", "root_records",
                                  "version_99", "version_0", "version_text", "version_negative"])
def test_corrupt_archive_errors_match_torch(case):
    pk = _pickle_of_three_floats()
    v3 = {"version": b"3\n"}
    records = {
        "no_version": ({"data.pkl": pk, "data/0": b"\0" * 12}, "archive"),
        "no_pickle": (v3, "archive"),
        "no_data": ({"data.pkl": pk, **v3}, "archive"),
        "short_data": ({"data.pkl": pk, "data/0": b"\0" * 5, **v3}, "archive"),
        "long_data": ({"data.pkl": pk, "data/0": b"\0" * 50, **v3}, "archive"),
        "root_records": ({"data.pkl": pk, "data/0": b"\0" * 12, **v3}, ""),
        "version_99": ({"data.pkl": pk, "data/0": b"\0" * 12, "version": b"99\n"}, "archive"),
        "version_0": ({"data.pkl": pk, "data/0": b"\0" * 12, "version": b"0\n"}, "archive"),
        "version_text": ({"data.pkl": pk, "data/0": b"\0" * 12, "version": b"x\n"}, "archive"),
        "version_negative": ({"data.pkl": pk, "data/0": b"\0" * 12, "version": b" -1"}, "archive"),
    }[case]
    data = _archive(*records)
    err, _ = assert_same_error(lambda: gt.load(io.BytesIO(data)), lambda: torch.load(io.BytesIO(data)))
    assert isinstance(err, RuntimeError)


def test_python2_names_in_weights_only_errors_match_torch():
    import subprocess

    class Spawn:
        def __reduce__(self):
            return (subprocess.Popen, (["true"],))  # protocol 2 writes it as commands.Popen (fix_imports)
    data = _save_bytes(torch, Spawn())
    assert b"commands\nPopen" in zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
    assert_same_error(lambda: gt.load(io.BytesIO(data)), lambda: torch.load(io.BytesIO(data)))


@pytest.mark.parametrize("where", ["cpu", b"cpu", "cpu:0", "meta", "cuda", "cuda:1", "xpu", "mtia:0", "hpu", "mps",
                                   "nowhere", {"cpu": "cuda:0"}, {"cpu": "meta"}])
def test_map_location_forms_match_torch(where):
    def run(m):
        out = m.load(io.BytesIO(_save_bytes(m, {"a": m.arange(3.0)})), map_location=where)["a"]
        return str(out.device), out.shape
    if where in ("cpu", "meta") or isinstance(where, dict) and "meta" in where.values():
        assert run(gt) == run(torch)
    else:
        assert_same_error(lambda: run(gt), lambda: run(torch))


def test_map_location_to_the_emulated_accelerator():
    out = gt.load(io.BytesIO(_save_bytes(gt, {"a": gt.arange(3.0)})), map_location="emu")["a"]
    assert str(out.device) == "emu:0" and out.tolist() == [0.0, 1.0, 2.0]
    assert gt.load(io.BytesIO(_save_bytes(gt, {"a": out})))["a"].device == out.device
    with pytest.raises(RuntimeError, match=r"Attempting to deserialize object on EMU device 7 but "
                                           r"torch.emu.device_count\(\) is 1"):
        gt.load(io.BytesIO(_save_bytes(gt, {"a": gt.arange(3.0)})), map_location="emu:7")


def test_save_warns_about_backward_hooks_like_torch():
    for m in (gt, torch):
        for leaf in (True, False):
            x = m.ones(2, requires_grad=True) if leaf else m.ones(2, requires_grad=True) * 2
            x.register_hook(lambda g: g)
            with pytest.warns(UserWarning, match="backward hook .* on tensor will not be serialized.  If this is "
                                                 "expected, you can decorate the function with "
                                                 "@torch.utils.hooks.unserializable_hook"):
                _save_bytes(m, x)


def test_untyped_storage_loads_back_typed_like_torch():
    # (the legacy format is left out: torch's own loader fails on an UntypedStorage there, an AttributeError)
    for m in (gt, torch):
        for legacy in (False,):
            data = _save_bytes(m, m.arange(4, dtype=m.uint8).untyped_storage(),
                               _use_new_zipfile_serialization=not legacy)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = m.load(io.BytesIO(data))
                assert type(out).__name__ == "TypedStorage" and out.dtype == m.uint8 and out.tolist() == [0, 1, 2, 3]


def test_load_arguments_reach_the_weights_only_unpickler():
    data = _save_bytes(torch, 1)
    with pytest.warns(UserWarning, match="pickle_load_args only works if `weights_only=False`"):
        assert_same_error(lambda: gt.load(io.BytesIO(data), weights_only=True, errors="strict"),
                          lambda: torch.load(io.BytesIO(data), weights_only=True, errors="strict"))


def test_config_options_and_defaults_match_torch():
    for part, keys in _OPTIONS.items():
        for key in keys:
            assert getattr(getattr(gt_config, part), key) == getattr(getattr(th_config, part), key), (part, key)
    assert gt.serialization.get_default_mmap_options() == torch.serialization.get_default_mmap_options()
    assert_same_error(lambda: gt.serialization.set_default_mmap_options(7),
                      lambda: torch.serialization.set_default_mmap_options(7))
