"""Partitioners: default_partition saves what the backward reads; min_cut_rematerialization_partition recomputes
cheap pointwise ops instead when that saves fewer bytes; both give the same gradients."""

from __future__ import annotations

import pytest
from aot_helpers import assert_close

import glasstorch as gt
from glasstorch._functorch.aot_autograd import aot_module_simplified
from glasstorch._functorch.partitioners import (
    default_partition,
    is_recomputable,
    min_cut_rematerialization_partition,
    saved_bytes,
)
from glasstorch.fx.experimental.proxy_tensor import make_fx

aten = gt.ops.aten


def _compile(fn, inputs, partition_fn):
    """(compiled, graphs) where graphs collects the forward and backward GraphModules."""
    graphs = {}

    def fw(gm, ex):
        graphs["fw"] = gm
        return gm

    def bw(gm, ex):
        graphs["bw"] = gm
        return gm

    gm = make_fx(fn, tracing_mode="fake")(*inputs)
    return aot_module_simplified(gm, inputs, fw, bw, partition_fn=partition_fn), graphs


def _gelu_chain(x):
    return gt.nn.functional.gelu(gt.nn.functional.gelu(gt.nn.functional.gelu(x)))


def _run(fn, inputs, partition_fn):
    compiled, graphs = _compile(fn, inputs, partition_fn)
    out = compiled(*inputs)
    out.sum().backward()
    got = [x.grad for x in inputs]
    for x in inputs:
        x.grad = None
    return out, got, graphs


def _targets(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def test_gelu_chain_saved_counts():
    x = gt.randn(16, 32, requires_grad=True)
    _, g_default, default = _run(_gelu_chain, [x], default_partition)
    _, g_mincut, mincut = _run(_gelu_chain, [x], min_cut_rematerialization_partition)
    assert default["fw"].meta["num_saved"] == 3           # the input and both intermediate gelus
    assert mincut["fw"].meta["num_saved"] == 1            # only the input: the gelus are recomputed
    assert saved_bytes(mincut["fw"], 1) * 3 == saved_bytes(default["fw"], 1)
    assert _targets(mincut["bw"]).count(aten.gelu.default) == 2
    assert aten.gelu.default not in _targets(default["bw"])
    assert_close(g_default[0], g_mincut[0])
    ref_x = x.detach().requires_grad_()
    _gelu_chain(ref_x).sum().backward()
    assert_close(g_mincut[0], ref_x.grad)


def test_matmul_is_saved_not_recomputed():
    def f(x, w):
        return (x @ w).sin().cos()

    x, w = gt.randn(8, 4, requires_grad=True), gt.randn(4, 6, requires_grad=True)
    _, grads, graphs = _run(f, [x, w], min_cut_rematerialization_partition)
    mm_in_bw = _targets(graphs["bw"]).count(aten.mm.default)
    assert mm_in_bw == 2                                   # the two gradient matmuls, no recomputed forward mm
    saved = [n.name for n in graphs["fw"].graph.output_node().args[0][1:]]
    assert "mm" in saved and "sin" not in saved            # sin is recomputed from the saved mm
    ref = [t.detach().requires_grad_() for t in (x, w)]
    f(*ref).sum().backward()
    for a, b in zip(grads, ref, strict=True):
        assert_close(a, b.grad)


@pytest.mark.parametrize("partition_fn", [default_partition, min_cut_rematerialization_partition])
def test_partitions_agree_on_a_layer_norm_mlp(partition_fn):
    gt.manual_seed(0)
    ln, fc = gt.nn.LayerNorm(8), gt.nn.Linear(8, 8)
    x = gt.randn(4, 8, requires_grad=True)

    def f(x, w, b, lw, lb):
        h = gt.nn.functional.layer_norm(x, (8,), lw, lb)
        return gt.nn.functional.gelu(gt.nn.functional.linear(h, w, b)).tanh()

    inputs = [x, fc.weight, fc.bias, ln.weight, ln.bias]
    out, grads, graphs = _run(f, inputs, partition_fn)
    ref = [t.detach().requires_grad_() for t in inputs]
    ref_out = f(*ref)
    ref_out.sum().backward()
    assert_close(out, ref_out)
    for a, b in zip(grads, ref, strict=True):
        assert_close(a, b.grad, rtol=1e-5, atol=1e-6)
    assert not any(getattr(getattr(t, "_schema", None), "is_mutable", False) for t in _targets(graphs["bw"]))


def test_recomputable_classification():
    gm = make_fx(lambda x, w: (x @ w).relu().view(-1).sum(), tracing_mode="fake")(gt.randn(2, 3), gt.randn(3, 4))
    kinds = {n.target: is_recomputable(n) for n in gm.graph.nodes if n.op == "call_function"}
    assert kinds[aten.relu.default] and kinds[aten.view.default]
    assert not kinds[aten.mm.default] and not kinds[aten.sum.default]


def test_mincut_never_saves_more_than_default():
    def f(x, w):
        h = (x @ w).sigmoid() * 2
        return (h @ w.t()).exp().sum(1)

    x, w = gt.randn(6, 5, requires_grad=True), gt.randn(5, 5, requires_grad=True)
    _, _, d = _run(f, [x, w], default_partition)
    _, _, m = _run(f, [x, w], min_cut_rematerialization_partition)
    assert saved_bytes(m["fw"], 1) <= saved_bytes(d["fw"], 1)
