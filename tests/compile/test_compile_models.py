"""Compiled models == eager models: forward outputs, every parameter gradient, buffers, over optimizer steps.

Each model is built twice with the same weights; one copy runs eagerly, the other through
``glasstorch.compile(model, backend=...)`` (aot_eager and inductor).  Several training steps with an optimizer in
between compare the loss/outputs, all parameter gradients, the parameters after each step and the buffers
(BatchNorm's running statistics and step count), so the compiled graphs run with updated weights and guards are
re-checked on every call.  Then ``eval()`` must recompile (the ``training`` flag is guarded) and match eager's
eval output, and ``no_grad`` inference must match without building a graph.

Models: the GPT example (examples/gpt/model.py, a small config, AdamW + gradient clipping as train.py does),
an MLP (Linear, GELU, Tanh, LayerNorm; SGD with momentum) and a small CNN (conv2d, batch_norm in train mode,
relu, max_pool2d, linear; SGD).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import glasstorch as gt

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # `examples` is a folder of the repo, not an installed package
    sys.path.insert(0, str(REPO))

from examples.gpt.model import GPTConfig, build_gpt  # noqa: E402

BACKENDS = ("aot_eager", "inductor")
GPT_CONFIG = GPTConfig(block_size=16, vocab_size=23, n_layer=2, n_head=2, n_embd=32)
# float32: compiled kernels may round differently (fused expressions, reduction order).  Adam divides by sqrt(v):
# where a gradient is at rounding level (GPT's key bias: exactly 0 in exact arithmetic) float32 noise moves a
# weight by up to a fraction of lr (1e-2), so parameters after steps are held to 1% of lr (tests/test_gpt_example)
FWD_TOL = dict(rtol=1e-5, atol=1e-5)
GRAD_TOL = dict(rtol=1e-4, atol=1e-5)
STEP_TOL = dict(rtol=1e-3, atol=1e-4)
STEPS = 3


def _close(got, want, what, tol):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), err_msg=what, **tol)


def _twins(make):
    """Two models with identical state: (eager, to be compiled)."""
    eager, other = make(), make()
    other.load_state_dict(eager.state_dict())
    return eager, other


def _compare_state(eager, compiled_src, step, with_grads=True):
    for (n, p), (n2, q) in zip(eager.named_parameters(), compiled_src.named_parameters(), strict=True):
        assert n == n2
        _close(q, p, f"step {step}: parameter {n}", STEP_TOL)
        if with_grads:
            assert (q.grad is None) == (p.grad is None), f"step {step}: grad of {n} present only on one side"
            if p.grad is not None:
                _close(q.grad, p.grad, f"step {step}: grad of {n}", GRAD_TOL)
    for (n, b), (_, c) in zip(eager.named_buffers(), compiled_src.named_buffers(), strict=True):
        assert b.dtype == c.dtype and tuple(b.shape) == tuple(c.shape), n
        _close(c, b, f"step {step}: buffer {n}", STEP_TOL)


def _frames() -> int:
    return gt._dynamo.counters["frames"]["total"]


def _assert_no_graph_break():
    """Every call compiled into one graph: an eager fallback would make the comparisons vacuous."""
    breaks = dict(gt._dynamo.counters["graph_break"])
    assert not breaks, f"unexpected graph breaks {breaks}"
    assert gt._dynamo.counters["frames"]["ok"] == _frames(), "a compile fell back to eager"


# -- GPT -----------------------------------------------------------------------------------------------------
def _gpt():
    gt.manual_seed(0)
    return build_gpt(gt).GPT(GPT_CONFIG)


def _gpt_batch(step):
    g = gt.Generator().manual_seed(100 + step)
    x = gt.randint(GPT_CONFIG.vocab_size, (3, GPT_CONFIG.block_size), generator=g)
    y = gt.randint(GPT_CONFIG.vocab_size, (3, GPT_CONFIG.block_size), generator=g)
    return x, y


@pytest.mark.parametrize("backend", BACKENDS)
def test_gpt_training_steps_match_eager(backend):
    eager, src = _twins(_gpt)
    compiled = gt.compile(src, backend=backend)
    opts = [m.configure_optimizer(weight_decay=0.1, learning_rate=1e-2) for m in (eager, src)]
    for step in range(STEPS):
        x, y = _gpt_batch(step)
        results = []
        for model, opt in ((eager, opts[0]), (compiled, opts[1])):
            opt.zero_grad(set_to_none=True)
            logits, loss = model(x, y)
            loss.backward()
            gt.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            results.append((logits, loss))
        (le, ce), (lc, cc) = results
        _close(cc, ce, f"step {step}: loss", FWD_TOL)
        _close(lc, le, f"step {step}: logits", FWD_TOL)
        _compare_state(eager, src, step)
        for opt in opts:
            opt.step()
    _compare_state(eager, src, STEPS, with_grads=False)
    assert src.lm_head.weight is src.transformer.wte.weight, "weight tying lost"
    _assert_no_graph_break()
    assert _frames() == 1, "optimizer steps update parameters in place: no recompile expected"


@pytest.mark.parametrize("backend", BACKENDS)
def test_gpt_eval_and_no_grad_match_eager(backend):
    eager, src = _twins(_gpt)
    compiled = gt.compile(src, backend=backend)
    x, y = _gpt_batch(0)
    compiled(x, y)
    frames = _frames()
    eager.eval()
    compiled.eval()
    assert not src.training
    with gt.no_grad():
        (le, ce), (lc, cc) = eager(x, y), compiled(x, y)
    assert _frames() > frames, "eval() + no_grad did not recompile"
    assert not cc.requires_grad and not lc.requires_grad
    _close(cc, ce, "eval loss", FWD_TOL)
    _close(lc, le, "eval logits", FWD_TOL)
    with gt.no_grad():  # inference without targets: only the last position's logits
        _close(compiled(x)[0], eager(x)[0], "eval logits without targets", FWD_TOL)
    _assert_no_graph_break()


# -- MLP -----------------------------------------------------------------------------------------------------
def _mlp():
    gt.manual_seed(1)
    nn = gt.nn
    return nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 32), nn.Tanh(), nn.LayerNorm(32), nn.Linear(32, 4))


def _train(eager, src, compiled, make_batch, loss_fn, make_opt, steps=STEPS):
    opts = [make_opt(m) for m in (eager, src)]
    for step in range(steps):
        x, y = make_batch(step)
        outs = []
        for model, opt in ((eager, opts[0]), (compiled, opts[1])):
            opt.zero_grad()
            out = model(x)
            loss_fn(out, y).backward()
            outs.append(out)
        _close(outs[1], outs[0], f"step {step}: output", FWD_TOL)
        _compare_state(eager, src, step)
        for opt in opts:
            opt.step()
    _compare_state(eager, src, steps, with_grads=False)
    _assert_no_graph_break()
    assert _frames() == 1, "optimizer steps update parameters in place: no recompile expected"


def _mlp_batch(step):
    g = gt.Generator().manual_seed(step)
    return gt.randn(16, 8, generator=g), gt.randint(4, (16,), generator=g)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mlp_training_steps_match_eager(backend):
    eager, src = _twins(_mlp)
    compiled = gt.compile(src, backend=backend)
    _train(eager, src, compiled, _mlp_batch, gt.nn.functional.cross_entropy,
           lambda m: gt.optim.SGD(m.parameters(), lr=0.1, momentum=0.9))
    frames = _frames()
    x, _ = _mlp_batch(9)
    with gt.no_grad():
        want, got = eager(x), compiled(x)
    assert not got.requires_grad
    _close(got, want, "no_grad output", FWD_TOL)
    assert _frames() > frames, "no_grad did not recompile"


@pytest.mark.parametrize("backend", BACKENDS)
def test_mlp_new_batch_size_recompiles_and_matches(backend):
    eager, src = _twins(_mlp)
    compiled = gt.compile(src, backend=backend)
    for n in (16, 5, 16):
        x = gt.randn(n, 8, generator=gt.Generator().manual_seed(n))
        _close(compiled(x), eager(x), f"batch {n}", FWD_TOL)
    assert _frames() == 2, "batch 16 -> 5 -> 16 should compile twice (the first entry is reused)"
    _assert_no_graph_break()


# -- CNN -----------------------------------------------------------------------------------------------------
class SmallCNN(gt.nn.Module):
    """conv -> batch_norm (train mode) -> relu -> max_pool -> conv -> relu -> linear."""

    def __init__(self):
        super().__init__()
        nn = gt.nn
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 6, 3, stride=2, padding=1)
        self.fc = nn.Linear(6 * 2 * 2, 5)

    def forward(self, x):
        x = self.pool(gt.nn.functional.relu(self.bn(self.conv1(x))))
        x = gt.nn.functional.relu(self.conv2(x))
        return self.fc(x.flatten(1))


def _cnn():
    gt.manual_seed(2)
    return SmallCNN()


def _cnn_batch(step):
    g = gt.Generator().manual_seed(10 + step)
    return gt.randn(4, 3, 8, 8, generator=g), gt.randint(5, (4,), generator=g)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cnn_training_steps_and_running_stats_match_eager(backend):
    eager, src = _twins(_cnn)
    compiled = gt.compile(src, backend=backend)
    _train(eager, src, compiled, _cnn_batch, gt.nn.functional.cross_entropy,
           lambda m: gt.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4))
    assert int(src.bn.num_batches_tracked) == STEPS
    assert not bool((src.bn.running_mean == 0).all()), "running stats never updated"


@pytest.mark.parametrize("backend", BACKENDS)
def test_cnn_eval_recompiles_and_matches_eager(backend):
    eager, src = _twins(_cnn)
    compiled = gt.compile(src, backend=backend)
    x, y = _cnn_batch(0)
    _close(compiled(x), eager(x), "train-mode output", FWD_TOL)
    frames = _frames()
    eager.eval()
    compiled.eval()
    assert not src.bn.training, "eval() on the compiled module must reach the original's submodules"
    xe, _ = _cnn_batch(1)
    got, want = compiled(xe), eager(xe)
    assert _frames() == frames + 1, "eval() must recompile exactly once"
    _close(got, want, "eval-mode output (running statistics used)", FWD_TOL)
    got.sum().backward()
    want.sum().backward()
    _compare_state(eager, src, "eval")  # eval: gradients flow, running stats untouched
    with gt.no_grad():
        _close(compiled(xe), eager(xe), "eval no_grad output", FWD_TOL)
    compiled.train()
    frames = _frames()
    _close(compiled(x), eager.train()(x), "back to train mode", FWD_TOL)
    assert _frames() == frames, "train() again must reuse the first entry"
    _compare_state(eager, src, "train again", with_grads=False)
    _assert_no_graph_break()
