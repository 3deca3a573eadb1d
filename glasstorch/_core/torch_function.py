"""The ``__torch_function__`` protocol's core: which arguments take part, and handing a call to them.

PyTorch counterpart: ``torch/csrc/utils/python_arg_parser.cpp`` (``handle_torch_function``, the overloaded-argument
order), ``torch/csrc/utils/disable_torch_function.cpp`` (the two switches, ``check_has_torch_function``) and
``torch._C.TensorBase``, the C type below ``torch.Tensor``.  In PyTorch these live in the C layer, below autograd
and the Python Tensor class, so every layer can ask "does an argument override this call?".  The same holds here:
this module sits in ``_core`` and knows Tensors only as instances of :class:`TensorBase`, which ``Tensor`` (its
one direct subclass) derives from.  ``glasstorch.overrides`` is the public face (``torch.overrides``), and the
generated bindings' fast paths use :data:`_TS`.

Invariants:
    - An exact Tensor never takes part; a Tensor subclass takes part unless its ``__torch_function__`` is
      :func:`_disabled_torch_function_impl` (``nn.Parameter``) or a switch of Note [Torch function state] is on.
    - Overloaded arguments are tried subclasses first, then in argument order, one per type.
"""

from __future__ import annotations

import inspect
import threading

from . import thread_state

__all__ = ["TensorBase", "_disabled_torch_function_impl", "DisableTorchFunction", "DisableTorchFunctionSubclass",
           "torch_function_state", "plain_tensor_subclass", "_TS", "tf_subclass_active", "get_overloaded_args",
           "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "handle_torch_function",
           "dispatch_overloaded"]


class TensorBase:
    """``torch._C.TensorBase``: the base of ``glasstorch.Tensor``, so the layers below the Tensor class can tell a
    Tensor (and a subclass) from other objects.  It adds no state."""

    __slots__ = ()


def _is_root(cls) -> bool:
    """``cls`` is ``Tensor`` itself (the direct subclass of TensorBase), whose instances never take part."""
    return cls.__base__ is TensorBase


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """PyTorch's ``torch._C._disabled_torch_function_impl``: as a class's ``__torch_function__`` it switches the
    protocol off for that class (``nn.Parameter``); called directly it runs ``func`` with Tensor subclasses out of
    the protocol (Note [Torch function state])."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


# Note [Torch function state]
# PyTorch keeps two thread-local switches: ``DisableTorchFunctionSubclass`` (Tensor subclasses stop taking part in
# the protocol; Tensor's default ``__torch_function__`` runs the real function under it) and
# ``DisableTorchFunction`` (every type stops, fx Proxies too).  The bindings look at them only after they met an
# argument that would take part, so plain Tensors never pay for them.
class _TorchFunctionState(threading.local):
    def __init__(self):
        self.subclass_off = 0  # depth of DisableTorchFunctionSubclass (or DisableTorchFunction) blocks
        self.all_off = 0       # depth of DisableTorchFunction blocks


torch_function_state = thread_state.register(_TorchFunctionState())


class DisableTorchFunctionSubclass:
    """``torch._C.DisableTorchFunctionSubclass``: inside, Tensor subclasses run functions as plain Tensors do."""

    def __enter__(self):
        torch_function_state.subclass_off += 1
        return self

    def __exit__(self, *exc):
        torch_function_state.subclass_off -= 1
        return False


class DisableTorchFunction:
    """``torch._C.DisableTorchFunction``: inside, no argument's ``__torch_function__`` is called at all."""

    def __enter__(self):
        torch_function_state.subclass_off += 1
        torch_function_state.all_off += 1
        return self

    def __exit__(self, *exc):
        torch_function_state.subclass_off -= 1
        torch_function_state.all_off -= 1
        return False


def plain_tensor_subclass(cls) -> bool:
    """Whether ``cls``'s instances may take a binding's fast path, as exact Tensors do: Tensor itself, or a
    subclass whose ``__torch_function__`` is the disabled impl (``nn.Parameter``; PyTorch's
    ``check_has_torch_function``).  Any other subclass, a plain one too, has Tensor's default
    ``__torch_function__`` (which converts results to the subclass) or its own: it takes the protocol."""
    if not (isinstance(cls, type) and issubclass(cls, TensorBase)):
        return False
    if _is_root(cls):
        return True
    own = inspect.getattr_static(cls, "__torch_function__", None)
    if own is None:
        return True
    return getattr(own, "__func__", own) is _disabled_torch_function_impl  # a classmethod wraps the function


class _TensorSubclasses(dict):
    """``_TS[cls]``: :func:`plain_tensor_subclass`, computed once per class (the generated fast paths test
    ``type(x) is Tensor or _TS[type(x)]``, so an exact Tensor never reaches the table).

    A class's answer is cached: assigning ``__torch_function__`` on a class after its instances went
    through a binding is not seen (PyTorch looks it up per call, but classes do not change in practice).
    """

    __slots__ = ()

    def __missing__(self, cls):
        ok = self[cls] = plain_tensor_subclass(cls)
        return ok


_TS = _TensorSubclasses()


def tf_subclass_active(cls) -> bool:
    """Whether an argument of Tensor subclass ``cls`` hands a call to ``__torch_function__`` now."""
    return not _TS[cls] and not torch_function_state.subclass_off


_PLAIN = (int, float, bool, str, type(None))


def _overloaded(x) -> bool:
    """``x`` takes part in the protocol now: a Tensor subclass with an active ``__torch_function__`` (Tensor's
    default counts), or another type that defines one; the switches of Note [Torch function state] apply."""
    if isinstance(x, _PLAIN):
        return False
    cls = type(x)
    if isinstance(x, TensorBase):
        return tf_subclass_active(cls)
    impl = getattr(cls, "__torch_function__", None)
    return impl is not None and impl is not _disabled_torch_function_impl and not torch_function_state.all_off


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


def has_torch_function(relevant_args) -> bool:
    """Whether any of ``relevant_args`` overrides glasstorch functions through ``__torch_function__``."""
    return any(_overloaded(a) for a in relevant_args)


def has_torch_function_unary(arg) -> bool:
    """:func:`has_torch_function` for one argument."""
    return _overloaded(arg)


def has_torch_function_variadic(*args) -> bool:
    """:func:`has_torch_function` for the positional arguments."""
    return any(_overloaded(a) for a in args)


def dispatch_overloaded(public_api, overloaded_args: list, args: tuple, kwargs: dict):
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
    result = dispatch_overloaded(public_api, overloaded_args, args, kwargs)
    if result is NotImplemented:
        module = str(getattr(public_api, "__module__", None))
        if module.startswith("glasstorch"):
            module = "torch" + module[len("glasstorch"):]
        name = f"{module}.{getattr(public_api, '__name__', public_api)}"
        raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: "
                        f"{[type(a) for a in overloaded_args]}")
    return result
