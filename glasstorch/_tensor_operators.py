"""Python operators on Tensor (``+ - * / // % ** @ == < & | ^ ~ -x`` and their reflected/in-place forms).

PyTorch counterpart: the number protocol of ``torch/csrc/autograd/python_variable_methods.cpp`` and the
reflected operators of ``torch/_tensor.py``.  Every operator routes through the same generated
bindings (and so the same dispatcher ops) as the named functions: ``a + b`` is ``a.add(b)``,
``2 - a`` is ``torch.rsub(a, 2)``, ``2 / a`` is ``a.reciprocal() * 2``, ``2 ** a`` is ``torch.pow(2, a)``.

Invariant: an operand that is neither a Tensor nor a Python/numpy number makes the operator return
``NotImplemented``, so Python can try the other operand (as PyTorch does for ``t == None``); a numpy array
is such an operand (Note [numpy interop] in tensor.py), except for ``==`` (``_operator_fallback``).
"""

from __future__ import annotations

from ._binding_support import _operator_fallback
from ._binding_support import operand_ok as _ok
from ._generated import functions as _F
from ._generated import methods as _methods
from .tensor import Tensor

__all__ = ["install"]


def _forward(method: str):
    # The generated method itself (resolved once: install runs after the methods are attached), called directly
    # as PyTorch's C++ number protocol does — a subclass overriding ``add`` does not change ``+``.  When that is
    # the generated method, its generated operator function (``methods._add_operator``: the method's fast path
    # for one operand, else ``_operator_fallback``, which is ``op`` below) saves the varargs call in between.
    fn = getattr(Tensor, method)
    fast = _methods.OPERATORS.get(method)
    if fast is not None and fn is getattr(_methods, method):
        return fast

    def op(self, other):
        return _operator_fallback(fn, self, other)
    op.__name__ = method
    return op


def _inplace(method: str):
    # as _forward: the generated in-place method's operator function (``methods._add__operator``) when the method
    # is the generated one; PyTorch's ``a += b`` calls its C binding, never a subclass's ``add_``
    fast = _methods.OPERATORS.get(method)
    if fast is not None and getattr(Tensor, method) is getattr(_methods, method):
        return fast

    def op(self, other):
        if not _ok(other) or _typeerror_is_notimplemented(getattr(self, method), other) is NotImplemented:
            return NotImplemented
        return self
    op.__name__ = method
    return op


def _typeerror_is_notimplemented(fn, *args):
    # PyTorch's operators (TypeError_to_NotImplemented_, _handle_torch_function_and_wrap_type_error_to_not_implemented):
    # a TypeError, an operand the function does not take (``t @ np.int64(2)``), lets Python try the other operand
    try:
        return fn(*args)
    except TypeError:
        return NotImplemented


def _functional(fname: str, swap: bool):
    fn = getattr(_F, fname)  # the generated function (glasstorch.pow ...)

    def op(self, other):
        if not _ok(other):
            return NotImplemented
        return _typeerror_is_notimplemented(fn, *((other, self) if swap else (self, other)))
    op.__name__ = fname
    return op


def _rsub(self, other):
    if not _ok(other):
        return NotImplemented
    return _typeerror_is_notimplemented(_F.rsub, self, other)


def _reciprocal_times(self, other):
    return self.reciprocal() * other


def _rtruediv(self, other):
    # PyTorch's __rdiv__ multiplies whatever ``other`` is (``ndarray / t`` is numpy's product with 1/t)
    return _typeerror_is_notimplemented(_reciprocal_times, self, other)


def _neg(self):
    return self.neg()


def _pos(self):
    if self.dtype.__repr__() == "torch.bool":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _abs(self):
    return self.abs()


def _invert(self):
    if self.is_floating_point() or self.is_complex():  # python_variable_methods.cpp's THPVariable_invert
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return self.bitwise_not()


def install() -> None:
    """Attach the operators to Tensor (after the generated methods, which ``_forward`` resolves)."""
    table = {
        "__add__": _forward("add"), "__radd__": _forward("add"), "__iadd__": _inplace("add_"),
        "__sub__": _forward("sub"), "__rsub__": _rsub, "__isub__": _inplace("sub_"),
        "__mul__": _forward("mul"), "__rmul__": _forward("mul"), "__imul__": _inplace("mul_"),
        "__truediv__": _forward("div"), "__rtruediv__": _rtruediv,
        "__rdiv__": _rtruediv, "__itruediv__": _inplace("div_"),
        "__floordiv__": _forward("floor_divide"), "__rfloordiv__": _functional("floor_divide", True),
        "__ifloordiv__": _inplace("floor_divide_"),
        "__mod__": _forward("remainder"), "__rmod__": _functional("remainder", True),
        "__imod__": _inplace("remainder_"),
        "__pow__": _forward("pow"), "__rpow__": _functional("pow", True), "__ipow__": _inplace("pow_"),
        "__matmul__": _forward("matmul"), "__rmatmul__": _functional("matmul", True),
        "__eq__": _forward("eq"), "__ne__": _forward("ne"), "__lt__": _forward("lt"), "__le__": _forward("le"),
        "__gt__": _forward("gt"), "__ge__": _forward("ge"),
        "__and__": _forward("bitwise_and"), "__rand__": _forward("bitwise_and"),
        "__iand__": _inplace("bitwise_and_"),
        "__or__": _forward("bitwise_or"), "__ror__": _forward("bitwise_or"), "__ior__": _inplace("bitwise_or_"),
        "__xor__": _forward("bitwise_xor"), "__rxor__": _forward("bitwise_xor"),
        "__ixor__": _inplace("bitwise_xor_"),
        "__lshift__": _forward("bitwise_left_shift"), "__rlshift__": _functional("bitwise_left_shift", True),
        "__ilshift__": _inplace("bitwise_left_shift_"),
        "__rshift__": _forward("bitwise_right_shift"), "__rrshift__": _functional("bitwise_right_shift", True),
        "__irshift__": _inplace("bitwise_right_shift_"),
        "__neg__": _neg, "__pos__": _pos, "__abs__": _abs, "__invert__": _invert,
    }
    for name, fn in table.items():
        setattr(Tensor, name, fn)
    Tensor.__hash__ = object.__hash__  # defining __eq__ must not make tensors unhashable
