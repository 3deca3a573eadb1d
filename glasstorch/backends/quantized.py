"""``glasstorch.backends.quantized`` — PyTorch's ``torch.backends.quantized``: the quantized-kernel engine switch.

glasstorch has no quantized kernels, so it answers as a PyTorch build without any quantized engine does:
``supported_engines`` is ``['none']`` and ``engine`` is ``'none'``.  Invariant: ``engine`` is always one of
``supported_engines``.
"""

from __future__ import annotations

import sys
import types

__all__ = ["engine", "supported_engines"]  # noqa: F822 -- properties of the module object (below)

# the engine names and the C++ enum names (c10::QEngine) PyTorch's messages print
_QENGINE_NAMES = {"none": "NoQEngine", "fbgemm": "FBGEMM", "qnnpack": "QNNPACK", "onednn": "ONEDNN", "x86": "X86"}
_SUPPORTED = ("none",)


class _QuantizedModule(types.ModuleType):
    """The module object itself, so that ``engine`` reads and validates like PyTorch's property."""

    @property
    def engine(self) -> str:
        return "none"

    @engine.setter
    def engine(self, value: str) -> None:
        if value not in _QENGINE_NAMES:
            raise RuntimeError(f"{value} is not a valid value for quantized engine")
        if value not in _SUPPORTED:
            raise RuntimeError(f"quantized engine {_QENGINE_NAMES[value]} is not supported")

    @property
    def supported_engines(self) -> list:
        return list(_SUPPORTED)


sys.modules[__name__].__class__ = _QuantizedModule
