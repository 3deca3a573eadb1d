"""``torch.testing._internal.common_methods_invocations``'s sample builders that test files call directly, for the
glasstorch variant: torch builds the tensor (the harness's randomness), the adapter copies it into glasstorch.

Without this a torch tensor would reach a glasstorch function, whose ``__torch_function__`` protocol would hand
the call to torch's Tensor, which calls the glasstorch function again (test_autograd's ``test_where_*``).
"""

from __future__ import annotations

from torch.testing._internal import common_methods_invocations as _cmi

from tools.pytorch_tests.adapters.convert import to_glass


def mask_not_all_zeros(shape):
    """A random bool mask of ``shape`` with at least one True (torch's helper), as a glasstorch tensor."""
    return to_glass(_cmi.mask_not_all_zeros(shape))
