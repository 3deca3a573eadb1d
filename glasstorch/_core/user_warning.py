"""Warnings attributed to the user's line, as PyTorch's ``TORCH_WARN`` is (Python sees it raised at the call).

A fixed ``stacklevel`` is wrong for a kernel: the number of glasstorch frames between the user's call and the
kernel depends on the path (a binding's fast path or its parser, the autograd layer or not, a decomposition).
:func:`warn` walks out of the package instead and names the first frame outside it.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["warn"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn(message: str, category=UserWarning) -> None:
    """``warnings.warn(message, category)`` at the first frame outside glasstorch (the caller's own file)."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
