"""Composite kernels with their own derivative formulas — PyTorch's ``trace`` (a CPU kernel in
``ReduceOps.cpp``) and ``block_diag`` (CompositeExplicitAutograd in ``TensorShape.cpp``).

Each runs other operators through ``aten`` below the Autograd key, so autograd records one node per call
(``TraceBackward0``, ``BlockDiagBackward0``) as in PyTorch.

Invariant: results are fresh tensors; ``out=`` forms run the functional kernel, then resize and copy.
"""

from __future__ import annotations

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl
from ...aten import aten
from ...tensor_iterator import resize_out

__all__ = ["trace", "trace_out"]


def trace(self: TensorImpl) -> TensorImpl:
    """The sum of the main diagonal of a matrix, in ``sum``'s dtype (integers accumulate in int64)."""
    if self.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.ndim}")
    if self.dtype == _dt.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return aten.sum(aten.diagonal(self, 0, 0, 1), None)


def trace_out(self: TensorImpl, out: TensorImpl) -> TensorImpl:
    result = trace(self)
    resize_out(out, result.sizes)
    return aten.copy_(out, result, False)
