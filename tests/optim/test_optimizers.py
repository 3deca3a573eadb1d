"""glasstorch.optim optimizers against torch.optim: parameters and state after every step, state_dict
structure and round trips, error types and messages, hooks, zero_grad and parameter identity."""

from __future__ import annotations

import importlib
import warnings

import pytest
import torch
from optim_oracle import (
    GRADS,
    compare_state_dicts,
    compare_tensor,
    make_params,
    set_grads,
    torch_to_gt_tree,
)
from oracle import assert_same_error

import glasstorch as gt

# (optimizer name, kwargs builder taking the library) — every config runs 10 steps in both libraries.
CONFIGS = [
    ("SGD", lambda m: dict(lr=0.05)),
    ("SGD", lambda m: dict(lr=0.05, momentum=0.9)),
    ("SGD", lambda m: dict(lr=0.05, momentum=0.9, dampening=0.3)),
    ("SGD", lambda m: dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    ("SGD", lambda m: dict(lr=0.05, weight_decay=0.2, maximize=True)),
    ("SGD", lambda m: dict(lr=m.tensor(0.05), momentum=0.5)),
    ("SGD", lambda m: dict(lr=0.05, momentum=0.9, foreach=True)),
    ("SGD", lambda m: dict(lr=0.05, momentum=0.9, fused=True)),
    ("Adam", lambda m: dict(lr=0.01)),
    ("Adam", lambda m: dict(lr=0.01, amsgrad=True)),
    ("Adam", lambda m: dict(lr=0.01, weight_decay=0.1)),
    ("Adam", lambda m: dict(lr=0.02, betas=(0.8, 0.95), eps=1e-3, amsgrad=True, weight_decay=0.05, maximize=True)),
    ("Adam", lambda m: dict(lr=m.tensor(0.01), weight_decay=0.1)),
    # float32 tensor betas make the bias corrections float32 tensors: PyTorch's float32 sqrt (MKL VML) is not
    # always correctly rounded, so this one is compared to float32 precision (see _rtol)
    ("Adam", lambda m: dict(lr=0.01, betas=(m.tensor(0.85), m.tensor(0.99)))),
    ("Adam", lambda m: dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", lambda m: dict(lr=0.01, amsgrad=True, foreach=True)),
    ("Adam", lambda m: dict(lr=0.01, amsgrad=True, fused=True)),
    ("AdamW", lambda m: dict(lr=0.01)),
    ("AdamW", lambda m: dict(lr=0.01, weight_decay=0.3, amsgrad=True)),
    ("AdamW", lambda m: dict(lr=m.tensor(0.01), maximize=True)),
    ("AdamW", lambda m: dict(lr=0.01, foreach=True)),
    ("AdamW", lambda m: dict(lr=0.01, fused=True)),
    ("RMSprop", lambda m: dict(lr=0.01)),
    ("RMSprop", lambda m: dict(lr=0.01, centered=True)),
    ("RMSprop", lambda m: dict(lr=0.01, momentum=0.9)),
    ("RMSprop", lambda m: dict(lr=0.01, alpha=0.9, centered=True, momentum=0.5, weight_decay=0.1, maximize=True)),
    ("RMSprop", lambda m: dict(lr=m.tensor(0.01), eps=1e-4, foreach=True)),
    ("Adagrad", lambda m: dict(lr=0.1)),
    ("Adagrad", lambda m: dict(lr=0.1, lr_decay=0.05)),
    ("Adagrad", lambda m: dict(lr=0.1, initial_accumulator_value=0.5, weight_decay=0.1, eps=1e-6)),
    ("Adagrad", lambda m: dict(lr=0.1, maximize=True, foreach=True)),
    ("Adagrad", lambda m: dict(lr=0.1, lr_decay=0.01, fused=True)),
]

IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CONFIGS)]


def _build(lib, name, kwargs_fn, groups=None, dtype="float64", param_cls=None):
    params = make_params(lib, dtype, param_cls)
    spec = params if groups is None else groups(params)
    return params, getattr(lib.optim, name)(spec, **kwargs_fn(lib))


def _rtol(kwargs_fn) -> float:
    betas = kwargs_fn(torch).get("betas", (0.9,))
    return 1e-6 if isinstance(betas[0], torch.Tensor) else 1e-13


