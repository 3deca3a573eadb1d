"""``linalg_matrix_exp``'s numerics (PyTorch's ``mexp`` in ``LinearAlgebra.cpp``): Bader, Blanes and Casas's
optimized Taylor polynomials of degree 1, 2, 4, 8, 12 and 18 (Mathematics 2019, 7, 1174), picked per matrix by its
1-norm against PyTorch's thresholds (a batch of several matrices takes degree 18 throughout, as PyTorch's CPU
kernel does), with scaling and squaring above the degree-12 threshold.  Evaluated in the
input's own precision with PyTorch's coefficients so that float32 and complex64 results round as PyTorch's do.

Every product is a batched ``matmul`` in PyTorch (its matrices are (B, n, n)), so below 400 multiply-adds a matrix
(n <= 7) it runs bmm's plain loop, not a BLAS call: each entry summed over k in order from 0, products and sums
rounded one by one (complex products as c10's ``(ac - bd) + (ad + bc)i``).  ``_product`` does the same, which is
what makes those results agree with PyTorch's bit for bit; larger matrices go to BLAS as PyTorch's do.

float16 and bfloat16: PyTorch takes its double-precision branch for them but reads its double coefficient tables
through the 16-bit dtype (the bytes reinterpreted), so its results are not exponentials (typically NaN).  The same
reading is reproduced here (the products in float32, rounded once), which is what makes the values agree.

Invariant: ``a`` is (B, n, n) with n ≥ 2; the result has a's dtype (float32 for the 16-bit types).
"""

from __future__ import annotations

import numpy as np

__all__ = ["mexp"]

_THETAS_F32 = (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02, 5.800524627688768e-01,
               1.461661507209034e+00, 3.010066362817634e+00)
_THETAS_F64 = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04, 4.991228871115323e-02,
               2.996158913811580e-01, 1.090863719290036e+00)

_SQRT_177 = 0.1330413469565007072504e+2


def _t8_constants(scalar) -> dict:
    """compute_T8's ``constexpr scalar_t`` constants: sqrt(177) and x3 = 2/3 are stored in ``scalar`` (float for
    float32/complex64) before the others are computed from them in double and stored in ``scalar`` too."""
    sq, x3 = float(scalar(_SQRT_177)), float(scalar(2.0 / 3.0))
    k = {"x3": x3, "x1": x3 * ((1.0 + sq) / 88.0), "x2": x3 * ((1.0 + sq) / 352.0),
         "x4": (-271.0 + 29.0 * sq) / (315.0 * x3), "x5": (-11.0 + 11.0 * sq) / (1260.0 * x3),
         "x6": (-99.0 + 11.0 * sq) / (5040.0 * x3), "x7": (89.0 - sq) / (5040.0 * x3),
         "y2": (857.0 - 58.0 * sq) / 630.0}
    return {name: float(scalar(v)) for name, v in k.items()}


