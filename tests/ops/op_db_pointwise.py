"""OpInfo entries: pointwise math (glasstorch/_ops/native_functions/pointwise.yaml).

Samples cover broadcasting, non-contiguous and 0-dim/empty operands, Python scalars, mixed dtypes and the
special values (NaN, +-inf, -0.0, rounding ties); error samples pin PyTorch's exception type and message.
Integer/bool dtypes run too: where PyTorch raises ("not implemented for 'Bool'", integer division by
zero, in-place results that cannot be cast back), the harness checks that glasstorch raises the same.
"""

from __future__ import annotations

import math

from opinfo import ALL, ALL_FLOAT, BINARY_SHAPES, INTS, ErrorSample, OpInfo, Sample, T, binary_samples, unary_samples

NAN, INF = math.nan, math.inf
# ops that promote integers to the default float treat every integer dtype alike: two of them suffice
FLOAT_OP = ALL_FLOAT + ("int64", "uint8", "bool")
SPECIAL = (NAN, INF, -INF, 0.0, -0.0, 1.5, -2.5, 0.5)


def _special(dtype, n=1):
    """NaN/inf/signed-zero operands (floating dtypes only: NaN has no integer value)."""
    if dtype in ALL_FLOAT:
        vals = SPECIAL
        yield Sample(tuple(T((len(vals),), values=vals[i:] + vals[:i]) for i in range(n)), name="special")


# -- unary ---------------------------------------------------------------------------------------------------
def _unary(low=-5.0, high=5.0):
    def samples(dtype):
        yield from unary_samples(dtype, low, high)
        yield from _special(dtype)
    return samples


def _round_samples(dtype):
    yield from _unary()(dtype)
    if dtype in ALL_FLOAT:
        yield Sample((T((8,), values=(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, -3.51)),), name="ties")
    for d in (0, 1, 2, -1):
        yield Sample((T((3, 4), low=-50, high=50),), {"decimals": d}, name=f"decimals={d}")
    yield Sample((T((3, 4), layout="transposed", low=-50, high=50),), {"decimals": 1}, name="decimals transposed")
    yield Sample((T((), low=-50, high=50),), {"decimals": -1}, name="decimals 0-dim")


def _nan_to_num_samples(dtype):
    yield from _unary()(dtype)
    yield Sample((T((3, 4)),), {"nan": 1.0, "posinf": 100.0, "neginf": -100.0}, name="kwargs")
    if dtype in ALL_FLOAT:
        yield Sample((T((8,), values=SPECIAL),), {"nan": 2.0}, name="nan=2")
        yield Sample((T((8,), values=SPECIAL), 0.5, 1e30, -1e30), name="huge replacement")


def _unary_op(name, aten, dtypes=ALL, low=-5.0, high=5.0, samples=None, **kw):
    return OpInfo(name, aten=aten, samples=samples or _unary(low, high), dtypes=dtypes, method=True, inplace=True,
                  out=True, **kw)


def _std_unary(name, **kw):
    return _unary_op(name, (name, name + "_", name + ".out"), **kw)


