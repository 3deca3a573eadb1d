"""``out=`` of another dtype than the inputs' common dtype: computed in the common dtype, then cast, as torch does.

PyTorch's TensorIterator takes the common dtype from the inputs only; an output of another dtype receives the
result converted (``cast_common_dtype_to_outputs``), so a float16 product is rounded to float16 before it lands in
a float32 ``out``, and a float16 sum that overflows is inf in a float64 ``out``.  Where the common dtype cannot be
cast to the output (``result type Float can't be cast to the desired output type Long``), or the op requires one
dtype, torch's error is compared.  Swept: binary ops x every (input, input, out) dtype triple, with a second
operand that is a tensor, a 0-dim tensor or a Python number; unary float ops and ternary ops x (input, out)
dtypes; reductions (sum, mean, prod, amax, max) x (input, out) dtypes.
"""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import glasstorch as gt

# torch computes overflows and invalid operations silently: a numpy RuntimeWarning is a leak
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")
REDUCE_DTYPES = DTYPES + ("complex64",)
# float16 overflows on 33000 + 33000; 0.8017578125 * 3 is not a float16 value; 1e-3 rounds differently in each
_FLOATS = (0.8017578125, 33000.0, -2.5, 1.7, 3.1, 1e-3)
_VALUES = {"bool": (True, False, True, True, False, True), "uint8": (3, 200, 7, 2, 5, 1)}
_INTS = (3, 100, -7, 2, 5, 1)
# libm functions: glasstorch agrees with torch's SLEEF kernels to an ulp or so in float32 (a float16 rounding
# step is 2**-11 relative, far above this tolerance)
_TRANSCENDENTAL = {"atan2", "hypot", "pow", "xlogy", "exp", "sin", "sqrt", "sigmoid", "log1p", "erf"}


def _values(dtype, shift=0):
    v = _VALUES.get(dtype, _INTS if dtype.startswith("int") else _FLOATS)
    return v[shift:] + v[:shift]


def _tensor(lib, dtype, shift=0, zero_dim=False):
    """The values cycled to 64 elements: torch's vectorized loops then run without a scalar tail (whose float16
    arithmetic rounds every step, a separate matter from the output cast)."""
    v = _values(dtype, shift)
    return lib.tensor(v[0] if zero_dim else [v[i % len(v)] for i in range(_N)], dtype=getattr(lib, dtype))


def _outcome(run, lib):
    try:
        r = run(lib)
    except Exception as e:  # noqa: BLE001 - the error is part of the answer
        return "error", f"{type(e).__name__}: {e}"
    if isinstance(r, tuple):
        r = r[0]
    values = r.float() if repr(r.dtype).endswith("bfloat16") else r
    return repr(r.dtype), tuple(r.shape), np.asarray(values.tolist())


def _compare(run, what, op):
    want, got = _outcome(run, torch), _outcome(run, gt)
    if want[0] == "error" or got[0] == "error":
        assert got == want, f"{what}:\n  glasstorch: {got}\n  torch:      {want}"
        return
    assert got[:2] == want[:2], f"{what}: {got[:2]} != torch {want[:2]}"
    # std/var of a complex input end in a square root whose last bit follows torch's vectorised |z|^2 on the CPU at
    # hand (AVX-512 cores differ by one ulp from AVX2 ones); a wrong computing dtype is off by far more
    rtol = 1e-6 if op in _TRANSCENDENTAL else 4e-16 if op in ("std", "var") else 0
    np.testing.assert_allclose(got[2], want[2], rtol=rtol, atol=0, equal_nan=True, err_msg=what)


_N = 64


def _out(lib, dtype, n=_N):
    return lib.empty(n, dtype=getattr(lib, dtype))


