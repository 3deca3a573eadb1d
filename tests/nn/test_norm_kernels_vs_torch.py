"""Normalization kernels against torch: layer norm's explicit backward kernel (``native_layer_norm_backward``) in
half precision and float32 rounds as torch's CPU kernel does, and batch norm's out= overloads."""

import numpy as np
import pytest
import torch

import glasstorch as gt


@pytest.fixture
def two_threads():
    """d weight / d bias depend on how many threads split the rows: run both libraries on the same two."""
    saved = torch.get_num_threads(), gt.get_num_threads()
    torch.set_num_threads(2)
    gt.set_num_threads(2)
    yield
    torch.set_num_threads(saved[0])
    gt.set_num_threads(saved[1])


def _gt(t):
    return gt.tensor(t.detach().double().numpy()).to(getattr(gt, str(t.dtype).removeprefix("torch.")))


def _layer_norm_grads(m, x, w, b, g, n):
    leaves = [t for t in (x, w, b) if t is not None]
    out = m.nn.functional.layer_norm(x, (n,), w, b)
    return m.autograd.grad(out, leaves, g)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("n, affine", [(5, True), (17, True), (33, False), (40, True), (100, True)])
def test_layer_norm_half_backward_matches_torch_bits(dtype, n, affine, two_threads):
    torch.manual_seed(n)
    M = 9  # noqa: N806 - more rows than threads: the per-thread half buffers of d weight / d bias
    x = torch.randn(M, n, dtype=dtype, requires_grad=True)
    w = torch.randn(n, dtype=dtype, requires_grad=True) if affine else None
    b = torch.randn(n, dtype=dtype, requires_grad=True) if affine else None
    g = torch.randn(M, n, dtype=dtype)
    want = _layer_norm_grads(torch, x, w, b, g, n)
    leaves = [_gt(t).requires_grad_() if t is not None else None for t in (x, w, b)]
    got = _layer_norm_grads(gt, *leaves, _gt(g), n)
    for a, e in zip(got, want, strict=True):
        assert a.dtype == getattr(gt, str(e.dtype).removeprefix("torch."))
        close = np.isclose(a.double().numpy(), e.double().numpy(), rtol=0, atol=0)
        assert close.mean() > 0.99  # torch's own rounding, up to a stray last-bit tie
        torch.testing.assert_close(torch.from_numpy(a.double().numpy()).to(dtype), e)


def test_layer_norm_float32_weight_grad_of_one_element_keeps_the_fma_residue():
    # (x - mean) * rstd is 0, but torch's kernel forms rstd * x + (-rstd * mean) with a fused multiply-add
    torch.manual_seed(0)
    x, w, b = (torch.randn(1, requires_grad=True) for _ in range(3))
    g = torch.randn(1)
    want = torch.autograd.grad(torch.nn.functional.layer_norm(x, (1,), w, b), (x, w, b), g)
    leaves = [_gt(t).requires_grad_() for t in (x, w, b)]
    got = gt.autograd.grad(gt.nn.functional.layer_norm(leaves[0], (1,), leaves[1], leaves[2]), leaves, _gt(g))
    assert want[1].item() != 0.0
    for a, e in zip(got, want, strict=True):
        assert a.item() == e.item()


def test_native_layer_norm_backward_operator_and_mask():
    x = torch.randn(4, 6)
    w, b = torch.randn(6), torch.randn(6)
    _, mean, rstd = torch.native_layer_norm(x, (6,), w, b, 1e-5)
    g = torch.randn(4, 6)
    want = torch.ops.aten.native_layer_norm_backward(g, x, [6], mean, rstd, w, b, [True, False, True])
    got = gt.ops.aten.native_layer_norm_backward(_gt(g), _gt(x), [6], _gt(mean), _gt(rstd), _gt(w), _gt(b),
                                                 [True, False, True])
    assert want[1] is None and got[1] is None
    for a, e in ((got[0], want[0]), (got[2], want[2])):
        torch.testing.assert_close(torch.from_numpy(a.numpy()), e)


