"""Compiled gradients and side effects that once went wrong silently, against eager glasstorch and real torch.

- backward formulas that read values (svd's grad test, prod/cumprod's zero test) traced under AOT autograd:
  one graph, no graph break, eager's gradients;
- circular padding (its decomposition fills a fresh buffer by copies): the buffer is a traced value, so the
  output gets a tangent and the input its gradient;
- ``explain`` lists the graph breaks AOT autograd meets while tracing the backward, as the compile records them;
- a compiled ``resize_`` of a graph input bumps its version counter as often as eager does.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch import _dynamo as dynamo


def _close(a, b, tol=1e-5):
    assert a is not None and b is not None
    np.testing.assert_allclose(np.array(a.tolist()), b.detach().numpy(), rtol=tol, atol=tol)


def _grads(lib, fn, data, seed, compile_backend=None):
    x = lib.tensor(data, requires_grad=True)
    f = gt.compile(fn(lib), backend=compile_backend) if compile_backend else fn(lib)
    out = f(x)
    out.backward(lib.tensor(seed))
    return x.grad


_CASES = {
    "svdvals": (lambda lib: lambda x: lib.linalg.svdvals(x) * 2, [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]], [1.0, 3.0]),
    "prod_with_zero": (lambda lib: lambda x: x.prod(1), [[1.0, 0.0, 3.0], [2.0, 5.0, 0.5]], [1.0, 2.0]),
    "cumprod_with_zeros": (lambda lib: lambda x: x.cumprod(0), [0.0, 2.0, 0.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0, 5.0]),
    "circular_pad": (lambda lib: lambda x: lib.nn.functional.pad(x, (1, 2), mode="circular"),
                     [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]], [[[float(i + 6 * j) for i in range(6)] for j in range(2)]]),
    "circular_pad_2d_crop": (lambda lib: lambda x: lib.nn.functional.pad(x, (2, -1, 1, 1), mode="circular") * 3,
                             [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]],
                             [[[float(i * j + 1) for i in range(4)] for j in range(4)]]),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_compiled_grad_matches_eager_without_break(case):
    fn, data, seed = _CASES[case]
    want = _grads(torch, fn, data, seed)
    _close(_grads(gt, fn, data, seed), want)
    _close(_grads(gt, fn, data, seed, "aot_eager"), want)
    assert not dynamo.counters["graph_break"], dict(dynamo.counters["graph_break"])


def test_circular_pad_trace_has_no_output_constant():
    """The padded output is computed from the input inside the graph, not returned as a graph constant."""
    from glasstorch.fx.experimental.proxy_tensor import make_fx
    gm = make_fx(lambda x: gt.nn.functional.pad(x, (1, 2), mode="circular"), tracing_mode="fake")(gt.ones(1, 1, 3))
    out = gm.graph.output_node().args[0]
    assert out.op == "call_function"
    x = gt.tensor([[[1.0, 2.0, 3.0]]])
    assert gm(x).tolist() == [[[3.0, 1.0, 2.0, 3.0, 1.0, 2.0]]]


# -- explain and breaks met by AOT autograd ------------------------------------------------------------------------
def _masked_scatter(x, m, s):
    return x.masked_scatter(m, s) * 2


def _ms_inputs(requires_grad=True):
    return (gt.randn(4, requires_grad=requires_grad), gt.tensor([True, False, True, False]),
            gt.randn(4, requires_grad=requires_grad))


def test_explain_lists_a_break_met_while_tracing_the_backward():
    out = dynamo.explain(_masked_scatter)(*_ms_inputs())
    assert out.graph_count == 1 and out.graph_break_count == 1
    reason = out.break_reasons[0]
    assert reason.reason == "Dynamic shape operator"
    assert "aten.masked_select.default" in reason.explanation and "backward" in reason.explanation
    assert reason.user_stack[-1].filename == __file__
    assert "Graph Break Count: 1" in str(out)
    # the compile records the same break
    gt.compile(_masked_scatter, backend="aot_eager")(*_ms_inputs())
    assert dict(dynamo.counters["graph_break"]) == {"Dynamic shape operator": 1}


def test_explain_without_grad_has_no_backward_break():
    assert dynamo.explain(_masked_scatter)(*_ms_inputs(requires_grad=False)).graph_break_count == 0
    with gt.no_grad():
        assert dynamo.explain(_masked_scatter)(*_ms_inputs()).graph_break_count == 0


def test_explain_backward_break_after_forward_breaks():
    def fn(x, m, s):
        y = x * 2
        if y.sum() > 100:   # a forward break: two graphs; the second one's backward breaks too
            y = y + 1
        return y.masked_scatter(m, s)

    out = dynamo.explain(fn)(*_ms_inputs())
    assert out.graph_count == 2
    assert [r.reason for r in out.break_reasons] == ["Data-dependent branching", "Dynamic shape operator"]


def test_explain_of_a_plain_function_is_unchanged():
    out = dynamo.explain(lambda x: (x.sin() * 2).sum())(gt.randn(3, requires_grad=True))
    assert (out.graph_count, out.graph_break_count, out.op_count) == (1, 0, 3)


# -- resize_ of a graph input ----------------------------------------------------------------------------------------
def _resize(n, fill=False):
    def make(lib):
        def fn(x):
            x.resize_(n)
            if fill:
                x.fill_(2.0)
            return x + 1
        return fn
    return make


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("n,fill", [(6, False), (2, False), (4, False), ((2, 3), False), (6, True)])
def test_compiled_resize_bumps_version_like_eager(n, fill, backend):
    t = torch.arange(4.0)
    v = t._version
    want = _resize(n, fill)(torch)(t)
    bumps = t._version - v
    for f in (_resize(n, fill)(gt), gt.compile(_resize(n, fill)(gt), backend=backend)):
        x = gt.arange(4.0)
        v = x._version
        got = f(x)
        assert x._version - v == bumps
        assert tuple(x.shape) == tuple(t.shape)
        kept = min(4, t.numel())   # the bytes resize_ kept; the rest is uninitialised memory
        assert x.reshape(-1)[:kept].tolist() == t.reshape(-1)[:kept].tolist()
        if fill:
            assert got.tolist() == want.tolist()
