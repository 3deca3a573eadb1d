"""OpInfo entries: the gamma/erf family and torch.special (glasstorch/_ops/native_functions/special.yaml).

Samples span each function's domain and its edges (poles, zeros, NaN, ±inf, signed zeros); integer and bool
inputs promote to the default float, and float16/bfloat16 either compute (in float) or raise torch's
"not implemented for" error, which the harness compares.  The torch.special aliases (``special.erf`` is ``erf``)
run the same samples under their namespaced names.
"""

from __future__ import annotations

import math

from opinfo import DType, ErrorSample, OpInfo, Sample, T, binary_samples, unary_samples

NAN, INF = math.nan, math.inf
FLOAT_OP = ("float32", "float64", "float16", "bfloat16", "int64", "bool")
FULL_ONLY = ("float32", "float64", "float16", "int64", "bool")  # float16 raises as torch's kernels do
EDGES = (NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 30.0, -30.0)


def _unary(low=-5.0, high=5.0, edges=EDGES):
    def samples(dtype):
        yield from unary_samples(dtype, low, high)
        if dtype.startswith(("float", "bfloat", "complex")):
            yield Sample((T((len(edges),), values=edges),), name="edges")
    return samples


def _special_unary(name, aten=None, low=-5.0, high=5.0, dtypes=FULL_ONLY, grad=False, **kw):
    base = f"special_{name}"
    return OpInfo(f"special.{name}", aten=aten or (base, base + ".out"), samples=_unary(low, high), dtypes=dtypes,
                  out=True, grad=grad, **kw)


def _std_unary(name, low=-5.0, high=5.0, dtypes=FLOAT_OP, samples=None, **kw):
    aten = (name, name + "_", name + ".out")
    return OpInfo(name, aten=aten, samples=samples or _unary(low, high), dtypes=dtypes, method=True, inplace=True,
                  out=True, **kw)


def _alias(name, target_samples, aten, dtypes=FLOAT_OP, **kw):
    return OpInfo(f"special.{name}", aten=aten, samples=target_samples, dtypes=dtypes, out=True, **kw)


# -- gamma family --------------------------------------------------------------------------------------------
def _polygamma_samples(dtype):
    for n in (0, 1, 2, 3):
        for s in _unary(-4.0, 4.0, EDGES + (-1.0, -3.0, 1e-30))(dtype):
            yield Sample((n,) + s.args, name=f"n={n} {s.name}")


def _polygamma_grad_samples(dtype):
    for n in (0, 1, 3):
        yield Sample((n, T((3, 4), low=0.5, high=4.0)), name=f"n={n}")


def _polygamma_inplace_samples(dtype):
    for n in (0, 1, 2):
        yield Sample((T((3, 4), low=-3.0, high=4.0), n), name=f"n={n}")


def _mvlgamma_samples(dtype):
    for p in (1, 3, 5):
        yield Sample((T((3, 4), low=2.5, high=6.0), p), name=f"p={p}")
        yield Sample((T((2, 3), low=2.5, high=6.0, layout="transposed"), p), name=f"p={p} transposed")
    if dtype.startswith("float"):
        yield Sample((T((4,), values=(0.3, 1.0, INF, NAN)), 2), name="below (p-1)/2 and edges")


def _mvlgamma_errors():
    return [ErrorSample((T((2,), dtype="bool"), 1), name="bool"),
            ErrorSample((T((2,)), 0), name="p < 1"),
            ErrorSample((T((2,), dtype="int64"), 2), name="int in place", form="inplace")]


def _polygamma_errors():
    return [ErrorSample((-1, T((2,))), name="negative n")]


def _igamma_samples(dtype):
    yield from binary_samples(dtype, low=0.0, high=6.0, scalars=())
    if dtype.startswith(("float", "bfloat")):
        a = (0.0, 0.0, 1.0, -1.0, INF, 2.0, 1.0, INF, NAN, 0.5, 30.0)
        x = (0.0, 1.0, 0.0, 1.0, 1.0, INF, -1.0, INF, 1.0, NAN, 29.0)
        yield Sample((T((len(a),), values=a), T((len(x),), values=x)), name="edges")