@pytest.mark.parametrize("name,kwargs_fn", CONFIGS, ids=IDS)
def test_params_and_state_match_torch_each_step(name, kwargs_fn):
    pg, og = _build(gt, name, kwargs_fn)
    pt, ot = _build(torch, name, kwargs_fn)
    for step in range(10):
        set_grads(gt, pg, step)
        set_grads(torch, pt, step)
        assert og.step() is None and ot.step() is None
        for i, (a, b) in enumerate(zip(pg, pt, strict=True)):
            compare_tensor(a, b, msg=f"step {step} param {i}: ", rtol=_rtol(kwargs_fn))
    compare_state_dicts(og.state_dict(), ot.state_dict(), _rtol(kwargs_fn))


@pytest.mark.parametrize("name,kwargs_fn", CONFIGS[::3], ids=IDS[::3])
def test_two_groups_and_a_param_without_grad(name, kwargs_fn):
    def groups(p):
        return [{"params": [p[0], p[1]]}, {"params": [p[2]], "lr": 0.003}]

    pg, og = _build(gt, name, kwargs_fn, groups)
    pt, ot = _build(torch, name, kwargs_fn, groups)
    for step in range(6):
        set_grads(gt, pg, step, skip=(1,))
        set_grads(torch, pt, step, skip=(1,))
        og.step()
        ot.step()
    for a, b in zip(pg, pt, strict=True):
        compare_tensor(a, b, rtol=_rtol(kwargs_fn))
    sd_g, sd_t = og.state_dict(), ot.state_dict()
    assert list(sd_g["state"].keys()) == list(sd_t["state"].keys())
    compare_state_dicts(sd_g, sd_t, _rtol(kwargs_fn))


@pytest.mark.parametrize("name,kwargs_fn", CONFIGS[::2], ids=IDS[::2])
def test_state_dict_round_trip_continues_like_torch(name, kwargs_fn):
    pg, og = _build(gt, name, kwargs_fn)
    pt, ot = _build(torch, name, kwargs_fn)
    for step in range(4):
        set_grads(gt, pg, step)
        set_grads(torch, pt, step)
        og.step()
        ot.step()
    # a fresh glasstorch optimizer on the same params loads glasstorch's state; another loads torch's state
    og2 = getattr(gt.optim, name)(pg, **kwargs_fn(gt))
    og2.load_state_dict(og.state_dict())
    compare_state_dicts(og2.state_dict(), ot.state_dict(), _rtol(kwargs_fn))
    pg3 = [p.detach().clone().requires_grad_() for p in pg]
    og3 = getattr(gt.optim, name)(pg3, **kwargs_fn(gt))
    og3.load_state_dict(torch_to_gt_tree(ot.state_dict()))
    for step in range(4, 8):
        for params, lib in ((pg, gt), (pg3, gt), (pt, torch)):
            set_grads(lib, params, step)
        og2.step()
        og3.step()
        ot.step()
    for a, c, b in zip(pg, pg3, pt, strict=True):
        compare_tensor(a, b, rtol=_rtol(kwargs_fn))
        compare_tensor(c, b, rtol=_rtol(kwargs_fn))


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_float32_params_and_load_casts_state_like_torch(name):
    kw = (lambda m: dict(lr=0.01, momentum=0.9)) if name in ("SGD", "RMSprop") else (lambda m: dict(lr=0.01))
    pg, og = _build(gt, name, kw, dtype="float32")
    pt, ot = _build(torch, name, kw, dtype="float32")
    for step in range(5):
        set_grads(gt, pg, step)
        set_grads(torch, pt, step)
        og.step()
        ot.step()
    for a, b in zip(pg, pt, strict=True):
        compare_tensor(a, b, rtol=1e-6)  # float32: an ulp of sqrt/fma rounding may differ
    # float64 state loaded into float32 params: floating state is cast, `step` keeps its dtype
    pg64, og64 = _build(gt, name, kw)
    pt64, ot64 = _build(torch, name, kw)
    set_grads(gt, pg64, 0)
    set_grads(torch, pt64, 0)
    og64.step()
    ot64.step()
    og.load_state_dict(og64.state_dict())
    ot.load_state_dict(ot64.state_dict())
    compare_state_dicts(og.state_dict(), ot.state_dict(), rtol=1e-6)


def test_step_dtype_follows_default_dtype():
    for lib in (gt, torch):
        lib.set_default_dtype(lib.float64)
    try:
        pg, og = _build(gt, "Adam", lambda m: dict(lr=0.01))
        pt, ot = _build(torch, "Adam", lambda m: dict(lr=0.01))
        set_grads(gt, pg, 0)
        set_grads(torch, pt, 0)
        og.step()
        ot.step()
        compare_state_dicts(og.state_dict(), ot.state_dict())
    finally:
        for lib in (gt, torch):
            lib.set_default_dtype(lib.float32)


