"""What a TorchDispatchMode sees, against torch: the random factories are operators of their own
(``aten.rand.default``, ``aten.randint.low``, ``aten.rand.generator``, ``aten.randperm.default`` ...), backward's
implicit seed is ``aten.ones_like``, and AccumulateGrad stores a stolen gradient through ``aten.detach``, each seen
from within the node running it (``torch._C._current_autograd_node``). The factories keep their streams and
errors."""

import numpy as np
import pytest
import torch
import torch.utils._python_dispatch as torch_dispatch

import glasstorch as gt
import glasstorch.utils._python_dispatch as gt_dispatch
from tests.oracle import assert_same_error


def _seen(mod, dispatch, body):
    log = []

    class Mode(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args, kwargs=None):
            node = mod._C._current_autograd_node()
            log.append(f"{func} {type(node).__name__ if node else None}")
            return func(*args, **(kwargs or {}))

    with Mode():
        body(mod)
    return log


def _factories(m):
    m.rand(3)
    m.randn(2, 2, dtype=m.double)
    m.randint(5, (3,))
    m.randint(2, 5, (3,))
    m.rand(2, generator=m.Generator().manual_seed(0))
    m.randint(0, 4, (2,), generator=m.Generator().manual_seed(0))
    m.randperm(4)
    m.randperm(4, generator=m.Generator().manual_seed(0))


def _forward_backward(m):
    a = m.rand(10, requires_grad=True)
    a.mul(2).div(3).sum().backward()


@pytest.mark.parametrize("body", [_factories, _forward_backward])
def test_mode_sees_what_torch_sees(body):
    assert _seen(gt, gt_dispatch, body) == _seen(torch, torch_dispatch, body)


def test_factory_results_under_mode():
    out = {}

    def body(m):
        out["r"] = m.rand(2, 3, dtype=m.double, requires_grad=True)
        out["i"] = m.randint(2, 5, (4,))
        out["p"] = m.randperm(5, dtype=m.int32)
    _seen(gt, gt_dispatch, body)
    r, i, p = out["r"], out["i"], out["p"]
    assert (tuple(r.shape), str(r.dtype), r.requires_grad, r.is_leaf) == ((2, 3), "torch.float64", True, True)
    assert str(i.dtype) == "torch.int64" and all(2 <= v < 5 for v in i.tolist())
    assert str(p.dtype) == "torch.int32" and sorted(p.tolist()) == list(range(5))


def test_fresh_factories_are_at_version_0():
    for m in (gt, torch):
        assert [t._version for t in (m.rand(3), m.randn(2), m.randint(0, 3, (2,)), m.randperm(3))] == [0] * 4


def test_streams_are_the_samplers():
    gt.manual_seed(7)
    a, b = gt.rand(4), gt.randn(3)
    gt.manual_seed(7)
    c, d = gt.empty(4).uniform_(), gt.empty(3).normal_()
    assert a.tolist() == c.tolist() and b.tolist() == d.tolist()
    g1, g2 = gt.Generator().manual_seed(3), gt.Generator().manual_seed(3)
    assert gt.randint(0, 9, (6,), generator=g1).tolist() == gt.empty(6, dtype=gt.long).random_(0, 9, generator=g2
                                                                                                ).tolist()
    np.testing.assert_array_equal(gt.randperm(6, generator=gt.Generator().manual_seed(1)).numpy(),
                                  gt.randperm(6, generator=gt.Generator().manual_seed(1)).numpy())


@pytest.mark.parametrize("call", [lambda m: m.rand(2, dtype=m.long), lambda m: m.randperm(-1),
                                  lambda m: m.randperm(3, dtype=m.bool), lambda m: m.randint(5, 2, (2,)),
                                  lambda m: m.rand(2, generator=3)])
def test_factory_errors(call):
    assert_same_error(lambda: call(gt), lambda: call(torch))
