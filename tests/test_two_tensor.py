"""``TwoTensor`` (a wrapper subclass holding tensors ``a`` and ``b``) against torch's own TwoTensor: dispatch with
aliasing correction, and serialization of wrapper subclasses as torch does it (torch.save/load, weights_only with
the safe-globals allowlist and torch's error texts, skip_data, mmap, pickle, deepcopy, Parameter), files going both
ways between the two libraries with the storage sharing of the inner tensors kept."""

from __future__ import annotations

import copy
import io
import pickle
from collections import OrderedDict

import pytest
import torch
from oracle import assert_same, assert_same_error, both
from torch.testing._internal.two_tensor import TwoTensor as TorchTwo

import glasstorch as gt
from glasstorch.testing._internal.two_tensor import TwoTensor as GlassTwo

TWO = {gt: GlassTwo, torch: TorchTwo}


def _two(m, a, b):
    return TWO[m](a, b)


def _save(m, obj, **kw) -> bytes:
    f = io.BytesIO()
    m.save(obj, f, **kw)
    return f.getvalue()


def _load(m, data: bytes, **kw):
    return m.load(io.BytesIO(data), **kw)


def _same_two(g, t):
    assert type(g) is GlassTwo and type(t) is TorchTwo
    assert tuple(g.shape) == tuple(t.shape) and g.stride() == t.stride() and repr(g.dtype) == repr(t.dtype)
    assert_same(g.a, t.a)
    assert_same(g.b, t.b)


def _pair(m):
    base = m.arange(6.0).view(2, 3)
    return _two(m, base, base * 10)


# -- dispatch ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["add", "mul_scalar", "view", "t", "sum", "slice", "clone"])
def test_ops_run_on_both_sides(op):
    def run(m):
        x = _pair(m)
        return {"add": lambda: x + x, "mul_scalar": lambda: x * 2, "view": lambda: x.view(-1), "t": lambda: x.t(),
                "sum": lambda: x.sum(), "slice": lambda: x[1:], "clone": lambda: x.clone()}[op]()

    _same_two(*both(run))


def test_in_place_returns_the_input_and_views_share_its_storage():
    for m in (gt, torch):
        x = _pair(m)
        assert x.add_(1) is x and x.a[0, 0].item() == 1.0 and x.b[0, 0].item() == 1.0
        assert x.view(-1).untyped_storage() is x.untyped_storage()
        parts = x.split(1)
        assert type(parts) is tuple and all(type(p) is TWO[m] for p in parts)
        assert all(p.untyped_storage() is x.untyped_storage() for p in parts)


def test_str_prints_the_subclass_repr():
    g, t = both(lambda m: str(_two(m, m.ones(2), m.zeros(2))))
    assert g == t


def test_detach_and_parameter_keep_the_subclass():
    def run(m):
        p = m.nn.Parameter(_pair(m))
        return (type(p).__name__, sorted(p.__dict__), isinstance(p, m.nn.Parameter), p.requires_grad,
                p.a.tolist(), type(_pair(m).detach()).__name__)

    g, t = both(run)
    assert g == t


# -- serialization ----------------------------------------------------------------------------------------------

def _shared(m):
    base = m.arange(6.0)
    return {"tt": _two(m, base, base), "view": _two(m, base.view(2, 3).t(), (base * 3).view(2, 3).t()),
            "plain": base[2:]}


@pytest.mark.parametrize("src,dst", [(gt, gt), (gt, torch), (torch, gt)], ids=["gt-gt", "gt-torch", "torch-gt"])
def test_save_load_round_trip_both_ways(src, dst):
    data = _save(src, _shared(src))
    with dst.serialization.safe_globals([TWO[dst]]):
        out = _load(dst, data, weights_only=True)
    want = _shared(torch)
    for key in ("tt", "view"):
        g, t = (out[key], want[key]) if dst is gt else (_shared(gt)[key], out[key])
        _same_two(g, t)
    ptr = lambda x: x.untyped_storage().data_ptr()  # noqa: E731
    assert ptr(out["tt"].a) == ptr(out["tt"].b) == ptr(out["plain"]) == ptr(out["view"].a)
    assert out["plain"].storage_offset() == 2 and out["view"].a.stride() == (1, 3)


