"""Autocast against torch: which overloads have Autocast kernels (checked against torch's own dispatcher),
result dtypes of a battery of ops under ``autocast("cpu")``, gradients through the casts, the weight cache,
nesting, decorators, warnings and ``custom_fwd``."""

import warnings

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch._ops import autocast as layer  # noqa: I001
from glasstorch._ops.dispatcher import all_ops
from glasstorch.amp import autocast_mode as am


@pytest.mark.parametrize("device,key", [("cpu", "AutocastCPU"), ("cuda", "AutocastCUDA")])
def test_autocast_tables_match_torchs_dispatcher(device, key):
    ours = {n for n, op in all_ops().items() if n.startswith("aten::") and op.has_kernel(key)}
    theirs = set()
    for n in all_ops():
        if not n.startswith("aten::"):
            continue
        try:
            if torch._C._dispatch_has_kernel_for_dispatch_key(n, key):
                theirs.add(n)
        except RuntimeError:  # an op torch does not have under this name
            pass
    assert ours == theirs


def _battery(m, x, w, tgt):
    F = m.nn.functional
    y = m.mm(x, w)
    return {
        "mm": y, "matmul": x @ w, "linear": F.linear(x, w), "softmax": x.softmax(-1),
        "layer_norm": F.layer_norm(x, (4,)), "cross_entropy": F.cross_entropy(y, tgt), "add_mixed": y + x,
        "cat": m.cat([y, x]), "stack": m.stack([y, x]), "sum": y.sum(), "mse": F.mse_loss(y, x),
        "prod": m.prod(y), "sdpa": F.scaled_dot_product_attention(x[None], x[None], x[None]), "gelu": F.gelu(y),
        "exp": m.exp(y), "bmm": m.bmm(x[None], w[None]), "baddbmm": m.baddbmm(x[None], x[None], w[None]),
        "addmm": m.addmm(x, x, w), "double_mm": m.mm(x.double(), w.double()), "int_add": m.arange(3) + 1,
    }


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_result_dtypes_match_torch(dtype):
    res = {}
    for m in (torch, gt):
        x = m.tensor(np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4))
        w = m.tensor(np.linspace(1, 2, 16, dtype=np.float32).reshape(4, 4), requires_grad=True)
        with m.autocast("cpu", dtype=getattr(m, dtype)):
            out = _battery(m, x, w, m.tensor([0, 1, 2, 3]))
        res[m.__name__] = {k: str(v.dtype) for k, v in out.items()}
    assert res["glasstorch"] == res["torch"]


def test_gradients_flow_through_the_casts():
    res = {}
    for m in (torch, gt):
        x = m.tensor(np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4))
        w = m.tensor(np.linspace(1, 2, 16, dtype=np.float32).reshape(4, 4), requires_grad=True)
        with m.autocast("cpu"):
            loss = m.nn.functional.mse_loss(m.mm(x, w), x)
        loss.backward()
        fn = m.mm(x, w).grad_fn
        res[m.__name__] = (str(loss.dtype), str(w.grad.dtype), w.grad.numpy(), fn.name())
    assert res["glasstorch"][:2] == res["torch"][:2]
    np.testing.assert_allclose(res["glasstorch"][2], res["torch"][2], rtol=2e-2, atol=1e-2)


def test_weight_casts_are_cached_within_the_outermost_region():
    res = {}
    for m in (torch, gt):
        x = m.ones(2, 2)
        w = m.ones(2, 2, requires_grad=True)
        with m.autocast("cpu"):
            a = m.mm(x, w)
            with m.autocast("cpu"):
                b = m.mm(x, w)
        with m.autocast("cpu"):
            c = m.mm(x, w)
        cast = [t.grad_fn.next_functions[1][0] for t in (a, b, c)]
        res[m.__name__] = (cast[0] is cast[1], cast[0] is cast[2])
    assert res["glasstorch"] == res["torch"] == (True, False)


def test_state_nesting_disable_and_restore():
    for m in (torch, gt):
        assert not m.is_autocast_enabled("cpu") if m is torch else not am.is_autocast_enabled("cpu")
    with gt.autocast("cpu"):
        assert am.is_autocast_enabled("cpu")
        with gt.autocast("cpu", enabled=False):
            assert not am.is_autocast_enabled("cpu")
            assert gt.mm(gt.ones(2, 2), gt.ones(2, 2)).dtype is gt.float32
        with gt.autocast("cpu", dtype=gt.float16):
            assert am.get_autocast_dtype("cpu") is gt.float16
        assert am.get_autocast_dtype("cpu") is gt.bfloat16
    assert not am.is_autocast_enabled("cpu")
    assert layer._state.nesting == 0 and not layer._state.cache


def test_decorator_and_errors_match_torch():
    for m in (torch, gt):
        @m.autocast("cpu")
        def f(a, m=m):
            return m.mm(a, a)
        assert f(m.ones(2, 2)).dtype is m.bfloat16
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            m.autocast(1)
    with pytest.raises(RuntimeError, match="User specified an unsupported autocast device_type 'meta'"):
        gt.autocast("meta")  # torch fails earlier, in its dtype lookup ("unsupported scalarType")


def test_unsupported_dtype_and_missing_cuda_warn_and_disable():
    msgs = {}
    for m in (torch, gt):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            with m.autocast("cpu", dtype=m.float64):
                d1 = m.mm(m.ones(2, 2), m.ones(2, 2)).dtype
            with m.autocast("cuda"):
                d2 = m.mm(m.ones(2, 2), m.ones(2, 2)).dtype
        msgs[m.__name__] = ([str(w.message) for w in ws if "autocast" in str(w.message)], str(d1), str(d2))
    assert msgs["glasstorch"] == msgs["torch"]


def test_custom_fwd_casts_inputs_and_runs_without_autocast():
    res = {}
    for m in (torch, gt):
        class Mul(m.autograd.Function):
            @staticmethod
            @m.amp.custom_fwd(device_type="cpu", cast_inputs=m.float32)
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a.mm(b)

            @staticmethod
            @m.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g.mm(b.t()), a.t().mm(g)
        a = m.ones(2, 2, dtype=m.bfloat16, requires_grad=True)
        with m.autocast("cpu"):
            out = Mul.apply(a, m.ones(2, 2))
        out.sum().backward()
        res[m.__name__] = (str(out.dtype), str(a.grad.dtype))
    assert res["glasstorch"] == res["torch"]
