"""Adam/AdamW's fast paths against torch.optim: ``fused=True`` (the ``_fused_adam_``/``_fused_adamw_`` ops and
their compiled CPU loop), the default single-tensor step's fast path (one compiled pass instead of ~10 ops per
parameter), the numpy fallback used without a C compiler, and clip_grad_norm_'s foreach route.

Values after several steps are compared with torch in float32 and float64 across amsgrad, weight decay,
maximize and both lerp branches (beta1 below and above 0.5), on sizes with and without a vector tail; the fast
path is also compared bit for bit with glasstorch's own per-op step, and version counters with torch's.
"""

from __future__ import annotations

import importlib
import itertools
import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same_error

import glasstorch as gt
import glasstorch.optim.adam as gt_adam
from glasstorch._ops.kernels.cpu import optim as optim_kernels
from glasstorch.backends.cpu import get_cpu_capability

SHAPES = [(37,), (3, 5), (), (8, 16), (1000,), (0,)]
_RNG = np.random.default_rng(7)
INIT = [_RNG.standard_normal(s) for s in SHAPES]
GRADS = [[_RNG.standard_normal(s) * (1 + k % 3) for s in SHAPES] for k in range(8)]
STEPS = 8
# torch's Tensor.sqrt() (MKL VML) is not correctly rounded (about 1 float32 result in 6 is an ulp off), so the
# single-tensor step — glasstorch's per-op one too — can only match it to a few ulps; its fused kernel is exact
TOL = {"float32": (5e-5, 1e-6), "float64": (1e-13, 1e-15)}
OPTIONS = list(itertools.product(["Adam", "AdamW"], [False, True], [0.0, 0.1], [False, True], [0.9, 0.3]))
OPTION_IDS = [f"{c}-ams{int(a)}-wd{w}-max{int(m)}-b{b}" for c, a, w, m, b in OPTIONS]


def _run(lib, cls, dtype, steps=STEPS, **kw):
    params = [lib.tensor(a, dtype=getattr(lib, dtype)).requires_grad_() for a in INIT]
    opt = getattr(lib.optim, cls)(params, **kw)
    for k in range(steps):
        for p, g in zip(params, GRADS[k], strict=True):
            p.grad = lib.tensor(g, dtype=getattr(lib, dtype))
        opt.step()
    return params, opt


def _kwargs(amsgrad, wd, maximize, beta1, **extra):
    return dict(lr=0.01, amsgrad=amsgrad, weight_decay=wd, maximize=maximize, betas=(beta1, 0.99), **extra)


def _close(a, b, dtype, exact=False):
    x, y = a.detach().numpy(), b.detach().numpy()
    assert x.dtype == y.dtype and x.shape == y.shape
    if exact:
        np.testing.assert_array_equal(x, y)
    else:
        rtol, atol = TOL[dtype]
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


def _compare_states(og, ot, dtype, exact=False):
    sg, st = og.state_dict(), ot.state_dict()
    assert sg["param_groups"] == st["param_groups"]
    assert list(sg["state"]) == list(st["state"])
    for i, s in st["state"].items():
        assert list(sg["state"][i]) == list(s)
        for key, t in s.items():
            assert repr(sg["state"][i][key].dtype) == repr(t.dtype), key
            _close(sg["state"][i][key], t, dtype, exact=exact or key == "step")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls,amsgrad,wd,maximize,beta1", OPTIONS, ids=OPTION_IDS)
def test_fused_matches_torch(cls, amsgrad, wd, maximize, beta1, dtype):
    kw = _kwargs(amsgrad, wd, maximize, beta1, fused=True)
    pg, og = _run(gt, cls, dtype, **kw)
    pt, ot = _run(torch, cls, dtype, **kw)
    exact = get_cpu_capability() == "AVX2"  # measured bit-exact there (Note [Adam rounding])
    for a, b in zip(pg, pt, strict=True):
        _close(a, b, dtype, exact=exact)
    _compare_states(og, ot, dtype, exact=exact)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls,amsgrad,wd,maximize,beta1", OPTIONS[::3], ids=OPTION_IDS[::3])
def test_default_step_matches_torch_and_the_per_op_step(cls, amsgrad, wd, maximize, beta1, dtype, monkeypatch):
    kw = _kwargs(amsgrad, wd, maximize, beta1)
    pg, og = _run(gt, cls, dtype, **kw)
    pt, ot = _run(torch, cls, dtype, **kw)
    for a, b in zip(pg, pt, strict=True):
        _close(a, b, dtype)
    _compare_states(og, ot, dtype)
    monkeypatch.setattr(gt_adam, "fast_adam", lambda params, *a, **k: list(range(len(params))))
    slow, _ = _run(gt, cls, dtype, **kw)
    for a, b in zip(pg, slow, strict=True):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())  # same rounding, op by op


