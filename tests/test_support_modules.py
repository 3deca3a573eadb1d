"""The small modules that PyTorch's own test files and libraries import besides the main API, against torch:
torch.utils.weak, torch.utils._mode_utils.no_dispatch, torch.autograd._functions, autograd._calculate_shape,
torch.utils._import_utils, torch._utils_internal, torch.types and FakeTensorConverter."""

from __future__ import annotations

import gc
import importlib

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error, both


def test_weak_tensor_key_dictionary_matches_torch():
    def run(m):
        weak = importlib.import_module(f"{m.__name__}.utils.weak")
        d = weak.WeakTensorKeyDictionary()
        a, b = m.ones(2), m.ones(2)          # equal values, different objects: two entries
        d[a], d[b] = "a", "b"
        seen = [len(d), d[a], d[b], a in d, m.ones(2) in d, d.get(m.zeros(1), "none")]
        del a
        gc.collect()
        seen += [len(d), sorted(d.values())]
        del d[b]
        seen += [len(d), b in d]
        return seen

    assert run(gt) == run(torch)


def test_weak_id_ref_equality_matches_torch():
    def run(m):
        weak = importlib.import_module(f"{m.__name__}.utils.weak")
        x, y = m.ones(1), m.ones(1)
        r1, r2, r3 = weak.WeakIdRef(x), weak.WeakIdRef(x), weak.WeakIdRef(y)
        out = [r1 == r2, r1 == r3, hash(r1) == id(x), r1() is x]
        del x
        gc.collect()
        return out + [r1 == r2, r1 == r1, r1() is None]

    assert run(gt) == run(torch)


