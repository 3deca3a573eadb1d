"""The thread-local grad mode flags — PyTorch's ``c10/core/GradMode.h`` / ``InferenceMode.h``.

They live at the bottom layer (as in c10) so that kernels below autograd can consult them (for
example ``out=`` kernels that refuse inputs requiring grad only while grad mode is on); the user
API is ``glasstorch.autograd.grad_mode``.
"""

from __future__ import annotations

import threading

__all__ = ["state"]


class _GradState(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False


state = _GradState()
