"""The GPT example (examples/gpt) end to end on glasstorch, and its numerics against real PyTorch.

- numerics: the same GPT built in both libraries, glasstorch's weights copied from torch's, the same batch:
  loss and every parameter's gradient match after one forward/backward, and the parameters match after three
  AdamW steps (decay/no-decay groups, gradient clipping, warmup+cosine LambdaLR) — in float64 tightly and in
  float32 within float32 rounding (stepping with torch's gradients: Note [Adam near eps]).
- the scripts: train.py on a corpus made from the repo's docs writes a checkpoint and its loss curve,
  ``--resume`` continues it to exactly the model
  an uninterrupted run reaches, sample.py decodes text from it, and ``--profile`` prints its by-layer split.
"""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import glasstorch as gt

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # `examples` is a folder of the repo, not an installed package
    sys.path.insert(0, str(REPO))

from examples.gpt import plot, profile_step, sample, train  # noqa: E402
from examples.gpt.data import CharVocab, get_batch, stdlib_corpus  # noqa: E402
from examples.gpt.model import GPTConfig, build_gpt  # noqa: E402
from examples.gpt.train import WarmupCosine  # noqa: E402

SHAKESPEARE = "/work/shared/data/tinyshakespeare.txt"
needs_shakespeare = pytest.mark.skipif(not os.path.exists(SHAKESPEARE), reason=f"{SHAKESPEARE} is not on this machine")
TINY = ["--n-layer", "2", "--n-head", "2", "--n-embd", "32", "--block-size", "16", "--batch-size", "4",
        "--eval-iters", "2", "--threads", "1", "--no-progress", "--lr", "1e-2"]
CONFIG = GPTConfig(block_size=16, vocab_size=23, n_layer=2, n_head=2, n_embd=32)
TOL = {torch.float64: dict(rtol=1e-9, atol=1e-11), torch.float32: dict(rtol=2e-4, atol=2e-5)}
# Note [Adam near eps]: Adam's first step is about lr * g / (|g| + eps), a sign function with a ramp eps wide, and
# later steps divide small moments by small moments: where a gradient is at rounding level, float32 noise in its
# last bits moves the weight by a good fraction of lr, and the next step's gradients follow the moved weights.
# One element of 3072 moved by 1.2% of lr on one machine and 3.3% on an AVX-512 one (whose torch kernels round
# differently) with gradients as close to torch's as ever. So float32 steps with torch's own gradients; float64,
# well conditioned, runs end to end.


def _to_gt(t: torch.Tensor):
    return gt.from_numpy(t.detach().numpy().copy())


def _pair(dtype):
    """(torch model, glasstorch model) with identical weights (copied from torch's init) in ``dtype``."""
    torch.manual_seed(0)
    tm = build_gpt(torch).GPT(CONFIG).to(dtype)
    gm = build_gpt(gt).GPT(CONFIG).to(getattr(gt, str(dtype).split(".")[1]))
    gm.load_state_dict({k: _to_gt(v) for k, v in tm.state_dict().items()})
    assert gm.lm_head.weight is gm.transformer.wte.weight, "weight tying lost"
    return tm, gm


def _batch(seed=1):
    torch.manual_seed(seed)
    data = torch.randint(CONFIG.vocab_size, (200,))
    x, y = get_batch(torch, data, 3, CONFIG.block_size)
    return (x, y), (_to_gt(x), _to_gt(y))


def _close(g_tensor, t_tensor, dtype, what, tol=TOL):
    np.testing.assert_allclose(g_tensor.detach().numpy(), t_tensor.detach().numpy(), err_msg=what, **tol[dtype])


def _make_opt(m, lib):
    opt = m.configure_optimizer(weight_decay=0.1, learning_rate=1e-2)
    return opt, lib.optim.lr_scheduler.LambdaLR(opt, WarmupCosine(1, 3, 0.1))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
