"""The GPT example (examples/gpt/model.py) through AOT autograd: forward, loss and every parameter gradient
equal eager glasstorch (and torch); an AdamW step on the compiled grads lands where the eager one does."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from aot_helpers import assert_close, compile_module, copy_weights, zero_grads

import glasstorch as gt
from glasstorch._functorch.partitioners import default_partition, min_cut_rematerialization_partition

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from examples.gpt.model import GPTConfig, build_gpt  # noqa: E402

CONFIG = GPTConfig(block_size=8, vocab_size=17, n_layer=2, n_head=2, n_embd=16)


def _models():
    torch.manual_seed(0)
    tm = build_gpt(torch).GPT(CONFIG)
    gm = build_gpt(gt).GPT(CONFIG)
    copy_weights(gm, tm)
    return gm, tm


def _batch():
    rng = np.random.default_rng(0)
    x = rng.integers(0, CONFIG.vocab_size, (3, CONFIG.block_size))
    y = rng.integers(0, CONFIG.vocab_size, (3, CONFIG.block_size))
    return (gt.from_numpy(x), gt.from_numpy(y)), (torch.from_numpy(x), torch.from_numpy(y))


@pytest.mark.parametrize("partition_fn", [default_partition, min_cut_rematerialization_partition],
                         ids=["default", "mincut"])
def test_gpt_forward_loss_backward_equal_eager(partition_fn):
    gm, tm = _models()
    (gx, gy), (tx, ty) = _batch()
    compiled = compile_module(gm, gx, gy, partition_fn=partition_fn)
    logits, loss = compiled(gx, gy)
    assert loss.grad_fn.name() == "CompiledFunctionBackward"
    loss.backward()
    got = {n: p.grad.clone() for n, p in gm.named_parameters()}
    zero_grads(gm)
    e_logits, e_loss = gm(gx, gy)
    e_loss.backward()
    assert_close(logits, e_logits, 1e-5, 1e-5, "logits vs eager")
    assert_close(loss, e_loss, 1e-6, 1e-6, "loss vs eager")
    for n, p in gm.named_parameters():
        assert_close(got[n], p.grad, 1e-4, 1e-6, f"grad of {n} vs eager")
    t_logits, t_loss = tm(tx, ty)
    t_loss.backward()
    assert_close(loss, t_loss, 1e-5, 1e-5, "loss vs torch")
    for n, p in tm.named_parameters():
        assert_close(got[n], p.grad, 2e-4, 2e-5, f"grad of {n} vs torch")


def test_gpt_adamw_step_on_compiled_grads():
    gm, _ = _models()
    ref, _ = _models()
    (gx, gy), _ = _batch()
    compiled = compile_module(gm, gx, gy)
    opt, ref_opt = gt.optim.AdamW(gm.parameters(), lr=1e-2), gt.optim.AdamW(ref.parameters(), lr=1e-2)
    for _ in range(2):
        opt.zero_grad()
        compiled(gx, gy)[1].backward()
        opt.step()
        ref_opt.zero_grad()
        ref(gx, gy)[1].backward()
        ref_opt.step()
    for (n, p), q in zip(gm.named_parameters(), ref.parameters(), strict=True):
        assert_close(p, q, 1e-4, 1e-5, n)
