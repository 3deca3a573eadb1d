"""Complex and mixed-dtype calls against torch: the kernels' dtype tables (Note [Kernel dtype tables] in
glasstorch/_ops/kernels/cpu/dispatch_types.py), complex std/var/isclose/pow, and a sweep of every binary op over
every dtype pair and Python scalar (value, dtype, or exception type and message)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128")


def _values(dt: str) -> list:
    if dt == "bool":
        return [True, False, True]
    if dt.startswith("complex"):
        return [1.5 - 2j, 0j, -1 + 0.5j]
    if dt.startswith(("float", "bfloat")):
        return [1.5, -0.0, 2.25]
    return [3, 0, 2] if dt == "uint8" else [3, 0, -2]


def _tensor(m, dt: str, zero_dim=False):
    v = _values(dt)
    return m.tensor(v[0] if zero_dim else v, dtype=getattr(m, dt))


def _outcome(m, fn):
    """("ok", dtype, shape, values) or (exception type name, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(m)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return (type(e).__name__, str(e))
    return ("ok", repr(r.dtype), tuple(r.shape), r.tolist())


_TOL = {"torch.float16": 1e-3, "torch.bfloat16": 1e-2, "torch.complex32": 1e-3, "torch.float32": 1e-6,
        "torch.complex64": 1e-6}


def _same(want, got) -> bool:
    if want[0] != "ok" or got[0] != "ok":
        return want == got
    if want[1:3] != got[1:3]:
        return False
    w, g = np.asarray(want[3], dtype=complex), np.asarray(got[3], dtype=complex)
    return np.allclose(g, w, rtol=_TOL.get(want[1], 1e-12), atol=0, equal_nan=True)


# -- ops torch refuses on complex ----------------------------------------------------------------------------
_C = [1 + 2j, -3.5 + 0.5j, 2 - 1j]


def _c(m, dt="complex64"):
    return m.tensor(_C, dtype=getattr(m, dt))


REFUSED = {
    "gt": lambda m, x: m.gt(x, x), "lt": lambda m, x: m.lt(x, x), "ge": lambda m, x: m.ge(x, x),
    "le": lambda m, x: m.le(x, x), "gt_scalar": lambda m, x: x > 1,
    "round": lambda m, x: m.round(x), "round_decimals": lambda m, x: m.round(x, decimals=2),
    "round_": lambda m, x: x.clone().round_(), "sign": lambda m, x: m.sign(x), "sign_": lambda m, x: x.clone().sign_(),
    "floor": lambda m, x: m.floor(x), "ceil": lambda m, x: m.ceil(x), "trunc": lambda m, x: m.trunc(x),
    "frac": lambda m, x: m.frac(x), "clamp": lambda m, x: m.clamp(x, 0, 1), "clamp_min": lambda m, x: m.clamp(x, min=0),
    "clamp_max": lambda m, x: m.clamp_max(x, 1), "clamp_": lambda m, x: x.clone().clamp_(0, 1),
    "clamp_tensors": lambda m, x: m.clamp(x, x, x), "clamp_tensor_min": lambda m, x: m.clamp(x, x),
    "clamp_min_tensor": lambda m, x: m.clamp_min(x, x), "clamp_max_tensor": lambda m, x: m.clamp_max(x, x),
    "clamp_int_complex_bound": lambda m, x: m.clamp(m.tensor([1, 2]), max=1j),
    "floor_divide": lambda m, x: m.floor_divide(x, x), "floor_divide_": lambda m, x: x.clone().floor_divide_(x),
    "div_trunc": lambda m, x: m.div(x, x, rounding_mode="trunc"),
    "div_floor": lambda m, x: m.div(x, 2, rounding_mode="floor"),
    "remainder": lambda m, x: m.remainder(x, x), "remainder_scalar": lambda m, x: m.remainder(x, 2),
    "fmod": lambda m, x: m.fmod(x, 2), "atan2": lambda m, x: m.atan2(x, x), "copysign": lambda m, x: m.copysign(x, x),
    "xlogy": lambda m, x: m.xlogy(x, x), "hypot": lambda m, x: m.hypot(x, x),
    "maximum": lambda m, x: m.maximum(x, x), "minimum": lambda m, x: m.minimum(x, x), "fmax": lambda m, x: m.fmax(x, x),
    "fmin": lambda m, x: m.fmin(x, x), "max_binary": lambda m, x: m.max(x, x),
    "maximum_real_complex": lambda m, x: m.maximum(m.ones(3), x), "heaviside": lambda m, x: m.heaviside(x, x),
    "erf": lambda m, x: m.erf(x), "erfc": lambda m, x: m.erfc(x), "erfinv": lambda m, x: m.erfinv(x),
    "bitwise_and": lambda m, x: x & x, "bitwise_or": lambda m, x: x | x, "bitwise_xor": lambda m, x: x ^ x,
    "bitwise_not": lambda m, x: m.bitwise_not(x), "invert": lambda m, x: ~x, "invert_float": lambda m, x: ~m.ones(2),
    "lshift": lambda m, x: m.bitwise_left_shift(x, x),
    "max": lambda m, x: m.max(x), "min_dim": lambda m, x: m.min(x, 0), "amax": lambda m, x: m.amax(x),
    "sort": lambda m, x: m.sort(x), "argsort": lambda m, x: m.argsort(x), "argmax": lambda m, x: m.argmax(x),
    "argmin": lambda m, x: m.argmin(x), "topk": lambda m, x: m.topk(x, 1),
}


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("name", list(REFUSED))
def test_complex_refused_as_torch(name, dt):
    fn = REFUSED[name]
    assert_same_error(lambda: fn(gt, _c(gt, dt)), lambda: fn(torch, _c(torch, dt)))


@pytest.mark.parametrize("name", ["gt", "le", "maximum", "atan2", "copysign", "xlogy", "floor_divide", "remainder"])
def test_real_tensor_promoted_to_complex_refused(name):
    """The table is checked on the common dtype: a float tensor with a complex operand refuses too."""
    ops = {"gt": lambda m: m.gt(m.ones(3), 1j), "le": lambda m: m.le(m.ones(3), _c(m)),
           "maximum": lambda m: m.maximum(m.ones(3), _c(m)), "atan2": lambda m: m.atan2(m.ones(3), _c(m)),
           "copysign": lambda m: m.copysign(m.ones(3), _c(m)), "xlogy": lambda m: m.xlogy(m.ones(3), 2j),
           "floor_divide": lambda m: m.floor_divide(m.ones(3, dtype=m.int64), 1j),
           "remainder": lambda m: m.remainder(m.ones(3), _c(m))}
    assert_same_error(lambda: ops[name](gt), lambda: ops[name](torch))


@pytest.mark.parametrize("name", ["floor", "round", "trunc", "frac"])
def test_rounding_on_bool_and_integers(name):
    b = lambda m: getattr(m, name)(m.tensor([True, False]))  # noqa: E731
    assert_same_error(lambda: b(gt), lambda: b(torch))
    if name != "frac":
        i = lambda m: getattr(m, name)(m.tensor([3, -2]))  # noqa: E731
        assert_same(i(gt), i(torch))


def test_sgn_stays_complex_and_sign_stays_real():
    assert_same(gt.sgn(_c(gt)), torch.sgn(_c(torch)), rtol=1e-6)
    assert_same(gt.sign(gt.tensor([True, False])), torch.sign(torch.tensor([True, False])))
    assert_same(gt.sign(gt.tensor([-2.0, 0.0, float("nan")])), torch.sign(torch.tensor([-2.0, 0.0, float("nan")])))


# -- complex values --------------------------------------------------------------------------------------------
_V = [[1 + 2j, -3.5 + 0.5j, 2 - 1j, 0.1 + 0.3j], [0.5j, 4 + 0j, -1 - 1j, 2.2 - 0.7j], [0.3, 1j, -2 + 2j, 5 - 0.25j]]


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("correction", [None, 0, 2.5])
@pytest.mark.parametrize("keepdim", [False, True])
def test_complex_std_var(dt, fn, dim, correction, keepdim):
    def run(m):
        return getattr(m, fn)(m.tensor(_V, dtype=getattr(m, dt)), dim, correction=correction, keepdim=keepdim)
    got, want = run(gt), run(torch)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want, strict=True):
        assert_same(g, w, rtol=1e-6 if dt == "complex64" else 1e-12)