UNARY = [
    _std_unary("abs"),
    _std_unary("neg", errors=lambda: [ErrorSample((T((2,), dtype="bool"),), name="bool")]),
    _std_unary("sign"),
    _std_unary("sgn"),
    _std_unary("exp", dtypes=FLOAT_OP),
    _std_unary("exp2", dtypes=FLOAT_OP),
    _std_unary("expm1", dtypes=FLOAT_OP),
    _std_unary("log", low=0.0, dtypes=FLOAT_OP),
    _std_unary("log2", low=0.0, dtypes=FLOAT_OP),
    _std_unary("log10", low=0.0, dtypes=FLOAT_OP),
    _std_unary("log1p", low=-1.0, dtypes=FLOAT_OP),
    _std_unary("sqrt", low=0.0, dtypes=FLOAT_OP),
    _std_unary("rsqrt", low=0.0, dtypes=FLOAT_OP),
    _std_unary("reciprocal", dtypes=FLOAT_OP),
    _std_unary("sin", dtypes=FLOAT_OP),
    _std_unary("cos", dtypes=FLOAT_OP),
    _std_unary("tan", dtypes=FLOAT_OP),
    _std_unary("asin", low=-1.0, high=1.0, dtypes=FLOAT_OP),
    _std_unary("acos", low=-1.0, high=1.0, dtypes=FLOAT_OP),
    _std_unary("atan", dtypes=FLOAT_OP),
    _std_unary("sinh", dtypes=FLOAT_OP),
    _std_unary("cosh", dtypes=FLOAT_OP),
    _std_unary("tanh", dtypes=FLOAT_OP),
    _std_unary("asinh", dtypes=FLOAT_OP),
    _std_unary("acosh", low=1.0, high=6.0, dtypes=FLOAT_OP),
    _std_unary("atanh", low=-1.0, high=1.0, dtypes=FLOAT_OP),
    _std_unary("sigmoid", low=-20.0, high=20.0, dtypes=FLOAT_OP),
    _std_unary("erf", low=-4.0, high=4.0, dtypes=FLOAT_OP),
    _std_unary("erfc", low=-4.0, high=6.0, dtypes=FLOAT_OP),
    _std_unary("erfinv", low=-1.0, high=1.0, dtypes=FLOAT_OP),
    _std_unary("floor"),
    _std_unary("ceil"),
    _std_unary("trunc"),
    _std_unary("frac"),
    _unary_op("round", ("round", "round.decimals", "round_", "round_.decimals", "round.out", "round.decimals_out"),
              samples=_round_samples),
    _unary_op("square", ("square", "square_", "square.out")),
    OpInfo("positive", aten=("positive",), samples=_unary(), dtypes=ALL, method=True,
           errors=lambda: [ErrorSample((T((2,), dtype="bool"),), name="bool")]),
    _std_unary("bitwise_not", dtypes=ALL),
    _std_unary("logical_not", dtypes=ALL),
    OpInfo("isnan", aten=("isnan", "isnan.out"), samples=_unary(), dtypes=ALL, method=True,
           errors=lambda: [ErrorSample((T((2,)),), {"out": T((2,), dtype="bool")}, name="no out=")]),
    OpInfo("isinf", aten=("isinf", "isinf.out"), samples=_unary(), dtypes=ALL, method=True),
    OpInfo("isfinite", aten=("isfinite",), samples=_unary(), dtypes=ALL, method=True),
    _unary_op("nan_to_num", ("nan_to_num", "nan_to_num_", "nan_to_num.out"), samples=_nan_to_num_samples,
              errors=lambda: [ErrorSample((T((2,)),), {"out": T((2,), dtype="float64")}, name="out dtype")]),
]


# -- binary arithmetic ---------------------------------------------------------------------------------------
def _binary(scalars=(2, -1.5, True), low=-5.0, high=5.0, special=True):
    def samples(dtype):
        yield from binary_samples(dtype, low, high, scalars)
        if special:
            yield from _special(dtype, 2)
    return samples


def _add_samples(dtype):
    yield from _binary()(dtype)
    yield Sample((T((3, 4)), T((4,), seed=1)), {"alpha": 2}, name="alpha=2")
    yield Sample((T((3, 4)), 3), {"alpha": -1}, name="scalar alpha=-1")
    yield Sample((T((3, 4)), T((3, 4), seed=1)), {"alpha": 0.5}, name="alpha=0.5")
    yield Sample((T((3, 4)), T((3, 4), seed=1)), {"alpha": True}, name="alpha=True")


def _divisor_samples(dtype, scalars=(2, -3, 2.5, True)):
    """Integer divisors away from zero (zero divisors: see the 'zero' samples)."""
    yield Sample((T((3, 4), low=-9, high=9), T((3, 4), low=1, high=6, seed=1)), name="positive divisor")
    if dtype != "uint8":
        yield Sample((T((3, 4), low=-9, high=9), T((4,), low=-6, high=-1, seed=1)), name="negative divisor")
    yield Sample((T((2, 3, 4), low=-9, high=9, layout="transposed"), T((3, 1), low=1, high=6, seed=1)),
                 name="broadcast")
    yield Sample((T((), low=-9, high=9), T((3,), low=1, high=6, seed=1)), name="0-dim")
    yield Sample((T((0, 3)), T((3,), low=1, high=6, seed=1)), name="empty")
    yield Sample((T((3, 6), low=-9, high=9, layout="strided"), T((3, 6), low=1, high=4, seed=1)), name="strided")
    for s in scalars:
        yield Sample((T((3, 4), low=-9, high=9), s), name=f"scalar {s!r}")
    yield Sample((T((3, 4), low=-9, high=9), T((3, 4), dtype="float32", low=1, high=6, seed=2)), name="mixed",
                 skip_inplace=True)
    yield Sample((T((3, 4), low=-9, high=9), T((3, 4), low=0, high=1, seed=1)), name="zero")
    yield Sample((T((3, 4), low=-9, high=9), 0), name="scalar zero")
    yield from _special(dtype, 2)