# -- the cases -------------------------------------------------------------------------------------
def test_the_reported_cases():
    cases = [
        lambda m: m.mul(m.tensor([0.8017578125], dtype=m.float16), m.tensor([3], dtype=m.uint8), out=m.empty(1)),
        lambda m: m.add(m.tensor([33000.0], dtype=m.float16), m.tensor([33000.0], dtype=m.float16),
                        out=m.empty(1, dtype=m.float64)),
        lambda m: m.remainder(m.tensor([5.3, -7.1], dtype=m.bfloat16), m.tensor([0.7, 0.3], dtype=m.bfloat16),
                              out=m.empty(2)),
        lambda m: m.mean(m.tensor([1 + 2j, 3j]), out=m.empty(0)),
        lambda m: m.add(m.tensor([1.5]), m.tensor([2.5]), out=m.empty(1, dtype=m.int64)),
    ]
    for i, case in enumerate(cases):
        _compare(case, f"case {i}", "")
    assert gt.mul(gt.tensor([0.8017578125], dtype=gt.float16), gt.tensor([3], dtype=gt.uint8),
                  out=gt.empty(1)).item() == 2.40625


# -- binary ops x dtype triples ----------------------------------------------------------------------------
BINARY = ("add", "sub", "mul", "div", "true_divide", "remainder", "fmod", "maximum", "minimum", "fmax", "fmin",
          "atan2", "pow", "floor_divide", "hypot", "copysign", "xlogy", "eq", "lt", "bitwise_and", "logical_and")


@pytest.mark.parametrize("op", BINARY)
def test_binary_out_of_every_dtype(op):
    for da, db, do in itertools.product(DTYPES, DTYPES, DTYPES):
        def run(m, da=da, db=db, do=do):
            return getattr(m, op)(_tensor(m, da), _tensor(m, db, 1), out=_out(m, do))

        _compare(run, f"{op}({da}, {db}, out={do})", op)


@pytest.mark.parametrize("op", ("add", "sub", "mul", "div", "remainder", "fmod", "maximum", "pow"))
def test_binary_out_with_a_0dim_or_number_operand(op):
    for da, db, do in itertools.product(DTYPES, DTYPES, DTYPES):
        def run0(m, da=da, db=db, do=do):
            return getattr(m, op)(_tensor(m, da), _tensor(m, db, 1, zero_dim=True), out=_out(m, do))

        _compare(run0, f"{op}({da}, 0-dim {db}, out={do})", op)
    for da, number, do in itertools.product(DTYPES, (2, 2.75, True), DTYPES):
        def run(m, da=da, number=number, do=do):
            return getattr(m, op)(_tensor(m, da), number, out=_out(m, do))

        _compare(run, f"{op}({da}, {number!r}, out={do})", op)


def test_add_with_alpha_into_another_dtype():
    for da, db, do in itertools.product(("float16", "bfloat16", "float32", "int32"), DTYPES, DTYPES):
        def run(m, da=da, db=db, do=do):
            return m.add(_tensor(m, da), _tensor(m, db, 1), alpha=3, out=_out(m, do))

        _compare(run, f"add({da}, {db}, alpha=3, out={do})", "add")


# -- unary and ternary ops ---------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ("sqrt", "exp", "sigmoid", "neg", "abs", "sin", "reciprocal", "log1p", "floor", "erf"))
def test_unary_out_of_every_dtype(op):
    for di, do in itertools.product(DTYPES, DTYPES):
        def run(m, di=di, do=do):
            return getattr(m, op)(_tensor(m, di), out=_out(m, do))

        _compare(run, f"{op}({di}, out={do})", op)


@pytest.mark.parametrize("op", ("addcmul", "addcdiv", "lerp", "clamp", "where"))
def test_ternary_out_of_every_dtype(op):
    for da, db, do in itertools.product(DTYPES, DTYPES, DTYPES):
        def run(m, da=da, db=db, do=do):
            a, b, c, o = _tensor(m, da), _tensor(m, db, 1), _tensor(m, db, 2), _out(m, do)
            if op == "lerp":
                return m.lerp(a, b, 0.3, out=o)
            if op == "clamp":
                return m.clamp(a, b, c, out=o)
            if op == "where":
                return m.where(a > 1 if da != "bool" else a, b, c, out=o)
            return getattr(m, op)(a, b, c, value=2, out=o)

        _compare(run, f"{op}({da}, {db}, out={do})", op)


