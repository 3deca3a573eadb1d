"""OpInfo entries: torch.linalg's factorizations and solvers (glasstorch/_ops/native_functions/linalg_lapack.yaml)
and the legacy torch.* names over them.

The inputs are conditioned the way PyTorch's own OpInfos condition them, in both libraries alike: a shift by
``n·I`` keeps matrices invertible, ``A Aᵀ + n·I`` makes them positive-definite, ``triu``/``tril`` triangular.  A
factor whose sign or phase LAPACK leaves free (eigenvectors, Householder vectors) is compared through a
gauge-invariant function of it (``V * V``, ``|Q|``), as PyTorch's OpInfos compare them.
"""

from __future__ import annotations

import torch
from op_db_linalg import LibOpInfo
from opinfo import ErrorSample, Sample, T

FLOAT = ("float32", "float64")
TOL = {"rtol": 1e-4, "atol": 1e-4}
GRAD = {"grad_rtol": 1e-3, "grad_atol": 1e-3}


def _lib_name(lib) -> str:
    return "torch" if lib is torch else "glasstorch"


def _eye(lib, A):
    return lib.eye(A.shape[-1], dtype=A.dtype)


def _wc(lib, A):
    """A well-conditioned square matrix (batch): A + n·I."""
    return A + A.shape[-1] * _eye(lib, A)


def _spd(lib, A):
    """A Hermitian positive-definite matrix (batch): A Aᵀ + n·I."""
    return A @ A.mT + A.shape[-1] * _eye(lib, A)


def _out_kw(out):
    return {} if out is None else {"out": out}


def _s(args, name, kwargs=None, **kw):
    return Sample(tuple(args), kwargs or {}, name=name, **{**TOL, **kw})


SQUARE = ((3, 3), (2, 4, 4), (1, 3, 2, 2), (0, 0), (2, 0, 0))


def _square(dtype):
    for shape in SQUARE:
        yield _s((T(shape, low=-1, high=1),), f"{shape}")
    yield _s((T((3, 3), low=-1, high=1, layout="transposed"),), "transposed")


def _rect(dtype):
    for shape in ((3, 3), (5, 3), (3, 5), (2, 4, 3), (0, 3), (3, 0)):
        yield _s((T(shape, low=-1, high=1),), f"{shape}")


def _solve_samples(dtype):
    A = T((3, 3), low=-1, high=1)
    yield _s((A, T((3, 2))), "matrix")
    yield _s((A, T((3,))), "vector")
    yield _s((T((2, 3, 3), low=-1, high=1), T((3, 4))), "broadcast A batch")
    yield _s((A, T((2, 3, 1))), "broadcast B batch")
    yield _s((T((2, 3, 3), low=-1, high=1), T((2, 3))), "batched vector")
    yield _s((A, T((2, 3))), "right", {"left": False})
    yield _s((T((0, 0)), T((0, 2))), "empty")


def _solve_errors():
    return [ErrorSample((T((2, 3)), T((2, 1))), name="not square"),
            ErrorSample((T((3, 3)), T((2, 1))), name="shapes"),
            ErrorSample((T((3, 3), dtype="int64"), T((3, 1), dtype="int64")), name="int"),
            ErrorSample((T((3, 3)), T((3, 1), dtype="float64")), name="dtypes"),
            ErrorSample((T((2, 2), values=((1.0, 2.0), (2.0, 4.0))), T((2, 1))), name="singular")]


def _square_errors(extra=()):
    def make():
        return [ErrorSample((T((3,)),), name="1-d"), ErrorSample((T((2, 3)),), name="not square"),
                ErrorSample((T((2, 2), dtype="int64"),), name="int"),
                ErrorSample((T((2, 2), dtype="float16"),), name="half"), *extra]
    return make


_SINGULAR = T((2, 2), values=((1.0, 2.0), (2.0, 4.0)))
_SINGULAR_BATCH = T((2, 2, 2), values=(((1.0, 0.0), (0.0, 1.0)), ((1.0, 2.0), (2.0, 4.0))))


def _with(fn_of_lib, prep):
    """An entry callable: ``prep`` conditions the first argument, then ``fn_of_lib(lib)`` runs."""
    def fn(lib):
        f = fn_of_lib(lib)

        def call(A, *args, **kwargs):
            return f(prep(lib, A), *args, **kwargs)
        return call
    return fn


def _lu_solve_fn(lib):
    def call(A, B, **kwargs):
        LU, piv = lib.linalg.lu_factor(_wc(lib, A))
        return lib.linalg.lu_solve(LU, piv, B, **kwargs)
    return call


def _lu_solve_samples(dtype):
    A = T((3, 3), low=-1, high=1)
    yield _s((A, T((3, 2))), "left")
    yield _s((A, T((3, 2))), "adjoint", {"adjoint": True})
    yield _s((A, T((2, 3))), "right", {"left": False})
    yield _s((A, T((2, 3))), "right adjoint", {"left": False, "adjoint": True})
    yield _s((T((2, 3, 3), low=-1, high=1), T((3, 1))), "broadcast")


