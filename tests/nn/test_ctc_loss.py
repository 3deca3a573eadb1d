"""``F.ctc_loss`` / ``torch.ctc_loss`` and the ``_ctc_loss`` / ``_ctc_loss_backward`` operators against torch:
padded and concatenated targets, list and tensor lengths, every reduction, ``zero_infinity`` with impossible
alignments, empty targets and inputs, unbatched inputs, the gradients, and torch's argument errors."""

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import glasstorch as gt

RNG = np.random.default_rng(0)
T, N, C = 12, 4, 5


def _case(concat, dtype="float64"):
    lp = RNG.standard_normal((T, N, C))
    lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
    tl = [3, 0, 6, 2]  # sample 2 cannot align: 6 labels with repeats need more than 7 steps
    il = [12, 5, 7, 1]  # sample 3: two labels in one step, impossible too
    tg = RNG.integers(1, C, (N, 6))
    tg[2] = [1, 1, 2, 2, 3, 3]
    targets = np.concatenate([tg[b, :n] for b, n in enumerate(tl)]) if concat else tg
    return lp, targets, il, tl


def _run(lib, lp, targets, il, tl, dtype, tensor_lengths, **kw):
    x = lib.tensor(lp, dtype=getattr(lib, dtype), requires_grad=True)
    tg = lib.tensor(targets)
    if tensor_lengths:
        il, tl = lib.tensor(il), lib.tensor(tl)
    loss = lib.nn.functional.ctc_loss(x, tg, il, tl, **kw)
    return x, loss


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("concat", [False, True])
@pytest.mark.parametrize("tensor_lengths", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_values_and_grads(dtype, concat, tensor_lengths, reduction, zero_infinity):
    lp, targets, il, tl = _case(concat)
    kw = dict(reduction=reduction, zero_infinity=zero_infinity)
    xg, lg = _run(gt, lp, targets, il, tl, dtype, tensor_lengths, **kw)
    xt, lt = _run(torch, lp, targets, il, tl, dtype, tensor_lengths, **kw)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    assert_same(lg.detach(), lt.detach(), **tol)
    if not zero_infinity and reduction != "none":
        return  # an infinite loss: torch's gradient is NaN there, compared below in the unreduced case
    w = RNG.standard_normal(tuple(lt.shape))
    (gg,) = gt.autograd.grad(lg, xg, gt.tensor(w, dtype=lg.dtype))
    (gtt,) = torch.autograd.grad(lt, xt, torch.tensor(w, dtype=lt.dtype))
    assert_same(gg, gtt, **tol)


@pytest.mark.parametrize("blank", [0, 4])
def test_blank_unbatched_and_int32_targets(blank):
    lp, targets, _, _ = _case(False)
    tg = np.array([1, 2, 2, 3]) if blank == 4 else np.array([1, 2, 2, 4])
    for lib_pair in [(gt, torch)]:
        outs = []
        for lib in lib_pair:
            x = lib.tensor(lp[:, 0], requires_grad=True)
            loss = lib.nn.functional.ctc_loss(x, lib.tensor(tg, dtype=lib.int32), [T], [4], blank=blank,
                                              reduction="none")
            outs.append((loss, lib.autograd.grad(loss, x)[0]))
        assert_same(outs[0][0].detach(), outs[1][0].detach(), rtol=1e-12, atol=1e-12)
        assert_same(outs[0][1], outs[1][1], rtol=1e-12, atol=1e-12)


def test_operators_and_empty_input():
    lp, targets, il, tl = _case(False)
    il = [0, 5, 0, 12]
    tl = [0, 0, 2, 3]
    res = []
    for lib in (gt, torch):
        x = lib.tensor(lp)
        nll, alpha = lib.ops.aten._ctc_loss(x, lib.tensor(targets), il, tl, 0, False)
        g = lib.ops.aten._ctc_loss_backward(lib.ones(N, dtype=lib.float64), x, lib.tensor(targets), il, tl, nll,
                                            alpha, 0, False)
        res.append((nll, alpha, g))
    assert_same(res[0][0], res[1][0], rtol=1e-12, atol=1e-12)
    assert tuple(res[0][1].shape) == tuple(res[1][1].shape)
    assert_same(res[0][2], res[1][2], rtol=1e-12, atol=1e-12)


def test_gradcheck():
    lp, targets, il, tl = _case(False)
    x = gt.tensor(lp[:6, :2], requires_grad=True)
    tg = gt.tensor(targets[:2, :2])
    # torch's kernel differentiates through a log_softmax (its exp(lp) term), so the check goes through one
    fn = lambda t: gt.nn.functional.ctc_loss(t.log_softmax(2), tg, [6, 5], [2, 1])  # noqa: E731
    assert gt.autograd.gradcheck(fn, (x,))


def _errors():
    base = dict(shape=(5, 2, 4), tg=[[1, 2], [3, 3]], tdt="int64", il=[5, 5], tl=[2, 2], blank=0, ldt="float32")
    cases = [dict(tdt="float32"), dict(tdt="int16"), dict(shape=(5, 4)), dict(tg=[[[1, 2], [3, 3]]]),
             dict(blank=4), dict(blank=-1), dict(il=[5]), dict(tl=[2]), dict(tl=[2, -1]), dict(tl=[2, 3]),
             dict(tg=[[1, 2]]), dict(tg=[1, 2, 3, 3], tl=[2, 1]), dict(il=[6, 5]), dict(il=[-1, 5]),
             dict(ldt="float16"), dict(shape=(0, 2, 4), il=[0, 0])]
    return [{**base, **c} for c in cases]


@pytest.mark.parametrize("case", _errors())
def test_errors(case):
    def call(lib):
        x = lib.zeros(case["shape"], dtype=getattr(lib, case["ldt"]))
        tg = lib.tensor(case["tg"], dtype=getattr(lib, case["tdt"]))
        return lambda: lib.ops.aten._ctc_loss(x, tg, case["il"], case["tl"], case["blank"], False)
    assert_same_error(call(gt), call(torch))


def test_float_lengths_are_rejected():
    def call(lib, which):
        x = lib.zeros(5, 2, 4)
        il, tl = lib.tensor([5, 5]), lib.tensor([2, 2])
        if which == "il":
            il = il.double()
        else:
            tl = tl.double()
        return lambda: lib.ctc_loss(x, lib.tensor([[1, 2], [3, 3]]), il, tl)
    for which in ("il", "tl"):
        assert_same_error(call(gt, which), call(torch, which))


def test_tensor_length_overloads():
    lp, targets, il, tl = _case(True)
    res = []
    for lib in (gt, torch):
        x = lib.tensor(lp)
        tg = lib.tensor(targets)
        il_t, tl_t = lib.tensor(il, dtype=lib.int32), lib.tensor(tl)
        nll, alpha = lib.ops.aten._ctc_loss.Tensor(x, tg, il_t, tl_t, 0, True)
        g = lib.ops.aten._ctc_loss_backward.Tensor(lib.ones(N, dtype=lib.float64), x, tg, il_t, tl_t, nll, alpha, 0,
                                                   True)
        res.append((nll, g))
    assert_same(res[0][0], res[1][0], rtol=1e-12, atol=1e-12)
    assert_same(res[0][1], res[1][1], rtol=1e-12, atol=1e-12)
