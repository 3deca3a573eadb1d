"""The compile API: functions, decorators, OptimizedModule, Module.compile, backends, modes, errors."""

import logging
import subprocess
import sys

import pytest
import torch

import glasstorch as gt
import glasstorch._dynamo as dynamo
from glasstorch._dynamo import config
from glasstorch._dynamo.eval_frame import OptimizedModule
from glasstorch._dynamo.exc import BackendCompilerFailed, InvalidBackend


def test_function_and_decorator_forms(cnt):
    def f(x):
        return x.relu() + 1

    cf = gt.compile(f, backend=cnt)
    assert cf(gt.tensor([-1.0, 2.0])).tolist() == [1.0, 3.0]
    assert cf.__name__ == "f" and cf.__wrapped__ is f

    @gt.compile
    def g(x):
        return x * 2
    assert callable(g)

    @gt.compile(backend=cnt)
    def h(x):
        return x - 1
    assert h(gt.ones(2)).tolist() == [0.0, 0.0]
    assert cnt.frame_count == 2


def test_optimized_module_wraps_the_original():
    gm = gt.nn.Sequential(gt.nn.Linear(2, 3), gt.nn.ReLU())
    tm = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    c_gt, c_th = gt.compile(gm, backend="eager"), torch.compile(tm, backend="eager")
    assert isinstance(c_gt, OptimizedModule) and isinstance(c_gt, gt.nn.Module)
    assert c_gt._orig_mod is gm
    assert list(c_gt.state_dict()) == list(c_th.state_dict()) == ["_orig_mod.0.weight", "_orig_mod.0.bias"]
    assert [n for n, _ in c_gt.named_parameters()] == [n for n, _ in c_th.named_parameters()]
    assert repr(c_gt).startswith("OptimizedModule(\n  (_orig_mod): Sequential(")
    gm.custom_attr = 5
    assert c_gt.custom_attr == 5                  # attribute reads reach the original
    with pytest.raises(TypeError):
        c_th[0]                                   # as in PyTorch, dunder methods are not forwarded
    with pytest.raises(TypeError):
        c_gt[0]
    c_gt.eval()
    assert not gm.training and not gm[0].training and not c_gt.training
    c_gt.train()
    assert gm.training and gm[1].training
    sd = {k: v.clone() for k, v in c_gt.state_dict().items()}
    c_gt.load_state_dict(sd)


def test_module_compile_in_place(cnt):
    gm = gt.nn.Linear(2, 2)
    tm = torch.nn.Linear(2, 2)
    assert gm.compile(backend=cnt) is None
    tm.compile(backend="eager")
    assert list(gm.state_dict()) == list(tm.state_dict()) == ["weight", "bias"]
    x = gt.ones(3, 2)
    y = gm(x)
    assert cnt.frame_count == 1
    assert y.tolist() == gm._call_impl(x).tolist()
    gm(x)
    assert cnt.frame_count == 1


