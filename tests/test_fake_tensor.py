"""FakeTensor / FakeTensorMode (glasstorch._subclasses.fake_tensor) against real glasstorch and torch's fakes.

- conversion: from_tensor keeps sizes/strides/offset/dtype/device/requires_grad, is memoised, shares storages;
- operators under the mode give fakes whose shape, strides, dtype and device equal the real result's;
- factories, real tensors mixed in, in-place ops, ops outside the mode, the emulated device;
- autograd above the mode: grad_fn names as eager, autograd.grad and backward give fakes of the right shapes;
- errors: data reads, dynamic output shapes and missing meta kernels raise torch's exception types and texts.
"""

import numpy as np
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeMode

import glasstorch as gt
import glasstorch.nn.functional as F
from glasstorch._subclasses.fake_tensor import (
    DataDependentOutputException,
    DynamicOutputShapeException,
    FakeTensor,
    FakeTensorMode,
    UnsupportedFakeTensorException,
    UnsupportedOperatorException,
    is_fake,
)


def _same_meta(fake, real):
    assert isinstance(fake, FakeTensor)
    assert fake.shape == real.shape, (fake.shape, real.shape)
    assert fake.stride() == real.stride(), (fake.stride(), real.stride())
    assert fake.storage_offset() == real.storage_offset()
    assert fake.dtype is real.dtype and fake.device == real.device
    assert fake.requires_grad == real.requires_grad


# -- conversion ----------------------------------------------------------------------------------------------
def test_from_tensor_keeps_metadata_and_is_a_leaf():
    mode = FakeTensorMode()
    base = gt.randn(4, 6)
    for real in (base, base.t(), base[1:, ::2], base.view(2, 12)[1], gt.arange(5), gt.randn(3, requires_grad=True)):
        f = mode.from_tensor(real)
        _same_meta(f, real)
        assert f.is_leaf and f.grad_fn is None and f.fake_mode is mode and is_fake(f)
    assert not is_fake(base)


def test_from_tensor_memoised_and_views_share_storage():
    mode = FakeTensorMode()
    r = gt.randn(6)
    a, b = mode.from_tensor(r[1:4]), mode.from_tensor(r)
    assert mode.from_tensor(r) is b and mode.from_tensor(b) is b
    assert a.untyped_storage() is b.untyped_storage() and a.storage_offset() == 1
    assert a._base is b
    assert FakeTensorMode().from_tensor(r) is not b


def test_repr_matches_torch():
    mode, tmode = FakeTensorMode(), TorchFakeMode()
    for g, t in [(gt.randn(2, 3), torch.randn(2, 3)), (gt.ones(2, dtype=gt.int64), torch.ones(2, dtype=torch.int64)),
                 (gt.randn(2, requires_grad=True), torch.randn(2, requires_grad=True))]:
        assert repr(mode.from_tensor(g)) == repr(tmode.from_tensor(t))


