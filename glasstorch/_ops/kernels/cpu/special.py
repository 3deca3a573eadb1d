"""Special-function CPU kernels — PyTorch's ``UnaryOpsKernel.cpp``/``BinaryOpsKernel.cpp`` entries for the gamma
family (``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``, ``igamma``/``igammac``), the Bessel and modified
Bessel functions, ``airy_ai``, ``zeta``, ``erfcx``, ``ndtri``, ``log_ndtr``, ``entr``, ``sinc``, ``logit``,
``xlog1py`` and the orthogonal polynomials of ``torch.special``, whose formulas live in ``ATen/native/Math.h``.

Every kernel is structured (``out`` last, None to allocate) over one TensorIterator: integer and bool inputs
promote to the default float (except ``igamma``/``igammac``, whose iterator does not promote), the kernel's dtype
table raises PyTorch's "not implemented for" error, and meta operands return after the shape work.

Numerics (Note [Special-function precision]): where PyTorch runs a Cephes-style series whose float32 result is
within an ulp or two of the true value (modified Bessel functions, ``erfcx``, ``ndtri``, ``i0`` ...), the value
comes from scipy.special in float64, rounded once (float16/bfloat16 through float32, as PyTorch computes them in
float).  Where PyTorch's float32 formula is short and its rounding shows (``sinc``, ``entr``, ``logit``,
``trigamma``, the polynomial recurrences), or where its formula is not the true function (the Bessel functions
J0, J1, Y0, Y1: see ``bessel.py``), the same steps run in the operand's dtype.  Domain edges follow PyTorch's code, not
scipy's: ``digamma(±0)`` is ∓inf, ``zeta(x, q)`` is NaN for x < 1, ``igamma`` at a = 0 or x = inf and so on.

Invariant: kernels write only ``it.out`` (through a compute-dtype buffer when a given ``out`` has another dtype).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as _sc

from ...._core import dtype as _dt
from ...tensor_iterator import build
from . import bessel as _bessel
from .dispatch_types import FLOATING, not_implemented
from .pointwise_support import _cast_back, _cast_scratch, _in_dtype, _opmath, _quiet, cast_outputs

__all__ = [
    "lgamma_out", "digamma_out", "polygamma_out", "mvlgamma_out", "i0_out", "sinc_out", "logit_out",
    "igamma_out", "igammac_out",
    "special_entr_out", "special_erfcx_out", "special_i0e_out", "special_i1_out", "special_i1e_out",
    "special_ndtri_out", "special_log_ndtr_out", "special_airy_ai_out", "special_bessel_j0_out",
    "special_bessel_j1_out", "special_bessel_y0_out", "special_bessel_y1_out", "special_modified_bessel_i0_out",
    "special_modified_bessel_i1_out", "special_modified_bessel_k0_out", "special_modified_bessel_k1_out",
    "special_scaled_modified_bessel_k0_out", "special_scaled_modified_bessel_k1_out",
    "special_spherical_bessel_j0_out", "special_xlog1py_out", "special_zeta_out",
    "special_chebyshev_polynomial_t_out", "special_chebyshev_polynomial_u_out",
    "special_chebyshev_polynomial_v_out", "special_chebyshev_polynomial_w_out",
    "special_shifted_chebyshev_polynomial_t_out", "special_shifted_chebyshev_polynomial_u_out",
    "special_shifted_chebyshev_polynomial_v_out", "special_shifted_chebyshev_polynomial_w_out",
    "special_hermite_polynomial_h_out", "special_hermite_polynomial_he_out", "special_laguerre_polynomial_l_out",
    "special_legendre_polynomial_p_out",
]

_F64 = np.float64
_FULL = frozenset((_dt.float32, _dt.float64))  # AT_DISPATCH_FLOATING_TYPES: no Half/BFloat16 kernel
_SIMPLE_COMPLEX = FLOATING | frozenset((_dt.complex64, _dt.complex128))


# -- the shared loop ---------------------------------------------------------------------------------------------
def _pointwise(inputs, out, kname, dtypes, compute, float_op=True, reduced_steps=False):
    """One structured pointwise kernel: ``compute(*operands, dt)`` gets the operands as arrays of the compute
    dtype (the common dtype, float32 for float16/bfloat16) and returns the values, rounded here into ``out``.
    ``reduced_steps``: float16/bfloat16 operands stay in their dtype, so every step of ``compute`` rounds to it,
    as PyTorch's scalar ``c10::Half`` arithmetic does."""
    it = build((out,), inputs, int_to_float=float_op, cast_outputs=True)
    if it.is_meta:
        return it.out
    dt = it.common_dtype
    if dt not in dtypes:
        raise not_implemented(kname, dt)
    c = dt.np if reduced_steps else _opmath(dt).np
    operands = [np.asarray(_in_dtype(x, dt), dtype=c) for x in it.ins_np]
    with _quiet():
        res = np.asarray(compute(*operands, dt)).astype(c, copy=False)
        o = _cast_scratch(it.out_np, dt.np)
        np.copyto(o, res, casting="unsafe")
        _cast_back(it.out_np, o)
    return cast_outputs(it)