@pytest.mark.parametrize("out", ["float32", "float64", "float16", "complex64", "int64"])
@pytest.mark.parametrize("fn", ["var", "std"])
def test_complex_std_var_out(fn, out):
    def run(m):
        o = m.empty(0, dtype=getattr(m, out))
        return getattr(m, fn)(m.tensor(_V, dtype=m.complex64), out=o)
    if out == "int64":
        assert_same_error(lambda: run(gt), lambda: run(torch))
    else:
        assert_same(run(gt), run(torch), rtol=1e-6)


_NAN, _INF = float("nan"), float("inf")
_A = [1 + 1j, complex(_NAN, 0), complex(0, _NAN), complex(_NAN, _NAN), 1 + 1e-6j, complex(_INF, 0), 2 + 2j, 1e-9j,
      complex(_INF, _INF)]
_B = [1 + 1j, complex(0, _NAN), complex(_NAN, 1), complex(_NAN, 0), 1 + 0j, complex(_INF, 0), 2.00001 + 2j, 0j,
      complex(_INF, _INF)]


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("kw", [{"equal_nan": True}, {}, {"rtol": 0, "atol": 0, "equal_nan": True},
                                {"rtol": 1e-3, "atol": 1e-8}, {"atol": 1e-5, "rtol": 0, "equal_nan": True}])
