"""The fuzzer's own comparison can fail: each observable it claims to compare, changed on one side, is reported.

Records are made with torch (``programs.run``); one side's record or program differs in exactly one observable
and ``programs._difference`` must name it.  And the program the fuzzer prints is runnable torch code.
"""

from __future__ import annotations

import copy

import pytest
import torch
from programs import DT, Step, V, _difference, run

BASE = [Step("x", ("fn", "arange"), (6.0,)), Step("v", ("method", "x", "view"), ((2, 3),)),
        Step("w", ("fn", "tensor"), ([1.0, 2.0],), {"dtype": DT("float64"), "requires_grad": True})]

CHANGES = {  # name -> (steps on one side, steps on the other, words the report must contain)
    "values": ("v", "add", (1.0,), (2.0,), "values differ"),
    "dtype": ("v", "to", (DT("float64"),), (DT("float32"),), "dtype"),
    "shape": ("v", "reshape", ((3, 2),), ((6,),), "shape"),
    "storage_offset": ("x", "narrow", (0, 0, 3), (0, 3, 3), "storage_offset"),
    "version": ("v", "add_", (0.0,), None, "_version"),
    "error_text": ("v", "view", ((4,),), ((5,),), "exception differs"),
    "raised_or_not": ("v", "view", ((4,),), ((6,),), "one library raised"),
    "grad_fn": ("w", "sin", (), "cos", "grad_fn"),
}


def _side(var, method, args):
    return run(torch, BASE + [Step("r", ("method", var, method), args)])


def _first_problem(a, b, exact=True):
    return next((p for p in (_difference(x, y, 1.0, exact) for x, y in zip(a, b, strict=True)) if p), None)


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_each_observable_is_compared(name):
    var, method, args, other, words = CHANGES[name]
    a = _side(var, method, args)
    if other is None:  # the out-of-place twin: the same values, no version bump
        b = _side(var, method.rstrip("_"), args)
    elif isinstance(other, str):
        b = _side(var, other, args)
    else:
        b = _side(var, method, other)
    problem = _first_problem(a, b)
    assert problem is not None and words in problem, problem


@pytest.mark.parametrize("field", ["dtype", "shape", "stride", "storage_offset", "_version", "is_view",
                                   "requires_grad", "grad_fn", "shares_storage_with"])
def test_each_tensor_field_is_compared(field):
    a = run(torch, BASE + [Step("r", ("method", "v", "t"), ())])
    b = copy.deepcopy(a)
    meta = b[-1][2][1]
    meta[field] = ("changed",)
    assert field in _first_problem(a, b)


def test_a_tolerance_forgives_rounding_only():
    a, b, c = (_side("v", "mul", (k,)) for k in (1.0, 1.0 + 1e-7, 1.001))
    assert _first_problem(a, b, exact=False) is None
    assert _first_problem(a, b, exact=True) is not None
    assert _first_problem(a, c, exact=False) is not None


def test_printed_program_runs_in_torch():
    steps = BASE + [Step("s", ("getitem", "v"), ((Ellipsis, slice(None, None, 2), None),)),
                    Step("n", ("fn", "add"), (V("s"), 1), {"out": V("s")}),
                    Step("_", ("setitem", "v"), ((0, slice(1, None)), 5.0))]
    code = "\n".join(["import torch"] + [s.code() for s in steps])
    env: dict = {}
    exec(code, env)  # noqa: S102 - the fuzzer's own output, run to check that it is valid Python
    assert env["v"][0].tolist() == [1.0, 5.0, 5.0]
    assert run(torch, steps)[-1][1] == "_"
