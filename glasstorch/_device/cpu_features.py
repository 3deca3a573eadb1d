"""What this CPU can do, as PyTorch reads it through cpuinfo (``cpuinfo_has_x86_*``), from the features numpy
detected at import.

PyTorch picks kernels by these: its vector ISA (``torch.backends.cpu.get_cpu_capability``) and whether oneDNN
takes reduced-precision convolutions (``mkldnn_bf16_device_check`` / ``mkldnn_fp16_device_check``), which round
differently from its own slow path (Note [oneDNN and reduced-precision convolutions] in kernels/cpu/conv.py).
Invariant: pure queries, computed from numpy's table, never from running code on the CPU.
"""

from __future__ import annotations

import os
import platform

from numpy._core._multiarray_umath import __cpu_features__ as _FEATURES

__all__ = ["has", "is_x86", "onednn_avx512", "onednn_bf16", "onednn_fp16"]


def has(*names: str) -> bool:
    """Whether the CPU has every feature named as numpy names them ("AVX512BW", "FMA3" ...)."""
    return all(_FEATURES.get(n, False) for n in names)


def is_x86() -> bool:
    return platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")


def _onednn_below_avx512() -> bool:
    """Whether ``ONEDNN_MAX_CPU_ISA`` (or ``DNNL_MAX_CPU_ISA``), read by oneDNN once at its first use, caps it below
    ``avx512_core`` (``SSE41``, ``AVX``, ``AVX2``, ``AVX2_VNNI``...); torch then picks as on an AVX2 machine."""
    cap = (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or "").upper()
    return cap.startswith(("SSE", "AVX2", "AVX_")) or cap == "AVX"


def onednn_avx512() -> bool:
    """Whether oneDNN's JIT kernels use its ``avx512_core`` ISA here (AVX-512 F, BW, VL, DQ)."""
    return is_x86() and has("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ") and not _onednn_below_avx512()


def onednn_bf16() -> bool:
    """``mkldnn_bf16_device_check``: oneDNN runs bfloat16 on AVX-512 cores (BW, VL, DQ)."""
    return is_x86() and has("AVX512BW", "AVX512VL", "AVX512DQ") and not _onednn_below_avx512()


def onednn_fp16() -> bool:
    """``mkldnn_fp16_device_check``: float16 needs AVX512-FP16 (or AMX-FP16, which numpy does not report)."""
    return is_x86() and has("AVX512FP16")
