"""Reductions and selections against torch: the 64-dim limit, nonzero's out checks, kthvalue's overlap check, and
the reductions added for op_db (aminmax, histc, bincount, cov, ...)."""

from __future__ import annotations

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error, from_torch


def _both(fn, *tensors):
    """``fn`` run in glasstorch on copies of ``tensors`` and in torch on the originals."""
    return fn(gt, *[from_torch(t) for t in tensors]), fn(torch, *tensors)


def test_reduction_over_a_dim_of_65_dims_refused():
    x = torch.zeros([1] * 65)
    g = gt.empty([1] * 65)
    for fn in (lambda m, t: m.amax(t, -1), lambda m, t: m.amin(t, 64)):
        assert_same_error(lambda fn=fn: fn(gt, g), lambda fn=fn: fn(torch, x))


def test_nonzero_out_checks_and_complex32():
    x = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    g = from_torch(x)
    assert_same_error(lambda: gt.nonzero(g, out=(gt.empty(0, dtype=gt.int64),)),
                      lambda: torch.nonzero(x, out=(torch.empty(0, dtype=torch.long),)))
    assert_same_error(lambda: gt.nonzero(g, as_tuple=True, out=gt.empty(0, dtype=gt.int64)),
                      lambda: torch.nonzero(x, as_tuple=True, out=torch.empty(0, dtype=torch.long)))
    c = gt.tensor([1, 0, 2, 0]).to(gt.complex32)
    assert gt.nonzero(c).tolist() == [[0], [2]]


def test_kthvalue_refuses_an_output_over_its_input():
    t = torch.randn(10)
    g = from_torch(t)
    assert_same_error(lambda: gt.kthvalue(g, 5, out=(g, gt.empty((), dtype=gt.int64))),
                      lambda: torch.kthvalue(t, 5, out=(t, torch.empty((), dtype=torch.long))))
