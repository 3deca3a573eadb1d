"""Python dispatch modes — PyTorch's ``torch/utils/_python_dispatch.py`` (``TorchDispatchMode``).

Entering a mode pushes it on a thread-local stack and adds the ``Python`` key to the thread's
included key set; every operator call then reaches the Python-key fallback (below Autograd and
ADInplaceOrView, above the backends), which calls ``mode.__torch_dispatch__(func, types, args,
kwargs)`` with public Tensors and an OpOverload ``func``.  While the handler runs, its mode is popped,
so calling ``func(*args, **kwargs)`` inside it runs the real kernels (or the next mode down).

Invariant: the Python key is in the included set exactly while the mode stack is non-empty.
"""

from __future__ import annotations

from .._core.dispatch_key import AUTOGRAD_SET, ExcludeDispatchKeyGuard, bit, tls
from .._core.grad_state import state as _grad_state
from .._ops.dispatcher import get_op, register_fallback, register_kernel, register_op
from .._ops_namespace import OpOverload, bind_schema, to_impls, to_tensors
from ..tensor import Tensor

__all__ = ["DisableTorchDispatch", "TorchDispatchMode", "mode_stack", "_get_current_dispatch_mode",
           "return_and_correct_aliasing"]

_LAYERS_ABOVE = AUTOGRAD_SET | bit("ADInplaceOrView")

_PYTHON = bit("Python")


def mode_stack() -> list:
    stack = getattr(tls, "modes", None)
    if stack is None:
        stack = tls.modes = []
    return stack


def _get_current_dispatch_mode():
    """The innermost dispatch mode (the next one an operator call reaches), or None."""
    stack = mode_stack()
    return stack[-1] if stack else None


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


class DisableTorchDispatch(ExcludeDispatchKeyGuard):
    """Inside the block no call reaches a mode or a subclass's ``__torch_dispatch__``: the Python key is excluded
    (``torch._C._DisableTorchDispatch``, which ``torch.utils._mode_utils.no_dispatch`` names)."""

    __slots__ = ()

    def __init__(self):
        super().__init__(_PYTHON)


class _RestorePythonTLSSnapshot:
    """``torch._C._RestorePythonTLSSnapshot`` (behind ``torch.overrides.enable_reentrant_dispatch``): inside a
    ``__torch_dispatch__``, calls start over as at the top: the Autograd and ADInplaceOrView keys that the layers
    above the Python key exclude while they redispatch (an in-place op's) are back, unless inference mode
    excludes them."""

    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = tls.excluded
        if not _grad_state.inference:
            tls.excluded = self.prev & ~_LAYERS_ABOVE
        return self

    def __exit__(self, *exc):
        tls.excluded = self.prev
        return False


_overloads: dict = {}


def _python_key_fallback(op, ks, *args, **kwargs):
    """The boxed kernel at the Python key: hand the call to the innermost mode."""
    stack = mode_stack()
    if not stack:
        return _subclass_dispatch(op, ks, args, kwargs)
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
        kwarg_only = {n: v for n, v, a in zip(names, args, op.schema.arguments, strict=False) if a.kwarg_only}
        positional = [v for v, a in zip(args, op.schema.arguments, strict=False) if not a.kwarg_only]
        kwarg_only = {k: to_tensors(v) for k, v in kwarg_only.items()}  # out= tensors reach the mode as Tensors
        result = mode.__torch_dispatch__(func, (), tuple(to_tensors(positional)), kwarg_only)
    finally:
        stack.append(mode)
        _sync_key()
    return to_impls(result)


def _subclass_of(args, kwargs):
    """The first tensor subclass among the arguments whose impl carries the Python key (a FakeTensor ...)."""
    for a in list(args) + list(kwargs.values()):
        for x in (a if isinstance(a, (list, tuple)) else (a,)):
            if getattr(x, "key_set", 0) & _PYTHON and x.pyobj is not None:
                t = x.pyobj()
                handler = getattr(type(t), "__torch_dispatch__", None)
                if handler is not None:
                    return handler
    return None


