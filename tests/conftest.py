"""Test-wide settings: both libraries run single-threaded. The oracle's tiny ops on a loaded 2-core machine
otherwise pay for thread hand-offs, and where a kernel's rounding depends on how its work is split between threads
(half-precision softmax off the last dim, layer norm's weight gradient), torch and glasstorch must split it the
same way. The conformance report pins the same count (tests/conformance/driver.py: pin_threads)."""

import torch

import glasstorch

torch.set_num_threads(1)
glasstorch.set_num_threads(1)