@pytest.mark.parametrize("fused", [None, True])
def test_numpy_fallback_without_compiled_loop(fused, monkeypatch):
    kw = _kwargs(True, 0.1, True, 0.9, fused=fused)
    with_c, _ = _run(gt, "AdamW", "float64", steps=4, **kw)
    monkeypatch.setenv("GLASSTORCH_DISABLE_CKERNELS", "1")
    optim_kernels.reset()
    try:
        assert not optim_kernels.compiled_available()
        numpy_only, _ = _run(gt, "AdamW", "float64", steps=4, **kw)
        f32, _ = _run(gt, "AdamW", "float32", steps=4, **kw)
    finally:
        monkeypatch.delenv("GLASSTORCH_DISABLE_CKERNELS")
        optim_kernels.reset()
    for a, b in zip(with_c, numpy_only, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-15, atol=1e-16)
    pt, _ = _run(torch, "AdamW", "float32", steps=4, **kw)
    for a, b in zip(f32, pt, strict=True):
        _close(a, b, "float32")


def test_version_counters_match_torch():
    for cls, kw in (("Adam", {}), ("AdamW", {}), ("Adam", {"amsgrad": True, "weight_decay": 0.1}),
                    ("AdamW", {"weight_decay": 0.0})):
        versions = []
        for lib in (gt, torch):
            p = lib.ones(3, requires_grad=True)
            p.grad = lib.ones(3)
            opt = getattr(lib.optim, cls)([p], lr=0.1, **kw)
            opt.step()
            versions.append((p._version, p.grad._version, {k: v._version for k, v in opt.state[p].items()}))
        assert versions[0] == versions[1], (cls, kw)


