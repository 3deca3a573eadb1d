"""Tensors marked as cached — PyTorch's ``aten/src/ATen/CachedTensorUtils.cpp``.

CUDA-graph trees keep the outputs of a replayed graph alive in a pool and mark them cached, so that the
checks which count references to a tensor (the engine's gradient stealing) do not count the pool's.
``torch._C._add_cached_tensor`` and friends reach this registry.

Invariant: the registry holds tensors weakly, and answers False for everything while caching is off.
"""

from __future__ import annotations

import weakref

__all__ = ["set_cached_tensors_enabled", "add_cached_tensor", "remove_cached_tensor", "is_cached_tensor"]


class _Registry:
    enabled = False
    impls: weakref.WeakSet = weakref.WeakSet()


def set_cached_tensors_enabled(enabled: bool) -> None:
    """Turn the registry on or off (``torch._C._set_cached_tensors_enabled``)."""
    _Registry.enabled = bool(enabled)


def add_cached_tensor(impl) -> None:
    """Mark the TensorImpl ``impl`` as cached; marking it again changes nothing."""
    _Registry.impls.add(impl)


def remove_cached_tensor(impl) -> None:
    """Unmark ``impl`` (however many times it was marked)."""
    _Registry.impls.discard(impl)


def is_cached_tensor(impl) -> bool:
    """Whether ``impl`` is marked; always False while the registry is off."""
    return _Registry.enabled and impl in _Registry.impls
