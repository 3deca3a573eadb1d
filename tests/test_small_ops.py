"""Small operators brought to torch's op_db (issue 20, family small): each behaviour against real torch."""

from __future__ import annotations

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error, both


@pytest.mark.parametrize("name,args", [("arange", (5,)), ("arange", (1, 7, 2)), ("eye", (3,)), ("eye", (2, 4)),
                                       ("linspace", (0, 1, 5)), ("logspace", (0, 2, 4)),
                                       ("logspace", (0, 2, 4, 2.0))])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_range_factories_write_and_return_out(name, args, dtype):
    def run(m):
        out = m.empty(2, dtype=getattr(m, dtype))
        return getattr(m, name)(*args, out=out), out
    (res_gt, out_gt), (res_th, out_th) = both(run)
    assert res_gt is out_gt and res_th is out_th
    assert_same(res_gt, res_th, rtol=1e-6, atol=0)  # logspace's float32 powers may differ in the last bit


def test_range_factory_out_dtype_mismatch():
    assert_same_error(lambda: gt.arange(3, dtype=gt.int64, out=gt.empty(0)),
                      lambda: torch.arange(3, dtype=torch.int64, out=torch.empty(0)))


@pytest.mark.parametrize("name", ["linspace", "logspace"])
def test_space_float_steps_is_the_parsers_error(name):
    assert_same_error(lambda: getattr(gt, name)(0, 10, 1.5), lambda: getattr(torch, name)(0, 10, 1.5))


def test_gather_out_of_another_dtype():
    def run(m):
        return m.gather(m.ones(2, 2), 1, m.tensor([[0, 1], [1, 0]]), out=m.empty(2, 2, dtype=m.float64))
    assert_same_error(lambda: run(gt), lambda: run(torch))


@pytest.mark.parametrize("name", ["scatter", "scatter_add"])
def test_scatter_src_of_other_rank(name):
    def run(m):
        return getattr(m, name)(m.zeros(3, 5), 0, m.tensor([[0, 1], [1, 2]]), m.ones(2, 5, 2))
    assert_same_error(lambda: run(gt), lambda: run(torch))


@pytest.mark.parametrize("dtype", ["int8", "bool", "float32"])
def test_sum_to_size_of_an_empty_shape_is_the_full_sum(dtype):
    g, t = both(lambda m: m.ones((), dtype=getattr(m, dtype)).sum_to_size(()))
    assert_same(g, t)
    g, t = both(lambda m: m.ones(2, 3, dtype=getattr(m, dtype)).sum_to_size(2, 3))
    assert_same(g, t)
