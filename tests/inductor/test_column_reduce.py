"""Column reductions (sums over the outer dimension) run with the loops interchanged: compiled == eager == torch.

Each case builds an aten FX graph, compiles it with compile_fx_inner and compares the outputs with the eager
graph and with the same aten ops in real PyTorch; the generated C must (or must not) contain the interchanged
loop nest ``for r0 { simd for x0 in block }`` of :mod:`glasstorch._inductor.codegen_columns`.
"""

import importlib
import re

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch import _cbuild, fx
from glasstorch._inductor import compile_fx_inner, config

pytestmark = pytest.mark.skipif(not _cbuild.available(), reason="no C compiler")
A = gt.ops.aten
TA = torch.ops.aten
TOL = {gt.float32: dict(rtol=1e-5, atol=1e-5), gt.float64: dict(rtol=1e-12, atol=1e-12)}
INTERCHANGED = re.compile(r"for \(int64_t r0 = 0; r0 < \d+; r0\+\+\) \{\s*#pragma omp simd\s*"
                          r"for \(int64_t x0 = gt_x; x0 < gt_xe; x0\+\+\)")


def _emitter(ns, call):
    def emit(name, *args, **kwargs):
        packet, overload = name.split(".")
        return call(getattr(getattr(ns, packet), overload), args, kwargs)
    return emit


def graph(n_inputs, body):
    g = fx.Graph()
    ph = [g.placeholder(f"arg{i}") for i in range(n_inputs)]
    g.output(body(_emitter(A, g.call_function), *ph))
    return fx.GraphModule(gt.nn.Module(), g)


def to_torch(x):
    return torch.from_numpy(np.array(x.contiguous().numpy(), copy=True))


def check(body, inputs, columns=None, groups=None):
    """Compile ``body`` over ``inputs``; compare with eager and torch; returns the compiled graph."""
    gm = graph(len(inputs), body)
    compiled = compile_fx_inner(gm, inputs)
    got, ref = compiled(*inputs), gm(*inputs)
    tref = body(_emitter(TA, lambda op, a, k: op(*a, **k)), *[to_torch(x) for x in inputs])
    for a, b, t in zip(got, ref, tref, strict=True):
        assert a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape) == tuple(t.shape), (a.dtype, a.shape, t.shape)
        assert tuple(a.stride()) == tuple(b.stride()) or a.numel() <= 1
        tol = TOL.get(a.dtype, dict(rtol=0, atol=0))
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)
        np.testing.assert_allclose(a.numpy(), t.numpy(), **tol)
    if columns is not None:
        assert compiled.stats["column_groups"] == columns, compiled.stats
        assert len(INTERCHANGED.findall(compiled.c_source)) == columns, compiled.c_source
    if groups is not None:
        assert compiled.stats["groups"] == groups, compiled.stats
    return compiled


def rand(*shape, dtype=gt.float32):
    if dtype is gt.int64:
        return gt.randint(-1000, 1000, shape)
    return gt.randn(*shape, dtype=dtype)


@pytest.mark.parametrize("dtype", [gt.float32, gt.float64, gt.int64])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_over_dim0_of_2d(dtype, keepdim):
    check(lambda e, x: (e("sum.dim_IntList", x, [0], keepdim),), [rand(300, 70, dtype=dtype)], columns=1)


@pytest.mark.parametrize("dtype", [gt.float32, gt.float64])
def test_mean_over_dim0_and_leading_dims(dtype):
    def body(e, x, y):
        return (e("mean.dim", x, [0], True), e("mean.dim", y, [0, 1], False), e("sum.dim_IntList", y, [0], True))
    check(body, [rand(129, 33, dtype=dtype), rand(4, 9, 40, dtype=dtype)])


def test_sum_over_leading_dims_of_3d_and_middle_dim():
    def body(e, x):
        return (e("sum.dim_IntList", x, [0, 1], False),   # (B, T, C) -> (C,): bias gradient
                e("sum.dim_IntList", x, [0], False),      # -> (T, C)
                e("sum.dim_IntList", x, [1], True))       # -> (B, 1, C): rows inside each batch
    check(body, [rand(3, 50, 24)], columns=3)


