"""gradcheck's batched-gradient checks and forward-mode undefined-tangent check against torch.autograd.gradcheck:
``check_batched_grad`` / ``check_batched_forward_grad`` compare products with one legacy vmap over two of them
(an error under vmap becomes a GradcheckError), ``check_undefined_grad`` with ``check_forward_ad`` runs each
input with a zero and with no tangent, and a random draw inside a legacy vmap raises torch's error."""

from __future__ import annotations

import importlib

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same_error

BATCHED_PREFIX = "gradcheck or gradgradcheck failed while testing batched gradient"
RANDOM_IN_VMAP = "vmap: We do not yet support calling random operations inside of vmap"


def _sparse_to_dense_check(m, fast_mode, raise_exception):
    x = m.rand(10, dtype=m.double, requires_grad=True).to_sparse()
    return m.autograd.gradcheck(lambda x: x.to_dense(), (x,), masked=True, check_batched_grad=True,
                                fast_mode=fast_mode, raise_exception=raise_exception)


@pytest.mark.parametrize("fast_mode", [True, False])
def test_batched_grad_of_sparse_input_fails_under_vmap(fast_mode):
    for m in (gt, torch):
        with pytest.raises(importlib.import_module(f"{m.__name__}.autograd.gradcheck").GradcheckError) as info:
            _sparse_to_dense_check(m, fast_mode, True)
        msg = str(info.value)
        assert msg.startswith("While computing batched gradients, got: ")
        assert f"\n\n{BATCHED_PREFIX} computation.\n" in msg
        assert _sparse_to_dense_check(m, fast_mode, False) is False


@pytest.mark.parametrize("fast_mode", [True, False])
def test_batched_grad_passes_for_dense_functions(fast_mode):
    for m in (gt, torch):
        x = m.rand(3, 2, dtype=m.double, requires_grad=True)
        y = m.rand(2, dtype=m.double, requires_grad=True)
        assert m.autograd.gradcheck(lambda a, b: (a * b).sin(), (x, y), check_batched_grad=True, fast_mode=fast_mode)
        assert m.autograd.gradgradcheck(lambda a, b: (a * b).sin(), (x, y), check_batched_grad=True,
                                        fast_mode=fast_mode)


def _random_in_vmap(m, make):
    return lambda: m._vmap_internals._vmap(lambda v: v + make(m))(m.rand(2, 3))


@pytest.mark.parametrize("make", [lambda m: m.rand(3), lambda m: m.randn(3).normal_(), lambda m: m.randperm(3)])
def test_random_draw_inside_legacy_vmap_raises(make):
    assert_same_error(_random_in_vmap(gt, make), _random_in_vmap(torch, make))
    gt.rand(3)  # and the level is back to zero afterwards


def _functions(m):
    class Double(m.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            return foo * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            m.randn_like(t)
            return t * 2

    return Double


def test_batched_forward_grad():
    for m in (gt, torch):
        x = m.rand(2, dtype=m.double, requires_grad=True)
        flags = dict(check_forward_ad=True, check_backward_ad=False, check_batched_grad=False,
                     check_undefined_grad=False, check_batched_forward_grad=True)
        assert m.autograd.gradcheck(lambda a, b: (a.clone(), a + 1), (x, 1), **flags)  # a non-tensor input
        assert m.autograd.gradcheck(lambda a, c: a.clone(), (x, x.clone()), **flags)  # c's tangent is None
        with pytest.raises(RuntimeError, match=RANDOM_IN_VMAP) as info:
            m.autograd.gradcheck(_functions(m).apply, (x,), check_forward_ad=True, check_batched_forward_grad=True)
        assert "gradcheck failed while testing batched gradient computation with forward-mode AD" in str(info.value)


def _jvp_calls(m, y_requires_grad, **flags):
    calls = [0]

    class UserFn(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x.clone(), y.clone()

        @staticmethod
        def jvp(ctx, x_t, y_t):
            calls[0] += 1
            return x_t, y_t

    x = m.rand(1, dtype=m.double, requires_grad=True)
    y = m.rand(1, dtype=m.double, requires_grad=y_requires_grad)
    assert m.autograd.gradcheck(UserFn.apply, (x, y), check_forward_ad=True, check_backward_ad=False,
                                check_batched_grad=False, **flags)
    return calls[0]


@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("y_requires_grad", [True, False])
@pytest.mark.parametrize("check_undefined_grad", [True, False])
def test_undefined_forward_mode_runs_zero_and_absent_tangents(fast_mode, y_requires_grad, check_undefined_grad):
    flags = dict(check_undefined_grad=check_undefined_grad, check_batched_forward_grad=False, fast_mode=fast_mode)
    assert _jvp_calls(gt, y_requires_grad, **flags) == _jvp_calls(torch, y_requires_grad, **flags)


def test_undefined_forward_mode_complex_input():
    for m in (gt, torch):
        z = m.rand(2, dtype=m.cdouble, requires_grad=True)
        assert m.autograd.gradcheck(lambda a: (a * a, a.real.sin()), (z,), check_forward_ad=True,
                                    check_undefined_grad=True)
