"""Autograd kernels written by hand, for operators whose backward PyTorch also writes by hand
(``torch/csrc/autograd/functions/tensor.cpp``): ``copy_`` records :class:`CopyBackwards`; ``resize_`` and
``resize_as_`` refuse tensors that require grad (``VariableTypeManual.cpp``) in any grad mode; ``set_`` runs as an
operator without a formula and then drops the tensor's cached AccumulateGrad, whose recorded shape may be stale
(PyTorch's generated ``reset_grad_accumulator`` for set_).

Invariant: like the generated kernels, nothing is recorded when grad mode is off or no input requires grad.
"""

from __future__ import annotations

from .._core.dispatch_key import bit
from .._core.grad_state import forward_levels
from .._core.grad_state import state as _gs
from .._ops.aten import aten
from .._ops.dispatcher import get_op
from .._tensor.impl import TensorImpl
from .forward_grad import fw_grad, has_fw_grad, set_fw_grad
from .graph import collect_next_edges, requires_grad
from .node_support import check_inplace, not_implemented_fallback, record, register_autograd, requires_grad_any
from .view_history import CopyBackwards

__all__ = []

_op_copy_ = get_op("aten::copy_")


def _autograd_copy_(ks, self, src, non_blocking=False):
    if forward_levels.level >= 0 and _gs.fw_grad_mode and has_fw_grad(self, src):
        return _copy_dual(ks, self, src, non_blocking)
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


def _copy_dual(ks, self, src, non_blocking):
    """``copy_`` with a dual operand (PyTorch's manual VariableType::copy_): self's tangent becomes src's (zeros
    when src has none), written in place when self has one."""
    self_t, src_t = fw_grad(self), fw_grad(src)
    _gs.fw_grad_mode = False
    try:
        _autograd_copy_(ks, self, src, non_blocking)
        if not (self.dtype.is_floating_point or self.dtype.is_complex):
            return self
        if self_t is not None:
            new = aten.copy_(self_t, src_t, False) if src_t is not None else aten.zero_(self_t)
        else:
            new = aten.expand(src_t, self.sizes, False) if src_t.sizes != self.sizes else aten.clone(src_t, None)
    finally:
        _gs.fw_grad_mode = True
    set_fw_grad(self, new, 0, is_inplace=True)
    return self


register_autograd("aten::copy_", _autograd_copy_)


_op_resize_ = get_op("aten::resize_")
_op_resize_as_ = get_op("aten::resize_as_")
_NO_VERSION_BUMP = ~bit("ADInplaceOrView")


def _resize_keys(ks, self, sizes):
    """PyTorch bumps the version of a resized tensor only when its sizes change (a restride alone does not)."""
    if requires_grad(self):
        raise RuntimeError("cannot resize variables that require grad")
    return ks & _NO_VERSION_BUMP if tuple(sizes) == self.sizes else ks


def _no_tangent(self):
    """PyTorch checks after resizing that the tensor is not dual."""
    if forward_levels.level >= 0 and fw_grad(self) is not None:
        raise RuntimeError("cannot resize variables that has a forward grad")
    return self


def _autograd_resize_(ks, self, size, memory_format=None):
    out = _op_resize_.redispatch(_resize_keys(ks, self, size), self, size, memory_format=memory_format)
    return _no_tangent(out)


def _autograd_resize_as_(ks, self, the_template, memory_format=None):
    ks = _resize_keys(ks, self, the_template.sizes)
    return _no_tangent(_op_resize_as_.redispatch(ks, self, the_template, memory_format=memory_format))


register_autograd("aten::resize_", _autograd_resize_)
register_autograd("aten::resize_as_", _autograd_resize_as_)


def _set_kernel(op):
    def kernel(ks, self, *args, **kwargs):
        out = not_implemented_fallback(op, ks, self, *args, **kwargs)
        if self.autograd is not None:
            self.autograd.grad_accumulator = None
        return out
    return kernel


for _name in ("aten::set_.source_Storage", "aten::set_.source_Storage_storage_offset", "aten::set_.source_Tensor",
              "aten::set_"):
    register_autograd(_name, _set_kernel(get_op(_name)))
