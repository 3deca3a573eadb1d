"""Differential fuzzing: random programs run in torch and in glasstorch, every observable compared.

A program is data: a list of ``Step`` records, each one call (a method, a function, ``x[i]`` or ``x[i] = v``)
whose arguments are plain Python values or references (``V`` to an earlier result, ``DT`` to a dtype, ``T`` to a
tensor literal).  Both libraries run the same steps through one interpreter (``run``), so nothing a generator
writes can differ between them.

Generation is *oracle guided*: a ``Program`` runs each step in torch as soon as it is drawn, so a generator reads
torch's result (its shape, its dtype) to choose the next step, and a step torch rejects ends the program (its
error is the last observation).  ``Program.check()`` then replays the steps in glasstorch and compares:

* a tensor: dtype, shape, strides, storage offset, ``_version``, ``_is_view()``, ``requires_grad``, the grad_fn's
  name, which earlier results it shares storage with, and its values (exact for integers and bools, a tolerance
  by dtype for floats, NaN equal to NaN);
* a Python value (bool, int, float, tuple of tensors ...): equal, element by element;
* an exception: the same type name and exactly the same message (torch raised -> glasstorch must raise it).

On a difference the assertion prints the program as runnable Python (``import torch`` at the top), the step and
the field that differ.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import glasstorch

__all__ = [
    "ALL_DTYPES", "FLOAT_DTYPES", "INT_DTYPES", "V", "DT", "T", "Step", "Program", "run", "resolve", "tensor_literal",
    "values_for", "dims_for", "fuzz", "explore", "Stop",
]

ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
              "complex64", "complex128")
INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
COMPLEX_DTYPES = ("complex64", "complex128")

# (rtol, atol) by dtype; integers and bools compare exactly.  A generator may scale them (Program(tol_scale=)).
TOLERANCES = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (2e-6, 1e-5), "float64": (1e-12, 1e-12),
              "complex64": (2e-6, 1e-5), "complex128": (1e-12, 1e-12)}


def fuzz(examples: int):
    """Turn ``body(program_data)`` into two tests: ``test_<name>`` with ``examples`` derandomized examples (the
    bounded budget) and ``test_<name>_long``, ``slow``-marked, with the long profile (see conftest.py)."""

    def make(body):
        def fast(data):
            body(data)

        def long(data):
            body(data)

        fast.__name__ = fast.__qualname__ = f"test_{body.__name__}"
        long.__name__ = long.__qualname__ = f"test_{body.__name__}_long"
        fast_test = settings(settings.get_profile("glasstorch-fuzz"), max_examples=examples)(given(st.data())(fast))
        long_test = pytest.mark.slow(settings(settings.get_profile("glasstorch-fuzz-long"))(given(st.data())(long)))
        return fast_test, long_test

    return make


# -- program data -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class V:
    """A reference to an earlier step's result."""
    name: str

    def __repr__(self):
        return self.name


@dataclass(frozen=True)
class DT:
    """A dtype (or another torch attribute: a memory format), by name."""
    name: str

    def __repr__(self):
        return f"torch.{self.name}"


@dataclass(frozen=True)
class T:
    """A tensor literal: nested values, a dtype name and, optionally, requires_grad."""
    values: object
    dtype: str
    requires_grad: bool = False

    def __repr__(self):
        grad = ", requires_grad=True" if self.requires_grad else ""
        return f"torch.tensor({self.values!r}, dtype=torch.{self.dtype}{grad})"


@dataclass(frozen=True)
class Step:
    """``out = callee(*args, **kwargs)``; callee is ``("method", var, name)``, ``("fn", dotted_name)``,
    ``("getitem", var)`` (args = (index,)), ``("setitem", var)`` (args = (index, value)) or ``("attr", var, name)``."""
    out: str
    callee: tuple
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    observe: tuple = ()  # names observed after the step, besides the result itself

    def code(self) -> str:
        parts = [_src(a) for a in self.args] + [f"{k}={_src(v)}" for k, v in self.kwargs.items()]
        kind = self.callee[0]
        if kind == "method":
            call = f"{self.callee[1]}.{self.callee[2]}({', '.join(parts)})"
        elif kind == "fn":
            call = f"torch.{self.callee[1]}({', '.join(parts)})"
        elif kind == "attr":
            call = f"{self.callee[1]}.{self.callee[2]}"
        elif kind == "getitem":
            call = f"{self.callee[1]}[{_index_src(self.args[0])}]"
        else:
            return f"{self.callee[1]}[{_index_src(self.args[0])}] = {_src(self.args[1])}"
        return f"{self.out} = {call}"