def _gamma_inc_op(name, alias):
    ops = (OpInfo(name, aten=(name, name + "_", name + ".out"), samples=_igamma_samples,
                  dtypes=("float32", "float64", "float16", "bfloat16", "int64", "bool"), method=True, inplace=True,
                  out=True, grad=False),
           OpInfo(f"special.{alias}", aten=(f"special_{alias}", f"special_{alias}.out"), samples=_igamma_samples,
                  dtypes=("float32", "float64", "int64"), out=True, grad=False))
    return ops


# -- orthogonal polynomials ----------------------------------------------------------------------------------
def _poly_samples(dtype):
    yield Sample((T((3, 4), low=-1.5, high=1.5), T((3, 4), dtype="int64", low=0, high=12, seed=3)), name="int n")
    # the closed forms past degree 8 divide by sin/cos of acos(x) / 2: near x = ±1 an ulp of acos moves them ~1e-5
    yield Sample((T((3, 4), low=-0.99, high=0.99), T((4,), dtype="int64", low=9, high=30, seed=4)), name="large n",
                 rtol=1e-4)
    yield Sample((T((2, 3), low=-2.0, high=2.0, layout="transposed"), 5), name="n scalar")
    yield Sample((T((3, 4), low=-3.0, high=3.0), -1), name="negative n")
    yield Sample((0.25, T((5,), dtype="int64", low=0, high=10)), name="x scalar")
    yield Sample((T((3, 4), low=-1.5, high=1.5), T((3, 4), dtype="float32", low=0, high=9, seed=5)),
                 name="float n")
    if dtype.startswith("float"):
        # (x = NaN with n >= 2 is left out: most of torch's recurrences then return an uninitialised value)
        x = (1.0, -1.0, 0.0, 0.5, NAN, INF, -INF, 1.0, -1.0, 0.0, 0.5, 2.0)
        n = (3.0, 3.0, 4.0, NAN, 1.0, 2.0, 3.0, 14.0, 15.0, 11.0, INF, 1.0)
        yield Sample((T((len(x),), values=x), T((len(n),), values=n)), name="edges")


def _poly(name):
    base = f"special_{name}"
    aten = (base, base + ".x_scalar", base + ".n_scalar", base + ".out", base + ".x_scalar_out", base + ".n_scalar_out")
    return OpInfo(f"special.{name}", aten=aten, samples=_poly_samples, dtypes=FULL_ONLY, out=True, grad=False)


POLYNOMIALS = [_poly(f"{shift}chebyshev_polynomial_{k}") for shift in ("", "shifted_") for k in "tuvw"] + [
    _poly("hermite_polynomial_h"), _poly("hermite_polynomial_he"), _poly("laguerre_polynomial_l"),
    _poly("legendre_polynomial_p")]


# -- xlog1py, zeta, logit, sinc ------------------------------------------------------------------------------
def _xlog1py_samples(dtype):
    yield from binary_samples(dtype, low=-0.9, high=5.0, scalars=(2, 0.5))
    if dtype.startswith(("float", "bfloat")):
        x, y = (0.0, 0.0, 1.0, 2.0, 0.0, -1.0), (-1.0, NAN, -1.0, NAN, 3.0, 2.0)
        yield Sample((T((6,), values=x), T((6,), values=y)), name="zeros and nan")
    yield Sample((3, T((3, 4), low=-0.9, high=4.0)), name="scalar self")


def _zeta_samples(dtype):
    yield Sample((T((3, 4), low=1.1, high=6.0), T((3, 4), low=0.2, high=5.0, seed=1)), name="3x4")
    yield Sample((T((3, 4), low=1.1, high=6.0), T((4,), low=0.2, high=5.0, seed=1)), name="broadcast")
    yield Sample((T((3, 4), low=1.1, high=6.0), 2.0), name="scalar q")
    yield Sample((3.0, T((3, 4), low=0.2, high=5.0)), name="scalar x")
    if dtype.startswith("float"):
        x = (1.0, 0.5, 2.0, 2.0, 2.0, 3.0, INF, INF, INF, NAN, 4.0)
        q = (1.0, 1.0, -1.0, -1.5, 0.0, INF, 2.0, 1.0, 0.5, 1.0, -2.5)
        yield Sample((T((len(x),), values=x), T((len(q),), values=q)), name="edges")