def test_gradients_from_a_quadratic_loss_with_closure():
    def run(lib, name, kw):
        A = lib.tensor([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]], dtype=lib.float64)
        b = lib.tensor([0.5, -1.0], dtype=lib.float64)
        w = lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64, requires_grad=True)
        opt = getattr(lib.optim, name)([w], **kw)
        losses = []

        def closure():
            opt.zero_grad()
            loss = ((A @ w - b) ** 2).sum()
            loss.backward()
            return loss

        for _ in range(10):
            losses.append(opt.step(closure).item())
        return w, losses

    for name, kw in [("SGD", dict(lr=0.02, momentum=0.9, nesterov=True)), ("Adam", dict(lr=0.05, amsgrad=True)),
                     ("AdamW", dict(lr=0.05)), ("RMSprop", dict(lr=0.01, centered=True)),
                     ("Adagrad", dict(lr=0.3))]:
        wg, lg = run(gt, name, kw)
        wt, lt = run(torch, name, kw)
        compare_tensor(wg, wt, msg=name)
        assert lg == pytest.approx(lt, rel=1e-13, abs=1e-15)


def test_update_is_in_place_and_keeps_identity():
    pg, og = _build(gt, "Adam", lambda m: dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True))
    before = [(id(p), p.untyped_storage().data_ptr(), p._version) for p in pg]
    set_grads(gt, pg, 0)
    og.step()
    after = [(id(p), p.untyped_storage().data_ptr(), p._version) for p in pg]
    for (i0, d0, v0), (i1, d1, v1) in zip(before, after, strict=True):
        assert (i0, d0) == (i1, d1) and v1 > v0
    assert all(p.requires_grad and p.is_leaf and p.grad_fn is None for p in pg)
    assert og.state[pg[0]]["exp_avg"] is og.state_dict()["state"][0]["exp_avg"]  # references, not copies


def test_zero_grad():
    pg, og = _build(gt, "SGD", lambda m: dict(lr=0.1))
    pt, ot = _build(torch, "SGD", lambda m: dict(lr=0.1))
    set_grads(gt, pg, 0)
    set_grads(torch, pt, 0)
    grad_objs = [p.grad for p in pg]
    og.zero_grad(set_to_none=False)
    ot.zero_grad(set_to_none=False)
    for p, q, obj in zip(pg, pt, grad_objs, strict=True):
        assert p.grad is obj
        compare_tensor(p.grad, q.grad, exact=True)
    og.zero_grad()
    ot.zero_grad()
    assert all(p.grad is None for p in pg) and all(p.grad is None for p in pt)


def test_repr_matches_torch():
    pg, og = _build(gt, "AdamW", lambda m: dict(lr=0.01), groups=lambda p: [{"params": p[:2]}, {"params": p[2:]}])
    pt, ot = _build(torch, "AdamW", lambda m: dict(lr=0.01), groups=lambda p: [{"params": p[:2]}, {"params": p[2:]}])
    assert repr(og) == repr(ot)


def test_named_parameters_groups():
    def groups(p):
        return [("a", p[0]), ("b", p[1]), ("c", p[2])]

    pg, og = _build(gt, "SGD", lambda m: dict(lr=0.1, momentum=0.9), groups)
    pt, ot = _build(torch, "SGD", lambda m: dict(lr=0.1, momentum=0.9), groups)
    set_grads(gt, pg, 0)
    set_grads(torch, pt, 0)
    og.step()
    ot.step()
    compare_state_dicts(og.state_dict(), ot.state_dict())
    assert og.param_groups[0]["param_names"] == ["a", "b", "c"]


