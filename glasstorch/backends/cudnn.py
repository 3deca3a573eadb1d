"""``glasstorch.backends.cudnn`` — PyTorch's ``torch.backends.cudnn`` switches, without a cuDNN to steer.

``enabled``, ``benchmark``, ``deterministic`` and ``allow_tf32`` are plain module attributes with PyTorch's
defaults (True, False, False, True); ``flags(...)`` sets them for a block.  ``is_available()`` is False and
``version()`` None, as on a CPU-only PyTorch.

Invariant: reading an attribute returns the last value assigned to it.
"""

from __future__ import annotations

import contextlib
import sys

__all__ = ["is_available", "version", "flags", "enabled", "benchmark", "deterministic", "allow_tf32",
           "benchmark_limit", "fp32_precision"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10
fp32_precision = "none"


def is_available() -> bool:
    return False


def version():
    return None


def is_acceptable(tensor) -> bool:
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none", depthwise_kernel="auto"):
    """Set the cuDNN switches for the duration of a ``with`` block."""
    mod = sys.modules[__name__]
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32", "fp32_precision")
    saved = {n: getattr(mod, n) for n in names}
    new = dict(zip(names, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32, fp32_precision),
                   strict=True))
    for n, v in new.items():
        setattr(mod, n, v)
    try:
        yield
    finally:
        for n, v in saved.items():
            setattr(mod, n, v)
