"""The compiled element-wise loops (glasstorch/_ops/kernels/cpu/ckernels.py) against torch.

The OpInfo samples are too small to reach the C path (ckernels.MIN_NUMEL), so these tests use tensors of
tens of thousands of elements with the special values (NaN, +-inf, +-0.0, subnormals, huge arguments) mixed
in: bit-exact for relu/arithmetic/copies, a few ulps for the transcendental functions, and the same NaN
positions and signs of zero.  The numpy fallbacks (GLASSTORCH_DISABLE_CKERNELS=1, no C compiler) must give
the same answers.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import platform
import subprocess
import sys

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch import _cbuild
from glasstorch._ops.kernels.cpu import ckernels as ck

N = 40_000  # above ckernels.MIN_NUMEL and GRAIN_SIZE, so rows split over threads too
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-39, -3e-39, 3.4e38, -3.4e38, 1.0, -1.0,
           0.5, 3.92, -3.92, 104.0, -104.0, 88.7, 89.0, -87.4, 70000.0, -1e6, 1e30]


@pytest.fixture(autouse=True)
def _fresh_state():
    ck.reset()
    yield
    ck.reset()


def _data(dtype=np.float32, n=N, lo=-6.0, hi=6.0, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, n).astype(dtype)
    x[: len(SPECIAL)] = np.array(SPECIAL, dtype=np.float64).astype(dtype)
    rng.shuffle(x)
    return x


def _pair(arr):
    return gt.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def _ulps(a, b):
    """Distance in units in the last place (NaN vs NaN = 0)."""
    ia = a.view(np.int32 if a.dtype == np.float32 else np.int64).astype(np.int64)
    ib = b.view(np.int32 if b.dtype == np.float32 else np.int64).astype(np.int64)
    mask = (1 << 31) - 1 if a.dtype == np.float32 else (1 << 63) - 1
    ia = np.where(ia < 0, -(ia & mask), ia)
    ib = np.where(ib < 0, -(ib & mask), ib)
    d = np.abs(ia - ib)
    d[np.isnan(a) & np.isnan(b)] = 0
    return d


def _same_specials(r, e):
    assert np.array_equal(np.isnan(r), np.isnan(e))
    zero = (e == 0) & (r == 0)
    assert np.array_equal(np.signbit(r[zero]), np.signbit(e[zero]))


def test_available_and_used():
    assert ck.available() == _cbuild.available()
    if not ck.available():
        pytest.skip("no C compiler")
    x = _data()
    out = np.empty_like(x)
    assert ck.unary("exp", x, out)
    assert not ck.unary("exp", x[:100], out[:100])  # below MIN_NUMEL: numpy


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_bit_exact(dtype):
    g, t = _pair(_data(dtype))
    r, e = gt.relu(g).numpy(), torch.relu(t).numpy()
    assert r.tobytes() == e.tobytes()  # relu(nan) = nan, relu(-0.0) = -0.0 as torch


# op -> (max ulps vs torch for float32, domain)
UNARY = {"exp": (1, (-110.0, 95.0)), "sin": (3, (-100.0, 100.0)), "erf": (2, (-5.0, 5.0)),
         "erfc": (1, (-5.0, 12.0))}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_against_torch(name, dtype):
    ulps, (lo, hi) = UNARY[name]
    g, t = _pair(_data(dtype, lo=lo, hi=hi))
    r, e = getattr(gt, name)(g).numpy(), getattr(torch, name)(t).numpy()
    _same_specials(r, e)
    assert _ulps(r, e).max() <= (ulps if dtype == np.float32 else 4)  # float64: libm's erf/erfc vs SLEEF's


def test_sin_large_arguments_use_libm():
    g, t = _pair(_data(lo=-1e7, hi=1e7))
    r, e = gt.sin(g).numpy(), torch.sin(t).numpy()
    _same_specials(r, e)
    assert _ulps(r, e).max() <= 3


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_forward_and_backward(dtype):
    x = _data(dtype, lo=-8.0, hi=8.0)
    x = x[np.isfinite(x) & (np.abs(x) < 1e3)]
    g, t = _pair(x)
    g.requires_grad_()
    t.requires_grad_()
    r, e = gt.nn.functional.gelu(g), torch.nn.functional.gelu(t)
    np.testing.assert_allclose(r.detach().numpy(), e.detach().numpy(), rtol=1.3e-6, atol=1e-6)
    r.sum().backward()
    e.sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=1.3e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_backward_kernel(dtype):
    from glasstorch._ops.kernels.cpu.activation import gelu_backward_out
    x = _data(dtype, lo=-8.0, hi=8.0)
    grad = _data(dtype, lo=-2.0, hi=2.0, seed=1)
    ok = np.isfinite(x) & np.isfinite(grad) & (np.abs(x) < 1e3) & (np.abs(grad) < 1e3)
    x, grad = x[ok], grad[ok]
    t = torch.from_numpy(x.copy()).requires_grad_()
    torch.nn.functional.gelu(t).backward(torch.from_numpy(grad.copy()))
    for approximate in ("none", "tanh"):
        if approximate == "tanh":
            t.grad = None
            torch.nn.functional.gelu(t, approximate="tanh").backward(torch.from_numpy(grad.copy()))
        out = gelu_backward_out(gt.from_numpy(grad)._impl, gt.from_numpy(x)._impl, approximate)
        np.testing.assert_allclose(out.as_numpy(), t.grad.numpy(), rtol=1.3e-6, atol=1e-5)


_SQRT2_F = np.float32(1.4142135)  # where the error bounds below change (gelu' has a root at -0.75 inside)


def _phi_f64(x):
    """Phi(x) and phi(x) in double at the float32 points x (erfc: no cancellation for negative x)."""
    xd = x.astype(np.float64)
    cdf = 0.5 * np.frompyfunc(math.erfc, 1, 1)(-xd / math.sqrt(2)).astype(np.float64)
    with np.errstate(all="ignore"):
        return xd, cdf, np.exp(-0.5 * xd * xd) / math.sqrt(2 * math.pi)


def _test_points():
    """A dense grid over [-15, 15] (past the clamp at 14.6), the floats around +-sqrt 2, the specials."""
    walk = [np.float32(b) for b in (_SQRT2_F, -_SQRT2_F)]
    for start in (_SQRT2_F, -_SQRT2_F):
        for target in (0.0, np.copysign(100.0, start)):
            v = start
            for _ in range(300):
                v = np.nextafter(v, np.float32(target))
                walk.append(v)
    extra = np.array(walk + SPECIAL + [14.6, -14.6, 13.2, -13.2, 20.0, -20.0, 1e-30, -1e-30], np.float32)
    return np.concatenate([np.linspace(-15.0, 15.0, 300_001, dtype=np.float32), extra])


def _gelu_c(x, threads=1):
    out = np.empty_like(x)
    assert ck._drivers[0](ck._unary_fns[("gelu", "f", "f")], x, out, 4, 4, threads) == 0
    return out


def _gelu_backward_c(grad, x, threads=1):
    out = np.empty_like(x)
    assert ck._drivers[1](ck._binary_fns[("gelu_backward", "f")], grad, x, out, 4, threads) == 0
    return out


def _ulp_errors(r, e):
    """|r - e| in units of the float32 spacing at e; the mask of normal expected values."""
    normal = np.abs(e) >= np.finfo(np.float32).tiny
    return np.abs(r - e) / np.spacing(np.abs(e).astype(np.float32)).astype(np.float64), normal


def _nan_as_torch(x, e):
    e[np.isinf(x)] = np.nan  # torch: inf * 0 (gelu(+inf) = inf is fixed up by the caller)
    return e


def test_gelu_float32_against_float64():
    """x Phi(x) from one exponential and the Mills ratio vs double: <= 1 ulp for x >= sqrt 2, <= 6 ulp elsewhere
    (relative also for negative x, whose values fall to subnormals near -13: <= 2 subnormal steps there)."""
    if not ck.available():
        pytest.skip("no C compiler")
    x = _test_points()
    r = _gelu_c(x).astype(np.float64)
    xd, cdf, _ = _phi_f64(x)
    with np.errstate(all="ignore"):
        e = _nan_as_torch(x, xd * cdf)
    e[x == np.inf] = np.inf
    assert np.array_equal(np.isnan(r), np.isnan(e))
    assert np.array_equal(np.signbit(r[r == 0]), np.signbit(x[r == 0]))  # torch's own kernel: zeros keep x's sign
    ok = np.isfinite(e)
    err, normal = _ulp_errors(r[ok], e[ok])
    big = x[ok] >= _SQRT2_F
    assert err[big].max() <= 1.0
    assert err[~big & normal].max() <= 6.0
    assert err[~normal & (e[ok] != 0)].max() <= 2.0  # in subnormal steps (spacing = the smallest subnormal)
    assert r[x == np.inf][0] == np.inf


def test_gelu_backward_float32_against_float64():
    """Phi(x) + x phi(x) = 1 - D or D, D = phi (R - t), vs double: <= 1 ulp for x >= sqrt 2, <= 3 ulp for
    x <= -sqrt 2 (relative: the value falls to 1e-38 near x = -13.2, <= 2 subnormal steps below), absolute 2e-7
    between (gelu' has a root at -0.75)."""
    if not ck.available():
        pytest.skip("no C compiler")
    x = _test_points()
    r = _gelu_backward_c(np.ones_like(x), x).astype(np.float64)
    xd, cdf, pdf = _phi_f64(x)
    with np.errstate(all="ignore"):
        e = _nan_as_torch(x, cdf + xd * pdf)
    assert np.array_equal(np.isnan(r), np.isnan(e))
    assert not np.signbit(r[r == 0]).any()  # +0.0 as torch's 1 + erf(-big), never -0.0
    ok = ~np.isnan(e)
    r, e, x = r[ok], e[ok], x[ok]
    err, normal = _ulp_errors(r, e)
    big = np.abs(x) >= _SQRT2_F
    assert err[big & (x > 0)].max() <= 1.0
    assert err[big & (x < 0) & normal].max() <= 3.0
    assert err[big & ~normal].max() <= 2.0
    assert np.abs(r - e)[~big].max() <= 2e-7


@pytest.mark.parametrize("onednn", [False, True], ids=["own-kernel", "onednn"])
def test_gelu_and_backward_float32_against_torch(onednn):
    """Forward and backward against torch with gradients of both signs and the specials: same NaNs (-inf gives
    NaN as torch's inf * 0; +inf as the kernel torch picks), same zero signs where both are zero, values within
    float32 rounding of torch's (whose 1 + erf cancels for negative x: an absolute bound covers it).  The oracle
    rule (Note [gelu's special values follow torch's kernel]): our "gelu" loop against torch's own kernel (oneDNN
    off), and the public gelu against torch as it is, whose oneDNN path differs between AVX2 and AVX-512 CPUs."""
    if not ck.available():
        pytest.skip("no C compiler")
    x = np.concatenate([_data(lo=-16.0, hi=16.0), _test_points()[-700:]])
    grad = np.random.default_rng(1).uniform(-3.0, 3.0, len(x)).astype(np.float32)
    xt = torch.from_numpy(x)
    with torch.backends.mkldnn.flags(enabled=onednn):
        want = [torch.nn.functional.gelu(xt).numpy(), torch.ops.aten.gelu_backward(torch.from_numpy(grad), xt).numpy()]
    got = [gt.nn.functional.gelu(gt.from_numpy(x)).numpy(), gt.ops.aten.gelu_backward(gt.from_numpy(grad),
                                                                                      gt.from_numpy(x)).numpy()]
    if not onednn:
        got = [_gelu_c(x), _gelu_backward_c(grad, x)]
    pairs = list(zip(got, want, strict=True))
    # in (-14.6, -6.2) torch's factor of grad is +0.0 and ours a tiny negative: grad * it may underflow to either zero
    exact = [np.ones(len(x), bool), (x <= -14.6) | (x > -6.2) | np.isnan(x)]
    for (r, e), same in zip(pairs, exact, strict=True):
        _same_specials(r[same], e[same])
        assert np.array_equal(np.isnan(r), np.isnan(e))
        fin = np.isfinite(e)
        np.testing.assert_allclose(r[fin], e[fin], rtol=1.3e-6, atol=1e-6)


_GELU_SPECIALS = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, -1e-45, 5e-31, -5e-31, -5.0, -6.0, -7.0, -15.0, -20.0,
                  -1e30, 1e30, 1.7e38, 1.7014118e38, 3.4e38, -3.4e38]