def _subclass_dispatch(op, ks, args, kwargs):
    """No mode active: a tensor subclass's ``__torch_dispatch__`` handles the call (PyTorch's subclass
    dispatch); plain tensors never reach here, so this costs ordinary calls nothing."""
    handler = _subclass_of(args, kwargs)
    if handler is None:
        return op.redispatch(ks, *args, **kwargs)
    names = [a.name for a in op.schema.arguments]
    if kwargs:
        args = tuple(args) + tuple(kwargs.get(n) for n in names[len(args):])
    func = _overloads.get(op.name)
    if func is None:
        func = _overloads[op.name] = OpOverload(op)
    kwarg_only = {n: v for n, v, a in zip(names, args, op.schema.arguments, strict=False) if a.kwarg_only}
    positional = [v for v, a in zip(args, op.schema.arguments, strict=False) if not a.kwarg_only]
    kwarg_only = {k: to_tensors(v) for k, v in kwarg_only.items()}
    return to_impls(handler(func, (), tuple(to_tensors(positional)), kwarg_only))


register_fallback("Python", _python_key_fallback, label="PythonFallback")


# Note [lift_fresh]: factories build tensors without the dispatcher; while a mode is active they pass the fresh
# tensor through ``aten::lift_fresh`` (identity) so the mode sees it (a fake mode fakes it, a tracer records it
# as a constant copied by ``aten::lift_fresh_copy``), as PyTorch does for ``torch.tensor``.
register_op("aten::lift_fresh(Tensor(a) self) -> Tensor(a)")
register_op("aten::lift_fresh_copy(Tensor self) -> Tensor")
register_kernel("aten::lift_fresh", "CompositeExplicitAutograd", lambda self: self, label="lift_fresh")
register_kernel("aten::lift_fresh_copy", "CompositeExplicitAutograd",
                lambda self: get_op("aten::clone").call(self, None), label="lift_fresh_copy")

# Note [detach]: ``Tensor.detach()`` of a plain tensor is a Python-level alias, not a dispatcher call; a wrapper
# subclass's detach is its ``__torch_dispatch__``'s (``aten.detach.default``), and graphs record the op too.  As a
# call it is a fresh alias without autograd history.
register_op("aten::detach(Tensor(a) self) -> Tensor(a)")
register_kernel("aten::detach", "CompositeImplicitAutograd",
                lambda self: self.view_impl(self.sizes, self.strides, self.offset), label="detach")


def _alias_source(schema, bound: list, annotation):
    """The argument a return annotated ``annotation`` aliases (``Tensor(a)`` names input ``a``), or None."""
    if annotation is None:
        return None
    for a, value in zip(schema.arguments, bound, strict=False):
        if a.annotation is not None and a.annotation.alias_set == annotation.alias_set:
            return value
    return None


def _share_storage(out, source) -> None:
    """A wrapper subclass's view result reports its input's storage, as the real view would (torch's
    ``_correct_storage_aliasing``): only the data-less outer tensor is re-pointed, its inner tensors stay."""
    if isinstance(out, Tensor) and isinstance(source, Tensor) and out is not source:
        out._impl.storage = source._impl.storage


def return_and_correct_aliasing(func, args, kwargs, out):
    """What a wrapper subclass's ``__torch_dispatch__`` returns for ``func`` once it computed ``out`` from its
    inner tensors (PyTorch's ``torch.utils._python_dispatch.return_and_correct_aliasing``): a return that the
    schema says is a written input (``add_``, ``out=``) is that input object itself; a return that is a view of an
    input (``view``, ``t``, ``split``) keeps ``out`` but shares the input's storage, so ``untyped_storage()`` and
    serialization see the aliasing the real operator has."""
    schema = func._schema
    bound = bind_schema(schema, tuple(args), kwargs or {})
    returns = schema.returns
    if not returns:
        return out
    results = list(out) if len(returns) > 1 else [out]
    for i, (ret, value) in enumerate(zip(returns, results, strict=False)):
        source = _alias_source(schema, bound, ret.annotation)
        if source is None:
            continue
        if ret.annotation.is_write:
            results[i] = source
        elif isinstance(value, (list, tuple)):
            for v in value:
                _share_storage(v, source)
        else:
            _share_storage(value, source)
    return tuple(results) if len(returns) > 1 else results[0]
