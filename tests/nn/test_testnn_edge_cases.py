"""Edge cases from PyTorch's TestNN, each against torch: randint's keyword bounds, CTC loss with every target
empty, cosine_embedding_loss's shape check on both inputs, interpolate's int64 overflow of an output size, and
the real tangent of a complex-to-real op under forward AD (handle_r_to_c)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import assert_same_error

import glasstorch


@pytest.mark.parametrize("call", [
    lambda m: m.randint(low=1, high=50, size=(3, 4)),
    lambda m: m.randint(2, high=9, size=(5,)),
    lambda m: m.randint(high=7, size=(2, 2), dtype=m.int32),
])
def test_randint_keyword_bounds(call):
    torch.manual_seed(3)
    glasstorch.manual_seed(3)
    want, got = call(torch), call(glasstorch)
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_randint_low_without_high():
    assert_same_error(lambda: glasstorch.randint(low=1, size=(3,)), lambda: torch.randint(low=1, size=(3,)))


@pytest.mark.parametrize("target_len", [0, 1])
def test_ctc_loss_zero_lengths(target_len):
    n, c, t = 3, 20, 1
    rng = np.random.default_rng(0)
    lp = rng.standard_normal((t, n, c)).astype(np.float32)
    target = rng.integers(1, c, (n, 2)).astype(np.int32)
    res = {}
    for m in (torch, glasstorch):
        inp = m.from_numpy(lp.copy()).log_softmax(2).requires_grad_()
        zeros = m.full((n,), 0, dtype=m.int)
        out = m.nn.functional.ctc_loss(inp, m.from_numpy(target), zeros, m.full((n,), target_len, dtype=m.int),
                                       reduction="none")
        out.sum().backward()
        res[m] = (out.detach().numpy(), inp.grad.numpy())
    np.testing.assert_array_equal(res[glasstorch][0], res[torch][0])
    np.testing.assert_array_equal(res[glasstorch][1], res[torch][1])


@pytest.mark.parametrize("shapes", [((0, 0), (0,), (0,)), ((2, 3), (3,), (2,)), ((3,), (2, 3), ()),
                                    ((2, 3, 1), (2, 3, 1), (2,))])
def test_cosine_embedding_loss_shape_errors(shapes):
    def call(m):
        a, b, t = (m.empty(s, dtype=m.double) for s in shapes)
        return lambda: m.nn.functional.cosine_embedding_loss(a, b, t)
    assert_same_error(call(glasstorch), call(torch))


@pytest.mark.parametrize("scale", [1e20, -1e20, float("nan")])
def test_interpolate_output_size_overflow(scale):
    def call(m):
        x = m.ones([1, 1, 16, 16])
        return lambda: m.nn.functional.interpolate(x, scale_factor=scale, mode="bilinear")
    assert_same_error(call(glasstorch), call(torch))


def test_interpolate_scale_still_truncates():
    for m in (torch, glasstorch):
        assert tuple(m.nn.functional.interpolate(m.ones([1, 1, 5, 5]), scale_factor=1.7, mode="bilinear").shape) \
            == (1, 1, 8, 8)


@pytest.mark.parametrize("fn", [
    lambda m, z: m.abs(z),
    lambda m, z: m.nn.functional.l1_loss(z, m.zeros_like(z), reduction="none"),
    lambda m, z: z.abs().sum(),
    lambda m, z: m.angle(z),
])
def test_forward_ad_complex_to_real_tangent_is_real(fn):
    x = np.array([1 + 2j, -3 + 0.5j, 0.25 - 1j])
    v = np.array([0.5 - 1j, 2 + 1j, -1 + 0.5j])
    res = {}
    for m in (torch, glasstorch):
        with m.autograd.forward_ad.dual_level():
            d = m.autograd.forward_ad.make_dual(m.from_numpy(x.copy()), m.from_numpy(v.copy()))
            p, t = m.autograd.forward_ad.unpack_dual(fn(m, d))
            res[m] = (str(p.dtype), str(t.dtype), t.numpy().copy())
    assert res[glasstorch][:2] == res[torch][:2]
    np.testing.assert_allclose(res[glasstorch][2], res[torch][2], rtol=1e-12, atol=1e-12)


def _frozen(m, fn):
    def run(*args):
        state = m.get_rng_state()
        try:
            return fn(*args)
        finally:
            m.set_rng_state(state)
    return run


@pytest.mark.parametrize("fast_mode", [True, False])
def test_gradcheck_leaves_global_rng_and_rrelu_training_passes(fast_mode):
    """Fast mode's random directions come from a generator of gradcheck's own, so the global state a random
    function runs from under freeze_rng_state is the same in every evaluation (as in torch)."""
    x = np.random.default_rng(1).standard_normal((1, 2, 2))
    for m in (torch, glasstorch):
        m.manual_seed(0)
        module = m.nn.RReLU(0.1, 0.9)
        inp = m.from_numpy(x.copy()).requires_grad_()
        before = m.get_rng_state().numpy().copy()
        assert m.autograd.gradcheck(_frozen(m, module), (inp,), fast_mode=fast_mode, check_forward_ad=True)
        np.testing.assert_array_equal(m.get_rng_state().numpy(), before)


@pytest.mark.parametrize("training", [True, False])
def test_rrelu_inplace_backward(training):
    x = np.random.default_rng(2).standard_normal((5, 5)).astype(np.float32)
    g = np.random.default_rng(3).standard_normal((5, 5)).astype(np.float32)
    res = {}
    for m in (torch, glasstorch):
        m.manual_seed(0)
        inp = m.from_numpy(x.copy()).requires_grad_()
        r = m.nn.RReLU(inplace=True)
        r.train(training)
        out = r(inp + 0)
        out.backward(m.from_numpy(g.copy()))
        res[m] = (out.detach().numpy().copy(), inp.grad.numpy().copy())
    if not training:  # the drawn slopes are each library's own; the mean slope is not
        np.testing.assert_allclose(res[glasstorch][0], res[torch][0], rtol=1e-6)
    np.testing.assert_allclose(res[glasstorch][1], res[torch][1], rtol=1e-6)
