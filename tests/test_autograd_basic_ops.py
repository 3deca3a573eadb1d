"""``torch._C._functions``' small nodes against torch: DelayedError's outputs alias their inputs and raise its
message in backward, UndefinedGrad's clones send undefined gradients (a custom Function sees zeros, or None
without materialization), both as PyTorch's ``wrap_outputs`` attaches them (a node even in no_grad mode, none
for inputs that do not require grad), and the node classes the namespace lists."""

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same_error

Y = np.random.default_rng(0).standard_normal(3)


def _delayed(mod):
    y = mod.tensor(Y, requires_grad=True)
    fn = mod._C._functions.DelayedError("Boom!", 1)
    o = fn(y)
    with mod.no_grad():
        z = fn(y)
    two = mod._C._functions.DelayedError("B", 2)(y, y * 2)
    plain = fn(mod.ones(2))
    return (fn.name(), type(o).__name__, o.grad_fn.name(), [n.name() for n, _ in o.grad_fn.next_functions],
            o.data_ptr() == y.data_ptr(), o._version, o.is_leaf, z.requires_grad, z.grad_fn.next_functions,
            len(two), two[0].grad_fn is two[1].grad_fn, plain.grad_fn, o.detach().numpy().tolist())


def test_delayed_error_outputs():
    assert _delayed(gt) == _delayed(torch)


def test_delayed_error_raises_in_backward_and_checks_its_arity():
    def backward(mod):
        y = mod.tensor(Y, requires_grad=True)
        (mod._C._functions.DelayedError("Boom!", 1)(y) * 2).sum().backward()
    assert_same_error(lambda: backward(gt), lambda: backward(torch))

    def arity(mod):
        y = mod.tensor(Y, requires_grad=True)
        mod._C._functions.DelayedError("Boom!", 1)(y, y)
    assert_same_error(lambda: arity(gt), lambda: arity(torch))


@pytest.mark.parametrize("materialize", [True, False])
def test_undefined_grad_reaches_a_custom_function(materialize):
    def run(mod):
        seen = []

        class Id(mod.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                seen.append(None if g is None else g.numpy().tolist())
                return g
        x = mod.tensor(Y, requires_grad=True)
        u = mod._C._functions.UndefinedGrad()(Id.apply(x))
        u.sum().backward()
        return seen, u.grad_fn.name(), u.data_ptr() == x.data_ptr(), None if x.grad is None else x.grad.numpy().tolist()
    assert run(gt) == run(torch)


def test_functions_namespace_lists_node_classes():
    for name in ("AccumulateGrad", "CopySlices", "DelayedError", "UndefinedGrad", "MulBackward0", "ViewBackward0"):
        assert hasattr(torch._C._functions, name)
        assert hasattr(gt._C._functions, name)
    x = gt.ones(2, requires_grad=True)
    y = x.clone()
    y[0].mul_(2)
    assert isinstance(y.grad_fn, gt._C._functions.CopySlices)
    assert isinstance(y.grad_fn.next_functions[0][0].next_functions[0][0], gt._C._functions.AccumulateGrad)
    assert isinstance((x * 2).grad_fn, gt._C._functions.MulBackward0)


def _boxed(mod):
    seen = []

    class Boxed(mod.autograd.Function):
        boxed_grads_call = True

        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grads):
            seen.append((type(grads).__name__, len(grads)))
            g1, g2 = grads
            grads.clear()  # a boxed backward may free its gradients as it goes
            return g1 * 2 + g2 * 3

    x = mod.tensor(Y, requires_grad=True)
    a, b = Boxed.apply(x)
    (a.sum() + b.sum() * 2).backward()
    direct = a.grad_fn.apply(mod.ones(3), mod.ones(3) * 2)
    return seen, x.grad.numpy().tolist(), direct.numpy().tolist()


def test_boxed_grads_call_hands_backward_one_list():
    assert _boxed(gt) == _boxed(torch)
