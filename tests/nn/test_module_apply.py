"""Module._apply against torch: a conversion that changes the kind of tensor (dense -> sparse) replaces the
parameters and their grads; ``torch.__future__.set_overwrite_module_params_on_conversion`` replaces them always;
otherwise the same Parameter objects read the converted data."""

from __future__ import annotations

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


def _to_sparse_module(m):
    lin = m.nn.Linear(3, 2)
    lin.weight.grad = m.ones(2, 3)
    ref, grad_ref = lin.weight, lin.weight.grad
    lin._apply(lambda t: m.sparse_coo_tensor(m.zeros([2, 1]), m.ones([1]), m.Size([2, 3])))
    return (lin.weight is ref, lin.weight.grad is grad_ref, str(lin.weight.layout), str(lin.weight.grad.layout),
            type(lin.weight).__name__)


def test_layout_change_replaces_parameters():
    assert _to_sparse_module(gt) == _to_sparse_module(torch)


@pytest.mark.parametrize("overwrite", [False, True])
def test_overwrite_switch(overwrite):
    def run(m):
        m.__future__.set_overwrite_module_params_on_conversion(overwrite)
        try:
            lin = m.nn.Linear(3, 2).float()
            lin.weight.grad = m.ones(2, 3)
            view, ref, grad_ref = lin.weight[:], lin.weight, lin.weight.grad
            lin.double()
            with m.no_grad():
                view[0][0] = 5
            return (lin.weight is ref, lin.weight.grad is grad_ref, str(view.dtype), str(view._base.dtype),
                    bool(view[0][0] == view._base[0][0]), str(lin.weight.dtype), str(lin.weight.grad.dtype))
        finally:
            m.__future__.set_overwrite_module_params_on_conversion(False)
    assert run(gt) == run(torch)
    assert gt.__future__.get_overwrite_module_params_on_conversion() is False


def test_inplace_apply_bumps_the_original_version():
    def run(m):
        m.__future__.set_overwrite_module_params_on_conversion(True)
        try:
            lin = m.nn.Linear(3, 2)
            ref = lin.weight
            before = ref._version
            lin._apply(lambda t: t.add_(1.0))
            return ref._version > before, lin.weight is ref
        finally:
            m.__future__.set_overwrite_module_params_on_conversion(False)
    assert run(gt) == run(torch)


def test_sparse_parameter_round_trip_values():
    g, t = (m.nn.Parameter(m.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse()) for m in (gt, torch))
    assert str(g.layout) == str(t.layout) and g.requires_grad == t.requires_grad
    assert_same(g.to_dense(), t.to_dense())