# -- operators ----------------------------------------------------------------------------------------------
def _op_cases():
    x = gt.randn(4, 6)
    w = gt.randn(5, 6)
    img = gt.randn(2, 3, 8, 8)
    conv_w = gt.randn(4, 3, 3, 3)
    idx = gt.tensor([0, 3, 1])
    ints = gt.arange(12).view(3, 4)
    return [
        ("add_broadcast", lambda x, w: x + x[0], (x, w)),
        ("promotion", lambda x, i: x[:3, :4] * i, (x, ints)),
        ("matmul", lambda x, w: x @ w.t(), (x, w)),
        ("linear", lambda x, w: F.linear(x, w), (x, w)),
        ("transpose_contiguous", lambda x: x.t().contiguous(), (x,)),
        ("permute_reshape", lambda x: x.t().reshape(2, 12), (x,)),
        ("expand", lambda x: x[:, :1].expand(4, 6), (x,)),
        ("sum_dim", lambda x: x.sum(1, keepdim=True), (x,)),
        ("mean_all", lambda x: x.mean(), (x,)),
        ("compare", lambda x: x > 0, (x,)),
        ("softmax", lambda x: x.softmax(-1), (x,)),
        ("layer_norm", lambda x: F.layer_norm(x, (6,)), (x,)),
        ("conv2d", lambda i, w: F.conv2d(i, w, padding=1, stride=2), (img, conv_w)),
        ("max_pool", lambda i: F.max_pool2d(i, 2), (img,)),
        ("embedding", lambda w, i: F.embedding(i, w), (w, idx)),
        ("index_select", lambda x, i: x.index_select(0, i), (x, idx)),
        ("int_index", lambda x, i: x[i], (x, idx)),
        ("where", lambda x: gt.where(x > 0, x, 0.0), (x,)),
        ("to_dtype", lambda x: x.to(gt.float64), (x,)),
        ("cat_stack", lambda x, w: gt.cat([x, w]).unsqueeze(0), (x, w)),
        ("split", lambda x: x.split(4, 1), (x,)),
        ("unbind", lambda x: x.unbind(0), (x,)),
        ("sort", lambda x: x.sort(1), (x,)),
        ("topk", lambda x: x.topk(2), (x,)),
        ("cumsum", lambda x: x.cumsum(0), (x,)),
        ("step_slice", lambda x: x[::2, 1::3], (x,)),
        ("max_dim", lambda x: x.max(0), (x,)),
        ("cross_entropy", lambda x, i: F.cross_entropy(x[:3], i), (x, idx)),
    ]


def _leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.mark.parametrize("name,fn,args", _op_cases(), ids=[c[0] for c in _op_cases()])
def test_ops_under_mode_match_real_metadata(name, fn, args):
    mode = FakeTensorMode()
    fakes = [mode.from_tensor(a) for a in args]
    with mode:
        out = fn(*fakes)
    real = fn(*args)
    for f, r in zip(_leaves(out), _leaves(real), strict=True):
        _same_meta(f, r)
        assert f.fake_mode is mode


def test_factories_give_fakes_and_real_inputs_are_converted():
    mode = FakeTensorMode()
    r = gt.randn(3)
    with mode:
        z = gt.zeros(2, 3)
        a = gt.arange(5)
        n = gt.randn(4, requires_grad=True)
        e = gt.empty(2, device="emu")
        y = z + r  # a real tensor in an op is converted (memoised)
    assert all(isinstance(t, FakeTensor) for t in (z, a, n, e, y))
    assert a.dtype is gt.int64 and n.requires_grad and n.is_leaf and e.device == gt.device("emu:0")
    assert y.shape == (2, 3)
    assert mode.from_tensor(r).fake_mode is mode


def test_declared_factories_on_the_default_device_make_no_data():
    """A factory of the operator table (scalar_tensor, _efficientzerotensor) without ``device=`` runs on meta under
    the mode, as torch's does: its result is a cpu fake that later operators (clone) accept."""
    def run(m, mode_cls):
        with mode_cls():
            out = [m.scalar_tensor(2.0), m._efficientzerotensor((2, 3)), m.scalar_tensor(1.0, dtype=m.int64)]
            return [(type(c).__name__, str(c.device), tuple(c.shape), repr(c.dtype)) for c in (t.clone() for t in out)]

    assert run(gt, FakeTensorMode) == run(torch, TorchFakeMode)


def test_emulated_device_is_reported():
    mode = FakeTensorMode()
    x = gt.randn(2, 3, device="emu")
    f = mode.from_tensor(x)
    with mode:
        y = f * 2
        c = f.cpu()
        back = c.to("emu")
    _same_meta(y, x * 2)
    assert c.device.type == "cpu" and back.device == x.device


