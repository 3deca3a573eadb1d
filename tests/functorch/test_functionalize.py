"""Functionalisation of aten graphs: in-place ops and writes through views become out-of-place ops, input
mutations become extra outputs, outputs aliasing inputs are described as view chains; the result computes
what the original graph computes."""

from __future__ import annotations

import operator

from aot_helpers import assert_close

import glasstorch as gt
from glasstorch._functorch.functionalize import functionalize_graph
from glasstorch.fx import Graph, GraphModule
from glasstorch.fx.experimental.proxy_tensor import make_fx

aten = gt.ops.aten


def _mutable(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"
            and getattr(getattr(n.target, "_schema", None), "is_mutable", False)]


def _run(fg, *inputs):
    """Run the functional graph and do the runtime's epilogue by hand: (user outputs, new input values)."""
    outs = fg.gm(*inputs)
    n = fg.num_mutations
    return list(outs[n:]), dict(zip(fg.mutated_inputs, outs[:n], strict=False))


def test_inplace_chain_on_intermediate():
    def f(x):
        y = x * 2
        y.add_(1)
        y.mul_(y)
        return y.sin()

    x = gt.randn(3, 4)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x))
    assert _mutable(fg.gm) == [] and fg.mutated_inputs == []
    outs, _ = _run(fg, x)
    assert_close(outs[0], f(x))


def test_write_through_views_updates_base_and_other_views():
    def f(x):
        y = x.clone()
        row = y[1]
        col = y[:, 2]
        row.mul_(10)            # through a select view
        col.zero_()             # through a strided slice view: row sees it too
        t = y.t()
        t[0].fill_(7)           # through a view of a view
        return y, row * 1, col + 0

    x = gt.randn(3, 4)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x))
    assert _mutable(fg.gm) == []
    outs, _ = _run(fg, x)
    for a, b in zip(outs, f(x), strict=True):
        assert_close(a, b)


def test_input_mutation_is_an_extra_output():
    def f(x, buf):
        buf.add_(x)
        buf[0] = 0
        return buf * 2

    x, buf = gt.randn(2, 3), gt.randn(2, 3)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x, buf))
    assert fg.mutated_inputs == [1] and _mutable(fg.gm) == []
    outs, new = _run(fg, x, buf)
    ref_buf = buf.clone()
    ref = f(x, ref_buf)
    assert_close(outs[0], ref)
    assert_close(new[1], ref_buf)
    assert_close(buf, buf)  # the functional graph left the real input alone


def test_outputs_aliasing_inputs_are_view_chains():
    def f(x):
        return x, x.transpose(0, 1)[1:], x.sum()

    x = gt.randn(3, 4)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x))
    kinds = [o.kind for o in fg.outputs]
    assert kinds == ["input", "input", "graph"]
    assert fg.outputs[0].chain == () and [s[0] for s in fg.outputs[1].chain] == [aten.transpose.int,
                                                                                  aten.slice.Tensor]


def test_split_views_and_mutation_of_one_piece():
    def f(x):
        y = x * 1
        a, b = y.split(2, dim=1)
        a.mul_(3)
        return y, b.clone()

    x = gt.randn(2, 4)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x))
    assert _mutable(fg.gm) == []
    outs, _ = _run(fg, x)
    for a, b in zip(outs, f(x), strict=True):
        assert_close(a, b)


def test_hand_built_graph_with_op_overloads():
    g = Graph()
    x = g.placeholder("x")
    y = g.call_function(aten.mul.Tensor, (x, 2.0))
    y2 = g.call_function(aten.relu_.default, (y,))
    z = g.call_function(aten.add_.Tensor, (x, y2))
    g.output((z, y2))
    gm = GraphModule({}, g)
    inp = gt.randn(5)
    for node, val in zip(list(g.nodes)[:4], _vals(gm, inp), strict=True):
        node.meta["val"] = val
    fg = functionalize_graph(gm)
    assert fg.mutated_inputs == [0] and _mutable(fg.gm) == []
    outs, new = _run(fg, inp)
    ref_in = inp.clone()
    ref = gm(ref_in)
    assert_close(new[0], ref_in)
    assert [o.kind for o in fg.outputs] == ["input", "graph"]
    assert_close(outs[0], ref[1])


def _vals(gm, inp):
    """The values of the hand-built graph's nodes, computed eagerly on a copy (as a real trace would record)."""
    x = inp.clone()
    y = x * 2.0
    return [x, y, y.relu_(), x.add_(y)]


def test_batch_norm_running_stats_rule():
    def f(x, w, b, rm, rv):
        return gt.nn.functional.batch_norm(x, rm, rv, w, b, training=True, momentum=0.3)

    x, w, b = gt.randn(6, 3), gt.randn(3), gt.randn(3)
    rm, rv = gt.zeros(3), gt.ones(3)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x, w, b, rm, rv))
    assert fg.mutated_inputs == [3, 4]
    assert aten.native_batch_norm.default not in [n.target for n in fg.gm.graph.nodes]
    outs, new = _run(fg, x, w, b, rm, rv)
    ref_rm, ref_rv = rm.clone(), rv.clone()
    assert_close(outs[0], f(x, w, b, ref_rm, ref_rv))
    assert_close(new[3], ref_rm)
    assert_close(new[4], ref_rv)


def test_ops_without_functional_form_run_on_private_copies():
    """uniform_/normal_/_foreach_mul_ have no out-of-place twin: they run on clones nobody else sees, in eager
    order (same random numbers), and the backward still sees the written values."""
    from glasstorch._functorch.aot_autograd import aot_function, nop

    def f(x, w):
        y = x * 1
        y.uniform_()
        z = [x.clone(), w.clone()]
        aten._foreach_mul_.Tensor(z, gt.tensor(3.0))
        e = w.clone()
        e.normal_()
        return (y + z[0]) * w + z[1] * e

    x, w = gt.randn(4, requires_grad=True), gt.randn(4, requires_grad=True)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x, w))
    copies = [n for n in fg.gm.graph.nodes if n.meta.get("aot_private_copy")]
    assert len(copies) == 4 and fg.mutated_inputs == []
    compiled = aot_function(f, nop)
    for _ in range(2):
        gt.manual_seed(3)
        out = compiled(x, w)
        out.sum().backward()
        got = (x.grad, w.grad)
        x.grad = w.grad = None
        gt.manual_seed(3)
        ref = f(x, w)
        ref.sum().backward()
        assert_close(out, ref)
        assert_close(got[0], x.grad)
        assert_close(got[1], w.grad)
        x.grad = w.grad = None


def test_out_variant_resizes_an_intermediate():
    def f(x):
        buf = x[:0] * 1                       # an empty intermediate, resized by the out= write
        gt.add(x, 1, out=buf)
        return buf * 2

    x = gt.randn(3, 3)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x))
    assert _mutable(fg.gm) == []
    outs, _ = _run(fg, x)
    assert_close(outs[0], (x + 1) * 2)


def test_getitem_of_multi_output_op_is_kept():
    def f(x):
        return gt.ops.aten.max.dim(x, 1)[0] * 2

    x = gt.randn(3, 4)
    fg = functionalize_graph(make_fx(f, tracing_mode="fake")(x))
    assert operator.getitem in [n.target for n in fg.gm.graph.nodes]
    outs, _ = _run(fg, x)
    assert_close(outs[0], f(x))