def test_large_columns_run_in_blocks():
    # more columns than one block of accumulators holds, and enough work to split across threads
    c = check(lambda e, x: (e("sum.dim_IntList", x, [0], False),), [rand(24, 5000)], columns=1)
    assert "gt_nb < nt" in c.c_source


def test_layer_norm_weight_and_bias_grads_share_one_pass():
    def body(e, go, xhat):
        dw = e("sum.dim_IntList", e("mul.Tensor", go, xhat), [0, 1], False)
        db = e("sum.dim_IntList", go, [0, 1], False)
        return dw, db
    c = check(body, [rand(4, 30, 48), rand(4, 30, 48)], columns=1, groups=1)
    assert c.stats["nodes"] == 2


def test_reductions_over_different_rows_do_not_share_a_pass():
    def body(e, x, y):
        return e("sum.dim_IntList", x, [0], False), e("sum.dim_IntList", y, [0], False)
    check(body, [rand(40, 16), rand(50, 16)], columns=2, groups=2)


def test_column_sum_next_to_pointwise_and_row_reductions():
    def body(e, x, w):
        g = e("gelu.default", e("mul.Tensor", x, w))   # a pointwise output: not in the column group
        rows = e("sum.dim_IntList", x, [1], True)      # a row reduction: ordinary group
        cols = e("sum.dim_IntList", g, [0], False)
        return g, rows, cols, e("sub.Tensor", x, rows)
    c = check(body, [rand(64, 96), rand(96)], columns=1)
    assert c.stats["groups"] >= 2


def test_amax_amin_and_any_over_dim0_propagate_nan():
    def body(e, x, b):
        return (e("amax.default", x, [0], False), e("amin.default", x, [0], True), e("any.dim", b, 0, False))
    x = rand(40, 33)
    x[5, 3] = float("nan")
    x[7, 4] = float("inf")
    b = rand(40, 33) > 2.0
    c = check(body, [x, b], columns=1)
    got = c(x, b)
    assert np.isnan(got[0].numpy()[3]) and np.isnan(got[1].numpy()[0, 3]) and got[0].numpy()[4] == np.inf


def test_strided_input_keeps_row_order():
    # the transposed input puts the reduced dim contiguous: the row-order loop already reads unit stride
    xt = rand(30, 200).t()
    check(lambda e, x: (e("sum.dim_IntList", x, [0], False),), [xt], columns=0)


def test_knob_off_gives_row_order_and_same_values(monkeypatch):
    x = rand(100, 40)
    on = check(lambda e, x: (e("sum.dim_IntList", x, [0], False),), [x], columns=1)
    monkeypatch.setattr(config, "column_reductions", False)
    off = check(lambda e, x: (e("sum.dim_IntList", x, [0], False),), [x], columns=0)
    np.testing.assert_allclose(on(x)[0].numpy(), off(x)[0].numpy(), rtol=1e-6, atol=1e-6)


def test_linear_bias_grads_through_compile(monkeypatch):
    cfx = importlib.import_module("glasstorch._inductor.compile_fx")
    sources = []
    inner = cfx.compile_fx_inner

    def keep(gm, example_inputs, **kw):
        out = inner(gm, example_inputs, **kw)
        sources.append(out.c_source)
        return out
    monkeypatch.setattr(cfx, "compile_fx_inner", keep)
    gt._dynamo.reset()
    tmods = []
    for lib in (gt, torch):
        lib.manual_seed(0)
        tmods.append(lib.nn.Sequential(lib.nn.Linear(24, 40), lib.nn.Tanh(), lib.nn.LayerNorm(40),
                                       lib.nn.Linear(40, 8)))
    model, tmodel = tmods
    tmodel.load_state_dict({k: to_torch(v) for k, v in model.state_dict().items()})
    x = rand(5, 30, 24)
    compiled = gt.compile(model, backend="inductor")
    compiled(x).square().sum().backward()
    tmodel(to_torch(x)).square().sum().backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    model(x).square().sum().backward()
    for (n, p), (_, tp) in zip(model.named_parameters(), tmodel.named_parameters(), strict=True):
        np.testing.assert_allclose(grads[n].numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)
        np.testing.assert_allclose(grads[n].numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-4, err_msg=n)
    assert any(INTERCHANGED.search(s) for s in sources)
    gt._dynamo.reset()
