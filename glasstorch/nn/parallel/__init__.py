"""``glasstorch.nn.parallel`` — PyTorch's data-parallel wrappers, as they behave on a machine without GPUs.

``DataParallel`` with no CUDA device simply calls the wrapped module (PyTorch does the same: its
``device_ids`` list is empty); ``DistributedDataParallel`` needs a process group, which glasstorch's
``distributed`` package never initialises, so it raises PyTorch's error.  Both keep the wrapped module as
``.module`` (so state-dict keys get PyTorch's ``module.`` prefix).

Invariant: wrapping never changes the numbers the module computes.
"""

from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]


class DataParallel(Module):
    """``nn.DataParallel``: replicate over CUDA devices — here there are none, so forward runs the module."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.dim = dim
        self.output_device = None
        self.src_device_obj = None

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form of :class:`DataParallel` (no devices: one call of ``module``)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))


class DistributedDataParallel(Module):
    """``nn.parallel.DistributedDataParallel``: needs an initialised process group."""

    def __init__(self, module, *args, process_group=None, **kwargs):
        super().__init__()
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
