"""``glasstorch.nn`` — PyTorch's ``torch.nn``: ``Module``, ``Parameter``, the layers, ``init``, ``functional``
and ``utils``.

Layers are thin modules over :mod:`glasstorch.nn.functional`; their state lives in Parameters and buffers
registered on the Module (see ``modules/module.py``).
"""

from . import (
    functional,  # noqa: F401
    init,  # noqa: F401
    modules,  # noqa: F401
    parallel,  # noqa: F401
    parameter,  # noqa: F401
    utils,  # noqa: F401
)
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401
