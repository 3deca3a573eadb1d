"""Half-precision kernels whose scalar and vector ops round differently (Note [Vector and scalar lanes] in
glasstorch/_ops/kernels/cpu/vector_lanes.py): ``rsqrt`` in float16/bfloat16 bit for bit as torch's, for every
layout that decides which elements take the scalar op, and the gradients built on it (rsqrt, acos, asin).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch

import glasstorch as gt

HALF = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _values(dtype: str) -> np.ndarray:
    """Every finite positive value of the half type, as float32."""
    v = np.arange(65536, dtype=np.uint16).view(HALF[dtype]).astype(np.float32)
    return v[np.isfinite(v) & (v > 0)]


def _same(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    np.testing.assert_array_equal(got.detach().float().numpy(), want.detach().float().numpy())


LAYOUTS = {
    "31 (all scalar)": lambda v, lib: lib.tensor(v[:31]),
    "100 (3 blocks + tail)": lambda v, lib: lib.tensor(v[1000:1100]),
    "rows of 40 of a wider tensor": lambda v, lib: lib.tensor(v[:64 * 50].reshape(50, 64))[:, :40],
    "transposed": lambda v, lib: lib.tensor(v[:40 * 41].reshape(40, 41)).t(),
    "every other element": lambda v, lib: lib.tensor(v[:400])[::2],
    "a broadcast row": lambda v, lib: lib.tensor(v[:37]).expand(3, 37),
    "all values three times (split over threads)": lambda v, lib: lib.tensor(np.tile(v, 3)[7:]),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", list(HALF))
def test_rsqrt_bits(dtype, layout, threads):
    v = _values(dtype)
    make = LAYOUTS[layout]
    t = make(v, torch).to(getattr(torch, dtype))
    g = make(v, gt).to(getattr(gt, dtype))
    _same(g.rsqrt(), t.rsqrt())
    _same(gt.pow(g, -0.5), torch.pow(t, -0.5))


@pytest.mark.parametrize("dtype", list(HALF))
@pytest.mark.parametrize("fn,low,high", [("rsqrt", 0.05, 6.0), ("acos", -0.99, 0.99), ("asin", -0.99, 0.99)])
def test_gradients_bits(fn, low, high, dtype):
    """The formulas' rsqrt runs in torch's lanes, so half-precision gradients of 20 or 2000 elements agree."""
    rng = np.random.default_rng(1)
    for n in (20, 2000):
        x = rng.uniform(low, high, n).astype(np.float32)
        g = rng.standard_normal(n).astype(np.float32)
        grads = []
        for lib in (torch, gt):
            t = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_()
            getattr(t, fn)().backward(lib.tensor(g).to(getattr(lib, dtype)))
            grads.append(t.grad)
        _same(grads[1], grads[0])
