"""Graph breaks: the call runs eagerly and correctly, the break is recorded with its reason and user line, the
eager entry is cached (no retrace), ``fullgraph=True`` raises Unsupported, and ``explain`` cuts at each break."""

import inspect

import pytest
import torch

import glasstorch as gt
import glasstorch._dynamo as dynamo
from glasstorch._dynamo.exc import Unsupported


def _line_of(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def branchy(x):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    return y - 1


def with_item(x):
    s = x.sum().item()
    return x * s


def with_print(x):
    y = x.cos()
    print("y is", y.shape)
    return y + 1


def with_nonzero(x):
    return gt.nonzero(x > 0)


def two_breaks(lib):
    def fn(x):
        y = x.sin() * 2
        if y.sum() > 0:
            y = y + 1
        z = y.cos()
        n = z.sum().item()
        return z * n
    return fn


@pytest.mark.parametrize("fn, reason, marker", [
    (branchy, "Data-dependent branching", "if y.sum() > 0:"),
    (with_item, "Unsupported Tensor.item() call with capture_scalar_outputs=False", "x.sum().item()"),
    (with_print, "Failed to trace builtin operator", 'print("y is"'),
    (with_nonzero, "Dynamic shape operator", "gt.nonzero"),
])
def test_break_runs_eagerly_records_reason_and_line(fn, reason, marker, cnt, capsys):
    gt._logging.set_logs(graph_breaks=True)
    compiled = gt.compile(fn, backend=cnt)
    x = gt.tensor([1.0, -2.0, 3.0])
    expected = fn(x)
    capsys.readouterr()
    got = compiled(x)
    assert got.tolist() == expected.tolist()
    assert cnt.frame_count == 0
    assert dynamo.counters["graph_break"][reason] == 1
    err = capsys.readouterr()
    if fn is with_print:
        assert "y is" in err.out           # the print happened, once
        assert err.out.count("y is") == 1
    line = _line_of(fn, marker)
    assert f"Graph break in user code at {__file__}:{line}" in err.err
    assert f"Graph Break Reason: {reason}" in err.err
    entries = dynamo.cache_entries(compiled)
    assert len(entries) == 1 and entries[0].break_reason.reason == reason
    # the eager entry is cached: the same call neither retraces nor breaks again
    compiled(x)
    assert dynamo.counters["graph_break"][reason] == 1
    assert dynamo.counters["frames"]["total"] == 1


def test_fullgraph_raises_unsupported_naming_the_reason_and_line(cnt):
    compiled = gt.compile(with_item, backend=cnt, fullgraph=True)
    with pytest.raises(Unsupported) as info:
        compiled(gt.ones(3))
    assert info.value.reason == "Unsupported Tensor.item() call with capture_scalar_outputs=False"
    assert str(info.value).startswith("Unsupported Tensor.item() call with capture_scalar_outputs=False")
    assert f'line {_line_of(with_item, "x.sum().item()")}' in str(info.value)
    assert info.value.user_stack[-1].lineno == _line_of(with_item, "x.sum().item()")


def test_fullgraph_raise_matches_torch_exception_type():
    with pytest.raises(torch._dynamo.exc.Unsupported):
        torch.compile(two_breaks(torch), backend="eager", fullgraph=True)(torch.ones(3))
    with pytest.raises(gt._dynamo.exc.Unsupported):
        gt.compile(two_breaks(gt), backend="eager", fullgraph=True)(gt.ones(3))
    assert issubclass(gt._dynamo.exc.Unsupported, RuntimeError)


def test_explain_two_breaks_three_graphs():
    fn = two_breaks(gt)
    out = dynamo.explain(fn)(gt.ones(3))
    assert out.graph_count == 3 and len(out.graphs) == 3
    assert out.graph_break_count == 2
    assert [r.reason for r in out.break_reasons] == [
        "Data-dependent branching", "Unsupported Tensor.item() call with capture_scalar_outputs=False"]
    assert [r.user_stack[-1].lineno for r in out.break_reasons] == [
        _line_of(fn, "if y.sum() > 0:"), _line_of(fn, "n = z.sum().item()")]
    names = [[str(op) for op in ops] for ops in out.ops_per_graph]
    assert names == [["aten.sin.default", "aten.mul.Tensor", "aten.sum.default", "aten.gt.Scalar"],
                     ["aten.add.Tensor", "aten.cos.default", "aten.sum.default"],
                     ["aten.mul.Tensor"]]
    assert out.op_count == 8
    kinds = [g.create_fn_name for g in out.out_guards]
    assert "TENSOR_MATCH" in kinds and "GLOBAL_STATE" in kinds
    text = str(out)
    assert "Graph Count: 3\nGraph Break Count: 2\nOp Count: 8\nBreak Reasons:" in text
    assert "Ops per Graph:" in text and "Out Guards:" in text


def test_explain_counts_match_torch():
    ours = dynamo.explain(two_breaks(gt))(gt.ones(3))
    theirs = torch._dynamo.explain(two_breaks(torch))(torch.ones(3))
    assert (ours.graph_count, ours.graph_break_count) == (theirs.graph_count, theirs.graph_break_count)
    assert [r.reason.split("\n")[0] for r in ours.break_reasons][1] == \
        theirs.break_reasons[1].reason.split("\n")[0].strip()


def test_explain_print_break_and_graph_runs():
    def fn(x):
        a = x + 1
        print("between")
        return a * 3

    out = dynamo.explain(fn)(gt.ones(2))
    assert out.graph_count == 2 and out.graph_break_count == 1
    assert out.break_reasons[0].reason == "Failed to trace builtin operator"
    # each explain graph is runnable: the first one recomputes x + 1
    first = out.graphs[0]
    assert first(gt.ones(2))[0].tolist() == [2.0, 2.0]


def test_explain_module_without_breaks():
    model = gt.nn.Sequential(gt.nn.Linear(2, 2), gt.nn.ReLU())
    out = dynamo.explain(model)(gt.ones(1, 2))
    assert out.graph_count == 1 and out.graph_break_count == 0 and out.break_reasons == []
    assert any(g.name == "L['self'].0.training" or "training" in g.code_list[0] for g in out.out_guards)


def test_module_attribute_mutation_breaks_and_happens_once(cnt):
    class Counter(gt.nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, x):
            self.calls += 1
            return x + 1

    m = Counter()
    cm = gt.compile(m, backend=cnt)
    cm(gt.ones(1))
    cm(gt.ones(1))
    assert m.calls == 2 and cnt.frame_count == 0
    assert any("Mutating module attributes" in r for r in dynamo.counters["graph_break"])


def test_module_hooks_run_eagerly(cnt):
    m = gt.nn.Linear(2, 2)
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(out.shape))
    cm = gt.compile(m, backend=cnt)
    cm(gt.ones(1, 2))
    assert seen == [gt.Size([1, 2])] and cnt.frame_count == 0