def _div_samples(dtype):
    yield from _divisor_samples(dtype)
    for mode in ("trunc", "floor", None):
        yield Sample((T((3, 4), low=-9, high=9), T((3, 4), low=1, high=6, seed=1)), {"rounding_mode": mode},
                     name=f"rounding_mode={mode}")
        yield Sample((T((3, 4), low=-9, high=9), -4), {"rounding_mode": mode}, name=f"scalar rounding_mode={mode}")
        yield Sample((T((3, 4), low=-60, high=60), 0.37), {"rounding_mode": mode}, name=f"small scalar {mode}")
        yield Sample((T((3, 4), low=-60, high=60), T((), dtype="float64", low=0.1, high=0.5, seed=3)),
                     {"rounding_mode": mode}, name=f"0-dim float64 {mode}", skip_inplace=True)
    for sp in _special(dtype, 2):
        for mode in ("trunc", "floor"):
            yield Sample(sp.args, {"rounding_mode": mode}, name=f"special {mode}")


def _remainder_samples(dtype):
    yield from _divisor_samples(dtype)
    yield Sample((7, T((3, 4), low=1, high=6)), name="scalar self", skip_inplace=True, skip_out=True)


def _pow_samples(dtype):
    yield Sample((T((3, 4), low=-3, high=3), T((3, 4), low=0, high=4, seed=1)), name="tensor exponent")
    yield Sample((T((3, 4), low=-3, high=3), T((4,), low=-3, high=3, seed=1)), name="negative tensor exponent")
    yield Sample((T((2, 3, 4), low=0, high=3, layout="transposed"), T((3, 1), low=0, high=3, seed=1)), name="bcast")
    yield Sample((T((), low=1, high=3), T((3,), low=0, high=3, seed=1)), name="0-dim base")
    yield Sample((T((0, 3)), T((3,), low=0, high=3, seed=1)), name="empty")
    yield Sample((T((3, 6), low=0, high=3, layout="strided"), T((3, 6), low=0, high=3, seed=1)), name="strided")
    for e in (2, 3, 0, 1, -1, -2, 0.5, -0.5, 1.7, -1.3, True, False, 2.0):
        yield Sample((T((3, 4), low=0, high=4), e), name=f"exponent {e!r}")
    yield Sample((T((3, 4), low=-4, high=4), 3), name="odd exponent, negative base")
    for b in (2, 1, 2.5, -2, True):
        yield Sample((b, T((3, 4), low=0, high=4)), name=f"scalar base {b!r}", skip_inplace=True)
    yield Sample((T((3, 4), low=0, high=3), T((3, 4), dtype="float32", low=0, high=3, seed=2)), name="mixed",
                 skip_inplace=True)
    yield from _special(dtype, 2)


def _xlogy_samples(dtype):
    yield from _binary(scalars=(2, 0, 0.5))(dtype)
    if dtype in ALL_FLOAT:
        yield Sample((T((6,), values=(0.0, 0.0, 1.0, 2.0, 0.0, -1.0)), T((6,), values=(0.0, NAN, 0.0, NAN, 3.0, 2.0))),
                     name="zeros and nan")
    yield Sample((3, T((3, 4))), name="scalar self", skip_inplace=True)


def _heaviside_samples(dtype):
    yield Sample((T((3, 4), low=-2, high=2), T((3, 4), seed=1)), name="same shape")
    yield Sample((T((2, 3, 4), low=-2, high=2, layout="transposed"), T((3, 1), seed=1)), name="broadcast")
    yield Sample((T(()), T((3,), seed=1)), name="0-dim")
    if dtype in ALL_FLOAT:
        yield Sample((T((5,), values=(0.0, -0.0, 1.5, -1.5, NAN)), T((5,), seed=1)), name="zeros and nan")


def _heaviside_errors():
    return [ErrorSample((T((2,), dtype="float32"), T((2,), dtype="float64")), name="dtype mix"),
            ErrorSample((T((2,), dtype="float32"), T((2,), dtype="float32")), {"out": T((2,), dtype="float64")},
                        name="out dtype"),
            ErrorSample((T((2,)), 0.5), name="number values")]


