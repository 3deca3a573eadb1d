"""torch.linalg's factorizations and solvers against torch: the layouts PyTorch gives its results (column-major
factors, 1-based int32 pivots, int32 infos), the errors and their messages, info tensors of the ``_ex`` forms,
complex inputs, meta tensors, gradcheck in float64, the legacy ``torch.*`` names and their deprecation warnings.
(The OpInfo entries in tests/ops/op_db_linalg_lapack.py cover values, out=, gradients and double backward.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import glasstorch as gt

RNG = np.random.default_rng(20)
A3 = RNG.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)
A233 = RNG.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)
B32 = RNG.standard_normal((3, 2))
B232 = RNG.standard_normal((2, 3, 2))
SPD = A233 @ A233.transpose(0, 2, 1)
TALL = RNG.standard_normal((5, 3))
WIDE = RNG.standard_normal((3, 5))
SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
SINGULAR_BATCH = [[[1.0, 0.0], [0.0, 1.0]], SINGULAR]


def _both(fn, *arrays, dtype="float64"):
    """``fn(lib, *tensors)`` in both libraries from the same numpy inputs."""
    outs = []
    for lib in (gt, torch):
        ts = [lib.tensor(np.asarray(a), dtype=getattr(lib, dtype)) for a in arrays]
        outs.append(fn(lib, *ts))
    return outs


def _same(fn, *arrays, dtype="float64", tol=1e-10, check_strides=True):
    got, want = _both(fn, *arrays, dtype=dtype)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert_same(g, w, rtol=tol, atol=tol, check_strides=check_strides)


# -- layouts: PyTorch's strides, dtypes and shapes for each result ----------------------------------------------------
LAYOUT_CASES = {
    "inv": (lambda m, a: m.linalg.inv(a), (A233,)),
    "inv_ex": (lambda m, a: m.linalg.inv_ex(a), (A233,)),
    "solve matrix": (lambda m, a, b: m.linalg.solve(a, b), (A233, B232)),
    "solve vector": (lambda m, a, b: m.linalg.solve(a, b[..., 0]), (A233, B232)),
    "solve 1-d": (lambda m, a, b: m.linalg.solve(a, b[:, 0]), (A3, B32)),
    "solve right": (lambda m, a, b: m.linalg.solve(a, b.mT, left=False), (A233, B232)),
    "solve broadcast": (lambda m, a, b: m.linalg.solve(a, b), (A233, B32)),
    "solve_ex": (lambda m, a, b: m.linalg.solve_ex(a, b), (A233, B232)),
    "lu_factor": (lambda m, a: m.linalg.lu_factor(a), (A233,)),
    "lu_factor_ex wide": (lambda m, a: m.linalg.lu_factor_ex(a), (WIDE,)),
    "lu": (lambda m, a: m.linalg.lu(a), (TALL,)),
    "lu_unpack": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)), (WIDE,)),
    "lu_solve": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), (A233, B232)),
    "lu_solve right": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b.mT, left=False), (A233, B232)),
    "det": (lambda m, a: m.linalg.det(a), (A233,)),
    "slogdet": (lambda m, a: m.linalg.slogdet(a), (A233,)),
    "logdet": (lambda m, a: m.logdet(a), (SPD,)),
    "cholesky": (lambda m, a: m.linalg.cholesky(a), (SPD,)),
    "cholesky_ex upper": (lambda m, a: m.linalg.cholesky_ex(a, upper=True), (SPD,)),
    "cholesky_inverse": (lambda m, a: m.cholesky_inverse(m.linalg.cholesky(a)), (SPD,)),
    "cholesky_solve": (lambda m, a, b: m.cholesky_solve(b, m.linalg.cholesky(a)), (SPD, B232)),
    "solve_triangular": (lambda m, a, b: m.linalg.solve_triangular(a.triu(), b, upper=True), (A233, B232)),
    "triangular_solve": (lambda m, a, b: m.triangular_solve(b, a.tril(), upper=False), (A233, B232)),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(a), (SPD,)),
    "qr r": (lambda m, a: m.linalg.qr(a, mode="r"), (TALL,)),
    "geqrf": (lambda m, a: m.geqrf(a), (TALL,)),
    "lstsq gelsy": (lambda m, a, b: m.linalg.lstsq(a, b), (TALL, TALL[:, :2])),
    "lstsq gelsd": (lambda m, a, b: m.linalg.lstsq(a, b, driver="gelsd"), (TALL, TALL[:, :2])),
    "lstsq wide": (lambda m, a, b: m.linalg.lstsq(a, b), (WIDE, WIDE[:, :2])),
    "ldl_factor": (lambda m, a: m.linalg.ldl_factor(a), (SPD - 3,)),
    "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a), (A233,)),
    "pinv": (lambda m, a: m.linalg.pinv(a), (TALL,)),
    "matrix_power": (lambda m, a: m.linalg.matrix_power(a, 5), (A233,)),
    "cross": (lambda m, a, b: m.linalg.cross(a, b), (A233, A233[::-1].copy())),
    "vander": (lambda m, a: m.linalg.vander(a), (A3[0],)),
}


@pytest.mark.parametrize("name", list(LAYOUT_CASES))
def test_layout_and_values_match_torch(name):
    fn, arrays = LAYOUT_CASES[name]
    _same(fn, *arrays, tol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pivots_and_infos_are_int32_with_torch_values(dtype):
    def fn(m, a):
        LU, piv, info = m.linalg.lu_factor_ex(a)
        inv, inv_info = m.linalg.inv_ex(a)
        L, chol_info = m.linalg.cholesky_ex(a)
        return piv, info, inv_info, chol_info
    _same(fn, SINGULAR_BATCH, dtype=dtype)


def test_empty_matrices():
    for fn in (lambda m, a: m.linalg.inv(a), lambda m, a: m.linalg.det(a), lambda m, a: m.linalg.slogdet(a),
               lambda m, a: m.linalg.lu_factor_ex(a), lambda m, a: m.linalg.cholesky_ex(a),
               lambda m, a: m.linalg.eigh(a), lambda m, a: m.linalg.qr(a),
               lambda m, a: m.linalg.matrix_exp(m.zeros(2, 0, 0, dtype=a.dtype))):
        _same(fn, np.zeros((2, 0, 0)))
    _same(lambda m, a: m.linalg.lu_factor(a), np.zeros((0, 3)))
    _same(lambda m, a, b: m.linalg.solve(a, b), np.zeros((0, 0)), np.zeros((0, 2)))


# -- errors: PyTorch's exception types and messages -------------------------------------------------------------------
def _t(m, x, dtype=None):
    return m.tensor(x, dtype=getattr(m, dtype) if dtype else None)


ERRORS = {
    "inv 1-d": lambda m: m.linalg.inv(m.ones(3)),
    "inv not square": lambda m: m.linalg.inv(m.ones(2, 3)),
    "inv half": lambda m: m.linalg.inv(m.ones(3, 3, dtype=m.half)),
    "inv long": lambda m: m.linalg.inv(m.ones(3, 3, dtype=m.long)),
    "inv singular": lambda m: m.linalg.inv(_t(m, SINGULAR)),
    "inv singular batch": lambda m: m.linalg.inv(_t(m, SINGULAR_BATCH)),
    "inv_ex check_errors": lambda m: m.linalg.inv_ex(_t(m, SINGULAR), check_errors=True),
    "inverse singular": lambda m: m.inverse(_t(m, SINGULAR)),
    "solve singular": lambda m: m.linalg.solve(_t(m, SINGULAR), m.ones(2)),
    "solve_ex check_errors": lambda m: m.linalg.solve_ex(_t(m, SINGULAR), m.ones(2), check_errors=True),
    "solve shapes": lambda m: m.linalg.solve(m.eye(2), m.ones(3)),
    "solve shapes right": lambda m: m.linalg.solve(m.eye(2), m.ones(3, 1), left=False),
    "solve vector right": lambda m: m.linalg.solve(m.eye(2), m.ones(2), left=False),
    "solve dtypes": lambda m: m.linalg.solve(m.eye(2), m.ones(2, 2, dtype=m.float64)),
    "solve batch broadcast": lambda m: m.linalg.solve(m.eye(2).expand(3, 2, 2), m.ones(2, 2, 2)),
    "solve long": lambda m: m.linalg.solve(m.ones(2, 2, dtype=m.long), m.ones(2, 2, dtype=m.long)),
    "lu_factor singular": lambda m: m.linalg.lu_factor(_t(m, SINGULAR)),
    "lu_factor singular batch": lambda m: m.linalg.lu_factor(_t(m, SINGULAR_BATCH)),
    "lu_factor_ex check_errors": lambda m: m.linalg.lu_factor_ex(_t(m, SINGULAR), check_errors=True),
    "lu_factor 1-d": lambda m: m.linalg.lu_factor(m.ones(3)),
    "lu_factor long": lambda m: m.linalg.lu_factor(m.ones(3, 3, dtype=m.long)),
    "lu_factor no pivot": lambda m: m.linalg.lu_factor(m.ones(3, 3), pivot=False),
    "lu long": lambda m: m.linalg.lu(m.ones(3, 3, dtype=m.long)),
    "lu_unpack 1-d": lambda m: m.lu_unpack(m.ones(3), m.ones(3, dtype=m.int32)),
    "lu_unpack int64 pivots": lambda m: m.lu_unpack(m.ones(3, 3), m.ones(3, dtype=m.int64)),
    "lu_solve shapes": lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(2)), m.ones(3, 1)),
    "lu_solve pivots dtype": lambda m: m.linalg.lu_solve(m.eye(2), m.ones(2, dtype=m.int64), m.ones(2, 1)),
    "lu_solve dtypes": lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(2)), m.ones(2, 1, dtype=m.double)),
    "lu_solve 1-d B": lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(2)), m.ones(2)),
    "cholesky not pd": lambda m: m.linalg.cholesky(_t(m, SINGULAR)),
    "cholesky not pd batch": lambda m: m.linalg.cholesky(_t(m, SINGULAR).expand(3, 2, 2)),
    "cholesky_ex check_errors": lambda m: m.linalg.cholesky_ex(_t(m, SINGULAR), check_errors=True),
    "cholesky legacy not pd": lambda m: m.cholesky(_t(m, SINGULAR)),
    "cholesky half": lambda m: m.linalg.cholesky(m.eye(2, dtype=m.half)),
    "det not square": lambda m: m.linalg.det(m.ones(2, 3)),
    "det long": lambda m: m.linalg.det(m.ones(2, 2, dtype=m.long)),
    "det half": lambda m: m.linalg.det(m.ones(2, 2, dtype=m.half)),
    "slogdet half": lambda m: m.linalg.slogdet(m.ones(2, 2, dtype=m.half)),
    "logdet not square": lambda m: m.logdet(m.ones(2, 3)),
    "eigh not square": lambda m: m.linalg.eigh(m.ones(2, 3)),
    "eigh uplo": lambda m: m.linalg.eigh(m.ones(2, 2), UPLO="X"),
    "eigvalsh long": lambda m: m.linalg.eigvalsh(m.ones(2, 2, dtype=m.long)),
    "eig not square": lambda m: m.linalg.eig(m.ones(2, 3)),
    "eig out dtype": lambda m: m.linalg.eig(m.eye(2), out=(m.empty(0), m.empty(0))),
    "qr mode": lambda m: m.linalg.qr(m.ones(2, 3), mode="x"),
    "qr 1-d": lambda m: m.linalg.qr(m.ones(3)),
    "qr backward mode r": lambda m: m.linalg.qr(m.ones(3, 2, requires_grad=True), mode="r")[1].sum().backward(),
    "solve_triangular shapes": lambda m: m.linalg.solve_triangular(m.eye(2), m.ones(3, 1), upper=True),
    "solve_triangular 1-d B": lambda m: m.linalg.solve_triangular(m.eye(2), m.ones(2), upper=True),
    "solve_triangular long": lambda m: m.linalg.solve_triangular(m.eye(2, dtype=m.long), m.ones(2, 1, dtype=m.long),
                                                                 upper=True),
    "triangular_solve shapes": lambda m: m.triangular_solve(m.ones(3, 1), m.eye(2)),
    "triangular_solve 1-d": lambda m: m.triangular_solve(m.ones(2), m.eye(2)),
    "triangular_solve dtypes": lambda m: m.triangular_solve(m.ones(2, 1, dtype=m.double), m.eye(2)),
    "lstsq rows": lambda m: m.linalg.lstsq(m.eye(2), m.ones(3, 1)),
    "lstsq driver": lambda m: m.linalg.lstsq(m.eye(2), m.ones(2, 1), driver="foo"),
    "lstsq dtypes": lambda m: m.linalg.lstsq(m.eye(2), m.ones(2, 1, dtype=m.double)),
    "lstsq dims": lambda m: m.linalg.lstsq(m.eye(2).expand(3, 2, 2), m.ones(2)),
    "householder_product tau": lambda m: m.linalg.householder_product(m.eye(2), m.ones(3)),
    "householder_product wide": lambda m: m.linalg.householder_product(m.ones(2, 3), m.ones(1)),
    "householder_product dtypes": lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(2, dtype=m.double)),
    "matrix_exp not square": lambda m: m.linalg.matrix_exp(m.ones(2, 3)),
    "matrix_exp long": lambda m: m.linalg.matrix_exp(m.ones(2, 2, dtype=m.long)),
    "cross length": lambda m: m.linalg.cross(m.ones(2, 2), m.ones(2, 2)),
    "cross dtypes": lambda m: m.linalg.cross(m.ones(3), m.ones(3, dtype=m.double)),
    "cross ndim": lambda m: m.linalg.cross(m.ones(3), m.ones(2, 3)),
    "cross no size 3": lambda m: m.cross(m.ones(2, 2), m.ones(2, 2)),
    "ldl not square": lambda m: m.linalg.ldl_factor(m.ones(2, 3)),
    "pinv 1-d": lambda m: m.linalg.pinv(m.ones(3)),
    "pinv long": lambda m: m.linalg.pinv(m.ones(3, 3, dtype=m.long)),
    "matrix_rank 1-d": lambda m: m.linalg.matrix_rank(m.ones(3)),
    "matrix_rank long": lambda m: m.linalg.matrix_rank(m.ones(3, 3, dtype=m.long)),
    "cond 1-d": lambda m: m.linalg.cond(m.ones(3)),
    "cond p=1 rectangular": lambda m: m.linalg.cond(m.ones(2, 3), 1),
    "cond fro rectangular": lambda m: m.linalg.cond(m.ones(2, 3), "fro"),
    "cond bad p": lambda m: m.linalg.cond(m.ones(3, 3), 3),
    "cond bad str": lambda m: m.linalg.cond(m.ones(3, 3), "bad"),
    "matrix_power 1-d": lambda m: m.linalg.matrix_power(m.ones(3), 2),
    "matrix_power not square": lambda m: m.linalg.matrix_power(m.ones(2, 3), 2),
    "matrix_power long inverse": lambda m: m.linalg.matrix_power(m.ones(3, 3, dtype=m.long), -1),
    "multi_dot one": lambda m: m.linalg.multi_dot([m.ones(3)]),
    "multi_dot 3-d first": lambda m: m.linalg.multi_dot([m.ones(3, 3, 3), m.ones(3, 3)]),
    "multi_dot 3-d middle": lambda m: m.linalg.multi_dot([m.ones(3, 3), m.ones(3, 3, 3), m.ones(3)]),
    "multi_dot dtypes": lambda m: m.linalg.multi_dot([m.ones(3, 3), m.ones(3, 3, dtype=m.double)]),
    "multi_dot shapes": lambda m: m.linalg.multi_dot([m.ones(3, 2), m.ones(3, 3)]),
    "vecdot dtypes": lambda m: m.linalg.vecdot(m.ones(3), m.ones(3, dtype=m.double)),
    "vander N": lambda m: m.linalg.vander(m.ones(3), N=1),
    "tensorinv ind": lambda m: m.linalg.tensorinv(m.ones(2, 3), ind=0),
    "tensorinv not square": lambda m: m.linalg.tensorinv(m.ones(2, 3), ind=1),
    "tensorsolve shapes": lambda m: m.linalg.tensorsolve(m.ones(2, 3), m.ones(3)),
    "svd legacy 1-d": lambda m: m.svd(m.ones(3)),
    "cholesky_solve shapes": lambda m: m.cholesky_solve(m.ones(2, 1), m.eye(3)),
    "geqrf backward": lambda m: m.geqrf(m.ones(3, 2, requires_grad=True))[0].sum().backward(),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    fn = ERRORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(lambda: fn(gt), lambda: fn(torch))


def test_linalg_error_is_a_runtime_error_named_like_torchs():
    assert issubclass(gt.linalg.LinAlgError, RuntimeError)
    with pytest.raises(gt.linalg.LinAlgError):
        gt.linalg.inv(gt.tensor(SINGULAR))
    assert gt.linalg.LinAlgError.__name__ == torch.linalg.LinAlgError.__name__


# -- complex inputs ---------------------------------------------------------------------------------------------------
C = RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
HPD = C @ np.conj(C.transpose(0, 2, 1))
COMPLEX_CASES = {
    "inv": lambda m, a: m.linalg.inv(a),
    "solve": lambda m, a: m.linalg.solve(a, a[..., :1]),
    "det": lambda m, a: m.linalg.det(a),
    "slogdet": lambda m, a: m.linalg.slogdet(a),
    "lu_factor": lambda m, a: m.linalg.lu_factor(a),
    "lu_solve adjoint": lambda m, a: m.linalg.lu_solve(*m.linalg.lu_factor(a), a[..., :2], adjoint=True),
    "solve_triangular": lambda m, a: m.linalg.solve_triangular(a, a[..., :2], upper=True),
    "matrix_exp": lambda m, a: m.linalg.matrix_exp(a),
}


@pytest.mark.parametrize("name", list(COMPLEX_CASES))
def test_complex_inputs(name):
    _same(COMPLEX_CASES[name], C, dtype="complex128", tol=1e-9)


def test_complex_hermitian_factorizations():
    _same(lambda m, a: m.linalg.cholesky(a), HPD, dtype="complex128", tol=1e-9)
    _same(lambda m, a: m.linalg.eigvalsh(a), HPD, dtype="complex128", tol=1e-9)
    got, want = _both(lambda m, a: m.linalg.eigh(a), HPD, dtype="complex128")
    for L, V in (got, want):
        assert tuple(V.stride()) == (9, 1, 3)
        v = V.numpy()
        np.testing.assert_allclose((v * L.numpy()[..., None, :]) @ np.conj(v.transpose(0, 2, 1)), HPD, atol=1e-9)
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), atol=1e-9)


def test_eig_reconstructs_and_matches_torchs_eigenvalues():
    got, want = _both(lambda m, a: m.linalg.eig(a), A233)
    assert str(got[0].dtype) == str(want[0].dtype) == "torch.complex128"
    assert got[1].stride() == want[1].stride()
    L, V = got[0].numpy(), got[1].numpy()
    np.testing.assert_allclose(V @ (L[..., None] * np.linalg.inv(V)), A233, atol=1e-9)
    np.testing.assert_allclose(np.sort_complex(L.reshape(-1)), np.sort_complex(want[0].numpy().reshape(-1)),
                               atol=1e-9)


# -- meta tensors: shapes and strides without data --------------------------------------------------------------------
META_CASES = {
    "inv_ex": lambda m, a: m.linalg.inv_ex(a),
    "solve_ex": lambda m, a: m.linalg.solve_ex(a, a[..., :1]),
    "lu_factor_ex": lambda m, a: m.linalg.lu_factor_ex(a),
    "cholesky_ex": lambda m, a: m.linalg.cholesky_ex(a),
    "eigh": lambda m, a: m.linalg.eigh(a),
    "qr": lambda m, a: m.linalg.qr(a),
    "det": lambda m, a: m.linalg.det(a),
}


@pytest.mark.parametrize("name", list(META_CASES))
def test_meta_shapes_and_strides(name):
    fn = META_CASES[name]
    res = [fn(m, m.empty(2, 4, 4, device="meta")) for m in (gt, torch)]
    got, want = (r if isinstance(r, tuple) else (r,) for r in res)
    for g, w in zip(got, want, strict=True):
        assert g.device.type == "meta"
        assert (tuple(g.shape), g.stride(), str(g.dtype)) == (tuple(w.shape), w.stride(), str(w.dtype))


# -- gradcheck in float64 ---------------------------------------------------------------------------------------------
GRADCHECK = {
    "inv": (lambda a: gt.linalg.inv(a), (A3,)),
    "solve": (lambda a, b: gt.linalg.solve(a, b), (A3, B32)),
    "solve right": (lambda a, b: gt.linalg.solve(a, b, left=False), (A3, B32.T.copy())),
    "det": (lambda a: gt.linalg.det(a), (A3,)),
    "slogdet": (lambda a: gt.linalg.slogdet(a)[1], (A3,)),
    "cholesky": (lambda a: gt.linalg.cholesky(a @ a.mT), (A3,)),
    "eigh": (lambda a: (lambda r: (r[0], r[1] * r[1]))(gt.linalg.eigh(a + a.mT)), (A3,)),
    "qr": (lambda a: gt.linalg.qr(a), (TALL,)),
    "lu": (lambda a: gt.linalg.lu(a)[1:], (WIDE,)),
    "lu_factor": (lambda a: gt.linalg.lu_factor(a)[0], (A3,)),
    "lu_solve LU": (lambda lu, b: gt.linalg.lu_solve(lu, gt.linalg.lu_factor(gt.tensor(A3))[1], b), (None, B32)),
    "solve_triangular": (lambda a, b: gt.linalg.solve_triangular(a.triu(), b, upper=True), (A3, B32)),
    "matrix_exp": (lambda a: gt.linalg.matrix_exp(a), (A3 / 3,)),
    "pinv": (lambda a: gt.linalg.pinv(a), (TALL,)),
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck_float64(name):
    fn, arrays = GRADCHECK[name]
    if arrays[0] is None:  # the packed factors of A3 as the differentiable input
        arrays = (gt.linalg.lu_factor(gt.tensor(A3))[0].numpy(),) + arrays[1:]
    inputs = tuple(gt.tensor(np.array(a), dtype=gt.float64, requires_grad=True) for a in arrays)
    assert gt.autograd.gradcheck(fn, inputs)


def test_ldl_factor_is_not_differentiable_like_torch():
    def fn(m):
        return m.linalg.ldl_factor(m.eye(3, requires_grad=True) * 2)[0].sum().backward()
    assert_same_error(lambda: fn(gt), lambda: fn(torch))


# -- the legacy names -------------------------------------------------------------------------------------------------
def test_torch_lu_and_its_infos():
    _same(lambda m, a: m.lu(a), A233)
    _same(lambda m, a: m.lu(a, get_infos=True), SINGULAR_BATCH)
    _same(lambda m, a: a.lu(get_infos=True), SINGULAR_BATCH)


def test_torch_svd_returns_v_and_zeros_without_uv():
    _same(lambda m, a: m.svd(a, compute_uv=False), TALL)
    got, want = _both(lambda m, a: m.svd(a), TALL)
    for g, w in zip(got, want, strict=True):
        assert tuple(g.shape) == tuple(w.shape) and g.stride() == w.stride()
    U, S, V = (t.numpy() for t in got)
    np.testing.assert_allclose((U * S) @ V.T, TALL, atol=1e-10)


LEGACY_CALLS = {
    "cholesky": "m.cholesky(m.eye(2))",
    "qr": "m.qr(m.eye(2))",
    "lu_solve": "m.lu_solve(m.ones(2, 1), *m.linalg.lu_factor(m.eye(2)))",
    "triangular_solve": "m.triangular_solve(m.ones(2, 1), m.eye(2))",
    "cross": "m.cross(m.ones(3), m.ones(3))",
}
_RECORD = """
import json, warnings
import torch, glasstorch
out = {{}}
for m in (glasstorch, torch):
    for name, call in {calls!r}.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            eval(call)
            eval(call)  # a second call: PyTorch warns once per process
        out[m.__name__ + " " + name] = [str(w.message).split(" (Triggered internally")[0] for w in caught]
