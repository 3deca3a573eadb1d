"""Custom Function ``jvp`` against torch: the tangents it receives (None for non-tensors, zeros for a
differentiable input without a tangent unless ``set_materialize_grads(False)``), ``ctx.save_for_forward``, and
the view checks torch makes when forward returns a view of an input or the input as is."""

from __future__ import annotations

import pytest
import torch
import torch.autograd.forward_ad as th_fw

import glasstorch as gt
import glasstorch.autograd.forward_ad as gt_fw
from tests.oracle import assert_same, assert_same_error

FW = {gt: gt_fw, torch: th_fw}


def _seen_by_jvp(m, materialize):
    """What jvp receives for (non-tensor, dual, plain float tensor, int tensor) arguments."""
    seen = []

    class Fn(m.autograd.Function):
        @staticmethod
        def forward(ctx, nt, x, y, z):
            ctx.set_materialize_grads(materialize)
            return x * 2 + y

        @staticmethod
        def jvp(ctx, nt, x_t, y_t, z_t):
            seen.extend([nt, x_t, y_t, z_t])
            return x_t * 2

    fw = FW[m]
    with fw.dual_level():
        x = fw.make_dual(m.tensor([1.0, 2.0], dtype=m.float64), m.tensor([3.0, 4.0], dtype=m.float64))
        out = Fn.apply(1, x, m.ones(3, 2, dtype=m.float64)[0], m.tensor([1, 2]))
        tangent = fw.unpack_dual(out).tangent
    return seen, tangent


@pytest.mark.parametrize("materialize", [True, False])
def test_jvp_receives_none_or_zeros(materialize):
    (g_seen, g_tan), (t_seen, t_tan) = _seen_by_jvp(gt, materialize), _seen_by_jvp(torch, materialize)
    assert [s is None for s in g_seen] == [s is None for s in t_seen]
    for g, t in zip(g_seen, t_seen, strict=True):
        if t is not None:
            assert_same(g, t, check_strides=False)
    assert_same(g_tan, t_tan)


def _save_for_forward(m):
    seen = []

    class Fn(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x)
            if y is not None:
                ctx.save_for_forward(x, y)
            return x * (1 if y is None else y)

        @staticmethod
        def jvp(ctx, x_t, y_t):
            seen.append(len(ctx.saved_tensors))
            if y_t is None:
                return x_t
            x, y = ctx.saved_tensors
            return x_t * y + x * y_t

        @staticmethod
        def backward(ctx, g):
            seen.append(len(ctx.saved_tensors))
            return g, None

    fw = FW[m]
    a = m.tensor(1.5, dtype=m.float64, requires_grad=True)
    with fw.dual_level():
        out = Fn.apply(fw.make_dual(a, m.tensor(2.0, dtype=m.float64)), m.tensor(3.0, dtype=m.float64))
        tangent = fw.unpack_dual(out).tangent
        out2 = Fn.apply(fw.make_dual(a, m.tensor(2.0, dtype=m.float64)), None)
        out2.backward()
    return seen, tangent


def test_save_for_forward_and_empty_saved_tensors_in_jvp():
    (g_seen, g_tan), (t_seen, t_tan) = _save_for_forward(gt), _save_for_forward(torch)
    assert g_seen == t_seen
    assert_same(g_tan, t_tan)


def _input_as_is(m, kind):
    """forward returns an input as is: jvp must return a view of that input's tangent."""

    class Fn(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y, x

        @staticmethod
        def jvp(ctx, x_t, y_t):
            second = {"view_as": lambda t: t.view_as(t), "self": lambda t: t, "mul": lambda t: t * 2}[kind](x_t)
            return x_t + y_t, second

    fw = FW[m]
    t = m.tensor(1.0, dtype=m.float64)
    with fw.dual_level():
        _, out = Fn.apply(fw.make_dual(m.tensor(1.0, dtype=m.float64), t), m.tensor(2.0, dtype=m.float64))
        return fw.unpack_dual(out).tangent._base is t


@pytest.mark.parametrize("kind", ["view_as", "self", "mul"])
def test_forward_returning_input_needs_view_tangent(kind):
    if kind == "view_as":
        assert _input_as_is(gt, kind) and _input_as_is(torch, kind)
    else:
        assert_same_error(lambda: _input_as_is(gt, kind), lambda: _input_as_is(torch, kind))


def _view_of_input(m, flag):
    class Fn(m.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            return foo.narrow(0, 0, 2)

        @staticmethod
        def jvp(ctx, g):
            res = g.narrow(0, 0, 2)
            if flag != "ok":
                res = res.clone()
            if flag in ("other_view", "other_base"):
                res = res.view_as(res)
            return res

    fw = FW[m]
    with fw.dual_level():
        x = fw.make_dual(m.ones(4, 3, dtype=m.float64), m.arange(12.0, dtype=m.float64).reshape(4, 3))
        if flag == "other_base":
            x = x.view_as(x)
        return fw.unpack_dual(Fn.apply(x)).tangent.tolist()


@pytest.mark.parametrize("flag", ["ok", "not_a_view", "other_view", "other_base"])
def test_forward_returning_view_checks_jvp_view(flag):
    if flag == "ok":
        assert _view_of_input(gt, flag) == _view_of_input(torch, flag)
    else:
        assert_same_error(lambda: _view_of_input(gt, flag), lambda: _view_of_input(torch, flag))
