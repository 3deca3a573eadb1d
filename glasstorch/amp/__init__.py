"""``glasstorch.amp`` — PyTorch's ``torch.amp``: automatic mixed precision.

Layer L6.  Two halves, as in PyTorch: *autocast* (run selected ops in a lower precision; the Autocast
dispatch key) and *gradient scaling* (:class:`GradScaler`, which keeps small fp16 gradients from
underflowing).  ``torch.cuda.amp.GradScaler`` is an alias of this GradScaler (set up by ``glasstorch.cuda``).
"""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler, OptState  # noqa: F401

__all__ = ["GradScaler", "autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]
