"""Test-wide settings: the oracle runs single-threaded (tiny ops on a loaded 2-core machine otherwise pay for
thread hand-offs, and glasstorch's numpy kernels run on one thread too)."""

import torch

torch.set_num_threads(1)