def test_loss_and_gradients_match_torch(dtype):
    tm, gm = _pair(dtype)
    (tx, ty), (gx, gy) = _batch()
    t_logits, t_loss = tm(tx, ty)
    g_logits, g_loss = gm(gx, gy)
    assert g_logits.shape == t_logits.shape and g_logits.dtype is getattr(gt, str(dtype).split(".")[1])
    _close(g_loss, t_loss, dtype, "loss")
    t_loss.backward()
    g_loss.backward()
    g_params = dict(gm.named_parameters())
    for name, p in tm.named_parameters():
        assert g_params[name].grad is not None, name
        _close(g_params[name].grad, p.grad, dtype, f"grad of {name}")


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
def test_three_adamw_steps_match_torch(dtype):
    """Three training steps (clipping, AdamW with decay groups, LambdaLR) from the same weights and batches.

    float64: each library follows its own gradients end to end. float32 (Note [Adam near eps]): each step's
    gradients are compared with torch's, then glasstorch steps with torch's gradients, so the optimizer is held
    to torch's arithmetic instead of to the noise Adam amplifies.
    """
    tm, gm = _pair(dtype)
    (t_opt, t_sched), (g_opt, g_sched) = _make_opt(tm, torch), _make_opt(gm, gt)
    assert [len(g["params"]) for g in g_opt.param_groups] == [len(g["params"]) for g in t_opt.param_groups]
    g_params = dict(gm.named_parameters())
    for step in range(3):
        (tx, ty), (gx, gy) = _batch(seed=10 + step)
        for m, opt, x, y in ((tm, t_opt, tx, ty), (gm, g_opt, gx, gy)):
            opt.zero_grad(set_to_none=True)
            m(x, y)[1].backward()
        if dtype is torch.float32:
            for name, p in tm.named_parameters():
                _close(g_params[name].grad, p.grad, dtype, f"grad of {name} at step {step}")
                g_params[name].grad = _to_gt(p.grad)
        for m, opt, sched, lib in ((tm, t_opt, t_sched, torch), (gm, g_opt, g_sched, gt)):
            lib.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
            opt.step()
            sched.step()
        assert g_sched.get_last_lr() == pytest.approx(t_sched.get_last_lr()), step
    for name, p in tm.named_parameters():
        _close(g_params[name], p, dtype, f"{name} after 3 AdamW steps")


def test_generate_respects_top_k_and_block_size():
    _, gm = _pair(torch.float32)
    idx = gt.zeros((2, 3), dtype=gt.long)
    out = gm.generate(idx, CONFIG.block_size + 4, temperature=0.5, top_k=1, generator=gt.Generator().manual_seed(0))
    assert tuple(out.shape) == (2, 3 + CONFIG.block_size + 4)
    assert out[0].tolist() == out[1].tolist()  # top_k=1 is greedy: identical rows whatever the generator draws


def test_warmup_cosine_schedule():
    f = WarmupCosine(warmup_iters=4, decay_iters=14, min_ratio=0.1)
    assert [f(i) for i in range(4)] == [0.2, 0.4, 0.6, 0.8]
    assert f(4) == pytest.approx(1.0) and f(9) == pytest.approx(0.55) and f(14) == f(100) == 0.1


def test_default_corpus_is_deterministic_stdlib_source():
    text = stdlib_corpus(20_000)
    assert len(text) == 20_000 and text == stdlib_corpus(20_000)
    vocab = CharVocab.from_text(text)
    assert vocab.decode(vocab.encode(text[:500])) == text[:500] and vocab.itos == sorted(vocab.itos)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        vocab.encode("\x00")


