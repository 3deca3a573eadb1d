"""Saved-tensor hooks against torch: a tensor unpacked by a hook carries the saved tensor's history (double
backward goes through it), ``disable_saved_tensors_hooks`` refuses to start while hooks are active, and
``allow_mutation_on_saved_tensors`` clones a saved tensor just before a write (its context's maps, gradients
first and second order)."""

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same_error

A = np.random.default_rng(0).standard_normal((2, 3))


def _double_backward_through_hooks(mod):
    a = mod.tensor(A, requires_grad=True)
    with mod.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        b = a.clone()
        out = (b ** 3).sum() + (a * a).sum()
    (da,) = mod.autograd.grad(out, a, create_graph=True)
    (d2a,) = mod.autograd.grad(da.sum(), a)
    return da.detach().numpy(), d2a.numpy()


def test_unpacked_tensor_keeps_history():
    for g, t in zip(_double_backward_through_hooks(gt), _double_backward_through_hooks(torch), strict=True):
        np.testing.assert_allclose(g, t, rtol=1e-12)


def test_disable_refuses_while_hooks_are_active():
    def make(mod):
        def run():
            with mod.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                with mod.autograd.graph.disable_saved_tensors_hooks("error message"):
                    pass
        return run
    assert_same_error(make(gt), make(torch))


def _mutation(mod, case):
    with mod.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = mod.tensor(A, requires_grad=True)
        b = a.clone()
        c = b[:1] if case == "view" else b
        out = (b ** 2).sum()
        lens = [len(ctx.cloned), len(ctx.original), len(ctx.tid_to_weakhandle)]
        c.mul_(10)
        lens += [len(ctx.cloned), len(ctx.original)]
        if case == "double":
            (da,) = mod.autograd.grad(out, a, create_graph=True)
            (g,) = mod.autograd.grad(da.sum(), a)
        else:
            out.backward()
            g = a.grad
        lens.append(len(ctx.cloned))
    return lens + [len(ctx.cloned)], g.numpy()


@pytest.mark.parametrize("case", ["base", "view", "double"])
def test_allow_mutation_on_saved_tensors(case):
    (g_lens, g), (t_lens, t) = _mutation(gt, case), _mutation(torch, case)
    assert g_lens == t_lens
    np.testing.assert_allclose(g, t, rtol=1e-12)


def test_allow_mutation_refuses_nesting_and_backward_outside():
    def nested(mod):
        with mod.autograd.graph.allow_mutation_on_saved_tensors():
            with mod.autograd.graph.allow_mutation_on_saved_tensors():
                pass
    assert_same_error(lambda: nested(gt), lambda: nested(torch))

    def outside(mod):
        with mod.autograd.graph.allow_mutation_on_saved_tensors():
            a = mod.tensor(A, requires_grad=True)
            out = (a.clone() ** 2).sum()
        out.backward()
    assert_same_error(lambda: outside(gt), lambda: outside(torch))


def test_raw_saved_tensors_of_a_custom_function():
    def make(mod, step):
        class Fn(mod.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        def run():
            a = mod.tensor(A, requires_grad=True)
            y = Fn.apply(a)
            saved = y.grad_fn._raw_saved_tensors
            assert len(saved) == 2 and all(isinstance(s, mod._C._autograd.SavedTensor) for s in saved)
            if step == "none":
                saved[1].register_hooks(lambda x: x, lambda x: x)
            if step == "twice":
                saved[0].register_hooks(lambda x: x, lambda x: x)
                saved[0].register_hooks(lambda x: x, lambda x: x)
            y.sum().backward()
            if step == "after":
                _ = y.grad_fn._raw_saved_tensors
            return a.grad.numpy().tolist()
        return run
    for step in ("none", "twice", "after"):
        assert_same_error(make(gt, step), make(torch, step))
    assert make(gt, "ok")() == make(torch, "ok")()


def test_register_hooks_wants_two_callables():
    for args in ((lambda x: x,), (1, 1)):
        with pytest.raises(TypeError, match="incompatible function arguments"):
            (gt.ones(2, requires_grad=True) * 1).exp().grad_fn._raw_saved_result.register_hooks(*args)
        with pytest.raises(TypeError, match="incompatible function arguments"):
            (torch.ones(2, requires_grad=True) * 1).exp().grad_fn._raw_saved_result.register_hooks(*args)
