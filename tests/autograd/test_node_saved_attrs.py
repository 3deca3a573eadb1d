"""The ``_saved_*`` attributes generated nodes show, against torch: one size of an argument saved alone
(``_saved_batch1_sym_argsize_0``, ``_saved_self_sym_argsize_minus_2``), list arguments shown as tuples, and the
foreach maximum/minimum family (values, gradients with ties, in-place forms returning the caller's list,
``_saved_scalars``, list checks)."""

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same_error

# torch shows embedding's padding_idx of -1 as 2**64 - 1 (a SymInt read back unsigned); glasstorch keeps -1
_NOT_COMPARED = ("_saved_padding_idx",)


def _attrs(fn):
    return {n: getattr(fn, n) for n in dir(fn) if (n.startswith("_saved_") and not n.startswith("_saved_self")
            or n.startswith("_saved_self_sym")) and n not in _NOT_COMPARED}


def _plain(v):
    return v if not hasattr(v, "shape") else ("tensor", tuple(v.shape))


CASES = {
    "addbmm": lambda m: m.addbmm(m.ones(2, 4), m.ones(3, 2, 5, requires_grad=True), m.ones(3, 5, 4)),
    "unfold": lambda m: m.nn.functional.unfold(m.ones(1, 2, 4, 5, requires_grad=True), 3),
    "embedding": lambda m: m.nn.functional.embedding(m.tensor([1, 2]), m.ones(6, 3, requires_grad=True)),
    "conv2d": lambda m: m.nn.functional.conv2d(m.ones(1, 2, 5, 5, requires_grad=True), m.ones(3, 2, 2, 2),
                                               stride=(2, 1), dilation=(1, 2)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_saved_attribute_names_and_types(case):
    g, t = CASES[case](gt).grad_fn, CASES[case](torch).grad_fn
    ga = {k: _plain(v) for k, v in _attrs(g).items() if not k.startswith(("_saved_input", "_saved_weight"))
          or "argsize" in k}
    ta = {k: _plain(v) for k, v in _attrs(t).items() if not k.startswith(("_saved_input", "_saved_weight"))
          or "argsize" in k}
    assert ga == ta
    assert {k: type(v) for k, v in ga.items()} == {k: type(v) for k, v in ta.items()}


def test_argsize_gradients_match():
    def run(m):
        b1 = m.tensor(np.arange(30.0).reshape(3, 2, 5) / 7, requires_grad=True)
        b2 = m.tensor(np.arange(60.0).reshape(3, 5, 4) / 11, requires_grad=True)
        x = m.tensor(np.arange(40.0).reshape(1, 2, 4, 5) / 3, requires_grad=True)
        (m.addbmm(m.ones(2, 4, dtype=m.double), b1, b2).sum() + m.nn.functional.unfold(x, 3).pow(2).sum()).backward()
        return b1.grad.numpy(), b2.grad.numpy(), x.grad.numpy()
    for a, b in zip(run(gt), run(torch), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


X = [-1.0, 0.0, 2.0, 0.5]


@pytest.mark.parametrize("op", ["_foreach_maximum", "_foreach_minimum"])
@pytest.mark.parametrize("kind", ["Scalar", "ScalarList", "List"])
def test_foreach_maximum_minimum(op, kind):
    def run(m):
        xs = [m.tensor(X, requires_grad=True), m.tensor(X[::-1], requires_grad=True)]
        others = [m.tensor([0.0, 0.0, 3.0, 0.5], requires_grad=True), m.tensor([1.0, 0.5, 0.0, -2.0],
                                                                               requires_grad=True)]
        arg = {"Scalar": 0.5, "ScalarList": [0.0, 0.5], "List": others}[kind]
        out = getattr(m, op)(xs, arg)
        saved = out[0].grad_fn._saved_scalars if kind == "ScalarList" else None
        sum(o.sum() * (i + 1) for i, o in enumerate(out)).backward()
        grads = [x.grad.numpy() for x in xs] + ([o.grad.numpy() for o in others] if kind == "List" else [])
        return [o.detach().numpy() for o in out], grads, saved
    (g_out, g_grads, g_saved), (t_out, t_grads, t_saved) = run(gt), run(torch)
    assert g_saved == t_saved and type(g_saved) is type(t_saved)
    for a, b in zip(g_out + g_grads, t_out + t_grads, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("op", ["_foreach_maximum_", "_foreach_minimum_"])
@pytest.mark.parametrize("kind", ["Scalar", "ScalarList", "List"])
def test_foreach_maximum_minimum_inplace(op, kind):
    def run(m):
        xs = [m.tensor(X), m.tensor(X[::-1])]
        arg = {"Scalar": 0.5, "ScalarList": [0.0, 0.5], "List": [m.tensor([0.0, 0.0, 3.0, 0.5]),
                                                               m.tensor([1.0, 0.5, 0.0, -2.0])]}[kind]
        assert getattr(m, op)(xs, arg) is xs  # the binding hands back the caller's list
        return [x.numpy() for x in xs]
    for a, b in zip(run(gt), run(torch), strict=True):
        np.testing.assert_array_equal(a, b)


def test_foreach_maximum_promotes_and_checks_lengths():
    for scalar in ([2.5], 2):
        (g,), (t,) = gt._foreach_maximum([gt.tensor([1, 5])], scalar), torch._foreach_maximum([torch.tensor([1, 5])],
                                                                                               scalar)
        assert str(g.dtype) == str(t.dtype) and g.tolist() == t.tolist()
    assert_same_error(lambda: gt._foreach_maximum([gt.ones(2), gt.ones(2)], [1.0]),
                      lambda: torch._foreach_maximum([torch.ones(2), torch.ones(2)], [1.0]))


def test_has_lapack():
    assert gt._C.has_lapack is torch._C.has_lapack
