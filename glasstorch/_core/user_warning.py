"""Warnings attributed to the user's line, as PyTorch's ``TORCH_WARN`` is (Python sees it raised at the call).

A fixed ``stacklevel`` is wrong for a kernel: the number of glasstorch frames between the user's call and the
kernel depends on the path (a binding's fast path or its parser, the autograd layer or not, a decomposition).
:func:`warn` walks out of the package instead and names the first frame outside it.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["warn", "warn_once", "set_warn_always", "is_warn_always_enabled"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn(message: str, category=UserWarning) -> None:
    """``warnings.warn(message, category)`` at the first frame outside glasstorch (the caller's own file)."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


class _WarnState:
    """``torch.set_warn_always``'s flag (process-wide, as PyTorch's ``c10::WarningUtils``) and the messages
    ``TORCH_WARN_ONCE`` has already given."""

    always = False
    given: set = set()


def set_warn_always(mode: bool) -> None:
    _WarnState.always = bool(mode)


def is_warn_always_enabled() -> bool:
    return _WarnState.always


def warn_once(message: str, category=UserWarning, key=None) -> None:
    """PyTorch's ``TORCH_WARN_ONCE``: the first time per process (``key``, or the message, names the call site),
    and every time while ``set_warn_always(True)``."""
    key = message if key is None else key
    if _WarnState.always:
        warn(message, category)
    elif key not in _WarnState.given:
        _WarnState.given.add(key)
        warn(message, category)