def _binop(name, aten, samples, dtypes=ALL, method=True, inplace=True, out=True, **kw):
    return OpInfo(name, aten=aten, samples=samples, dtypes=dtypes, method=method, inplace=inplace, out=out, **kw)


_TYPE_ERR = [ErrorSample((T((2,)), 2), name="number other")]

BINARY = [
    _binop("add", ("add.Tensor", "add.Scalar", "add_.Tensor", "add_.Scalar", "add.out", "add.Scalar_out"),
           _add_samples,
           errors=lambda: [ErrorSample((T((2,)), T((3,))), name="broadcast"),
                           ErrorSample((T((2,), dtype="int64"), 1.5), form="inplace", name="cast"),
                           ErrorSample((T((2,), dtype="int64"), 1), {"alpha": 1.5}, name="float alpha"),
                           ErrorSample((T((2,), dtype="int64"), 1), {"alpha": True}, name="bool alpha"),
                           ErrorSample((T((2,)), 1), {"alpha": 1j}, name="complex alpha"),
                           ErrorSample((T((3,)), T((2, 3))), form="inplace", name="in-place shape")]),
    _binop("sub", ("sub.Tensor", "sub.Scalar", "sub_.Tensor", "sub_.Scalar", "sub.out", "sub.Scalar_out"),
           _add_samples,
           errors=lambda: [ErrorSample((T((2,), dtype="bool"), T((2,), dtype="bool")), name="bool bool"),
                           ErrorSample((T((2,)), True), name="bool scalar"),
                           ErrorSample((T((2,), dtype="bool"), T((2,))), name="bool tensor")]),
    _binop("rsub", ("rsub.Tensor", "rsub.Scalar", "rsub.Tensor_out", "rsub.Scalar_out"), _add_samples,
           method=False, inplace=False, out=False),
    _binop("mul", ("mul.Tensor", "mul.Scalar", "mul_.Tensor", "mul_.Scalar", "mul.out", "mul.Scalar_out"), _binary()),
    _binop("div", ("div.Tensor", "div.Tensor_mode", "div.Scalar_mode", "div.Scalar", "div_.Tensor",
                   "div_.Tensor_mode", "div_.Scalar_mode", "div_.Scalar", "div.out", "div.out_mode", "div.Scalar_out",
                   "div.Scalar_mode_out"), _div_samples,
           errors=lambda: [ErrorSample((T((2,)), T((2,))), {"rounding_mode": "round"}, name="bad mode"),
                           ErrorSample((T((2,), dtype="int64"), 2), form="inplace", name="int in-place")]),
    _binop("true_divide", ("true_divide.Tensor", "true_divide.Scalar", "true_divide_.Tensor", "true_divide_.Scalar",
                           "true_divide.out"), _divisor_samples),
    _binop("floor_divide", ("floor_divide", "floor_divide.Scalar", "floor_divide_.Tensor", "floor_divide_.Scalar",
                            "floor_divide.out", "floor_divide.Scalar_out"), _divisor_samples),
    _binop("remainder", ("remainder.Tensor", "remainder.Scalar", "remainder.Scalar_Tensor", "remainder_.Tensor",
                         "remainder_.Scalar", "remainder.Tensor_out", "remainder.Scalar_out",
                         "remainder.Scalar_Tensor_out"), _remainder_samples,
           # remainder(7, x) reaches remainder.Tensor through the codegen's numbers-as-tensors list (see report)
           grad_samples=lambda dtype: list(_divisor_samples(dtype))[:3]),
    _binop("fmod", ("fmod.Tensor", "fmod.Scalar", "fmod_.Tensor", "fmod_.Scalar", "fmod.Tensor_out", "fmod.Scalar_out"),
           _divisor_samples),
    _binop("pow", ("pow.Tensor_Tensor", "pow.Scalar", "pow.Tensor_Scalar", "pow_.Tensor", "pow_.Scalar",
                   "pow.Tensor_Tensor_out", "pow.Scalar_out", "pow.Tensor_Scalar_out"), _pow_samples,
           errors=lambda: [ErrorSample((T((2,), dtype="int64"), -2), name="int ** negative int"),
                           ErrorSample((T((2,), dtype="bool"), -1), name="bool ** negative int")]),
    _binop("maximum", ("maximum", "maximum.out"), _binary(scalars=()), inplace=False, errors=lambda: _TYPE_ERR),
    _binop("minimum", ("minimum", "minimum.out"), _binary(scalars=()), inplace=False),
    _binop("fmax", ("fmax", "fmax.out"), _binary(scalars=()), inplace=False),
    _binop("fmin", ("fmin", "fmin.out"), _binary(scalars=()), inplace=False),
    _binop("atan2", ("atan2", "atan2_", "atan2.out"), _binary(scalars=()), dtypes=FLOAT_OP),
    _binop("hypot", ("hypot", "hypot_", "hypot.out"), _binary(scalars=())),
    _binop("logaddexp", ("logaddexp", "logaddexp.out"), _binary(scalars=()), inplace=False),
    _binop("copysign", ("copysign.Tensor", "copysign.Scalar", "copysign_.Tensor", "copysign_.Scalar",
                        "copysign.out", "copysign.Scalar_out"), _binary(scalars=(2, -1.5, -0.0)), dtypes=FLOAT_OP),
    _binop("xlogy", ("xlogy.Tensor", "xlogy.Scalar_Other", "xlogy.Scalar_Self", "xlogy_.Tensor", "xlogy_.Scalar_Other",
                     "xlogy.OutTensor", "xlogy.OutScalar_Self", "xlogy.OutScalar_Other"), _xlogy_samples,
           dtypes=FLOAT_OP),
    _binop("heaviside", ("heaviside", "heaviside_", "heaviside.out"), _heaviside_samples, grad=False,
           errors=_heaviside_errors),
]


