"""Interpreter and Transformer against torch.fx: same results, same overridable hooks, same errors."""

from __future__ import annotations

import operator

import numpy as np
import pytest
import torch
import torch.fx as tfx
from fx_models import build_gpt_block, build_mixed, build_nested, to_np
from fx_oracle import assert_same_code, normalize, trace_both

import glasstorch
import glasstorch.fx as gfx


@pytest.mark.parametrize("builder,shapes", [(build_mixed, [(4, 4), (4, 4)]), (build_nested, [(3, 6)]),
                                            (build_gpt_block, [(2, 8, 16)])])
def test_interpreter_equals_graph_module(builder, shapes):
    gm = gfx.symbolic_trace(builder(glasstorch))
    args = [glasstorch.randn(*s) for s in shapes]
    out, ref = gfx.Interpreter(gm).run(*args), gm(*args)
    for a, b in zip(out if isinstance(out, tuple) else [out], ref if isinstance(ref, tuple) else [ref], strict=True):
        np.testing.assert_array_equal(to_np(a), to_np(b))


def _swap(fx):
    class NegSigmSwap(fx.Interpreter):
        def call_function(self, target, args, kwargs):
            if target is self.sigmoid_fn:
                return args[0].neg()
            return super().call_function(target, args, kwargs)

        def call_method(self, target, args, kwargs):
            if target == "neg":
                return args[0].sigmoid()
            return super().call_method(target, args, kwargs)
    return NegSigmSwap


def _sigmoid_neg(lib):
    return lambda t: lib.sigmoid(t).neg()


def test_overriding_hooks_matches_torch():
    x = np.linspace(-2, 2, 5).astype(np.float32)
    outs = []
    for lib, fx in ((glasstorch, gfx), (torch, tfx)):
        gm = fx.symbolic_trace(_sigmoid_neg(lib))
        interp = _swap(fx)(gm)
        interp.sigmoid_fn = lib.sigmoid
        outs.append(to_np(interp.run(lib.from_numpy(x.copy()))))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)
    np.testing.assert_allclose(outs[0], 1 / (1 + np.exp(x)), rtol=1e-6)


def test_environment_is_kept_without_garbage_collection():
    gm = gfx.symbolic_trace(lambda x: (x + 1) * 2)
    interp = gfx.Interpreter(gm, garbage_collect_values=False)
    interp.run(glasstorch.ones(1))
    assert {n.name: v.tolist() for n, v in interp.env.items()} == {"x": [1.0], "add": [2.0], "mul": [4.0],
                                                                     "output": [4.0]}
    interp = gfx.Interpreter(gm)
    interp.run(glasstorch.ones(1))
    assert [n.name for n in interp.env] == ["output"]


def test_initial_env_and_boxed_run():
    gm = gfx.symbolic_trace(lambda x, y: x * y)
    nodes = list(gm.graph.nodes)
    out = gfx.Interpreter(gm).run(initial_env={nodes[0]: glasstorch.full((1,), 3.0), nodes[1]: glasstorch.ones(1)})
    assert out.tolist() == [3.0]
    args = [glasstorch.ones(1) * 2, glasstorch.ones(1) * 5]
    assert gfx.Interpreter(gm).boxed_run(args).tolist() == [10.0] and args == []
    msgs = []
    for fx, lib in ((gfx, glasstorch), (tfx, torch)):
        g = fx.symbolic_trace(lambda x, y: x * y)
        with pytest.raises(RuntimeError) as e:
            fx.Interpreter(g).boxed_run([lib.ones(1)])
        msgs.append(str(e.value))
        with pytest.raises(RuntimeError) as e:
            fx.Interpreter(g).run(lib.ones(1))
        msgs.append(str(e.value).split("\n")[0])
    assert msgs[:2] == msgs[2:]
    assert msgs[1] == "Expected positional argument for parameter y, but one was not passed in!"


def test_errors_name_the_failing_node():
    gm = gfx.symbolic_trace(lambda x: x.view(5))
    with pytest.raises(RuntimeError) as e:
        gfx.Interpreter(gm).run(glasstorch.ones(2, 3))
    assert "While executing %view : [num_users=1] = call_method[target=view](args = (%x, 5), kwargs = {})" \
        in str(e.value)
    g = gfx.Graph()
    g.output(g.get_attr("nope"))
    with pytest.raises(RuntimeError, match="Node referenced nonexistent target nope"):
        gfx.Interpreter(glasstorch.nn.Module(), graph=g).run()


def test_transformer_identity_reproduces_the_code():
    for builder in (build_mixed, build_nested):
        gm = gfx.symbolic_trace(builder(glasstorch))
        new = gfx.Transformer(gm).transform()
        assert new.code == gm.code


def _neg_to_sigmoid(fx):
    class T(fx.Transformer):
        def call_method(self, target, args, kwargs):
            if target == "relu":
                return args[0].sigmoid()
            return super().call_method(target, args, kwargs)

        def call_function(self, target, args, kwargs):
            if target is operator.add:
                return super().call_function(operator.sub, args, kwargs)
            return super().call_function(target, args, kwargs)
    return T


def test_transformer_rewrite_matches_torch():
    gm_gt, gm_th = trace_both(build_nested)
    new_gt = _neg_to_sigmoid(gfx)(gm_gt).transform()
    new_th = _neg_to_sigmoid(tfx)(gm_th).transform()
    assert_same_code(new_gt, new_th)
    assert "sigmoid" in new_gt.code and " - " in new_gt.code
    assert str(new_gt.graph) == normalize(str(new_th.graph))