print(json.dumps(out))
"""


def _warnings_in_a_fresh_process() -> dict:
    import json
    import subprocess
    import sys
    from pathlib import Path
    res = subprocess.run([sys.executable, "-c", _RECORD.format(calls=LEGACY_CALLS)], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1])
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # a fresh interpreter importing both libraries: about 15 s
def test_deprecation_warnings_match_torch_once_per_process():
    """Each legacy name warns once per process with torch's text (fresh processes: nothing warned before)."""
    seen = _warnings_in_a_fresh_process()
    for name in LEGACY_CALLS:
        assert len(seen[f"torch {name}"]) == 1, name
        assert seen[f"glasstorch {name}"] == seen[f"torch {name}"], name


def test_many_small_matrices_take_the_vectorised_lu_with_lapacks_pivots_and_infos():
    """Note [Small batched LU]: 64 4x4 matrices, some singular (a zero matrix, a zero column, two equal rows)."""
    a = np.random.default_rng(1).standard_normal((64, 4, 4))
    a[3] = 0
    a[5, :, 1] = 0
    a[7, 2] = a[7, 1]
    for fn in (lambda m, x: m.linalg.lu_factor_ex(x), lambda m, x: m.linalg.lu_factor_ex(x[:, :3, :]),
               lambda m, x: m.linalg.lu_factor_ex(x[:, :, :3]), lambda m, x: m.linalg.inv_ex(x)[1]):
        _same(fn, a, tol=1e-9)
    # det/slogdet of the two-equal-rows matrix is 0 or a rounding residue of either sign, as the LAPACK build rounds
    # (torch's MKL gives -1e-17 on some CPUs): compared without it
    for fn in (lambda m, x: m.linalg.det(x), lambda m, x: m.linalg.slogdet(x)):
        _same(fn, np.delete(a, 7, axis=0), tol=1e-9)
    b = np.random.default_rng(2).standard_normal((64, 4, 4)) + 2 * np.eye(4)
    _same(lambda m, x: m.linalg.inv(x), b, tol=1e-9)
    _same(lambda m, x: m.linalg.solve(x, x[..., :2]), b, tol=1e-9)
    _same(lambda m, x: m.linalg.solve(x, x[..., :2].mT, left=False), b, tol=1e-9)


@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_gradient_of_a_rank_deficient_matrix_matches_torch(hermitian):
    """pinv has its own derivative (PyTorch's pinv_backward): finite where the SVD's repeated zeros would not be."""
    a = np.random.default_rng(0).standard_normal((5, 3))
    a[:, 2] = a[:, 1]
    a = a @ a.T if hermitian else a
    grads = []
    for m in (gt, torch):
        A = m.tensor(a, requires_grad=True)
        P = m.linalg.pinv(A, hermitian=hermitian)
        (P * P).sum().backward()
        grads.append((P, A.grad))
    assert type(grads[0][0].grad_fn).__name__ == "LinalgPinvBackward0"
    assert_same(grads[0][0].detach(), grads[1][0].detach(), rtol=1e-9, atol=1e-9)
    assert_same(grads[0][1], grads[1][1], rtol=1e-6, atol=1e-6)


def test_lstsq_gradcheck_float64():
    A = gt.tensor(TALL, requires_grad=True)
    B = gt.tensor(TALL[:, :2] + 1, requires_grad=True)
    assert gt.autograd.gradcheck(lambda a, b: gt.linalg.lstsq(a, b).solution, (A, B))