# -- comparison, logical, bitwise ----------------------------------------------------------------------------
def _compare_samples(dtype):
    yield from binary_samples(dtype, -3, 3, scalars=(1, -1.5, True, 300))
    yield Sample((T((3, 4), low=-3, high=3), T((3, 4), low=-3, high=3)), name="equal values")
    yield Sample((T((3, 4), low=-3, high=3), T((4,), low=-3, high=3)), name="partly equal broadcast")
    yield from _special(dtype, 2)


def _cmp(name):
    return _binop(name, (f"{name}.Tensor", f"{name}.Scalar", f"{name}_.Tensor", f"{name}_.Scalar",
                         f"{name}.Tensor_out", f"{name}.Scalar_out"), _compare_samples)


def _logical(name):
    return _binop(name, (name, name + "_", name + ".out"), _binary(scalars=(), low=-1, high=2))


def _bitwise(name):
    return _binop(name, (f"{name}.Tensor", f"{name}.Scalar", f"{name}.Scalar_Tensor", f"{name}_.Tensor",
                         f"{name}_.Scalar", f"{name}.Tensor_out", f"{name}.Scalar_out", f"{name}.Scalar_Tensor_out"),
                  _bitwise_samples)


def _bitwise_samples(dtype):
    yield from binary_samples(dtype, -20, 20, scalars=(3, -1, True, 2.5))
    yield Sample((5, T((3, 4), low=-20, high=20)), name="scalar self", skip_inplace=True, skip_out=True)


def _shift_samples(dtype):
    for sa, sb in BINARY_SHAPES:
        yield Sample((T(sa, low=-50, high=50), T(sb, low=0, high=8, seed=1)), name=f"{sa}x{sb}")
    yield Sample((T((3, 6), low=-50, high=50, layout="strided"), T((3, 6), low=0, high=8, layout="transposed")),
                 name="strided")
    for s in (1, 3, 7, 70, -1, True):
        yield Sample((T((3, 4), low=-50, high=50), s), name=f"scalar {s!r}")
    yield Sample((3, T((3, 4), low=0, high=8)), name="scalar self", skip_inplace=True, skip_out=True)
    yield Sample((T((3, 4), low=-50, high=50), T((3, 4), dtype="int32", low=0, high=8)), name="mixed",
                 skip_inplace=True)


def _shift(name):
    return _binop(name, (f"{name}.Tensor", f"{name}.Tensor_Scalar", f"{name}.Scalar_Tensor", f"{name}_.Tensor",
                         f"{name}_.Tensor_Scalar", f"{name}.Tensor_out", f"{name}.Tensor_Scalar_out",
                         f"{name}.Scalar_Tensor_out"), _shift_samples)


