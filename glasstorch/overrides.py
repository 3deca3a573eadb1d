"""``glasstorch.overrides`` — PyTorch's ``torch/overrides.py``: the ``__torch_function__`` protocol.

An object that is not a Tensor but defines a ``__torch_function__`` classmethod (``glasstorch.fx.Proxy`` is
the one in this code base) can stand in for a Tensor in a ``glasstorch.*`` call or a Tensor method call:
``glasstorch.add(proxy, 1)`` becomes ``type(proxy).__torch_function__(glasstorch.add, (Proxy,), (proxy, 1), {})``.

Tensor subclasses take part too (PyTorch's rule): Tensor has a default ``__torch_function__`` that runs the
function as for plain Tensors and returns Tensor results as the subclass (``Tensor.as_subclass``), so
``type(s + 1)`` is the subclass of ``s``; a class may override it.  Only a subclass whose
``__torch_function__`` is ``_disabled_torch_function_impl`` (``nn.Parameter``, ``nn.Buffer``, ``FakeTensor``)
behaves as a plain Tensor.  ``DisableTorchFunctionSubclass`` / ``DisableTorchFunction`` switch the protocol
off in a block (Note [Torch function state] in ``_core/torch_function.py``, where the protocol's core lives,
below autograd and the Tensor class, as PyTorch keeps it in its C layer).

Where the check happens: the generated bindings' fast paths accept exact Tensors, numbers and the disabled
subclasses only.  Anything else goes to the full parser: its Tensor conversions raise
``TorchFunctionOverload`` (a TypeError) on meeting a subclass argument that takes part, and a Tensor method
checks ``self`` first; a type it does not know raises its usual TypeError.  Either way the binding then calls
:func:`_binding_fallback`, which looks for overloaded arguments and hands the call to them, or re-raises the
parser's error.  So the protocol costs plain Tensors nothing.  Python functions that want the protocol
(``nn.functional``) call :func:`has_torch_function` / :func:`handle_torch_function` themselves.

Hand-written Tensor methods take part through ``tensor._subclass_protocol`` (``detach``, ``to``, the dtype
casts, ``new_*``, ``split``, ``as_subclass``) or their own check (indexing).  Not done (PyTorch does these):
attribute and property reads (``s.shape``, ``s.grad``), the remaining hand-written methods (``size``, ``item``,
``backward`` ...) and hand-written functions outside the bindings (``zeros``, ``tensor``) do not call
``__torch_function__``; torch function modes do not exist.
"""

from __future__ import annotations

import contextlib
import sys

from ._binding_support import not_a_tensor_error
from ._core.torch_function import (
    dispatch_overloaded,
    get_overloaded_args,
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
from .tensor import _DEFAULT_NOWRAP, Tensor
from .utils._python_dispatch import _RestorePythonTLSSnapshot

__all__ = ["get_default_nowrap_functions", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "handle_torch_function",
           "is_tensor_method_or_property", "get_overloaded_args", "enable_reentrant_dispatch"]


def _candidates(values):
    """The arguments the protocol looks at: each value and the elements of a list or tuple value."""
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from v
        else:
            yield v


def get_default_nowrap_functions() -> set:
    """The functions whose results Tensor's default ``__torch_function__`` leaves unconverted (a copy)."""
    return set(_DEFAULT_NOWRAP)


def is_tensor_method_or_property(func) -> bool:
    """Whether ``func`` is a Tensor method (``Tensor.add``) or a property getter, as ``__torch_function__`` sees it."""
    name = getattr(func, "__name__", None)
    if name is None:
        return False
    if name == "__get__":
        return True
    return getattr(Tensor, name, None) is func


def _binding_name(func) -> str:
    """The name PyTorch's C++ bindings report: ``torch.add``, ``torch.Tensor.add``, ``torch.nn.gelu``."""
    name = func.__name__
    if func.__module__.endswith(".methods"):
        return f"torch.Tensor.{name}"
    generated = sys.modules.get(func.__module__)
    for attr in dir(generated):
        if attr.endswith("_FUNCTIONS") and name in getattr(generated, attr):
            return f"torch.{attr[:-len('_FUNCTIONS')].lower()}.{name}"
    return f"torch.{name}"


def _binding_fallback(exc, func, args, kwargs):
    """A generated binding's parser failed with ``exc``: hand the call to an overloaded argument, or re-raise.

    Raises:
        TypeError: ``exc`` when no argument overrides; PyTorch's "Multiple dispatch failed" when all decline;
            for a method (``exc`` None) whose ``self`` is no Tensor, the descriptor error.
    """
    if exc is None and not isinstance(args[0], Tensor):
        raise not_a_tensor_error(func.__name__, args[0])
    relevant = list(_candidates(args))
    if kwargs:
        relevant += _candidates(kwargs.values())
    if not has_torch_function(relevant):
        raise exc
    overloaded_args = get_overloaded_args(relevant)
    result = dispatch_overloaded(func, overloaded_args, args, kwargs or {})
    if result is NotImplemented:
        handlers = "".join(f"  - tensor subclass {type(a)}\n" for a in overloaded_args)
        raise TypeError(f"Multiple dispatch failed for '{_binding_name(func)}'; all __torch_function__ handlers "
                        f"returned NotImplemented:\n\n{handlers}\nFor more information, try re-running with "
                        f"TORCH_LOGS=not_implemented")
    return result


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """Inside a ``__torch_dispatch__``: operators called in the block dispatch as from the top (autograd
    records them), PyTorch's context manager over ``torch._C._RestorePythonTLSSnapshot``."""
    with _RestorePythonTLSSnapshot():
        yield

