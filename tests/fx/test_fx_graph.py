"""Graph and Node APIs against torch.fx: building by hand, naming, rewriting, copying, lint, printing."""

from __future__ import annotations

import copy
import operator

import pytest
import torch
import torch.fx as tfx
from fx_oracle import normalize

import glasstorch
import glasstorch.fx as gfx

LIBS = {"gt": (glasstorch, gfx), "th": (torch, tfx)}


def build_by_hand(lib, fx):
    """The same sequence of Graph calls in either library; returns the graph and its nodes by name."""
    g = fx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y", default_value=None)
    a = g.call_function(operator.add, (x, 1))
    b = g.call_function(operator.add, (a, 1))
    c = g.call_function(operator.add, (b, 2), name="add_1")  # taken by b: this one becomes add_2
    d = g.call_method("__add__", (c, 1))
    e = g.call_function(lib.relu, (d,))
    f = g.call_function(getattr, (x, "shape"))
    h = g.call_function(len, (f,))
    i = g.create_node("call_function", operator.mul, (e, h), name="1abc")
    j = g.call_function(lib.ops.aten.sum.default, (i,))
    k = g.call_method("fooBar", (j,), {"dim": [0, 1], "keepdim": True})
    m = g.call_function(lib.cat, ([k, k],), {"dim": 0})
    g.output((m, {"a": e, "b": [x, slice(None, 2)]}, y))
    return g, {n.name: n for n in g.nodes}


def both():
    return build_by_hand(glasstorch, gfx), build_by_hand(torch, tfx)


def test_names_str_and_code_match_torch():
    (g_gt, n_gt), (g_th, n_th) = both()
    assert list(n_gt) == list(n_th)
    assert list(n_gt)[:6] == ["x", "y", "add", "add_1", "add_2", "add_3"]  # "add_1" was taken: the third is add_2
    assert str(g_gt) == normalize(str(g_th))
    assert g_gt.python_code("self").src == normalize(g_th.python_code("self").src)
    for name in n_gt:
        assert n_gt[name].format_node() == normalize(n_th[name].format_node())
        assert [u.name for u in n_gt[name].users] == [u.name for u in n_th[name].users]
        assert [u.name for u in n_gt[name].all_input_nodes] == [u.name for u in n_th[name].all_input_nodes]


def test_generated_code_runs():
    g = gfx.Graph()
    x = g.placeholder("x")
    a = g.call_function(operator.add, (x, 1))
    s = g.call_method("sum", (a,), {"dim": [0, 1], "keepdim": True})
    c = g.call_function(glasstorch.cat, ([s, s],), {"dim": 0})
    g.output((c, {"b": [x, slice(None, 2)]}))
    out, d = gfx.GraphModule(glasstorch.nn.Module(), g)(glasstorch.ones(2, 3))
    assert out.tolist() == [[12.0], [12.0]] and d["b"][1] == slice(None, 2)


def test_args_are_immutable_and_reassignment_updates_users():
    for lib, fx in LIBS.values():
        g, n = build_by_hand(lib, fx)
        with pytest.raises(TypeError) as err:
            n["cat"].args[0].append(n["x"])
        assert "'immutable_list' object does not support mutation" in str(err.value)
        with pytest.raises(TypeError):
            n["foo_bar"].kwargs["dim"] = 1
        n["add_1"].args = (n["x"], n["x"])
        assert list(n["add"].users) == []
        assert list(n["x"].users)[-1] is n["add_1"]
        assert n["add_1"].all_input_nodes == [n["x"]]


def _erase_errors(lib, fx) -> list:
    g, n = build_by_hand(lib, fx)
    msgs = []
    with pytest.raises(RuntimeError) as e:
        g.erase_node(n["add"])
    msgs.append(str(e.value))
    with pytest.raises(RuntimeError) as e:
        fx.Graph().erase_node(n["output"])
    msgs.append(str(e.value))
    return msgs


def test_erase_node_errors_match_torch():
    gt, th = _erase_errors(glasstorch, gfx), _erase_errors(torch, tfx)
    assert gt == th
    assert gt[0] == "Tried to erase Node add but it still had 1 users in the graph: {add_1: None}!"
    assert gt[1] == "Attempting to remove output from wrong graph!"


def test_erase_and_iterate():
    g, n = build_by_hand(glasstorch, gfx)
    g.erase_node(n["output"])
    for node in reversed(g.nodes):  # erasing while iterating, users before inputs
        if node.op != "placeholder":
            g.erase_node(node)
    assert [x.name for x in g.nodes] == ["x", "y"]
    assert len(g.nodes) == 2 and list(n["x"].users) == []


def test_insert_points_and_moves():
    for _, fx in LIBS.values():
        g = fx.Graph()
        x = g.placeholder("x")
        out = g.call_function(operator.neg, (x,))
        g.output(out)
        with g.inserting_before(out):
            a = g.call_function(operator.add, (x, 1))
        with g.inserting_after(x):
            b = g.call_function(operator.mul, (x, 2))
        out.args = (a,)
        assert [n.name for n in g.nodes] == ["x", "mul", "add", "neg", "output"]
        out.prepend(b)  # move
        a.append(b)
        assert [n.name for n in g.nodes] == ["x", "add", "mul", "neg", "output"]
        assert b.prev is a and b.next is out
        with g.inserting_before(None):
            c = g.placeholder("z")
        assert next(iter(g.nodes)) is c
        g.lint()