@pytest.mark.parametrize("name", ["native_batch_norm", "_native_batch_norm_legit"])
def test_batch_norm_out_overloads(name):
    torch.manual_seed(0)
    x, w, b = torch.randn(4, 3, 5), torch.randn(3), torch.randn(3)
    rm, rv = torch.zeros(3), torch.ones(3)
    outs = (torch.empty(0), torch.empty(0), torch.empty(0))
    want = getattr(torch, name)(x, w, b, rm, rv, True, 0.1, 1e-5, out=outs)
    grm, grv = gt.zeros(3), gt.ones(3)
    gouts = (gt.empty(0), gt.empty(0), gt.empty(0))
    got = getattr(gt, name)(_gt(x), _gt(w), _gt(b), grm, grv, True, 0.1, 1e-5, out=gouts)
    assert all(g is o for g, o in zip(got, gouts, strict=True))
    for a, e in zip(got + (grm, grv), want + (rm, rv), strict=True):
        assert tuple(a.shape) == tuple(e.shape)
        torch.testing.assert_close(torch.from_numpy(a.numpy()), e)


def test_batch_norm_legit_no_stats_out():
    x, w, b = torch.randn(4, 3, 5), torch.randn(3), torch.randn(3)
    outs = (torch.empty(0), torch.empty(0), torch.empty(0))
    want = torch.ops.aten._native_batch_norm_legit.no_stats_out(x, w, b, True, 0.1, 1e-5, out=outs[0],
                                                                 save_mean=outs[1], save_invstd=outs[2])
    gouts = (gt.empty(0), gt.empty(0), gt.empty(0))
    got = gt.ops.aten._native_batch_norm_legit.no_stats_out(_gt(x), _gt(w), _gt(b), True, 0.1, 1e-5, out=gouts[0],
                                                            save_mean=gouts[1], save_invstd=gouts[2])
    for a, e in zip(got, want, strict=True):
        torch.testing.assert_close(torch.from_numpy(a.numpy()), e)


def _bits_equal(a, e) -> bool:
    return np.array_equal(a.double().numpy(), e.double().numpy())


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape", [(5, 5, 5), (1, 25, 5), (4, 3, 40), (2, 3, 7, 7), (8, 3)])
@pytest.mark.parametrize("training, momentum", [(True, 0.5), (True, -1.2), (False, 0.1)])
def test_batch_norm_half_forward_matches_torch_bits(dtype, shape, training, momentum):
    torch.manual_seed(sum(shape))
    c = shape[1]
    x = torch.randn(shape, dtype=dtype)
    w, b, rm = torch.randn(c, dtype=dtype), torch.randn(c, dtype=dtype), torch.randn(c, dtype=dtype)
    rv = torch.rand(c, dtype=dtype) + 0.5
    grm, grv = _gt(rm), _gt(rv)
    want = torch.native_batch_norm(x, w, b, rm, rv, training, momentum, 0.6)
    got = gt.native_batch_norm(_gt(x), _gt(w), _gt(b), grm, grv, training, momentum, 0.6)
    for a, e in zip(got + (grm, grv), want + (rm, rv), strict=True):
        assert tuple(a.shape) == tuple(e.shape) and _bits_equal(a, e)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape", [(5, 5, 5), (4, 3, 40), (2, 3, 7, 7)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_half_backward_matches_torch_bits(dtype, shape, training):
    torch.manual_seed(sum(shape))
    c = shape[1]
    x = torch.randn(shape, dtype=dtype, requires_grad=True)
    w, b = torch.randn(c, dtype=dtype, requires_grad=True), torch.randn(c, dtype=dtype, requires_grad=True)
    rm, rv = torch.randn(c, dtype=dtype), torch.rand(c, dtype=dtype) + 0.5
    g = torch.randn(shape, dtype=dtype)
    want = torch.autograd.grad(torch.nn.functional.batch_norm(x, rm, rv, w, b, training, 0.5, 0.6), (x, w, b), g)
    leaves = [_gt(t).requires_grad_() for t in (x, w, b)]
    out = gt.nn.functional.batch_norm(leaves[0], _gt(rm), _gt(rv), leaves[1], leaves[2], training, 0.5, 0.6)
    got = gt.autograd.grad(out, leaves, _gt(g))
    for a, e in zip(got, want, strict=True):
        assert a.dtype == getattr(gt, str(e.dtype).removeprefix("torch.")) and _bits_equal(a, e)


