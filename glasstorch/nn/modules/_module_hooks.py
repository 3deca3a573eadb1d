"""The ``__call__`` path of ``nn.Module`` and its hooks — the hook half of PyTorch's ``module.py``.

``module(*args, **kwargs)`` is ``forward`` alone when no hook is registered anywhere (the fast path).
Otherwise, in order: forward pre-hooks (global ones first; each may replace the args, or args and kwargs),
the input side of the full backward hooks (:class:`BackwardHook`), ``forward``, forward hooks (each may
replace the output), the output side of the backward hooks, and legacy backward hooks on the output's
``grad_fn``.  Forward hooks registered with ``always_call=True`` still run when forward raises.

Invariant: hooks run in their dict's order; ``prepend=True`` moves a hook to the front; removing a handle
removes the hook and its with_kwargs / always_call flags.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from ...tensor import Tensor
from ._hooks import BackwardHook, RemovableHandle

__all__ = ["ModuleCallMixin", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_backward_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]

# Hooks common to every module (debugging/profiling), run before each module's own.
_global_buffer_registration_hooks: dict = OrderedDict()
_global_module_registration_hooks: dict = OrderedDict()
_global_parameter_registration_hooks: dict = OrderedDict()
_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()
_global_full_backward = [None]  # [None | bool]: whether the global backward hooks are full ones


def _register(hooks: dict, hook, flags=(), prepend=False) -> RemovableHandle:
    """Add ``hook`` to ``hooks`` under a fresh handle id; ``flags`` are (flag dict, on) pairs tied to it."""
    flag_dicts = [d for d, _ in flags]
    handle = RemovableHandle(hooks, extra_dict=flag_dicts or None)
    hooks[handle.id] = hook
    for d, on in flags:
        if on:
            d[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_buffer_registration_hook(hook) -> RemovableHandle:
    """``hook(module, name, buffer) -> None | new buffer`` on every buffer registration."""
    return _register(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook) -> RemovableHandle:
    """``hook(module, name, submodule) -> None | new submodule`` on every submodule registration."""
    return _register(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook) -> RemovableHandle:
    """``hook(module, name, param) -> None | new param`` on every parameter registration."""
    return _register(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook for every module, run before the module's own."""
    return _register(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False) -> RemovableHandle:
    """A forward hook for every module, run before the module's own."""
    return _register(_global_forward_hooks, hook, [(_global_forward_hooks_with_kwargs, with_kwargs),
                                                    (_global_forward_hooks_always_called, always_call)])


def _set_global_full(is_full: bool) -> None:
    if _global_full_backward[0] is (not is_full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                           "Please use only one of them.")
    _global_full_backward[0] = is_full


