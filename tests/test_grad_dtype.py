"""``Tensor.grad_dtype`` against torch: a leaf's gradient dtype (its own by default, None for any), which incoming
gradients are cast to and an assigned ``.grad`` must have; its errors on non-leaves, bad values and a gradient
already there."""

from __future__ import annotations

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error


def _double_grad_fn(m):
    class ToDouble(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.to(m.float64)

    return ToDouble


def test_default_set_and_cleared():
    for m in (gt, torch):
        leaf = m.tensor([1.0, 2.0], requires_grad=True)
        assert str(leaf.grad_dtype) == "torch.float32"
        leaf.grad_dtype = m.float16
        assert leaf.grad_dtype is m.float16
        leaf.grad_dtype = None
        assert leaf.grad_dtype is None
        plain = m.tensor([1, 2])
        assert plain.grad_dtype is m.int64
        plain.grad_dtype = m.float32  # any leaf, requiring grad or not
        assert plain.grad_dtype is m.float32
        assert m.ones(2).detach().grad_dtype is m.float32


def _set(t, value):
    def run():
        t.grad_dtype = value
    return run


def _errors(m):
    leaf = m.tensor([1.0, 2.0], requires_grad=True)
    with_grad = m.tensor([1.0, 2.0], requires_grad=True)
    with_grad.grad = m.ones(2)
    half = m.tensor([1.0, 2.0], requires_grad=True)
    half.grad_dtype = m.float16

    def assign():
        half.grad = m.ones(2)

    return [lambda: (leaf * 2).grad_dtype, _set(leaf * 2, m.float16), _set(with_grad, m.float16),
            _set(with_grad, m.float64), _set(leaf, "float16"), assign]


@pytest.mark.parametrize("k", range(6))
def test_errors(k):
    assert_same_error(_errors(gt)[k], _errors(torch)[k])


def test_assigning_grad_follows_grad_dtype():
    for m in (gt, torch):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        x.grad_dtype = m.float16
        x.grad = m.ones(2, dtype=m.float16)
        x.grad_dtype = m.float16  # matches the gradient there
        x.grad = None
        x.grad_dtype = None
        x.grad = m.ones(2, dtype=m.float64)
        assert x.grad.dtype is m.float64
        x.grad_dtype = None  # None is allowed with a gradient there
        x.grad = None
        x.grad_dtype = m.float16
        assert x.grad_dtype is m.float16


@pytest.mark.parametrize("grad_dtype", ["default", None, "float16", "float64"])
def test_incoming_gradient_cast(grad_dtype):
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        keep = x.clone()  # the leaf's AccumulateGrad exists before grad_dtype changes
        if grad_dtype != "default":
            x.grad_dtype = None if grad_dtype is None else getattr(m, grad_dtype)
        _double_grad_fn(m).apply(x).sum().backward()
        return x.grad, keep

    assert_same(run(gt)[0], run(torch)[0])


@pytest.mark.parametrize("grad_dtype", [None, "float32"])
def test_accumulating_onto_a_gradient_of_another_dtype(grad_dtype):
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        x.grad_dtype = None
        x.grad = m.ones(2, dtype=m.float64)
        if grad_dtype is not None:
            x.grad = None
            x.grad_dtype = getattr(m, grad_dtype)
            x.grad = m.ones(2)
        (x * 2).sum().backward()
        y = m.tensor([3.0, 4.0], requires_grad=True, dtype=m.bfloat16)
        y.grad_dtype = None
        (y * 2).sum().backward()
        y.grad = y.grad.to(m.float32)
        (y * 3).sum().backward()
        return x.grad, y.grad

    for a, b in zip(run(gt), run(torch), strict=True):
        assert_same(a, b)
