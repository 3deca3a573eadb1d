"""glasstorch.optim.lr_scheduler against torch.optim.lr_scheduler: the lr (and momentum) sequence over 30
steps, state_dict contents and round trips, the warnings and the error messages."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from oracle import assert_same_error

import glasstorch as gt

STEPS = 30


def _opt(m, name="SGD", **kw):
    p = m.zeros(3, requires_grad=True)
    q = m.zeros(2, requires_grad=True)
    groups = [{"params": [p]}, {"params": [q], "lr": 0.05}]
    if name == "SGD":
        return getattr(m.optim, name)(groups, lr=0.1, momentum=0.9, **kw)
    return getattr(m.optim, name)(groups, lr=0.1, **kw)


def _sched(m, kind, opt):
    S = m.optim.lr_scheduler
    return {
        "lambda": lambda: S.LambdaLR(opt, lambda e: 0.95 ** e),
        "lambda_list": lambda: S.LambdaLR(opt, [lambda e: 1.0 / (e + 1), lambda e: 0.9 ** e]),
        "multiplicative": lambda: S.MultiplicativeLR(opt, lambda e: 0.9),
        "step": lambda: S.StepLR(opt, step_size=5, gamma=0.5),
        "multistep": lambda: S.MultiStepLR(opt, milestones=[3, 7, 7, 12], gamma=0.3),
        "constant": lambda: S.ConstantLR(opt, factor=0.5, total_iters=4),
        "linear": lambda: S.LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=8),
        "linear_down": lambda: S.LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=10),
        "exponential": lambda: S.ExponentialLR(opt, gamma=0.9),
        "polynomial": lambda: S.PolynomialLR(opt, total_iters=12, power=2.0),
        "cosine": lambda: S.CosineAnnealingLR(opt, T_max=10, eta_min=0.001),
        "cosine_long": lambda: S.CosineAnnealingLR(opt, T_max=7),
        "warm_restarts": lambda: S.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2, eta_min=0.001),
        "cyclic": lambda: S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4),
        "cyclic2": lambda: S.CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5,
                                      mode="triangular2"),
        "cyclic_exp": lambda: S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4, mode="exp_range",
                                         gamma=0.95, cycle_momentum=False),
        "onecycle": lambda: S.OneCycleLR(opt, max_lr=0.1, total_steps=STEPS + 1),
        "onecycle_linear3": lambda: S.OneCycleLR(opt, max_lr=[0.1, 0.2], epochs=4, steps_per_epoch=8,
                                                 anneal_strategy="linear", three_phase=True),
        "sequential": lambda: S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.1, total_iters=5),
                                                   S.ExponentialLR(opt, gamma=0.9)], milestones=[5]),
        "sequential3": lambda: S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=3),
                                                    S.StepLR(opt, step_size=3, gamma=0.5),
                                                    S.CosineAnnealingLR(opt, T_max=8)], milestones=[4, 12]),
        "chained": lambda: S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=6),
                                               S.ExponentialLR(opt, gamma=0.95)]),
    }[kind]()


KINDS = ["lambda", "lambda_list", "multiplicative", "step", "multistep", "constant", "linear", "linear_down",
         "exponential", "polynomial", "cosine", "cosine_long", "warm_restarts", "cyclic", "cyclic2", "cyclic_exp",
         "onecycle", "onecycle_linear3", "sequential", "sequential3", "chained"]


def _trace(m, kind, opt_name="SGD", steps=STEPS):
    opt = _opt(m, opt_name)
    sched = _sched(m, kind, opt)
    out = [(sched.get_last_lr(), _momenta(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append((sched.get_last_lr(), _momenta(opt)))
        assert [g["lr"] for g in opt.param_groups] == sched.get_last_lr()
    return out, sched, opt


def _momenta(opt):
    return [g["momentum"] if "momentum" in g else g["betas"] for g in opt.param_groups]


def _close(a, b) -> bool:
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return a == b or math.isclose(a, b, rel_tol=1e-14, abs_tol=1e-17)


@pytest.mark.parametrize("kind", KINDS)
def test_lr_sequence_matches_torch(kind):
    steps = 31 if kind == "onecycle_linear3" else STEPS
    tg, _, _ = _trace(gt, kind, steps=steps)
    tt, _, _ = _trace(torch, kind, steps=steps)
    for i, (a, b) in enumerate(zip(tg, tt, strict=True)):
        assert _close(a, b), f"step {i}: {a} vs {b}"


@pytest.mark.parametrize("kind", ["onecycle", "cyclic"])
def test_momentum_cycles_betas_of_adam(kind):
    tg, _, _ = _trace(gt, kind, "Adam")
    tt, _, _ = _trace(torch, kind, "Adam")
    assert all(_close(a, b) for a, b in zip(tg, tt, strict=True))


def _comparable_state(sd):
    out = {}
    for k, v in sd.items():
        if callable(v) or k in ("_scale_fn_ref",):
            continue
        out[k] = _comparable_state(v) if isinstance(v, dict) else (
            [_comparable_state(x) if isinstance(x, dict) else x for x in v] if isinstance(v, list) else v)
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_state_dict_matches_torch_and_round_trips(kind):
    _, sg, _ = _trace(gt, kind, steps=7)
    _, st, ot = _trace(torch, kind, steps=7)
    sd_g, sd_t = sg.state_dict(), st.state_dict()
    assert list(sd_g.keys()) == list(sd_t.keys())
    assert _close(list(_comparable_state(sd_g).values()), list(_comparable_state(sd_t).values())) or \
        _comparable_state(sd_g) == _comparable_state(sd_t)
    # a fresh scheduler loading the state continues exactly like torch's original one
    opt2 = _opt(gt)
    for g2, g1 in zip(opt2.param_groups, sg.optimizer.param_groups, strict=True):
        g2.update({k: v for k, v in g1.items() if k != "params"})
    s2 = _sched(gt, kind, opt2)
    for g2, g1 in zip(opt2.param_groups, sg.optimizer.param_groups, strict=True):
        g2.update({k: v for k, v in g1.items() if k != "params"})
    s2.load_state_dict(sg.state_dict())
    for _ in range(5):
        opt2.step()
        s2.step()
        ot.step()
        st.step()
        assert _close(s2.get_last_lr(), st.get_last_lr())


@pytest.mark.parametrize("mode,threshold_mode", [("min", "rel"), ("min", "abs"), ("max", "rel"), ("max", "abs")])
def test_reduce_on_plateau_matches_torch(mode, threshold_mode):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.85, 0.86, 0.87, 0.88, 0.89] * 2
    if mode == "max":
        metrics = [-x for x in metrics]
    traces, scheds = [], []
    for m in (gt, torch):
        opt = _opt(m)
        s = m.optim.lr_scheduler.ReduceLROnPlateau(opt, mode=mode, factor=0.5, patience=2, threshold=0.01,
                                                   threshold_mode=threshold_mode, cooldown=1, min_lr=[0.01, 0.02],
                                                   eps=1e-4)
        tr = []
        for x in metrics:
            opt.step()
            s.step(x)
            tr.append((s.get_last_lr(), s.num_bad_epochs, s.cooldown_counter, s.best, s.last_epoch))
        traces.append(tr)
        scheds.append(s)
    assert traces[0] == traces[1]
    assert scheds[0].state_dict() == scheds[1].state_dict()
    s2 = gt.optim.lr_scheduler.ReduceLROnPlateau(_opt(gt))
    s2.load_state_dict(scheds[0].state_dict())
    assert s2.state_dict() == scheds[1].state_dict()


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message)) for w in rec]


def test_step_before_optimizer_step_warns_like_torch():
    def run(m):
        opt = _opt(m)
        sched = m.optim.lr_scheduler.StepLR(opt, 2)
        return _warnings_of(sched.step)

    got, want = run(gt), run(torch)
    assert got == want and len(want) == 1 and "Detected call of `lr_scheduler.step()`" in want[0][1]


def _step_both(opt, sched):
    opt.step()
    sched.step()


def test_no_warning_in_the_right_order_and_get_lr_warning():
    for m in (gt, torch):
        opt = _opt(m)
        sched = m.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        assert _warnings_of(lambda o=opt, s=sched: _step_both(o, s)) == []
    got = _warnings_of(lambda: gt.optim.lr_scheduler.StepLR(_opt(gt), 2).get_lr())
    want = _warnings_of(lambda: torch.optim.lr_scheduler.StepLR(_opt(torch), 2).get_lr())
    assert got == want and len(want) == 1


def test_overridden_optimizer_step_warns_like_torch():
    def run(m):
        opt = _opt(m)
        sched = m.optim.lr_scheduler.StepLR(opt, 2)
        opt.step = lambda: None
        return _warnings_of(sched.step)

    assert run(gt) == run(torch)


def test_epoch_argument_uses_closed_form_with_deprecation_warning():
    out = []
    for m in (gt, torch):
        opt = _opt(m)
        sched = m.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
        opt.step()
        w = _warnings_of(lambda s=sched: s.step(7))
        out.append((w, sched.get_last_lr()))
    assert out[0][0] == out[1][0] and _close(out[0][1], out[1][1])


def test_resume_with_last_epoch():
    for kind_kwargs in [dict(T_max=10)]:
        res = []
        for m in (gt, torch):
            opt = _opt(m)
            for g in opt.param_groups:
                g["initial_lr"] = g["lr"]
            s = m.optim.lr_scheduler.CosineAnnealingLR(opt, last_epoch=4, **kind_kwargs)
            lrs = [s.get_last_lr()]
            for _ in range(8):
                opt.step()
                s.step()
                lrs.append(s.get_last_lr())
            res.append(lrs)
        assert _close(res[0], res[1])


def test_tensor_lr_is_updated_in_place():
    res = []
    for m in (gt, torch):
        p = m.zeros(2, requires_grad=True)
        lr = m.tensor(0.1)
        opt = m.optim.SGD([p], lr=lr)
        s = m.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for _ in range(5):
            opt.step()
            s.step()
        assert opt.param_groups[0]["lr"] is lr
        res.append((lr.item(), [x.item() for x in s.get_last_lr()], type(s.get_last_lr()[0]).__name__))
    assert res[0] == res[1]


def _scheduler_errors(m):
    S = m.optim.lr_scheduler

    def opt():
        return _opt(m)

    return [
        lambda: S.StepLR(object(), 2),
        lambda: S.CosineAnnealingLR(opt(), T_max=5, last_epoch=3),
        lambda: S.LambdaLR(opt(), [lambda e: 1.0]),
        lambda: S.MultiplicativeLR(opt(), 3),
        lambda: S.ConstantLR(opt(), factor=1.5),
        lambda: S.LinearLR(opt(), start_factor=0.0),
        lambda: S.LinearLR(opt(), end_factor=1.5),
        lambda: S.SequentialLR(opt(), [], milestones=[]),
        lambda: S.SequentialLR(opt(), [S.StepLR(opt(), 2)], milestones=[3]),
        lambda: S.ChainedScheduler([]),
        lambda: S.ReduceLROnPlateau(opt(), factor=1.0),
        lambda: S.ReduceLROnPlateau(opt(), mode="middle"),
        lambda: S.ReduceLROnPlateau(opt(), threshold_mode="log"),
        lambda: S.ReduceLROnPlateau(opt(), min_lr=[0.1]),
        lambda: S.CyclicLR(opt(), 0.01, 0.1, mode="wavy"),
        lambda: S.CyclicLR(m.optim.Adagrad([m.zeros(1, requires_grad=True)]), 0.01, 0.1),
        lambda: S.CyclicLR(opt(), [0.01], 0.1),
        lambda: S.CosineAnnealingWarmRestarts(opt(), T_0=0),
        lambda: S.CosineAnnealingWarmRestarts(opt(), T_0=2, T_mult=0),
        lambda: S.OneCycleLR(opt(), 0.1),
        lambda: S.OneCycleLR(opt(), 0.1, total_steps=0),
        lambda: S.OneCycleLR(opt(), 0.1, total_steps=10, pct_start=1.5),
        lambda: S.OneCycleLR(opt(), 0.1, total_steps=10, anneal_strategy="exp"),
        lambda: S.OneCycleLR(opt(), 0.1, epochs=0, steps_per_epoch=2),
    ]


@pytest.mark.parametrize("case", range(24))
def test_errors_match_torch(case):
    assert_same_error(_scheduler_errors(gt)[case], _scheduler_errors(torch)[case])


def test_onecycle_past_total_steps_raises_like_torch():
    def run(m):
        opt = _opt(m)
        s = m.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=3)
        for _ in range(4):
            opt.step()
            s.step()

    assert_same_error(lambda: run(gt), lambda: run(torch))


def test_initial_lr_and_base_lrs():
    for m in (gt, torch):
        opt = _opt(m)
        s = m.optim.lr_scheduler.StepLR(opt, 3)
        assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.05] == s.base_lrs
        assert s.last_epoch == 0 and s._step_count == 1
