"""``glasstorch.backends.cpu`` — PyTorch's ``torch.backends.cpu``: the SIMD level of this CPU.

``get_cpu_capability()`` names the widest vector ISA PyTorch would dispatch to ("AVX512", "AVX2" or
"DEFAULT" on x86; "DEFAULT" on ARM), detected from the CPU features numpy reports, and capped
by ``ATEN_CPU_CAPABILITY`` as PyTorch's is.
"""

from __future__ import annotations

import os
import platform

from .._device.cpu_features import has

__all__ = ["get_cpu_capability"]

_ORDER = ("DEFAULT", "AVX2", "AVX512")


def _detected() -> str:
    if platform.machine().lower() in ("aarch64", "arm64"):
        return "DEFAULT"  # PyTorch's SVE256 needs the SVE vector length, which numpy does not report
    if has("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ", "FMA3"):
        return "AVX512"
    if has("AVX2", "FMA3"):
        return "AVX2"
    return "DEFAULT"


def get_cpu_capability() -> str:
    """The CPU capability PyTorch would report on this machine, e.g. "AVX2".

    Example:
        >>> get_cpu_capability() in ("DEFAULT", "AVX2", "AVX512", "SVE256")
        True
    """
    found = _detected()
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if found in _ORDER and cap in _ORDER and _ORDER.index(cap) < _ORDER.index(found):
        return cap
    return found
