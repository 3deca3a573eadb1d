"""``F.grid_sample`` and ``torch.grid_sampler_2d/3d`` against torch: every mode, padding mode and ``align_corners``,
the values (float64, and float16/bfloat16 bit for bit where torch rounds each step), the gradients of input and grid,
and the argument errors."""

import numpy as np
import pytest
import torch
from oracle import assert_same

import glasstorch as gt

RNG = np.random.default_rng(0)
MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


def _pair(n, batch=2, ch=3):
    x = RNG.standard_normal((batch, ch, *(4, 5, 6)[3 - n:]))
    grid = RNG.uniform(-1.3, 1.3, (batch, *(3, 4, 5)[3 - n:], n))
    return x, grid


def _sample(lib, x, grid, mode, padding, align, dtype=None, grad=False):
    xt = lib.tensor(x, dtype=dtype or lib.float64, requires_grad=grad)
    gt_ = lib.tensor(grid, dtype=dtype or lib.float64, requires_grad=grad)
    return xt, gt_, lib.nn.functional.grid_sample(xt, gt_, mode, padding, align)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_values_and_grads(n, mode, padding, align):
    if n == 3 and mode == "bicubic":
        pytest.skip("torch has no 3-D bicubic")
    x, grid = _pair(n)
    xt, g_t, yt = _sample(torch, x, grid, mode, padding, align, grad=True)
    xg, g_g, yg = _sample(gt, x, grid, mode, padding, align, grad=True)
    assert_same(yg.detach(), yt.detach(), rtol=1e-12, atol=1e-12)
    w = RNG.standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(w))
    yg.backward(gt.tensor(w))
    assert_same(xg.grad, xt.grad, rtol=1e-10, atol=1e-10)
    assert_same(g_g.grad, g_t.grad, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n,mode", [(2, "bilinear"), (2, "nearest"), (2, "bicubic"), (3, "bilinear")])
@pytest.mark.parametrize("padding", PADDINGS)
def test_grid_sample_low_precision_is_bit_exact(dtype, n, mode, padding):
    x, grid = _pair(n)
    for align in (False, True):
        yt = _sample(torch, x, grid, mode, padding, align, getattr(torch, dtype))[2]
        yg = _sample(gt, x, grid, mode, padding, align, getattr(gt, dtype))[2]
        assert_same(yg, yt)


def test_grid_sampler_ops_match_the_functional():
    x, grid = _pair(2)
    for lib in (torch, gt):
        a, b = lib.tensor(x), lib.tensor(grid)
        assert lib.equal(lib.grid_sampler_2d(a, b, 2, 2, False), lib.nn.functional.grid_sample(a, b, "bicubic",
                                                                                               "reflection", False))
    x3, grid3 = _pair(3)
    assert_same(gt.grid_sampler_3d(gt.tensor(x3), gt.tensor(grid3), 0, 1, True),
                torch.grid_sampler_3d(torch.tensor(x3), torch.tensor(grid3), 0, 1, True))


def _error(lib, fn):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("case", [
    lambda L: L.nn.functional.grid_sample(L.zeros(1, 1, 2, 2), L.zeros(1, 2, 2, 2), mode="area"),
    lambda L: L.nn.functional.grid_sample(L.zeros(1, 1, 2, 2), L.zeros(1, 2, 2, 2), padding_mode="wrap"),
    lambda L: L.grid_sampler_2d(L.zeros(1, 1, 2, 2), L.zeros(2, 2, 2, 2), 0, 0, False),
    lambda L: L.grid_sampler_2d(L.zeros(1, 1, 2, 2), L.zeros(1, 2, 2, 3), 0, 0, False),
    lambda L: L.grid_sampler_2d(L.zeros(1, 1, 0, 2), L.zeros(1, 2, 2, 2), 0, 0, False),
    lambda L: L.grid_sampler_2d(L.zeros(1, 1, 2, 2), L.zeros(1, 2, 2, 2, dtype=L.float64), 0, 0, False),
    lambda L: L.grid_sampler_3d(L.zeros(1, 1, 2, 2, 2), L.zeros(1, 2, 2, 2, 3), 2, 0, False),
    # the last-dimension check counts the input's spatial dims, and runs before the dimensionality check
    lambda L: L.nn.functional.grid_sample(L.zeros(1, 2, 2), L.zeros(1, 1, 1, 2), align_corners=False),
    lambda L: L.nn.functional.grid_sample(L.zeros(1, 1, 2, 2), L.zeros(1, 1, 1, 1, 3), align_corners=False),
], ids=["mode", "padding", "batch", "last-dim", "empty", "dtype", "bicubic-3d", "3-d input", "5-d grid"])
def test_grid_sample_errors_match_torch(case):
    assert _error(gt, case) == _error(torch, case)


def test_grid_sample_warns_without_align_corners():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        gt.nn.functional.grid_sample(gt.zeros(1, 1, 2, 2), gt.zeros(1, 2, 2, 2))


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_zero_channels_and_empty_grid(mode):
    """No channels, or an empty output grid: empty results and gradients, as torch's."""
    n = 2 if mode == "bicubic" else 3
    for x_shape, g_shape in (((3, 0, *[4] * n), (3, *[2] * n, n)), ((3, 2, *[4] * n), (3, 0, *[2] * (n - 1), n))):
        results = []
        for lib in (torch, gt):
            x = lib.ones(*x_shape, requires_grad=True)
            grid = lib.zeros(*g_shape, requires_grad=True)
            out = lib.nn.functional.grid_sample(x, grid, mode=mode, align_corners=False)
            out.sum().backward()
            results.append((out, x.grad, grid.grad))
        for a, b in zip(results[0], results[1], strict=True):
            assert_same(b, a)


def test_grid_sample_mode_tables_are_torchs():
    assert gt.nn.functional.GRID_SAMPLE_INTERPOLATION_MODES == torch.nn.functional.GRID_SAMPLE_INTERPOLATION_MODES
    assert gt.nn.functional.GRID_SAMPLE_PADDING_MODES == torch.nn.functional.GRID_SAMPLE_PADDING_MODES
