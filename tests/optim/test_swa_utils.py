"""optim.swa_utils against torch: AveragedModel's averages and n_averaged (SWA, EMA, avg_fn, use_buffers),
update_bn's running statistics and restored state, SWALR's lr sequences, and the error texts."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.optim import swa_utils as tswa

import glasstorch as gt
from glasstorch.optim import swa_utils as gswa


def _pair_models():
    tm = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.BatchNorm1d(5), torch.nn.Linear(5, 2))
    gm = gt.nn.Sequential(gt.nn.Linear(4, 5), gt.nn.BatchNorm1d(5), gt.nn.Linear(5, 2))
    gm.load_state_dict({k: gt.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    return tm, gm


def _perturb(tm, gm, step):
    rng = np.random.default_rng(step)
    for tp, gp in zip(tm.parameters(), gm.parameters(), strict=True):
        delta = rng.standard_normal(tuple(tp.shape)).astype("float32")
        with torch.no_grad():
            tp.add_(torch.tensor(delta))
        with gt.no_grad():
            gp.add_(gt.tensor(delta))
    for tb, gb in zip(tm.buffers(), gm.buffers(), strict=True):
        if tb.is_floating_point():
            v = rng.standard_normal(tuple(tb.shape)).astype("float32")
            tb.copy_(torch.tensor(v))
            gb.copy_(gt.tensor(v))


def _same_state(ta, ga):
    ts, gs = ta.state_dict(), ga.state_dict()
    assert list(ts) == list(gs)
    for k in ts:
        assert str(ts[k].dtype) == str(gs[k].dtype), k
        np.testing.assert_allclose(gs[k].numpy(), ts[k].numpy(), rtol=1e-6, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("kind", ["swa", "ema_multi", "ema_avg", "swa_avg", "use_buffers"])
def test_averaged_model_matches_torch(kind):
    tm, gm = _pair_models()
    kw_t, kw_g = {}, {}
    if kind == "ema_multi":
        kw_t, kw_g = {"multi_avg_fn": tswa.get_ema_multi_avg_fn(0.9)}, {"multi_avg_fn": gswa.get_ema_multi_avg_fn(0.9)}
    elif kind == "ema_avg":
        kw_t, kw_g = {"avg_fn": tswa.get_ema_avg_fn(0.8)}, {"avg_fn": gswa.get_ema_avg_fn(0.8)}
    elif kind == "swa_avg":
        kw_t, kw_g = {"avg_fn": tswa.get_swa_avg_fn()}, {"avg_fn": gswa.get_swa_avg_fn()}
    elif kind == "use_buffers":
        kw_t, kw_g = {"use_buffers": True}, {"use_buffers": True}
    ta, ga = tswa.AveragedModel(tm, **kw_t), gswa.AveragedModel(gm, **kw_g)
    for step in range(4):
        _perturb(tm, gm, step)
        ta.update_parameters(tm)
        ga.update_parameters(gm)
    _same_state(ta, ga)
    assert int(ga.n_averaged) == int(ta.n_averaged) == 4
    x = np.random.default_rng(9).standard_normal((3, 4)).astype("float32")
    ta.eval()
    ga.eval()
    np.testing.assert_allclose(ga(gt.tensor(x)).detach().numpy(), ta(torch.tensor(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_update_bn_matches_torch():
    tm, gm = _pair_models()
    tm.eval()
    gm.eval()
    tm[1].momentum = gm[1].momentum = 0.3
    batches = [np.random.default_rng(i).standard_normal((6, 4)).astype("float32") for i in range(3)]
    tswa.update_bn([torch.tensor(b) for b in batches], tm)
    gswa.update_bn([gt.tensor(b) for b in batches], gm)
    _same_state(tm, gm)
    assert gm[1].momentum == tm[1].momentum == 0.3
    assert gm.training is tm.training is False


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 3])
def test_swalr_sequence_matches_torch(strategy, anneal_epochs):
    tw, gw = torch.zeros(2, requires_grad=True), gt.zeros(2, requires_grad=True)
    topt = torch.optim.SGD([{"params": [tw], "lr": 0.5}, {"params": [torch.zeros(1, requires_grad=True)]}], lr=0.2)
    gopt = gt.optim.SGD([{"params": [gw], "lr": 0.5}, {"params": [gt.zeros(1, requires_grad=True)]}], lr=0.2)
    ts = tswa.SWALR(topt, swa_lr=[0.05, 0.01], anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    gs = gswa.SWALR(gopt, swa_lr=[0.05, 0.01], anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    for _ in range(6):
        assert gs.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
        topt.step()
        gopt.step()
        ts.step()
        gs.step()


@pytest.mark.parametrize("kwargs", [{"anneal_strategy": "exp"}, {"anneal_epochs": -1}, {"anneal_epochs": 1.5}])
def test_swalr_errors_match_torch(kwargs):
    topt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    gopt = gt.optim.SGD([gt.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(Exception) as te:
        tswa.SWALR(topt, swa_lr=0.05, **kwargs)
    with pytest.raises(Exception) as ge:
        gswa.SWALR(gopt, swa_lr=0.05, **kwargs)
    assert type(ge.value) is type(te.value) and str(ge.value) == str(te.value)


def test_decay_error_matches_torch():
    with pytest.raises(ValueError) as te:
        tswa.get_ema_multi_avg_fn(1.5)
    with pytest.raises(ValueError) as ge:
        gswa.get_ema_multi_avg_fn(1.5)
    assert str(ge.value) == str(te.value)


@pytest.mark.parametrize("tensor_n", [True, False])
def test_swa_multi_avg_fn_matches_torch(tensor_n):
    gn, tn = (gt.tensor(2), torch.tensor(2)) if tensor_n else (2, 2)
    ga, ta = [gt.tensor([0.1, 0.7])], [torch.tensor([0.1, 0.7])]
    gswa.get_swa_multi_avg_fn()(ga, [gt.tensor([0.3, 0.2])], gn)
    tswa.get_swa_multi_avg_fn()(ta, [torch.tensor([0.3, 0.2])], tn)
    assert ga[0].numpy().tobytes() == ta[0].numpy().tobytes()
    with pytest.raises(RuntimeError) as te:  # integer tensors: torch's addcdiv_ / alpha errors
        tswa.get_swa_multi_avg_fn()([torch.tensor([4, 7])], [torch.tensor([9, 2])], torch.tensor(1) if tensor_n else 1)
    with pytest.raises(RuntimeError) as ge:
        gswa.get_swa_multi_avg_fn()([gt.tensor([4, 7])], [gt.tensor([9, 2])], gt.tensor(1) if tensor_n else 1)
    assert str(ge.value) == str(te.value)