def test_complex_isclose_allclose(dt, kw):
    def pair(m):
        return m.tensor(_A, dtype=getattr(m, dt)), m.tensor(_B, dtype=getattr(m, dt))
    assert_same(gt.isclose(*pair(gt), **kw), torch.isclose(*pair(torch), **kw))
    for n in (2, 4, 9):
        a, b = pair(gt)
        ta, tb = pair(torch)
        assert gt.allclose(a[:n], b[:n], **kw) == torch.allclose(ta[:n], tb[:n], **kw)


_P = [0j, 1 + 0j, -1 + 0j, 1 + 1j, -2.5 + 0.5j, complex(_INF, 0), complex(-_INF, 0), complex(0, _INF),
      complex(_NAN, 0), 0.5 - 3j, -3 + 0j]


def _assert_on_all_pairs(name, values):
    """``name(x, y)`` for every pair of ``values``, complex64 and complex128, against torch."""
    X = [a for a in values for _ in values]
    Y = [b for _ in values for b in values]
    for dt in ("complex64", "complex128"):
        def run(m, dt=dt):
            return getattr(m, name)(m.tensor(X, dtype=getattr(m, dt)), m.tensor(Y, dtype=getattr(m, dt)))
        assert_same(run(gt), run(torch), rtol=1e-5)


def test_complex_pow_tensor_tensor():
    """std::pow's special values (0 ** 0 is NaN, 0 ** -inf is inf+nanj), which numpy's power does not share."""
    _assert_on_all_pairs("pow", _P)


@pytest.mark.parametrize("e", [2, 3, -2, 0.5, -0.5, -1, 2.5, 1 + 1j, 0, 1])
def test_complex_pow_scalar(e):
    got = gt.tensor(_P, dtype=gt.complex64) ** e
    want = torch.tensor(_P, dtype=torch.complex64) ** e
    assert_same(got, want, rtol=1e-5)


def test_complex32_results():
    """float16 with a complex operand computes in complex32 where torch's kernel lists ComplexHalf (add, sub, mul, eq,
    ne), in complex64 on half-rounded operands; the others raise torch's "not implemented for 'ComplexHalf'"."""
    def run(m, op):
        return op(m, m.tensor([1.5, -0.0, 65504.0], dtype=m.float16), m.tensor(0.1 - 2j, dtype=m.complex64))
    for op in (lambda m, a, b: m.sub(a, 2 - 0.5j, alpha=2), lambda m, a, b: a + b, lambda m, a, b: m.mul(b, a),
               lambda m, a, b: m.add(a, b, alpha=0.3), lambda m, a, b: m.eq(a + b, a + b),
               lambda m, a, b: m.rsub(a, b)):
        got, want = run(gt, op), run(torch, op)
        assert repr(got.dtype) == repr(want.dtype) and got.tolist() == want.tolist()
    for op in (lambda m, a, b: a / b, lambda m, a, b: a ** b, lambda m, a, b: m.logical_and(a, b)):
        assert_same_error(lambda op=op: run(gt, op), lambda op=op: run(torch, op))