def test_pickle_bytes_name_torchs_rebuild_functions_and_class():
    g, t = both(lambda m: _save(m, _pair(m)))
    names = [torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(d)) for d in (g, t)]
    assert names[0] == names[1] == ["torch.testing._internal.two_tensor.TwoTensor"]


def test_unsafe_globals_listing_matches_torch():
    def run(m):
        t = m.randn(2, 3)
        data = _save(m, TWO[m](t, t))
        listed = [sorted(m.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))]
        with m.serialization.safe_globals([TWO[m]]):
            listed.append(m.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
        saved = m._weights_only_unpickler._get_allowed_globals
        m._weights_only_unpickler._get_allowed_globals = dict
        try:
            listed.append(sorted(m.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))))
        finally:
            m._weights_only_unpickler._get_allowed_globals = saved
        return listed

    g, t = both(run)
    assert g == t


@pytest.mark.parametrize("protocol", [2, 5])
def test_weights_only_refusal_matches_torch(protocol):
    g, t = both(lambda m: _save(m, {"t": _pair(m)}, pickle_protocol=protocol))
    with pytest.warns(UserWarning) if protocol != 2 else _no_warning():
        err_g, err_t = assert_same_error(lambda: _load(gt, g, weights_only=True),
                                         lambda: _load(torch, t, weights_only=True))
    assert isinstance(err_g, pickle.UnpicklingError)


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_safe_globals_allowlist_api_as_torch():
    def run(m):
        x = _pair(m)
        sd = OrderedDict([("t", x), ("p", m.nn.Parameter(x))])
        data = _save(m, sd)
        before = m.serialization.get_safe_globals()
        try:
            m.serialization.add_safe_globals([TWO[m]])
            listed = set(m.serialization.get_safe_globals()) == set(before + [TWO[m]])
            out = _load(m, data, weights_only=True)
            m.serialization.clear_safe_globals()
            cleared = m.serialization.get_safe_globals()
        finally:
            m.serialization.clear_safe_globals()
            m.serialization.add_safe_globals(before)
        return (listed, cleared, type(out["p"]).__name__, isinstance(out["p"], m.nn.Parameter), out["p"].b.tolist(),
                out["t"].a.tolist())

    g, t = both(run)
    assert g == t


def test_skip_data_load_then_zero_():
    def run(m):
        data = _save(m, {"v": m.randn(2, 3), "tt": _two(m, m.randn(2), m.randn(2))})
        with m.serialization.safe_globals([TWO[m]]), m.serialization.skip_data():
            out = _load(m, data)
        out = {k: v.zero_() for k, v in out.items()}
        return type(out["tt"]).__name__, out["tt"].a.tolist(), out["tt"].b.tolist(), out["v"].tolist()

    g, t = both(run)
    assert g == t


def test_mmap_load(tmp_path):
    def run(m, path):
        m.save({"tt": _pair(m)}, path)
        with m.serialization.safe_globals([TWO[m]]):
            return m.load(path, mmap=True, weights_only=True)["tt"]

    _same_two(run(gt, str(tmp_path / "g.pt")), run(torch, str(tmp_path / "t.pt")))


def test_pickle_and_deepcopy_keep_type_values_and_state():
    def run(m):
        x = _pair(m)
        x.tag = {"k": 1}
        p, c = pickle.loads(pickle.dumps(x)), copy.deepcopy(x)
        return [(type(y).__name__, y.tag, y.a.tolist(), y.b.tolist()) for y in (p, c)]

    g, t = both(run)
    assert g == t


def test_fake_conversion_fakes_the_inner_tensors_and_skip_data_materializes_them():
    def run(m):
        mode, converter = m._subclasses.fake_tensor.FakeTensorMode(), m._subclasses.fake_tensor.FakeTensorConverter()
        fake = converter.from_real_tensor(mode, _two(m, m.randn(2), m.randn(2)))
        facts = (type(fake).__name__, type(fake.a).__name__, type(fake.b).__name__, tuple(fake.shape))
        f = io.BytesIO()
        with m.serialization.skip_data(materialize_fake_tensors=True):
            m.save({"tt": fake}, f)
        f.seek(0)
        with m.serialization.safe_globals([TWO[m]]):
            out = m.load(f, weights_only=True)["tt"]
        return facts, type(out).__name__, type(out.a).__name__, tuple(out.a.shape)

    g, t = both(run)
    assert g == t
