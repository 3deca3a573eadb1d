"""``nn.functional.bilinear`` through ``aten::_trilinear`` against torch: half-precision values and gradients bit
for bit (the unrolled output dim accumulates slice by slice in the operands' dtype), ``_trilinear`` called
directly, the autograd node names, and bilinear's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt

SHAPES = [((6, 3), (6, 4), (5, 3, 4)), ((2, 3, 3), (2, 3, 4), (2, 3, 4)), ((3,), (4,), (5, 3, 4)),
          ((0, 3), (0, 4), (5, 3, 4))]


def _pair(values: np.ndarray, dtype: str, requires_grad=False):
    g = gt.tensor(values).to(getattr(gt, dtype)).requires_grad_(requires_grad)
    return g, torch.tensor(values).to(getattr(torch, dtype)).requires_grad_(requires_grad)


def _same(got, want):
    assert str(got.dtype) == str(want.dtype)
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    a, b = got.detach().double().numpy(), want.detach().double().numpy()
    if got.dtype in (gt.float16, gt.bfloat16):
        np.testing.assert_array_equal(a, b)
    else:  # float32/float64 bmm: BLAS may order its sums differently
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("with_bias", [False, True])
def test_bilinear_values_and_grads(dtype, shapes, with_bias):
    rng = np.random.default_rng(sum(map(sum, shapes)))
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    if with_bias:
        arrays.append(rng.standard_normal(shapes[2][0]).astype(np.float32))
    pairs = [_pair(a, dtype, True) for a in arrays]
    got = gt.nn.functional.bilinear(*[p[0] for p in pairs])
    want = torch.nn.functional.bilinear(*[p[1] for p in pairs])
    _same(got, want)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    g = rng.standard_normal(tuple(want.shape)).astype(np.float32)
    gg, tg = _pair(g, dtype)
    got.backward(gg)
    want.backward(tg)
    for (a, b) in pairs:
        _same(a.grad, b.grad)


@pytest.mark.parametrize("args", [
    ((2, 3), (5, 3, 4), (2, 4), [1, 3], [0], [1, 2], [2, 3], 1),
    ((2, 3), (5, 3, 4), (2, 4), [1, 3], [0], [1, 2], [2, 3], 0),
    ((2, 5), (5, 3, 4), (2, 4), [2, 3], [0], [1, 2], [1, 3], 1),
    ((3, 4), (3, 4), (3, 4), [], [], [], [1], 1),
])
def test_trilinear_direct(args):
    *shapes, e1, e2, e3, s, unroll = args
    rng = np.random.default_rng(len(e1) + unroll)
    pairs = [_pair(rng.standard_normal(sh).astype(np.float32), "float16", True) for sh in shapes]
    got = gt.ops.aten._trilinear(*[p[0] for p in pairs], e1, e2, e3, s, unroll)
    want = torch.ops.aten._trilinear(*[p[1] for p in pairs], e1, e2, e3, s, unroll)
    _same(got, want)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__ == "TrilinearBackward0"
    got.sum().backward()
    want.sum().backward()
    for (a, b) in pairs:
        _same(a.grad, b.grad)


ERRORS = [
    ((2, 3), (2, 4), (5, 3, 4), (6,)),
    ((2, 3), (3, 4), (5, 3, 4), None),
    ((2, 3), (2, 4), (5, 2, 4), None),
    ((2, 3), (2, 5), (5, 3, 4), None),
    ((2, 3), (4,), (5, 3, 4), None),
    ((2, 3), (2, 4), (5, 3, 4), ()),
]


@pytest.mark.parametrize("shapes", ERRORS)
def test_bilinear_errors(shapes):
    def call(m):
        ts = [m.ones(s) for s in shapes if s is not None]
        return m.nn.functional.bilinear(*ts)
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(type(want.value)) as got:
        call(gt)
    assert str(got.value) == str(want.value)


def test_trilinear_unroll_dim_error():
    for m in (torch, gt):
        with pytest.raises(RuntimeError, match=r"unroll_dim must be in \[0,3\]"):
            m.ops.aten._trilinear(m.ones(2, 3), m.ones(5, 3, 4), m.ones(2, 4), [1, 3], [0], [1, 2], [2, 3], 4)