def _legacy_lu_solve_fn(lib):
    def call(A, B, out=None):
        LU, piv = lib.linalg.lu_factor(_wc(lib, A))
        return lib.lu_solve(B, LU, piv, **_out_kw(out))
    return call


def _lu_unpack_fn(lib):
    def call(A, out=None, **kwargs):
        LU, piv = lib.linalg.lu_factor(A)
        return lib.lu_unpack(LU, piv, **kwargs, **_out_kw(out))
    return call


def _lu_unpack_samples(dtype):
    yield from _rect(dtype)
    yield _s((T((3, 4)),), "no pivots", {"unpack_pivots": False})
    yield _s((T((3, 4)),), "no data", {"unpack_data": False})


def _triangular_samples(dtype):
    A = T((3, 3), low=-1, high=1)
    for upper in (True, False):
        yield _s((A, T((3, 2))), f"upper={upper}", {"upper": upper})
        yield _s((A, T((2, 3))), f"right upper={upper}", {"upper": upper, "left": False})
        yield _s((A, T((3, 2))), f"unit upper={upper}", {"upper": upper, "unitriangular": True})
    yield _s((T((2, 3, 3), low=-1, high=1), T((3, 1))), "broadcast", {"upper": True})


def _tri(lib, A, upper=True):
    A = _wc(lib, A)
    return A.triu() if upper else A.tril()


def _solve_triangular_fn(lib):
    def call(A, B, upper, **kwargs):
        return lib.linalg.solve_triangular(_tri(lib, A, upper), B, upper=upper, **kwargs)
    return call


def _triangular_solve_fn(lib):
    def call(B, A, upper=True, transpose=False, unitriangular=False, out=None):
        return lib.triangular_solve(B, _tri(lib, A, upper), upper, transpose, unitriangular, **_out_kw(out))
    return call


def _triangular_solve_samples(dtype):
    for upper in (True, False):
        for transpose in (False, True):
            yield _s((T((3, 2)), T((3, 3), low=-1, high=1), upper, transpose), f"upper={upper} transpose={transpose}")
    yield _s((T((3, 2)), T((3, 3), low=-1, high=1), True, False, True), "unitriangular")
    yield _s((T((2, 3, 1)), T((3, 3), low=-1, high=1)), "broadcast")


def _cholesky_solve_fn(lib):
    def call(B, A, upper=False, out=None):
        return lib.cholesky_solve(B, lib.linalg.cholesky(_spd(lib, A), upper=upper), upper, **_out_kw(out))
    return call


def _cholesky_solve_samples(dtype):
    yield _s((T((3, 2)), T((3, 3))), "lower")
    yield _s((T((3, 2)), T((3, 3)), True), "upper")
    yield _s((T((2, 3, 2)), T((3, 3))), "broadcast")


def _cholesky_inverse_fn(lib):
    def call(A, upper=False, out=None):
        return lib.cholesky_inverse(lib.linalg.cholesky(_spd(lib, A), upper=upper), upper, **_out_kw(out))
    return call


def _chol_samples(dtype):
    for shape in ((3, 3), (2, 4, 4), (0, 0)):
        yield _s((T(shape),), f"{shape}")
    yield _s((T((3, 3)),), "upper", {"upper": True})


def _chol_inverse_samples(dtype):
    yield _s((T((3, 3)),), "lower")
    yield _s((T((2, 3, 3)), True), "upper")


def _gauge_eigh(fn_of_lib):
    """eigh's eigenvectors through V * V (invariant under each column's sign)."""
    def fn(lib):
        f = fn_of_lib(lib)

        def call(A, *args, **kwargs):
            L, V = f(A @ A.mT, *args, **kwargs)
            return L, V * V
        return call
    return fn


def _eigh_out_fn(lib):
    """eigh into out=, each eigenvector's sign then fixed in place (first component positive), so the returned
    tensors stay the out tensors."""
    def call(A, *args, out=None, **kwargs):
        L, V = lib.linalg.eigh(A @ A.mT, *args, **kwargs, **_out_kw(out))
        V.mul_(V[..., :1, :].sign())
        return L, V
    return call


def _eigh_samples(dtype):
    for shape in ((3, 3), (2, 4, 4), (0, 0)):
        yield _s((T(shape),), f"{shape}")
    yield _s((T((3, 3)), "U"), "upper")


def _eig_fn(lib):
    def call(A, out=None):
        L, V = lib.linalg.eig(A, **_out_kw(out))
        return L.abs(), V.abs()  # eigenvectors up to a phase: compare magnitudes
    return call


def _eigvals_fn(lib):
    def call(A):
        return lib.linalg.eigvals(A).abs()
    return call


