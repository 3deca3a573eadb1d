"""Passes: dead-code elimination (keeps effects), common-subexpression elimination (never merges random or
mutating calls, stops at mutations), shape propagation (same metadata as torch.fx's ShapeProp)."""

from __future__ import annotations

import operator

import numpy as np
import pytest
import torch
import torch.fx as tfx
from fx_models import build_gpt_block, build_mixed, build_nested, to_np
from torch.fx.passes.shape_prop import ShapeProp as TorchShapeProp

import glasstorch
import glasstorch.fx as gfx
import glasstorch.nn.functional as F
from glasstorch.fx.passes import CSEPass, ShapeProp, dead_code_elimination, eliminate_common_subexpressions


def _ops(gm) -> list:
    return [n.name for n in gm.graph.nodes]


# -- dead code ---------------------------------------------------------------------------------------------------
def test_dce_removes_unused_pure_nodes_and_matches_torch():
    def f(x):
        a = x + 1  # unused
        a.relu()  # unused
        _ = x.shape  # unused getattr
        return x * 2
    names = []
    for fx in (gfx, tfx):
        gm = fx.symbolic_trace(f)
        assert gm.graph.eliminate_dead_code() is True
        gm.recompile()
        names.append(_ops(gm))
    assert names[0] == names[1] == ["x", "mul", "output"]


def test_dce_keeps_in_place_mutating_and_random_calls():
    def f(x, y):
        x.add_(1)  # in-place method
        F.relu(y, inplace=True)
        glasstorch.add(x, y, out=glasstorch.empty(2))
        glasstorch.rand_like(x)  # draws random numbers
        x + y  # really dead
        return x
    gm = gfx.symbolic_trace(f)
    with gm.graph.inserting_before(gm.graph.output_node()):
        gm.graph.call_function(operator.setitem, (next(iter(gm.graph.nodes)), 0, 5.0))
    assert dead_code_elimination(gm) is True
    assert _ops(gm) == ["x", "y", "add_", "relu", "_tensor_constant0", "add", "rand_like", "setitem", "output"]
    x, y = glasstorch.zeros(2), -glasstorch.ones(2)
    gm(x, y)
    assert x.tolist() == [5.0, 1.0] and y.tolist() == [0.0, 0.0]
    assert dead_code_elimination(gm) is False


def test_dce_with_custom_impurity_and_modules():
    m = glasstorch.nn.Sequential(glasstorch.nn.ReLU(inplace=True), glasstorch.nn.Linear(2, 2))

    class M(glasstorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = m[0]
            self.lin = m[1]

        def forward(self, x):
            self.act(x)  # in place: kept
            self.lin(x)  # pure, unused: removed
            return x
    gm = gfx.symbolic_trace(M())
    gm.graph.eliminate_dead_code()
    assert _ops(gm) == ["x", "act", "output"]
    gm2 = gfx.symbolic_trace(lambda x: (x.add_(1), x)[1])
    gm2.graph.eliminate_dead_code(is_impure_node=lambda n: n.op in ("placeholder", "output"))
    assert gm2.graph.find_nodes(op="call_method") == []


def test_node_is_impure():
    gm = gfx.symbolic_trace(lambda x: (x.add_(1), x.add(1), F.dropout(x)))
    with gm.graph.inserting_before(gm.graph.output_node()):
        gm.graph.call_function(operator.setitem, (next(iter(gm.graph.nodes)), 0, 1))
    by_name = {n.name: n for n in gm.graph.nodes}
    assert by_name["x"].is_impure() and by_name["output"].is_impure()
    assert by_name["add_"].is_impure() and not by_name["add"].is_impure()
    assert by_name["dropout"].is_impure() and not by_name["dropout"].is_impure(impure_random=False)
    assert by_name["setitem"].is_impure()


@gfx.has_side_effect
def _log_value(x):
    return None


def test_has_side_effect_registration():
    g = gfx.Graph()
    x = g.placeholder("x")
    g.call_function(_log_value, (x,))
    g.output(x)
    assert g.eliminate_dead_code() is False


# -- CSE ---------------------------------------------------------------------------------------------------------
def test_cse_merges_pure_repeats():
    def f(x):
        a = x.relu()
        b = x.relu()
        c = glasstorch.sigmoid(x) + glasstorch.sigmoid(x)
        d = x.sum(dim=0, keepdim=True) * x.sum(dim=0, keepdim=True)
        return a + b + c + d + x[0] + x[0]
    gm = gfx.symbolic_trace(f)
    x = glasstorch.randn(3, 3)
    ref = gm(x)
    result = CSEPass()(gm)
    assert result.modified is True and result.graph_module is not gm
    new = result.graph_module
    assert len(new.graph.find_nodes(op="call_method", target="relu")) == 1
    assert len(new.graph.find_nodes(op="call_function", target=glasstorch.sigmoid)) == 1
    assert len(new.graph.find_nodes(op="call_method", target="sum")) == 1
    assert len(new.graph.find_nodes(op="call_function", target=operator.getitem)) == 1
    np.testing.assert_array_equal(to_np(new(x)), to_np(ref))
    assert len(gm.graph.find_nodes(op="call_method", target="relu")) == 2  # the input is untouched


def test_cse_respects_argument_types_and_values():
    gm = gfx.symbolic_trace(lambda x: (x + 1, x + 1.0, x + True, x.sum(0), x.sum(1), x.sum(dim=0)))
    assert eliminate_common_subexpressions(gm.graph) is False


def test_cse_never_merges_random_or_in_place():
    def f(x):
        a = F.dropout(x, 0.5) + F.dropout(x, 0.5)
        b = glasstorch.rand_like(x) + glasstorch.rand_like(x)
        c = x.bernoulli() + x.bernoulli()
        return a, b, c
    gm = gfx.symbolic_trace(f)
    assert CSEPass()(gm).modified is False


def test_cse_stops_at_mutations():
    def f(x):
        a = x + 1
        x.mul_(2)  # a write: a and b below see different x
        b = x + 1
        v = x.view(-1)
        c = x * 3
        v.add_(1)  # a write through an alias
        d = x * 3
        return a, b, c, d
    gm = gfx.symbolic_trace(f)
    assert eliminate_common_subexpressions(gm.graph) is False
    gm.recompile()
    a, b, c, d = gm(glasstorch.ones(2))
    assert (a.tolist(), b.tolist(), c.tolist(), d.tolist()) == ([2.0] * 2, [3.0] * 2, [6.0] * 2, [9.0] * 2)


def test_cse_banned_ops_and_training_modules():
    gm = gfx.symbolic_trace(lambda x: glasstorch.exp(x) + glasstorch.exp(x))
    assert CSEPass(banned_ops={glasstorch.exp})(gm).modified is False
    root = glasstorch.nn.Module()
    root.bn = glasstorch.nn.BatchNorm1d(2)
    g = gfx.Graph()
    x = g.placeholder("x")
    mean = g.get_attr("bn.running_mean")
    a = g.call_function(operator.add, (mean, 0))
    y = g.call_module("bn", (x,))
    b = g.call_function(operator.add, (mean, 0))  # after the update: not the same value as a in training
    g.output((a, y, b))
    gm = gfx.GraphModule(root, g)
    assert eliminate_common_subexpressions(gm.graph) is False
    a_val, _, b_val = gm(glasstorch.ones(4, 2))
    assert a_val.tolist() != b_val.tolist()
    gm.eval()
    assert eliminate_common_subexpressions(gm.graph) is True


def test_cse_on_the_gpt_block_keeps_outputs():
    gm = gfx.symbolic_trace(build_gpt_block(glasstorch))
    x = glasstorch.randn(2, 8, 16)
    ref = gm(x)
    n_before = len(gm.graph.nodes)
    new = CSEPass()(gm).graph_module
    assert len(new.graph.nodes) == n_before - 2  # the three `C // H` floordivs are one
    np.testing.assert_array_equal(to_np(new(x)), to_np(ref))


# -- shape propagation -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("builder,shapes", [(build_mixed, [(4, 4), (4, 4)]), (build_nested, [(3, 6)]),
                                            (build_gpt_block, [(2, 8, 16)])])