def test_complex_logaddexp_special_values():
    _assert_on_all_pairs("logaddexp", [0j, 1 + 1j, -2.5 + 0.5j, complex(_INF, 0), complex(-_INF, 0), complex(_INF, 1),
                                       complex(-_INF, 2), complex(0, _INF), complex(_NAN, 0), complex(0, _NAN), 30 - 3j,
                                       -30 + 1j, 1e-8 + 0j])


def test_pow_integer_zeros_to_complex_infinity():
    def run(m):
        return m.pow(m.zeros(3, dtype=m.uint8), m.tensor([complex(-_INF, 0), 1 + 1j, 0j], dtype=m.complex64))
    assert_same(run(gt), run(torch))


# -- the sweep -------------------------------------------------------------------------------------------------
SCALARS = (True, 2, -3, 0.5, math.nan, 2 - 0.5j)
_PLAIN = (
    "add", "sub", "rsub", "mul", "div", "floor_divide", "remainder", "fmod", "pow", "atan2", "maximum", "minimum",
    "fmax", "fmin", "hypot", "heaviside", "logaddexp", "copysign", "xlogy", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift",
)
BINARY = {n: (n, {}) for n in _PLAIN} | {  # name -> (function, keyword arguments)
    "add_alpha2": ("add", {"alpha": 2}), "add_alpha_half": ("add", {"alpha": 0.5}),
    "add_alpha_j": ("add", {"alpha": 1j}),
    "sub_alpha2": ("sub", {"alpha": 2}), "rsub_alpha2": ("rsub", {"alpha": 2}),
    "div_trunc": ("div", {"rounding_mode": "trunc"}), "div_floor": ("div", {"rounding_mode": "floor"}),
}
# Tensor-only second operands (maximum & co. take no Python number)
_TENSOR_ONLY = {"maximum", "minimum", "fmax", "fmin", "hypot", "heaviside"}  # by function name


def _second_operands(op):
    for d in DTYPES + ("complex32",):
        yield d, "dim"
        yield d, "0-dim"
        yield d, "0-dim first"
    if BINARY[op][0] not in _TENSOR_ONLY:
        for s in SCALARS:
            yield s, "scalar"


@pytest.mark.parametrize("op", list(BINARY))
def test_binary_dtype_sweep(op):
    """Every dtype pair (dim/dim, dim/0-dim, 0-dim/dim) and every Python scalar kind: the outcome (dtype, shape and
    values, or the exception type and message) is torch's, and numpy never raises its own TypeError."""
    name, kw = BINARY[op]
    bad = []

    def fn(m, a, b):
        return getattr(m, name)(a, b, **kw)

    for d1 in DTYPES + ("complex32",):
        for second, kind in _second_operands(op):
            def case(m, d1=d1, second=second, kind=kind):
                if kind == "scalar":
                    return fn(m, _tensor(m, d1), second)
                if kind == "0-dim first":
                    return fn(m, _tensor(m, d1, zero_dim=True), _tensor(m, second))
                return fn(m, _tensor(m, d1), _tensor(m, second, zero_dim=kind == "0-dim"))
            want, got = _outcome(torch, case), _outcome(gt, case)
            if not _same(want, got):
                bad.append(f"{op}({d1}, {second!r} {kind}):\n    torch:      {want}\n    glasstorch: {got}")
    assert not bad, f"{len(bad)} mismatches, first ones:\n" + "\n".join(bad[:8])


