"""Guards: a compiled entry is reused exactly while everything the trace depended on is unchanged.

Each scenario counts backend calls (one per compiled graph); where PyTorch guards the same thing, the count is
checked against real ``torch.compile(backend=<counter>, dynamic=False)`` running the same scenario.
"""

import logging

import pytest
import torch

import glasstorch as gt
import glasstorch._dynamo as dynamo
from glasstorch._dynamo import config
from glasstorch._dynamo.exc import FailOnRecompileLimitHit, RecompileError


class Net:
    """The same two-layer model in both libraries (built per library)."""

    @staticmethod
    def build(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(3, 4)
                self.drop = lib.nn.Dropout(0.5)

            def forward(self, x):
                return self.drop(self.fc(x)).sum(-1)
        lib.manual_seed(0)
        return M()


class TorchCounter:
    def __init__(self):
        self.frame_count = 0

    def __call__(self, gm, example_inputs):
        self.frame_count += 1
        return gm.forward


def _scenario_no_dtype(lib, counter):
    model = Net.build(lib)
    cm = lib.compile(model, backend=counter, dynamic=False)
    counts = []
    steps = [lambda: cm(lib.ones(2, 3)), lambda: cm(lib.ones(2, 3)), lambda: cm(lib.ones(5, 3)),
             lambda: cm(lib.ones(2, 3)), lambda: cm.eval(), lambda: cm(lib.ones(2, 3)),
             lambda: cm(lib.ones(2, 3)), lambda: cm.train(), lambda: cm(lib.ones(2, 3))]
    for step in steps:
        step()
        counts.append(counter.frame_count)
    with lib.no_grad():
        cm(lib.ones(2, 3))
        counts.append(counter.frame_count)
    cm(lib.ones(2, 3, requires_grad=True))
    counts.append(counter.frame_count)
    cm(lib.ones(3, 2).t())
    counts.append(counter.frame_count)
    cm(lib.ones(2, 3))
    counts.append(counter.frame_count)
    return counts


def test_recompile_counts_match_torch_compile():
    ours = _scenario_no_dtype(gt, TorchCounter())
    theirs = _scenario_no_dtype(torch, TorchCounter())
    assert ours == theirs
    assert ours == [1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 5, 6, 6]


def test_new_dtype_recompiles(cnt):
    @gt.compile(backend=cnt)
    def f(x):
        return x * 2

    f(gt.ones(3))
    f(gt.ones(3, dtype=gt.float64))
    f(gt.ones(3, dtype=gt.float64))
    f(gt.ones(3))
    assert cnt.frame_count == 2


def test_new_parameter_object_recompiles_and_uses_it(cnt):
    model = gt.nn.Linear(2, 2)
    cm = gt.compile(model, backend=cnt)
    x = gt.ones(1, 2)
    cm(x)
    model.weight = gt.nn.Parameter(gt.zeros(2, 2))
    y = cm(x)
    assert cnt.frame_count == 2
    assert y.tolist() == [model.bias.tolist()]
    # an in-place update of the same parameter (what optimizers do) needs no recompile and is seen
    with gt.no_grad():
        model.weight.add_(1.0)
    assert cm(x).tolist() == [pytest.approx([v + 2.0 for v in model.bias.tolist()], rel=1e-6)]
    assert cnt.frame_count == 2


def test_parameter_requires_grad_change_recompiles(cnt):
    model = gt.nn.Linear(2, 2)
    cm = gt.compile(model, backend=cnt)
    cm(gt.ones(1, 2))
    model.weight.requires_grad_(False)
    cm(gt.ones(1, 2))
    assert cnt.frame_count == 2


def test_non_tensor_inputs_are_specialised(cnt):
    @gt.compile(backend=cnt)
    def f(x, n, mode):
        return x * n if mode == "mul" else x + n

    assert f(gt.ones(2), 3, "mul").tolist() == [3.0, 3.0]
    assert f(gt.ones(2), 3, "mul").tolist() == [3.0, 3.0]
    assert f(gt.ones(2), 4, "mul").tolist() == [4.0, 4.0]
    assert f(gt.ones(2), 4, "add").tolist() == [5.0, 5.0]
    assert f(gt.ones(2), 4.0, "add").tolist() == [5.0, 5.0]   # int 4 and float 4.0 are different guards
    assert cnt.frame_count == 4


def test_aliased_inputs_are_guarded(cnt):
    @gt.compile(backend=cnt)
    def f(a, b):
        a.add_(1)
        return a + b

    x, y = gt.zeros(2), gt.zeros(2)
    assert f(x, y).tolist() == [1.0, 1.0]
    z = gt.zeros(2)
    assert f(z, z).tolist() == [2.0, 2.0]      # same object twice: a different graph
    assert cnt.frame_count == 2


def test_autocast_state_is_guarded(cnt):
    @gt.compile(backend=cnt)
    def f(x, w):
        return x @ w

    x, w = gt.ones(2, 2), gt.ones(2, 2)
    assert f(x, w).dtype == gt.float32
    with gt.autocast("cpu", dtype=gt.bfloat16):
        assert f(x, w).dtype == gt.bfloat16
    assert cnt.frame_count == 2
    assert f(x, w).dtype == gt.float32
    assert cnt.frame_count == 2


def test_recompile_limit_warns_once_then_runs_eagerly(cnt, caplog):
    @gt.compile(backend=cnt)
    def f(x):
        return x + 1

    with caplog.at_level(logging.WARNING, logger="glasstorch._dynamo"):
        for n in range(1, 12):
            assert f(gt.ones(n)).tolist() == [2.0] * n
    assert cnt.frame_count == 8
    warnings = [r.getMessage() for r in caplog.records if "cache_size_limit" in r.getMessage()]
    assert len(warnings) == 1
    text = warnings[0]
    assert text.startswith("glasstorch._dynamo hit config.cache_size_limit (8)")
    assert "function: 'f'" in text and "last reason: 0/7: tensor 'x' size mismatch at index 0. expected 8, actual 9" \
        in text
    assert f(gt.ones(3)).tolist() == [2.0] * 3     # a cached shape still runs its compiled entry
    assert cnt.frame_count == 8


def test_recompile_limit_is_configurable_and_can_fail(cnt):
    @gt.compile(backend=cnt)
    def f(x):
        return x + 1

    with config.patch(cache_size_limit=2, fail_on_recompile_limit_hit=True):
        f(gt.ones(1))
        f(gt.ones(2))
        with pytest.raises(FailOnRecompileLimitHit):
            f(gt.ones(3))
    assert config.recompile_limit == config.cache_size_limit == 8


def test_error_on_recompile(cnt):
    f = gt.compile(lambda x: x - 1, backend=cnt)
    f(gt.ones(1))
    with config.patch(error_on_recompile=True), pytest.raises(RecompileError):
        f(gt.ones(2))


def test_reset_clears_every_cache(cnt):
    f = gt.compile(lambda x: x * 3, backend=cnt)
    f(gt.ones(2))
    f(gt.ones(2))
    assert cnt.frame_count == 1 and len(dynamo.cache_entries(f)) == 1
    dynamo.reset()
    assert dynamo.cache_entries(f) == []
    f(gt.ones(2))
    assert cnt.frame_count == 2


def test_recompile_reasons_are_logged(cnt, capsys):
    gt._logging.set_logs(recompiles=True)
    model = gt.nn.Linear(3, 3)
    cm = gt.compile(model, backend=cnt)
    cm(gt.ones(2, 3))
    cm(gt.ones(4, 3))
    cm.eval()
    cm(gt.ones(2, 3))
    err = capsys.readouterr().err
    assert "[__recompiles] Recompiling function forward in" in err
    assert "triggered by the following guard failure(s):" in err
    assert "- 0/0: tensor 'input' size mismatch at index 0. expected 2, actual 4" in err
    assert "L['self'].training == True" in err
    gt._logging.set_logs()
    cm(gt.ones(5, 3))
    assert "Recompiling" not in capsys.readouterr().err


def test_sizes_dtypes_and_devices_are_guarded_by_value(cnt):
    @gt.compile(backend=cnt)
    def f(x, shape, dtype, device):
        return x.reshape(shape).to(dtype=dtype, device=device)

    for _ in range(2):
        out = f(gt.ones(6), gt.Size([2, 3]), gt.float64, gt.device("cpu"))
    assert out.shape == (2, 3) and out.dtype == gt.float64
    f(gt.ones(6), (3, 2), gt.float64, gt.device("cpu"))
    assert cnt.frame_count == 2


def test_closures_globals_and_module_attributes_are_guarded(cnt):
    def scaler(k):
        return lambda x: x * k

    fs = [gt.compile(scaler(k), backend=cnt) for k in range(3)]
    assert [f(gt.ones(1)).tolist() for f in fs] == [[0.0], [1.0], [2.0]]

    global _SCALE
    _SCALE = 2.0

    @gt.compile(backend=cnt)
    def g(x):
        return x * _SCALE

    assert g(gt.ones(1)).tolist() == [2.0]
    _SCALE = 5.0
    assert g(gt.ones(1)).tolist() == [5.0]

    drop = gt.nn.Dropout(0.0)
    cd = gt.compile(drop, backend=cnt)
    assert cd(gt.ones(4)).tolist() == [1.0] * 4
    drop.p = 1.0
    assert cd(gt.ones(4)).tolist() == [0.0] * 4
    assert cnt.frame_count == 3 + 2 + 2


def test_limit_is_per_compiled_callable(cnt):
    blocks = [gt.nn.Linear(2, 2) for _ in range(10)]
    for b in blocks:
        b.compile(backend=cnt)
    x = gt.ones(1, 2)
    for b in blocks:
        b(x)
    assert cnt.frame_count == 10     # ten modules of one class: each its own cache, none hits the limit
