"""The two loss-scaling operators GradScaler is built on — PyTorch's ``aten/src/ATen/native/AmpKernels.cpp``
(``_amp_foreach_non_finite_check_and_unscale_`` and ``_amp_update_scale_``), written over glasstorch ops.

Invariant: both work in place on the tensors they are given (grads, ``found_inf``, ``scale``,
``growth_tracker``) and never replace them, so a GradScaler's tensors keep their identity.
"""

from __future__ import annotations

from .. import _functions as _fn
from .._core.dtype import bfloat16, float16, float32, float64, int32
from .._generated import functions as _gen

__all__ = ["_amp_foreach_non_finite_check_and_unscale_", "_amp_update_scale_"]

_FLOATING = (float16, bfloat16, float32, float64)


def _check_update_args(scale, growth_tracker, found_inf) -> None:
    # every size check comes before every dtype check, as in the kernel
    named = (("current_scale", scale), ("growth_tracker", growth_tracker), ("found_inf", found_inf))
    for name, t in named:
        if t.numel() != 1:
            raise RuntimeError(f"{name} must be a 1-element tensor.")
    kinds = (("a float", float32), ("an int", int32), ("a float", float32))
    for (name, t), (kind, dtype) in zip(named, kinds, strict=True):
        if t.dtype != dtype:
            raise RuntimeError(f"{name} must be {kind} tensor.")


def _amp_foreach_non_finite_check_and_unscale_(scaled_grads, found_inf, inv_scale) -> None:
    """Multiply every tensor by ``inv_scale`` in place; set ``found_inf`` to 1 if any holds an inf or NaN.

    Args:
        scaled_grads: floating tensors (the gradients), modified in place.
        found_inf: a 1-element float32 tensor, set to 1.0 when a non-finite value is seen (else untouched).
        inv_scale: a 1-element float32 tensor; a value of exactly 1 leaves the tensors as they are.
    """
    if inv_scale.numel() != 1:
        raise RuntimeError("inv_scale must be a 1-element tensor.")
    if found_inf.numel() != 1:
        raise RuntimeError("found_inf must be a 1-element tensor.")
    if inv_scale.dtype != float32:
        raise RuntimeError("inv_scale must be a float tensor.")
    if found_inf.dtype != float32:
        raise RuntimeError("found_inf must be a float tensor.")
    if not scaled_grads:
        return
    unit = inv_scale.item() == 1.0
    for grad in scaled_grads:
        if grad.dtype not in _FLOATING:
            raise NotImplementedError(f'"_amp_foreach_non_finite_check_and_unscale_{grad.device.type}" not '
                                      f"implemented for '{_dtype_name(grad.dtype)}'")
        if grad.numel() and not _gen.isfinite(grad).all().item():
            found_inf.fill_(1.0)
        if not unit:
            grad.mul_(inv_scale)


def _dtype_name(dtype) -> str:
    # c10's ScalarType names, as in PyTorch's "not implemented for 'Long'"
    names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
             "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
    key = str(dtype).replace("torch.", "")
    return names.get(key, key)


def _amp_update_scale_(scale, growth_tracker, found_inf, scale_growth_factor: float, scale_backoff_factor: float,
                       growth_interval: int):
    """Update the loss scale in place after an iteration; returns ``scale``.

    An inf/NaN seen (``found_inf`` non-zero): ``scale *= backoff`` and the tracker restarts at 0.
    Otherwise the tracker counts one more clean step; at ``growth_interval`` the scale grows by
    ``scale_growth_factor`` (only if the grown value is finite in float32) and the tracker restarts.
    """
    _check_update_args(scale, growth_tracker, found_inf)
    current = scale.item()
    if found_inf.item():
        scale.fill_(current * scale_backoff_factor)  # double product rounded to float32, as the kernel does
        growth_tracker.fill_(0)
        return scale
    successful = growth_tracker.item() + 1
    if successful == growth_interval:
        # the product is a double; it is kept only if it is still finite once rounded to float32
        grown = _fn.full((), current * scale_growth_factor, dtype=float64, device=scale.device).to(float32)
        if _gen.isfinite(grown).item():
            scale.copy_(grown)
        growth_tracker.fill_(0)
    else:
        growth_tracker.fill_(successful)
    return scale
