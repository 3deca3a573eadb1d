"""Per-dispatch-key derivative formulas (``dispatch:`` in derivatives YAML) through PyTorch's test-only operators
``_test_autograd_multiple_dispatch(.fullcoverage/.ntonly)`` and ``_test_autograd_multiple_dispatch_view(_copy)``,
against torch on CPU (the Default formulas), plus the AutogradCUDA kernels the codegen registers beside them."""

from __future__ import annotations

import torch
import torch.autograd.forward_ad as th_fw

import glasstorch as gt
import glasstorch.autograd.forward_ad as gt_fw
from glasstorch._ops.dispatcher import get_op
from tests.oracle import assert_same

FW = {gt: gt_fw, torch: th_fw}


def _grads(m):
    t = m.arange(9.0).reshape(3, 3).requires_grad_()
    g = m.arange(9.0).reshape(3, 3) * 0.5
    out = []
    for call in (lambda: m._test_autograd_multiple_dispatch(t), lambda: m._test_autograd_multiple_dispatch(t, True),
                 lambda: m._test_autograd_multiple_dispatch_view(t).reshape(3, 3),
                 lambda: m._test_autograd_multiple_dispatch_view_copy(t).reshape(3, 3)):
        t.grad = None
        y = call()
        y.backward(g)
        out.append((type(y.grad_fn).__name__, t.grad))
    return out


def test_default_formulas_match_torch():
    for (g_name, g_grad), (t_name, t_grad) in zip(_grads(gt), _grads(torch), strict=True):
        assert g_name == t_name
        assert_same(g_grad, t_grad)


def _nodes(m):
    t = m.ones(2, 2, requires_grad=True)
    v = m._test_autograd_multiple_dispatch_view(t)
    c = m._test_autograd_multiple_dispatch_view_copy(t)
    return [type(m._test_autograd_multiple_dispatch(t).grad_fn).__name__, type(v.grad_fn).__name__, v._base is t,
            type(c.grad_fn).__name__, c._base is None]


def test_node_names_and_views_match_torch():
    assert _nodes(gt) == _nodes(torch)


def _tangents(m):
    fw = FW[m]
    with fw.dual_level():
        d = fw.make_dual(m.arange(3.0), m.tensor([1.0, 2.0, 3.0]))
        return [fw.unpack_dual(m._test_autograd_multiple_dispatch(d)).tangent,
                fw.unpack_dual(m._test_autograd_multiple_dispatch(d, True)).tangent]


def test_forward_ad_of_the_default_formula():
    for g, t in zip(_tangents(gt), _tangents(torch), strict=True):
        assert_same(g, t)


def test_cuda_formulas_register_at_their_own_key():
    for name, node in (("aten::_test_autograd_multiple_dispatch.fullcoverage",
                        "TestAutogradMultipleDispatchBackwardAutogradCUDA0"),
                       ("aten::_test_autograd_multiple_dispatch_view",
                        "TestAutogradMultipleDispatchViewBackwardAutogradCUDA0"),
                       ("aten::_test_autograd_multiple_dispatch_view_copy",
                        "TestAutogradMultipleDispatchViewBackwardAutogradCUDA0_copy")):
        op = get_op(name)
        assert op.has_kernel("AutogradCUDA") and op.has_kernel("Autograd")
        assert hasattr(gt.autograd._generated.nodes, node)
    assert not get_op("aten::_test_autograd_multiple_dispatch.ntonly").has_kernel("Autograd")
