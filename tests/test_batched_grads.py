"""Batched gradients against torch: ``autograd.grad(..., is_grads_batched=True)`` (one backward per batch element
here, a vmap there: same values, same shape errors) and the legacy ``torch._vmap_internals._vmap`` /``vmap``
(in_dims / out_dims, their argument errors)."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.autograd.forward_ad as th_fw

import glasstorch as gt
import glasstorch.autograd.forward_ad as gt_fw
from tests.oracle import assert_same, assert_same_error

FW = {gt: gt_fw, torch: th_fw}


def _batched(m, case):
    x = m.arange(4.0).reshape(2, 2).requires_grad_()
    y = m.arange(4.0, 8.0).reshape(2, 2).requires_grad_()
    if case == "clone":
        return m.autograd.grad(x.clone(), (x,), (m.arange(3).expand(2, 2, 3).transpose(0, 2),), is_grads_batched=True)
    if case == "scalar":
        return m.autograd.grad(x.sum(), (x,), (m.arange(3),), is_grads_batched=True)
    if case == "dict":
        z = (x ** 2 + y * x + y ** 2).sum()
        r = m.autograd.grad(z, {"x": x, "y": y}, grad_outputs=m.arange(3.0), is_grads_batched=True)
        return r["x"], r["y"]
    if case == "unused":
        w = m.ones(2, requires_grad=True)
        return m.autograd.grad((x * 2).sum(), (x, w), m.ones(2), is_grads_batched=True, allow_unused=True)
    if case == "create_graph":
        (g,) = m.autograd.grad((x * x).sum(), (x,), m.arange(2.0), is_grads_batched=True, create_graph=True)
        return g, m.autograd.grad(g.sum(), x)[0]
    if case == "mismatch":
        return m.autograd.grad(x.clone(), (x,), (m.ones(2, 2),), is_grads_batched=True)
    return m.autograd.grad(x.sum(), (x,), (m.ones(2).unsqueeze(1),), is_grads_batched=True)  # scalar vs size 1


@pytest.mark.parametrize("case", ["clone", "scalar", "dict", "unused", "create_graph"])
def test_is_grads_batched(case):
    for g, t in zip(_batched(gt, case), _batched(torch, case), strict=True):
        assert (g is None) == (t is None)
        if t is not None:
            assert_same(g, t, check_strides=False)  # a vmap lays its batch out its own way


@pytest.mark.parametrize("case", ["mismatch", "scalar vs size 1"])
def test_is_grads_batched_shape_errors(case):
    assert_same_error(lambda: _batched(gt, case), lambda: _batched(torch, case))


def _vmapped(m, case):
    V = m._vmap_internals
    x, y = m.arange(6.0).reshape(2, 3), m.arange(3.0)
    if case == "shared":
        return (V._vmap(lambda a, b: a * b, (0, None))(x, y),)
    if case == "out_dims":
        return V._vmap(lambda a: (a.sum(), a * 2), 1, (0, 1))(x)
    if case == "nested":
        return (V._vmap(lambda ab, c: ab[0] + ab[1] * c, ((0, 1), None))((x, x.t().contiguous()), 2.0),)
    if case == "vmap":
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = V.vmap(m.sum)(x)
        assert [str(w.message) for w in caught] == ["Please use `torch.vmap` instead of `torch._vmap_internals.vmap`."]
        return (out,)
    if case == "dual":
        inp = m.zeros(2, 2).transpose(0, 1)

        def jvp(t):
            with FW[m].dual_level():
                return FW[m].unpack_dual(FW[m].make_dual(inp, t))[1]
        return (V._vmap(jvp, 0, 0)(m.arange(8.0).reshape(2, 2, 2)),)
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["shared", "out_dims", "nested", "vmap", "dual"])
def test_vmap_internals(case):
    for g, t in zip(_vmapped(gt, case), _vmapped(torch, case), strict=True):
        assert_same(g, t, check_strides=False)


VMAP_ERRORS = {
    "in_dim range": lambda V, m, x: V._vmap(lambda a: a, 2)(x),
    "sizes": lambda V, m, x: V._vmap(lambda a, b: a, (0, 0))(x, m.ones(3)),
    "returns int": lambda V, m, x: V._vmap(lambda a: 1)(x),
    "returns tuple with int": lambda V, m, x: V._vmap(lambda a: (a, 1))(x),
    "in_dims type": lambda V, m, x: V._vmap(lambda a: a, "x")(x),
    "out_dims type": lambda V, m, x: V._vmap(lambda a: a, 0, "x")(x),
    "non-tensor mapped": lambda V, m, x: V._vmap(lambda a: a, 0)(1),
}


@pytest.mark.parametrize("name", VMAP_ERRORS)
def test_vmap_internals_errors(name):
    assert_same_error(lambda: VMAP_ERRORS[name](gt._vmap_internals, gt, gt.ones(2, 2)),
                      lambda: VMAP_ERRORS[name](torch._vmap_internals, torch, torch.ones(2, 2)))
