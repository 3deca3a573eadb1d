"""Python dispatch modes — PyTorch's ``torch/utils/_python_dispatch.py`` (``TorchDispatchMode``).

Entering a mode pushes it on a thread-local stack and adds the ``Python`` key to the thread's
included key set; every operator call then reaches the Python-key fallback (below Autograd and
ADInplaceOrView, above the backends), which calls ``mode.__torch_dispatch__(func, types, args,
kwargs)`` with public Tensors and an OpOverload ``func``.  While the handler runs, its mode is popped,
so calling ``func(*args, **kwargs)`` inside it runs the real kernels (or the next mode down).

Invariant: the Python key is in the included set exactly while the mode stack is non-empty.
"""

from __future__ import annotations

from .._core.dispatch_key import bit, tls
from .._ops.dispatcher import register_fallback
from .._ops_namespace import OpOverload, to_impls, to_tensors

__all__ = ["TorchDispatchMode", "mode_stack"]

_PYTHON = bit("Python")


def mode_stack() -> list:
    stack = getattr(tls, "modes", None)
    if stack is None:
        stack = tls.modes = []
    return stack


def _sync_key():
    if mode_stack():
        tls.included |= _PYTHON
    else:
        tls.included &= ~_PYTHON


class TorchDispatchMode:
    """Intercept every operator call below autograd: override ``__torch_dispatch__``.

    Example:
        >>> class Log(TorchDispatchMode):
        ...     def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        ...         print(func)
        ...         return func(*args, **(kwargs or {}))
    """

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        mode_stack().append(self)
        _sync_key()
        return self

    def __exit__(self, *exc):
        stack = mode_stack()
        stack.remove(self)
        _sync_key()
        return False


_overloads: dict = {}


def _python_key_fallback(op, ks, *args, **kwargs):
    """The boxed kernel at the Python key: hand the call to the innermost mode."""
    stack = mode_stack()
    if not stack:
        return op.redispatch(ks, *args, **kwargs)
    if kwargs:  # normalise to the schema's positional order
        names = [a.name for a in op.schema.arguments]
        args = tuple(args) + tuple(kwargs.get(n) for n in names[len(args):])
    mode = stack.pop()
    _sync_key()
    try:
        func = _overloads.get(op.name)
        if func is None:
            func = _overloads[op.name] = OpOverload(op)
        names = [a.name for a in op.schema.arguments]
        kwarg_only = {n: v for n, v, a in zip(names, args, op.schema.arguments) if a.kwarg_only}
        positional = [v for v, a in zip(args, op.schema.arguments) if not a.kwarg_only]
        result = mode.__torch_dispatch__(func, (), tuple(to_tensors(positional)), to_tensors(kwarg_only))
    finally:
        stack.append(mode)
        _sync_key()
    return to_impls(result)


register_fallback("Python", _python_key_fallback, label="PythonFallback")
