"""Helpers for code that juggles dispatch modes — PyTorch's ``torch/utils/_mode_utils.py``."""

from ._python_dispatch import DisableTorchDispatch

__all__ = ["all_same_mode", "no_dispatch"]


def all_same_mode(modes) -> bool:
    """True when every mode in ``modes`` equals the first."""
    return all(m == modes[0] for m in modes)


no_dispatch = DisableTorchDispatch
