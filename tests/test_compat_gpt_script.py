"""An unmodified PyTorch-style GPT training script (tests/scripts/gpt_train_torch_style.py: model, AdamW with
decay/no-decay groups, warmup + cosine LR, grad clipping, GradScaler, checkpoint save and resume, top-k
multinomial sampling) runs with real torch and through ``python -m glasstorch.compat``; the losses, gradient
norms and loss scales it prints agree."""

import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO, "tests", "scripts", "gpt_train_torch_style.py")
_LINE = re.compile(r"iter (\d+): loss ([\d.]+) norm ([\d.]+) scale ([\d.]+)")


def _run(prefix, out_dir):
    env = dict(os.environ, PYTHONPATH=REPO, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, *prefix, SCRIPT, str(out_dir)], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_gpt_script_through_compat_matches_torch(tmp_path):
    theirs = _run([], tmp_path / "torch")
    ours = _run(["-m", "glasstorch.compat"], tmp_path / "glasstorch")
    want = [tuple(map(float, m.groups())) for m in _LINE.finditer(theirs)]
    got = [tuple(map(float, m.groups())) for m in _LINE.finditer(ours)]
    assert len(want) == len(got) == 10
    for (i, loss, norm, scale), (j, gloss, gnorm, gscale) in zip(want, got, strict=True):
        assert i == j and scale == gscale
        assert gloss == pytest.approx(loss, rel=1e-5) and gnorm == pytest.approx(norm, rel=1e-5)
    assert "sample of 21 chars" in ours
    assert (tmp_path / "glasstorch" / "ckpt.pt").exists()


PARALLEL_SCRIPT = """
import torch, torch.nn as nn, torch.multiprocessing as mp
m = nn.Linear(2, 2)
dp = nn.DataParallel(m)
print(dp.device_ids, dp.module is m, repr(dp), list(dp.state_dict().keys()))
x = torch.ones(3, 2)
print(bool((dp(x) == m(x)).all()))
try:
    nn.parallel.DistributedDataParallel(m)
except Exception as e:
    print(type(e).__name__, e)
print(mp.get_sharing_strategy(), sorted(mp.get_all_sharing_strategies()), mp.cpu_count() > 0)
"""


def test_data_parallel_and_multiprocessing_on_a_cpu_machine(tmp_path):
    path = tmp_path / "parallel.py"
    path.write_text(PARALLEL_SCRIPT)
    env = dict(os.environ, PYTHONPATH=REPO)
    outs = [subprocess.run([sys.executable, *prefix, str(path)], env=env, capture_output=True, text=True,
                           timeout=300) for prefix in ([], ["-m", "glasstorch.compat"])]
    assert outs[0].returncode == 0 and outs[1].returncode == 0, outs[1].stderr[-2000:]
    assert outs[1].stdout == outs[0].stdout
