"""Gradient clipping against torch.nn.utils: total norms (2, 1, inf, fractional), the in-place scaling, the
non-finite error, foreach, generators and empty inputs."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from nn_oracle import randn, to_np
from oracle import assert_same_error

import glasstorch


def _params(m, grads, dtypes=None):
    out = []
    for i, g in enumerate(grads):
        p = m.nn.Parameter(m.zeros(g.shape, dtype=getattr(m, dtypes[i]) if dtypes else None))
        if g is not None:
            p.grad = m.from_numpy(g.astype(dtypes[i] if dtypes else np.float32).copy())
        out.append(p)
    return out


GRADS = [randn(3, 4), randn(5), randn(2, 2, 2) * 10]


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, "inf", 0.5])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm(norm_type, max_norm, foreach):
    pg, pt = _params(glasstorch, GRADS), _params(torch, GRADS)
    grads_before = [p.grad for p in pg]
    ng = glasstorch.nn.utils.clip_grad_norm_(pg, max_norm, norm_type=norm_type, foreach=foreach)
    nt = torch.nn.utils.clip_grad_norm_(pt, max_norm, norm_type=norm_type, foreach=foreach)
    assert tuple(ng.shape) == () and repr(ng.dtype) == repr(nt.dtype)
    np.testing.assert_allclose(float(ng), float(nt), rtol=1e-5)
    for a, b, before in zip(pg, pt, grads_before, strict=True):
        assert a.grad is before  # scaled in place
        np.testing.assert_allclose(to_np(a.grad), to_np(b.grad), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_mixed_dtypes_single_tensor_and_missing_grads():
    grads = [randn(3), randn(2, 2)]
    pg = _params(glasstorch, grads, ["float64", "float32"]) + [glasstorch.nn.Parameter(glasstorch.ones(2))]
    pt = _params(torch, grads, ["float64", "float32"]) + [torch.nn.Parameter(torch.ones(2))]
    ng, nt = glasstorch.nn.utils.clip_grad_norm_(pg, 0.1), torch.nn.utils.clip_grad_norm_(pt, 0.1)
    assert repr(ng.dtype) == repr(nt.dtype)
    np.testing.assert_allclose(float(ng), float(nt), rtol=1e-6)
    assert pg[2].grad is None
    single_g, single_t = _params(glasstorch, [randn(4)])[0], _params(torch, [randn(4)])[0]
    single_t.grad.copy_(torch.from_numpy(to_np(single_g.grad).astype(np.float32)))
    np.testing.assert_allclose(float(glasstorch.nn.utils.clip_grad_norm_(single_g, 1.0)),
                               float(torch.nn.utils.clip_grad_norm_(single_t, 1.0)), rtol=1e-6)


def test_clip_grad_norm_no_grads_and_empty_generator():
    for m in (glasstorch, torch):
        out = m.nn.utils.clip_grad_norm_([m.nn.Parameter(m.ones(2))], 1.0)
        assert out.tolist() == 0.0 and repr(out.dtype) == "torch.float32"
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        glasstorch.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    assert [str(w.message) for w in wg] == [str(w.message) for w in wt]


@pytest.mark.parametrize("bad", [math.inf, math.nan])
@pytest.mark.parametrize("norm_type", [2.0, math.inf])
def test_clip_grad_norm_nonfinite(bad, norm_type):
    grads = [randn(3), np.array([1.0, bad], np.float32)]
    assert_same_error(
        lambda: glasstorch.nn.utils.clip_grad_norm_(_params(glasstorch, grads), 1.0, norm_type,
                                                    error_if_nonfinite=True),
        lambda: torch.nn.utils.clip_grad_norm_(_params(torch, grads), 1.0, norm_type, error_if_nonfinite=True))
    pg, pt = _params(glasstorch, grads), _params(torch, grads)
    ng, nt = glasstorch.nn.utils.clip_grad_norm_(pg, 1.0, norm_type), torch.nn.utils.clip_grad_norm_(pt, 1.0, norm_type)
    np.testing.assert_array_equal(to_np(ng), to_np(nt))
    for a, b in zip(pg, pt, strict=True):
        np.testing.assert_array_equal(to_np(a.grad), to_np(b.grad))


def test_get_total_norm_and_clip_grads_with_norm():
    pg, pt = _params(glasstorch, GRADS), _params(torch, GRADS)
    tg = glasstorch.nn.utils.get_total_norm([p.grad for p in pg], 3.0)
    tt = torch.nn.utils.get_total_norm([p.grad for p in pt], 3.0)
    np.testing.assert_allclose(float(tg), float(tt), rtol=1e-6)
    glasstorch.nn.utils.clip_grads_with_norm_(pg, 2.0, tg)
    torch.nn.utils.clip_grads_with_norm_(pt, 2.0, tt)
    for a, b in zip(pg, pt, strict=True):
        np.testing.assert_allclose(to_np(a.grad), to_np(b.grad), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("foreach", [None, True])
def test_clip_grad_value(foreach):
    pg, pt = _params(glasstorch, GRADS), _params(torch, GRADS)
    before = [p.grad for p in pg]
    assert glasstorch.nn.utils.clip_grad_value_(pg, 0.7, foreach=foreach) is None
    torch.nn.utils.clip_grad_value_(pt, 0.7, foreach=foreach)
    for a, b, g in zip(pg, pt, before, strict=True):
        assert a.grad is g
        np.testing.assert_array_equal(to_np(a.grad), to_np(b.grad))


def test_clip_grad_norm_deprecated_alias():
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        glasstorch.nn.utils.clip_grad_norm(_params(glasstorch, GRADS), 1.0)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.nn.utils.clip_grad_norm(_params(torch, GRADS), 1.0)
    assert [(w.category, str(w.message)) for w in wg] == [(w.category, str(w.message)) for w in wt]


def test_clipping_records_no_history():
    p = glasstorch.nn.Parameter(glasstorch.ones(3))
    p.grad = glasstorch.full((3,), 5.0, requires_grad=True)
    total = glasstorch.nn.utils.clip_grad_norm_([p], 1.0)
    assert total.grad_fn is None and p.grad.grad_fn is None
