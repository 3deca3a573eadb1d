"""The ``__torch_function__`` protocol for non-Tensor arguments (glasstorch/overrides.py): glasstorch.* and
Tensor methods hand a call to an argument that overrides them, with PyTorch's fallbacks and messages, while
ordinary calls and their errors are unchanged."""

from __future__ import annotations

import pytest
import torch
from oracle import assert_same_error

import glasstorch
from glasstorch import overrides


def _recorder():
    class Rec:
        calls: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append((func.__name__, types, args, kwargs))
            return "handled"
    return Rec


def test_functions_and_methods_dispatch_to_the_override():
    Rec = _recorder()
    r = Rec()
    assert glasstorch.add(r, 1) == "handled"
    assert glasstorch.cat([glasstorch.ones(1), r], dim=0) == "handled"
    t = glasstorch.ones(2)
    assert t.mul(r) == "handled"
    assert glasstorch.nn.functional.gelu(r) == "handled"
    assert [c[0] for c in Rec.calls] == ["add", "cat", "mul", "gelu"]
    assert Rec.calls[1][3] == {"dim": 0} and Rec.calls[2][2] == (t, r)
    assert Rec.calls[0][1] == (Rec,)


def _declines():
    class Declines:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    return Declines


@pytest.mark.parametrize("call", ["function", "method", "nn"])
def test_all_declining_raises_torch_message(call):
    calls = {"function": lambda lib, a: lib.add(a, 1), "method": lambda lib, a: lib.ones(2).add(a),
             "nn": lambda lib, a: lib.nn.functional.gelu(a)}
    declines = _declines()
    assert_same_error(lambda: calls[call](glasstorch, declines()), lambda: calls[call](torch, declines()))


def test_handle_torch_function_python_api():
    Rec = _recorder()
    assert overrides.has_torch_function((Rec(),)) and not overrides.has_torch_function((glasstorch.ones(1), 1))
    assert overrides.has_torch_function_unary(Rec()) and overrides.has_torch_function_variadic(1, Rec())

    def public(x, k=2):
        if overrides.has_torch_function_unary(x):
            return overrides.handle_torch_function(public, (x,), x, k=k)
        return x * k
    assert public(Rec()) == "handled" and Rec.calls[-1][3] == {"k": 2}
    with pytest.raises(TypeError, match="no implementation found for '.*public' on types that implement"):
        public(_declines()())


def test_subclass_overrides_go_first():
    order = []

    class Base:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append(cls.__name__)
            return NotImplemented

    class Child(Base):
        pass

    with pytest.raises(TypeError):
        glasstorch.add(Base(), Child())
    assert order == ["Child", "Base"]


def test_tensor_method_detection():
    assert overrides.is_tensor_method_or_property(glasstorch.Tensor.add)
    assert not overrides.is_tensor_method_or_property(glasstorch.add)


def test_ordinary_errors_are_unchanged():
    assert_same_error(lambda: glasstorch.add("a", 1), lambda: torch.add("a", 1))
    assert_same_error(lambda: glasstorch.ones(2).add(object()), lambda: torch.ones(2).add(object()))
    assert_same_error(lambda: glasstorch.sum(glasstorch.ones(2), dim="x"), lambda: torch.sum(torch.ones(2), dim="x"))