def test_instance_norm_bfloat16_matches_torch_bits():
    torch.manual_seed(3)
    x = torch.randn(5, 5, 5, dtype=torch.bfloat16)
    w, b = torch.randn(5, dtype=torch.bfloat16), torch.randn(5, dtype=torch.bfloat16)
    want = torch.nn.functional.instance_norm(x, weight=w, bias=b, eps=0.6)
    got = gt.nn.functional.instance_norm(_gt(x), weight=_gt(w), bias=_gt(b), eps=0.6)
    assert _bits_equal(got, want)


def test_batch_norm_double_backward_still_differentiates_the_composite():
    x = torch.randn(4, 3, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    (gx,) = torch.autograd.grad(torch.nn.functional.batch_norm(x, None, None, w, None, True).pow(2).sum(), x,
                                create_graph=True)
    want = torch.autograd.grad(gx.sum(), (x, w))
    xg, wg = _gt(x).requires_grad_(), _gt(w).requires_grad_()
    (ggx,) = gt.autograd.grad(gt.nn.functional.batch_norm(xg, None, None, wg, None, True).pow(2).sum(), xg,
                              create_graph=True)
    got = gt.autograd.grad(ggx.sum(), (xg, wg))
    for a, e in zip(got, want, strict=True):
        torch.testing.assert_close(torch.from_numpy(a.numpy()), e)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape, groups", [((1, 6, 3), 3), ((2, 4, 5, 7), 2), ((3, 64, 40), 2), ((2, 40, 3), 1)])
def test_group_norm_half_backward_matches_torch(dtype, shape, groups):
    torch.manual_seed(sum(shape))
    c = shape[1]
    x = torch.randn(shape, dtype=dtype, requires_grad=True)
    w, b = torch.randn(c, dtype=dtype, requires_grad=True), torch.randn(c, dtype=dtype, requires_grad=True)
    g = torch.randn(shape, dtype=dtype)
    want = torch.autograd.grad(torch.nn.functional.group_norm(x, groups, w, b), (x, w, b), g)
    leaves = [_gt(t).requires_grad_() for t in (x, w, b)]
    got = gt.autograd.grad(gt.nn.functional.group_norm(leaves[0], groups, leaves[1], leaves[2]), leaves, _gt(g))
    for a, e in zip(got, want, strict=True):
        same = a.double().numpy() == e.double().numpy()
        assert same.mean() > 0.97  # torch's rounding, up to a stray last-bit tie
        torch.testing.assert_close(torch.from_numpy(a.double().numpy()).to(dtype), e)


def test_native_group_norm_backward_operator():
    x, w = torch.randn(2, 4, 6), torch.randn(4)
    _, mean, rstd = torch.native_group_norm(x, w, None, 2, 4, 6, 2, 1e-5)
    g = torch.randn(2, 4, 6)
    want = torch.ops.aten.native_group_norm_backward(g, x, mean, rstd, w, 2, 4, 6, 2, [True, True, False])
    got = gt.ops.aten.native_group_norm_backward(_gt(g), _gt(x), _gt(mean), _gt(rstd), _gt(w), 2, 4, 6, 2,
                                                 [True, True, False])
    assert want[2] is None and got[2] is None
    for a, e in zip(got[:2], want[:2], strict=True):
        torch.testing.assert_close(torch.from_numpy(a.numpy()), e)