_CLAMP_COMPLEX_BOUNDS = (
    "f.clamp_min(2-0.5j)", "f.clamp_min(2+0j)", "f.clone().clamp_min_(2+0j)", "f.clamp_max(1j)", "i.clamp_max(2+0j)",
    "f.clamp(min=2-0.5j)", "f.clamp(2+0j)", "f.clamp(max=2-0.5j)", "f.clamp(1j, 2)", "f.clone().clamp_(min=1j)",
    "f.clamp(0.5, 1j)", "h.clamp(1j)", "i.clamp(1j)", "i.clamp(0.5, 1j)", "i.clamp_min(1j)",
)


@pytest.mark.parametrize("expr", _CLAMP_COMPLEX_BOUNDS)
def test_clamp_complex_python_bound(expr):
    def run(m):
        f, i, h = m.tensor([1.5, 2.0]), m.tensor([1, 2]), m.tensor([1.5, 2.0], dtype=m.float16)  # noqa: F841
        return eval(expr)
    assert _outcome(gt, run) == _outcome(torch, run)


_INPLACE = ("add_", "sub_", "mul_", "div_", "floor_divide_", "remainder_", "fmod_", "pow_", "atan2_", "xlogy_", "eq_",
            "lt_", "logical_and_", "bitwise_and_", "bitwise_left_shift_", "clamp_min_", "clamp_max_")


@pytest.mark.parametrize("op", _INPLACE)
def test_inplace_dtype_sweep(op):
    """In-place with every second operand (tensor of each dtype, dim and 0-dim, and each Python scalar kind): torch's
    result or its error ("result type ... can't be cast to the desired output type ...", a dtype table's refusal)."""
    bad = []
    for d1 in DTYPES + ("complex32",):
        for second, kind in _seconds_with_scalars():
            def case(m, d1=d1, second=second, kind=kind):
                b = second if kind == "scalar" else _tensor(m, second, zero_dim=kind == "0-dim")
                return getattr(_tensor(m, d1), op)(b)
            want, got = _outcome(torch, case), _outcome(gt, case)
            if not _same(want, got):
                bad.append(f"{d1}.{op}({second!r} {kind}):\n    torch:      {want}\n    glasstorch: {got}")
    assert not bad, f"{len(bad)} mismatches, first ones:\n" + "\n".join(bad[:8])


_LERP = (
    "m.lerp(x, y, 0.3)", "m.lerp(x, y, 0.7)", "m.lerp(x, y, 0.3 + 0.4j)", "m.lerp(x, y, m.tensor([0.1, 0.9, 0.5j]))",
    "m.lerp(x, y, m.tensor(0.2))", "m.lerp(x.to(m.complex128), y.to(m.complex128), 0.6)", "m.lerp(f, f, 0.5j)",
    "m.lerp(f, f, m.tensor(0.5j))", "m.lerp(f.half(), f.half(), 0.5j)", "m.lerp(x, y, m.tensor([0.2, 0.3, 0.9]))",
)


@pytest.mark.parametrize("expr", _LERP)
def test_complex_lerp(expr):
    def run(m):
        x, y, f = m.tensor([1 + 2j, -3.5 + 0.5j, 2 - 1j]), m.tensor([0.5j, 4 + 0j, -1 - 1j]), m.tensor([1.0, 2, 3])  # noqa: F841
        return eval(expr)
    want, got = _outcome(torch, run), _outcome(gt, run)
    assert _same(want, got), (want, got)


_ABS = (
    "m.abs(x)", "abs(x)", "m.abs(x.t())", "m.abs(x.to(m.complex128))", "m.abs(x, out=m.empty(0, dtype=m.complex64))",
    "m.abs(x.t(), out=m.empty(0))", "m.abs(x.t(), out=m.empty(0, dtype=m.complex64))",
    "m.abs(x, out=m.empty(0, dtype=m.float64))", "m.abs(x, out=m.empty(0, dtype=m.float16))",
    "m.abs(x, out=m.empty(0, dtype=m.int64))", "x.clone().abs_()", "m.abs(m.tensor([complex('nan'), complex('inf')]))",
)


