"""``hash_tensor`` against torch: the XOR of each reduced element's 64 bits after widening floats to float64 and
integers/bool to int64, a uint64 result, its dim/keepdim/out handling, the meta path and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
CALLS = [((), {}), ((1,), {}), ((0,), {"keepdim": True}), (([0, 2],), {}), ((-1,), {"keepdim": True}),
         (([],), {"keepdim": True})]


def _pair(values: np.ndarray, dtype: str):
    return gt.tensor(values).to(getattr(gt, dtype)), torch.tensor(values).to(getattr(torch, dtype))


def _same(got, want):
    assert str(got.dtype) == str(want.dtype)
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("args,kwargs", CALLS)
def test_values(dtype, args, kwargs):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((3, 4, 5)) * 50).astype(np.float32)
    x[0, 0, 0] = -0.0
    if dtype in ("float32", "float64"):  # torch's float32 -> bfloat16/float16 casts pick their own NaN bits
        x[1, 1, 1] = np.nan
    gx, tx = _pair(x, dtype)
    _same(gt.hash_tensor(gx, *args, **kwargs), torch.hash_tensor(tx, *args, **kwargs))
    _same(gx.hash_tensor(*args, **kwargs), tx.hash_tensor(*args, **kwargs))
    # a non-contiguous input
    _same(gt.hash_tensor(gx.transpose(0, 2), *args, **kwargs), torch.hash_tensor(tx.transpose(0, 2), *args, **kwargs))


def test_out_and_meta():
    gx, tx = _pair(np.arange(12, dtype=np.float32).reshape(3, 4), "float32")
    gout, tout = gt.empty(0, dtype=gt.uint64), torch.empty(0, dtype=torch.uint64)
    assert gt.hash_tensor(gx, 1, out=gout) is gout
    torch.hash_tensor(tx, 1, out=tout)
    _same(gout, tout)
    got = gt.hash_tensor(gt.empty(3, 4, device="meta"), 0, keepdim=True)
    want = torch.hash_tensor(torch.empty(3, 4, device="meta"), 0, keepdim=True)
    assert got.device.type == "meta" and str(got.dtype) == "torch.uint64" and got.shape == want.shape
    # meta skips the mode and dtype checks, as torch's meta function does
    gt.hash_tensor(gt.empty(3, device="meta", dtype=gt.complex64), mode=1)
    torch.hash_tensor(torch.empty(3, device="meta", dtype=torch.complex64), mode=1)
    assert not gt.hash_tensor(gx.requires_grad_()).requires_grad


def test_empty():
    for shape, dim in (((0, 3), 1), ((2, 0, 3), [0, 2])):
        _same(gt.hash_tensor(gt.empty(shape), dim), torch.hash_tensor(torch.empty(shape), dim))


CASES = [
    lambda m, x: m.hash_tensor(x, mode=1),
    lambda m, x: m.hash_tensor(x.to(m.complex64)),
    lambda m, x: m.hash_tensor(x.to(m.uint16)),
    lambda m, x: m.hash_tensor(x.to(m.float8_e4m3fn)),
    lambda m, x: m.hash_tensor(x, out=m.empty(3, dtype=m.int64)),
    lambda m, x: m.hash_tensor(x.to(m.complex64), mode=1, out=m.empty(3, dtype=m.int64)),
    lambda m, x: m.hash_tensor(x, 5, mode=1),
    lambda m, x: m.hash_tensor(x, [0, 0]),
    lambda m, x: m.hash_tensor(m.empty(0, 3), mode=1),
    lambda m, x: m.hash_tensor(m.empty(0, 3), 0),
    lambda m, x: m.hash_tensor(m.empty(0, 3), 5),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_errors(i):
    fn = CASES[i]
    x = np.ones((3, 4), dtype=np.float32)
    with pytest.raises(Exception) as want:
        fn(torch, torch.tensor(x))
    with pytest.raises(type(want.value)) as got:
        fn(gt, gt.tensor(x))
    assert str(got.value) == str(want.value)