def _isclose_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4))), name="equal")
    yield Sample((T((3, 4)), T((3, 4), seed=1)), name="different")
    yield Sample((T((3, 4)), T((4,), seed=1)), {"atol": 3.0}, name="atol")
    yield Sample((T((3, 4)), T((3, 4), seed=1)), {"rtol": 0.5, "atol": 0.0}, name="rtol")
    yield Sample((T((3, 4)), T((3, 4), seed=1)), {"rtol": 0.0, "atol": 0.0}, name="exact")
    yield Sample((T((2, 3, 4), layout="transposed"), T((3, 1), seed=1)), {"atol": 2.0}, name="broadcast")
    yield Sample((T((), seed=1), T((0,))), name="empty")
    if dtype in ALL_FLOAT:
        vals = (NAN, INF, -INF, 1.0, 1.0 + 1e-6, 0.0, NAN, 2.0)
        other = (NAN, INF, INF, 1.0, 1.0, -0.0, 1.0, 2.001)
        yield Sample((T((8,), values=vals), T((8,), values=other)), name="special")
        yield Sample((T((8,), values=vals), T((8,), values=other)), {"equal_nan": True}, name="equal_nan")
        yield Sample((T((8,), values=vals), T((8,), values=other)), {"rtol": 1e-2}, name="special rtol")


def _isclose_errors():
    return [ErrorSample((T((2,)), T((2,), dtype="int64")), name="dtypes"),
            ErrorSample((T((2,)), T((2,))), {"rtol": -1.0}, name="rtol"),
            ErrorSample((T((2,)), T((2,))), {"atol": -1e-7}, name="atol")]


def _equal_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4))), name="same values")
    yield Sample((T((3, 4), layout="transposed"), T((3, 4))), name="other layout")
    yield Sample((T((3, 4)), T((3, 4), seed=1)), name="different")
    yield Sample((T((3, 4)), T((4,))), name="other sizes (no broadcasting)")
    yield Sample((T((3, 4)), T((3, 4), dtype="int64")), name="other dtype, by value")
    yield Sample((T(()), T(())), name="0-dim")
    yield Sample((T((0, 3)), T((0, 3))), name="empty")
    if dtype in ALL_FLOAT:
        yield Sample((T((3,), values=(NAN, 1.0, 0.0)), T((3,), values=(NAN, 1.0, -0.0))), name="nan never equal")
        yield Sample((T((2,), values=(0.0, INF)), T((2,), values=(-0.0, INF))), name="signed zero, inf")


def _equal_errors():
    return [ErrorSample((T((2,)), 2.0), name="number")]


COMPARE = [
    _cmp("eq"), _cmp("ne"), _cmp("lt"), _cmp("le"), _cmp("gt"), _cmp("ge"),
    _logical("logical_and"), _logical("logical_or"), _logical("logical_xor"),
    _bitwise("bitwise_and"), _bitwise("bitwise_or"), _bitwise("bitwise_xor"),
    _shift("bitwise_left_shift"), _shift("bitwise_right_shift"),
    OpInfo("isclose", aten=("isclose",), samples=_isclose_samples, dtypes=ALL, method=True, errors=_isclose_errors),
    OpInfo("allclose", aten=("allclose",), samples=_isclose_samples, dtypes=ALL, method=True, errors=_isclose_errors,
           grad=False),
    OpInfo("equal", aten=("equal",), samples=_equal_samples, dtypes=ALL, method=True, errors=_equal_errors,
           grad=False),
]


# -- clamp, where, lerp, addcmul, addcdiv --------------------------------------------------------------------
def _clamp_samples(dtype):
    yield Sample((T((3, 4)), -1, 2), name="both")
    yield Sample((T((3, 4)),), {"min": -1.5}, name="min")
    yield Sample((T((3, 4)),), {"max": 2}, name="max")
    yield Sample((T((3, 4)), 2, -1), name="min > max")
    yield Sample((T((3, 4), layout="transposed"), 0.5, 2.5), name="float bounds")
    yield Sample((T(()), -1, 1), name="0-dim")
    yield Sample((T((0, 2)), -1, 1), name="empty")
    yield Sample((T((3, 4)), T((3, 4), seed=1), T((4,), seed=2, low=3)), name="tensor bounds")
    yield Sample((T((3, 4), layout="strided"), T((3, 1), seed=1)), name="tensor min")
    yield Sample((T((3, 4)), None, T((), seed=2)), name="tensor max 0-dim")
    yield Sample((T((3, 4)), T((3, 4), dtype="float64", seed=1)), name="tensor min float64", skip_inplace=True)
    yield Sample((T((3, 4)), True, True), name="bool bounds")
    if dtype in ALL_FLOAT:
        yield Sample((T((8,), values=SPECIAL), -1.0, 1.0), name="special")
        yield Sample((T((3, 4)), NAN, 1.0), name="nan min")
        yield Sample((T((8,), values=SPECIAL), T((8,), values=SPECIAL[1:] + SPECIAL[:1])), name="special tensors")


