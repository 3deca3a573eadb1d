"""``glasstorch.backends`` — PyTorch's ``torch.backends``: global switches for the math libraries.

glasstorch's kernels run on numpy, so these switches change no numbers today; they are kept with PyTorch's
defaults, validation and cross-links so that scripts which set them run unchanged and read back what they
set.  This module owns the process-wide settings PyTorch keeps in its ``at::Context``:

* the float32 matmul precision (``torch.set_float32_matmul_precision``: "highest" | "high" | "medium"),
  which ``backends.cuda.matmul.allow_tf32`` and ``fp32_precision`` read and write;
* deterministic-algorithms mode (``torch.use_deterministic_algorithms``, its warn-only flag and the
  ``set_deterministic_debug_mode`` spelling).

Invariant: every setter validates like PyTorch and every getter returns the last value set.
"""

from __future__ import annotations

import warnings

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode", "fp32_precision"]

_PRECISIONS = ("highest", "high", "medium")


class _Context:
    """The global switches (PyTorch's ``at::globalContext()``)."""

    __slots__ = ("matmul_precision", "matmul_fp32_precision", "deterministic", "deterministic_warn_only")

    def __init__(self):
        self.matmul_precision = "highest"
        self.matmul_fp32_precision = "none"
        self.deterministic = False
        self.deterministic_warn_only = False


context = _Context()
fp32_precision = "none"


def set_float32_matmul_precision(precision: str) -> None:
    """Allow float32 matmuls to use TF32 ("high") or bfloat16 passes ("medium"), or not ("highest")."""
    if not isinstance(precision, str):
        raise TypeError(f"_set_float32_matmul_precision(): argument 'arg0' (position 1) must be str, not "
                        f"{type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    context.matmul_precision = precision
    context.matmul_fp32_precision = "ieee" if precision == "highest" else "tf32"


def get_float32_matmul_precision() -> str:
    """The current float32 matmul precision ("highest" by default).

    Example:
        >>> get_float32_matmul_precision()
        'highest'
    """
    return context.matmul_precision


def _check_bool(value, what: str) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument '{what}'"
                        f"{' (position 1)' if what == 'mode' else ''} must be bool, not {type(value).__name__}")


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Require deterministic kernels (glasstorch's numpy kernels are deterministic already)."""
    _check_bool(mode, "mode")
    _check_bool(warn_only, "warn_only")
    context.deterministic = mode
    context.deterministic_warn_only = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return context.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return context.deterministic_warn_only


def set_deterministic_debug_mode(debug_mode) -> None:
    """0/"default": off, 1/"warn": warn only, 2/"error": deterministic algorithms required."""
    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    context.deterministic = debug_mode != 0
    context.deterministic_warn_only = debug_mode == 1


def get_deterministic_debug_mode() -> int:
    if not context.deterministic:
        return 0
    return 1 if context.deterministic_warn_only else 2


from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, quantized  # noqa: E402,F401