def test_hook_added_after_compile_is_honoured(cnt):
    m = gt.nn.Linear(2, 2)
    cm = gt.compile(m, backend=cnt)
    cm(gt.ones(1, 2))
    assert cnt.frame_count == 1
    seen = []
    handle = m.register_forward_pre_hook(lambda mod, args: seen.append(1))
    cm(gt.ones(1, 2))
    assert seen == [1]
    handle.remove()
    cm(gt.ones(1, 2))
    assert seen == [1] and cnt.frame_count == 1


def test_user_exception_propagates_unchanged(cnt):
    @gt.compile(backend=cnt)
    def f(x):
        raise ValueError("user bug")

    with pytest.raises(ValueError, match="user bug"):
        f(gt.ones(1))


def test_grad_mode_change_inside_the_call(cnt):
    def f(x):
        with gt.no_grad():
            y = x * 2
        return y + x

    cf = gt.compile(f, backend=cnt)
    x = gt.ones(2, requires_grad=True)
    cf(x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]          # as eager: the no_grad product carries no gradient
    assert cnt.frame_count == 0
    assert dynamo.counters["graph_break"]["Grad mode changed inside the traced call"] == 1
    assert cf(gt.ones(2)).tolist() == [3.0, 3.0]   # nothing requires grad: no_grad changes nothing, one graph
    assert cnt.frame_count == 1


def test_batchnorm_internal_updates_do_not_break(cnt):
    m = gt.nn.BatchNorm1d(3)
    gt.compile(m, backend=cnt)(gt.randn(4, 3))
    assert cnt.frame_count == 1 and not dynamo.counters["graph_break"]
