"""torch.linalg details the op_db conformance run found wrong, against torch: complex gradients (the
conjugate-Wirtinger convention: a missing conj shows as a wrong gradient), the conjugate transposes inside pinv
and torch.svd's V, linalg.eig's backward, svd's gradient through an empty U, the out= overloads of the
composites (cond, matrix_rank, pinv, ldl_factor, tensorinv, tensorsolve, eigvals), vander of a scalar and
multi_dot's result being a view of the product.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt

RNG = np.random.default_rng(2020)


def _c(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _r(*shape):
    return RNG.standard_normal(shape)


def _grads(fn, arrays, dtype="complex128", gout_seed=0):
    """The input gradients of ``fn(lib, *leaves)`` under the same output cotangent, in both libraries."""
    res = []
    for lib in (gt, torch):
        leaves = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]
        out = fn(lib, *leaves)
        rng = np.random.default_rng(gout_seed)
        shape = tuple(out.shape)
        g = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if out.is_complex() else 0)
        grads = lib.autograd.grad(out, leaves, lib.tensor(g, dtype=out.dtype))
        res.append([np.asarray(x.tolist()) for x in grads])
    return res


def _close(fn, arrays, dtype="complex128", tol=1e-9):
    got, want = _grads(fn, arrays, dtype)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _hpd(n):
    a = _c(n, n)
    return a @ a.conj().T + n * np.eye(n)


@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_complex_gradient(upper):
    _close(lambda m, a: m.linalg.cholesky(a, upper=upper), [_hpd(4)])
    _close(lambda m, a: m.cholesky(a, upper), [_hpd(3)])


def test_addbmm_complex_gradient():
    _close(lambda m, s, b1, b2: m.addbmm(s, b1, b2, beta=0.5 + 1j, alpha=2 - 1j), [_c(2, 3), _c(4, 2, 5), _c(4, 5, 3)])


def test_logaddexp_complex_gradient():
    _close(lambda m, a, b: m.logaddexp(a, b), [_c(5), _c(5)])


def test_vecdot_conjugates_x():
    x, y = _c(3, 4), _c(3, 4)
    want = torch.linalg.vecdot(torch.tensor(x), torch.tensor(y))
    got = gt.linalg.vecdot(gt.tensor(x), gt.tensor(y))
    np.testing.assert_allclose(np.asarray(got.tolist()).reshape(want.shape), want.numpy(), rtol=1e-12)
    _close(lambda m, a, b: m.linalg.vecdot(a, b, dim=0), [x, y])


@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_complex_values_and_gradient(hermitian):
    a = _hpd(4) if hermitian else _c(4, 3)
    want = torch.linalg.pinv(torch.tensor(a), hermitian=hermitian)
    got = gt.linalg.pinv(gt.tensor(a), hermitian=hermitian)
    np.testing.assert_allclose(np.asarray(got.tolist()), want.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.asarray(gt.pinverse(gt.tensor(a)).tolist()), torch.pinverse(torch.tensor(a)).numpy(),
                               rtol=1e-9, atol=1e-12)
    if not hermitian:
        _close(lambda m, x: m.linalg.pinv(x), [a])


def test_torch_svd_v_is_the_conjugate_transpose():
    a = _c(4, 3)
    u, s, v = gt.svd(gt.tensor(a))
    rebuilt = np.asarray(u.tolist()) * np.asarray(s.tolist()) @ np.asarray(v.tolist()).conj().T
    np.testing.assert_allclose(rebuilt, a, atol=1e-12)


def test_lstsq_complex_gradient():
    _close(lambda m, a, b: m.linalg.lstsq(a, b).solution, [_c(4, 3), _c(4, 2)])


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3)])
def test_complex_svd_gradient_through_u_keeps_only_the_phase_term(shape):
    """A phase-invariant loss (U Vᴴ and S): PyTorch's diagonal correction is i Im(diag(Uᴴ gU)) / S, from the
    skew-Hermitian part of Uᴴ gU; the real part of that diagonal must not enter."""
    w = _c(*shape)

    def f(m, a):
        U, S, Vh = m.linalg.svd(a, full_matrices=False)
        return ((U @ Vh) * m.tensor(w)).sum().real + (S * m.linspace(1.0, 2.0, S.shape[-1], dtype=m.float64)).sum()

    got, want = _grads(f, [_c(*shape)])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-9)


def test_svd_gradient_of_an_empty_matrix_is_defined():
    grads = []
    for lib in (gt, torch):
        a = lib.zeros(0, 0, dtype=lib.float64, requires_grad=True)
        U = lib.linalg.svd(a, full_matrices=True)[0]
        (g,) = lib.autograd.grad(U.abs().sum(), a, allow_unused=True)
        grads.append(g)
    assert grads[1] is not None and grads[0] is not None
    assert tuple(grads[0].shape) == tuple(grads[1].shape) == (0, 0)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eig_backward(dtype):
    a = RNG.standard_normal((4, 4)) if dtype == "float64" else _c(4, 4)

    def eigvals(m, x):
        return m.linalg.eigvals(x)

    def gauge_free(m, x):  # a loss of |V| does not depend on the eigenvectors' phases
        L, V = m.linalg.eig(x)
        return L * 2 + V.abs().sum(-2)

    _close(eigvals, [a], dtype)
    _close(gauge_free, [a], dtype, tol=1e-8)


def test_eig_backward_refuses_a_phase_dependent_loss():
    errors = []
    a_np = _c(3, 3)
    for lib in (gt, torch):
        a = lib.tensor(a_np, requires_grad=True)
        V = lib.linalg.eig(a)[1]
        with pytest.raises(RuntimeError) as info:
            V.real.sum().backward()
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def _out_same(call):
    """``call(lib, out=...)`` writes what the functional form returns, in both libraries."""
    got_fn, want_fn = call(gt, None), call(torch, None)
    outs = []
    for lib, ref in ((gt, got_fn), (torch, want_fn)):
        refs = ref if isinstance(ref, tuple) else (ref,)
        out = tuple(lib.empty(0, dtype=r.dtype) for r in refs)
        res = call(lib, out if isinstance(ref, tuple) else out[0])
        assert all(a is b for a, b in zip(res if isinstance(res, tuple) else (res,), out, strict=True))
        outs.append(out)
    for a, b in zip(*outs, strict=True):
        assert repr(a.dtype) == repr(b.dtype)
        np.testing.assert_allclose(np.asarray(a.tolist()), b.numpy(), rtol=1e-9, atol=1e-12)


_A = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
_T = RNG.standard_normal((6, 2, 3)) + 0.0


def _t(lib, a):
    return lib.tensor(a)


def _kw(out):
    return {} if out is None else {"out": out}


OUT_CALLS = {
    "cond": lambda m, o: m.linalg.cond(_t(m, _A), **_kw(o)),
    "cond_fro": lambda m, o: m.linalg.cond(_t(m, _A), "fro", **_kw(o)),
    "matrix_rank": lambda m, o: m.linalg.matrix_rank(_t(m, _A), **_kw(o)),
    "matrix_rank_tol": lambda m, o: m.linalg.matrix_rank(_t(m, _A), 0.5, **_kw(o)),
    "matrix_rank_hermitian": lambda m, o: m.linalg.matrix_rank(_t(m, _A + _A.T), hermitian=True, **_kw(o)),
    "matrix_rank_atol_tensor": lambda m, o: m.linalg.matrix_rank(_t(m, _A), atol=m.tensor(0.1), **_kw(o)),
    "pinv": lambda m, o: m.linalg.pinv(_t(m, _A), **_kw(o)),
    "pinv_rcond": lambda m, o: m.linalg.pinv(_t(m, _A), 0.1, **_kw(o)),
    "pinv_rcond_tensor": lambda m, o: m.linalg.pinv(_t(m, _A), m.tensor(0.1), **_kw(o)),
    "pinv_atol_tensor": lambda m, o: m.linalg.pinv(_t(m, _A), atol=m.tensor(0.1), **_kw(o)),
    "ldl_factor": lambda m, o: m.linalg.ldl_factor(_t(m, _A + _A.T), **_kw(o)),
    "tensorinv": lambda m, o: m.linalg.tensorinv(_t(m, _T), ind=1, **_kw(o)),
    "tensorsolve": lambda m, o: m.linalg.tensorsolve(_t(m, _T.reshape(6, 6).reshape(2, 3, 2, 3)),
                                                     _t(m, np.ones((2, 3))), **_kw(o)),
    "eigvals": lambda m, o: m.linalg.eigvals(_t(m, _A), **_kw(o)),
}


@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_out_overloads(name):
    _out_same(OUT_CALLS[name])


def test_vander_of_a_scalar():
    for N in (2, 3):
        want = torch.linalg.vander(torch.tensor(2.0), N=N)
        got = gt.linalg.vander(gt.tensor(2.0), N=N)
        assert tuple(got.shape) == tuple(want.shape)
        assert got.tolist() == want.tolist()
    with pytest.raises(RuntimeError, match="N must be greater than 1."):
        gt.linalg.vander(gt.tensor(2.0))


@pytest.mark.parametrize("shapes", [[(1, 2), (2, 1)], [(0, 2), (2, 2)], [(2,), (2, 3)], [(3, 2), (2,)], [(2,), (2,)],
                                    [(2, 3), (3, 4), (4, 2)], [(2, 3), (3, 4), (4, 5), (5,)]])
def test_multi_dot_returns_a_view_of_the_product(shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    got = gt.linalg.multi_dot([gt.tensor(a) for a in arrays])
    want = torch.linalg.multi_dot([torch.tensor(a) for a in arrays])
    assert got._is_view() == want._is_view()
    assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
    np.testing.assert_allclose(np.asarray(got.tolist()).reshape(want.shape), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 6, 4)])
@pytest.mark.parametrize("fn", ["svd_lowrank", "pca_lowrank"])
def test_lowrank_with_torchs_random_draws(fn, shape):
    """Equal seeds give torch's singular values and the same rank-q product (signs of U, V are LAPACK's choice)."""
    a = RNG.standard_normal(shape)
    res = []
    for lib in (gt, torch):
        lib.manual_seed(7)
        x = lib.tensor(a, requires_grad=True)
        U, S, V = getattr(lib, fn)(x, q=2, niter=1)
        approx = (U * S.unsqueeze(-2)) @ V.mT
        (g,) = lib.autograd.grad(S.sum() + approx.sum(), x)
        res.append([np.asarray(t.tolist()) for t in (S, approx, g)])
    for a_, b_ in zip(*res, strict=True):
        np.testing.assert_allclose(a_, b_, rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match=r"q\(=9\) must be non-negative integer"):
        gt.pca_lowrank(gt.tensor(a), q=9)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_householder_product_gradient(dtype):
    mk = _c if dtype == "complex128" else _r
    _close(lambda m, a, t: m.linalg.householder_product(a, t), [mk(5, 3), mk(2)], dtype)
    _close(lambda m, a, t: m.linalg.householder_product(a, t), [mk(2, 4, 4), mk(2, 4)], dtype)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_ormqr_gradient(dtype, left, transpose):
    mk = _c if dtype == "complex128" else _r
    other = mk(5, 4) if left else mk(4, 5)
    _close(lambda m, a, t, c: m.ormqr(a, t, c, left, transpose), [mk(5, 3), mk(3), other], dtype)


def test_householder_product_double_backward():
    a, t = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    assert gt.autograd.gradgradcheck(gt.linalg.householder_product,
                                     (gt.tensor(a, requires_grad=True), gt.tensor(t, requires_grad=True)))


@pytest.mark.parametrize("args", [
    ((5, 0), (5,), (5, 5), True), ((5, 3), (3,), (4, 5), True), ((5, 3), (3,), (5, 2), False),
    ((5, 3), (2,), (5, 5), True), ((5, 3), (1, 3), (5, 5), True), ((5, 3), (3,), (2, 5, 5), True)])
def test_ormqr_shape_errors(args):
    a, t, c, left = args
    msgs = []
    for lib in (gt, torch):
        with pytest.raises(RuntimeError) as info:
            lib.ormqr(lib.zeros(a), lib.zeros(t), lib.zeros(c), left, True)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("shape", [(4, 4), (2, 4, 4)])
@pytest.mark.parametrize("scale", [1e-9, 1e-5, 0.03, 0.3, 1.0, 2.5, 9.0])
@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32"])
def test_matrix_exp_follows_torchs_degrees(dtype, scale, shape):
    """Each Taylor degree (chosen by the 1-norm; a batch takes degree 18) and the scaled-and-squared degree 18."""
    a = (_c(*shape) if dtype.startswith("complex") else _r(*shape)) * scale / 4
    want = torch.linalg.matrix_exp(torch.tensor(a, dtype=getattr(torch, dtype)))
    got = gt.linalg.matrix_exp(gt.tensor(a, dtype=getattr(gt, dtype)))
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(np.asarray(got.tolist()), want.numpy(), rtol=tol, atol=tol * float(want.abs().max()))


@pytest.mark.parametrize("n, shape", [(2, ()), (5, ()), (5, (3,)), (7, (2,))])
@pytest.mark.parametrize("dtype", ["float32", "complex64", "float64", "complex128"])
@pytest.mark.parametrize("scale", [0.04, 0.4, 1.2, 9.0])
def test_matrix_exp_small_matrices_bit_for_bit(dtype, scale, n, shape):
    """Below 400 multiply-adds a product torch's batched matmul is a plain loop over k, not BLAS: with the same
    loop every degree (and the squarings of the scaled degree 18, where roundings grow) gives torch's bits."""
    a = (_c(*shape, n, n) if dtype.startswith("complex") else _r(*shape, n, n)) * scale
    want = torch.linalg.matrix_exp(torch.tensor(a, dtype=getattr(torch, dtype)))
    got = gt.linalg.matrix_exp(gt.tensor(a, dtype=getattr(gt, dtype)))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_matrix_exp_16_bit_reads_torchs_tables_as_torch_does(dtype):
    a = RNG.uniform(-9, 9, (5, 5))  # the OpInfo's magnitudes: the degree-18 route, NaN in torch
    want = torch.matrix_exp(torch.tensor(a, dtype=getattr(torch, dtype))).float()
    got = gt.matrix_exp(gt.tensor(a, dtype=getattr(gt, dtype))).float()
    np.testing.assert_allclose(np.asarray(got.tolist()), want.numpy(), rtol=1e-2, atol=1e-2, equal_nan=True)
