"""``torch.autocast`` — the user side of the Autocast dispatcher layer (PyTorch's ``torch/amp/autocast_mode.py``).

Entering ``autocast(device_type)`` takes the device's Autocast key out of the thread-local excluded set, sets
the lower-precision dtype and bumps a nesting counter; the kernels in :mod:`glasstorch._ops.autocast` do the
casting.  Exiting restores the previous state and, when the outermost region ends, clears the weight-cast
cache.  Usable as a context manager or a decorator; ``custom_fwd``/``custom_bwd`` adapt custom autograd
Functions.

Invariant: the state after ``__exit__`` equals the state before ``__enter__`` (nested regions unwind).

Example:
    >>> import glasstorch as torch
    >>> with torch.autocast("cpu"):
    ...     y = torch.mm(torch.ones(2, 2), torch.ones(2, 2))
    >>> y.dtype
    torch.bfloat16
"""

from __future__ import annotations

import functools
import warnings

from .._core.dtype import bfloat16, float16
from .._device.allocator import registered_allocator
from .._ops import autocast as _layer
from ..tensor import Tensor

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "is_autocast_enabled",
           "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
           "autocast_decrement_nesting", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "is_autocast_cpu_enabled"]


def is_autocast_available(device_type: str) -> bool:
    """Whether ``device_type`` has an Autocast key (``torch.amp.is_autocast_available``)."""
    return device_type in _layer.AUTOCAST_KEY_FOR_DEVICE


def _cuda_available() -> bool:
    return registered_allocator("cuda") is not None


# -- the torch.* state functions ------------------------------------------------------------------------------
def is_autocast_enabled(device_type: str | None = None) -> bool:
    """``torch.is_autocast_enabled([device_type])``: without an argument, the CUDA state (as PyTorch)."""
    return _layer.is_enabled("cuda" if device_type is None else device_type)


def set_autocast_enabled(device_type, enabled=None) -> None:
    """``torch.set_autocast_enabled(device_type, enabled)`` (or the legacy one-argument CUDA form)."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _layer.set_enabled(device_type, bool(enabled))


def get_autocast_dtype(device_type: str):
    return _layer.get_dtype(device_type)


def set_autocast_dtype(device_type: str, dtype) -> None:
    _layer.set_dtype(device_type, dtype)


def is_autocast_cache_enabled() -> bool:
    return _layer.is_cache_enabled()


def set_autocast_cache_enabled(enabled: bool) -> None:
    _layer.set_cache_enabled(enabled)


def clear_autocast_cache() -> None:
    _layer.clear_cache()


def autocast_increment_nesting() -> int:
    return _layer.increment_nesting()


def autocast_decrement_nesting() -> int:
    return _layer.decrement_nesting()


def is_autocast_cpu_enabled() -> bool:
    warnings.warn("torch.is_autocast_cpu_enabled() is deprecated. Please use torch.is_autocast_enabled('cpu') "
                  "instead.", DeprecationWarning, stacklevel=2)
    return _layer.is_enabled("cpu")


def get_autocast_cpu_dtype():
    warnings.warn("torch.get_autocast_cpu_dtype() is deprecated. Please use torch.get_autocast_dtype('cpu') "
                  "instead.", DeprecationWarning, stacklevel=2)
    return _layer.get_dtype("cpu")


def get_autocast_gpu_dtype():
    warnings.warn("torch.get_autocast_gpu_dtype() is deprecated. Please use torch.get_autocast_dtype('cuda') "
                  "instead.", DeprecationWarning, stacklevel=2)
    return _layer.get_dtype("cuda")


# -- the context manager ------------------------------------------------------------------------------------------
class autocast:  # noqa: N801 - PyTorch's name
    """Run the region's eligible operators in a lower precision (``torch.autocast``).

    Args:
        device_type: "cpu", "cuda" or "emu".
        dtype: the lower-precision dtype (default: ``get_autocast_dtype(device_type)``).
        enabled: False makes the region a no-op.
        cache_enabled: cache the casts of weights within the region (default: the current setting).
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            enabled = self._check_supported(enabled)
        self._enabled = enabled

    def _check_supported(self, enabled: bool) -> bool:
        if self.device == "cuda":
            if not _cuda_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=3)
                return False
            return enabled
        if self.fast_dtype not in (bfloat16, float16):
            name = self.device.upper()
            warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=3)
            return False
        return enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you mean to "
                            f"use autocast as a context manager? For example:\n    with torch.autocast("
                            f"device_type=...):\n        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


# -- custom autograd Functions under autocast ------------------------------------------------------------------
def _cast_inputs(value, dtype):
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.dtype is not dtype and value.dtype.itemsize < 8
        return value.to(dtype) if eligible else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_inputs(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_inputs(v, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorate a custom Function's ``forward``: remember the autocast state for backward and, with
    ``cast_inputs``, run forward with autocast off on inputs cast to that dtype (``torch.amp.custom_fwd``)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast_inputs(args, cast_inputs), **_cast_inputs(kwargs, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorate a custom Function's ``backward``: run it under the autocast state its forward saw."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