def test_inplace_and_out_return_the_same_fake():
    mode = FakeTensorMode()
    f, o = mode.from_tensor(gt.randn(2, 3)), mode.from_tensor(gt.empty(2, 3))
    v0 = f._version
    with mode:
        out = f.add_(1)
        res = gt.add(f, 1, out=o)
        view = f[0]
        view.mul_(2)
    assert out is f and res is o and f._version == v0 + 2
    assert view._base is f and view.untyped_storage() is f.untyped_storage()


def test_ops_outside_the_mode_use_the_fakes_mode():
    mode = FakeTensorMode()
    f = mode.from_tensor(gt.randn(2, 3))
    y = (f * 2).sum(0) + gt.ones(3)
    assert isinstance(y, FakeTensor) and y.fake_mode is mode and y.shape == (3,)
    d = f.detach()
    assert isinstance(d, FakeTensor) and d.untyped_storage() is f.untyped_storage()


def test_mixing_modes_raises():
    f1 = FakeTensorMode().from_tensor(gt.randn(2))
    f2 = FakeTensorMode().from_tensor(gt.randn(2))
    with pytest.raises(UnsupportedFakeTensorException, match="Mixing fake modes NYI"):
        f1 + f2


def test_non_fake_inputs_can_be_refused():
    mode = FakeTensorMode(allow_non_fake_inputs=False)
    real = gt.randn(2)  # made outside the mode: inside it, randn (a factory operator) gives a fake, as torch's
    with pytest.raises(AssertionError, match="Please convert all Tensors to FakeTensors first"):
        with mode:
            mode.from_tensor(gt.randn(2)) + real
    with mode:
        assert type(gt.randn(2)).__name__ == "FakeTensor"


# -- autograd above the mode -------------------------------------------------------------------------------
def _mlp_loss(lib, x, w1, w2, tgt):
    h = lib.nn.functional.gelu(x @ w1)
    return lib.nn.functional.cross_entropy(h @ w2, tgt)


def test_autograd_over_fakes():
    mode = FakeTensorMode()
    x, w1, w2 = gt.randn(4, 5), gt.randn(5, 7, requires_grad=True), gt.randn(7, 3, requires_grad=True)
    tgt = gt.tensor([0, 2, 1, 0])
    fx, fw1, fw2 = (mode.from_tensor(t) for t in (x, w1, w2))
    with mode:
        loss = _mlp_loss(gt, fx, fw1, fw2, tgt)
        g1, g2 = gt.autograd.grad(loss, [fw1, fw2])
    real_loss = _mlp_loss(gt, x, w1, w2, tgt)
    assert type(loss.grad_fn).__name__ == type(real_loss.grad_fn).__name__
    _same_meta(loss, real_loss)
    r1, r2 = gt.autograd.grad(real_loss, [w1, w2])
    _same_meta(g1, r1)
    _same_meta(g2, r2)
    # backward() outside the mode accumulates fake grads on the fake leaves
    loss2 = _mlp_loss(gt, fx, fw1, fw2, tgt)
    loss2.backward()
    assert isinstance(fw1.grad, FakeTensor) and fw1.grad.shape == w1.shape and fx.grad is None


# -- errors --------------------------------------------------------------------------------------------------
def _torch_error(fn):
    tmode = TorchFakeMode(allow_non_fake_inputs=True)
    f = tmode.from_tensor(torch.tensor([1.0, -2.0, 3.0]))
    with pytest.raises(Exception) as info:
        with tmode:
            fn(torch, f)
    return info.value


@pytest.mark.parametrize("read", ["item", "tolist", "bool", "int", "float"])
def test_data_reads_raise_like_torch(read):
    calls = {"item": lambda t, f: f[0].item(), "tolist": lambda t, f: f.tolist(), "bool": lambda t, f: bool(f[0]),
             "int": lambda t, f: int(f[0]), "float": lambda t, f: float(f[0])}
    expected = _torch_error(calls[read])
    mode = FakeTensorMode()
    f = mode.from_tensor(gt.tensor([1.0, -2.0, 3.0]))
    for inside in (False, True):
        with pytest.raises(DataDependentOutputException) as info:
            if inside:
                with mode:
                    calls[read](gt, f)
            else:
                calls[read](gt, f)
        assert type(expected).__name__ == "DataDependentOutputException" and str(info.value) == str(expected)
        assert isinstance(info.value, RuntimeError)


