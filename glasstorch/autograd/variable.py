"""``torch.autograd.Variable``: the pre-0.4 wrapper, kept as PyTorch keeps it.

Since PyTorch 0.4 every Tensor is a Variable: ``isinstance(t, Variable)`` is true for any Tensor, and
``Variable(t, requires_grad=...)`` returns a new leaf over ``t``'s data (a detached alias sharing storage and version
counter). Third-party code such as graph drawers still spells it this way.
"""

from __future__ import annotations

import warnings

from .._core.device import as_device
from .._core.dtype import get_default_dtype
from .._ops.factories import full_impl
from .._tensor.impl import TensorImpl
from . import graph as _graph
from .engine import ImperativeEngine

__all__ = ["Variable", "VariableMeta"]


def _is_tensor(obj) -> bool:
    # Every Tensor (subclasses included) is the facade over a TensorImpl; this layer sits below the Tensor class.
    return isinstance(getattr(obj, "_impl", None), TensorImpl)


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return _is_tensor(other)


class Variable(metaclass=VariableMeta):
    """``Variable(data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None)`` -> Tensor."""

    _execution_engine = ImperativeEngine()  # Variable._execution_engine.queue_callback(...), as in PyTorch

    def __new__(cls, data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"argument 5 must be str or None, not {type(name).__name__}")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if _grad_fn is not None:
            raise TypeError(f"_grad_fn has to be a Function object or None, but got {type(_grad_fn).__name__}")
        if data is None:
            data = _graph.to_tensor(full_impl((0,), 0, get_default_dtype(), as_device("cpu")))
        elif not _is_tensor(data):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            if not (out.dtype.is_floating_point or out.dtype.is_complex):  # the C++ constructor's check and text
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            out.requires_grad_(True)
        return out
