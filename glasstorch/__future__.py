"""Future-behaviour switches — PyTorch's ``torch/__future__.py``.

``nn.Module._apply`` (``.to()``, ``.double()``, ``._apply(fn)``) reads them: with
``set_overwrite_module_params_on_conversion(True)`` a converted parameter is a new Parameter instead of the old one
with new ``.data``; ``set_swap_module_params_on_conversion(True)`` asks for ``torch.utils.swap_tensors``, which
glasstorch does not implement (``_apply`` then raises).

Invariant: both switches are process-wide and off by default.
"""

from __future__ import annotations

__all__ = ["set_overwrite_module_params_on_conversion", "get_overwrite_module_params_on_conversion",
           "set_swap_module_params_on_conversion", "get_swap_module_params_on_conversion"]

_overwrite_module_params_on_conversion: bool = False
_swap_module_params_on_conversion: bool = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Whether converting a module assigns new parameters (True) rather than new ``.data`` to the old ones."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion() -> bool:
    """The switch :func:`set_overwrite_module_params_on_conversion` sets (default False)."""
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Whether converting a module swaps parameters in place with ``swap_tensors`` (not implemented here)."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion() -> bool:
    """The switch :func:`set_swap_module_params_on_conversion` sets (default False)."""
    return _swap_module_params_on_conversion