def test_numpy_raises():
    f = FakeTensorMode().from_tensor(gt.randn(2))
    with pytest.raises(DataDependentOutputException, match=r"\.numpy\(\) is not supported for tensor subclasses"):
        f.numpy()
    with pytest.raises(DataDependentOutputException):
        np.asarray(f)
    with pytest.raises(DataDependentOutputException, match="aten._local_scalar_dense.default"):
        f._impl.as_numpy()  # a read below the Tensor methods (a Python-level helper) raises the same


@pytest.mark.parametrize("which", ["nonzero", "unique", "masked_select", "bool_index", "repeat_interleave",
                                   "argwhere"])
def test_dynamic_output_shapes_raise_like_torch(which):
    calls = {"nonzero": lambda t, f: f.nonzero(), "unique": lambda t, f: f.unique(),
             "masked_select": lambda t, f: f.masked_select(f > 0), "bool_index": lambda t, f: f[f > 0],
             "repeat_interleave": lambda t, f: t.repeat_interleave(f.long()),
             "argwhere": lambda t, f: t.argwhere(f)}
    expected = _torch_error(calls[which])
    mode = FakeTensorMode()
    f = mode.from_tensor(gt.tensor([1.0, -2.0, 3.0]))
    with pytest.raises(DynamicOutputShapeException) as info:
        with mode:
            calls[which](gt, f)
    assert type(expected).__name__ == "DynamicOutputShapeException"
    assert str(info.value) == str(expected)


def test_op_without_meta_kernel_raises_naming_it():
    lib = gt.library.Library("h3fake", "DEF")
    lib.define("cpu_only(Tensor x) -> Tensor")
    lib.impl("cpu_only", lambda x: x * 2, "CPU")
    assert gt.ops.h3fake.cpu_only.default(gt.ones(2)).tolist() == [2.0, 2.0]
    mode = FakeTensorMode()
    f = mode.from_tensor(gt.ones(2))
    with pytest.raises(UnsupportedOperatorException, match=r"^h3fake\.cpu_only\.default$") as info:
        with mode:
            gt.ops.h3fake.cpu_only.default(f)
    assert isinstance(info.value, UnsupportedFakeTensorException)


def test_fake_tensor_cannot_be_constructed_directly():
    with pytest.raises(TypeError):
        FakeTensor(2, 3)


def test_from_tensor_carries_grad_and_deepcopy_keeps_mode():
    import copy

    mode = FakeTensorMode()
    r = gt.randn(3, requires_grad=True)
    r.grad = gt.ones(3)
    f = mode.from_tensor(r)
    assert isinstance(f.grad, FakeTensor) and f.grad.shape == (3,)
    view = f[1:]
    a, b = copy.deepcopy([f, view])
    assert isinstance(a, FakeTensor) and a is not f and a.fake_mode is mode and a.requires_grad
    assert b.untyped_storage() is a.untyped_storage() and b.storage_offset() == 1


def test_autocast_under_fake_mode():
    mode = FakeTensorMode()
    x, w = mode.from_tensor(gt.randn(2, 3)), mode.from_tensor(gt.randn(3, 4))
    with mode, gt.autocast("cpu", dtype=gt.bfloat16):
        y = x @ w
        s = y.float().softmax(-1)
    assert y.dtype is gt.bfloat16 and s.dtype is gt.float32 and isinstance(y, FakeTensor)