_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))
_B18 = ((0.0, -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.0),
        (0.0, 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
         -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0.0, 0.0, -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


class _Ctx:
    """How coefficients are read: in the working real dtype, or (16-bit inputs) as PyTorch reads its double
    tables through a 16-bit dtype."""

    def __init__(self, real_np, reinterpret: str | None):
        self.real, self.reinterpret = real_np, reinterpret
        # PyTorch's scalar_t: float for float32/complex64, double otherwise (the 16-bit types included)
        self.t8 = _t8_constants(np.float32 if real_np is np.float32 and reinterpret is None else np.float64)

    def coeffs(self, values) -> np.ndarray:
        arr = np.asarray(values, np.float64)
        if self.reinterpret is None:
            return arr.astype(self.real)
        bits = np.frombuffer(arr.tobytes(), np.uint16)[:arr.size].reshape(arr.shape)
        if self.reinterpret == "float16":
            return bits.view(np.float16).astype(np.float32)
        return (bits.astype(np.uint32) << 16).view(np.float32)  # bfloat16: the upper half of a float32

    def combine(self, mats, values) -> np.ndarray:
        """Σ_j c_j M_j (PyTorch's ``_linear_combination``)."""
        c = self.coeffs(values)
        out = mats[0] * c[0]
        for m, cj in zip(mats[1:], c[1:], strict=True):
            out = out + m * cj
        return out


_SMALL_BMM = 400  # bmm's plain-loop bound on k * n * p (Note [bmm paths] in linalg.py)


def _loop_term(x, y):
    """One k-term ``x * y`` of bmm's loop; complex as c10::complex multiplies: (ac - bd) + (ad + bc)i."""
    if x.dtype.kind != "c":
        return x * y
    t = np.empty(np.broadcast_shapes(x.shape, y.shape), x.dtype)
    t.real = x.real * y.real - x.imag * y.imag
    t.imag = x.real * y.imag + x.imag * y.real
    return t


def _product(x, y):
    """``x @ y`` for (B, n, n) stacks as PyTorch's batched matmul computes it (see the module docstring)."""
    n, k, p = x.shape[-2], x.shape[-1], y.shape[-1]
    if n * k * p >= _SMALL_BMM:
        return x @ y
    acc = np.zeros(x.shape[:-1] + (p,), x.dtype)
    for j in range(k):
        acc += _loop_term(x[..., :, j:j + 1], y[..., j:j + 1, :])
    return acc


def _powers(a, count):
    """[I, A, A², A³, A⁶][:count]."""
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    ps = [eye, a]
    if count > 2:
        ps.append(_product(a, a))
    if count > 3:
        ps.append(_product(a, ps[2]))
    if count > 4:
        ps.append(_product(ps[3], ps[3]))
    return ps


def _t1(a, ctx):
    eye, a1 = _powers(a, 2)
    return eye + a1


def _t2(a, ctx):
    eye, a1, a2 = _powers(a, 3)
    return eye + a1 + a2 / 2.0


def _t4(a, ctx):
    ps = _powers(a, 3)
    tail = _product(ps[2], ctx.combine(ps, (1 / 2.0, 1 / 6.0, 1 / 24.0)))
    return ctx.combine(ps + [tail], (1.0, 1.0, 0.0, 1.0))


def _t8(a, ctx):
    k = ctx.t8
    ps = _powers(a, 3)
    a4 = _product(ps[2], ctx.combine(ps[1:3], (k["x1"], k["x2"])))
    a8 = _product(ctx.combine([ps[2], a4], (k["x3"], 1.0)),
                  ctx.combine(ps + [a4], (k["x4"], k["x5"], k["x6"], k["x7"])))
    return ctx.combine(ps + [a4, a8], (1.0, 1.0, k["y2"], 0.0, 1.0))


def _table(ps, table, ctx):
    b = ctx.coeffs(table)
    return [sum((ps[j] * b[i, j] for j in range(1, len(ps))), ps[0] * b[i, 0]) for i in range(len(table))]


def _t12(a, ctx):
    B = _table(_powers(a, 4), _B12, ctx)
    B[2] = B[2] + _product(B[3], B[3])
    return B[0] + _product(B[1] + B[2], B[2])


def _t18(a, ctx):
    B = _table(_powers(a, 5), _B18, ctx)
    B[3] = B[3] + _product(B[0], B[4])
    return B[1] + _product(B[2] + B[3], B[3])


def _t18_scaled(a, norm, theta, ctx):
    s = np.maximum(np.zeros_like(norm), np.ceil(np.log2(norm / theta))).astype(np.int64)
    scaled = a / np.power(2.0, s).astype(norm.dtype)[:, None, None]
    with np.errstate(over="ignore", invalid="ignore"):  # PyTorch overflows quietly too
        res = _t18(scaled, ctx)
        for i in range(res.shape[0]):
            m = res[i]
            for _ in range(int(s[i])):
                m = _product(m[None], m[None])[0]
            res[i] = m
    return res


def mexp(a: np.ndarray, torch_dtype_name: str) -> np.ndarray:
    """e^A of each matrix of ``a`` (B, n, n) the way PyTorch computes it for that dtype."""
    half = torch_dtype_name in ("float16", "bfloat16")
    if half:
        a = a.astype(np.float32)
    single = torch_dtype_name in ("float32", "complex64")
    thetas = _THETAS_F32 if single else _THETAS_F64
    real = np.float32 if (single or half) else np.float64
    ctx = _Ctx(real, torch_dtype_name if half else None)
    with np.errstate(over="ignore", invalid="ignore"):
        return _mexp(a, thetas, real, ctx)


def _mexp(a, thetas, real, ctx):
    norm = np.abs(a).sum(-2).max(-1).astype(real)
    if a.shape[0] > 1:  # a batch takes the degree-18 route throughout, as PyTorch's CPU kernel does
        return _t18_scaled(a, norm, real(thetas[5]), ctx)
    res = np.empty_like(a)
    lower = -1.0
    for fn, upper in zip((_t1, _t2, _t4, _t8, _t12), thetas[:5], strict=True):
        idx = np.nonzero((lower < norm) & (norm <= upper))[0]
        if idx.size:
            res[idx] = fn(a[idx], ctx)
        lower = upper
    idx = np.nonzero(norm >= thetas[4])[0]
    if idx.size:
        res[idx] = _t18_scaled(a[idx], norm[idx], real(thetas[5]), ctx)
    # NaN norms match no interval: PyTorch leaves those results unset (empty); NaN is what reaches the user here
    rest = np.isnan(norm)
    if rest.any():
        res[rest] = np.nan
    return res
