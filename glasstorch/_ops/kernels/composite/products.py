"""Composite kernels with their own derivative formulas — PyTorch's ``trace`` (a CPU kernel in
``ReduceOps.cpp``) and ``block_diag`` (CompositeExplicitAutograd in ``TensorShape.cpp``).

Each runs other operators through ``aten`` below the Autograd key, so autograd records one node per call
(``TraceBackward0``, ``BlockDiagBackward0``) as in PyTorch.

Invariant: results are fresh tensors; ``out=`` forms run the functional kernel, then resize and copy.
"""

from __future__ import annotations

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl, empty_impl
from ...aten import aten
from ...factories import full_impl
from ...tensor_iterator import common_dtype, resize_out

__all__ = ["trace", "trace_out", "block_diag"]


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


def _block_shape(t: TensorImpl, i: int) -> tuple:
    if t.ndim > 2:
        raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.ndim} "
                           f"dimensions")
    return ((1, 1), (1, t.numel()), tuple(t.sizes))[t.ndim]


def block_diag(tensors) -> TensorImpl:
    """The inputs as blocks on the diagonal of a zero matrix (0-d as 1x1, 1-d as a row), in their promoted dtype;
    no input gives an empty (1, 0) matrix."""
    tensors = list(tensors)
    shapes = [_block_shape(t, i) for i, t in enumerate(tensors)]
    if not tensors:
        return empty_impl((1, 0), _dt.get_default_dtype())
    for i, t in enumerate(tensors[1:], 1):
        if t.device != tensors[0].device:
            raise RuntimeError(f"torch.block_diag: input tensors must all be on the same device. Input 0 is on device "
                               f"{tensors[0].device} and input {i} is on device {t.device}")
    sizes = (sum(r for r, _ in shapes), sum(c for _, c in shapes))
    out = full_impl(sizes, 0, common_dtype(tensors), tensors[0].device)
    row = col = 0
    for t, (r, c) in zip(tensors, shapes, strict=True):
        if r and c:
            block = aten.slice_Tensor(aten.slice_Tensor(out, 0, row, row + r, 1), 1, col, col + c, 1)
            aten.copy_(block, aten.reshape(t, (r, c)), False)
        row, col = row + r, col + c
    return out
