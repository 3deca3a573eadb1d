"""Grad modes — PyTorch's ``torch/autograd/grad_mode.py`` and ``c10/core/GradMode.h``.

Grad mode is thread-local.  ``no_grad``/``enable_grad``/``set_grad_enabled``/``inference_mode`` work as
context managers and as decorators (functions and generator functions); ``set_grad_enabled(False)``
also works as a plain call.  ``inference_mode`` additionally excludes the Autograd keys from dispatch and
ADInplaceOrView from the included set: nothing is recorded, and the tensors it makes are inference tensors.

Invariant: the autograd kernels record a node only when ``is_grad_enabled()`` is True.
"""

from __future__ import annotations

import functools
import inspect
import warnings

from .._core.dispatch_key import AUTOGRAD_SET, bit, tls as _dispatch_tls
from .._core.grad_state import state

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "is_view_replay_enabled", "_force_original_view_tracking",
           "_unsafe_preserve_version_counter", "_unsafe_set_version_counter", "set_multithreading_enabled",
           "enforce_grad_layout_policy", "_set_grad_layout_enforcement_enabled",
           "_is_grad_layout_enforcement_enabled"]


def is_grad_enabled() -> bool:
    """Whether operators record the autograd graph on this thread."""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _DecoratorContextManager:
    """Lets a context manager decorate functions and generator functions (PyTorch's helper)."""

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn("Decorating classes is deprecated and will be disabled in future versions. You should only "
                          "decorate functions or methods. To preserve the current behavior of class decoration, you "
                          "can directly decorate the `__init__` method and nothing else.", FutureWarning,
                          stacklevel=2)
            cls = func

            def func(*args, **kwargs):  # the class becomes a function that constructs it in the mode
                return cls(*args, **kwargs)
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:  # noqa: BLE001 - forwarded into the generator
                        with self.clone():
                            try:
                                response = gen.throw(e)
                            except StopIteration as stop:  # it handled the exception and finished
                                return stop.value
                    else:
                        with self.clone():
                            try:
                                response = gen.send(request)
                            except StopIteration as stop:
                                return stop.value

            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """A context manager that also decorates without parentheses (``@no_grad``, ``@enable_grad``)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disable graph recording inside the block (``torch.no_grad``); ``@no_grad`` works without parentheses."""

    def __init__(self, orig_func=None):
        self.prev = False

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc):
        state.enabled = self.prev


class enable_grad(_NoParamDecoratorContextManager):
    """Re-enable graph recording inside a ``no_grad`` block (``torch.enable_grad``); ``@enable_grad`` works
    without parentheses."""

    def __init__(self, orig_func=None):
        self.prev = True

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc):
        state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode: immediately as a call, or for a block as a context manager."""

    def __init__(self, mode: bool):
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __call__(self, orig_func):
        state.enabled = self.prev  # as a decorator the mode applies only while the function runs
        return super().__call__(orig_func)

    def __enter__(self):
        state.enabled = self.mode

    def __exit__(self, *exc):
        state.enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


_ADINPLACE = bit("ADInplaceOrView")


class inference_mode(_DecoratorContextManager):
    """No graph; new tensors are inference tensors (``torch.inference_mode``).

    As c10's InferenceMode: the autograd keys are excluded and ADInplaceOrView leaves the included set, so the
    layer still runs for normal tensors (which carry the key: their versions count, their views are marked) and
    not for inference tensors (Note [Inference tensors] in _tensor/impl.py).
    """

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __new__(cls, mode=True):
        if isinstance(mode, bool) or mode is None:
            return super().__new__(cls)
        return cls()(mode)  # used as @inference_mode without parentheses

    def __enter__(self):
        self.prev = (state.enabled, state.inference, _dispatch_tls.excluded, _dispatch_tls.included)
        if self.mode:
            state.enabled = False
            state.inference = True
            _dispatch_tls.excluded |= AUTOGRAD_SET
            _dispatch_tls.included &= ~_ADINPLACE
        else:  # c10's InferenceMode(false): normal mode, grad mode on (also inside no_grad)
            state.enabled = True
            state.inference = False
            _dispatch_tls.excluded &= ~AUTOGRAD_SET
            _dispatch_tls.included |= _ADINPLACE

    def __exit__(self, *exc):
        state.enabled, state.inference, _dispatch_tls.excluded, _dispatch_tls.included = self.prev

    def clone(self):
        return self.__class__(self.mode)


def _set_view_replay_enabled(mode: bool) -> None:
    """Turn view replay on or off for this thread (``torch._C._set_view_replay_enabled``)."""
    state.view_replay = bool(mode)


def is_view_replay_enabled() -> bool:
    """Returns True if view-replay is currently enabled."""
    return state.view_replay


def _set_fwd_grad_enabled(mode: bool) -> None:
    """Turn forward grad mode on or off for this thread (``torch._C._set_fwd_grad_enabled``): off, ops neither
    read nor compute tangents."""
    state.fw_grad_mode = bool(mode)


def _is_fwd_grad_enabled() -> bool:
    """Whether forward grad mode is on for this thread (``torch._C._is_fwd_grad_enabled``)."""
    return state.fw_grad_mode


class _force_original_view_tracking(_DecoratorContextManager):
    """Whether views record the ops that made them, so that a view written in place (or whose base was) gets
    the view op's own ``grad_fn`` back instead of ``AsStridedBackward0`` (PyTorch's context manager).

    As in PyTorch it sets the mode when constructed (so a plain call works), restores the previous mode on exit,
    and as a decorator sets the mode only while the function runs.

    Args:
        mode: True to replay views, False for as_strided.

    Example:
        >>> with torch.autograd._force_original_view_tracking(True):
        ...     v = torch.ones(4, requires_grad=True).clone().view(2, 2)
        ...     _ = v.mul_(2)
        >>> v.grad_fn.name()
        'ViewBackward0'
    """

    def __init__(self, mode: bool) -> None:
        self.prev = state.view_replay
        self.mode = mode
        _set_view_replay_enabled(mode)

    def __call__(self, orig_func):
        _set_view_replay_enabled(self.prev)
        return super().__call__(orig_func)

    def __enter__(self) -> None:
        _set_view_replay_enabled(self.mode)

    def __exit__(self, *exc) -> None:
        _set_view_replay_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


def _unsafe_set_version_counter(tensors, versions) -> None:
    """Set each tensor's version counter to the given value (``torch._C._autograd._unsafe_set_version_counter``)."""
    if len(tensors) != len(versions):
        raise RuntimeError(f"tensors_len={len(tensors)}, versions_len={len(versions)}")
    for t, v in zip(tensors, versions, strict=True):
        if v < 0:
            raise RuntimeError(f"Cannot set a version_counter to a value below 0: {v}")
        t._impl.version.version = v


