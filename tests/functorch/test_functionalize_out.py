"""out= writes and resizes through functionalisation and AOT autograd, against torch: an out tensor of another
dtype keeps its dtype (also when resized), multi-output out= overloads write every out tensor, graph inputs
resized by out= or ``resize_`` are resized by the runtime; backward-time dynamic-shape ops are graph breaks."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch._dynamo.exc import Unsupported
from glasstorch._functorch.functionalize import functionalize_graph
from glasstorch.fx.experimental.proxy_tensor import make_fx

BACKENDS = ("aot_eager", "inductor")


@pytest.fixture(autouse=True)
def _fresh():
    gt._dynamo.reset()
    gt._dynamo.counters.clear()
    yield
    gt._dynamo.reset()


def _both(make):
    """``make(lib)`` -> inputs, built from the same numpy values in glasstorch and torch."""
    return make(gt), make(torch)


def _close(g, t):
    assert repr(g.dtype) == repr(t.dtype), (g.dtype, t.dtype)
    assert tuple(g.shape) == tuple(t.shape)
    np.testing.assert_allclose(np.asarray(g.tolist()), np.asarray(t.tolist()), rtol=1e-5, atol=1e-6)


def _mutable(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"
            and getattr(getattr(n.target, "_schema", None), "is_mutable", False)]


def _randn(lib, *shape, seed=0):
    return lib.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


# -- the functional graph ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("out_shape", [(3, 4), (0,)], ids=["same shape", "resized"])
def test_out_of_another_dtype_keeps_its_dtype(out_shape):
    def f(a, b):
        return gt.add(a, b, out=gt.empty(out_shape, dtype=gt.float64))

    a, b = gt.randn(3, 4), gt.randn(3, 4)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(a, b))
    assert _mutable(fg.gm) == []
    (out,) = fg.gm(a, b)
    assert out.dtype == gt.float64 and tuple(out.shape) == (3, 4)
    _close(out, torch.add(torch.tensor(a.tolist()), torch.tensor(b.tolist())).double())


def test_multi_output_out_writes_every_tensor_in_schema_order():
    def f(x):
        outs = (x.new_empty(0), x.new_empty(0), x.new_empty(0))
        U, S, Vh = gt.linalg.svd(x, full_matrices=False, out=outs)
        return U @ gt.diag_embed(S) @ Vh, S

    x = gt.randn(4, 3)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x))
    assert _mutable(fg.gm) == []
    rebuilt, S = fg.gm(x)
    _close(rebuilt, torch.tensor(x.tolist()))
    _close(S, torch.linalg.svdvals(torch.tensor(x.tolist())))


# -- compiled calls: results and the out tensors after the call -------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_compiled_out_input_of_another_dtype_and_shape(backend):
    def f(a, b, out):
        return gt.add(a, b, out=out) if isinstance(a, gt.Tensor) else torch.add(a, b, out=out)

    (ga, gb, go), (ta, tb, to) = _both(lambda lib: (_randn(lib, 3, 4), _randn(lib, 4, seed=1),
                                                    lib.zeros(5, dtype=lib.float64)))
    with pytest.warns(UserWarning, match="was resized"):
        want = f(ta, tb, to)
    with pytest.warns(UserWarning, match="was resized"):
        got = gt.compile(f, backend=backend)(ga, gb, go)
    assert got is go
    _close(got, want)
    _close(go, to)
    assert go.stride() == to.stride()


@pytest.mark.parametrize("backend", BACKENDS)
def test_compiled_svd_out_inputs(backend):
    def f(x, U, S, Vh):
        return (gt if isinstance(x, gt.Tensor) else torch).linalg.svd(x, full_matrices=False, out=(U, S, Vh))

    def make(lib):
        return _randn(lib, 5, 3), lib.empty(0), lib.empty(0), lib.empty(0)

    g, t = _both(make)
    res = gt.compile(f, backend=backend)(*g)
    want = f(*t)
    assert all(r is o for r, o in zip(res, g[1:], strict=True))
    _close(g[2], t[2])  # singular values are unique; U and Vh up to signs
    rebuilt = g[1] @ gt.diag_embed(g[2]) @ g[3]
    _close(rebuilt, t[0])
    assert [tuple(o.shape) for o in g[1:]] == [tuple(o.shape) for o in want]


@pytest.mark.parametrize("backend", BACKENDS)
def test_compiled_index_tensor_out(backend):
    def f(x, i, out):
        lib = gt if isinstance(x, gt.Tensor) else torch
        return lib.ops.aten.index.Tensor_out(x, [None, i], out=out)

    g, t = _both(lambda lib: (_randn(lib, 3, 4), lib.tensor([0, 2, 2]), lib.empty(0)))
    got = gt.compile(f, backend=backend)(*g)
    want = f(*t)
    assert got is g[2]
    _close(got, want)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("size,fmt", [((2, 5), None), ((4, 5), None), ((1, 2, 3, 2), "channels_last")],
                         ids=["shrink", "grow", "channels_last"])
def test_compiled_resize_of_an_input(backend, size, fmt):
    def f(x):
        lib = gt if isinstance(x, gt.Tensor) else torch
        kw = {} if fmt is None else {"memory_format": getattr(lib, fmt)}
        return x.resize_(size, **kw) * 2

    g, t = _both(lambda lib: lib.arange(12.0).reshape(3, 4))
    got = gt.compile(f, backend=backend)(g)
    want = f(t)
    n = min(12, g.numel())  # grown elements are uninitialised
    _close(got.reshape(-1)[:n] if fmt is None else got, want.reshape(-1)[:n] if fmt is None else want)
    assert tuple(g.shape) == tuple(t.shape) and g.stride() == t.stride()
    _close(g.as_strided((n,), (1,)), t.as_strided((n,), (1,)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_compiled_resize_as_of_a_transposed_input(backend):
    def f(x, y):
        return x.resize_as_(y) + 1

    g, t = _both(lambda lib: (lib.arange(12.0).reshape(3, 4).t(), lib.zeros(2, 5)))
    got = gt.compile(f, backend=backend)(*g)
    _close(got, f(*t))
    _close(g[0], t[0])


# -- backward-time dynamic shapes: graph breaks ----------------------------------------------------------------------
def _masked_scatter(lib):
    rng = np.random.default_rng(3)
    x = lib.tensor(rng.standard_normal((3, 4)).tolist(), requires_grad=True)
    m = lib.tensor((rng.random((3, 4)) > 0.5).tolist())
    src = lib.tensor(rng.standard_normal((3, 4)).tolist(), requires_grad=True)
    return x, m, src


@pytest.mark.parametrize("backend", BACKENDS)
def test_dynamic_shape_op_in_the_backward_is_a_graph_break(backend):
    (gx, gm, gs), (tx, tm, ts) = _both(_masked_scatter)
    cf = gt.compile(lambda x, m, s: x.masked_scatter(m, s) * 2, backend=backend)
    got = cf(gx, gm, gs)
    want = (tx.masked_scatter(tm, ts) * 2)
    _close(got.detach(), want.detach())
    got.sum().backward()
    want.sum().backward()
    _close(gx.grad, tx.grad)
    _close(gs.grad, ts.grad)
    assert dict(gt._dynamo.counters["graph_break"]) == {"Dynamic shape operator": 1}
    cf(gx, gm, gs)  # cached as an eager entry: no second break
    assert dict(gt._dynamo.counters["graph_break"]) == {"Dynamic shape operator": 1}


def test_dynamic_shape_op_in_the_backward_with_fullgraph_raises_unsupported():
    x, m, s = _masked_scatter(gt)
    cf = gt.compile(lambda x, m, s: x.masked_scatter(m, s), backend="aot_eager", fullgraph=True)
    with pytest.raises(Unsupported, match="Dynamic shape operator") as info:
        cf(x, m, s)
    assert "aten.masked_select.default" in str(info.value)


def test_without_grad_the_same_op_compiles_into_one_graph():
    x, m, s = (t.detach() for t in _masked_scatter(gt))
    got = gt.compile(lambda x, m, s: x.masked_scatter(m, s), backend="aot_eager")(x, m, s)
    _close(got, torch.tensor(x.tolist()).masked_scatter(torch.tensor(m.tolist()), torch.tensor(s.tolist())))
    assert not gt._dynamo.counters["graph_break"]