@pytest.fixture
def blas_env(monkeypatch):
    """train/sample main() set the BLAS thread variables; monkeypatch restores them after the test."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(var, os.environ.get(var, "1"))


def _final_state(out_dir):
    ckpt = gt.load(os.path.join(out_dir, "ckpt.pt"), weights_only=True)
    return ckpt, {k: v.numpy() for k, v in ckpt["model"].items()}


@pytest.fixture
def docs_corpus(tmp_path):
    """A UTF-8 corpus every clone has (what the README's `cat README.md docs/*.md` makes)."""
    path = tmp_path / "docs.txt"
    files = [REPO / "README.md", *sorted(REPO.glob("docs/*.md"))]
    path.write_text("".join(p.read_text(encoding="utf-8") for p in files), encoding="utf-8")
    return str(path)


def test_train_resume_sample_on_glasstorch(tmp_path, blas_env, capsys, docs_corpus):
    common = ["--eval-interval", "3", "--lr-decay-iters", "6", "--sample-chars", "0", *TINY]
    straight, split = str(tmp_path / "straight"), str(tmp_path / "split")
    train.main([*common, "--text", docs_corpus, "--iters", "6", "--out", straight])
    first = train.main([*common, "--text", docs_corpus, "--iters", "3", "--out", split])
    assert first["iter_num"] == 3 and os.path.exists(first["checkpoint"])
    assert not [f for f in os.listdir(split) if ".tmp" in f], "temporary checkpoint left behind"
    assert (Path(split) / "loss.png").read_bytes()[:4] == b"\x89PNG", "the loss curve lands beside the checkpoint"
    # the checkpoint carries its corpus: resuming needs only --out (no --text)
    resumed = train.main([*common, "--iters", "6", "--out", split, "--resume", "--sample-chars", "12"])
    assert resumed["iter_num"] == 6 and len(resumed["sample"]) == 12
    assert math.isfinite(resumed["losses"]["val"])
    (ckpt_a, state_a), (ckpt_b, state_b) = _final_state(straight), _final_state(split)
    assert ckpt_b["iter_num"] == 6 and len(ckpt_b["history"]["train"]) == 6 and ckpt_b["backend"] == "glasstorch"
    assert ckpt_b["history"] == ckpt_a["history"]
    assert ckpt_b["corpus"] == Path(docs_corpus).read_text(encoding="utf-8")
    assert ckpt_b["vocab"] == sorted(set(ckpt_b["corpus"]))
    for k in state_a:  # resuming reproduces the uninterrupted run exactly (model, optimizer, LR, RNG restored)
        np.testing.assert_array_equal(state_b[k], state_a[k], err_msg=k)
    texts = sample.main(["--out", split, "--chars", "15", "--num-samples", "2", "--top-k", "5", "--threads", "1",
                         "--start", "The "])
    assert len(texts) == 2 and all(t.startswith("The ") and len(t) == 4 + 15 for t in texts)
    assert "--- sample 2/2 ---" in capsys.readouterr().out


def test_resume_refuses_other_text_and_missing_files(tmp_path, blas_env, docs_corpus):
    out = str(tmp_path / "run")
    train.main(["--text", docs_corpus, "--iters", "1", "--eval-interval", "1", "--sample-chars", "0", *TINY,
                "--out", out])
    other = tmp_path / "other.txt"
    other.write_text("something else entirely", encoding="utf-8")
    with pytest.raises(SystemExit, match="holds other text"):
        train.main(["--text", str(other), "--iters", "2", "--resume", "--out", out, *TINY])
    with pytest.raises(SystemExit, match="no such file. Any UTF-8 text file will do"):
        train.main(["--text", str(tmp_path / "input.txt"), "--iters", "1", *TINY, "--out", out])
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00abc")
    with pytest.raises(SystemExit, match="not UTF-8 text"):
        train.main(["--text", str(tmp_path / "bin.txt"), "--iters", "1", *TINY, "--out", out])


@needs_shakespeare
def test_profile_flag_runs_as_a_script():
    cmd = [sys.executable, "examples/gpt/train.py", "--profile", "--text", SHAKESPEARE, *TINY]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for layer in ("dispatcher", "autograd", "kernels", "allocation", "unprofiled step"):
        assert layer in done.stdout, (layer, done.stdout)


def test_profile_attribution_splits_builtins_by_caller():
    k = "glasstorch/_ops/kernels/cpu/x.py"
    stats = {
        ("/r/glasstorch/_ops/dispatcher.py", 1, "call"): (1, 1, 0.5, 2.0, {}),
        (k, 1, "kernel"): (1, 1, 1.0, 1.0, {}),
        ("~", 0, "<built-in method builtins.isinstance>"): (
            4, 4, 0.4, 0.4, {("/r/glasstorch/_ops/dispatcher.py", 1, "call"): (3, 3, 0.3, 0.3),
                             ("/r/glasstorch/autograd/engine.py", 1, "run"): (1, 1, 0.1, 0.1)}),
        ("~", 0, "<method 'dot' of 'numpy.ndarray' objects>"): (1, 1, 0.25, 0.25, {(k, 1, "kernel"): (1, 1, .25, .25)}),
    }
    totals = profile_step.attribute(stats)
    assert totals == pytest.approx({"dispatcher": 0.8, "kernels": 1.25, "autograd": 0.1})


HISTORY = {"train": [(1, 4.0), (2, 3.5), (3, 3.2)], "val": [(3, 3.3)]}


def test_loss_plot_png(tmp_path):
    msg = plot.plot_losses(HISTORY, str(tmp_path / "sub" / "loss.png"))
    png = (tmp_path / "sub" / "loss.png").read_bytes()
    assert msg.startswith("loss curve written") and png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")  # the IHDR chunk
    assert width > 300 and height > 200, (width, height)
