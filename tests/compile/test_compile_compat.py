"""torch.compile in unmodified PyTorch programs: a script run through ``python -m glasstorch.compat``, and the GPT
example's ``--compile`` flag.

- scripts/compiled_cnn_torch_style.py (``torch.compile(model)`` and ``@torch.compile`` on a helper, AdamW steps,
  BatchNorm running statistics, eval under no_grad) prints the same numbers through glasstorch.compat (default
  inductor backend) as with real PyTorch.  The reference run is real PyTorch eager (``TORCHDYNAMO_DISABLE=1``, the
  script unchanged): real torch.compile's C++ build takes over a minute here, so the comparison with real
  torch.compile itself is the slow variant.  The glasstorch run must really compile: its debug folder
  (``GLASSTORCH_COMPILE_DEBUG=1``) holds the captured graphs and the generated C, and no graph break.
- examples/gpt/train.py: a few iterations with ``--compile`` give the losses of the same run without it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import glasstorch as gt

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).parent / "scripts" / "compiled_cnn_torch_style.py"
_NUMBER = re.compile(r"([A-Za-z_]+)[: ]+(-?\d+\.\d+)")

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from examples.gpt import train  # noqa: E402


def _run(prefix, cwd, **env):
    full_env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1", **env)
    proc = subprocess.run([sys.executable, *prefix, str(SCRIPT)], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _numbers(stdout: str) -> list[tuple[str, float]]:
    out = []
    for line in stdout.splitlines():
        label = line.split(":")[0] + " " if ":" in line else ""  # "step 0: loss ..."; a line without one has none
        out += [(f"{label}{name}", float(v)) for name, v in _NUMBER.findall(line)]
    return out


def _assert_same_numbers(ours: str, theirs: str):
    got, want = _numbers(ours), _numbers(theirs)
    assert len(want) == 15, theirs  # 5 steps x (loss, grad_norm), 2 running stats, 2 eval, 1 helper
    assert [n for n, _ in got] == [n for n, _ in want], ours
    for (name, g), (_, w) in zip(got, want, strict=True):
        assert g == pytest.approx(w, rel=2e-5, abs=2e-6), f"{name}: glasstorch {g} != torch {w}"


def _glasstorch_compiled_run(tmp_path):
    """The script through glasstorch.compat with the compile debug folder on; checks that it really compiled."""
    proc = _run(["-m", "glasstorch.compat"], tmp_path, GLASSTORCH_COMPILE_DEBUG="1")
    runs = list((tmp_path / "glasstorch_compile_debug").glob("run_*"))
    assert len(runs) == 1, runs
    graphs = sorted(p.parent for p in runs[0].glob("*/graph.py"))
    # the training forward, the eval/no_grad forward and the helper function: three graphs, each through inductor
    assert len(graphs) == 3, graphs
    assert all((g / "inductor" / "forward" / "kernels.c").exists() for g in graphs), graphs
    # the training forward's backward has its own folder, beside (not over) its forward's
    assert sum((g / "inductor" / "backward" / "kernels.c").exists() for g in graphs) >= 1, graphs
    assert not list(runs[0].glob("*/graph_break.txt")), "the script's compiled code graph-broke"
    return proc.stdout


def test_compiled_script_through_compat_matches_torch(tmp_path):
    theirs = _run([], tmp_path, TORCHDYNAMO_DISABLE="1").stdout
    ours = _glasstorch_compiled_run(tmp_path)
    _assert_same_numbers(ours, theirs)


@pytest.mark.slow
def test_compiled_script_matches_real_torch_compile(tmp_path):
    """The reference is real ``torch.compile`` (inductor, C++): over a minute of compilation on this machine."""
    try:
        theirs = _run([], tmp_path).stdout
    except AssertionError as e:  # no working C++ toolchain for real inductor here: nothing to compare with
        pytest.skip(f"real torch.compile does not run here: {str(e)[-300:]}")
    _assert_same_numbers(_glasstorch_compiled_run(tmp_path), theirs)


# -- the GPT example's --compile flag -------------------------------------------------------------------------
TINY = ["--n-layer", "2", "--n-head", "2", "--n-embd", "32", "--block-size", "16", "--batch-size", "4",
        "--eval-iters", "2", "--eval-interval", "100", "--threads", "1", "--no-progress", "--lr", "1e-2",
        "--max-chars", "20000", "--sample-chars", "0", "--iters", "4"]


@pytest.fixture
def blas_env(monkeypatch):
    """train.main() sets the BLAS thread variables; monkeypatch restores them after the test."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(var, os.environ.get(var, "1"))


def _history(out_dir):
    return gt.load(os.path.join(out_dir, "ckpt.pt"), weights_only=True)["history"]


def test_gpt_train_compile_flag_gives_eager_losses(tmp_path, blas_env):
    gt._dynamo.reset()
    gt._dynamo.counters.clear()
    plain = train.main([*TINY, "--out", str(tmp_path / "eager")])
    compiled = train.main([*TINY, "--out", str(tmp_path / "compiled"), "--compile"])
    assert gt._dynamo.counters["frames"]["ok"] >= 1, "--compile did not compile anything"
    assert not gt._dynamo.counters["graph_break"], dict(gt._dynamo.counters["graph_break"])
    gt._dynamo.reset()
    want, got = _history(tmp_path / "eager"), _history(tmp_path / "compiled")
    assert [i for i, _ in got["train"]] == [i for i, _ in want["train"]] == [1, 2, 3, 4]
    for (i, g), (_, w) in zip(got["train"], want["train"], strict=True):
        assert g == pytest.approx(w, rel=1e-5), f"iteration {i}: compiled loss {g} != eager {w}"
    for split in ("train", "val"):
        assert compiled["losses"][split] == pytest.approx(plain["losses"][split], rel=1e-4), split