def test_compile_method_decorator_binds_self(cnt):
    class M(gt.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = gt.nn.Linear(2, 2)

        @gt.compile(backend=cnt)
        def forward(self, x):
            return self.fc(x)

    a, b = M(), M()
    x = gt.ones(1, 2)
    assert a(x).tolist() == a.fc(x).tolist()
    assert b(x).tolist() == b.fc(x).tolist()
    assert cnt.frame_count == 2          # two modules: identity-guarded, two entries of one code object
    placeholders = [n.name for n in cnt.graphs[0].graph.nodes if n.op == "placeholder"]
    assert placeholders[:2] == ["p_fc_weight", "p_fc_bias"]


def test_invalid_backend_matches_torch():
    with pytest.raises(torch._dynamo.exc.InvalidBackend) as th:
        torch.compile(lambda x: x, backend="nope")
    with pytest.raises(InvalidBackend) as ours:
        gt.compile(lambda x: x, backend="nope")
    assert str(ours.value) == str(th.value)


@pytest.mark.parametrize("kwargs", [{"mode": "fastest"}, {"mode": "default", "options": {}}])
def test_mode_errors_match_torch(kwargs):
    with pytest.raises(RuntimeError) as th:
        torch.compile(lambda x: x, **kwargs)
    with pytest.raises(RuntimeError) as ours:
        gt.compile(lambda x: x, **kwargs)
    assert str(ours.value) == str(th.value)


def test_disable_returns_the_model_unchanged():
    f = lambda x: x  # noqa: E731
    assert gt.compile(f, disable=True) is f


def test_list_backends():
    assert dynamo.list_backends() == ["inductor"]
    assert {"eager", "aot_eager", "inductor"} <= set(dynamo.list_backends(exclude_tags=None))


def test_backend_failure_raises_backend_compiler_failed():
    def bad(gm, example_inputs):
        raise RuntimeError("no compiler here")

    with pytest.raises(torch._dynamo.exc.BackendCompilerFailed) as th:
        torch.compile(lambda x: x * 2, backend=bad)(torch.ones(2))
    with pytest.raises(BackendCompilerFailed) as ours:
        gt.compile(lambda x: x * 2, backend=bad)(gt.ones(2))
    first = "backend='bad' raised:\nRuntimeError: no compiler here"
    assert str(th.value).startswith(first) and str(ours.value).startswith(first)
    assert isinstance(ours.value, RuntimeError)


def test_backend_failure_with_suppress_errors_runs_eagerly(caplog):
    calls = []

    def bad(gm, example_inputs):
        calls.append(1)
        raise RuntimeError("no C compiler found")

    f = gt.compile(lambda x: x * 2, backend=bad)
    with config.patch(suppress_errors=True), caplog.at_level(logging.WARNING, logger="glasstorch._dynamo"):
        assert f(gt.ones(2)).tolist() == [2.0, 2.0]
        assert f(gt.ones(2)).tolist() == [2.0, 2.0]
    assert len(calls) == 1     # the eager fallback is cached
    assert any("no C compiler found" in r.getMessage() for r in caplog.records)


_SCRIPT = """
import torch
import torch._dynamo
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
cm = torch.compile(model, backend="eager")
x = torch.ones(2, 4)
assert bool((cm(x) == model(x)).all())
assert list(cm.state_dict())[0] == "_orig_mod.0.weight"
print(torch.__name__, type(cm).__name__, torch._dynamo.__name__, torch._dynamo.explain(model)(x).graph_count)
torch._dynamo.reset()
"""


def test_unmodified_torch_script_through_compat(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(_SCRIPT)
    run = subprocess.run([sys.executable, "-m", "glasstorch.compat", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["glasstorch", "OptimizedModule", "glasstorch._dynamo", "1"]
    assert gt.compile is gt._dynamo.eval_frame.compile


def test_nested_compiled_module_is_inlined(cnt):
    inner = gt.nn.Linear(2, 2)
    inner.compile(backend=cnt)
    outer = gt.nn.Sequential(inner, gt.nn.ReLU())
    seen = []

    class Probe(gt.nn.Module):
        def forward(self, x):
            seen.append(dynamo.is_compiling())
            return x

    outer.append(Probe())
    y = gt.compile(outer, backend=cnt)(gt.ones(1, 2))
    assert cnt.frame_count == 1          # one graph for the outer call; the inner compile ran inline
    assert y.tolist() == outer(gt.ones(1, 2)).tolist()
    assert seen[0] is True and seen[-1] is False and not dynamo.is_compiling()


def test_dynamic_true_warns_and_specialises():
    import warnings

    with pytest.warns(UserWarning, match=r"dynamic=True\): dynamic shapes are not supported yet"):
        f = gt.compile(lambda x: x * 2, backend="eager", dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # None (the default) and False say nothing
        gt.compile(lambda x: x, backend="eager")
        gt.compile(lambda x: x, backend="eager", dynamic=False)
    assert f(gt.ones(3)).tolist() == [2.0, 2.0, 2.0] and f(gt.ones(5)).shape == (5,)