def test_replace_uses_and_inputs():
    for lib, fx in LIBS.values():
        g, n = build_by_hand(lib, fx)
        changed = n["add"].replace_all_uses_with(n["x"])
        assert [u.name for u in changed] == ["add_1"]
        assert n["add_1"].args == (n["x"], 1) and len(n["add"].users) == 0
        n["relu"].replace_input_with(n["add_3"], n["x"])
        assert n["relu"].args == (n["x"],)
        kept = n["relu"].replace_all_uses_with(n["x"], delete_user_cb=lambda u: u.op != "output")
        assert [u.name for u in kept] == ["_1abc"]  # the node named "1abc", made an identifier
        assert n["output"].args[0][1]["a"] is n["relu"]


def test_node_copy_graph_copy_and_deepcopy():
    g, n = build_by_hand(glasstorch, gfx)
    g2 = gfx.Graph()
    val_map: dict = {}
    out = g2.graph_copy(g, val_map)
    g2.output(out)
    assert str(g2) == str(g)
    g3 = copy.deepcopy(g)
    assert str(g3) == str(g) and next(iter(g3.nodes)) is not next(iter(g.nodes))
    n["add"].meta["k"] = 1
    g4 = gfx.Graph()
    x4 = g4.node_copy(n["x"])
    a4 = g4.node_copy(n["add"], lambda old: x4)
    assert a4.args == (x4, 1) and a4.meta == {"k": 1} and a4.meta is not n["add"].meta


def test_lint_errors_match_torch():
    msgs = []
    for _, fx in LIBS.values():
        g = fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(operator.add, (x, 1))
        b = g.call_function(operator.mul, (a, 2))
        g.output(b)
        a.append(x)  # x now comes after its user
        with pytest.raises(RuntimeError) as e:
            g.lint()
        msgs.append(str(e.value))
        other = fx.Graph()
        stray = other.placeholder("stray")
        g2 = fx.Graph()
        g2.output(g2.call_function(operator.neg, (stray,)))
        with pytest.raises(RuntimeError) as e2:
            g2.lint()
        msgs.append(str(e2.value).split("!")[0])
    assert msgs[0] == normalize(msgs[2])
    assert msgs[1] == msgs[3]
    assert msgs[0].startswith("Argument 'x' of Node 'add' was used before it has been defined!")


def test_lint_checks_targets_of_owning_module():
    g = gfx.Graph()
    x = g.placeholder("x")
    g.output(g.call_module("missing", (x,)))
    with pytest.warns(UserWarning, match="Attempted to insert a call_module Node"):
        gm_graph = gfx.Graph(owning_module=glasstorch.nn.Module())
        gm_graph.call_module("nope", ())
    g.owning_module = glasstorch.nn.Module()
    with pytest.raises(RuntimeError, match="Node missing target missing references nonexistent attribute missing of "):
        g.lint()


def _target_errors(fx) -> list:
    errs = []
    g = fx.Graph()
    with pytest.raises(ValueError) as e:
        g.create_node("call_function", "not callable")
    errs.append(str(e.value))
    with pytest.raises(ValueError) as e:
        g.create_node("call_method", operator.add)
    errs.append(str(e.value))
    return errs


def test_node_target_type_errors_match_torch():
    gt, th = _target_errors(gfx), _target_errors(tfx)
    assert gt == th
    assert gt[1].endswith("target <built-in function add> has type _operator.add but a str is expected")


def test_map_arg_and_map_aggregate():
    for _, fx in LIBS.values():
        g = fx.Graph()
        x = g.placeholder("x")
        a = (1, [x, {"k": x}], slice(x, None), "s")
        out = fx.map_arg(a, lambda n: n.name)
        assert out == (1, ["x", {"k": "x"}], slice("x", None, None), "s")
        counted: list = []
        fx.node.map_aggregate(a, counted.append)
        assert counted == [1, x, x, x, None, None, "s"]
        with pytest.raises(AssertionError, match="fn must be a callable"):
            fx.map_arg(a, 3)


def test_print_tabular():
    g, _ = build_by_hand(glasstorch, gfx)
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        g.print_tabular()
    lines = buf.getvalue().splitlines()
    assert lines[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert lines[2].split() == ["placeholder", "x", "x", "()", "{}"]
    assert len(lines) == 2 + len(g.nodes)


def test_placeholder_default_and_signature():
    g = gfx.Graph()
    g.placeholder("x")
    g.placeholder("k", default_value=3)
    g.output(None)
    assert "def forward(self, x, k = 3):" in g.python_code("self").src


def test_eliminate_dead_code_matches_torch_on_pure_graphs():
    for lib, fx in LIBS.values():
        g, n = build_by_hand(lib, fx)
        g.output_node().args = ((n["x"],),)
        assert g.eliminate_dead_code() is True
        assert [x.name for x in g.nodes] == ["x", "y", "output"]
        assert g.eliminate_dead_code() is False


def test_find_nodes_and_output_node():
    g, n = build_by_hand(glasstorch, gfx)
    assert g.find_nodes(op="call_function", target=operator.add) == [n["add"], n["add_1"], n["add_2"]]
    assert g.find_nodes(op="placeholder") == [n["x"], n["y"]]
    assert g.output_node() is n["output"]
