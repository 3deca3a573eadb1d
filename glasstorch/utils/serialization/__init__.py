"""glasstorch.utils.serialization — PyTorch's ``torch/utils/serialization``: the ``config`` of save/load."""

from . import config  # noqa: F401