# -- gaps found by the compile suite ---------------------------------------------------------------------------
def test_out_tensors_made_under_the_mode_are_returned_by_out_calls():
    """``new_empty`` & co. under the mode give fakes (lift_fresh), so an out= call returns its out objects."""
    mode = FakeTensorMode()
    a = mode.from_tensor(gt.randn(3, 3))
    with mode:
        o = a.new_empty(0)
        assert isinstance(o, FakeTensor) and isinstance(a.new_zeros(2), FakeTensor)
        assert gt.add(a, 1, out=o) is o and o.shape == (3, 3)
        outs = (a.new_empty(0), a.new_empty(0), a.new_empty(0))
        res = gt.linalg.svd(a, out=outs)
    assert all(r is o for r, o in zip(res, outs, strict=True))
    assert [tuple(t.shape) for t in outs] == [(3, 3), (3,), (3, 3)]


def test_take_index_fill_nonzero_static_run_on_fakes():
    x, i = gt.randn(3, 4), gt.tensor([0, 2])
    mode = FakeTensorMode()
    fx, fi = mode.from_tensor(x), mode.from_tensor(i)
    with mode:
        fakes = [gt.take(fx, fi), fx.index_fill(1, fi, 2.0), fx.index_fill(1, fi, gt.tensor(3.0)),
                 gt.nonzero_static(fx, size=5), gt.nonzero_static(fx, size=0, fill_value=7)]
        o = gt.empty(0, dtype=gt.long)
        assert gt.nonzero_static(fx, size=4, out=o) is o and o.shape == (4, 2)
        with pytest.raises(RuntimeError, match="nonzero_static: 'size' must be an non-negative integer"):
            gt.nonzero_static(fx, size=-1)
    reals = [gt.take(x, i), x.index_fill(1, i, 2.0), x.index_fill(1, i, gt.tensor(3.0)),
             gt.nonzero_static(x, size=5), gt.nonzero_static(x, size=0, fill_value=7)]
    for f, r in zip(fakes, reals, strict=True):
        _same_meta(f, r)


def test_fused_sdp_choice_on_fakes_sees_the_masks_requires_grad():
    q, mask = gt.randn(1, 2, 3, 4), gt.randn(1, 1, 3, 3, requires_grad=True)
    mode = FakeTensorMode()
    fq, fm = mode.from_tensor(q), mode.from_tensor(mask)
    with mode:
        got = [gt.ops.aten._fused_sdp_choice(fq, fq, fq, fm), gt.ops.aten._fused_sdp_choice(fq, fq, fq, fm.detach())]
    want = [gt.ops.aten._fused_sdp_choice(q, q, q, mask), gt.ops.aten._fused_sdp_choice(q, q, q, mask.detach())]
    assert got == want == [0, 1]


def test_list_subclass_arguments_reach_the_meta_kernel():
    """An fx graph's ``immutable_list`` of fakes (a list subclass) must still carry the dispatch keys."""
    from glasstorch.fx.immutable_collections import immutable_list

    mode = FakeTensorMode()
    params = [mode.from_tensor(gt.randn(3))]
    lists = [immutable_list([mode.from_tensor(gt.zeros(3))]) for _ in range(3)]
    steps = immutable_list([mode.from_tensor(gt.tensor(1.0))])
    with mode:
        gt.ops.aten._fused_adam_.default(immutable_list(params), *lists, [], steps, lr=0.1, beta1=0.9, beta2=0.99,
                                         weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
    assert isinstance(params[0], FakeTensor) and params[0].shape == (3,)


def test_mask_index_put_with_a_values_tensor_is_a_dynamic_output_shape():
    mode = FakeTensorMode()
    x, mask, v = mode.from_tensor(gt.randn(3, 4)), mode.from_tensor(gt.randn(3, 4) > 0), mode.from_tensor(gt.randn(5))
    with mode:
        with pytest.raises(DynamicOutputShapeException, match=r"^aten\.nonzero\.default$"):
            gt.ops.aten.index_put.default(x, [mask], v)
        assert gt.ops.aten.index_put.default(x, [mask], gt.tensor(1.0)).shape == (3, 4)  # a broadcast value