def _qr_fn(lib):
    def call(A, *args, **kwargs):
        Q, R = lib.linalg.qr(A, *args, **kwargs)
        return Q, R
    return call


def _qr_samples(dtype):
    yield from _rect(dtype)
    yield _s((T((5, 3)),), "complete", {"mode": "complete"})
    yield _s((T((3, 5)),), "complete wide", {"mode": "complete"})
    yield _s((T((5, 3)),), "r", {"mode": "r"})


def _qr_grad_samples(dtype):
    yield _s((T((4, 3)),), "tall")
    yield _s((T((3, 3)),), "square")
    yield _s((T((3, 5)),), "wide")


def _householder_fn(name):
    def fn(lib):
        def call(A, out=None):
            a, tau = lib.geqrf(A)
            return (getattr(lib, name) if name == "orgqr" else lib.linalg.householder_product)(a, tau, **_out_kw(out))
        return call
    return fn


def _ormqr_fn(lib):
    def call(A, C, left=True, transpose=False, out=None):
        a, tau = lib.geqrf(A)
        return lib.ormqr(a, tau, C, left, transpose, **_out_kw(out))
    return call


def _ormqr_samples(dtype):
    yield _s((T((4, 3)), T((4, 2))), "left")
    yield _s((T((4, 3)), T((4, 2)), True, True), "left transpose")
    yield _s((T((4, 3)), T((2, 4)), False), "right")
    yield _s((T((4, 3)), T((2, 4)), False, True), "right transpose")


def _lstsq_samples(dtype):
    for driver in ("gelsy", "gelsd", "gelss", "gels"):
        yield _s((T((5, 3)), T((5, 2))), f"tall {driver}", {"driver": driver})
    yield _s((T((3, 5)), T((3, 2))), "wide")
    yield _s((T((2, 4, 3)), T((2, 4, 2))), "batched")
    yield _s((T((4, 3)), T((4, 2))), "rcond", {"rcond": 0.5, "driver": "gelsd"})


def _lstsq_grad_samples(dtype):
    yield _s((T((5, 3)), T((5, 2))), "tall")
    yield _s((T((3, 5)), T((3,))), "wide vector")
    yield _s((T((2, 4, 3)), T((2, 4, 2))), "batched")


def _pinv_fn(overload):
    def fn(lib):
        def call(A, *args, **kwargs):
            if overload == "hermitian":
                return lib.linalg.pinv(A @ A.mT, hermitian=True)
            if overload == "rcond tensor":
                return lib.linalg.pinv(A, lib.tensor(0.1, dtype=A.dtype))
            if overload == "atol tensor":
                return lib.linalg.pinv(A, atol=lib.tensor(0.5, dtype=A.dtype), rtol=lib.tensor(0.0, dtype=A.dtype))
            return lib.linalg.pinv(A, *args, **kwargs)
        return call
    return fn


def _pinv_samples(dtype):
    for shape in ((3, 3), (5, 3), (2, 3, 4), (0, 3)):
        yield _s((T(shape),), f"{shape}")
    yield _s((T((4, 3)), 0.2), "rcond")
    yield _s((T((4, 3)),), "atol rtol floats", {"atol": 0.5, "rtol": 0.1})


def _rank_fn(lib):
    def call(A, *args, **kwargs):
        low = A[..., :, :1] * A[..., :1, :]  # rank one
        return lib.linalg.matrix_rank(A, *args, **kwargs), lib.linalg.matrix_rank(low, *args, **kwargs)
    return call


def _rank_samples(dtype):
    yield _s((T((4, 3)),), "default")
    yield _s((T((2, 4, 4)),), "hermitian", {"hermitian": True})
    yield _s((T((4, 3)), 0.5), "tol")
    yield _s((T((4, 3)),), "atol rtol", {"atol": 0.1, "rtol": 0.01})


def _rank_tensor_fn(lib):
    def call(A):
        tol = lib.tensor(0.5, dtype=A.dtype)
        return (lib.linalg.matrix_rank(A, tol), lib.linalg.matrix_rank(A, atol=tol, rtol=None),
                lib.linalg.matrix_rank(A, atol=None, rtol=tol))
    return call


def _cond_samples(dtype):
    yield _s((T((3, 3), low=-1, high=1),), "2")
    yield _s((T((2, 3, 3), low=-1, high=1), -2), "-2")
    for p in (1, -1, float("inf"), -float("inf"), "fro", "nuc"):
        yield _s((T((3, 3), low=-1, high=1), p), f"p={p}")
    yield _s((T((4, 3)),), "rectangular")
    yield _s((T((0, 0)),), "empty")


def _cond_grad_samples(dtype):
    yield _s((T((3, 3), low=-1, high=1),), "2")
    yield _s((T((3, 3), low=-1, high=1), "nuc"), "nuc")