def register_module_backward_hook(hook) -> RemovableHandle:
    """A legacy (non-full) backward hook for every module."""
    _set_global_full(False)
    return _register(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """A backward pre-hook for every module, run before the module's own."""
    return _register(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """A full backward hook for every module, run before the module's own."""
    _set_global_full(True)
    return _register(_global_backward_hooks, hook)


_MIXED_BACKWARD = ("Cannot use both regular backward hooks and full backward hooks on a single Module. Please use "
                   "only one of them.")


class ModuleCallMixin:
    """Hook registration and ``__call__`` for :class:`~glasstorch.nn.Module` (one class with it, as PyTorch's)."""

    __slots__ = ()

    # -- registration -------------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """``hook(module, args) -> None | new args`` (or, with_kwargs, ``(module, args, kwargs)`` -> both)."""
        return _register(self._forward_pre_hooks, hook, [(self._forward_pre_hooks_with_kwargs, with_kwargs)],
                         prepend)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """``hook(module, args, output) -> None | new output`` (kwargs before output with ``with_kwargs``)."""
        return _register(self._forward_hooks, hook, [(self._forward_hooks_with_kwargs, with_kwargs),
                                                     (self._forward_hooks_always_called, always_call)], prepend)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_output) -> None | new grad_output``, before the module's input gradients."""
        return _register(self._backward_pre_hooks, hook, prepend=prepend)

    def register_backward_hook(self, hook):
        """Legacy backward hook on the output's ``grad_fn`` (deprecated; prefer the full one)."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_MIXED_BACKWARD)
        self._is_full_backward_hook = False
        return _register(self._backward_hooks, hook)

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_input, grad_output) -> None | new grad_input`` once input gradients are known."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(_MIXED_BACKWARD)
        self._is_full_backward_hook = True
        return _register(self._backward_hooks, hook, prepend=prepend)

    def _get_backward_hooks(self):
        full, non_full = [], []
        is_global_full = _global_full_backward[0]
        if is_global_full is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if is_global_full is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    # -- the call -------------------------------------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks or self._forward_pre_hooks
                or _global_backward_pre_hooks or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return self.forward(*args, **kwargs)
        return _HookedCall(self, args, kwargs).run()

    def _wrapped_call_impl(self, *args, **kwargs):
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    __call__ = _wrapped_call_impl


class _HookedCall:
    """One module call with hooks: the state that ``always_call`` hooks need if forward raises."""

    __slots__ = ("module", "args", "kwargs", "result", "called_always")

    def __init__(self, module, args, kwargs):
        self.module, self.args, self.kwargs = module, args, kwargs
        self.result = None
        self.called_always = set()

    def run(self):
        try:
            return self._inner()
        except Exception:
            self._run_always_called_hooks()
            raise

    def _run_pre_hooks(self, m) -> None:
        for hook_id, hook in (*_global_forward_pre_hooks.items(), *m._forward_pre_hooks.items()):
            if hook_id in m._forward_pre_hooks_with_kwargs:
                res = hook(m, self.args, self.kwargs)
                if res is not None:
                    if isinstance(res, tuple) and len(res) == 2:
                        self.args, self.kwargs = res
                    else:
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {res}.")
            else:
                res = hook(m, self.args)
                if res is not None:
                    self.args = res if isinstance(res, tuple) else (res,)

    def _run_forward_hooks(self, m) -> None:
        for hook_id, hook in (*_global_forward_hooks.items(), *m._forward_hooks.items()):
            if hook_id in m._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                self.called_always.add(hook_id)
            if hook_id in m._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                res = hook(m, self.args, self.kwargs, self.result)
            else:
                res = hook(m, self.args, self.result)
            if res is not None:
                self.result = res

    def _inner(self):
        m = self.module
        full_hooks, non_full_hooks = [], []
        pre_hooks = m._get_backward_pre_hooks() if (m._backward_pre_hooks or _global_backward_pre_hooks) else []
        if m._backward_hooks or _global_backward_hooks:
            full_hooks, non_full_hooks = m._get_backward_hooks()
        if _global_forward_pre_hooks or m._forward_pre_hooks:
            self._run_pre_hooks(m)
        bw_hook = None
        if full_hooks or pre_hooks:
            bw_hook = BackwardHook(m, full_hooks, pre_hooks)
            self.args = bw_hook.setup_input_hook(self.args)
        self.result = m.forward(*self.args, **self.kwargs)
        if _global_forward_hooks or m._forward_hooks:
            self._run_forward_hooks(m)
        if bw_hook:
            if not isinstance(self.result, (Tensor, tuple)):
                warnings.warn(f"For backward hooks to be called, module output should be a Tensor or a tuple of "
                              f"Tensors but received {type(self.result)}", stacklevel=2)
            self.result = bw_hook.setup_output_hook(self.result)
        if non_full_hooks:
            _attach_legacy_backward_hooks(m, non_full_hooks, self.args, self.result)
        return self.result

    def _run_always_called_hooks(self) -> None:
        m = self.module
        for scope, hooks, always, with_kw in (
                ("global module", _global_forward_hooks, _global_forward_hooks_always_called, {}),
                ("module", m._forward_hooks, m._forward_hooks_always_called, m._forward_hooks_with_kwargs)):
            for hook_id, hook in hooks.items():
                if hook_id not in always or hook_id in self.called_always:
                    continue
                try:
                    if hook_id in with_kw:
                        res = hook(m, self.args, self.kwargs, self.result)
                    else:
                        res = hook(m, self.args, self.result)
                    if res is not None:
                        self.result = res
                except Exception as e:  # noqa: BLE001 - silenced, as PyTorch does, the forward error wins
                    warnings.warn(f"{scope} forward hook with ``always_call=True`` raised an exception that was "
                                  f"silenced as another error was raised in forward: {str(e)}", stacklevel=2)


class _ModuleHook:
    """A legacy backward hook on a grad_fn: ``hook(module, grad_input, grad_output)``."""

    __slots__ = ("hook", "module")

    def __init__(self, hook, module):
        self.hook, self.module = hook, module

    def __call__(self, grad_input, grad_output):
        return self.hook(self.module, grad_input, grad_output)


def _attach_legacy_backward_hooks(m, hooks, args, result) -> None:
    var = result
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(_ModuleHook(hook, m))
    _maybe_warn_non_full_backward_hook(args, result, grad_fn)


def _maybe_warn_non_full_backward_hook(inputs, result, grad_fn) -> None:
    if not isinstance(result, Tensor) and not (isinstance(result, tuple) and all(isinstance(r, Tensor)
                                                                                 for r in result)):
        warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of "
                      "Tensors is deprecated and will be removed in future versions. This hook will be missing some "
                      "of the grad_output. Please use register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=2)
        return
    result = (result,) if isinstance(result, Tensor) else result
    if not isinstance(inputs, Tensor) and not (isinstance(inputs, tuple) and all(isinstance(i, Tensor)
                                                                                 for i in inputs)):
        warnings.warn("Using non-full backward hooks on a Module that does not take as input a single Tensor or a "
                      "tuple of Tensors is deprecated and will be removed in future versions. This hook will be "
                      "missing some of the grad_input. Please use register_full_backward_hook to get the documented "
                      "behavior.", FutureWarning, stacklevel=2)
        return
    inputs = (inputs,) if isinstance(inputs, Tensor) else inputs
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_output.",
                      FutureWarning, stacklevel=2)
    elif len(out_grad_fn) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes is "
                      "deprecated and will be removed in future versions. This hook will be missing some grad_output."
                      " Please use register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=2)
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        next_functions = {n[0] for n in grad_fn.next_functions}
        if inputs_grad_fn != next_functions:
            warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is "
                          "deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_input. Please use register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=2)
