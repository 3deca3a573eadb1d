"""The user entry points of autograd, against torch: ``inputs=`` given as a dict (the result of ``grad`` is a
dict with the same keys) or as GradientEdges, their error texts, ``torch.is_inference``, and the grad-mode
decorators (``@enable_grad`` without parentheses, a decorated class)."""

import collections
import warnings

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same_error

X = np.random.default_rng(0).standard_normal((2, 2))
Y = np.random.default_rng(1).standard_normal((2, 2))


def _leaves(mod):
    return (mod.tensor(X, requires_grad=True), mod.tensor(Y, requires_grad=True))


def _f(x, y):
    return x ** 2 + y * x + y ** 2


def _np(d):
    return {k: v.detach().numpy() for k, v in d.items()}


@pytest.mark.parametrize("keys", [("x", "y"), (1, 0)])
def test_grad_with_dict_inputs_returns_a_dict(keys):
    def run(mod):
        x, y = _leaves(mod)
        out = mod.autograd.grad(_f(x, y).sum(), dict(zip(keys, (x, y), strict=True)))
        assert type(out) is dict
        return list(out), _np(out)
    g_keys, g = run(gt)
    t_keys, t = run(torch)
    assert g_keys == t_keys
    for k in t:
        np.testing.assert_allclose(g[k], t[k], rtol=1e-12)


def test_backward_with_dict_inputs():
    def run(mod):
        x, y = _leaves(mod)
        _f(x, y).sum().backward(inputs={"y": y})
        return x.grad, y.grad.numpy()
    (gx, gy), (tx, ty) = run(gt), run(torch)
    assert gx is None and tx is None
    np.testing.assert_allclose(gy, ty, rtol=1e-12)


@pytest.mark.parametrize("call", ["grad", "backward", "tensor_backward"])
@pytest.mark.parametrize("inputs", ["empty", "ordered"])
def test_dict_inputs_errors(call, inputs):
    def make(mod):
        def run():
            x, y = _leaves(mod)
            z = _f(x, y).sum()
            ins = {} if inputs == "empty" else collections.OrderedDict(x=x)
            if call == "grad":
                mod.autograd.grad(z, ins)
            elif call == "backward":
                mod.autograd.backward(z, inputs=ins)
            else:
                z.backward(inputs=ins)
        return run
    assert_same_error(make(gt), make(torch))


def _edge_grads(mod, materialize=False):
    x = mod.tensor(X, requires_grad=True).clone()
    y = mod.tensor(Y, requires_grad=True).clone()
    ex = mod.autograd.graph.get_gradient_edge(x)
    ey = mod.autograd.graph.GradientEdge(y.grad_fn, y.output_nr)
    x_old = x
    x = x * 3  # the edge keeps pointing at the old value's node
    out = (x * y).sum()
    single = mod.autograd.grad(out, ex, retain_graph=True)
    both = mod.autograd.grad(out, (ex, y, ey), retain_graph=True)
    unused = mod.autograd.grad(x_old.sum(), (x_old, ey), allow_unused=True, materialize_grads=materialize)
    return [t.detach().numpy() if t is not None else None for t in (*single, *both, *unused)]


def test_grad_to_gradient_edges():
    for g, t in zip(_edge_grads(gt), _edge_grads(torch), strict=True):
        assert (g is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(g, t, rtol=1e-12)


def test_materialize_grads_refuses_an_unused_gradient_edge():
    assert_same_error(lambda: _edge_grads(gt, True), lambda: _edge_grads(torch, True))


def test_backward_to_gradient_edges_accumulates_only_at_leaves():
    def run(mod):
        a = mod.tensor(X, requires_grad=True)
        x = a.clone()
        ex = mod.autograd.graph.get_gradient_edge(x)
        (x * x).sum().backward(inputs=(ex,))
        b = mod.tensor(Y, requires_grad=True)
        (b * b).sum().backward(inputs=(mod.autograd.graph.get_gradient_edge(b),))
        return a.grad, b.grad.numpy()
    (ga, gb), (ta, tb) = run(gt), run(torch)
    assert ga is None and ta is None
    np.testing.assert_allclose(gb, tb, rtol=1e-12)


def test_is_inference():
    def run(mod):
        with mod.inference_mode():
            a = mod.ones(2)
        return mod.is_inference(a), mod.is_inference(mod.ones(2))
    assert run(gt) == run(torch)
    assert_same_error(lambda: gt.is_inference(3), lambda: torch.is_inference(3))


def test_enable_grad_decorates_without_parentheses():
    def run(mod):
        @mod.enable_grad
        def f():
            return mod.is_grad_enabled()
        with mod.no_grad():
            return f(), mod.is_grad_enabled()
    assert run(gt) == run(torch)


def test_decorating_a_class_warns_and_constructs_in_the_mode():
    def run(mod):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")

            @mod.no_grad()
            class Foo:
                def __init__(self):
                    self.seen = mod.is_grad_enabled()

                def method(self):
                    return mod.is_grad_enabled()
        foo = Foo()
        return foo.seen, foo.method(), [(x.category, str(x.message)) for x in w], isinstance(Foo, type)
    assert run(gt) == run(torch)