def _matrix_power_samples(dtype):
    for n in (0, 1, 2, 3, 6, -1, -3):
        yield _s((T((2, 3, 3), low=-1, high=1), n), f"n={n}")
    yield _s((T((0, 0)), 2), "empty")


def _multi_dot_fn(lib):
    def call(*ts, out=None):
        return lib.linalg.multi_dot(list(ts), **_out_kw(out))
    return call


def _multi_dot_samples(dtype):
    yield _s((T((3, 4)), T((4, 5))), "two")
    yield _s((T((2, 10)), T((10, 3)), T((3, 8))), "three")
    yield _s((T((4,)), T((4, 5)), T((5, 2)), T((2,))), "vectors")
    yield _s((T((6, 2)), T((2, 7)), T((7, 3)), T((3, 5))), "four")


def _cross_samples(dtype):
    yield _s((T((4, 3)), T((4, 3))), "last")
    yield _s((T((3, 4)), T((3, 4))), "dim 0", {"dim": 0})
    yield _s((T((2, 1, 3)), T((4, 3))), "broadcast")


def _legacy_cross_samples(dtype):
    yield _s((T((3, 4)), T((3, 4)), 0), "dim 0")
    yield _s((T((4, 3)), T((4, 3)), -1), "dim -1")


def _vander_samples(dtype):
    yield _s((T((4,)),), "default")
    yield _s((T((2, 3)),), "N", {"N": 5})


def _tensorinv_samples(dtype):
    yield _s((T((4, 2, 2, 4), low=-1, high=1),), "ind 2")
    yield _s((T((6, 2, 3), low=-1, high=1), 1), "ind 1")


def _tensorinv_fn(lib):
    def call(A, ind=2):
        n = 1
        for size in A.shape[:ind]:
            n *= size
        flat = A.reshape(n, -1) + n * lib.eye(n, dtype=A.dtype)
        return lib.linalg.tensorinv(flat.reshape(A.shape), ind)
    return call


def _tensorsolve_samples(dtype):
    yield _s((T((2, 3, 6), low=-1, high=1), T((2, 3))), "default")
    yield _s((T((6, 2, 3), low=-1, high=1), T((2, 3)), (0,)), "dims")


def _tensorsolve_fn(lib):
    def call(A, B, *args):
        moved = A.movedim(0, -1) if args else A
        moved = (moved.reshape(6, 6) + 6 * lib.eye(6, dtype=A.dtype)).reshape(2, 3, 6)
        return lib.linalg.tensorsolve(moved.movedim(-1, 0) if args else moved, B, *args)
    return call


def _svd_legacy_fn(lib):
    """torch.svd with the singular vectors' signs taken off (in place, so out= tensors are returned as given)."""
    def call(A, *args, out=None):
        result = lib.svd(A, *args, **_out_kw(out))
        result[0].abs_()
        result[2].abs_()
        return result
    return call


def _svd_legacy_samples(dtype):
    yield _s((T((5, 3)),), "some")
    yield _s((T((3, 3)), False), "full (square: no free null space)")
    yield _s((T((2, 4, 3)), True, False), "no uv")


def _lu_legacy_fn(lib):
    def call(A, *args, **kwargs):
        return lib.lu(A, *args, **kwargs)
    return call


def _lu_legacy_samples(dtype):
    yield _s((T((3, 3)),), "default")
    yield _s((T((2, 3, 4)),), "infos", {"get_infos": True})


def _ldl_fn(lib):
    def call(A, out=None, **kwargs):
        return lib.linalg.ldl_factor(A + A.mT, **kwargs, **_out_kw(out))
    return call


def _ldl_ex_fn(lib):
    def call(A, out=None, **kwargs):
        return lib.linalg.ldl_factor_ex(A + A.mT, **kwargs, **_out_kw(out))
    return call


def _ldl_solve_fn(lib):
    def call(A, B, out=None):
        LD, piv = lib.linalg.ldl_factor(A + A.mT)
        return lib.linalg.ldl_solve(LD, piv, B, **_out_kw(out))
    return call


def _matrix_exp_samples(dtype):
    for shape in ((3, 3), (2, 4, 4), (1, 1), (0, 0)):
        yield _s((T(shape, low=-1, high=1),), f"{shape}")
    yield _s((T((3, 3), low=-4, high=4),), "large norm", rtol=1e-3, atol=1e-3)


_DET_ERRORS = _square_errors()


def _errors(name, fn, errors):
    """An entry for error samples only (no dtypes: no value samples), called on the raw inputs."""
    return LibOpInfo(f"{name} errors", aten=(), samples=lambda dtype: [], dtypes=(), fn=fn, errors=errors)


