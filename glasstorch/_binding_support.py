"""Runtime helpers of the generated Python bindings (``glasstorch/_generated``) — wrap impls as Tensors.

PyTorch counterpart: ``torch/csrc/autograd/utils/wrap_outputs.h`` and ``torch/csrc/utils/structseq.cpp``
(the named tuples ``torch.return_types.max`` etc.), and the subclass test of
``torch/csrc/utils/disable_torch_function.cpp`` (``check_has_torch_function``) for the fast paths, and the
number protocol's operand rule the generated binary-operator functions fall back to (``_operator_fallback``).
Invariant: a result impl that already has a public Tensor (in-place and ``out=`` results) comes back as
that same Tensor object.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._core.torch_function import (  # noqa: F401  (re-exported: the generated bindings use them from here)
    _TS,
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    plain_tensor_subclass,
    tf_subclass_active,
    torch_function_state,
)
from ._ops.factories import numpy_impl
from .tensor import Tensor, wrap

__all__ = ["_wrap", "_wrap_list", "_wrap_tuple", "_return_type", "_make_rt", "_requires_grad", "return_types",
           "_TS", "plain_tensor_subclass", "_disabled_torch_function_impl",
           "operand_ok", "not_a_tensor_error", "_operator_fallback", "torch_function_state", "tf_subclass_active",
           "DisableTorchFunction", "DisableTorchFunctionSubclass"]

_wrap = wrap


_NUMBER = (bool, int, float, complex, np.generic)


def operand_ok(other) -> bool:
    """Whether a binary operator takes ``other`` (a Tensor or a number); otherwise it returns ``NotImplemented``
    so that Python can try the other operand (as PyTorch does for ``t == None``)."""
    return isinstance(other, (Tensor, *_NUMBER)) or isinstance(other, numbers.Number)


def not_a_tensor_error(name: str, self) -> TypeError:
    """PyTorch's error for a Tensor method called on something else (``Tensor.add(2, t)``, ``Tensor.__radd__(2, t)``):
    CPython's method-descriptor check, which comes before the argument parser and ``__torch_function__``."""
    return TypeError(f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't apply to a "
                     f"'{type(self).__name__}' object")


def _operator_fallback(method, self, other):
    """A binary operator's slow path (``methods._add_operator`` ...): the method, or NotImplemented for an operand
    it does not take, as PyTorch's TypeError_to_NotImplemented_ turns the parser's TypeError (``t @ np.int64(2)``).
    A ``self`` that is no Tensor (an explicit ``Tensor.__radd__(2, t)``) raises, as torch's descriptor check does."""
    if not isinstance(self, Tensor):
        raise not_a_tensor_error(method.__name__, self)
    if type(other) is Tensor or operand_ok(other):
        try:
            return method(self, other)
        except TypeError:
            return NotImplemented
    if isinstance(other, np.ndarray) and method.__name__ == "eq":
        # PyTorch's Tensor.__eq__ alone takes a numpy array, as a tensor over its memory (THPVariable___eq__);
        # one of a dtype torch has not (str, object) is NotImplemented
        try:
            other = wrap(numpy_impl(other))
        except TypeError:
            return NotImplemented
        return method(self, other)
    return NotImplemented


def _wrap_list(impls):
    return tuple([wrap(i) for i in impls])


def _wrap_tuple(values):
    return tuple(wrap(v) if v is not None and not isinstance(v, (int, float, bool)) else v for v in values)


class _ReturnTypes:
    """``torch.return_types``: a namespace of the named tuples ops return."""


return_types = _ReturnTypes()


def _return_type(name: str, fields: list):
    """A tuple subclass with named fields that prints like ``torch.return_types.max(values=..., indices=...)``."""
    existing = getattr(return_types, name, None)
    if existing is not None and existing._fields == tuple(fields):
        return existing

    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self, strict=True))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (type(self), tuple(self))

    ns = {"__slots__": (), "_fields": tuple(fields), "__new__": __new__, "__repr__": __repr__,
          "__reduce__": __reduce__, "n_fields": len(fields)}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    cls = type(name, (tuple,), ns)
    cls.__module__ = "torch.return_types"
    setattr(return_types, name, cls)
    return cls


def _make_rt(cls, values):
    return cls(*(wrap(v) if v is not None and not isinstance(v, (int, float, bool)) else v for v in values))


def _requires_grad(flag, impl) -> Tensor:
    """A factory binding's ``requires_grad=``: PyTorch's ``set_requires_grad``, whose text differs from
    ``requires_grad_()``'s."""
    t = wrap(impl)
    if flag:
        if not (impl.dtype.is_floating_point or impl.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t