class _unsafe_preserve_version_counter(_DecoratorContextManager):
    """Hide the in-place writes of the block from autograd: the tensors' versions are set back on exit
    (PyTorch's context manager of the same name; a saved tensor written meanwhile gives silently wrong
    gradients).

    Args:
        tensors: a tensor or a tuple of tensors.
    """

    def __init__(self, tensors) -> None:
        self.tensors = tensors if isinstance(tensors, tuple) else (tensors,)
        self.prev_versions = tuple(t._version for t in self.tensors)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _unsafe_set_version_counter(self.tensors, self.prev_versions)

    def clone(self):
        return self.__class__(self.tensors)


def _set_multithreading_enabled(mode: bool) -> None:
    state.multithreading = bool(mode)


def _is_multithreading_enabled() -> bool:
    return state.multithreading


class set_multithreading_enabled(_DecoratorContextManager):
    """Whether backward may run on the engine's device threads (``torch.autograd.set_multithreading_enabled``).

    glasstorch's engine always runs backward on the calling thread (what PyTorch does for CPU work either way),
    so the flag is recorded and read back but changes nothing.  Set at construction, restored on exit.

    Args:
        mode: True (the default state) or False.
    """

    def __init__(self, mode: bool) -> None:
        self.prev = _is_multithreading_enabled()
        _set_multithreading_enabled(mode)
        self.mode = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set_multithreading_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


def _set_grad_layout_enforcement_enabled(enable: bool) -> None:
    state.grad_layout_enforcement = bool(enable)


def _is_grad_layout_enforcement_enabled() -> bool:
    return state.grad_layout_enforcement


class enforce_grad_layout_policy(_DecoratorContextManager):
    """Whether AccumulateGrad enforces the gradient layout contract (``torch.autograd.enforce_grad_layout_policy``).

    With ``enable=False`` a fresh gradient that could be stolen into ``.grad`` is stolen even when its strides
    differ from the leaf's (no copy into the leaf's layout); a gradient that must be copied is still copied into
    the contract's layout.  Thread-local; set at construction (so it also works as a plain call), restored on
    exit, and, as a decorator, applied only while the function runs.

    Args:
        enable: True (the default state) enforces the contract, False relaxes it.

    Example::

        >>> p = glasstorch.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
        >>> with glasstorch.autograd.enforce_grad_layout_policy(False):
        ...     (p * 2).sum().backward()
    """

    def __init__(self, enable: bool = True) -> None:
        self.prev = _is_grad_layout_enforcement_enabled()
        _set_grad_layout_enforcement_enabled(enable)
        self.mode = enable

    def __call__(self, orig_func):
        _set_grad_layout_enforcement_enabled(self.prev)
        return super().__call__(orig_func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set_grad_layout_enforcement_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)