@pytest.mark.parametrize("expr", _ABS)
def test_complex_abs(expr):
    def run(m):
        x = m.tensor([[1 + 2j, -3.5 + 0.5j, 2 - 1j], [0j, -1j, 3 + 4j]])  # noqa: F841
        return eval(expr)
    got, want = _outcome(gt, run), _outcome(torch, run)
    assert _same(want, got), (want, got)
    if want[0] == "ok":
        assert_same(run(gt), run(torch), rtol=1e-6)  # strides too


def test_complex_abs_backward():
    def run(m):
        x = m.tensor([1 + 2j, -3.5 + 0.5j, 0.5j], requires_grad=True)
        (m.abs(x) * m.tensor([1.0, 2.0, -1.0])).sum().backward()
        return x.grad
    assert_same(run(gt), run(torch), rtol=1e-6)


_CHALF_OUT = ("m.add(h, 1j, out=m.empty(3, dtype=m.complex64))", "m.mul(h, 1j, out=m.empty(3, dtype=m.complex128))",
              "m.eq(h, 1j, out=m.empty(3, dtype=m.float32))", "m.add(h, 1j, out=m.empty(3, dtype=m.float16))",
              "m.sub(h, 0.1 + 1j, alpha=2, out=m.empty(3, dtype=m.complex64))",
              "m.add(h, 1j, out=m.empty(0, dtype=m.complex64))", "m.mul(h, 1j, out=m.empty(0, dtype=m.complex32))")


@pytest.mark.parametrize("expr", _CHALF_OUT)
def test_complex32_into_out_of_another_dtype(expr):
    def run(m):
        h = m.tensor([1.5, -0.0, 2.25], dtype=m.float16)  # noqa: F841
        return eval(expr)
    want, got = _outcome(torch, run), _outcome(gt, run)
    assert _same(want, got), (want, got)


_CHALF_COPIES = (
    "x.clone()", "x.contiguous()", "x[1:]", "x.to(m.complex64)", "x.to(m.complex128)", "x.float()", "x.to(m.bool)",
    "x.to(m.float16)", "x.to(m.int64)", "m.zeros(3, dtype=m.complex32).copy_(m.tensor([1 + 2j, 3, 4.5 - 1e-3j]))",
    "m.zeros(3, dtype=m.complex32).copy_(m.tensor([1.0, 2, 3], dtype=m.float64))",
    "m.zeros(2, dtype=m.complex32).copy_(m.tensor([1e6 + 1j, 70000.0]))", "m.zeros(3, dtype=m.complex32).fill_(1)",
    "m.zeros(3, dtype=m.complex32).fill_(2.5 - 1j)", "m.full((2,), 1 + 1j, dtype=m.complex32)",
    "m.ones(2, dtype=m.complex32)", "m.tensor([1 + 1j], dtype=m.complex32)",
)


@pytest.mark.parametrize("expr", _CHALF_COPIES)
def test_complex32_copies_and_fills(expr):
    def run(m):
        x = m.tensor([1.5, -0.0, 2.25], dtype=m.float16) + 1j  # noqa: F841
        return eval(expr)
    want, got = _outcome(torch, run), _outcome(gt, run)
    assert _same(want, got), (want, got)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("kw", [{}, {"nan": 1.0, "posinf": 2.0, "neginf": -3.0}, {"nan": 1.5}])
def test_complex_nan_to_num(dt, kw):
    def run(m):
        v = [complex(_INF, _NAN), complex(_NAN, -_INF), 1 + 1j, complex(-_INF, _INF), complex(_NAN, _NAN)]
        return m.nan_to_num(m.tensor(v, dtype=getattr(m, dt)), **kw)
    assert_same(run(gt), run(torch))


def _seconds_with_scalars():
    return [(d, k) for d in DTYPES + ("complex32",) for k in ("dim", "0-dim")] + [(s, "scalar") for s in SCALARS]


TERNARY = {
    "where": lambda m, a, b: m.where(_tensor(m, "bool"), a, b),
    "addcmul": lambda m, a, b: m.addcmul(a, b, b, value=2), "addcdiv": lambda m, a, b: m.addcdiv(a, b, b, value=0.5),
    "addcmul_self": lambda m, a, b: m.addcmul(a, a, b), "clamp_tensors": lambda m, a, b: m.clamp(a, b, b),
    "clamp_min_tensor": lambda m, a, b: m.clamp(a, min=b), "isclose": lambda m, a, b: m.isclose(a, b),
}