def _clamp_one_samples(which):
    def samples(dtype):
        yield Sample((T((3, 4)), -1), name="int")
        yield Sample((T((3, 4), layout="transposed"), 0.5), name="float")
        yield Sample((T(()), 1), name="0-dim")
        yield Sample((T((0, 2)), 1), name="empty")
        yield Sample((T((3, 4)), True), name="bool")
        yield Sample((T((3, 4)), T((4,), seed=1)), name="tensor")
        yield Sample((T((3, 4), layout="strided"), T((3, 1), seed=1, dtype="float64")), name="tensor float64",
                     skip_inplace=True)
        if dtype in ALL_FLOAT:
            yield Sample((T((8,), values=SPECIAL), 1.0), name="special")
            yield Sample((T((3, 4)), NAN), name="nan bound")
    return samples


_CLAMP_ERRORS = [ErrorSample((T((2,)),), name="no bounds"), ErrorSample((T((2,)), None, None), name="None bounds"),
                 ErrorSample((T((2,), dtype="int64"), 0.5), form="inplace", name="in-place promotion"),
                 ErrorSample((T((2,)), 0.5), {"out": T((2,), dtype="float64")}, name="out dtype"),
                 ErrorSample((T((2,), dtype="int64"), 0.5), {"out": T((2,), dtype="int64")}, name="int out dtype")]


def _clamp_op(name, aten, samples):
    return _binop(name, aten, samples, errors=(lambda: _CLAMP_ERRORS) if name in ("clamp", "clip") else None)


def _where_samples(dtype):
    cond = T((3, 4), dtype="bool", seed=5)
    yield Sample((cond, T((3, 4)), T((3, 4), seed=1)), name="same shape")
    yield Sample((T((3, 1), dtype="bool", seed=5), T((4,)), T((2, 1, 1), seed=1)), name="broadcast")
    yield Sample((T((3, 4), dtype="bool", seed=5, layout="transposed"), T((3, 4), layout="strided"),
                  T((), seed=1)), name="layouts")
    yield Sample((T((), dtype="bool", seed=5), T(()), T((), seed=1)), name="0-dim")
    yield Sample((T((0, 2), dtype="bool"), T((0, 2)), T((2,))), name="empty")
    yield Sample((cond, T((3, 4)), T((3, 4), dtype="float64", seed=1)), name="promote")
    # where.Scalar* have no out= (the parser's message for a mismatched out= differs: see the report)
    yield Sample((cond, T((3, 4)), 2.5), name="scalar other", skip_out=True)
    yield Sample((cond, -1, T((3, 4))), name="scalar self", skip_out=True)
    yield Sample((cond, 1, 0.5), name="scalars", skip_out=True)
    yield Sample((cond, True, False), name="bool scalars", skip_out=True)
    yield Sample((T((3, 4), dtype="uint8", low=0, high=2, seed=5), T((3, 4)), T((3, 4), seed=1)), name="uint8 cond")


def _where_method_samples(dtype):
    """``x.where(condition, y)``: self first."""
    cond = T((3, 4), dtype="bool", seed=5)
    yield Sample((T((3, 4)), cond, T((3, 4), seed=1)), name="method")
    yield Sample((T((4,)), T((3, 1), dtype="bool", seed=5), T((2, 1, 1), seed=1)), name="method broadcast")
    yield Sample((T((3, 4)), cond, 2.5), name="method scalar other")


def _where_errors():
    return [ErrorSample((T((2,)), T((2,)), T((2,))), name="float condition"),
            ErrorSample((T((2,), dtype="bool"), T((2,)), T((2,))), {"out": T((2,), dtype="float64")},
                        name="out dtype")]


