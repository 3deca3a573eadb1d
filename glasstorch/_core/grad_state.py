"""The thread-local grad mode flags — PyTorch's ``c10/core/GradMode.h`` / ``InferenceMode.h``.

They live at the bottom layer (as in c10) so that kernels below autograd can consult them (for
example ``out=`` kernels that refuse inputs requiring grad only while grad mode is on); the user
API is ``glasstorch.autograd.grad_mode``.
"""

from __future__ import annotations

import threading

from . import thread_state

__all__ = ["state", "forward_levels"]


class _GradState(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False
        self.fw_grad_mode = True  # PyTorch's AutogradState fw_grad_mode: off while a custom Function runs
        # PyTorch's AutogradState view_replay_enabled: views record how to replay themselves (ViewFunc) so a
        # view's grad_fn regenerated after an in-place write is the view op's own node, not AsStridedBackward0.
        self.view_replay = False
        self.multithreading = True  # set_multithreading_enabled (recorded; backward runs on the calling thread)
        # PyTorch's grad_layout_enforcement (torch.autograd.enforce_grad_layout_policy): False lets AccumulateGrad
        # steal a fresh gradient whose strides differ from the leaf's
        self.grad_layout_enforcement = True


class _ForwardLevels:
    """The forward-AD levels (PyTorch's global ForwardADLevel list): ``level`` is the innermost one, -1 for none.

    Process-wide, as PyTorch's levels are; the generated autograd kernels read ``level`` first, so calls made
    outside any ``dual_level`` pay one comparison."""

    level = -1


state = thread_state.register(_GradState())
forward_levels = _ForwardLevels()
