"""Output grads that are undefined, and formulas that must not read values, against real PyTorch.

A multi-output node whose formula names ``grads[i]`` (``_linalg_svd``, ``var_mean``, ``std_mean``) gets an output
that received no gradient as undefined (None), as PyTorch's nodes do, and its terms drop out; ``prod`` and
``cumprod`` pick their zero-safe path from a value test only for real tensors: under FakeTensors (make_fx, AOT
autograd) they take the value-independent path, as PyTorch's ``isTensorSubclassLike`` branch does.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch.fx.experimental.proxy_tensor import make_fx


def _pair(data, requires_grad=True):
    return (gt.tensor(data, requires_grad=requires_grad), torch.tensor(data, requires_grad=requires_grad))


def _close(a, b, tol=1e-5):
    assert a is not None and b is not None
    np.testing.assert_allclose(np.array(a.tolist()), b.detach().numpy(), rtol=tol, atol=tol)


def test_svdvals_grad_with_repeated_singular_values_is_finite():
    data = [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]   # S = (2, 2): U and Vh's terms would divide by S_j^2 - S_i^2 = 0
    (g, t) = _pair(data)
    gt.linalg.svdvals(g).sum().backward()
    torch.linalg.svdvals(t).sum().backward()
    assert np.isfinite(np.array(g.grad.tolist())).all()
    _close(g.grad, t.grad)


def test_svd_only_s_used_matches_torch():
    data = [[1.0, 2.0, 0.5], [0.0, 3.0, 1.0], [4.0, 1.0, 2.0], [1.0, 1.0, 1.0]]
    (g, t) = _pair(data)
    for lib, x in ((gt, g), (torch, t)):
        _, s, _ = lib.linalg.svd(x, full_matrices=False)
        (s * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    _close(g.grad, t.grad)


def test_svd_u_and_vh_grads_match_torch():
    data = [[1.0, 2.0, 0.5], [0.0, 3.0, 1.0], [4.0, 1.0, 2.0], [1.0, 1.0, 1.0]]
    (g, t) = _pair(data)
    for lib, x in ((gt, g), (torch, t)):
        u, s, vh = lib.linalg.svd(x, full_matrices=False)
        # sign-invariant functions of U and Vh (a singular vector's sign is arbitrary)
        ((u * u)[:, 0].sum() + (vh[1] ** 4).sum() + s.sum()).backward()
    _close(g.grad, t.grad, 1e-4)


@pytest.mark.parametrize("which", ["first", "second", "both"])
@pytest.mark.parametrize("op", ["var_mean", "std_mean"])
def test_var_mean_with_one_output_used(op, which):
    data = [[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]]
    (g, t) = _pair(data)
    for lib, x in ((gt, g), (torch, t)):
        a, b = getattr(lib, op)(x, dim=1)
        loss = {"first": a.sum(), "second": (b * 3).sum(), "both": a.sum() + (b * 3).sum()}[which]
        loss.backward()
    _close(g.grad, t.grad)


def test_svd_node_with_no_grads_returns_undefined():
    x = gt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    u, s, vh = gt.linalg.svd(x)
    node = s.grad_fn
    assert node.name() == "LinalgSvdBackward0"
    assert node.apply([None, None, None]) == [None]


@pytest.mark.parametrize("data", [[[1.0, 0.0, 3.0], [2.0, 5.0, 0.5]], [[1.0, 2.0, 3.0], [0.5, 4.0, 2.0]],
                                  [[0.0, 0.0, 3.0], [2.0, 5.0, 0.5]]])
@pytest.mark.parametrize("case", ["prod", "prod_dim", "cumprod"])
def test_prod_cumprod_backward_traces_without_reading_values(case, data):
    """make_fx over the backward (fake tracing) records one graph; run on real values it gives torch's grads
    whatever the zeros in the input."""
    def fn(lib, x):
        if case == "prod":
            return x.prod()
        if case == "prod_dim":
            return x.prod(1)
        return x.cumprod(1)

    def grad_of(x, g):
        x = x.detach().requires_grad_(True)
        return gt.autograd.grad(fn(gt, x), x, g)[0]

    (g, t) = _pair(data)
    out_t = fn(torch, t)
    seed = torch.arange(1.0, 1.0 + out_t.numel()).reshape(out_t.shape)
    gm = make_fx(grad_of, tracing_mode="fake")(g, gt.tensor(seed.tolist()))
    assert not any(str(n.target).startswith("aten._local_scalar_dense") for n in gm.graph.nodes)
    got = gm(g.detach(), gt.tensor(seed.tolist()))
    out_t.backward(seed)
    _close(got, t.grad)
    eager = grad_of(g, gt.tensor(seed.tolist()))
    _close(eager, t.grad)
