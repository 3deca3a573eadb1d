"""nn.init against torch.nn.init: gains and fans (values and errors), in-place/no-grad/identity semantics,
bounds and distribution moments (the random streams are glasstorch's own), ``generator=`` reproducibility."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from nn_oracle import to_np
from oracle import assert_same_error

import glasstorch

GAINS = [("linear", None), ("conv2d", None), ("conv_transpose3d", None), ("sigmoid", None), ("tanh", None),
         ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None)]


@pytest.mark.parametrize("nonlinearity,param", GAINS)
def test_calculate_gain(nonlinearity, param):
    assert glasstorch.nn.init.calculate_gain(nonlinearity, param) == torch.nn.init.calculate_gain(nonlinearity, param)


GAIN_ERRORS = [("leaky_relu", True), ("leaky_relu", "x"), ("softmax", None), ("gelu", 1)]


@pytest.mark.parametrize("nonlinearity,param", GAIN_ERRORS)
def test_calculate_gain_errors(nonlinearity, param):
    assert_same_error(lambda: glasstorch.nn.init.calculate_gain(nonlinearity, param),
                      lambda: torch.nn.init.calculate_gain(nonlinearity, param))


@pytest.mark.parametrize("shape", [(3, 5), (4, 2, 3), (6, 3, 2, 2), (2, 0, 3)])
def test_fans(shape):
    g = glasstorch.nn.init._calculate_fan_in_and_fan_out(glasstorch.empty(shape))
    t = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert g == t


INIT_ERRORS = {
    "fan_1d": lambda m: m.nn.init.xavier_uniform_(m.empty(3)),
    "fan_0d": lambda m: m.nn.init.kaiming_normal_(m.empty(())),
    "bad_mode": lambda m: m.nn.init.kaiming_uniform_(m.empty(3, 3), mode="fan_avg"),
    "bad_nonlinearity": lambda m: m.nn.init.kaiming_uniform_(m.empty(3, 3), nonlinearity="swish"),
    "eye_3d": lambda m: m.nn.init.eye_(m.empty(2, 2, 2)),
    "dirac_2d": lambda m: m.nn.init.dirac_(m.empty(2, 2)),
    "dirac_groups": lambda m: m.nn.init.dirac_(m.empty(3, 2, 3), groups=2),
    "orthogonal_1d": lambda m: m.nn.init.orthogonal_(m.empty(4)),
    "sparse_3d": lambda m: m.nn.init.sparse_(m.empty(2, 2, 2), 0.5),
}


@pytest.mark.parametrize("name", list(INIT_ERRORS))
def test_init_errors(name):
    assert_same_error(lambda: INIT_ERRORS[name](glasstorch), lambda: INIT_ERRORS[name](torch))


def _param(*shape):
    return glasstorch.nn.Parameter(glasstorch.empty(*shape))


IN_PLACE = {
    "uniform_": lambda t: glasstorch.nn.init.uniform_(t, -2, 3),
    "normal_": lambda t: glasstorch.nn.init.normal_(t, 1, 2),
    "trunc_normal_": lambda t: glasstorch.nn.init.trunc_normal_(t, 0, 1, -1, 1.5),
    "constant_": lambda t: glasstorch.nn.init.constant_(t, 0.3),
    "ones_": glasstorch.nn.init.ones_,
    "zeros_": glasstorch.nn.init.zeros_,
    "eye_": glasstorch.nn.init.eye_,
    "xavier_uniform_": lambda t: glasstorch.nn.init.xavier_uniform_(t, gain=2.0),
    "xavier_normal_": glasstorch.nn.init.xavier_normal_,
    "kaiming_uniform_": lambda t: glasstorch.nn.init.kaiming_uniform_(t, a=math.sqrt(5)),
    "kaiming_normal_": lambda t: glasstorch.nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
    "orthogonal_": lambda t: glasstorch.nn.init.orthogonal_(t, gain=0.5),
    "sparse_": lambda t: glasstorch.nn.init.sparse_(t, 0.3),
}


@pytest.mark.parametrize("name", list(IN_PLACE))
def test_in_place_no_grad_returns_same_object(name):
    p = _param(6, 5)
    version = p._version
    out = IN_PLACE[name](p)
    assert out is p and type(p) is glasstorch.nn.Parameter
    assert p.requires_grad and p.is_leaf and p.grad_fn is None and tuple(p.shape) == (6, 5)
    assert p._version > version


def _moments(t):
    a = to_np(t).ravel()
    return a.min(), a.max(), a.mean(), a.std()


def test_uniform_bounds_and_moments():
    w = glasstorch.nn.init.uniform_(glasstorch.empty(100, 100), -2, 3)
    lo, hi, mean, std = _moments(w)
    assert -2 <= lo and hi <= 3 and abs(mean - 0.5) < 0.05 and abs(std - 5 / math.sqrt(12)) < 0.05


def test_normal_moments():
    lo, hi, mean, std = _moments(glasstorch.nn.init.normal_(glasstorch.empty(100, 100), 1, 2))
    assert abs(mean - 1) < 0.06 and abs(std - 2) < 0.06


@pytest.mark.parametrize("mean,std,a,b", [(0, 1, -2, 2), (0.5, 0.2, 0, 1), (0, 1, 2, 3), (0, 1, -0.1, 0.1)])
def test_trunc_normal_bounds_and_moments(mean, std, a, b):
    w = glasstorch.nn.init.trunc_normal_(glasstorch.empty(200, 100), mean, std, a, b)
    ref = torch.nn.init.trunc_normal_(torch.empty(200, 100), mean, std, a, b)
    lo, hi, m, s = _moments(w)
    rlo, rhi, rm, rs = _moments(ref)
    assert a <= lo and hi <= b
    assert abs(m - rm) < 0.03 * (b - a) and abs(s - rs) < 0.03 * (b - a) + 0.01


def test_trunc_normal_warns_like_torch():
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        glasstorch.nn.init.trunc_normal_(glasstorch.empty(4), mean=10, std=1, a=-1, b=1)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.nn.init.trunc_normal_(torch.empty(4), mean=10, std=1, a=-1, b=1)
    assert [str(w.message) for w in wg] == [str(w.message) for w in wt]


@pytest.mark.parametrize("shape", [(64, 32), (16, 4, 3, 3)])
def test_scaled_inits(shape):
    fan_in, fan_out = glasstorch.nn.init._calculate_fan_in_and_fan_out(glasstorch.empty(shape))
    xu = glasstorch.nn.init.xavier_uniform_(glasstorch.empty(shape), gain=2.0)
    bound = 2.0 * math.sqrt(6 / (fan_in + fan_out))
    assert _moments(xu)[1] <= bound and _moments(xu)[1] > 0.9 * bound
    xn = glasstorch.nn.init.xavier_normal_(glasstorch.empty(shape))
    assert abs(_moments(xn)[3] / math.sqrt(2 / (fan_in + fan_out)) - 1) < 0.1
    ku = glasstorch.nn.init.kaiming_uniform_(glasstorch.empty(shape), a=0.1)
    kbound = math.sqrt(2 / (1 + 0.01)) * math.sqrt(3 / fan_in)
    assert -kbound <= _moments(ku)[0] and _moments(ku)[1] <= kbound and _moments(ku)[1] > 0.9 * kbound
    kn = glasstorch.nn.init.kaiming_normal_(glasstorch.empty(shape), mode="fan_out", nonlinearity="relu")
    assert abs(_moments(kn)[3] / (math.sqrt(2) / math.sqrt(fan_out)) - 1) < 0.1


def test_kaiming_zero_element_warns_like_torch():
    for fn in ("kaiming_uniform_", "kaiming_normal_"):
        with warnings.catch_warnings(record=True) as wg:
            warnings.simplefilter("always")
            getattr(glasstorch.nn.init, fn)(glasstorch.empty(0, 3))
        with warnings.catch_warnings(record=True) as wt:
            warnings.simplefilter("always")
            getattr(torch.nn.init, fn)(torch.empty(0, 3))
        assert [str(w.message) for w in wg] == [str(w.message) for w in wt]


def test_deterministic_inits_match_torch_exactly():
    for name, args in (("eye_", ()), ("constant_", (0.25,)), ("ones_", ()), ("zeros_", ())):
        g = getattr(glasstorch.nn.init, name)(glasstorch.empty(3, 5), *args)
        t = getattr(torch.nn.init, name)(torch.empty(3, 5), *args)
        assert g.tolist() == t.tolist()
    for shape, groups in (((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((4, 2, 3, 3, 1), 2)):
        g = glasstorch.nn.init.dirac_(glasstorch.empty(shape), groups)
        t = torch.nn.init.dirac_(torch.empty(shape), groups)
        assert g.tolist() == t.tolist()


@pytest.mark.parametrize("shape", [(6, 4), (3, 8), (4, 2, 3)])
def test_orthogonal(shape):
    w = glasstorch.nn.init.orthogonal_(glasstorch.empty(shape), gain=2.0)
    flat = to_np(w).reshape(shape[0], -1)
    gram = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(gram, 4 * np.eye(gram.shape[0]), atol=1e-5)


def test_sparse_column_zeros():
    w = glasstorch.nn.init.sparse_(glasstorch.empty(10, 6), sparsity=0.3)
    zeros_per_col = (to_np(w) == 0).sum(axis=0)
    assert (zeros_per_col >= 3).all()


def test_generator_reproducible():
    for name in ("uniform_", "normal_", "trunc_normal_", "xavier_uniform_", "kaiming_normal_", "orthogonal_"):
        fn = getattr(glasstorch.nn.init, name)
        a = fn(glasstorch.empty(4, 5), generator=glasstorch.Generator().manual_seed(3))
        b = fn(glasstorch.empty(4, 5), generator=glasstorch.Generator().manual_seed(3))
        assert a.tolist() == b.tolist(), name


def test_deprecated_aliases_warn_like_torch():
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        glasstorch.nn.init.uniform(glasstorch.empty(2))
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.nn.init.uniform(torch.empty(2))
    assert [(w.category, str(w.message)) for w in wg] == [(w.category, str(w.message)) for w in wt]
