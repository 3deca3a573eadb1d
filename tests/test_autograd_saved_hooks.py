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
