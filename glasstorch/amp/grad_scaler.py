"""Dynamic loss scaling for mixed precision — PyTorch's ``torch/amp/grad_scaler.py``.

``scale(loss)`` multiplies by the current scale; ``step(opt)`` unscales the gradients (once per optimizer
per iteration), checks them for inf/NaN and runs ``opt.step()`` only when all are finite; ``update()``
backs the scale off after an overflow, or grows it after ``growth_interval`` clean iterations.

Invariants: the scale (float32, 0-dim) and growth tracker (int32, 0-dim) are created lazily on the first
``scale()`` on the outputs' device and only ever updated in place; a disabled scaler (``enabled=False``, or
``device="cuda"`` with no CUDA, which warns as PyTorch does) passes everything through untouched.

Note [CUDA availability probe]: ``glasstorch.cuda`` sits beside this package and aliases
``torch.cuda.amp.GradScaler`` to the class below, so it is looked up in ``sys.modules`` at construction
time instead of imported; with no CUDA module loaded, CUDA is unavailable.
"""

from __future__ import annotations

import inspect
import sys
import warnings
from collections import abc, defaultdict
from enum import Enum
from typing import Any

from .. import _functions as _fn
from .._core.device import device as _device_cls
from .._core.dtype import float16, float32, int32
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ._scaling_ops import _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_

__all__ = ["OptState", "GradScaler"]


class _MultiDeviceReplicator:
    """Serves copies of one tensor per device, made lazily and cached."""

    __slots__ = ("master", "_per_device_tensors")

    def __init__(self, master_tensor: Tensor) -> None:
        self.master = master_tensor
        self._per_device_tensors: dict = {}

    def get(self, device) -> Tensor:
        out = self._per_device_tensors.get(device)
        if out is None:
            out = self.master.to(device=device, non_blocking=True, copy=True)
            self._per_device_tensors[device] = out
        return out


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _cuda_definitely_not_available() -> bool:
    """See Note [CUDA availability probe]."""
    cuda = sys.modules.get("glasstorch.cuda")
    is_available = getattr(cuda, "is_available", None)
    return is_available is None or not is_available()