def _ops_seen_by_mode(m):
    mode_utils = importlib.import_module(f"{m.__name__}.utils._mode_utils")
    dispatch = importlib.import_module(f"{m.__name__}.utils._python_dispatch")
    seen = []

    class Log(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = m.ones(2)
    with Log():
        y = x + 1
        with mode_utils.no_dispatch():
            z = x * 2
        w = y.sin()
    return seen, (y + z + w).tolist()


def test_no_dispatch_hides_calls_from_modes():
    got, want = _ops_seen_by_mode(gt), _ops_seen_by_mode(torch)
    assert got[0] == want[0]
    assert got[1] == pytest.approx(want[1])


def test_resize_function_matches_torch():
    g, t = both(lambda m: m.arange(6.0).view(2, 3).t().requires_grad_())
    rg = importlib.import_module("glasstorch.autograd._functions").Resize.apply(g, (3, 2))
    rt = importlib.import_module("torch.autograd._functions").Resize.apply(t, (3, 2))
    assert_same(rg, rt)
    assert type(rg.grad_fn).__name__ == type(rt.grad_fn).__name__ == "ResizeBackward"
    (rg * gt.arange(6.0).view(3, 2)).sum().backward()
    (rt * torch.arange(6.0).view(3, 2)).sum().backward()
    assert_same(g.grad, t.grad)
    assert_same_error(lambda: importlib.import_module("glasstorch.autograd._functions").Resize.apply(g, (4, 2)),
                      lambda: importlib.import_module("torch.autograd._functions").Resize.apply(t, (4, 2)))


def test_type_function_warns_and_converts_back():
    x = gt.ones(3, requires_grad=True)
    with pytest.warns(FutureWarning, match="autograd._functions.Type` is deprecated"):
        y = importlib.import_module("glasstorch.autograd._functions").Type.apply(x, "torch.DoubleTensor")
    assert y.dtype == gt.float64
    y.sum().backward()
    assert x.grad.dtype == gt.float32 and x.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("batched", [False, True])
def test_calculate_shape_matches_torch(batched):
    (og, ot), (gg, gtt) = both(lambda m: m.ones(2, 3)), both(lambda m: m.ones(4, 2, 3) if batched else m.ones(2, 3))
    got = gt.autograd._calculate_shape(og, gg, batched)
    want = torch.autograd._calculate_shape(ot, gtt, batched)
    assert [tuple(s) for s in got] == [tuple(s) for s in want]


def test_shape_mismatch_message_matches_torch():
    assert_same_error(lambda: gt.ones(3, requires_grad=True).mul(2).backward(gt.ones(2)),
                      lambda: torch.ones(3, requires_grad=True).mul(2).backward(torch.ones(2)))


def test_import_utils_and_utils_internal_match_torch():
    from torch._utils_internal import get_file_path_2 as th_path
    from torch.utils._import_utils import dill_available as th_dill

    from glasstorch._utils_internal import get_file_path_2
    from glasstorch.utils._import_utils import dill_available, import_dill

    assert dill_available() == th_dill()
    assert (import_dill() is None) == (not th_dill())
    assert get_file_path_2("a", "b", "c.pt") == th_path("a", "b", "c.pt")


def test_types_aliases_name_glasstorch_types():
    import glasstorch.types as types

    assert gt.Tensor in types._TensorOrTensors.__args__
    assert isinstance(True, types._Number) and isinstance(2.5, types._Number)
    assert gt.device in types.Device.__args__


def test_fake_tensor_converter_memoises_and_keeps_aliasing():
    from glasstorch._subclasses.fake_tensor import FakeTensor, FakeTensorConverter, FakeTensorMode

    mode = FakeTensorMode()
    conv = FakeTensorConverter()
    base = gt.arange(6.0)
    view = base[2:]
    fb, fv = conv.from_real_tensor(mode, base), conv.from_real_tensor(mode, view)
    assert isinstance(fb, FakeTensor) and fb.fake_mode is mode
    assert conv.from_real_tensor(mode, base) is fb
    assert fv.untyped_storage() is fb.untyped_storage() and fv.storage_offset() == 2
    assert mode.from_tensor(base) is mode.fake_tensor_converter.from_real_tensor(mode, base)


def _variable_facts(m):
    from importlib import import_module

    Variable = import_module(f"{m.__name__}.autograd").Variable
    t = m.ones(2)
    v = Variable(t)
    leaf = Variable(t, requires_grad=True)
    nonleaf = Variable(m.ones(2, requires_grad=True) * 2)
    v.add_(1)
    return [v is t, v.requires_grad, v._base is None, isinstance(t, Variable), isinstance(3, Variable),
            issubclass(m.Tensor, Variable), leaf.is_leaf, leaf.requires_grad, nonleaf.grad_fn is None,
            nonleaf.requires_grad, t.tolist(), v._version == t._version == 1, Variable().tolist(),
            repr(Variable().dtype)]


def test_variable_is_the_legacy_alias_of_tensor():
    assert _variable_facts(gt) == _variable_facts(torch)
    assert_same_error(lambda: gt.autograd.Variable(3), lambda: torch.autograd.Variable(3))
    assert_same_error(lambda: gt.autograd.Variable(gt.ones(1, dtype=gt.long), requires_grad=True),
                      lambda: torch.autograd.Variable(torch.ones(1, dtype=torch.long), requires_grad=True))
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        gt.autograd.Variable(gt.ones(1), volatile=True)


def test_layouts_are_torchs_and_round_trip_checkpoints():
    import io

    names = sorted(n for n in dir(torch) if isinstance(getattr(torch, n), torch.layout))
    assert sorted(n for n in dir(gt) if isinstance(getattr(gt, n), gt.layout)) == names
    assert [repr(getattr(gt, n)) for n in names] == [repr(getattr(torch, n)) for n in names]
    buf = io.BytesIO()
    torch.save({n: getattr(torch, n) for n in names}, buf)
    buf.seek(0)
    assert gt.load(buf) == {n: getattr(gt, n) for n in names}
    buf = io.BytesIO()
    gt.save({n: getattr(gt, n) for n in names}, buf)
    buf.seek(0)
    assert torch.load(buf) == {n: getattr(torch, n) for n in names}


@pytest.mark.parametrize("name", ["is_available", "device_count", "is_initialized", "is_bf16_supported", "init",
                                  "synchronize", "current_device", "get_device_name", "initial_seed", "seed",
                                  "seed_all", "empty_cache", "memory_allocated", "max_memory_allocated",
                                  "memory_reserved", "max_memory_reserved"])
def test_xpu_answers_as_a_build_without_xpu(name):
    fg, ft = getattr(gt.xpu, name), getattr(torch.xpu, name)
    try:
        want = ft()
    except AssertionError:
        assert_same_error(fg, ft)
        return
    assert fg() == want
    gt.xpu.manual_seed(3)
    gt.xpu.manual_seed_all(3)
