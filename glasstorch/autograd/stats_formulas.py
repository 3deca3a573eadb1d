"""Backward formulas of the statistics reductions — PyTorch's ``aminmax``, ``logcumsumexp_backward`` and
``renorm_backward`` (``FunctionsManual.cpp``), over public Tensors; the generated nodes import these next to
``formulas.py``.

Invariant: only differentiable operators, so double backward works.
"""

from __future__ import annotations

from . import formulas as _formulas

__all__ = ["aminmax_backward"]


def aminmax_backward(grad_min, grad_max, x, dim, keepdim, min_, max_):
    """aminmax: each defined output gradient is shared by the elements equal to its extreme (amax's rule)."""
    dims = [] if dim is None else [dim]
    out = None
    for g, r in ((grad_min, min_), (grad_max, max_)):
        if g is not None:
            part = _formulas.amax_backward(g, x, dims, keepdim, r)
            out = part if out is None else out + part
    return out
