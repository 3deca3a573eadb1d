"""``glasstorch.nn.parameter`` — PyTorch's ``torch/nn/parameter.py``: ``Parameter`` and ``Buffer``.

A :class:`Parameter` is a Tensor subclass made by ``Tensor._make_subclass``: a new TensorImpl over the data's
storage and version counter, detached from any graph, whose ``pyobj`` is the Parameter object, so every op
that hands that impl back (``p.mul_(2)``, ``p.requires_grad_()``) returns the Parameter itself.  Assigning a
Parameter to a Module attribute registers it.

A :class:`Buffer` is not a class of objects at all once made: ``Buffer(t)`` returns a detached plain Tensor
marked ``_is_buffer`` (and ``persistent``); ``isinstance(x, Buffer)`` reads that mark.

Invariant: ``isinstance(p, Tensor)`` holds for every Parameter; ``isinstance(x, Parameter)`` is true for
Parameter objects and for tensors of other subclasses marked ``_is_param``.
"""

from __future__ import annotations

from collections import OrderedDict

from .._binding_support import _disabled_torch_function_impl
from .._functions import empty
from ..tensor import Tensor

__all__ = ["Parameter", "Buffer", "is_lazy"]


class _ParameterMeta(type):
    """``isinstance(x, Parameter)`` also accepts tensors of other subclasses marked ``_is_param``."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Parameter and isinstance(instance, Tensor) and getattr(instance, "_is_param", False):
            return True
        return type.__instancecheck__(cls, instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that a Module registers as a parameter when assigned as an attribute (``torch.nn.Parameter``).

    Args:
        data: the tensor whose memory the parameter uses (an empty tensor when None).
        requires_grad: whether the parameter requires gradient (default True).

    Example:
        >>> import glasstorch as torch
        >>> p = torch.nn.Parameter(torch.zeros(2))
        >>> p.requires_grad, isinstance(p, torch.Tensor)
        (True, True)
    """

    __slots__ = ()
    # outside __torch_function__, so ``p * 2`` is a plain Tensor and ops take the fast paths (as in PyTorch)
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if type(data) is Tensor or type(data) is Parameter:
            return Tensor._make_subclass(cls, data, requires_grad)
        t = data.detach().requires_grad_(requires_grad)
        if type(t) is not type(data):
            raise RuntimeError(f"Creating a Parameter from an instance of type {type(data).__name__} requires that "
                               f"detach() returns an instance of the same type, but return type {type(t).__name__} "
                               f"was found instead. To use the type as a Parameter, please correct the detach() "
                               f"semantics defined by its __torch_dispatch__() implementation.")
        t._is_param = True
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        state = {k: v for k, v in getattr(self, "__dict__", {}).items()}
        if not state:
            return _rebuild_parameter, (self.data, self.requires_grad, OrderedDict())
        return _rebuild_parameter_with_state, (self.data, self.requires_grad, OrderedDict(), state)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """``torch._utils._rebuild_parameter``: the unpickling side of ``Parameter.__reduce_ex__``."""
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = Parameter(data, requires_grad)
    for k, v in state.items():
        setattr(param, k, v)
    return param


class _BufferMeta(type):
    """``isinstance(x, Buffer)`` is true for tensors marked ``_is_buffer`` by ``Buffer(...)``."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return type.__instancecheck__(cls, instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute (``torch.nn.Buffer``).

    ``Buffer(t, persistent=False)`` returns a detached plain Tensor carrying ``persistent`` and ``_is_buffer``.

    Example:
        >>> import glasstorch as torch
        >>> b = torch.nn.Buffer(torch.ones(2))
        >>> type(b).__name__, b.persistent
        ('Tensor', True)
    """

    __slots__ = ()
    # outside __torch_function__, so ``p * 2`` is a plain Tensor and ops take the fast paths (as in PyTorch)
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param) -> bool:
    """True for uninitialized (lazy) parameters and buffers; glasstorch has no Lazy modules, so always False."""
    return False
