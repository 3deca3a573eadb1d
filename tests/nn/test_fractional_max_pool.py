"""``F.fractional_max_pool2d/3d`` and their ``aten`` operators against torch: with the same ``_random_samples`` the
values and indices are bit-equal in every floating dtype (torch evaluates the window starts in the input's dtype),
the gradients add at the argmax in order, and the argument errors carry torch's type and message."""

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import glasstorch as gt

RNG = np.random.default_rng(0)
DTYPES = ["float64", "float32", "float16", "bfloat16"]


def _inputs(n, batched, dtype):
    shape = ((2,) if batched else ()) + (3,) + (9, 11, 10)[3 - n:]
    x = RNG.standard_normal(shape)
    x.flat[::7] = x.flat[0]  # ties: the first maximum wins
    u = RNG.uniform(0, 1, (2 if batched else 1, 3, n))
    pair = [(lib.tensor(x, dtype=getattr(lib, dtype)), lib.tensor(u, dtype=getattr(lib, dtype)))
            for lib in (gt, torch)]
    return pair


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("kernel,size", [(2, 4), (3, 5), ((2, 1, 3), (7, 2, 7)), (1, 1)])
def test_values_indices_and_grad(n, dtype, batched, kernel, size):
    kernel = kernel[3 - n:] if isinstance(kernel, tuple) else kernel
    size = size[3 - n:] if isinstance(size, tuple) else size
    (xg, ug), (xt, ut) = _inputs(n, batched, dtype)
    xg.requires_grad_(True)
    xt.requires_grad_(True)
    f = f"fractional_max_pool{n}d"
    yg, ig = getattr(gt.nn.functional, f)(xg, kernel, size, return_indices=True, _random_samples=ug)
    yt, it = getattr(torch.nn.functional, f)(xt, kernel, size, return_indices=True, _random_samples=ut)
    assert_same(yg.detach(), yt.detach())
    assert_same(ig, it)
    w = RNG.standard_normal(tuple(yt.shape))
    (gg,) = gt.autograd.grad(yg, xg, gt.tensor(w, dtype=yg.dtype))
    (gtt,) = torch.autograd.grad(yt, xt, torch.tensor(w, dtype=yt.dtype))
    assert_same(gg, gtt)


@pytest.mark.parametrize("n", [2, 3])
def test_output_ratio_and_default_samples(n):
    (xg, _), (xt, _) = _inputs(n, True, "float64")
    f = f"fractional_max_pool{n}d"
    yg = getattr(gt.nn.functional, f)(xg, 2, output_ratio=(0.5,) * n)
    yt = getattr(torch.nn.functional, f)(xt, 2, output_ratio=(0.5,) * n)
    assert tuple(yg.shape) == tuple(yt.shape)
    assert_same_error(lambda: getattr(gt.nn.functional, f)(xg, 2), lambda: getattr(torch.nn.functional, f)(xt, 2))


def test_channels_last_input_gives_contiguous_output():
    (xg, ug), (xt, ut) = _inputs(2, True, "float32")
    yg = gt.ops.aten.fractional_max_pool2d(xg.to(memory_format=gt.channels_last), [2, 2], [4, 4], ug)
    yt = torch.ops.aten.fractional_max_pool2d(xt.to(memory_format=torch.channels_last), [2, 2], [4, 4], ut)
    assert_same(yg[0], yt[0])
    assert_same(yg[1], yt[1])


def test_gradgradcheck():
    x = gt.randn(1, 2, 6, 7, dtype=gt.float64, requires_grad=True)
    u = gt.rand(1, 2, 2, dtype=gt.float64)
    assert gt.autograd.gradgradcheck(lambda t: gt.nn.functional.fractional_max_pool2d(t, 2, 3, _random_samples=u),
                                     (x,))


_ERRORS = [
    (2, (2, 3, 7, 7), [2, 2], [4, 4], (2, 3, 2), "float64"),
    (2, (2, 3, 7, 7), [2, 2], [7, 4], (2, 3, 2), None),
    (2, (2, 3, 7, 7), [2, 2], [4, 7], (2, 3, 2), None),
    (2, (42, 7), [2, 2], [4, 4], (2, 3, 2), None),
    (2, (2, 0, 7, 7), [2, 2], [4, 4], (2, 3, 2), None),
    (2, (2, 3, 7, 7), [2, 2], [4, 4], (1, 3, 2), None),
    (2, (2, 3, 7, 7), [2, 2], [4, 4], (2, 3, 3), None),
    (2, (2, 3, 7, 7), [2, 2], [4, 4], (2, 3), None),
    (2, (2, 3, 7, 7), [2, 2], [4, 4], (2, 4, 2), None),
    (2, (2, 3, 7, 7), [2, 2, 2], [4, 4], (2, 3, 2), None),
    (2, (2, 3, 7, 7), [2, 2], [4, 4], (2, 3, 2), "uint8"),
    (3, (2, 3, 7, 7, 7), [2, 2, 2], [7, 4, 4], (2, 3, 3), None),
    (3, (2, 3, 7, 7, 7), [2, 2, 2], [4, 7, 4], (2, 3, 3), None),
    (3, (2, 3, 7, 7, 7), [2, 2, 2], [4, 4, 7], (2, 3, 3), None),
    (3, (1, 1, 10, 10, 10), [3, 2, 2], [8, 4, 4], (1, 1, 3), None),
    (3, (1, 1, 10, 10, 10), [2, 2, 2], [4, 4, 9], (1, 1, 3), None),
    (3, (6, 49, 7), [2, 2, 2], [4, 4, 4], (2, 3, 3), None),
    (3, (2, 3, 0, 7, 7), [2, 2, 2], [4, 4, 4], (2, 3, 3), None),
    (3, (2, 3, 7, 7, 7), [2, 2, 2], [4, 4, 4], (2, 3, 2), None),
    (3, (2, 3, 7, 7, 7), [2, 2], [4, 4, 4], (2, 3, 3), None),
]


@pytest.mark.parametrize("n,shape,kernel,size,ushape,udtype", _ERRORS)
def test_errors(n, shape, kernel, size, ushape, udtype):
    def call(lib):
        dt = lib.uint8 if udtype == "uint8" else lib.float32
        x = lib.zeros(shape, dtype=dt)
        u = lib.full(ushape, 0.5, dtype=getattr(lib, udtype) if udtype else dt)
        return lambda: getattr(lib.ops.aten, f"fractional_max_pool{n}d")(x, kernel, size, u)
    assert_same_error(call(gt), call(torch))


@pytest.mark.parametrize("n", [2, 3])
def test_out_overloads(n):
    (xg, ug), (xt, ut) = _inputs(n, True, "float64")
    size = [4] * n
    res = []
    for lib, x, u in ((gt, xg, ug), (torch, xt, ut)):
        fwd = getattr(lib.ops.aten, f"fractional_max_pool{n}d")
        bwd = getattr(lib.ops.aten, f"fractional_max_pool{n}d_backward")
        out, idx = lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int64)
        fwd.output(x, [2] * n, size, u, output=out, indices=idx)
        g = lib.ones(out.shape, dtype=lib.float64)
        gi = lib.empty(0, dtype=lib.float64)
        bwd.grad_input(g, x, [2] * n, size, idx, grad_input=gi)
        res.append((out, idx, gi))
    for a, b in zip(res[0], res[1], strict=True):
        assert_same(a, b)
