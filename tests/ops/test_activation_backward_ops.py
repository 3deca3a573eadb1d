"""silu, mish and hardswish differentiate through their fused backward operators, as torch's derivatives.yaml says:
``silu_backward`` / ``mish_backward`` when grad mode is off (a plain ``backward()``), the differentiable formulas of
``infinitely_differentiable_*_backward`` under ``create_graph``; ``hardswish_backward`` always
(HardswishBackwardBackward0). In float16/bfloat16 the fused kernels round once, so gradients agree bit for bit.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch

import glasstorch as gt

HALF = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
FNS = ("silu", "mish", "hardswish")


def _values(dtype: str) -> np.ndarray:
    """Every finite value of the half type with |x| < 30 (ties with hardswish's -3 and 3 included)."""
    v = np.arange(65536, dtype=np.uint16).view(HALF[dtype]).astype(np.float32)
    return v[np.isfinite(v) & (np.abs(v) < 30)]


@pytest.mark.parametrize("dtype", list(HALF))
@pytest.mark.parametrize("fn", FNS)
def test_half_gradients_bits(fn, dtype):
    x = _values(dtype)
    g = np.random.default_rng(0).standard_normal(x.shape).astype(np.float32)
    grads = []
    for lib in (torch, gt):
        t = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
        getattr(lib.nn.functional, fn)(t).backward(lib.tensor(g).to(getattr(lib, dtype)))
        grads.append(t.grad.float().numpy())
    if fn != "mish":
        np.testing.assert_array_equal(grads[1], grads[0])
        return
    # mish's vector lanes take Sleef's tanh/log1p (1-ulp functions); a correctly rounded float result differs
    # from them in a few of these 40k float16 gradients, by one unit of the half type
    differ = grads[1] != grads[0]
    ulp = np.spacing(np.abs(grads[0][differ]).astype(HALF[dtype])).astype(np.float32)
    assert differ.sum() <= 2 and np.all(np.abs(grads[1][differ] - grads[0][differ]) <= ulp)


@pytest.mark.parametrize("fn", FNS)
def test_backward_operators_bits(fn):
    """The operators themselves, promoting a float64 grad (mish_backward keeps the input's dtype, as torch)."""
    x = _values("float16")[::7]
    g = np.random.default_rng(1).standard_normal(x.shape)
    outs = []
    for lib in (torch, gt):
        op = getattr(lib.ops.aten, f"{fn}_backward")
        outs.append((op(lib.tensor(g).half(), lib.tensor(x).half()), op(lib.tensor(g), lib.tensor(x).half())))
    for (got, want), exact in zip(zip(outs[1], outs[0], strict=True), (True, False), strict=True):
        assert str(got.dtype) == str(want.dtype)
        if exact or fn == "hardswish":
            np.testing.assert_array_equal(got.double().numpy(), want.double().numpy())
        else:  # computed in float64 (the grad's dtype), where torch's exp/tanh are Sleef's
            np.testing.assert_allclose(got.double().numpy(), want.double().numpy(), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("fn", FNS)
def test_double_backward_matches_torch(fn):
    x = np.linspace(-4, 4, 17)
    results = []
    for lib in (torch, gt):
        t = lib.tensor(x, requires_grad=True)
        (g,) = lib.autograd.grad(getattr(lib.nn.functional, fn)(t).sum(), t, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), t)
        results.append((type(g.grad_fn).__name__, g.detach().numpy(), gg.numpy()))
    assert results[1][0] == results[0][0]
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-12, atol=1e-14)


def test_backward_operator_errors():
    for lib in (torch, gt):
        x = lib.ones(3, dtype=lib.int64)
        for fn in FNS:
            with pytest.raises(NotImplementedError, match=f'"{fn}_backward_cpu" not implemented for \'Long\''):
                getattr(lib.ops.aten, f"{fn}_backward")(x, x)
