"""``sort(stable=False)`` (and argsort/msort) order ties as torch's CPU kernel does: ``std::sort`` for
bool/int8/uint8/int16/float16/bfloat16, fbgemm's stable radix sort for long 1-d ascending integer sorts."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import assert_same, both

DTYPES = ["bool", "int8", "uint8", "int16", "float16", "bfloat16"]
SHAPES = [((17,), 0), ((3, 100), 1), ((1000, 2), 0), ((8000,), 0), ((40000,), 0)]


def _data(m, dtype, shape):
    x = np.random.default_rng(sum(shape)).integers(-5, 6, size=shape)
    t = m.tensor(x > 0 if dtype == "bool" else x).to(getattr(m, dtype))
    if dtype in ("float16", "bfloat16"):
        t.view(-1)[3] = float("nan")
        t.view(-1)[7] = float("nan")
    return t


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_unstable_ties(dtype, shape, descending):
    size, dim = shape
    g, t = both(lambda m: m.sort(_data(m, dtype, size), dim=dim, descending=descending, stable=False))
    assert_same(g.values, t.values)
    assert_same(g.indices, t.indices)


@pytest.mark.parametrize("dtype", ["int8", "float16"])
def test_argsort_and_msort_unstable(dtype):
    assert_same(*both(lambda m: m.argsort(_data(m, dtype, (8000,)))))
    assert_same(*both(lambda m: m.msort(_data(m, dtype, (300, 2)))))


@pytest.mark.parametrize("sorted_", [True, False])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 3, 40, 200])
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "float16", "bfloat16", "float64"])
def test_topk_tie_order(dtype, k, largest, sorted_):
    """torch's topk_impl_loop: partial_sort when 64 k <= n, else nth_element (+ sort of the first k - 1)."""
    for size, dim in (((3, 300), 1), ((300, 2), 0)):
        def run(m, size=size, dim=dim):
            return m.topk(_data(m, dtype, size), k, dim=dim, largest=largest, sorted=sorted_)
        g, t = both(run)
        assert_same(g.values, t.values)
        assert_same(g.indices, t.indices)


def test_topk_leaves_input_alone():
    g, t = both(lambda m: m.arange(20.0, dtype=m.float64).flip(0))
    g.topk(5), t.topk(5)
    g.sort(stable=False), t.sort(stable=False)
    assert_same(g, t)