def test_inplace_into_a_narrower_or_wider_self():
    """``self.op_(other)``: the common dtype of self and other, cast back into self (or torch's cast error)."""
    for ds, do, op in itertools.product(DTYPES, DTYPES, ("add_", "mul_", "div_", "sub_", "addcmul_", "lerp_")):
        def run(m, ds=ds, do=do, op=op):
            s, o = _tensor(m, ds), _tensor(m, do, 1)
            if op == "addcmul_":
                return s.addcmul_(o, o, value=2)
            if op == "lerp_":
                return s.lerp_(o, 0.5)
            return getattr(s, op)(o)

        _compare(run, f"{ds}.{op}({do})", op)


# -- reductions --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ("sum", "mean", "prod", "amax", "max"))
def test_reduction_out_of_every_dtype(op):
    for di, do, dim in itertools.product(REDUCE_DTYPES, REDUCE_DTYPES, (None, 0)):
        def run(m, di=di, do=do, dim=dim):
            x = m.tensor([1, 2, 3, 4], dtype=getattr(m, di)).reshape(2, 2)
            o = m.empty(0, dtype=getattr(m, do))
            if op == "max":
                return m.max(x, out=o) if dim is None else m.max(x, 0, out=(o, m.empty(0, dtype=m.int64)))
            if op == "amax":
                return m.amax(x, dim=(0, 1) if dim is None else dim, out=o)
            return getattr(m, op)(x, out=o) if dim is None else getattr(m, op)(x, dim, out=o)

        with warnings.catch_warnings():  # complex -> real casts warn in both libraries, each in its own category
            warnings.simplefilter("ignore")
            _compare(run, f"{op}({di}, dim={dim}, out={do})", op)


@pytest.mark.parametrize("op", ("std", "var", "cumsum", "cumprod", "logsumexp", "argmax", "all", "any", "amin"))
def test_dim_reduction_out_of_every_dtype(op):
    """Reductions along dim 0 into an ``out`` of every dtype (std/var of a real input into a complex out raise
    torch's ``"std_cpu" not implemented for 'ComplexFloat'``)."""
    for di, do in itertools.product(REDUCE_DTYPES, REDUCE_DTYPES):
        def run(m, di=di, do=do):
            x = m.tensor([1, 2, 3, 4], dtype=getattr(m, di)).reshape(2, 2)
            return getattr(m, op)(x, 0, out=m.empty(0, dtype=getattr(m, do)))

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _compare(run, f"{op}({di}, 0, out={do})", op)


_WARN_SCRIPT = """
import warnings, torch
x = torch.tensor([[1 + 2j, 3 - 1j], [2j, 4]], dtype=torch.complex64)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    getattr(torch, {op!r})(x, 0, out=torch.empty(0))
print(repr([(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in caught]))
"""


@pytest.mark.parametrize("op", ("sum", "mean", "prod"))
def test_complex_reduction_into_a_real_out_warns_as_torch(op):
    """A complex input reduced into a real ``out=`` is ``self.to(real)`` first: torch's UserWarning (pointing at
    the caller), not numpy's ComplexWarning; the values are the real parts'.  torch warns once per process
    (TORCH_WARN_ONCE), so its warnings come from a fresh interpreter."""
    def run(m):
        x = m.tensor([[1 + 2j, 3 - 1j], [2j, 4]], dtype=m.complex64)
        return getattr(m, op)(x, 0, out=m.empty(0))

    proc = subprocess.run([sys.executable, "-c", _WARN_SCRIPT.format(op=op)], capture_output=True, text=True,
                          check=True)
    want = ast.literal_eval(proc.stdout.strip().splitlines()[-1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(gt)
    assert [(w.category.__name__, str(w.message)) for w in caught] == want
    assert all(w.filename == __file__ for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(run, op, op)
