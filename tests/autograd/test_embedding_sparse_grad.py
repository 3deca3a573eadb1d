"""``sparse=True`` embedding and embedding_bag against torch: the weight's gradient is a COO tensor (one row per
looked-up index, padding rows left out, uncoalesced), scale_grad_by_freq refuses with torch's message, and
AccumulateGrad stores a first sparse gradient without copying only when its indices and values are contiguous."""

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same_error

W = np.random.default_rng(0).standard_normal((10, 3))
IDX = [[1, 2, 1], [0, 2, 5]]


def _sparse_parts(g):
    return (str(g.layout), g._indices().tolist(), np.asarray(g._values().tolist()), g.is_coalesced(),
            tuple(g.shape))


def _assert_same_sparse(g, t):
    gl, gi, gv, gc, gs = _sparse_parts(g)
    tl, ti, tv, tc, ts = _sparse_parts(t)
    assert (gl, gi, gc, gs) == (tl, ti, tc, ts)
    np.testing.assert_allclose(gv, tv, rtol=1e-12, atol=0)


def _embedding_grad(mod, padding_idx, idx=IDX):
    w = mod.tensor(W, requires_grad=True)
    out = mod.nn.functional.embedding(mod.tensor(idx), w, padding_idx=padding_idx, sparse=True)
    (out * mod.arange(float(out.numel()), dtype=mod.double).reshape(out.shape)).sum().backward()
    return w.grad


@pytest.mark.parametrize("padding_idx", [None, 2, -8])
def test_embedding_sparse_grad(padding_idx):
    _assert_same_sparse(_embedding_grad(gt, padding_idx), _embedding_grad(torch, padding_idx))


def test_embedding_sparse_grad_all_padding():
    _assert_same_sparse(_embedding_grad(gt, 2, [2, 2]), _embedding_grad(torch, 2, [2, 2]))


def test_embedding_sparse_scale_grad_by_freq_refused():
    def run(mod):
        def go():
            w = mod.tensor(W, requires_grad=True)
            mod.nn.functional.embedding(mod.tensor(IDX), w, sparse=True, scale_grad_by_freq=True).sum().backward()
        return go
    assert_same_error(run(gt), run(torch))


BAG_INPUT = [1, 2, 4, 5, 4, 3, 2, 9]


@pytest.mark.parametrize("mode,psw,padding_idx", [("mean", False, None), ("sum", False, None), ("sum", True, None),
                                                  ("mean", False, 4), ("sum", True, 2)])
def test_embedding_bag_sparse_grad(mode, psw, padding_idx):
    weights = np.linspace(0.5, 2.0, len(BAG_INPUT))

    def run(mod):
        w = mod.tensor(W, requires_grad=True)
        out = mod.nn.functional.embedding_bag(mod.tensor(BAG_INPUT), w, mod.tensor([0, 4]), mode=mode, sparse=True,
                                              per_sample_weights=mod.tensor(weights) if psw else None,
                                              padding_idx=padding_idx)
        (out * mod.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=mod.double)).sum().backward()
        return w.grad
    _assert_same_sparse(run(gt), run(torch))


def _steals(mod, contiguous):
    """Which of two leaves given the same sparse gradient got the engine's buffer, over two backward calls."""
    seen = {}

    class Fn(mod.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad):
            if not contiguous:
                v = mod.rand(1, 3, dtype=mod.double)
                i = mod.ones(1, 1, dtype=mod.long)
                grad = mod.sparse_coo_tensor(i.expand(1, 8), v.expand(8, 3), (10, 3))
            seen.setdefault("ptr", grad._values().data_ptr())  # the first call's buffer
            return grad, grad

    a = mod.tensor(W, requires_grad=True)
    b = mod.tensor(W, requires_grad=True)
    loss = mod.nn.functional.embedding_bag(Fn.apply(a, b), mod.tensor(BAG_INPUT), mod.tensor([0, 4]),
                                           sparse=True).sum()
    loss.backward(retain_graph=True)
    pa, pb = a.grad._values().data_ptr(), b.grad._values().data_ptr()
    loss.backward(retain_graph=True)  # accumulation onto the stored sparse gradients
    return pa == pb, pa == seen["ptr"] or pb == seen["ptr"], a.grad.to_dense().tolist() == b.grad.to_dense().tolist()


@pytest.mark.parametrize("contiguous", [True, False])
def test_first_sparse_grad_stolen_only_when_contiguous(contiguous):
    assert _steals(gt, contiguous) == _steals(torch, contiguous) == (False, contiguous, True)
