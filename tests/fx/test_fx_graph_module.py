"""GraphModule against torch.fx: code and recompile, copied attributes, state_dict, printing, copies, pickling."""

from __future__ import annotations

import copy
import io
import operator

import numpy as np
import pytest
import torch
import torch.fx as tfx
from fx_models import build_gpt_block, build_mixed, build_nested, copy_weights, to_np
from fx_oracle import assert_same_code, normalize, trace_both

import glasstorch
import glasstorch.fx as gfx


def _swap_relu_for_sigmoid(gm, lib):
    for node in gm.graph.nodes:
        if node.op == "call_method" and node.target == "relu":
            with gm.graph.inserting_after(node):
                new = gm.graph.call_function(lib.sigmoid, node.args)
            node.replace_all_uses_with(new)
            gm.graph.erase_node(node)
    gm.recompile()


def test_recompile_after_editing_the_graph():
    gm_gt, gm_th = trace_both(build_nested)
    old_forward = type(gm_gt).forward
    _swap_relu_for_sigmoid(gm_gt, glasstorch)
    _swap_relu_for_sigmoid(gm_th, torch)
    assert_same_code(gm_gt, gm_th)
    assert "torch.sigmoid(" in gm_gt.code and type(gm_gt).forward is not old_forward
    copy_weights(gm_gt, gm_th)
    x = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)
    np.testing.assert_allclose(to_np(gm_gt(glasstorch.from_numpy(x))), to_np(gm_th(torch.from_numpy(x))),
                               rtol=1e-5, atol=1e-6)


def test_each_instance_has_its_own_class():
    gm1 = gfx.symbolic_trace(lambda x: x + 1)
    gm2 = gfx.symbolic_trace(lambda x: x * 3)
    assert type(gm1) is not type(gm2) and isinstance(gm1, gfx.GraphModule)
    assert type(gm1).__name__ == "<lambda>"
    x = glasstorch.ones(2)
    assert gm1(x).tolist() == [2.0, 2.0] and gm2(x).tolist() == [3.0, 3.0]
    gm3 = gfx.GraphModule(gm1, gm1.graph, "Renamed")
    assert type(gm3).__name__ == "Renamed" and type(gm3).__mro__[1] is gfx.GraphModule


def test_only_referenced_attributes_are_copied_and_shared():
    m = build_mixed(glasstorch)
    m.unused = glasstorch.nn.Linear(2, 2)
    gm = gfx.symbolic_trace(m)
    assert not hasattr(gm, "unused")
    assert gm.lin is m.lin and gm.scale is m.scale and gm.shift is m.shift
    assert sorted(gm.state_dict()) == sorted(tfx.symbolic_trace(build_mixed(torch)).state_dict())


def test_state_dict_round_trip_matches_torch_keys():
    gm_gt, gm_th = trace_both(build_gpt_block)
    assert list(gm_gt.state_dict()) == list(gm_th.state_dict())
    sd = {k: v * 0 for k, v in gm_gt.state_dict().items()}
    gm_gt.load_state_dict(sd)
    assert float(gm_gt.ln_1.weight.detach().abs().sum()) == 0.0


def test_graph_module_from_dict_root():
    g = gfx.Graph()
    x = g.placeholder("x")
    w = g.get_attr("sub.w")
    y = g.call_module("lin", (x,))
    g.output(g.call_function(operator.add, (y, w)))
    lin = glasstorch.nn.Linear(2, 2)
    gm = gfx.GraphModule({"sub.w": glasstorch.ones(2), "lin": lin}, g)
    assert gm.lin is lin and "sub.w" in dict(gm.named_buffers())
    np.testing.assert_allclose(to_np(gm(glasstorch.zeros(1, 2))), to_np(lin.bias + 1)[None])
    with pytest.raises(RuntimeError, match="referenced target lin but that target was not provided"):
        gfx.GraphModule({"sub.w": glasstorch.ones(2)}, g)
    with pytest.raises(RuntimeError, match="Unsupported type 3 passed for root!"):
        gfx.GraphModule(3, g)


