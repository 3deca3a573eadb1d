"""``glasstorch.masked`` — PyTorch's ``torch.masked``: reductions and normalisations that ignore masked-out elements.

Invariant: see ``_ops.py`` (strided layouts only; ``MaskedTensor`` is not provided).
"""

from __future__ import annotations

from ._ops import (  # noqa: F401  (_input_mask, _output_mask: used by torch's tests)
    _input_mask,
    _output_mask,
    amax,
    amin,
    argmax,
    argmin,
    cumprod,
    cumsum,
    log_softmax,
    logaddexp,
    logsumexp,
    mean,
    median,
    norm,
    normalize,
    prod,
    softmax,
    softmin,
    std,
    sum,
    var,
)

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp", "logsumexp", "mean",
           "median", "norm", "normalize", "prod", "softmax", "softmin", "std", "sum", "var"]