def _unary(kname, compute, dtypes=FLOATING):
    def kernel(self, out=None):
        return _pointwise((self,), out, kname, dtypes, compute)
    kernel.__qualname__ = kernel.__name__ = kname.removesuffix("_cpu") + "_out"
    return kernel


def _binary(kname, compute, dtypes=_FULL, float_op=True, reduced_steps=False):
    def kernel(self, other, out=None):
        return _pointwise((self, other), out, kname, dtypes, compute, float_op, reduced_steps)
    kernel.__qualname__ = kernel.__name__ = kname.removesuffix("_cpu") + "_out"
    return kernel


def _rounded(fn, x):
    """``fn`` of x evaluated in float64 and rounded to x's dtype: one step of a formula in that dtype, as correctly
    rounded as the libm call (``std::sin``, ``std::log`` ...) it stands for, where numpy's float32 SIMD loops
    can be an ulp or two away."""
    return fn(x.astype(np.result_type(x.dtype, _F64))).astype(x.dtype)


def _f64(fn):
    """A scipy.special ufunc on the compute-dtype operands: its float32 loop evaluates the double routine and rounds
    once (Note [Special-function precision]), without a float64 copy of the operands."""
    return lambda *args: fn(*args[:-1])


def _own(fn):
    """A formula of ours on the compute-dtype operand (the dtype argument unused)."""
    return lambda x, dt: fn(x)


def _fix(r, mask, value):
    """``r`` with ``value`` where ``mask`` holds (in place: ``r`` is the kernel's own result array)."""
    if mask.any():
        np.copyto(r, value, where=mask, casting="unsafe")
    return r


# -- gamma family ------------------------------------------------------------------------------------------------
def _digamma(x, dt):
    """``calc_digamma``: ∓inf at ±0 (the sign of the pole's side), NaN at the negative integers and -inf."""
    r = np.asarray(_sc.psi(x))
    zero = x == 0
    if zero.any():
        np.copyto(r, np.copysign(np.inf, -x), where=zero, casting="unsafe")
    return _fix(r, (x < 0) & (x == np.trunc(x)), np.nan)


def _trigamma(x, dt):
    """``trigamma`` in the operand's dtype: the reflection below 1/2, six recurrence steps, then the asymptotic
    series (so near a negative integer the result is large and finite, as PyTorch's)."""
    c = x.dtype.type
    x = x.copy()
    sign = np.ones_like(x)
    result = np.zeros_like(x)
    low = x < c(0.5)
    if np.any(low):
        pi = c(math.pi)
        s = _rounded(np.sin, pi * x[low])
        result[low] -= (pi * pi) / (s * s)
        sign[low] = -1
        x[low] = c(1) - x[low]
    for _ in range(6):
        result += c(1) / (x * x)
        x += c(1)
    ixx = c(1) / (x * x)
    result += (c(1) + c(1) / (c(2) * x) + ixx * (c(1 / 6) - ixx * (c(1 / 30) - ixx * c(1 / 42)))) / x
    return sign * result


