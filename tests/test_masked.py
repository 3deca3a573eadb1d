"""glasstorch.masked against torch.masked: values, dtypes and gradients of the masked reductions and normalisations."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, from_torch

_X = torch.tensor([[1.0, -2.0, 3.5, 0.25], [4.0, 5.0, -6.0, 2.0], [0.5, 0.5, -1.0, 7.0]], dtype=torch.float64)
_MASK = torch.tensor([[True, False, True, True], [False, False, False, False], [True, True, False, True]])
_ROW_MASK = torch.tensor([True, False, True, False])  # broadcasts over the rows


def _call(lib, name, x, mask, *args, **kwargs):
    return getattr(lib.masked, name)(x, *args, mask=mask, **kwargs)


@pytest.mark.parametrize("mask", [_MASK, _ROW_MASK], ids=["full", "broadcast"])
@pytest.mark.parametrize("name,args,kwargs", [
    ("sum", (1,), {}), ("sum", (), {"keepdim": True}), ("prod", ((0, 1),), {}), ("amax", (1,), {}),
    ("amin", (0,), {"keepdim": True}), ("argmax", (1,), {}), ("argmin", (0,), {}), ("mean", (1,), {}),
    ("median", (1,), {}), ("logsumexp", (1,), {}), ("norm", (2.0, 1), {}), ("norm", (-float("inf"), 1), {}),
    ("var", (1,), {}), ("std", (0,), {"correction": 0}), ("softmax", (1,), {}), ("log_softmax", (0,), {}),
    ("softmin", (1,), {}), ("cumsum", (1,), {}), ("cumprod", (0,), {}), ("normalize", (2.0, 1), {}),
])
def test_masked_values_and_grad(name, args, kwargs, mask):
    x_th = _X.clone().requires_grad_()
    x_gt = from_torch(_X).requires_grad_()
    out_th = _call(torch, name, x_th, mask, *args, **kwargs)
    out_gt = _call(gt, name, x_gt, from_torch(mask), *args, **kwargs)
    assert_same(out_gt.detach(), out_th.detach(), rtol=1e-14, atol=1e-300)  # exp's last bit may differ
    if out_th.grad_fn is not None:
        g = torch.ones_like(out_th)
        finite = torch.isfinite(out_th)
        (out_th * g).masked_fill(~finite, 0).sum().backward()
        (out_gt * from_torch(g)).masked_fill(from_torch(~finite), 0).sum().backward()
        np.testing.assert_allclose(x_gt.grad.numpy(), x_th.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int32, torch.bool])
def test_masked_sum_prod_widen_integers(dtype):
    x = torch.tensor([[1, 0, 1], [1, 1, 0]], dtype=dtype)
    for name in ("sum", "prod"):
        assert_same(_call(gt, name, from_torch(x), from_torch(_MASK[:2, :3]), 1),
                    _call(torch, name, x, _MASK[:2, :3], 1))


def test_masked_logaddexp_and_errors():
    a, b = _X[0], _X[2]
    m1, m2 = _MASK[0], _MASK[2]
    assert_same(gt.masked.logaddexp(from_torch(a), from_torch(b), input_mask=from_torch(m1), other_mask=from_torch(m2)),
                torch.masked.logaddexp(a, b, input_mask=m1, other_mask=m2))
    with pytest.raises(ValueError, match="Could not infer output dtype"):
        gt.masked.mean(gt.ones(3, dtype=gt.int64), mask=gt.ones(3, dtype=gt.bool))
    with pytest.raises(IndexError, match="mask dimensionality higher"):
        gt.masked.sum(gt.ones(3), mask=gt.ones(2, 3, dtype=gt.bool))


def test_output_mask():
    assert_same(gt.masked._output_mask(gt.masked.sum, from_torch(_X), 1, mask=from_torch(_MASK)),
                torch.masked._output_mask(torch.masked.sum, _X, 1, mask=_MASK))
    assert_same(gt.masked._output_mask(gt.masked.cumsum, from_torch(_X), 1, mask=from_torch(_ROW_MASK)),
                torch.masked._output_mask(torch.masked.cumsum, _X, 1, mask=_ROW_MASK))