def test_params_the_fast_path_leaves_to_the_per_op_step():
    """Strided params and a parameter listed twice take the per-op loop, with torch's results."""
    out = []
    for lib in (gt, torch):
        base = lib.tensor(np.arange(12.0).reshape(3, 4), dtype=lib.float32)
        p = base.t().contiguous().t().requires_grad_()  # transposed strides
        q = lib.ones(5, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.AdamW([p, q], lr=0.1)
        for k in range(3):
            p.grad = lib.tensor(GRADS[k][1][:3, :4], dtype=lib.float32)
            q.grad = lib.tensor(GRADS[k][0][:5], dtype=lib.float64)
            opt.step()
        out.append((p, q, p.stride()))
    (pg, qg, sg), (pt, qt, st) = out
    assert sg == st
    _close(pg, pt, "float32")
    _close(qg, qt, "float64")

    twice = []
    for lib in (gt, torch):
        p = lib.tensor(INIT[0], dtype=lib.float32).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "optimizer contains a parameter group with duplicate parameters"
            opt = lib.optim.Adam([p, p], lr=0.1)
        for k in range(3):
            p.grad = lib.tensor(GRADS[k][0], dtype=lib.float32)
            opt.step()
        twice.append((p, opt.state[p]["step"]))
    _close(twice[0][0], twice[1][0], "float32")
    _close(twice[0][1], twice[1][1], "float32", exact=True)


def test_fused_state_dict_round_trip_with_torch():
    kw = _kwargs(True, 0.1, False, 0.9, fused=True)
    pg, og = _run(gt, "AdamW", "float32", steps=3, **kw)
    pt, ot = _run(torch, "AdamW", "float32", steps=3, **kw)
    sd = ot.state_dict()
    assert repr(og.state_dict()["state"][0]["step"].dtype) == repr(sd["state"][0]["step"].dtype) == "torch.float32"
    fresh = [gt.tensor(p.detach().numpy()).requires_grad_() for p in pt]
    og2 = gt.optim.AdamW(fresh, **kw)
    og2.load_state_dict({"state": {i: {k: gt.tensor(v.numpy()) for k, v in s.items()} for i, s in sd["state"].items()},
                         "param_groups": sd["param_groups"]})
    for k in range(3, 6):
        for params, lib in ((fresh, gt), (pt, torch)):
            for p, g in zip(params, GRADS[k], strict=True):
                p.grad = lib.tensor(g, dtype=lib.float32)
        og2.step()
        ot.step()
    for a, b in zip(fresh, pt, strict=True):
        _close(a, b, "float32")
    _compare_states(og2, ot, "float32")


def _errors(m):
    p = m.ones(2, requires_grad=True)
    functional = importlib.import_module(m.__name__ + ".optim.adam").adam
    return [
        lambda: m.optim.AdamW([p], fused=True, differentiable=True),
        lambda: m.optim.Adam([p], fused=True, foreach=True),
        lambda: functional([p], [m.ones(2)], [m.zeros(2)], [m.zeros(2)], [], [m.tensor(0.0)], fused=True,
                                  differentiable=True, amsgrad=False, beta1=0.9, beta2=0.99, lr=0.1,
                                  weight_decay=0.0, eps=1e-8, maximize=False),
        lambda: functional([p], [m.ones(2)], [m.zeros(2)], [m.zeros(2)], [], [0], amsgrad=False, beta1=0.9,
                                  beta2=0.99, lr=0.1, weight_decay=0.0, eps=1e-8, maximize=False),
    ]


@pytest.mark.parametrize("case", range(4))
def test_fused_errors_match_torch(case):
    assert_same_error(_errors(gt)[case], _errors(torch)[case])


def test_fused_with_tensor_lr_and_grad_scaler_inputs():
    """The functional API with grad_scale/found_inf (what GradScaler passes to a fused optimizer)."""
    results = []
    for lib in (gt, torch):
        p = lib.tensor(INIT[0], dtype=lib.float32).requires_grad_()
        grad = lib.tensor(GRADS[0][0], dtype=lib.float32) * 8
        m, v, step = lib.zeros_like(p), lib.zeros_like(p), lib.tensor(0.0)
        adamw = importlib.import_module(lib.__name__ + ".optim.adamw").adamw
        with lib.no_grad():
            for inf in (0.0, 1.0, 0.0):
                adamw([p], [grad], [m], [v], [], [step], fused=True, amsgrad=False, beta1=0.9, beta2=0.99,
                      lr=lib.tensor(0.01), weight_decay=0.01, eps=1e-8, maximize=False, grad_scale=lib.tensor(2.0),
                      found_inf=lib.tensor(inf))
        results.append((p, grad, m, v, step))
    for a, b in zip(*results, strict=True):
        _close(a, b, "float32", exact=get_cpu_capability() == "AVX2")


def test_clip_grad_norm_foreach_route_matches_torch():
    shapes = [(3, 4), (5,), (), (64, 65)]
    for dtype, norm_type in itertools.product(["float32", "float64"], [2.0, 1.0, float("inf")]):
        res = []
        for lib in (gt, torch):
            ps = [lib.nn.Parameter(lib.zeros(s, dtype=getattr(lib, dtype))) for s in shapes]
            for p, s in zip(ps, shapes, strict=True):
                p.grad = lib.tensor(np.random.default_rng(len(s)).standard_normal(s) * 3, dtype=getattr(lib, dtype))
            grads = [p.grad for p in ps]
            total = lib.nn.utils.clip_grad_norm_(ps, 1.0, norm_type=norm_type)
            res.append((total, [p.grad for p in ps], [p.grad is g for p, g in zip(ps, grads, strict=True)],
                        [g._version for g in grads]))
        (tg, gg, same_g, vg), (tt, gt_, same_t, vt) = res
        assert same_g == same_t and vg == vt
        _close(tg, tt, dtype)
        for a, b in zip(gg, gt_, strict=True):
            _close(a, b, dtype)


def test_zero_grad_set_to_none_drops_grads():
    p = gt.nn.Parameter(gt.ones(3))
    p.grad = gt.ones(3)
    opt = gt.optim.AdamW([p])
    opt.zero_grad()
    assert p.grad is None


def test_large_step_split_over_threads_matches_torch():
    """Above ``_PARALLEL_MIN`` elements the compiled loop hands whole tensors to OpenMP threads."""
    shapes = [(1 << 20,), (700_001,), (512, 700), (3,)]
    assert sum(int(np.prod(s)) for s in shapes) >= optim_kernels._PARALLEL_MIN
    rng = np.random.default_rng(11)
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(2)]
    before = gt.get_num_threads()
    gt.set_num_threads(2)
    try:
        results = []
        for lib, fused in ((gt, True), (torch, True), (gt, None)):
            ps = [lib.from_numpy(a.copy()).requires_grad_() for a in init]
            opt = lib.optim.AdamW(ps, lr=0.01, fused=fused)
            for step in grads:
                for p, g in zip(ps, step, strict=True):
                    p.grad = lib.from_numpy(g.copy())
                opt.step()
            results.append(ps)
    finally:
        gt.set_num_threads(before)
    for a, b, c in zip(*results, strict=True):
        _close(a, b, "float32", exact=get_cpu_capability() == "AVX2")
        _close(c, b, "float32")
