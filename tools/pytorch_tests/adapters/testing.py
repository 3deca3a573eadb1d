"""``torch.testing``'s helpers for the glasstorch variant: built or compared by real torch, at the boundary.

* ``make_tensor``: torch builds the sample (its value distribution and its noncontiguous layout are harness
  behaviour), and the adapter copies it into a glasstorch tensor of the same dtype, shape and strides.
* ``assert_close``: both sides converted to torch, then torch's comparison with torch's rules and messages.

Anything else of ``torch.testing`` is glasstorch's (issue 22 adds it); the runtime reports it missing until then.
"""

from __future__ import annotations

import torch
import torch.testing

import glasstorch
from tools.pytorch_tests.adapters.convert import to_glass, to_torch


def make_tensor(*shape, dtype, device="cpu", **kwargs):
    requires_grad = kwargs.pop("requires_grad", False)
    t = torch.testing.make_tensor(*to_torch(list(shape)), dtype=to_torch(dtype), device="cpu", **kwargs)
    out = to_glass(t)
    if str(device) != "cpu":
        out = out.to(str(device))
    return out.requires_grad_(requires_grad) if requires_grad else out


def assert_close(actual, expected, *args, **kwargs):
    return torch.testing.assert_close(to_torch(actual), to_torch(expected), *args, **kwargs)


def __getattr__(name):
    testing = getattr(glasstorch, "testing", None)
    if testing is None or not hasattr(testing, name):
        raise AttributeError(f"glasstorch lacks torch.testing.{name}")
    return getattr(testing, name)
