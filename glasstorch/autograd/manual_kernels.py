"""Autograd kernels written by hand, for operators whose backward PyTorch also writes by hand
(``torch/csrc/autograd/functions/tensor.cpp``): ``copy_`` records :class:`CopyBackwards`.

Invariant: like the generated kernels, nothing is recorded when grad mode is off or no input requires grad.
"""

from __future__ import annotations

from .._core.grad_state import state as _gs
from .._ops.dispatcher import get_op
from .._tensor.impl import TensorImpl
from .graph import collect_next_edges
from .node_support import check_inplace, record, register_autograd, requires_grad_any
from .view_history import CopyBackwards

__all__ = []

_op_copy_ = get_op("aten::copy_")


def _autograd_copy_(ks, self, src, non_blocking=False):
    if _gs.enabled and type(src) is TensorImpl and requires_grad_any(self, src):
        check_inplace(self)
        node = CopyBackwards()
        node.next_edges = collect_next_edges(self, src)
        node.src_dtype = src.dtype
        node.src_device = src.device
        result = _op_copy_.redispatch(ks, self, src, non_blocking)
        record.history_inplace(result, node)
        return result
    return _op_copy_.redispatch(ks, self, src, non_blocking)


register_autograd("aten::copy_", _autograd_copy_)