def _lerp_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), seed=1), 0.3), name="scalar weight small")
    yield Sample((T((3, 4)), T((4,), seed=1), 0.75), name="scalar weight large")
    yield Sample((T((2, 3, 4), layout="transposed"), T((3, 1), seed=1), -1.5), name="broadcast")
    yield Sample((T((3, 4)), T((3, 4), seed=1), T((3, 4), seed=2, low=-1, high=2)), name="tensor weight")
    yield Sample((T((3, 6), layout="strided"), T((3, 1), seed=1), T((6,), seed=2, low=-1, high=2)),
                 name="tensor weight broadcast")
    yield Sample((T((3, 4)), T((3, 4), seed=1), T((), dtype="float64", seed=2, low=0, high=1)),
                 name="0-dim float64 weight")
    yield Sample((T(()), T((), seed=1), T((), dtype="float64", seed=2, low=0, high=1)), name="all 0-dim",
                 skip_inplace=True)
    yield Sample((T((0, 3)), T((3,), seed=1), 0.5), name="empty")
    yield Sample((T((3, 4)), T((3, 4), seed=1), 2), name="int weight")


def _lerp_errors():
    return [ErrorSample((T((2,)), T((2,), dtype="float64"), 0.5), name="end dtype"),
            ErrorSample((T((2,)), T((2,)), T((2,), dtype="float64")), name="weight dtype"),
            ErrorSample((T((2,)), T((2,)), 0.5), {"out": T((2,), dtype="int64")}, name="out cast")]


def _addc_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), seed=1), T((3, 4), seed=2, low=1)), name="plain")
    yield Sample((T((3, 4)), T((4,), seed=1), T((3, 1), seed=2, low=1)), {"value": 2}, name="broadcast value=2")
    yield Sample((T((3, 4), layout="transposed"), T((3, 4), seed=1, layout="strided"), T((), seed=2, low=1)),
                 {"value": -0.5}, name="layouts value=-0.5")
    yield Sample((T(()), T((), seed=1), T((), seed=2, low=1)), name="0-dim")
    yield Sample((T((0, 3)), T((3,), seed=1), T((3,), seed=2, low=1)), name="empty")
    yield Sample((T((3, 4)), T((3, 4), seed=1, dtype="float32"), T((3, 4), seed=2, low=1)), name="mixed",
                 skip_inplace=True)
    yield Sample((T((3, 4)), T((3, 4), seed=1), T((3, 4), seed=2, low=1)), {"value": True}, name="value=True")


def _addc_errors(div):
    def errors():
        out = [ErrorSample((T((2,)), T((2,)), T((2,))), {"value": 1j}, name="complex value"),
               ErrorSample((T((2,), dtype="uint8"), T((2,), dtype="uint8"), T((2,), dtype="uint8")), {"value": -300},
                           name="value overflow")]
        if div:
            out.append(ErrorSample((T((2,)), T((2,), dtype="int64"), T((2,), dtype="int64")), name="integer division"))
        return out
    return errors


OTHER = [
    _clamp_op("clamp", ("clamp.Tensor", "clamp", "clamp_.Tensor", "clamp_", "clamp.Tensor_out", "clamp.out"),
              _clamp_samples),
    _clamp_op("clip", ("clip.Tensor", "clip", "clip_.Tensor", "clip_", "clip.Tensor_out", "clip.out"), _clamp_samples),
    _clamp_op("clamp_min", ("clamp_min.Tensor", "clamp_min", "clamp_min_.Tensor", "clamp_min_", "clamp_min.Tensor_out",
                            "clamp_min.out"), _clamp_one_samples("min")),
    _clamp_op("clamp_max", ("clamp_max.Tensor", "clamp_max", "clamp_max_.Tensor", "clamp_max_", "clamp_max.Tensor_out",
                            "clamp_max.out"), _clamp_one_samples("max")),
    OpInfo("where", aten=("where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar", "where.self_out"),
           samples=_where_samples, dtypes=ALL, out=True, errors=_where_errors),
    OpInfo("where", aten=(), samples=_where_method_samples, dtypes=ALL_FLOAT[:1] + INTS[:1] + ("bool",),
           function=False, method=True),
    _binop("lerp", ("lerp.Tensor", "lerp.Scalar", "lerp_.Tensor", "lerp_.Scalar", "lerp.Tensor_out", "lerp.Scalar_out"),
           _lerp_samples, errors=_lerp_errors),
    _binop("addcmul", ("addcmul", "addcmul_", "addcmul.out"), _addc_samples, errors=_addc_errors(False)),
    _binop("addcdiv", ("addcdiv", "addcdiv_", "addcdiv.out"), _addc_samples, errors=_addc_errors(True)),
]

OPS = UNARY + BINARY + COMPARE + OTHER