def test_str_and_print_readable_match_torch():
    gm_gt, gm_th = trace_both(build_nested)
    assert repr(gm_gt) == repr(gm_th)
    assert str(gm_gt) == normalize(str(gm_th))
    assert gm_gt.print_readable(print_output=False) == normalize(gm_th.print_readable(print_output=False))


def test_print_readable_prints(capsys):
    gm = gfx.symbolic_trace(lambda x: x.neg())
    text = gm.print_readable()
    assert capsys.readouterr().out == text + "\n"
    assert text.startswith("class <lambda>(torch.nn.Module):\n    def forward(self, x):\n")


def test_deepcopy_is_independent():
    m = build_gpt_block(glasstorch)
    gm = gfx.symbolic_trace(m)
    gm2 = copy.deepcopy(gm)
    assert type(gm2).__name__ == "Block" and type(gm2) is not type(gm)
    assert gm2.code == gm.code and gm2.ln_1 is not gm.ln_1
    x = glasstorch.randn(2, 8, 16)
    np.testing.assert_array_equal(to_np(gm2(x)), to_np(gm(x)))
    with glasstorch.no_grad():
        gm2.ln_1.weight.mul_(0)
    assert not np.array_equal(to_np(gm2(x)), to_np(gm(x)))
    assert [n.name for n in gm2.graph.nodes] == [n.name for n in gm.graph.nodes]
    assert gm2.graph.owning_module is gm2


def test_shallow_copy_shares_modules():
    gm = gfx.symbolic_trace(build_nested(glasstorch))
    gm2 = copy.copy(gm)
    assert gm2.norm is gm.norm and gm2.code == gm.code


def test_save_and_load_retraces_the_code():
    m = build_mixed(glasstorch)
    gm = gfx.symbolic_trace(m)
    buf = io.BytesIO()
    glasstorch.save(gm, buf)
    buf.seek(0)
    gm2 = glasstorch.load(buf, weights_only=False)
    assert isinstance(gm2, gfx.GraphModule) and type(gm2).__name__ == "Mixed"
    assert gm2.code == gm.code
    x, y = glasstorch.randn(4, 4), glasstorch.randn(4, 4)
    for a, b in zip(gm2(x, y), gm(x, y), strict=True):
        np.testing.assert_array_equal(to_np(a), to_np(b))


def test_submodule_management_matches_torch():
    results = []
    for lib, fx in ((glasstorch, gfx), (torch, tfx)):
        gm = fx.symbolic_trace(build_nested(lib))
        assert gm.add_submodule("extra.deep", lib.nn.ReLU()) is True
        assert gm.add_submodule("norm.weight.x", lib.nn.ReLU()) is False
        assert gm.delete_submodule("nope") is False
        gm.delete_all_unused_submodules()
        results.append(sorted(n for n, _ in gm.named_modules()))
        assert gm.delete_submodule("norm") is True
    assert results[0] == results[1]
    assert "extra" not in results[0]


def test_graph_setter_recompiles_and_checks_type():
    gm = gfx.symbolic_trace(lambda x: x + 1)
    g = gfx.Graph()
    x = g.placeholder("x")
    g.output(g.call_function(operator.mul, (x, 10)))
    gm.graph = g
    assert gm(glasstorch.ones(1)).tolist() == [10.0] and g.owning_module is gm
    with pytest.raises(AssertionError, match="Expected a Graph instance"):
        gm.graph = "nope"


def test_backward_through_graph_module_matches_eager():
    m = build_gpt_block(glasstorch)
    gm = gfx.symbolic_trace(m)
    x = glasstorch.randn(2, 8, 16)
    m(x).pow(2).sum().backward()
    eager = {k: p.grad.clone() for k, p in m.named_parameters()}
    m.zero_grad()
    gm(x).pow(2).sum().backward()
    for k, p in m.named_parameters():
        np.testing.assert_allclose(to_np(p.grad), to_np(eager[k]), rtol=1e-6, atol=1e-7)


def test_empty_graph_and_passthrough():
    g = gfx.Graph()
    x = g.placeholder("x")
    g.output(x)
    gm = gfx.GraphModule(glasstorch.nn.Module(), g)
    assert gm.code == "\n\n\ndef forward(self, x):\n    return x\n    "
    t = glasstorch.ones(1)
    assert gm(t) is t