def _src(value) -> str:
    if isinstance(value, slice):
        return f"slice({value.start!r}, {value.stop!r}, {value.step!r})"
    if value is Ellipsis:
        return "..."
    if isinstance(value, tuple):
        return "(" + ", ".join(_src(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_src(v) for v in value) + "]"
    return repr(value)


def _index_src(index) -> str:
    items = index if isinstance(index, tuple) else (index,)
    text = ", ".join(_slice_src(i) if isinstance(i, slice) else _src(i) for i in items)
    return text + ("," if isinstance(index, tuple) and len(index) == 1 else "") if items else "()"


def _slice_src(s: slice) -> str:
    text = ("" if s.start is None else repr(s.start)) + ":" + ("" if s.stop is None else repr(s.stop))
    return text + ("" if s.step is None else f":{s.step!r}")


# -- the interpreter ----------------------------------------------------------------------------------------------

def _resolve(m, env, value):
    if isinstance(value, V):
        return env[value.name]
    if isinstance(value, DT):
        return getattr(m, value.name)
    if isinstance(value, T):
        return m.tensor(value.values, dtype=getattr(m, value.dtype), requires_grad=value.requires_grad)
    if isinstance(value, tuple):
        return tuple(_resolve(m, env, v) for v in value)
    if isinstance(value, list):
        return [_resolve(m, env, v) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(m, env, v) for k, v in value.items()}
    return value


def resolve(value, m=torch, env=None):
    """``value`` (program data) as library ``m`` sees it: ``T`` becomes a tensor, ``DT`` a dtype, ``V`` its value."""
    return _resolve(m, env or {}, value)


def _call(m, env, step: Step):
    args = _resolve(m, env, step.args)
    kwargs = _resolve(m, env, step.kwargs)
    kind = step.callee[0]
    if kind == "method":
        return getattr(env[step.callee[1]], step.callee[2])(*args, **kwargs)
    if kind == "fn":
        fn = m
        for part in step.callee[1].split("."):
            fn = getattr(fn, part)
        return fn(*args, **kwargs)
    if kind == "attr":
        return getattr(env[step.callee[1]], step.callee[2])
    if kind == "getitem":
        return env[step.callee[1]][args[0]]
    env[step.callee[1]][args[0]] = args[1]
    return None


def _storage_key(t):
    storage = t.untyped_storage()
    return storage.data_ptr() if storage.nbytes() else None


def observe(m, env, value, depth=0):
    """A library-independent record of ``value`` (see module doc); tensors name the env entries they share with."""
    if isinstance(value, m.Tensor):
        return _observe_tensor(env, value)
    if isinstance(value, (tuple, list)) and depth < 2:  # the type's name: tuple, list, or max for torch.max(x, 0)
        return (type(value).__name__, tuple(observe(m, env, v, depth + 1) for v in value))
    if isinstance(value, (m.dtype,)):
        return ("dtype", repr(value))
    if isinstance(value, m.Size):
        return ("Size", tuple(value))
    return ("py", type(value).__name__, value)


def _observe_tensor(env, t):
    key = _storage_key(t)
    shares = tuple(sorted(name for name, other in env.items()
                          if hasattr(other, "untyped_storage") and other is not t and key is not None
                          and _storage_key(other) == key))
    grad_fn = t.grad_fn
    meta = {"dtype": repr(t.dtype).removeprefix("torch."), "shape": tuple(t.shape), "stride": tuple(t.stride()),
            "storage_offset": t.storage_offset(), "_version": t._version, "is_view": t._is_view(),
            "requires_grad": t.requires_grad, "grad_fn": type(grad_fn).__name__ if grad_fn is not None else None,
            "shares_storage_with": shares}
    return ("tensor", meta, _values(t))


def _values(t):
    flat = t.detach().reshape(-1).tolist()
    return np.asarray(flat, dtype=complex if t.is_complex() else float).reshape(tuple(t.shape))


def run(m, steps, env=None, on_step=None):
    """Run ``steps`` with library ``m``; returns the observations (one per step, then its ``observe`` names).

    The first exception ends the run; its record ``("raise", type name, message)`` is the last observation.
    """
    env = {} if env is None else env
    records = []
    for i, step in enumerate(steps):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = _call(m, env, step)
        except Exception as e:  # noqa: BLE001 - the exception is the observation
            records.append((i, "raise", type(e).__name__, str(e)))
            return records
        env[step.out] = result
        records.append((i, step.out, observe(m, env, result)))
        records.extend((i, name, observe(m, env, env[name])) for name in step.observe)
        if on_step is not None:
            on_step(env)
    return records


# -- oracle-guided generation -------------------------------------------------------------------------------------

class Program:
    """Steps drawn one at a time, each run in torch at once (see module doc).

    ``do(...)`` appends a step and returns torch's result, or raises ``Stop`` (caught by ``check``) when torch
    raised: the program ends at its first error.
    """

    def __init__(self, data, tol_scale=1.0, exact=False, lenient=None):
        self.data, self.tol_scale, self.exact = data, tol_scale, exact
        self.lenient = lenient or {}  # step name or callee -> tensor fields not compared on its results (open items)
        self.steps: list[Step] = []
        self.env: dict = {}
        self.records: list = []
        self.stopped = False
        self._count = 0

    def draw(self, strategy, label=None):
        return self.data.draw(strategy, label=label)

    def fresh(self, prefix="t"):
        self._count += 1
        return f"{prefix}{self._count}"

    def do(self, callee, /, *args, name=None, observe=(), **kwargs):
        """Run one step in torch, its result stored as ``name`` (a fresh one by default); returns the result
        (raises Stop when torch raised).  ``kwargs`` are the call's (``out=V("o")`` is an out= argument)."""
        if self.stopped:
            raise Stop
        step = Step(name or self.fresh(), callee, args, kwargs, tuple(observe))
        self.steps.append(step)
        records = run(torch, [step], self.env)
        self.records.extend((len(self.steps) - 1, *r[1:]) for r in records)
        if records and records[-1][1] == "raise":
            self.stopped = True
            raise Stop
        return self.env[step.out]

    def method(self, var, method_name, /, *args, **kwargs):
        return self.do(("method", var, method_name), *args, **kwargs)

    def fn(self, fn_name, /, *args, **kwargs):
        return self.do(("fn", fn_name), *args, **kwargs)

    def name_of(self, _result) -> str:
        """The name of the step just run: ``p.method(p.name_of(p.method("x", "abs")), "log1p")``."""
        return self.steps[-1].out

    def code(self) -> str:
        return "\n".join(["import torch"] + [s.code() for s in self.steps])

    def check(self):
        """Replay the steps in glasstorch and compare every observation with torch's (AssertionError if not)."""
        mismatch = self.compare()
        if mismatch:
            raise AssertionError(mismatch[1])

    def compare(self):
        """``None``, or ``(signature, report)`` for the first observation that differs; the signature names the
        kind of difference and the operator (what triage groups by)."""
        got = run(glasstorch, self.steps)
        for i, (g, w) in enumerate(zip(got, self.records, strict=False)):
            problem = _difference(g, w, self.tol_scale, self.exact, self._lenient(self.steps[w[0]]))
            if problem:
                return self._mismatch(problem, w[0], f"at observation {i}", g, w)
        if len(got) != len(self.records):
            extra = len(got) > len(self.records)
            g, w = (got[len(self.records)], None) if extra else (None, self.records[len(got)])
            return self._mismatch("glasstorch made more observations" if extra else "glasstorch stopped early",
                                  (g or w)[0], "", g, w)
        return None

    def _lenient(self, step):
        return self.lenient.get(step.out) or self.lenient.get(_callee_name(step))

    def _mismatch(self, problem, index, where, got, want):
        step = self.steps[index]
        signature = f"{problem.split(':')[0]} @ {_callee_name(step)}"
        report = (f"{problem}\n  {where} (step {index}: {step.code()})\n  glasstorch: {_short(got)}"
                  f"\n  torch:      {_short(want)}\nprogram:\n{self.code()}")
        return signature, report


def _callee_name(step: Step) -> str:
    return step.callee[-1] if step.callee[0] in ("method", "fn", "attr") else step.callee[0]


class Stop(Exception):
    """torch raised: the program ends here."""


def _short(record) -> str:
    text = repr(record)
    return text if len(text) < 1500 else text[:1500] + " ..."


def _difference(got, want, tol_scale, exact, skip=None) -> str | None:
    if got[1] == "raise" or want[1] == "raise":
        if got[1:] != want[1:]:
            return "exception differs" if got[1] == want[1] == "raise" else "one library raised, the other did not"
        return None
    if got[1] != want[1]:
        return "observations out of step"
    return _value_difference(got[2], want[2], tol_scale, exact, skip or ())


def _value_difference(got, want, tol_scale, exact, skip=()) -> str | None:
    if got[0] != want[0]:
        return f"kind differs: {got[0]} vs {want[0]}"
    if got[0] == "tensor":
        for key in want[1]:
            if key not in skip and got[1][key] != want[1][key]:
                return f"tensor {key} differs: {got[1][key]!r} vs {want[1][key]!r}"
        return _array_difference(got[2], want[2], want[1]["dtype"], tol_scale, exact)
    if isinstance(got[1], tuple) and got[0] not in ("py", "Size", "dtype"):
        if len(got[1]) != len(want[1]):
            return f"length differs: {len(got[1])} vs {len(want[1])}"
        for g, w in zip(got[1], want[1], strict=True):
            problem = _value_difference(g, w, tol_scale, exact, skip)
            if problem:
                return problem
        return None
    if got[0] == "py" and got[1] == want[1] == "float" and not exact:
        return None if math.isclose(got[2], want[2], rel_tol=1e-6, abs_tol=1e-9) or got[2] == want[2] or (
            math.isnan(got[2]) and math.isnan(want[2])) else f"float differs: {got[2]!r} vs {want[2]!r}"
    return None if got == want else f"value differs: {got!r} vs {want!r}"


def _array_difference(got, want, dtype, tol_scale, exact) -> str | None:
    rtol, atol = (0.0, 0.0) if exact else TOLERANCES.get(dtype, (0.0, 0.0))
    try:
        np.testing.assert_allclose(got, want, rtol=rtol * tol_scale, atol=atol * tol_scale, equal_nan=True)
    except AssertionError as e:
        return f"values differ ({dtype}):{str(e)[:600]}"
    return None


# -- strategies ---------------------------------------------------------------------------------------------------

def values_for(dtype: str, small=True):
    """Element values for ``dtype``: small integers (exact in every dtype), halves, and for floats sometimes
    a special value."""
    if dtype == "bool":
        return st.booleans()
    if dtype == "uint8":
        return st.integers(0, 9)
    if dtype in INT_DTYPES:
        return st.integers(-9, 9)
    real = st.integers(-6, 6).map(float) | st.sampled_from([0.5, -1.5, 2.25, -0.0])
    if not small:
        real = real | st.sampled_from([float("inf"), float("-inf"), float("nan"), 1e4, -3e-3])
    if dtype in COMPLEX_DTYPES:
        return st.tuples(real, real).map(lambda p: complex(*p))
    return real


@st.composite
def tensor_literal(draw, shape, dtype, small=True, requires_grad=False):
    """A ``T`` of ``shape`` and ``dtype`` with values from ``values_for``."""
    n = math.prod(shape)
    flat = draw(st.lists(values_for(dtype, small), min_size=n, max_size=n))
    return T(_nest(flat, shape), dtype, requires_grad)


def _nest(flat, shape):
    if not shape:
        return flat[0]
    step = math.prod(shape[1:])
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def dims_for(ndim, allow_bad=True):
    """A dim for a tensor of ``ndim`` dims: in range (maybe negative), now and then one past either end."""
    n = max(ndim, 1)
    good = st.integers(-n, n - 1)
    if not allow_bad:
        return good
    return st.integers(0, 11).flatmap(lambda k: st.sampled_from([n, -n - 1]) if k == 0 else good)


def explore(data, generator, **program_options):
    """Draw a program with ``generator(program)`` (torch runs each step as it is drawn), then replay and compare."""
    program = Program(data, **program_options)
    try:
        generator(program)
    except Stop:
        pass
    program.check()