def _errors(m):
    p = m.ones(2, dtype=m.float64, requires_grad=True)
    q = m.ones(2, dtype=m.float64, requires_grad=True)
    return [
        lambda: m.optim.SGD(p, lr=0.1),
        lambda: m.optim.SGD([], lr=0.1),
        lambda: m.optim.SGD([{"params": {p}}], lr=0.1),
        lambda: m.optim.SGD([p * 2], lr=0.1),
        lambda: m.optim.SGD([1], lr=0.1),
        lambda: m.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1),
        lambda: m.optim.SGD([("a", p), q], lr=0.1),
        lambda: m.optim.SGD([p], lr=0.1).add_param_group([q]),
        lambda: m.optim.SGD([("a", p)], lr=0.1).add_param_group({"params": [q]}),
        lambda: m.optim.SGD([p], lr=-1.0),
        lambda: m.optim.SGD([p], lr=m.tensor(-1.0)),
        lambda: m.optim.SGD([p], lr=m.tensor([0.1, 0.2])),
        lambda: m.optim.SGD([p], momentum=-0.5),
        lambda: m.optim.SGD([p], weight_decay=-0.5),
        lambda: m.optim.SGD([p], nesterov=True),
        lambda: m.optim.SGD([p], momentum=0.9, dampening=0.1, nesterov=True),
        lambda: m.optim.SGD([p], fused=True, foreach=True),
        lambda: m.optim.SGD([p], fused=True, differentiable=True),
        lambda: m.optim.Adam([p], lr=-0.1),
        lambda: m.optim.Adam([p], eps=-1.0),
        lambda: m.optim.Adam([p], betas=(1.0, 0.9)),
        lambda: m.optim.Adam([p], betas=(0.9, -0.1)),
        lambda: m.optim.Adam([p], weight_decay=-1.0),
        lambda: m.optim.Adam([p], betas=(0.9, m.tensor(0.99))),
        lambda: m.optim.Adam([p], lr=m.tensor(0.1), foreach=True),
        lambda: m.optim.Adam([p], betas=(m.tensor(0.9), m.tensor(0.99)), foreach=True),
        lambda: m.optim.Adam([p], betas=(m.tensor([0.9, 0.8]), m.tensor(0.99))),
        lambda: m.optim.AdamW([p], fused=True, foreach=True),
        lambda: m.optim.RMSprop([p], alpha=-0.1),
        lambda: m.optim.RMSprop([p], momentum=-0.1),
        lambda: m.optim.Adagrad([p], lr_decay=-0.1),
        lambda: m.optim.Adagrad([p], initial_accumulator_value=-0.1),
        lambda: m.optim.Optimizer([p], {}).step(),
    ]


@pytest.mark.parametrize("case", range(len(_errors(torch))))
def test_errors_match_torch(case):
    assert_same_error(_errors(gt)[case], _errors(torch)[case])


def _step_errors(m):
    def adam_capturable():
        p = m.ones(2, requires_grad=True)
        opt = m.optim.Adam([p], capturable=True)
        p.grad = m.ones(2)
        opt.step()

    def fused_int():
        p = m.ones(2, dtype=m.int64)
        opt = m.optim.Adam([p], fused=True)
        p.grad = m.ones(2, dtype=m.int64)
        opt.step()

    def load_groups():
        p = m.ones(2, requires_grad=True)
        m.optim.SGD([p]).load_state_dict({"state": {}, "param_groups": []})

    def load_sizes():
        p = m.ones(2, requires_grad=True)
        m.optim.SGD([p]).load_state_dict({"state": {}, "param_groups": [{"params": [0, 1], "lr": 0.1}]})

    def required_lr():
        required = importlib.import_module(m.__name__ + ".optim.optimizer").required
        m.optim.Optimizer([m.ones(1, requires_grad=True)], {"lr": required})

    return [adam_capturable, fused_int, load_groups, load_sizes, required_lr]


@pytest.mark.parametrize("case", range(5))
def test_step_and_load_errors_match_torch(case):
    assert_same_error(_step_errors(gt)[case], _step_errors(torch)[case])


def test_duplicate_param_warning_matches_torch():
    msgs = []
    for m in (gt, torch):
        p = m.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            m.optim.SGD([p, p], lr=0.1)
        msgs.append([str(w.message) for w in rec])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1


def test_step_hooks():
    for m in (gt, torch):
        p = m.ones(2, requires_grad=True)
        opt = m.optim.SGD([p], lr=0.1)
        calls = []
        record = calls.append
        h1 = opt.register_step_pre_hook(lambda o, a, k, opt=opt, record=record: record(("pre", o is opt)))
        opt.register_step_post_hook(lambda o, a, k, record=record: record(("post", len(a))))
        optimizer_module = importlib.import_module(m.__name__ + ".optim.optimizer")
        hg = optimizer_module.register_optimizer_step_pre_hook(lambda o, a, k, record=record: record(("global", 0)))
        p.grad = m.ones(2)
        opt.step()
        h1.remove()
        hg.remove()
        opt.step()
        assert calls == [("global", 0), ("pre", True), ("post", 1), ("post", 1)], m.__name__
        # a pre hook may replace the arguments: here it injects a closure
        opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: 7.0}))
        assert opt.step() == 7.0