class GradScaler:
    """Scale losses so small fp16 gradients do not underflow, and unscale them before the step.

    Args:
        device: the device type the scaler serves (``"cuda"`` or ``"cpu"``).
        init_scale: the first scale factor.
        growth_factor: multiplies the scale after ``growth_interval`` clean iterations (must be > 1).
        backoff_factor: multiplies the scale after an iteration with inf/NaN gradients (must be < 1).
        growth_interval: clean iterations needed before growing.
        enabled: ``False`` makes every method a pass-through.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.ones(2, requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.1)
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
        >>> scaler.scale((w * w).sum()).backward()
        >>> scaler.step(opt); scaler.update(); w
        tensor([0.8000, 0.8000], requires_grad=True)
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and _cuda_definitely_not_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Tensor | None = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Tensor | None = None
            self._per_optimizer_states: dict[int, dict[str, Any]] = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str) -> tuple[Tensor, Tensor]:
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev) -> None:
        if self._growth_tracker is not None:
            raise AssertionError("_growth_tracker initialized before _scale")
        self._scale = _fn.full((), self._init_scale, dtype=float32, device=dev)
        self._growth_tracker = _fn.full((), self._init_growth_tracker, dtype=int32, device=dev)

    def scale(self, outputs):
        """Multiply a tensor, or the tensors of a (nested) list/tuple/iterable, by the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)
        stash: list[_MultiDeviceReplicator] = []

        def apply_scale(val):
            if isinstance(val, Tensor):
                if not stash:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(val.device)
                    stash.append(_MultiDeviceReplicator(self._scale))
                return val * stash[0].get(val.device)
            if isinstance(val, abc.Iterable):
                iterable = map(apply_scale, val)
                return type(val)(iterable) if isinstance(val, (list, tuple)) else iterable
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale: Tensor, found_inf: Tensor, allow_fp16: bool) -> dict:
        per_device_inv_scale = _MultiDeviceReplicator(inv_scale)
        per_device_found_inf = _MultiDeviceReplicator(found_inf)
        per_device_and_dtype_grads: dict = defaultdict(lambda: defaultdict(list))
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, Tensor):
                        raise AssertionError(f"expected param to be torch.Tensor, got {type(param).__name__}")
                    if param.grad is None:
                        continue
                    if (not allow_fp16) and param.grad.dtype == float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grad = param.grad
                    per_device_and_dtype_grads[grad.device][grad.dtype].append(grad)
            for dev, per_dtype_grads in per_device_and_dtype_grads.items():
                for grads in per_dtype_grads.values():
                    _amp_foreach_non_finite_check_and_unscale_(grads, per_device_found_inf.get(dev),
                                                               per_device_inv_scale.get(dev))
        return per_device_found_inf._per_device_tensors

    def unscale_(self, optimizer) -> None:
        """Divide the optimizer's gradients by the scale (at most once per optimizer between updates).

        Raises:
            RuntimeError: when called twice for one optimizer since ``update()``, or after ``step()``.
        """
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale.device != _device_cls("mps:0"):
            inv_scale = self._scale.double().reciprocal().float()
        else:
            inv_scale = self._scale.reciprocal()
        found_inf = _fn.full((), 0.0, dtype=float32, device=self._scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not done yet) and run ``optimizer.step(*args, **kwargs)`` unless a grad is inf/NaN.

        Returns:
            what ``optimizer.step`` returned, or ``None`` when the step was skipped.
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            return self._step_amp_aware(optimizer, optimizer_state, args, kwargs)
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def _step_amp_aware(self, optimizer, optimizer_state, args, kwargs):
        """Fused optimizers unscale and skip by themselves: hand them ``grad_scale`` and ``found_inf``."""
        has_grad_scaler_kwarg = "grad_scaler" in inspect.signature(optimizer.step).parameters
        if has_grad_scaler_kwarg:
            warnings.warn("GradScaler is going to stop passing itself as a keyword argument to the passed "
                          "optimizer. In the near future GradScaler registers `grad_scale: Tensor` and "
                          "`found_inf: Tensor` to the passed optimizer and let the optimizer use them directly.",
                          FutureWarning, stacklevel=3)
            kwargs.update({"grad_scaler": self})
        else:
            if optimizer_state["stage"] is OptState.READY:
                self._check_inf_per_device(optimizer)
            scaler = self._get_scale_async()
            found_inf = sum([t.to(scaler.device, non_blocking=True)
                             for t in optimizer_state["found_inf_per_device"].values()])
            optimizer.grad_scale = (getattr(optimizer, "grad_scale", None)
                                    if optimizer_state["stage"] == OptState.UNSCALED
                                    else scaler * getattr(optimizer, "grad_scale", 1))
            optimizer.found_inf = found_inf
        retval = optimizer.step(*args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        if not has_grad_scaler_kwarg:
            del optimizer.grad_scale
            del optimizer.found_inf
        return retval

    def update(self, new_scale=None) -> None:
        """Back off or grow the scale from this iteration's inf checks, or set it to ``new_scale``."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor "
                          "with requires_grad=False.")
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(device=_scale.device, non_blocking=True)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf_combined = found_infs[0]
            for extra in found_infs[1:]:
                found_inf_combined += extra
            _amp_update_scale_(_scale, _growth_tracker, found_inf_combined, self._growth_factor,
                               self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self) -> Tensor | None:
        return self._scale

    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            scale = self._get_scale_async()
            return self._init_scale if scale is None else scale.item()
        return 1.0

    def get_growth_factor(self) -> float:
        """The factor the scale grows by."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Set the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale backs off by."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Set the factor the scale backs off by."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """The number of clean iterations before the scale grows."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Set the number of clean iterations before the scale grows."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()
        return 0

    def is_enabled(self) -> bool:
        """Whether this scaler scales (False after the CUDA-unavailable fallback)."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval``, ``_growth_tracker`` ({} when
        disabled)."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a :meth:`state_dict` (a no-op when disabled).

        Raises:
            RuntimeError: when ``state_dict`` is empty (saved from a disabled scaler).
        """
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning of an iteration, "
                                     "or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer) -> dict:
        _scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")
        dummy_inv_scale = _fn.full((), 1.0, dtype=float32, device=_scale.device)
        found_inf = _fn.full((), 0.0, dtype=float32, device=_scale.device)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = self._unscale_grads_(
            optimizer, dummy_inv_scale, found_inf, True)
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer) -> dict:
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
