"""glasstorch.amp.GradScaler against torch.amp.GradScaler: skipped steps and backoff on inf/NaN, growth after
growth_interval, the scaling ops themselves, state_dict, errors, and the disabled (no CUDA) fallback."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from optim_oracle import compare_tensor
from oracle import assert_same_error

import glasstorch as gt
from glasstorch.amp._scaling_ops import _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_

INF_AT = {2: float("inf"), 5: float("nan"), 6: float("-inf")}


def _train(m, opt_name, kw, iters=12, growth_interval=3, inject=INF_AT, scaler_kw=None):
    """A quadratic model trained with scaled losses; ``inject`` poisons one grad element at some iterations."""
    A = m.tensor([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]])
    b = m.tensor([0.5, -1.0])
    w = m.tensor([0.1, 0.2, 0.3], requires_grad=True)
    opt = getattr(m.optim, opt_name)([w], **kw)
    scaler = m.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=growth_interval, **(scaler_kw or {}))
    trace = []
    for it in range(iters):
        opt.zero_grad()
        loss = ((A @ w - b) ** 2).sum()
        scaler.scale(loss).backward()
        if it in inject:
            w.grad[1] = inject[it]
        ret = scaler.step(opt)
        scaler.update()
        trace.append((ret, scaler.get_scale(), scaler._get_growth_tracker(), w.tolist()))
    return w, trace, scaler, opt


@pytest.mark.parametrize("opt_name,kw", [
    ("SGD", dict(lr=0.01, momentum=0.9)),
    ("Adam", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, amsgrad=True)),
    ("Adam", dict(lr=0.05, fused=True)),  # fused optimizers get grad_scale/found_inf and unscale themselves
    ("SGD", dict(lr=0.01, momentum=0.9, fused=True)),
    ("Adagrad", dict(lr=0.1, fused=True)),
])
def test_skips_backs_off_and_grows_like_torch(opt_name, kw):
    wg, tg, sg, og = _train(gt, opt_name, kw)
    wt, tt, st, ot = _train(torch, opt_name, kw)
    assert [t[:3] for t in tg] == [t[:3] for t in tt]
    for it, (a, b) in enumerate(zip(tg, tt, strict=True)):
        assert a[3] == pytest.approx(b[3], rel=1e-6, abs=1e-7), f"iteration {it}"
    for it in INF_AT:  # the poisoned iterations were skipped: the weights did not move
        assert tg[it][3] == tg[it - 1][3]
    compare_tensor(wg, wt, rtol=1e-6)
    assert sg.state_dict() == st.state_dict()
    if "Adam" in opt_name:  # a skipped step does not count in the optimizer's `step`
        assert og.state[og.param_groups[0]["params"][0]]["step"].item() == 9.0


def test_growth_after_growth_interval():
    _, tg, _, _ = _train(gt, "SGD", dict(lr=0.001), iters=7, growth_interval=2, inject={})
    _, tt, _, _ = _train(torch, "SGD", dict(lr=0.001), iters=7, growth_interval=2, inject={})
    assert [t[:3] for t in tg] == [t[:3] for t in tt]
    assert [t[1] for t in tg] == [1024.0, 2048.0, 2048.0, 4096.0, 4096.0, 8192.0, 8192.0]


def test_two_optimizers_share_one_update():
    res = []
    for m in (gt, torch):
        w1 = m.tensor([1.0, 2.0], requires_grad=True)
        w2 = m.tensor([3.0], requires_grad=True)
        o1, o2 = m.optim.SGD([w1], lr=0.1), m.optim.Adam([w2], lr=0.1)
        s = m.amp.GradScaler("cpu", init_scale=64.0, growth_interval=1)
        trace = []
        for it in range(4):
            o1.zero_grad()
            o2.zero_grad()
            s.scale((w1 * w1).sum() + (w2 * w1[0]).sum()).backward()
            if it == 1:
                w2.grad.fill_(float("inf"))  # only the second optimizer overflows: it alone skips
            s.step(o1)
            s.step(o2)
            s.update()
            trace.append((w1.tolist(), w2.tolist(), s.get_scale()))
        res.append(trace)
    assert str(res[0]) == str(res[1])


def test_unscale_then_clip_like_torch():
    out = []
    for m in (gt, torch):
        w = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = m.optim.SGD([w], lr=0.1)
        scaler = m.amp.GradScaler("cpu", init_scale=8.0)
        scaler.scale((w * w).sum()).backward()
        scaler.unscale_(opt)
        unscaled = w.grad.tolist()
        with m.no_grad():
            w.grad.mul_(0.5)  # stands in for clip_grad_norm_ between unscale_ and step
        scaler.step(opt)
        scaler.update()
        out.append((unscaled, w.tolist(), scaler.state_dict()))
    assert out[0] == out[1]


def test_scale_nested_outputs():
    res = []
    for m in (gt, torch):
        s = m.amp.GradScaler("cpu", init_scale=4.0)
        a, b, c = m.tensor([1.0, 2.0]), m.tensor(3.0), m.tensor([0.5], dtype=m.float64)
        out = s.scale([a, (b, [c])])
        assert type(out) is list and type(out[1]) is tuple and type(out[1][1]) is list
        res.append((out[0].tolist(), out[1][0].item(), out[1][1][0].tolist(), str(out[1][1][0].dtype)))
        assert s._scale.dtype == m.float32 and s._growth_tracker.dtype == m.int32
        assert s._scale.shape == () and s._growth_tracker.shape == ()
        half = s.scale(m.ones(2, dtype=m.float16))
        assert half.dtype == m.float16
    assert res[0] == res[1]


def test_state_dict_and_load():
    sds = []
    for m in (gt, torch):
        s = m.amp.GradScaler("cpu", init_scale=16.0, growth_factor=3.0, backoff_factor=0.25, growth_interval=7)
        assert s.state_dict()["scale"] == 16.0  # before the lazy init
        s.scale(m.ones(1))
        s.load_state_dict({"scale": 2.0, "growth_factor": 4.0, "backoff_factor": 0.125, "growth_interval": 5,
                           "_growth_tracker": 3})
        sds.append((s.state_dict(), s.get_scale(), s.get_growth_factor(), s.get_backoff_factor(),
                    s.get_growth_interval(), s._get_growth_tracker()))
        s.set_growth_factor(5.0)
        s.set_backoff_factor(0.2)
        s.set_growth_interval(9)
        sds.append(s.state_dict())
    assert sds[0] == sds[2] and sds[1] == sds[3]


def test_update_with_new_scale():
    res = []
    for m in (gt, torch):
        s = m.amp.GradScaler("cpu")
        s.scale(m.ones(1))
        s.update(8.0)
        a = s.get_scale()
        s.update(m.tensor(32.0))
        res.append((a, s.get_scale()))
    assert res[0] == res[1] == (8.0, 32.0)


def _scaler_errors(m):
    def prepared(opt_kw=None):
        w = m.ones(2, requires_grad=True)
        opt = m.optim.SGD([w], lr=0.1, **(opt_kw or {}))
        s = m.amp.GradScaler("cpu")
        s.scale((w * w).sum()).backward()
        return s, opt

    def unscale_twice():
        s, opt = prepared()
        s.unscale_(opt)
        s.unscale_(opt)

    def unscale_after_step():
        s, opt = prepared()
        s.step(opt)
        s.unscale_(opt)

    def step_twice():
        s, opt = prepared()
        s.step(opt)
        s.step(opt)

    def closure():
        s, opt = prepared()
        s.step(opt, closure=lambda: 0.0)

    def no_scale_first():
        m.amp.GradScaler("cpu").step(m.optim.SGD([m.ones(1, requires_grad=True)]))

    def update_without_checks():
        s, _ = prepared()
        s.update()

    def fp16_grads():
        w = m.ones(2, dtype=m.float16, requires_grad=True)
        opt = m.optim.SGD([w], lr=0.1)
        s = m.amp.GradScaler("cpu")
        s.scale(m.ones(1))
        w.grad = m.ones(2, dtype=m.float16)
        s.step(opt)

    def bad_new_scale():
        s, _ = prepared()
        s.update(m.tensor([1.0, 2.0]))

    def load_empty():
        m.amp.GradScaler("cpu").load_state_dict({})

    def no_params_with_grads():
        s, opt = prepared()
        for g in opt.param_groups:
            g["params"][0].grad = None
        s.step(opt)

    return [unscale_twice, unscale_after_step, step_twice, closure, no_scale_first, update_without_checks,
            fp16_grads, bad_new_scale, load_empty, no_params_with_grads,
            lambda: m.amp.GradScaler("cpu", growth_factor=1.0),
            lambda: m.amp.GradScaler("cpu", backoff_factor=1.0),
            lambda: m.amp.GradScaler("cpu").scale([1.0])]


@pytest.mark.parametrize("case", range(13))
def test_errors_match_torch(case):
    assert_same_error(_scaler_errors(gt)[case], _scaler_errors(torch)[case])


def test_default_cuda_scaler_disables_itself_without_cuda():
    results = []
    for m in (gt, torch):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            s = m.amp.GradScaler()
        w = m.ones(2, requires_grad=True)
        opt = m.optim.SGD([w], lr=0.5)
        loss = (w * w).sum()
        assert s.scale(loss) is loss
        loss.backward()
        s.unscale_(opt)
        ret = s.step(opt)
        s.update()
        results.append(([(x.category.__name__, str(x.message)) for x in rec], s.is_enabled(), ret, w.tolist(),
                        s.state_dict(), s.get_scale(), s._get_growth_tracker()))
        s.load_state_dict({})  # a no-op when disabled
    assert results[0] == results[1]
    assert results[0][1] is False and len(results[0][0]) == 1


def test_disabled_scaler_passes_through():
    for m in (gt, torch):
        s = m.amp.GradScaler("cpu", enabled=False)
        w = m.ones(1, requires_grad=True)
        opt = m.optim.SGD([w], lr=0.5)
        w.grad = m.ones(1)
        assert s.step(opt, closure=lambda: 3.0) == 3.0
        assert not s.is_enabled() and s.get_scale() == 1.0 and s.state_dict() == {}


# --- the two scaling ops ----------------------------------------------------------------------------------


def test_non_finite_check_and_unscale_matches_torch():
    vals = [[1.0, 2.0, 3.0], [4.0, float("nan")], [float("inf"), 0.5]]
    for grads_vals in ([vals[0]], [vals[0], vals[1]], [vals[2]]):
        res = []
        for m, op in ((gt, _amp_foreach_non_finite_check_and_unscale_),
                      (torch, torch._amp_foreach_non_finite_check_and_unscale_)):
            grads = [m.tensor(v, dtype=m.float64) for v in grads_vals] + [m.tensor([2.0, 6.0])]
            found = m.zeros(())
            op(grads, found, m.tensor(0.25))
            res.append(([g.tolist() for g in grads], found.item()))
        assert str(res[0]) == str(res[1])


@pytest.mark.parametrize("scale,growth,backoff,found,tracker,interval", [
    (3.0, 1.1, 0.5, 0.0, 0, 1), (7.0, 1.3, 0.3, 1.0, 5, 3), (65536.0, 2.0, 0.5, 0.0, 1, 3),
    (3e38, 2.0, 0.5, 0.0, 0, 1), (2e38, 1.5, 0.5, 0.0, 0, 1), (1.7, 1.0000001, 0.3, 2.0, 0, 1),
])
def test_update_scale_matches_torch(scale, growth, backoff, found, tracker, interval):
    res = []
    for m, op in ((gt, _amp_update_scale_), (torch, torch._amp_update_scale_)):
        s = m.tensor(scale)
        t = m.tensor(tracker, dtype=m.int32)
        out = op(s, t, m.tensor(found), growth, backoff, interval)
        assert out is s
        res.append((s.item(), t.item()))
    assert res[0] == res[1] or all(math.isclose(a, b, rel_tol=0) for a, b in zip(res[0], res[1], strict=True))


def _op_errors(m, unscale, update):
    f32 = m.float32
    return [
        lambda: unscale([m.ones(2)], m.zeros(()), m.ones(2)),
        lambda: unscale([m.ones(2)], m.zeros(2), m.ones(())),
        lambda: unscale([m.ones(2)], m.zeros((), dtype=m.float64), m.ones(())),
        lambda: unscale([m.ones(2)], m.zeros(()), m.ones((), dtype=m.float64)),
        lambda: unscale([m.ones(2, dtype=m.int32)], m.zeros(()), m.ones(())),
        lambda: update(m.ones((), dtype=m.float64), m.zeros(2, dtype=m.int32), m.zeros(()), 2.0, 0.5, 3),
        lambda: update(m.ones(()), m.zeros((), dtype=m.int64), m.zeros((), dtype=f32), 2.0, 0.5, 3),
        lambda: update(m.ones((), dtype=m.float64), m.zeros((), dtype=m.int32), m.zeros(()), 2.0, 0.5, 3),
        lambda: update(m.ones(()), m.zeros((), dtype=m.int32), m.zeros((), dtype=m.float64), 2.0, 0.5, 3),
    ]


@pytest.mark.parametrize("case", range(9))
def test_scaling_op_errors_match_torch(case):
    got = _op_errors(gt, _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_)[case]
    want = _op_errors(torch, torch._amp_foreach_non_finite_check_and_unscale_, torch._amp_update_scale_)[case]
    assert_same_error(got, want)