def test_state_dict_hooks():
    for m in (gt, torch):
        p = m.ones(2, requires_grad=True)
        opt = m.optim.SGD([p], lr=0.1, momentum=0.9)
        order = []
        record = order.append
        opt.register_state_dict_pre_hook(lambda o, record=record: record("pre"))
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        opt.register_load_state_dict_pre_hook(lambda o, sd, record=record: record("load_pre"))
        opt.register_load_state_dict_post_hook(lambda o, record=record: record("load_post"), prepend=True)
        sd = opt.state_dict()
        assert sd["extra"] == 1
        opt.load_state_dict(sd)
        assert order == ["pre", "load_pre", "load_post"]


def test_lr_from_loaded_group_overrides_current():
    for m in (gt, torch):
        p = m.ones(2, requires_grad=True)
        a = m.optim.SGD([p], lr=0.5)
        b = m.optim.SGD([p], lr=0.1)
        b.load_state_dict(a.state_dict())
        assert b.param_groups[0]["lr"] == 0.5 and b.param_groups[0]["params"][0] is p


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
def test_differentiable_sgd_and_adam_gradients_match_torch():
    def run(m, name, kw):
        w = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        p = w * 1.0  # a non-leaf: allowed with differentiable=True
        opt = getattr(m.optim, name)([p], differentiable=True, **kw)
        p.grad = m.tensor([0.1, 0.2, -0.3], dtype=m.float64)
        opt.step()
        (p * p).sum().backward()
        return p, w.grad

    for name, kw in [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)), ("Adam", dict(lr=0.1))]:
        pg, gg = run(gt, name, kw)
        pt, gtt = run(torch, name, kw)
        compare_tensor(pg, pt)
        compare_tensor(gg, gtt)


@pytest.mark.skipif(not hasattr(gt.nn, "Parameter"), reason="glasstorch.nn.Parameter not written yet")
def test_with_nn_parameter():
    for name, kw in [("SGD", lambda m: dict(lr=0.1, momentum=0.9)), ("Adam", lambda m: dict(lr=0.01))]:
        pg, og = _build(gt, name, kw, param_cls=gt.nn.Parameter)
        pt, ot = _build(torch, name, kw, param_cls=torch.nn.Parameter)
        for step in range(3):
            set_grads(gt, pg, step)
            set_grads(torch, pt, step)
            og.step()
            ot.step()
        for a, b in zip(pg, pt, strict=True):
            compare_tensor(a, b)
            assert type(a) is gt.nn.Parameter


def test_grads_fixture_is_deterministic():
    assert len(GRADS) >= 10


@pytest.mark.skipif(not hasattr(gt.nn, "Linear"), reason="glasstorch.nn.Linear not written yet")
def test_training_a_module_with_adamw_and_a_scheduler_matches_torch():
    def run(m):
        model = m.nn.Linear(3, 2).double()
        with m.no_grad():
            model.weight.copy_(m.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], dtype=m.float64))
            model.bias.copy_(m.tensor([0.01, -0.02], dtype=m.float64))
        opt = m.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.1)
        sched = m.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=12)
        x = m.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.3, 0.3, -0.7]], dtype=m.float64)
        y = m.tensor([[0.5, -0.5], [1.0, 0.0], [0.0, 1.0]], dtype=m.float64)
        for _ in range(12):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            sched.step()
        return model, opt

    mg, og = run(gt)
    mt, ot = run(torch)
    compare_tensor(mg.weight, mt.weight)
    compare_tensor(mg.bias, mt.bias)
    compare_state_dicts(og.state_dict(), ot.state_dict())


@pytest.mark.filterwarnings("ignore:optimizer contains a parameter group with duplicate parameters")
def test_state_dict_indices_with_a_repeated_param():
    def run(m):
        p, q, r = (m.ones(1, requires_grad=True) for _ in range(3))
        opt = m.optim.SGD([{"params": [p, q, p]}, {"params": [r]}], lr=0.1, momentum=0.9)
        for t in (p, q, r):
            t.grad = m.ones(1)
        opt.step()
        sd = opt.state_dict()
        return [g["params"] for g in sd["param_groups"]], sorted(sd["state"])

    assert run(gt) == run(torch)
