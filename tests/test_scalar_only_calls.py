"""Calls with Python numbers only, and torch's module constants, against torch.

PyTorch's parser turns a number in a Tensor slot of add/sub/mul/div/true_divide/floor_divide into a 0-dim
wrapped-number tensor, so ``torch.add(2, 3)`` is ``tensor(5)`` and promotes as Python scalars do (a float is the
default dtype); every other function refuses numbers there with its own TypeError.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch
from tests.oracle import assert_same, assert_same_error

NUMBERS = [(True, True), (True, 2), (2, 3), (2.5, 2), (2, 3.5), (1j, 2), (np.int64(2), np.float64(3.5)),
           (np.bool_(True), 1), (-7, 2), (7, 0), (7.0, 0)]
FUNCTIONS = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "eq", "ne",
             "lt", "le", "gt", "ge", "maximum", "minimum", "atan2", "bitwise_and", "bitwise_or", "logical_and",
             "hypot", "rsub", "xlogy", "copysign", "isclose", "equal", "fmax", "lerp", "bitwise_left_shift",
             "logaddexp", "where", "clamp", "max", "min", "abs", "exp"]


def _same(fn_gt, fn_th):
    try:
        th = fn_th()
    except Exception:  # noqa: BLE001 - then both must raise the same
        assert_same_error(fn_gt, fn_th)
        return
    assert_same(fn_gt(), th)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_of_numbers_only(name):
    for args in NUMBERS:
        if name == "floor_divide" and isinstance(args[0], complex):
            continue  # torch's refusal of complex floor division is the complex-dtype tests' subject
        _same(lambda args=args: getattr(glasstorch, name)(*args), lambda args=args: getattr(torch, name)(*args))


@pytest.mark.parametrize("call", [
    lambda m: m.add(2, 3, alpha=2),
    lambda m: m.add(2.5, 3, alpha=2),
    lambda m: m.sub(True, 3, alpha=2),
    lambda m: m.mul(input=2, other=3),
    lambda m: m.div(7, 2, rounding_mode="floor"),
    lambda m: m.div(7, 2, rounding_mode="trunc"),
    lambda m: m.div(-7.5, 2, rounding_mode="floor"),
    lambda m: m.add(2, 3, out=m.empty(0)),
    lambda m: m.add(2, 3, out=m.empty(0, dtype=m.int64)),
    lambda m: m.mul(2.5, 3, out=m.empty(0, dtype=m.int64)),
    lambda m: m.add(2, m.tensor([1])),
    lambda m: m.add(2, m.tensor(1.5)),
    lambda m: m.mul(2.5, m.tensor([1], dtype=m.int32)),
    lambda m: m.pow(2, m.tensor([1, 2])),
    lambda m: m.pow(self=2, exponent=3),
    lambda m: m.eq(True, 1),
    lambda m: m.add(1 << 40, 3),
    lambda m: m.add(2, "x"),
    lambda m: m.add(2),
])
def test_numbers_only_variants(call):
    _same(lambda: call(glasstorch), lambda: call(torch))


def test_numbers_only_result_is_a_fresh_tensor_without_grad():
    out = glasstorch.add(2.0, 3)
    assert out.shape == () and not out.requires_grad and out.grad_fn is None
    out.add_(1)  # an ordinary tensor: writable, no wrapped-number flag that would promote it as a scalar
    assert_same(out + glasstorch.ones(2, dtype=glasstorch.float16), torch.tensor(6.0) + torch.ones(2).half())


@pytest.mark.parametrize("name", ["inf", "nan", "e", "pi", "newaxis"])
def test_module_constants(name):
    got, want = getattr(glasstorch, name), getattr(torch, name)
    assert type(got) is type(want)
    assert got == want or (got != got and want != want)


@pytest.mark.parametrize("expr", [
    "m.result_type(1, 2.0)", "m.result_type(True, 2)", "m.result_type(2, 3)", "m.result_type(1j, 2)",
    "m.result_type(np.float64(1), 2)", "m.result_type(m.tensor([1]), 2.0)", "m.result_type(2.0, m.tensor([1]))",
    "m.result_type(m.tensor([1], dtype=m.int8), m.tensor(1000))", "m.result_type(m.tensor(1.0), m.tensor([1]))",
    "m.result_type('a', 2)", "m.result_type(m.tensor([1]), np.ones(2))",
    "m.result_type(tensor1=m.tensor(1), tensor2=2.0)",
    "m.numel(2)", "m.is_floating_point(2.0)", "m.is_complex(1j)", "m.numel(m.ones(2, 3))",
])
def test_result_type_and_predicates_of_numbers(expr):
    def run(m):
        return eval(expr, {"m": m, "np": np})  # noqa: S307 - fixed test expressions
    try:
        want = run(torch)
    except Exception:  # noqa: BLE001 - then both must raise the same
        assert_same_error(lambda: run(glasstorch), lambda: run(torch))
        return
    got = run(glasstorch)
    assert repr(got) == repr(want)


@pytest.mark.parametrize("expr", [
    "m.ones(2).copy_(3)", "m.ones(2).copy_(True)", "m.ones(2, dtype=m.int32).copy_(2.7)",
    "m.ones(2).copy_(np.float64(2))", "m.ones(2).copy_('a')", "m.ones(2).copy_(3, True)", "m.ones(2).copy_(other=3)",
    "m.ones(2, dtype=m.uint8).copy_(-1)", "m.ones(2).copy_(2**70)", "m.ones(2, dtype=m.bool).copy_(0.5)",
])
def test_copy_from_a_number(expr):
    """``copy_`` is on PyTorch's numbers-as-tensors list: the number is a 0-dim tensor, broadcast and cast."""
    _same(lambda: eval(expr, {"m": glasstorch, "np": np}), lambda: eval(expr, {"m": torch, "np": np}))  # noqa: S307