def _logit_samples(dtype):
    yield from _unary(0.0, 1.0, (0.0, 1.0, -0.5, 1.5, NAN, 0.5, 1e-8))(dtype)
    yield Sample((T((3, 4), low=-0.2, high=1.2),), {"eps": 0.1}, name="eps=0.1")
    yield Sample((T((3, 4), low=-0.2, high=1.2),), {"eps": 0.0}, name="eps=0")


def _logit_grad_samples(dtype):
    yield Sample((T((3, 4), low=0.05, high=0.95),))
    yield Sample((T((3, 4), low=0.05, high=0.95),), {"eps": 0.2})


def _sinc_samples(dtype):
    yield from _unary(-3.0, 3.0, (0.0, -0.0, 1.0, -2.0, 0.5, 1e3 + 0.3, NAN, INF))(dtype)


def _positive(low=0.5, high=5.0):
    def samples(dtype):
        yield Sample((T((3, 4), low=low, high=high),))
        yield Sample((T((5,), low=low, high=high, layout="strided"),))
    return samples


GAMMA = [
    _std_unary("lgamma", low=-5.0, high=5.0, grad_samples=_positive(-4.5, 5.0)),
    _std_unary("digamma", low=-5.0, high=5.0, grad_samples=_positive(0.5, 5.0)),
    OpInfo("polygamma", aten=("polygamma", "polygamma.out"), samples=_polygamma_samples, dtypes=FLOAT_OP, method=True,
           out=True, grad_samples=_polygamma_grad_samples, errors=_polygamma_errors),
    OpInfo("Tensor.polygamma_", aten=("polygamma_",), samples=_polygamma_inplace_samples,
           dtypes=("float32", "float64", "int64"), function=False, method=True, method_name="polygamma_", grad=False),
    OpInfo("mvlgamma", aten=("mvlgamma", "mvlgamma_", "mvlgamma.out"), samples=_mvlgamma_samples,
           dtypes=("float32", "float64", "float16", "int64"), method=True, inplace=True, out=True,
           errors=_mvlgamma_errors),
    *_gamma_inc_op("igamma", "gammainc"),
    *_gamma_inc_op("igammac", "gammaincc"),
]

# torch's own float64 Bessel and Airy series are good to about 1e-6 (its OpInfos: precisionOverride 1e-5)
_BESSEL_ATOL = 1e-5

BESSEL = [
    _std_unary("i0", low=-10.0, high=10.0),
    _special_unary("i0e", low=-10.0, high=10.0, dtypes=FLOAT_OP, grad=True),
    _special_unary("i1", low=-10.0, high=10.0, dtypes=FLOAT_OP, grad=True),
    _special_unary("i1e", low=-10.0, high=10.0, dtypes=FLOAT_OP, grad=True),
    _special_unary("bessel_j0", low=-20.0, high=20.0, atol=_BESSEL_ATOL),
    _special_unary("bessel_j1", low=-20.0, high=20.0, atol=_BESSEL_ATOL),
    _special_unary("bessel_y0", low=0.0, high=20.0, atol=_BESSEL_ATOL),
    _special_unary("bessel_y1", low=0.0, high=20.0, atol=_BESSEL_ATOL),
    _special_unary("modified_bessel_i0", low=-10.0, high=10.0),
    _special_unary("modified_bessel_i1", low=-10.0, high=10.0),
    _special_unary("modified_bessel_k0", low=0.0, high=10.0),
    _special_unary("modified_bessel_k1", low=0.0, high=10.0),
    _special_unary("scaled_modified_bessel_k0", low=0.0, high=10.0),
    _special_unary("scaled_modified_bessel_k1", low=0.0, high=10.0),
    _special_unary("spherical_bessel_j0", low=-10.0, high=10.0),
    _special_unary("airy_ai", low=-10.0, high=5.0, atol=_BESSEL_ATOL),
]

ERROR_FAMILY = [
    _special_unary("erfcx", low=-5.0, high=20.0, grad=True),
    _special_unary("ndtri", low=0.0, high=1.0, grad=True, grad_samples=_positive(0.05, 0.95)),
    _special_unary("log_ndtr", low=-8.0, high=5.0, grad=True),
    _special_unary("entr", low=-1.0, high=5.0, dtypes=FLOAT_OP, grad=True, grad_samples=_positive(0.1, 5.0)),
    _alias("ndtr", _unary(-5.0, 5.0), ("special_ndtr", "special_ndtr.out")),
]

