"""``glasstorch.backends.cuda`` — PyTorch's ``torch.backends.cuda``: cuBLAS switches and SDPA kernel toggles.

``matmul`` is the cuBLAS settings object: ``allow_tf32`` mirrors the float32 matmul precision kept in
:mod:`glasstorch.backends` ("highest" <-> False), the reduced-precision-reduction flags are stored.  The
scaled-dot-product-attention toggles (flash, memory-efficient, math, cuDNN) are stored switches.
glasstorch has no CUDA build, so ``is_built()`` is False.

Invariant: unknown attributes of ``matmul`` raise ``AttributeError("Unknown attribute <name>")``.
"""

from __future__ import annotations

import contextlib

from . import context

__all__ = ["is_built", "matmul", "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled",
           "enable_mem_efficient_sdp", "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled",
           "enable_cudnn_sdp", "sdp_kernel", "preferred_linalg_library"]


def is_built() -> bool:
    """Whether glasstorch was built with CUDA (no)."""
    return False


def _parse_reduction(value, attr_name: str) -> tuple[bool, bool]:
    """A bool, or ``(allow_reduced_precision[, allow_splitk])``, as PyTorch accepts."""
    def as_bool(obj, which):
        if isinstance(obj, bool):
            return obj
        raise TypeError(f"{attr_name} expects a bool for {which}, but got {type(obj)!r}")
    if isinstance(value, bool):
        return value, True
    if isinstance(value, (list, tuple)):
        if not value:
            raise TypeError(f"{attr_name} expects at least one boolean argument")
        if len(value) > 2:
            raise TypeError(f"{attr_name} expects at most two boolean arguments")
        allow = as_bool(value[0], "allow_reduced_precision")
        return allow, True if len(value) == 1 else as_bool(value[1], "allow_splitk")
    raise TypeError(f"{attr_name} expects a bool or a tuple/list of bools, but got {type(value)!r}")


class cuBLASModule:
    """``torch.backends.cuda.matmul``."""

    def __init__(self):
        object.__setattr__(self, "_reduction", {"fp16": (True, True), "bf16": (True, True)})
        object.__setattr__(self, "_fp16_accumulation", False)

    def __getattr__(self, name):
        reduction = object.__getattribute__(self, "_reduction")
        if name == "allow_tf32":
            return context.matmul_precision != "highest"
        if name == "fp32_precision":
            return context.matmul_fp32_precision
        if name == "allow_fp16_accumulation":
            return object.__getattribute__(self, "_fp16_accumulation")
        for kind in ("fp16", "bf16"):
            if name == f"allow_{kind}_reduced_precision_reduction":
                return reduction[kind][0]
            if name == f"allow_{kind}_reduced_precision_reduction_split_k":
                return reduction[kind][1]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
            context.matmul_precision = "high" if value else "highest"
            context.matmul_fp32_precision = "tf32" if value else "ieee"
        elif name == "fp32_precision":
            if value not in ("ieee", "tf32", "none"):
                raise RuntimeError(f"{value} is not supported in cuda matmul, expected one of ieee, tf32, none")
            context.matmul_fp32_precision = value
            context.matmul_precision = "high" if value == "tf32" else "highest"
        elif name in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
            self._reduction[name[6:10]] = _parse_reduction(value, name)
        elif name == "allow_fp16_accumulation":
            object.__setattr__(self, "_fp16_accumulation", bool(value))
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    return _sdp["math"]


def enable_math_sdp(enabled: bool) -> None:
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp["cudnn"] = bool(enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """Temporarily set the four SDPA toggles (PyTorch's deprecated context manager)."""
    saved = dict(_sdp)
    _sdp.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn)
    try:
        yield
    finally:
        _sdp.update(saved)


def preferred_linalg_library(backend=None) -> str:
    """The CUDA linear-algebra library preference; only "default" exists without CUDA."""
    if backend not in (None, "default"):
        raise RuntimeError(f"Unknown input value. Choose from: default, cusolver, magma. Got {backend}")
    return "default"
