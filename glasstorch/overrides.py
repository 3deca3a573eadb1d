"""``glasstorch.overrides`` — PyTorch's ``torch/overrides.py``: the ``__torch_function__`` protocol.

An object that is not a Tensor but defines a ``__torch_function__`` classmethod (``glasstorch.fx.Proxy`` is
the one in this code base) can stand in for a Tensor in a ``glasstorch.*`` call or a Tensor method call:
``glasstorch.add(proxy, 1)`` becomes ``type(proxy).__torch_function__(glasstorch.add, (Proxy,), (proxy, 1), {})``.

Tensor subclasses take part too (PyTorch's rule): Tensor has a default ``__torch_function__`` that runs the
function as for plain Tensors and returns Tensor results as the subclass (``Tensor.as_subclass``), so
``type(s + 1)`` is the subclass of ``s``; a class may override it.  Only a subclass whose
``__torch_function__`` is ``_disabled_torch_function_impl`` (``nn.Parameter``, ``nn.Buffer``, ``FakeTensor``)
behaves as a plain Tensor.  ``DisableTorchFunctionSubclass`` / ``DisableTorchFunction`` switch the protocol
off in a block (Note [Torch function state] in ``_binding_support.py``).

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

from ._binding_support import (
    _disabled_torch_function_impl,
    not_a_tensor_error,
    tf_subclass_active,
    torch_function_state,
)
from .autograd import register_torch_function_protocol
from .tensor import Tensor
from .utils._python_dispatch import _RestorePythonTLSSnapshot

__all__ = ["get_default_nowrap_functions", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "handle_torch_function",
           "is_tensor_method_or_property", "get_overloaded_args", "enable_reentrant_dispatch"]


def _overloaded(x) -> bool:
    """``x`` takes part in the protocol now: a Tensor subclass with an active ``__torch_function__`` (Tensor's
    default counts), or another type that defines one; the switches of Note [Torch function state] apply."""
    cls = type(x)
    if cls is Tensor or isinstance(x, (int, float, bool, str, type(None))):
        return False
    if isinstance(x, Tensor):
        return tf_subclass_active(cls)
    impl = getattr(cls, "__torch_function__", None)
    return impl is not None and impl is not _disabled_torch_function_impl and not torch_function_state.all_off


def _candidates(values):
    """The arguments the protocol looks at: each value and the elements of a list or tuple value."""
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from v
        else:
            yield v


def get_overloaded_args(relevant_args) -> list:
    """The overloaded arguments in the order their ``__torch_function__`` is tried (subclasses first)."""
    out, types = [], []
    for arg in relevant_args:
        if not _overloaded(arg) or type(arg) in types:
            continue
        index = len(out)
        for i, seen in enumerate(out):
            if issubclass(type(arg), type(seen)):  # a subclass goes before its parent
                index = i
                break
        out.insert(index, arg)
        types.insert(index, type(arg))
    return out


def get_default_nowrap_functions() -> set:
    """The functions whose results Tensor's default ``__torch_function__`` leaves unconverted (a copy)."""
    from .tensor import _DEFAULT_NOWRAP
    return set(_DEFAULT_NOWRAP)


def has_torch_function(relevant_args) -> bool:
    """Whether any of ``relevant_args`` overrides glasstorch functions through ``__torch_function__``."""
    return any(_overloaded(a) for a in relevant_args)


def has_torch_function_unary(arg) -> bool:
    """:func:`has_torch_function` for one argument."""
    return _overloaded(arg)


def has_torch_function_variadic(*args) -> bool:
    """:func:`has_torch_function` for the positional arguments."""
    return any(_overloaded(a) for a in args)


def _dispatch(public_api, overloaded_args: list, args: tuple, kwargs: dict):
    """The first result of the overloaded arguments' ``__torch_function__`` that is not NotImplemented."""
    types = tuple(type(a) for a in overloaded_args)
    for arg in overloaded_args:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    return NotImplemented


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call ``__torch_function__`` of the overloaded arguments in order until one does not return NotImplemented.

    Raises:
        TypeError: every implementation returned NotImplemented (PyTorch's message).
    """
    overloaded_args = get_overloaded_args(relevant_args)
    result = _dispatch(public_api, overloaded_args, args, kwargs)
    if result is NotImplemented:
        module = str(getattr(public_api, "__module__", None))
        if module.startswith("glasstorch"):
            module = "torch" + module[len("glasstorch"):]
        name = f"{module}.{getattr(public_api, '__name__', public_api)}"
        raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: "
                        f"{[type(a) for a in overloaded_args]}")
    return result


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
    result = _dispatch(func, overloaded_args, args, kwargs or {})
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


register_torch_function_protocol(has_torch_function, handle_torch_function)