def _zeta(x, q):
    """Hurwitz zeta with ``zeta``'s (Math.h) domain: inf at x == 1 and at the non-positive integers q, NaN for
    x < 1 or a non-integer x with q <= 0, NaN for q = inf; x = inf gives 1 at q == 1, inf below, NaN above."""
    x, q = np.broadcast_arrays(np.asarray(x, dtype=_F64), np.asarray(q, dtype=_F64))
    r = np.asarray(_sc.zeta(x, q), dtype=_F64)
    # x = inf: the series' terms are inf where |q + i| < 1, 1 where it is 1, else 0 (a zero sum ends in NaN)
    r = np.where(np.isposinf(x), np.where(q > 1, np.nan, np.where(q == 1, 1.0, np.inf)), r)
    r = np.where(np.isposinf(q) | np.isnan(q), np.nan, r)
    nonpos = q <= 0
    r = np.where(nonpos & (x != np.floor(x)), np.nan, r)
    r = np.where(nonpos & (q == np.floor(q)), np.inf, r)
    r = np.where(x < 1, np.nan, r)
    return np.where(x == 1, np.inf, r)


def _polygamma_n(n):
    """``calc_polygamma`` for n >= 2: (-1)^(n+1) n! zeta(n+1, x), the factorial as exp(lgamma(n+1)) in the
    operand's dtype."""
    def compute(x, dt):
        c = x.dtype.type
        fact = np.exp(c(math.lgamma(n + 1.0)))
        z = _zeta(np.float64(n + 1), x).astype(x.dtype)
        return c(1 if n % 2 else -1) * fact * z
    return compute


