"""Gradient clipping — PyTorch's ``torch/nn/utils/clip_grad.py``.

``clip_grad_norm_`` computes the total ``norm_type`` norm of all gradients (the norm of the per-gradient
norms, grouped by device and dtype), then multiplies every gradient in place by
``clamp(max_norm / (total + 1e-6), max=1)`` — always, even when that is 1, as PyTorch does to avoid a host
sync.  ``clip_grad_value_`` clamps each gradient to ``[-clip_value, clip_value]``.  As in PyTorch, a group of
plain tensors on a foreach device (the CPU included) takes the foreach ops — one ``_foreach_norm`` and one
``_foreach_mul_`` per group instead of one dispatched op per gradient — and other tensors (subclasses, other
devices) the per-tensor loop; both give the same numbers.

Invariant: everything runs under ``no_grad``; gradients change in place (same tensor objects).
"""

from __future__ import annotations

import functools
import types
import warnings

import numpy as np

from ... import linalg
from ..._core.dtype import float32, float64
from ..._functions import from_numpy, tensor
from ..._generated.functions import _foreach_mul_, _foreach_norm, clamp, stack
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]

_FOREACH_DEVICES = ("cpu", "cuda", "xpu", "mtia")


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)
    return wrapper


def _group_by_device_and_dtype(tensors) -> dict:
    groups: dict = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def _use_foreach(foreach, device, group) -> bool:
    """PyTorch's choice: foreach when asked on a foreach device, or by default when every tensor is a plain
    Tensor there (``_has_foreach_support``); asking on another device raises."""
    if device.type not in _FOREACH_DEVICES:
        if foreach:
            raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")
        return False
    return bool(foreach) or (foreach is None and all(type(t) is Tensor for t in group))


def _stack_norms(norms, device) -> Tensor:
    """``stack([n.to(device) for n in norms])``; 0-dim CPU norms of one float dtype are gathered through numpy
    (the same values, without 52 unsqueezes and a cat)."""
    first = norms[0]
    if device.type == "cpu" and all(type(n) is Tensor and n._impl.device.type == "cpu" and not n._impl.sizes
                                    and n._impl.dtype is first._impl.dtype for n in norms) \
            and first._impl.dtype in (float32, float64):
        return from_numpy(np.array([n._impl.as_numpy()[()] for n in norms], dtype=first._impl.dtype.np))
    return stack([n if n.device == device else n.to(device) for n in norms])


@_no_grad
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None):
    """The ``norm_type`` norm of all ``tensors`` together (as if concatenated); ``tensor(0.)`` for none.

    Raises:
        RuntimeError: the total is nan/inf and ``error_if_nonfinite``.
    """
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    first_device = tensors[0].device
    norms = []
    for (device, _), group in _group_by_device_and_dtype(tensors).items():
        if _use_foreach(foreach, device, group):
            norms.extend(_foreach_norm(group, norm_type))
        else:
            norms.extend(linalg.vector_norm(g, norm_type) for g in group)
    total_norm = linalg.vector_norm(_stack_norms(norms, first_device), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan().logical_or(total_norm.isinf())):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           f"cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           f"anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm: float, total_norm, foreach=None) -> None:
    """Scale the gradients of ``parameters`` in place by ``min(1, max_norm / (total_norm + 1e-6))``."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    clip_coef = clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for (device, _), group in _group_by_device_and_dtype(grads).items():
        if _use_foreach(foreach, device, group):
            _foreach_mul_(group, clip_coef.to(device))
        else:
            coef = clip_coef.to(device)
            for g in group:
                g.mul_(coef)


@_no_grad
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None):
    """Clip the gradients of ``parameters`` so that their total norm is at most ``max_norm``.

    Returns:
        the total norm before clipping (a 0-dim tensor).

    Example:
        >>> import glasstorch as torch
        >>> p = torch.nn.Parameter(torch.ones(4))
        >>> p.grad = torch.full((4,), 3.0)
        >>> torch.nn.utils.clip_grad_norm_([p], 1.0)
        tensor(6.)
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_`."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for (device, _), group in _group_by_device_and_dtype(grads).items():
        _use_foreach(foreach, device, group)  # the error for foreach=True on another device
        for g in group:
            g.clamp_(min=-clip_value, max=clip_value)
