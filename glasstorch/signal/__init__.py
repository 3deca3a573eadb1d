"""``glasstorch.signal`` — PyTorch's ``torch.signal``: signal-processing helpers (the ``windows`` submodule).

Invariant: no data is touched here; the windows are compositions of public operators.
"""

from __future__ import annotations

from . import windows

__all__ = ["windows"]