@pytest.mark.parametrize("op", list(TERNARY))
def test_ternary_dtype_sweep(op):
    """Three-operand ops with every dtype pair (dim and 0-dim) and Python scalar against torch."""
    fn, bad = TERNARY[op], []
    for d1 in DTYPES + ("complex32",):
        for second, kind in _seconds_with_scalars():
            if kind == "scalar" and op in ("addcmul", "addcdiv", "clamp_tensors", "isclose"):
                continue  # tensor-only arguments
            def case(m, d1=d1, second=second, kind=kind):
                b = second if kind == "scalar" else _tensor(m, second, zero_dim=kind == "0-dim")
                return fn(m, _tensor(m, d1), b)
            want, got = _outcome(torch, case), _outcome(gt, case)
            if not _same(want, got):
                bad.append(f"{op}({d1}, {second!r} {kind}):\n    torch:      {want}\n    glasstorch: {got}")
    assert not bad, f"{len(bad)} mismatches, first ones:\n" + "\n".join(bad[:8])


_C32_UNARY = (
    "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan", "sinh", "cosh",
    "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sigmoid", "sgn", "neg", "exp2", "isnan", "isinf",
    "isfinite", "nan_to_num", "logical_not", "abs", "sign", "floor", "round", "frac", "erf", "bitwise_not",
)


@pytest.mark.parametrize("op", _C32_UNARY)
def test_complex32_unary(op):
    """Unary ops on complex32: torch's result (neg, sgn, abs, the predicates) or its ComplexHalf dispatch error."""
    def run(m):
        return getattr(m, op)(m.tensor([1.5, -0.0, 2.25], dtype=m.float16) + 0.5j)
    want, got = _outcome(torch, run), _outcome(gt, run)
    assert _same(want, got), (want, got)


_C32_REDUCTIONS = (
    "x.sum(dtype=m.complex64)", "x.mean(dtype=m.complex64)", "x.prod(dtype=m.complex64)",
    "x.cumsum(0, dtype=m.complex64)", "x.sum(0)", "x.sum()", "x.mean()", "x.prod()", "x.cumsum(0)", "x.cumprod(0)",
    "x.sum(0, keepdim=True)", "m.sum(x, 0, out=m.empty(0, dtype=m.complex64))", "z.mean()", "z.prod()", "z.sum()",
    "z.reshape(0, 2).sum(1)", "z.reshape(0, 2).sum(0)", "m.tensor(1j, dtype=m.complex32).cumsum(0)",
)


@pytest.mark.parametrize("expr", _C32_REDUCTIONS)
def test_complex32_reductions(expr):
    def run(m):
        x, z = m.tensor([1.5, -0.0, 2.25], dtype=m.float16) + 0.5j, m.zeros(0, dtype=m.complex32)  # noqa: F841
        return eval(expr)
    want, got = _outcome(torch, run), _outcome(gt, run)
    assert _same(want, got), (want, got)


@pytest.mark.parametrize("expr", ["a.sign()", "a.floor()", "a.maximum(a)", "a.fmin(a)", "a.clamp(0, 1)",
                                  "a.clamp(a, a)", "a.clamp(min=a)"])
def test_meta_functions_do_not_refuse_complex_on_meta(expr):
    """torch's meta device accepts these (its Python meta registrations); the result's dtype and shape agree."""
    def run(m):
        a = m.empty(3, dtype=m.complex64, device="meta")  # noqa: F841
        return eval(expr)
    got, want = run(gt), run(torch)
    assert (repr(got.dtype), tuple(got.shape), str(got.device)) == (repr(want.dtype), tuple(want.shape), "meta")


_C32_READS = ("x.var()", "x.std(0)", "m.var_mean(x)", "m.std_mean(x.reshape(3, 1), 0, keepdim=True)", "x.norm()",
              "m.linalg.vector_norm(x, 1)", "m.linalg.vector_norm(x, float('inf'))", "x.any()", "x.all()",
              "(x * 0).any()", "m.count_nonzero(x)")