_GELU_SPECIALS_SCRIPT = """
import json, os, sys
import numpy as np, torch, glasstorch as gt
from glasstorch._ops.kernels.cpu import ckernels
v = json.loads(sys.argv[1])
out = []
for numpy_only in ("", "1"):  # the C loops, then the numpy fallback
    os.environ["GLASSTORCH_DISABLE_CKERNELS"] = numpy_only
    ckernels.reset()
    for dt in ("float32", "bfloat16", "float64"):
        for n, step in ((1, 1), (len(v), 1), (4 * len(v), 1), (len(v), 2)):  # one element, contiguous, strided
            for lib in (torch, gt):
                x = lib.tensor((v * 8)[: n * step], dtype=getattr(lib, dt))[::step]
                y = lib.nn.functional.gelu(x).float()
                b = lib.ops.aten.gelu_backward(-lib.ones_like(x), x).float()
                out.append([dt, n, step, numpy_only, [y.tolist(), b.tolist()]])
print(json.dumps(out))
"""


def _gelu_specials(env):
    """gelu and gelu_backward (grad -1) of the specials by torch and glasstorch, in a fresh interpreter with ``env``
    (oneDNN reads ONEDNN_MAX_CPU_ISA once): [(case, torch's values, glasstorch's values)]."""
    arg = json.dumps([float(v) for v in _GELU_SPECIALS])
    proc = subprocess.run([sys.executable, "-c", _GELU_SPECIALS_SCRIPT, arg], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = json.loads(proc.stdout.strip().splitlines()[-1])
    return [(tuple(a[:4]), a[4], b[4]) for a, b in zip(rows[::2], rows[1::2], strict=True)]


@pytest.mark.parametrize("isa", ["", "AVX2"], ids=["this-cpu", "onednn-avx2"])
def test_gelu_specials_match_torch_on_avx2_and_avx512(isa):
    """Regression (this AVX-512 machine gave gelu(+inf) = inf and +0.0 where torch gives NaN and -0.0): the
    specials of gelu and gelu_backward are torch's exactly (NaN positions, infinities, zero signs) for float32,
    bfloat16 and float64, one element, contiguous and strided, C loops and numpy fallback, with oneDNN at this
    CPU's ISA and capped at AVX2 (ONEDNN_MAX_CPU_ISA, as on an AVX2-only machine); finite values within float32
    rounding (bfloat16: its own)."""
    for case, want, got in _gelu_specials({"ONEDNN_MAX_CPU_ISA": isa} if isa else {}):
        for w, g in zip(want, got, strict=True):
            w, g = np.array(w, np.float64), np.array(g, np.float64)
            assert np.array_equal(np.isnan(w), np.isnan(g)), (case, w, g)
            zero = (w == 0) & (g == 0)
            assert np.array_equal(np.signbit(w[zero]), np.signbit(g[zero])), (case, w, g)
            inf = np.isinf(w) | np.isinf(g)
            assert np.array_equal(w[inf], g[inf]), (case, w, g)
            fin = np.isfinite(w)
            np.testing.assert_allclose(g[fin], w[fin], rtol=8e-3 if case[0] == "bfloat16" else 1.3e-6, atol=2e-6,
                                       err_msg=str(case))


def test_gelu_kernels_give_the_same_bits_for_any_march():
    """The float32 gelu loops use fmaf/rintf and IEEE operations only (no contraction, -ffp-contract=off), so an
    AVX-512 build (-march=native here), an AVX2 build and a baseline x86-64 build give the same bits."""
    if not ck.available() or platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("no C compiler, or not x86-64")
    x = np.concatenate([_data(lo=-16.0, hi=16.0), _test_points()[-700:]])
    grad = _data(n=len(x), lo=-3.0, hi=3.0, seed=2)
    results = []
    for march in ("native", "x86-64-v3", "x86-64"):
        try:
            lib = _cbuild.load(ck._src.source(), name=f"ckernels_{march.replace('-', '_')}",
                               extra_flags=(f"-march={march}",))
        except _cbuild.CompileError:
            pytest.skip(f"the compiler refuses -march={march}")
        u, b, vp = lib.gt_unary_nd, lib.gt_binary_nd, ctypes.c_void_p
        u.argtypes = (vp, ctypes.py_object, ctypes.py_object, ctypes.c_int64, ctypes.c_int64, ctypes.c_int)
        b.argtypes = (vp, ctypes.py_object, ctypes.py_object, ctypes.py_object, ctypes.c_int64, ctypes.c_int)
        outs = []
        for op in ("gelu", "gelu_onednn", "gelu_onednn512"):
            out = np.empty_like(x)
            assert u(ctypes.cast(getattr(lib, ck._src.row_name("u", op, "f")), vp).value, x, out, 4, 4, 1) == 0
            outs.append(out.tobytes())
        out = np.empty_like(x)
        assert b(ctypes.cast(getattr(lib, ck._src.row_name("b", "gelu_backward", "f")), vp).value, grad, x, out,
                 4, 1) == 0
        results.append(outs + [out.tobytes()])
    assert results[1] == results[0] and results[2] == results[0]


def test_gelu_kernels_give_the_same_bits_at_any_offset_and_thread_count():
    """One formula for every element: a shifted start (other block boundaries, other vector lanes) and two
    threads give the same bits."""
    if not ck.available():
        pytest.skip("no C compiler")
    x = np.concatenate([np.linspace(-4.0, 4.0, 50_000, dtype=np.float32), np.repeat(_test_points()[-700:], 8)])
    grad = _data(n=len(x), lo=-2.0, hi=2.0, seed=2)
    for run in (_gelu_c, lambda x, threads=1: _gelu_backward_c(grad[-len(x):], x, threads)):
        whole = run(x)
        for start in (1, 517):
            assert run(x[start:]).tobytes() == whole[start:].tobytes()
        assert run(x, threads=2).tobytes() == whole.tobytes()


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary_layouts_bit_exact(op, dtype):
    a = _data(dtype, n=300 * 200).reshape(300, 200)
    b = _data(dtype, n=200, seed=1)
    for mk_a, mk_b in [(lambda m, x: x, lambda m, y: y),                      # (300,200) op (200,)
                       (lambda m, x: x.t(), lambda m, y: y.unsqueeze(1)),       # transposed op (200,1)
                       (lambda m, x: x[:, ::2], lambda m, y: y[::2]),           # strided
                       (lambda m, x: x, lambda m, y: 2.5),                      # Python scalar
                       (lambda m, x: x, lambda m, y: y[:1].reshape(()))]:       # 0-d tensor
        ga, ta = _pair(a)
        gb, tb = _pair(b)
        r = getattr(gt, op)(mk_a(gt, ga), mk_b(gt, gb)).numpy()
        e = getattr(torch, op)(mk_a(torch, ta), mk_b(torch, tb)).numpy()
        assert r.shape == e.shape and r.tobytes() == np.ascontiguousarray(e).tobytes() or \
            np.array_equal(r, e, equal_nan=True) and np.array_equal(np.signbit(r), np.signbit(e))


def test_in_place_and_out_layouts():
    a = _data(n=256 * 256).reshape(256, 256)
    b = _data(n=256 * 256, seed=1).reshape(256, 256)
    ga, ta = _pair(a)
    gb, tb = _pair(b)
    ga.mul_(gb)
    ta.mul_(tb)
    assert ga.numpy().tobytes() == ta.numpy().tobytes()
    ga.add_(ga)  # an input that is the output
    ta.add_(ta)
    assert ga.numpy().tobytes() == ta.numpy().tobytes()
    go, to = gt.empty(256, 256).t(), torch.empty(256, 256).t()  # a transposed out=
    gt.exp(gb, out=go)
    torch.exp(tb, out=to)
    assert _ulps(go.numpy(), to.numpy()).max() <= 1


@pytest.mark.parametrize("src,dst", [(np.float32, np.float64), (np.float64, np.float32), (np.float32, np.float32),
                                     (np.float64, np.float64)])
def test_copies_bit_exact(src, dst):
    x = _data(src, lo=-1e10, hi=1e10)
    if src == np.float64:
        x[:4] = [1e300, -1e300, 1 + 2**-24 + 2**-40, 1e-320]  # overflow to inf, rounding, underflow
    tdst = {np.float32: torch.float32, np.float64: torch.float64}[dst]
    gdst = {np.float32: gt.float32, np.float64: gt.float64}[dst]
    for shape, view in [((N,), lambda v: v), ((200, 200), lambda v: v.t())]:
        xs = x[: int(np.prod(shape))].reshape(shape)
        g, t = _pair(xs)
        go, to = gt.empty(*shape, dtype=gdst), torch.empty(*shape, dtype=tdst)
        go.copy_(view(g))
        to.copy_(view(t))
        assert go.numpy().tobytes() == to.numpy().tobytes()
    g, t = _pair(x[:200])  # a broadcast source
    go, to = gt.empty(300, 200, dtype=gdst), torch.empty(300, 200, dtype=tdst)
    go.copy_(g)
    to.copy_(t)
    assert go.numpy().tobytes() == to.numpy().tobytes()
    assert view(g).clone().numpy().tobytes() == view(t).clone().numpy().tobytes()


def test_threads_give_the_same_bits():
    x = _data(n=200_000)
    m = _data(n=400 * 500, seed=2).reshape(400, 500)
    v = _data(n=500, seed=3)
    before = gt.get_num_threads()
    results = []
    try:
        for n in (1, 2):
            gt.set_num_threads(n)
            g = gt.from_numpy(x)
            gm, gv = gt.from_numpy(m), gt.from_numpy(v)
            results.append([gt.exp(g).numpy(), gt.erf(g).numpy(), gt.relu(g).numpy(), (gm + gv).numpy(),
                            gt.nn.functional.gelu(gm.t()).numpy()])
    finally:
        gt.set_num_threads(before)
    for a, b in zip(*results, strict=True):
        assert a.tobytes() == b.tobytes()


def _numpy_results():
    x = _data()
    g = gt.from_numpy(x)
    a = gt.from_numpy(_data(n=300 * 200).reshape(300, 200))
    return [gt.exp(g).numpy(), gt.erf(g).numpy(), gt.relu(g).numpy(), (a + a[0]).numpy(),
            gt.nn.functional.gelu(g).numpy()]


def _check_fallback():
    assert not ck.available()
    x = _data()
    torch_x = torch.from_numpy(x)
    r = _numpy_results()
    assert _ulps(r[0], torch.exp(torch_x).numpy()).max() <= 2  # numpy's float32 exp
    assert _ulps(r[1], torch.erf(torch_x).numpy()).max() <= 2
    assert r[2].tobytes() == torch.relu(torch_x).numpy().tobytes()


def test_disabled_by_environment(monkeypatch):
    monkeypatch.setenv("GLASSTORCH_DISABLE_CKERNELS", "1")
    ck.reset()
    _check_fallback()


def test_missing_compiler_falls_back(monkeypatch):
    def no_compiler(*args, **kwargs):
        raise _cbuild.CompilerNotFound("No working C compiler found")
    monkeypatch.setattr(_cbuild, "load", no_compiler)
    ck.reset()
    _check_fallback()


def _expect_binary(op, a, b, out, expected):
    """ck.binary must take the C path and write exactly numpy's result."""
    assert ck.binary(op, a, b, out)
    assert out.tobytes() == np.ascontiguousarray(expected).tobytes() if out.flags.c_contiguous else \
        np.array_equal(out, expected)


def test_layout_read_from_numpy_arrays_in_c():
    """The drivers read shape and strides from the arrays themselves: broadcasting (leading and size-1 dims),
    negative and permuted strides, a permuted output, 0-d operands."""
    if not ck.available():
        pytest.skip("no C compiler")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((5, 3, 40, 7)).astype(np.float32)
    b = rng.standard_normal((3, 1, 7)).astype(np.float32)
    out = np.empty_like(a)
    _expect_binary("mul", a, b, out, a * b)
    _expect_binary("sub", a[::-1, :, ::-1], b[:, :, ::-1], out, a[::-1, :, ::-1] - b[:, :, ::-1])
    perm = np.empty((7, 40, 3, 5), np.float32).transpose(3, 2, 1, 0)  # an output whose dims run backwards
    _expect_binary("add", a, b, perm, a + b)
    # a 0-d operand (a strided a: numpy keeps contiguous one-thread arithmetic)
    _expect_binary("div", a[::-1], np.float32(3.0), out, a[::-1] / np.float32(3.0))
    x = rng.standard_normal((64, 80)).astype(np.float64)
    o = np.empty((80, 64), np.float64).T
    assert ck.unary("relu", x[:, ::-1], o)
    assert np.array_equal(o, np.where(x[:, ::-1] < 0, 0.0, x[:, ::-1]))


def test_layouts_the_drivers_refuse():
    """Overlap with another layout, shapes that do not broadcast and too many dims go back to numpy (False),
    leaving the output untouched; an output that is exactly an input (in place) runs in C."""
    if not ck.available():
        pytest.skip("no C compiler")
    x = _data(n=128 * 128).reshape(128, 128)
    before = x.copy()
    assert not ck.unary("relu", x.T, x)       # reads what it writes, transposed
    assert not ck.binary("add", x.T, x, x)
    assert np.array_equal(x, before, equal_nan=True)
    assert ck.unary("relu", x, x)             # element i reads and writes element i only
    assert np.array_equal(x, np.where(before < 0, np.float32(0), before), equal_nan=True)
    out = np.zeros((128, 128), np.float32)
    assert not ck.binary("add", x, np.ones(64, np.float32), out)  # (64,) does not broadcast to (128,)
    deep = np.ones((2,) * 13 + (1,) * 4, np.float32)                # 17 dims: numpy's business
    assert not ck.unary("exp", deep, np.empty_like(deep))


def test_streaming_stores_give_the_same_bits():
    """Outputs above the streaming threshold are written through an L1 buffer with non-temporal stores; the values
    are those of the plain stores, single- and multi-threaded, for contiguous and row-by-row layouts."""
    if not ck.available():
        pytest.skip("no C compiler")
    x = gt.from_numpy(_data(n=200_000))
    m = gt.from_numpy(_data(n=400 * 500, seed=2).reshape(400, 500))
    v = gt.from_numpy(_data(n=500, seed=3))

    def results():
        return [gt.exp(x).numpy(), (m + v).numpy(), x.double().numpy(), gt.nn.functional.gelu(m).numpy()]
    before = gt.get_num_threads()
    plain = results()
    try:
        ck.set_stream_bytes(0)
        for n in (1, 2):
            gt.set_num_threads(n)
            for r, p in zip(results(), plain, strict=True):
                assert r.tobytes() == p.tobytes()
    finally:
        gt.set_num_threads(before)
        ck.reset()
