"""``glasstorch.cuda.amp`` — PyTorch's deprecated ``torch.cuda.amp`` spellings of the amp API.

``torch.cuda.amp.GradScaler(...)`` is ``torch.amp.GradScaler("cuda", ...)`` and ``torch.cuda.amp.autocast(...)``
is ``torch.autocast("cuda", ...)``, each with PyTorch's FutureWarning.  Both wrap the classes of
:mod:`glasstorch.amp`; while that package (another issue) does not provide them yet, the names are absent
and ``from glasstorch.cuda.amp import GradScaler`` raises ImportError.

Invariant: these are thin subclasses; all behaviour lives in ``glasstorch.amp``.
"""

from __future__ import annotations

import warnings

__all__ = []

try:  # glasstorch.amp arrives with its own issue; until then the aliases stay undefined
    from ...amp.grad_scaler import GradScaler as _AmpGradScaler
except ImportError:
    _AmpGradScaler = None

try:
    from ...amp.autocast_mode import autocast as _AmpAutocast
except ImportError:
    _AmpAutocast = None


if _AmpGradScaler is not None:
    class GradScaler(_AmpGradScaler):
        """``torch.cuda.amp.GradScaler`` (deprecated): ``glasstorch.amp.GradScaler("cuda", ...)``."""

        def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                     growth_interval: int = 2000, enabled: bool = True) -> None:
            warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                          "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
            super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)

    __all__.append("GradScaler")

if _AmpAutocast is not None:
    class autocast(_AmpAutocast):
        """``torch.cuda.amp.autocast`` (deprecated): ``glasstorch.autocast("cuda", ...)``."""

        def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
            warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                          "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
            kwargs = {} if dtype is None else {"dtype": dtype}
            super().__init__("cuda", enabled=enabled, cache_enabled=cache_enabled, **kwargs)

    __all__.append("autocast")