def polygamma_out(n, self, out=None):
    """``polygamma(n, x)``: digamma for n = 0, trigamma for n = 1, else the zeta formula (kernel names as
    PyTorch's: "digamma", "trigamma", "polygamma")."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return _pointwise((self,), out, "digamma", FLOATING, _digamma)
    if n == 1:
        return _pointwise((self,), out, "trigamma", FLOATING, _trigamma)
    return _pointwise((self,), out, "polygamma", FLOATING, _polygamma_n(n))


def _lgamma(x, dt):
    """``log|gamma(x)|``; +inf at the poles and at -inf (scipy gives -inf there)."""
    return _fix(np.asarray(_sc.gammaln(x)), np.isneginf(x), np.inf)


lgamma_out = _unary("lgamma_vml_cpu", _lgamma)
digamma_out = _unary("digamma", _digamma)


def mvlgamma_out(self, p, out=None):
    """The multivariate log-gamma ``sum_j lgamma(x - j/2), j < p``, plus ``p(p-1)/4 log(pi)``; integers promote.
    PyTorch computes the functional form and copies it into ``out`` (its cast check names the input's dtype)."""
    if self.dtype is _dt.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if out is not None:
        res_dt = _dt.get_default_dtype() if self.dtype._cat <= _dt.INT_CAT else self.dtype
        if not _dt.can_cast(res_dt, out.dtype):
            raise RuntimeError(f"mvlgamma: result type {_dt.name_of(self.dtype)} can't be cast to the desired "
                               f"output type {_dt.name_of(res_dt)}")
    return _pointwise((self,), out, "lgamma_vml_cpu", FLOATING, _mvlgamma(p))


def _mvlgamma(p):
    def compute(x, dt):
        c = x.dtype.type
        offsets = np.arange(-p * 0.5 + 0.5, 0.5, 0.5).astype(x.dtype)  # (1-p)/2 ... 0, as PyTorch's arange
        args = x[..., None] + offsets
        total = _sc.gammaln(args).sum(-1, dtype=x.dtype)
        return total + c(p * (p - 1) * math.log(math.pi) * 0.25)
    return compute


def _igamma_edges(a, x, lower):
    """``calc_igamma``/``calc_igammac`` at the edges of the domain, then scipy's regularized incomplete gamma."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=_F64), np.asarray(x, dtype=_F64))
    r = np.asarray(_sc.gammainc(a, x) if lower else _sc.gammaincc(a, x), dtype=_F64)
    one, zero = (1.0, 0.0) if lower else (0.0, 1.0)
    r = np.where(np.isinf(x), one, r)
    r = np.where(np.isinf(a), np.where(np.isinf(x), np.nan, zero), r)
    r = np.where(x == 0, zero, r)
    r = np.where(a == 0, np.where(x > 0, one, np.nan), r)
    return np.where((x < 0) | (a < 0), np.nan, r)


igamma_out = _binary("igamma_cpu", lambda a, x, dt: _igamma_edges(a, x, True), FLOATING, float_op=False)
igammac_out = _binary("igammac_cpu", lambda a, x, dt: _igamma_edges(a, x, False), FLOATING, float_op=False)


# -- Bessel, Airy, error-function relatives ----------------------------------------------------------------------
def _log_ndtr(x, dt):
    """``calc_log_ndtr`` in the operand's dtype: ``log(erfcx(-t) / 2) - t^2`` below -1, else ``log1p(-erfc(t) / 2)``
    (t = x / sqrt(2)); its gradient reads the result, so the rounding of these steps shows there."""
    c = x.dtype.type
    t = x * c(math.sqrt(0.5))
    low = _rounded(np.log, _sc.erfcx(-t) / c(2)) - t * t
    high = _rounded(np.log1p, -_sc.erfc(t) / c(2))
    return np.where(x < c(-1), low, high)

def _spherical_j0(x):
    """``sin(x) / x`` (its series below 1/2 agrees to the last bit or so), 1 at 0 and 0 at ±inf."""
    r = _rounded(np.sin, x) / x
    return _fix(_fix(r, x == 0, 1.0), np.isinf(x), 0.0)


i0_out = _unary("i0_vml_cpu", _f64(_sc.i0))
special_i0e_out = _unary("i0e_cpu", _f64(_sc.i0e))
special_i1_out = _unary("i1_cpu", _f64(_sc.i1))
special_i1e_out = _unary("i1e_cpu", _f64(_sc.i1e))
special_erfcx_out = _unary("erfcx_cpu", _f64(_sc.erfcx), _FULL)
special_ndtri_out = _unary("ndtri_cpu", _f64(_sc.ndtri), _FULL)
special_log_ndtr_out = _unary("log_ndtr_cpu", _log_ndtr, _FULL)
def _airy_ai(x):
    r = np.asarray(_sc.airy(x)[0])
    return _fix(r, np.isnan(r) & (x > 0) & np.isfinite(x), 0.0)  # scipy gives up far right (Ai is 0 there)


special_airy_ai_out = _unary("airy_ai_cpu", _f64(_airy_ai), _FULL)
special_bessel_j0_out = _unary("bessel_j0_cpu", _own(_bessel.bessel_j0), _FULL)
special_bessel_j1_out = _unary("bessel_j1_cpu", _own(_bessel.bessel_j1), _FULL)
special_bessel_y0_out = _unary("bessel_y0_cpu", _own(_bessel.bessel_y0), _FULL)
special_bessel_y1_out = _unary("bessel_y1_cpu", _own(_bessel.bessel_y1), _FULL)
special_modified_bessel_i0_out = _unary("modified_bessel_i0_cpu", _f64(_sc.i0), _FULL)
special_modified_bessel_i1_out = _unary("modified_bessel_i1_cpu", _f64(_sc.i1), _FULL)
special_modified_bessel_k0_out = _unary("modified_bessel_k0_cpu", _f64(_sc.k0), _FULL)
special_modified_bessel_k1_out = _unary("modified_bessel_k1_cpu", _f64(_sc.k1), _FULL)
special_scaled_modified_bessel_k0_out = _unary("scaled_modified_bessel_k0_cpu", _f64(_sc.k0e), _FULL)
special_scaled_modified_bessel_k1_out = _unary("scaled_modified_bessel_k1_cpu", _f64(_sc.k1e), _FULL)
special_spherical_bessel_j0_out = _unary("spherical_bessel_j0_cpu", _f64(_spherical_j0), _FULL)


# -- short formulas in the operand's dtype -----------------------------------------------------------------------
def _entr(x, dt):
    """``-x log x``; 0 at 0, -inf below, NaN stays."""
    r = -x * _rounded(np.log, x)
    r = np.where(x == 0, 0, r)
    return np.where(x < 0, -np.inf, r)


def _sinc(x, dt):
    """``sin(pi x) / (pi x)``, the product rounded first as PyTorch's; 1 at 0."""
    prod = x * x.dtype.type(math.pi)
    return _fix(np.asarray(np.sin(prod) / prod), x == 0, 1)


def _logit(eps):
    def compute(x, dt):
        c = x.dtype.type
        if eps is None:
            return np.where(x == 1, c(np.inf), np.log(x / (c(1) - x)))
        lo, hi = c(eps), c(1 - eps)
        z = np.where(x < lo, lo, np.where(x > hi, hi, x))  # NaN passes through
        return np.log(z / (c(1) - z))
    return compute


def logit_out(self, eps=None, out=None):
    """``log(x / (1 - x))``, x clamped to [eps, 1 - eps] when eps is given; float16/bfloat16 round every step."""
    return _pointwise((self,), out, "logit_cpu", FLOATING, _logit(eps), reduced_steps=True)


def _xlog1py(x, y, dt):
    """``x * log1p(y)``; 0 where x == 0 (unless y is NaN); float16/bfloat16 round log1p before the product."""
    r = x * np.log1p(y)
    r = np.where(x == 0, 0, r)
    return np.where(np.isnan(y), np.nan, r)


special_entr_out = _unary("entr_cpu", _entr)
sinc_out = _unary("sinc_cpu", _sinc, _SIMPLE_COMPLEX)
special_xlog1py_out = _binary("xlog1py_cpu", _xlog1py, FLOATING, reduced_steps=True)
special_zeta_out = _binary("zeta_cpu", lambda x, q, dt: _zeta(x, q))


# -- orthogonal polynomials (Math.h's *_polynomial_*_forward, elementwise in the operand's dtype) ----------------
def _degrees(n):
    """``static_cast<int64_t>(n)``: NaN, inf and out-of-range degrees become INT64_MIN on x86 (so give 0)."""
    n = np.asarray(n, dtype=_F64)
    ok = np.isfinite(n) & (np.abs(n) < 2.0 ** 63)
    return np.where(ok, np.trunc(np.where(ok, n, 0)), -1).astype(np.int64)


def _recurrence(n, p, q, step, skip=None):
    """Run ``r = step(k, p, q)`` for k = 2 .. n on each element (``skip``: elements answered otherwise), stopping
    where q turns NaN as the source's loops do; returns the final q (degrees below 2 keep the first one)."""
    stop = n if skip is None else np.where(skip, 1, n)
    for k in range(2, int(stop.max(initial=1)) + 1):
        live = (stop >= k) & ~np.isnan(q)
        if not live.any():
            break
        r = step(k, p, q)
        p = np.where(live, q, p)
        q = np.where(live, r, q)
    return q


def _chebyshev(kind, threshold):
    """T/U/V/W on y = x (or y = 2x - 1, shifted): the closed forms for |y| < 1 past ``threshold``, the
    three-term recurrence otherwise; ``at_one``/``at_minus_one`` are the special points as the source tests
    them (|x| == 1, or x == 1 / x == 0 for the shifted forms)."""
    def compute(y, n, at_one, at_minus_one):
        c = y.dtype.type
        nf = n.astype(y.dtype)
        two_y = y + y
        q1 = {"t": y, "u": two_y, "v": two_y - c(1), "w": two_y + c(1)}[kind]
        closed = (n > threshold) & (np.abs(y) < c(1))
        q = _recurrence(n, np.ones_like(y), q1, lambda k, p, q: two_y * q - p, closed | at_one | at_minus_one)
        r = np.where(n == 0, c(1), q)
        if closed.any():
            r = np.where(closed, _chebyshev_closed(kind, y, nf, n), r)
        odd = n % 2 == 1
        one_val = {"t": c(1), "u": nf + c(1), "v": c(1), "w": nf + nf + c(1)}[kind]
        minus_val = {"t": np.where(odd, c(-1), c(1)), "u": np.where(odd, -(nf + c(1)), nf + c(1)),
                     "v": np.where(odd, -(nf + nf + c(1)), nf + nf + c(1)), "w": np.where(odd, c(-1), c(1))}[kind]
        r = np.where(at_one, one_val, np.where(at_minus_one, minus_val, r))
        return np.where(n < 0, c(0), r)
    return compute


def _chebyshev_closed(kind, y, nf, n):
    c = y.dtype.type
    theta = _rounded(np.arccos, y)
    odd = n % 2 == 1
    sin, cos = (lambda v: _rounded(np.sin, v)), (lambda v: _rounded(np.cos, v))
    if kind == "t":
        return cos(nf * theta)
    if kind == "u":
        s = sin(theta)
        return np.where(s != 0, sin((nf + c(1)) * theta) / s, (nf + c(1)) * cos((nf + c(1)) * theta) / y)
    half = theta / c(2)
    if kind == "v":
        return np.where(sin(half) != c(1), cos((nf + c(0.5)) * theta) / cos(half),
                        np.where(odd, -(nf + nf + c(1)), nf + nf + c(1)))
    return np.where(cos(half) != c(1), sin((nf + c(0.5)) * theta) / sin(half),
                    np.where(y > 0, nf + nf + c(1), np.where(odd, c(-1), c(1))))


def _chebyshev_kernel(kind, shifted):
    threshold = {"t": 6, "u": 8, "v": 8, "w": 8}[kind] if not shifted else {"t": 6, "u": 6, "v": 6, "w": 4}[kind]
    core = _chebyshev(kind, threshold)

    def compute(x, n, dt):
        x, nd = np.broadcast_arrays(x, _degrees(n))
        c = x.dtype.type
        if shifted:
            return core(x + x - c(1), nd, x == c(1), x == c(0))
        return core(x, nd, x == c(1), x == c(-1))
    prefix = "shifted_" if shifted else ""
    return _binary(f"{prefix}chebyshev_polynomial_{kind}_cpu", compute)


def _hermite(physicists):
    """H_n (physicists') or He_n (probabilists'); NaN past degree 128 (float) / 512 (double)."""
    def compute(x, n, dt):
        x, n = np.broadcast_arrays(x, _degrees(n))
        c = x.dtype.type
        limit = 128 if x.dtype == np.float32 else 512
        if physicists:
            two_x = x + x
            q = _recurrence(n, np.ones_like(x), two_x, lambda k, p, q: two_x * q - c(2 * (k - 1)) * p, n > limit)
            first = two_x
        else:
            q = _recurrence(n, np.ones_like(x), x, lambda k, p, q: x * q - c(k - 1) * p, n > limit)
            first = x
        r = np.where(n > limit, c(np.nan), q)
        r = np.where(n == 1, first, r)
        r = np.where(n == 0, c(1), r)
        return np.where(n < 0, c(0), r)
    return compute


def _laguerre(x, n, dt):
    x, n = np.broadcast_arrays(x, _degrees(n))
    c = x.dtype.type
    one_minus = c(1) - x
    q = _recurrence(n, np.ones_like(x), one_minus,
                    lambda k, p, q: ((c(2 * (k - 1)) + one_minus) * q - c(k - 1) * p) / c(k), x == 0)
    r = np.where(n == 0, c(1), q)
    r = np.where(np.abs(x) == 0, c(1), r)
    return np.where(n < 0, c(0), r)


def _legendre(x, n, dt):
    x, n = np.broadcast_arrays(x, _degrees(n))
    c = x.dtype.type
    unit = np.abs(x) == c(1)
    q = _recurrence(n, np.ones_like(x), x, lambda k, p, q: (c(2 * k - 1) * x * q - c(k - 1) * p) / c(k), unit)
    r = np.where(n == 0, c(1), q)
    r = np.where(unit, np.where((x > 0) | (n % 2 == 0), c(1), c(-1)), r)
    return np.where(n < 0, c(0), r)


special_chebyshev_polynomial_t_out = _chebyshev_kernel("t", False)
special_chebyshev_polynomial_u_out = _chebyshev_kernel("u", False)
special_chebyshev_polynomial_v_out = _chebyshev_kernel("v", False)
special_chebyshev_polynomial_w_out = _chebyshev_kernel("w", False)
special_shifted_chebyshev_polynomial_t_out = _chebyshev_kernel("t", True)
special_shifted_chebyshev_polynomial_u_out = _chebyshev_kernel("u", True)
special_shifted_chebyshev_polynomial_v_out = _chebyshev_kernel("v", True)
special_shifted_chebyshev_polynomial_w_out = _chebyshev_kernel("w", True)
special_hermite_polynomial_h_out = _binary("hermite_polynomial_h_cpu", _hermite(True))
special_hermite_polynomial_he_out = _binary("hermite_polynomial_he_cpu", _hermite(False))
special_laguerre_polynomial_l_out = _binary("laguerre_polynomial_l_cpu", _laguerre)
special_legendre_polynomial_p_out = _binary("legendre_polynomial_p_cpu", _legendre)
