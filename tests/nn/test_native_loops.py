"""The compiled nn loops (glasstorch/_ops/kernels/cpu/nn_ckernels.py) against torch, bit for bit where torch's
arithmetic order is reproduced: pdist's lane order, the 3-d and adaptive pools' window scans, upsampling's taps.
Shapes cover the loops' edges (rows shorter than a vector register, partial last registers, padding, ceil mode),
and NaN/inf inputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch
from glasstorch._ops.kernels.cpu import nn_ckernels

pytestmark = pytest.mark.skipif(not nn_ckernels.available(), reason="no C compiler: the numpy paths run")


def _same(g, t):
    """Bit-identical values (NaN matches NaN), same dtype and shape."""
    g, t = g.detach().numpy(), t.detach().numpy()
    assert g.dtype == t.dtype and g.shape == t.shape
    np.testing.assert_array_equal(g, t)


def _inputs(shape, dtype, special=True, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    if special and x.size > 8:
        flat = x.reshape(-1)
        flat[3], flat[5], flat[7] = np.nan, np.inf, -np.inf
    return glasstorch.from_numpy(x.copy()), torch.from_numpy(x.copy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", [1, 3, 4, 7, 8, 9, 17, 64, 259])
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, float("inf")])
def test_pdist_bit_identical(dtype, m, p):
    gx, tx = _inputs((13, m), dtype, special=m > 2)
    gx[4], tx[4] = gx[2], tx[2]  # a zero distance
    _same(glasstorch.nn.functional.pdist(gx, p), torch.nn.functional.pdist(tx, p))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("p", [0.5, 3.0])
def test_pdist_general_p_close(dtype, p):
    # pow is libm's here and SLEEF's in torch: both within an ulp, so the sums agree to a few ulp
    gx, tx = _inputs((11, 37), dtype, special=False)
    g, t = glasstorch.nn.functional.pdist(gx, p), torch.nn.functional.pdist(tx, p)
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=tol)


def _pool_input(dtype, shape=(2, 3, 7, 9, 10)):
    gx, tx = _inputs(shape, dtype)
    tie = np.zeros(shape, dtype)
    tie.reshape(-1)[100:120] = 1  # equal values in a window: the first one's index wins
    gt, tt = glasstorch.from_numpy(tie), torch.from_numpy(tie)
    return gx + gt * 0.5 - gx * gt, tx + tt * 0.5 - tx * tt


MAX3D = [(2, None, 0, 1, False), (3, 2, 1, 1, True), ((2, 3, 2), (1, 2, 3), (1, 1, 0), (2, 1, 2), False),
         (3, 1, 1, 2, True), ((1, 1, 2), (1, 1, 2), 0, 1, False)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("k", "s", "p", "d", "ceil"), MAX3D)
def test_max_pool3d_values_and_indices(dtype, k, s, p, d, ceil):
    gx, tx = _pool_input(dtype)
    gv, gi = glasstorch.nn.functional.max_pool3d(gx, k, s, p, d, ceil, return_indices=True)
    tv, ti = torch.nn.functional.max_pool3d(tx, k, s, p, d, ceil, return_indices=True)
    _same(gv, tv)
    _same(gi, ti)


AVG3D = [(2, None, 0, False, True, None), (3, 2, 1, False, True, None), (3, 2, 1, True, False, None),
         (3, 2, 1, True, True, 5), ((2, 3, 2), (1, 2, 3), (1, 1, 0), True, False, None), (3, 1, 1, False, False, None)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("k", "s", "p", "ceil", "cip", "div"), AVG3D)
def test_avg_pool3d_bit_identical(dtype, k, s, p, ceil, cip, div):
    gx, tx = _pool_input(dtype)
    _same(glasstorch.nn.functional.avg_pool3d(gx, k, s, p, ceil, cip, div),
          torch.nn.functional.avg_pool3d(tx, k, s, p, ceil, cip, div))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("n", "size"), [(1, 4), (1, 10), (2, (3, 4)), (2, (9, 10)), (2, (4, 3)), (2, 1),
                                         (3, (3, 4, 5)), (3, (7, 2, 10))])
def test_adaptive_max_pool_values_and_indices(dtype, n, size):
    gx, tx = _pool_input(dtype, {1: (6, 20), 2: (2, 3, 9, 10), 3: (2, 3, 7, 9, 10)}[n])
    name = f"adaptive_max_pool{n}d"
    gv, gi = getattr(glasstorch.nn.functional, name)(gx, size, return_indices=True)
    tv, ti = getattr(torch.nn.functional, name)(tx, size, return_indices=True)
    _same(gv, tv)
    _same(gi, ti)


UPSAMPLE = [(1, (2, 3, 11)), (2, (2, 3, 7, 9)), (3, (2, 2, 5, 6, 7))]
SIZES = [{"scale_factor": 2.0}, {"scale_factor": 1.7}, {"scale_factor": 0.6}, {"size": "odd"}]


def _size_kw(kw, shape):
    return {"size": tuple(s * 2 + 1 for s in shape[2:])} if kw.get("size") == "odd" else kw


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("n", "shape"), UPSAMPLE)
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("kw", SIZES)
def test_upsample_nearest_bit_identical(dtype, n, shape, mode, kw):
    gx, tx = _inputs(shape, dtype)
    kw = _size_kw(kw, shape)
    g = glasstorch.nn.functional.interpolate(gx, mode=mode, **kw)
    _same(g, torch.nn.functional.interpolate(tx, mode=mode, **kw))


TAPS = [(shape, mode) for (n, shape) in UPSAMPLE for mode in ({1: ["linear"], 2: ["bilinear", "bicubic"],
                                                                 3: ["trilinear"]}[n])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "mode"), TAPS)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("kw", SIZES)
def test_upsample_taps_match_numpy_path_and_torch(monkeypatch, dtype, shape, mode, align_corners, kw):
    # torch's build contracts `t0 * w0 + t1 * w1` into fused multiply-adds, so its sums can be an ulp apart from the
    # separately rounded products both glasstorch paths add: the C loop must equal the numpy path exactly
    gx, tx = _inputs(shape, dtype, special=False)
    kw = _size_kw(kw, shape)
    c = glasstorch.nn.functional.interpolate(gx, mode=mode, align_corners=align_corners, **kw)
    monkeypatch.setattr(nn_ckernels, "apply_taps", lambda *a, **k: None)
    p = glasstorch.nn.functional.interpolate(gx, mode=mode, align_corners=align_corners, **kw)
    np.testing.assert_array_equal(c.numpy(), p.numpy())
    t = torch.nn.functional.interpolate(tx, mode=mode, align_corners=align_corners, **kw)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=tol, atol=tol)
