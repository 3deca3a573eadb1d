"""``glasstorch.nn._reduction`` — PyTorch's ``torch/nn/_reduction.py``: loss reduction names and their enum.

``get_enum`` maps a reduction string to ``at::Reduction`` (none 0, mean 1, sum 2); the legacy pair
``size_average``/``reduce`` of the old loss signatures maps to a reduction string, with PyTorch's
deprecation warning.  Invariant: the numbers are ATen's ``Reduction.h`` enum.
"""

from __future__ import annotations

import warnings

__all__ = ["get_enum", "legacy_get_string", "legacy_get_enum"]

_ENUM = {"none": 0, "mean": 1, "sum": 2}


def get_enum(reduction: str) -> int:
    """The ``at::Reduction`` number of ``reduction``; ValueError for an unknown name."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=2)
        return 1
    if reduction not in _ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUM[reduction]


def legacy_get_string(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> str:
    """The reduction that the deprecated ``size_average``/``reduce`` pair means (None counts as True)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = ("mean" if size_average else "sum") if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=2)
    return ret


def legacy_get_enum(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> int:
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
