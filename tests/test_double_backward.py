"""Derivative formulas against real PyTorch: what a node saves, special points, and second derivatives.

- Multi-output ops whose formulas read only some outputs (``sort``'s indices, ``native_layer_norm``'s mean and
  rstd) save only those, so writing into another output in place leaves backward valid, as in PyTorch; the
  saved outputs carry PyTorch's ``_saved_<name>`` attribute names.
"""

import pytest
import torch
from oracle import both

import glasstorch


def _grid(m):
    return m.tensor([[3.0, 1.0], [2.0, 5.0], [4.0, 0.0]], dtype=m.float64, requires_grad=True)


# -- multi-output ops save only the outputs their formulas read ----------------------------------------------
SELECTING = {
    "sort": lambda m, x: x.sort(0),
    "sort_stable": lambda m, x: x.sort(stable=True, dim=0, descending=True),
    "msort": lambda m, x: (x.msort(),),
    "topk": lambda m, x: x.topk(2, 0),
    "max_dim": lambda m, x: x.max(1, keepdim=True),
    "min_dim": lambda m, x: x.min(0),
    "kthvalue": lambda m, x: x.kthvalue(2, 0),
    "native_layer_norm": lambda m, x: m.native_layer_norm(x, (2,), None, None, 1e-5),
    "native_batch_norm": lambda m, x: m.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5),
    "native_dropout": lambda m, x: m.native_dropout(x, 0.0, True),
    "max_pool2d_with_indices": lambda m, x: m.nn.functional.max_pool2d(x.view(1, 1, 3, 2), 2, 1,
                                                                      return_indices=True),
}


@pytest.mark.parametrize("name", sorted(SELECTING))
def test_writing_into_an_unsaved_output_keeps_backward_valid(name):
    def recipe(m):
        x = _grid(m)
        values = SELECTING[name](m, x)[0]
        node = values.grad_fn
        saved = sorted(a for a in dir(node) if a.startswith("_saved_result") or a in ("_saved_indices",
                                                                                        "_saved_values"))
        contents = [getattr(node, a).tolist() for a in saved]
        values.mul_(2)  # the values are not saved: no version-counter error
        values.sum().backward()
        return type(node).__name__, saved, contents, x.grad.reshape(-1).tolist()

    got, want = both(recipe)
    assert got[:3] == want[:3]
    assert got[3] == pytest.approx(want[3], abs=1e-12)


def test_writing_into_a_saved_output_still_raises():
    def recipe(m):
        x = _grid(m)
        values, indices = x.max(0)
        indices.add_(0)  # the saved one: backward refuses, with PyTorch's message
        values.sum().backward()

    from oracle import assert_same_error

    assert_same_error(lambda: recipe(glasstorch), lambda: recipe(torch))


# -- special points and the graph of a gradient ---------------------------------------------------------------
def _graph(fn, depth=0, out=None):
    """The node names of a gradient's history, depth first (AccumulateGrad included)."""
    out = [] if out is None else out
    if fn is None or depth > 8:
        return out
    out.append((depth, type(fn).__name__))
    for f, _ in fn.next_functions:
        _graph(f, depth + 1, out)
    return out


@pytest.mark.parametrize("op", ["relu", "threshold"])
def test_relu_gradient_is_differentiable(op):
    """relu's (and threshold's) gradient is the threshold_backward operator, itself differentiable."""
    def recipe(m):
        x = m.tensor([-1.0, 0.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        y = x.relu() if op == "relu" else m.threshold(x, 0.5, -2.0)
        g_out = m.tensor([1.0, -2.0, 0.5, 4.0], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(y * y, x, g_out, create_graph=True)
        gg = m.autograd.grad(g.sum(), (x, g_out))
        return _graph(g.grad_fn), g.tolist(), [t.tolist() for t in gg]

    got, want = both(recipe)
    assert got == want


def test_threshold_backward_double_backward_gradcheck():
    def recipe(m):
        x = m.tensor([-1.0, 0.25, 2.0], dtype=m.float64, requires_grad=True)
        return m.autograd.gradgradcheck(lambda a: a.relu() * a, (x,))

    assert both(recipe) == (True, True)


def test_atan2_gradient_at_the_origin():
    """0, not NaN, where self and other are both 0 (PyTorch masks the infinite reciprocal); the graph matches."""
    def recipe(m):
        a = m.tensor([0.0, 1.0, 0.0, -2.0, 1e-200], dtype=m.float64, requires_grad=True)
        b = m.tensor([0.0, 2.0, 3.0, 0.0, 0.0], dtype=m.float64, requires_grad=True)
        ga, gb = m.autograd.grad(m.atan2(a, b).sum(), (a, b), create_graph=True)
        a32, b32 = m.zeros(2, requires_grad=True), m.zeros(2, requires_grad=True)
        g32 = m.autograd.grad(m.atan2(a32, b32).sum(), (a32, b32))
        return _graph(ga.grad_fn), ga.tolist(), gb.tolist(), [t.tolist() for t in g32]

    got, want = both(recipe)
    assert repr(got) == repr(want)  # the signs of the zeros too
