"""``glasstorch.nn`` — PyTorch's ``torch.nn``.

For now only the functional API (:mod:`glasstorch.nn.functional`); the ``nn.Module`` layer (``Module``,
``Parameter``, ``Linear``, ...) comes later, built on these functions.
"""

from . import functional  # noqa: F401