@pytest.mark.parametrize("expr", _C32_READS)
def test_complex32_reductions_that_compute(expr):
    def run(m):
        x = m.tensor([1.5, -0.0, 2.25], dtype=m.float16) + 0.5j  # noqa: F841
        return eval(expr)
    got, want = run(gt), run(torch)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want, strict=True):
        assert (repr(g.dtype), tuple(g.shape), g.tolist()) == (repr(w.dtype), tuple(w.shape), w.tolist())


_C32_SHAPES_GEMM = (
    "m.vdot(x, x)", "m.dot(x, x)", "x @ x", "m.bmm(y[None], y[None])", "m.mv(y, x)", "m.mm(y, y)",
    "m.bmm(m.ones(2, 30, 30, dtype=m.complex32), m.ones(2, 30, 30, dtype=m.complex32))",
    "m.vdot(m.tensor([True]), m.tensor([True]))", "m.cat([x, h])", "m.cat([h, x])", "m.cat([x, x])",
    "m.cat([x, x.to(m.complex128)])", "m.stack([x, h])", "m.flip(x, (0,))", "x.flip(())",
    "m.zeros(0, dtype=m.complex32).flip(0)",
)


@pytest.mark.parametrize("expr", _C32_SHAPES_GEMM)
def test_complex32_gemm_cat_flip(expr):
    def run(m):
        x, h = m.tensor([1.5, -0.0, 2.25], dtype=m.float16) + 0.5j, m.tensor([1.0, 2, 3], dtype=m.float16)  # noqa: F841
        y = x.reshape(1, 3).expand(3, 3).contiguous()  # noqa: F841
        return eval(expr)
    want, got = _outcome(torch, run), _outcome(gt, run)
    assert _same(want, got), (want, got)


_C32_INDEXING = (
    "x.masked_fill(mk, 1.0)", "x.masked_fill(mk, 2 - 1j)", "x.clone().masked_fill_(mk, m.tensor(2.0))",
    "x.clone().index_fill_(0, m.tensor([1]), 3.0)", "m.gather(x, 0, m.tensor([2, 0]))",
    "m.gather(x, 0, m.tensor([], dtype=m.int64))", "m.zeros(3, dtype=m.complex32).scatter_(0, m.tensor([2, 0]), x[:2])",
    "m.zeros(3, dtype=m.complex32).scatter_(0, m.tensor([2, 0]), 1.0)",
    "m.zeros(3, dtype=m.complex32).scatter_add(0, m.tensor([2, 0]), x[:2])",
    "x.clone().masked_scatter_(mk, m.ones(3, dtype=m.complex32))", "x.index_select(0, m.tensor([1]))",
    "x.clone().index_add_(0, m.tensor([1]), x[:1])", "x.clone().index_copy_(0, m.tensor([1]), x[:1])",
    "x.clone().index_put_((m.tensor([1]),), x[:1])", "x[mk]", "m.where(mk, x, 0.5)",
)


@pytest.mark.parametrize("expr", _C32_INDEXING)
def test_complex32_indexing(expr):
    def run(m):
        x, mk = m.tensor([1.5, -0.0, 2.25], dtype=m.float16) + 0.5j, m.tensor([True, False, True])  # noqa: F841
        return eval(expr)
    want, got = _outcome(torch, run), _outcome(gt, run)
    assert _same(want, got), (want, got)


@pytest.mark.parametrize("expr", ["m.tensor([1.5, -0.0, 2.25], dtype=m.float16) + 0.5j",
                                  "m.zeros(0, dtype=m.complex32)", "m.tensor(1e4 + 1j, dtype=m.complex32)",
                                  "m.tensor([[1e-4, 3.0, float('inf')]], dtype=m.float16) + 0.25j",
                                  "m.tensor([float('nan')], dtype=m.float16) * 1j"])
def test_complex32_repr(expr):
    assert repr(eval(expr, {"m": gt})) == repr(eval(expr, {"m": torch}))
