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