def test_shape_prop_matches_torch(builder, shapes):
    gm_gt, gm_th = gfx.symbolic_trace(builder(glasstorch)), tfx.symbolic_trace(builder(torch))
    arrays = [np.random.default_rng(0).standard_normal(s).astype(np.float32) for s in shapes]
    ShapeProp(gm_gt).propagate(*[glasstorch.from_numpy(a) for a in arrays])
    TorchShapeProp(gm_th).propagate(*[torch.from_numpy(a) for a in arrays])
    for n_gt, n_th in zip(gm_gt.graph.nodes, gm_th.graph.nodes, strict=True):
        assert str(n_gt.meta.get("tensor_meta")) == str(n_th.meta.get("tensor_meta")), n_gt.name
        assert n_gt.meta["type"].__name__ == n_th.meta["type"].__name__


def test_shape_prop_memory_formats_and_errors():
    gm = gfx.symbolic_trace(lambda x: (x.permute(0, 2, 3, 1), x.transpose(0, 1), x.contiguous()))
    x = glasstorch.randn(2, 3, 4, 5).contiguous(memory_format=glasstorch.channels_last)
    ShapeProp(gm).propagate(x)
    metas = {n.name: n.meta["tensor_meta"] for n in gm.graph.nodes if "tensor_meta" in n.meta}
    assert metas["x"].memory_format == glasstorch.channels_last
    assert metas["permute"].memory_format == glasstorch.contiguous_format
    assert metas["transpose"].memory_format is None
    assert isinstance(metas["output"], tuple) and len(metas["output"]) == 3
    with pytest.raises(RuntimeError, match="ShapeProp error for: node=%permute"):
        ShapeProp(gm).propagate(glasstorch.randn(2, 3))
    with pytest.raises(NotImplementedError):
        ShapeProp(gm, fake_mode=object())


def test_cse_merges_repeated_attribute_reads():
    class M(glasstorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", glasstorch.arange(3.0))

        def forward(self, x):
            return (x + self.b) * (x + self.b)  # two get_attr nodes, then two identical adds
    gm = gfx.symbolic_trace(M())
    assert len(gm.graph.find_nodes(op="get_attr")) == 2
    assert eliminate_common_subexpressions(gm.graph) is True
    gm.recompile()
    assert len(gm.graph.find_nodes(op="get_attr")) == 1
    assert len(gm.graph.find_nodes(op="call_function", target=operator.add)) == 1
    assert gm(glasstorch.ones(3)).tolist() == [1.0, 4.0, 9.0]