OPS = [
    LibOpInfo("linalg.inv", aten=("linalg_inv", "linalg_inv.out"), samples=_square, dtypes=FLOAT, out=True,
              fn=_with(lambda lib: lib.linalg.inv, _wc), **GRAD),
    LibOpInfo("linalg.inv_ex", aten=("linalg_inv_ex", "linalg_inv_ex.inverse"), samples=_square, dtypes=FLOAT,
              out=True, fn=_with(lambda lib: lib.linalg.inv_ex, _wc), **GRAD),
    LibOpInfo("inverse", aten=("inverse", "inverse.out"), samples=_square, dtypes=FLOAT, out=True,
              fn=_with(lambda lib: lib.inverse, _wc), **GRAD),
    LibOpInfo("linalg.solve", aten=("linalg_solve", "linalg_solve.out", "_linalg_solve_ex", "_linalg_solve_ex.result"),
              samples=_solve_samples, dtypes=FLOAT, out=True, fn=_with(lambda lib: lib.linalg.solve, _wc),
              **GRAD),
    LibOpInfo("linalg.solve_ex", aten=("linalg_solve_ex", "linalg_solve_ex.out"), samples=_solve_samples,
              dtypes=FLOAT, out=True, fn=_with(lambda lib: lib.linalg.solve_ex, _wc), **GRAD),
    LibOpInfo("linalg.lu_factor", aten=("linalg_lu_factor", "linalg_lu_factor.out"), samples=_rect, dtypes=FLOAT,
              out=True, fn=lambda lib: lib.linalg.lu_factor,
              errors=lambda: [ErrorSample((_SINGULAR,), name="singular"),
                              ErrorSample((_SINGULAR_BATCH,), name="singular batch"),
                              ErrorSample((T((3,)),), name="1-d"), ErrorSample((T((2, 2)),), {"pivot": False},
                                                                             name="no pivot")], **GRAD),
    LibOpInfo("linalg.lu_factor_ex", aten=("linalg_lu_factor_ex", "linalg_lu_factor_ex.out"), samples=_rect,
              dtypes=FLOAT, out=True, fn=lambda lib: lib.linalg.lu_factor_ex,
              errors=lambda: [ErrorSample((_SINGULAR,), {"check_errors": True}, name="check errors"),
                              ErrorSample((T((2, 2), dtype="int64"),), name="int")], **GRAD),
    LibOpInfo("linalg.lu", aten=("linalg_lu", "linalg_lu.out"), samples=_rect, dtypes=FLOAT, out=True,
              fn=lambda lib: lib.linalg.lu, **GRAD),
    LibOpInfo("lu_unpack", aten=("lu_unpack", "lu_unpack.out"), samples=_lu_unpack_samples, dtypes=FLOAT, out=True,
              fn=_lu_unpack_fn, **GRAD),
    LibOpInfo("linalg.lu_solve", aten=("linalg_lu_solve", "linalg_lu_solve.out"), samples=_lu_solve_samples,
              dtypes=FLOAT, out=True, fn=_lu_solve_fn, **GRAD),
    LibOpInfo("lu_solve", aten=("lu_solve", "lu_solve.out"), samples=lambda d: list(_lu_solve_samples(d))[:1],
              dtypes=FLOAT, out=True, fn=_legacy_lu_solve_fn, **GRAD),
    LibOpInfo("lu", aten=("_lu_with_info",), samples=_lu_legacy_samples, dtypes=FLOAT, fn=_lu_legacy_fn,
              grad=False),
    LibOpInfo("linalg.solve_triangular", aten=("linalg_solve_triangular", "linalg_solve_triangular.out"),
              samples=_triangular_samples, dtypes=FLOAT, out=True, fn=_solve_triangular_fn,
              **GRAD),
    LibOpInfo("triangular_solve", aten=("triangular_solve", "triangular_solve.X"), samples=_triangular_solve_samples,
              dtypes=FLOAT, out=True, fn=_triangular_solve_fn, **GRAD),
    LibOpInfo("linalg.det", aten=("linalg_det", "linalg_det.out", "_linalg_det", "_linalg_det.result"),
              samples=_square, dtypes=FLOAT, out=True, fn=_with(lambda lib: lib.linalg.det, _wc),               **GRAD),
    LibOpInfo("det", aten=("det",), samples=_square, dtypes=FLOAT, fn=_with(lambda lib: lambda A: A.det(), _wc),
              **GRAD),
    LibOpInfo("linalg.slogdet", aten=("linalg_slogdet", "linalg_slogdet.out", "_linalg_slogdet",
                                      "_linalg_slogdet.sign"),
              samples=_square, dtypes=FLOAT, out=True, fn=_with(lambda lib: lib.linalg.slogdet, _wc),
              **GRAD),
    LibOpInfo("slogdet", aten=("slogdet", "slogdet.out"), samples=_square, dtypes=FLOAT, out=True,
              fn=_with(lambda lib: lib.slogdet, _wc), **GRAD),
    LibOpInfo("logdet", aten=("logdet",), samples=_square, dtypes=FLOAT, fn=_with(lambda lib: lib.logdet, _spd),
              **GRAD),
    LibOpInfo("linalg.cholesky", aten=("linalg_cholesky", "linalg_cholesky.out"), samples=_chol_samples,
              dtypes=FLOAT, out=True, fn=_with(lambda lib: lib.linalg.cholesky, _spd), **GRAD),
    LibOpInfo("linalg.cholesky_ex", aten=("linalg_cholesky_ex", "linalg_cholesky_ex.L"), samples=_chol_samples,
              dtypes=FLOAT, out=True, fn=_with(lambda lib: lib.linalg.cholesky_ex, _spd), **GRAD),
    LibOpInfo("cholesky", aten=("cholesky", "cholesky.out"), samples=_chol_samples, dtypes=FLOAT, out=True,
              fn=_with(lambda lib: lib.cholesky, _spd),               **GRAD),
    LibOpInfo("cholesky_solve", aten=("cholesky_solve", "cholesky_solve.out"), samples=_cholesky_solve_samples,
              dtypes=FLOAT, out=True, fn=_cholesky_solve_fn, **GRAD),
    LibOpInfo("cholesky_inverse", aten=("cholesky_inverse", "cholesky_inverse.out"), samples=_chol_inverse_samples,
              dtypes=FLOAT, out=True, fn=_cholesky_inverse_fn, **GRAD),
    LibOpInfo("linalg.ldl_factor", aten=("linalg_ldl_factor",), samples=_square, dtypes=FLOAT, fn=_ldl_fn,
              grad=False),
    LibOpInfo("linalg.ldl_factor_ex", aten=("linalg_ldl_factor_ex", "linalg_ldl_factor_ex.out"), samples=_square,
              dtypes=FLOAT, out=True, fn=_ldl_ex_fn, grad=False),
    LibOpInfo("linalg.ldl_solve", aten=("linalg_ldl_solve", "linalg_ldl_solve.out"),
              samples=lambda d: [_s((T((3, 3)), T((3, 2))), "matrix"), _s((T((2, 3, 3)), T((3, 1))), "broadcast")],
              dtypes=FLOAT, out=True, fn=_ldl_solve_fn, grad=False),
    LibOpInfo("linalg.eigh", aten=("linalg_eigh", "_linalg_eigh"), samples=_eigh_samples, dtypes=FLOAT,
              fn=_gauge_eigh(lambda lib: lib.linalg.eigh),
              **GRAD),
    LibOpInfo("linalg.eigh out=", aten=("linalg_eigh.eigvals", "_linalg_eigh.eigenvalues"), samples=_eigh_samples,
              dtypes=FLOAT, out=True, function=False, grad=False, fn=_eigh_out_fn),
    LibOpInfo("linalg.eigvalsh", aten=("linalg_eigvalsh", "linalg_eigvalsh.out"), samples=_eigh_samples,
              dtypes=FLOAT, out=True, fn=_with(lambda lib: lib.linalg.eigvalsh, lambda lib, A: A @ A.mT), **GRAD),
    LibOpInfo("linalg.eig", aten=("linalg_eig", "linalg_eig.out"), samples=_square, dtypes=FLOAT, out=True,
              fn=_eig_fn, grad=False),
    LibOpInfo("linalg.eigvals", aten=("linalg_eigvals", "_linalg_eigvals"), samples=_square, dtypes=FLOAT,
              fn=_eigvals_fn, grad=False),
    LibOpInfo("linalg.qr", aten=("linalg_qr", "linalg_qr.out"), samples=_qr_samples, dtypes=FLOAT, out=True,
              fn=_qr_fn, grad_samples=_qr_grad_samples,
              **GRAD),
    LibOpInfo("qr", aten=("qr", "qr.Q"), samples=lambda d: [_s((T((4, 3)),), "some"), _s((T((3, 4)), False), "all")],
              dtypes=FLOAT, out=True, fn=lambda lib: lib.qr, grad_samples=lambda d: [_s((T((4, 3)),), "some")], **GRAD),
    LibOpInfo("geqrf", aten=("geqrf", "geqrf.a"), samples=_rect, dtypes=FLOAT, out=True, fn=lambda lib: lib.geqrf,
              grad=False),
    LibOpInfo("linalg.householder_product", aten=("linalg_householder_product", "linalg_householder_product.out"),
              samples=lambda d: [_s((T((4, 3)),), "tall"), _s((T((2, 3, 3)),), "batch")], dtypes=FLOAT, out=True,
              fn=_householder_fn("householder_product"), grad=False),
    LibOpInfo("orgqr", aten=("orgqr", "orgqr.out"), samples=lambda d: [_s((T((4, 3)),), "tall")], dtypes=FLOAT,
              out=True, fn=_householder_fn("orgqr"), grad=False),
    LibOpInfo("ormqr", aten=("ormqr", "ormqr.out"), samples=_ormqr_samples, dtypes=FLOAT, out=True, fn=_ormqr_fn,
              grad=False),
    LibOpInfo("svd", aten=("svd", "svd.U"), samples=_svd_legacy_samples, dtypes=FLOAT, out=True,
              fn=_svd_legacy_fn, grad=False),
    LibOpInfo("linalg.lstsq", aten=("linalg_lstsq", "linalg_lstsq.out"), samples=_lstsq_samples, dtypes=FLOAT,
              out=True, fn=lambda lib: lib.linalg.lstsq, grad_samples=_lstsq_grad_samples, **GRAD,
              errors=lambda: [ErrorSample((T((2, 2)), T((3, 1))), name="rows"),
                              ErrorSample((T((2, 2)), T((2, 1))), {"driver": "bad"}, name="driver")]),
    LibOpInfo("linalg.pinv", aten=("linalg_pinv.atol_rtol_tensor", "linalg_pinv.atol_rtol_float", "linalg_pinv"),
              samples=_pinv_samples, dtypes=FLOAT, fn=_pinv_fn("plain"),
              errors=lambda: [ErrorSample((T((3,)),), name="1-d"), ErrorSample((T((2, 2), dtype="int64"),),
                                                                                name="int")], **GRAD),
    LibOpInfo("linalg.pinv hermitian", aten=(), samples=lambda d: [_s((T((3, 3)),), "h")], dtypes=FLOAT,
              fn=_pinv_fn("hermitian"), **GRAD),
    LibOpInfo("linalg.pinv rcond tensor", aten=("linalg_pinv.rcond_tensor",), samples=lambda d: [_s((T((4, 3)),), "r")],
              dtypes=FLOAT, fn=_pinv_fn("rcond tensor"), **GRAD),
    LibOpInfo("linalg.pinv atol tensor", aten=(), samples=lambda d: [_s((T((4, 3)),), "a")], dtypes=FLOAT,
              fn=_pinv_fn("atol tensor"), **GRAD),
    LibOpInfo("pinverse", aten=("pinverse",), samples=lambda d: [_s((T((4, 3)),), "default"),
                                                                 _s((T((4, 3)), 0.3), "rcond")],
              dtypes=FLOAT, fn=lambda lib: lib.pinverse, **GRAD),
    LibOpInfo("linalg.matrix_rank", aten=("linalg_matrix_rank.atol_rtol_float", "linalg_matrix_rank"),
              samples=_rank_samples, dtypes=FLOAT, fn=_rank_fn, grad=False,
              errors=lambda: [ErrorSample((T((3,)),), name="1-d"), ErrorSample((T((2, 2), dtype="int64"),),
                                                                                name="int")]),
    LibOpInfo("linalg.matrix_rank tensors", aten=("linalg_matrix_rank.tol_tensor",
                                                  "linalg_matrix_rank.atol_rtol_tensor"),
              samples=lambda d: [_s((T((4, 3)),), "t")], dtypes=FLOAT, fn=_rank_tensor_fn, grad=False),
    LibOpInfo("linalg.cond", aten=("linalg_cond", "linalg_cond.p_str"), samples=_cond_samples, dtypes=FLOAT,
              fn=lambda lib: lib.linalg.cond, grad_samples=_cond_grad_samples,
              errors=lambda: [ErrorSample((T((3,)),), name="1-d"), ErrorSample((T((2, 3)), 1), name="p=1 rect"),
                              ErrorSample((T((3, 3)), 3), name="bad p"), ErrorSample((T((3, 3)), "x"), name="bad str")],
              **GRAD),
    LibOpInfo("linalg.matrix_exp", aten=("linalg_matrix_exp",), samples=_matrix_exp_samples, dtypes=FLOAT,
              fn=lambda lib: lib.linalg.matrix_exp, errors=lambda: list(_square_errors()())[:3], **GRAD),
    LibOpInfo("matrix_exp", aten=("matrix_exp",), samples=_matrix_exp_samples, dtypes=FLOAT,
              fn=lambda lib: lambda A: A.matrix_exp(), **GRAD),
    LibOpInfo("linalg.matrix_power", aten=("linalg_matrix_power", "linalg_matrix_power.out"),
              samples=_matrix_power_samples, dtypes=FLOAT, out=True,
              fn=_with(lambda lib: lib.linalg.matrix_power, _wc), **GRAD),
    LibOpInfo("matrix_power", aten=("matrix_power", "matrix_power.out"), samples=_matrix_power_samples,
              dtypes=FLOAT + ("int64",), out=True, fn=lambda lib: lib.matrix_power, grad=False),
    LibOpInfo("linalg.multi_dot", aten=("linalg_multi_dot", "linalg_multi_dot.out"), samples=_multi_dot_samples,
              dtypes=FLOAT, out=True, fn=_multi_dot_fn,
              errors=lambda: [ErrorSample((T((3,)),), name="one"), ErrorSample((T((3, 3, 3)), T((3, 3))), name="3-d"),
                              ErrorSample((T((3, 2)), T((3, 3))), name="shapes")], **GRAD),
    LibOpInfo("linalg.matmul", aten=("linalg_matmul", "linalg_matmul.out"),
              samples=lambda d: [_s((T((2, 3, 4)), T((4, 2))), "batched")], dtypes=FLOAT, out=True,
              fn=lambda lib: lib.linalg.matmul, **GRAD),
    LibOpInfo("linalg.vecdot", aten=("linalg_vecdot", "linalg_vecdot.out"),
              samples=lambda d: [_s((T((3, 4)), T((3, 4))), "last"), _s((T((3, 4)), T((4,))), "dim 0", {"dim": -1})],
              dtypes=FLOAT, out=True, fn=lambda lib: lib.linalg.vecdot, **GRAD),
    LibOpInfo("linalg.cross", aten=("linalg_cross", "linalg_cross.out"), samples=_cross_samples,
              dtypes=FLOAT + ("int64",), out=True, fn=lambda lib: lib.linalg.cross,
              errors=lambda: [ErrorSample((T((2, 2)), T((2, 2))), name="length")], **GRAD),
    LibOpInfo("cross", aten=("cross", "cross.out"), samples=_legacy_cross_samples, dtypes=FLOAT, out=True,
              fn=lambda lib: lib.cross, **GRAD),
    LibOpInfo("linalg.vander", aten=("linalg_vander",), samples=_vander_samples, dtypes=FLOAT + ("int64",),
              fn=lambda lib: lib.linalg.vander, **GRAD),
    LibOpInfo("linalg.diagonal", aten=("linalg_diagonal",),
              samples=lambda d: [_s((T((2, 3, 4)),), "default"), _s((T((3, 4)),), "offset", {"offset": 1})],
              dtypes=FLOAT, fn=lambda lib: lib.linalg.diagonal, **GRAD),
    LibOpInfo("linalg.tensorinv", aten=("linalg_tensorinv",), samples=_tensorinv_samples, dtypes=FLOAT,
              fn=_tensorinv_fn, **GRAD),
    LibOpInfo("linalg.tensorsolve", aten=("linalg_tensorsolve",), samples=_tensorsolve_samples, dtypes=FLOAT,
              fn=_tensorsolve_fn, **GRAD),

    # error samples on the raw inputs (the entries above condition theirs)
    _errors("linalg.inv", lambda lib: lib.linalg.inv, _square_errors(
        [ErrorSample((_SINGULAR,), name="singular"), ErrorSample((_SINGULAR_BATCH,), name="singular batch")])),
    _errors("linalg.inv_ex", lambda lib: lib.linalg.inv_ex,
            lambda: [ErrorSample((_SINGULAR,), {"check_errors": True}, name="check errors")]),
    _errors("linalg.solve", lambda lib: lib.linalg.solve, _solve_errors),
    _errors("linalg.solve_triangular", lambda lib: lib.linalg.solve_triangular,
            lambda: [ErrorSample((T((2, 2)), T((3, 1))), {"upper": True}, name="shapes"),
                     ErrorSample((T((2, 2), dtype="int64"), T((2, 1), dtype="int64")), {"upper": True}, name="int")]),
    _errors("linalg.det", lambda lib: lib.linalg.det, _DET_ERRORS),
    _errors("linalg.slogdet", lambda lib: lib.linalg.slogdet, _DET_ERRORS),
    _errors("linalg.cholesky", lambda lib: lib.linalg.cholesky, _square_errors(
        [ErrorSample((_SINGULAR,), name="not positive-definite"), ErrorSample((_SINGULAR_BATCH,), name="batch")])),
    _errors("linalg.cholesky_ex", lambda lib: lib.linalg.cholesky_ex,
            lambda: [ErrorSample((_SINGULAR,), {"check_errors": True}, name="check errors")]),
    _errors("cholesky", lambda lib: lib.cholesky, lambda: [ErrorSample((_SINGULAR,), name="not pd")]),
    _errors("linalg.eigh", lambda lib: lib.linalg.eigh,
            lambda: [ErrorSample((T((2, 2)),), {"UPLO": "X"}, name="uplo"), ErrorSample((T((2, 3)),), name="square"),
                     ErrorSample((T((2, 2), dtype="int64"),), name="int")]),
    _errors("linalg.eig", lambda lib: lib.linalg.eig,
            lambda: [ErrorSample((T((2, 3)),), name="not square"), ErrorSample((T((3,)),), name="1-d")]),
    _errors("linalg.qr", lambda lib: lib.linalg.qr,
            lambda: [ErrorSample((T((2, 2)),), {"mode": "x"}, name="mode"), ErrorSample((T((3,)),), name="1-d")]),
]
