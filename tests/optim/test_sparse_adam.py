"""SparseAdam against real torch: params and state after several steps on nn.Embedding(sparse=True), and errors."""

import pytest
import torch as ref

import glasstorch as torch

_STEPS = [[1, 2, 1], [0, 4], [3, 3, 3, 2], [1]]


def _run(lib, maximize: bool, lr=0.05):
    lib.manual_seed(0)
    emb = lib.nn.Embedding(6, 3, sparse=True)
    with lib.no_grad():
        emb.weight.copy_(((lib.arange(18, dtype=lib.float32) - 8) / 7).reshape(6, 3))
    opt = lib.optim.SparseAdam(emb.parameters(), lr=lr, betas=(0.8, 0.95), maximize=maximize)
    weights = []
    for idx in _STEPS:
        opt.zero_grad()
        (emb(lib.tensor(idx)) ** 2).sum().backward()
        opt.step()
        weights.append(emb.weight.detach().clone())
    return weights, opt.state_dict()


@pytest.mark.parametrize("maximize", [False, True])
def test_steps_and_state_dict_match_torch(maximize):
    got_w, got_sd = _run(torch, maximize)
    exp_w, exp_sd = _run(ref, maximize)
    for g, e in zip(got_w, exp_w, strict=True):
        assert g.dtype == torch.float32 and torch.equal(g, torch.tensor(e.numpy()))
    assert got_sd["param_groups"] == exp_sd["param_groups"]
    gs, es = got_sd["state"][0], exp_sd["state"][0]
    assert set(gs) == set(es)
    assert type(gs["step"]) is type(es["step"]) and gs["step"] == es["step"]
    for key in ("exp_avg", "exp_avg_sq"):
        assert torch.equal(gs[key], torch.tensor(es[key].numpy()))
    # rows never looked up keep zero moments
    assert gs["exp_avg"][5].abs().sum().item() == 0 == es["exp_avg"][5].abs().sum().item()


def _message(lib, make):
    with pytest.raises(Exception) as info:
        make(lib)
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize("make", [
    lambda lib: lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], lr=0.0),
    lambda lib: lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], eps=0.0),
    lambda lib: lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], betas=(0.9, -0.1)),
    lambda lib: lib.optim.SparseAdam([lib.zeros(2), lib.zeros(2).to_sparse()]),
    lambda lib: lib.optim.SparseAdam([lib.zeros(2, dtype=lib.complex64)]),
])
def test_constructor_errors_match_torch(make):
    assert _message(torch, make) == _message(ref, make)


def test_dense_gradient_error_matches_torch():
    def make(lib):
        w = lib.zeros(3, requires_grad=True)
        opt = lib.optim.SparseAdam([w])
        w.sum().backward()
        opt.step()
    assert _message(torch, make) == _message(ref, make)


def test_empty_sparse_gradient_counts_a_step_but_changes_nothing():
    def run(lib):
        w = lib.ones(4, 2, requires_grad=True)
        opt = lib.optim.SparseAdam([w], lr=0.1)
        w.grad = lib.sparse_coo_tensor(lib.zeros(1, 0, dtype=lib.long), lib.zeros(0, 2), (4, 2))
        opt.step()
        return w.detach().tolist(), opt.state_dict()["state"][0]["step"]
    assert run(torch) == run(ref)