OTHER = [
    OpInfo("logit", aten=("logit", "logit_", "logit.out"), samples=_logit_samples, dtypes=FLOAT_OP, method=True,
           inplace=True, out=True, grad_samples=_logit_grad_samples),
    _std_unary("sinc", dtypes=FLOAT_OP + ("complex64",), samples=_sinc_samples),
    _std_unary("deg2rad", low=-400.0, high=400.0, dtypes=FLOAT_OP,
               errors=lambda: [ErrorSample((T((2,), dtype="complex64"),), name="complex")]),
    _std_unary("rad2deg", dtypes=FLOAT_OP, errors=lambda: [ErrorSample((T((2,), dtype="complex64"),), name="complex")]),
    OpInfo("special.xlog1py", aten=("special_xlog1py", "special_xlog1py.self_scalar", "special_xlog1py.other_scalar",
                                    "special_xlog1py.out", "special_xlog1py.self_scalar_out",
                                    "special_xlog1py.other_scalar_out"),
           samples=_xlog1py_samples, dtypes=FLOAT_OP, out=True),
    OpInfo("special.zeta", aten=("special_zeta", "special_zeta.self_scalar", "special_zeta.other_scalar",
                                 "special_zeta.out", "special_zeta.self_scalar_out", "special_zeta.other_scalar_out"),
           samples=_zeta_samples, dtypes=FULL_ONLY, out=True, grad=False),
]


# -- the torch.special aliases -------------------------------------------------------------------------------
def _simple_alias(name, target, low=-5.0, high=5.0):
    return _alias(name, _unary(low, high), (f"special_{name}", f"special_{name}.out"), grad=False,
                  method_name=target)


ALIASES = [
    _simple_alias("expm1", "expm1"), _simple_alias("exp2", "exp2"), _simple_alias("psi", "digamma"),
    _simple_alias("digamma", "digamma"), _simple_alias("gammaln", "lgamma"), _simple_alias("erf", "erf"),
    _simple_alias("erfc", "erfc"), _simple_alias("erfinv", "erfinv", -1.0, 1.0), _simple_alias("i0", "i0"),
    _simple_alias("expit", "sigmoid"), _simple_alias("sinc", "sinc"), _simple_alias("log1p", "log1p", -1.0, 5.0),
    _alias("polygamma", _polygamma_grad_samples, ("special_polygamma", "special_polygamma.out"), grad=False),
    _alias("multigammaln", _mvlgamma_samples, ("special_multigammaln", "special_multigammaln.out"), grad=False),
    _alias("logit", _logit_samples, ("special_logit", "special_logit.out"), grad=False),
    _alias("round", lambda dtype: [Sample((T((3, 4), low=-50, high=50),), {"decimals": d}) for d in (0, 1, -1)],
           ("special_round", "special_round.out"), grad=False),
    _alias("logsumexp", lambda dtype: [Sample((T((3, 4)), 1)), Sample((T((3, 4)), (0, 1), True))],
           ("special_logsumexp", "special_logsumexp.out"), dtypes=("float32", "float64"), grad=False),
    _alias("xlogy", _xlog1py_samples, ("special_xlogy", "special_xlogy.self_scalar", "special_xlogy.other_scalar",
                                       "special_xlogy.out", "special_xlogy.self_scalar_out",
                                       "special_xlogy.other_scalar_out"), grad=False),
    OpInfo("special.softmax", aten=("special_softmax",),
           samples=lambda dtype: [Sample((T((3, 4)), 1)), Sample((T((3, 4)), 0, DType("float64")))],
           dtypes=("float32", "float64"), grad=False),
    OpInfo("special.log_softmax", aten=("special_log_softmax",),
           samples=lambda dtype: [Sample((T((3, 4)), 1)), Sample((T((3, 4)), 0), {"dtype": DType("float64")})],
           dtypes=("float32", "float64"), grad=False),
]

OPS = GAMMA + BESSEL + ERROR_FAMILY + OTHER + POLYNOMIALS + ALIASES
