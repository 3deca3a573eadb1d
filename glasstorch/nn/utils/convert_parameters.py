"""Parameters <-> one flat vector — PyTorch's ``torch/nn/utils/convert_parameters.py``.

``parameters_to_vector`` concatenates the flattened parameters; ``vector_to_parameters`` points each
parameter's ``.data`` at the matching slice of a vector (a view: later writes to the vector show through).

Invariant: every parameter must be on the same device.
"""

from __future__ import annotations

from ..._generated.functions import cat
from ...tensor import Tensor
from ..modules.utils import typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old_param_device):
    """The device index shared by all parameters so far (-1 for CPU); TypeError on a mix."""
    device_index = param.get_device() if param.device.type == "cuda" else -1
    if old_param_device is None:
        return device_index
    if device_index != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device


def parameters_to_vector(parameters):
    """One 1-D tensor holding every parameter, flattened, in order.

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.utils.parameters_to_vector(torch.nn.Linear(3, 2).parameters()).shape
        torch.Size([8])
    """
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec, parameters) -> None:
    """Make each parameter read its slice of ``vec`` (``param.data = vec[i:j].view_as(param)``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
