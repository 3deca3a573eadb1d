"""Small hand-written nodes — PyTorch's ``torch/csrc/autograd/functions/basic_ops.{h,cpp}``, reached from Python
as ``torch._C._functions``.

``DelayedError(msg, n)(*tensors)`` hands back aliases of the tensors whose backward raises ``msg`` (the
``Error`` node), so that an error is reported only if a gradient is actually needed; ``UndefinedGrad()(*tensors)``
hands back clones whose backward sends undefined gradients on (``UndefinedGradBackward``).  Both attach their
node as PyTorch's ``wrap_outputs`` does: when no input requires grad the outputs are plain tensors; otherwise
they share one node, which has the inputs' edges only in grad mode.

Invariant: an output is never the input itself: a fresh TensorImpl (with its own version counter, as
``tensor_data()`` gives) or a clone.
"""

from __future__ import annotations

from .._core.grad_state import state as _grad_state
from .._ops.aten import aten
from .._tensor.impl import TensorImpl
from . import graph as _graph
from .graph import NodeBase, collect_next_edges, requires_grad, set_history

__all__ = ["Error", "DelayedError", "UndefinedGrad", "UndefinedGradBackward"]


class Error(NodeBase):
    """A node whose backward raises ``msg`` (``torch::autograd::Error``)."""

    __slots__ = ("msg",)
    _undefined_gives_undefined = False

    def __init__(self, msg: str, next_edges=()):
        super().__init__()
        self.msg = msg
        self.next_edges = tuple(next_edges)

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads):
        raise RuntimeError(self.msg)


class UndefinedGradBackward(NodeBase):
    """Sends an undefined gradient to each input (``torch::autograd::UndefinedGradBackward``)."""

    __slots__ = ()
    _undefined_gives_undefined = False

    def __init__(self, next_edges=()):
        super().__init__()
        self.next_edges = tuple(next_edges)

    def name(self) -> str:
        return "torch::autograd::UndefinedGradBackward"

    def apply(self, grads):
        return [None] * len(self.next_edges)


def _tensor_data(impl: TensorImpl) -> TensorImpl:
    """PyTorch's ``tensor_data()``: the same data and geometry, no autograd, a version counter of its own."""
    return TensorImpl(impl.storage, impl.sizes, impl.strides, impl.offset, impl.dtype, impl.device)


def _wrap_outputs(inputs: list, outputs: list, make_node):
    """PyTorch's ``wrap_outputs``: one node for all outputs when an input requires grad; a tuple unless one."""
    if any(requires_grad(i) for i in inputs):
        node = make_node(collect_next_edges(*inputs) if _grad_state.enabled else ())
        for nr, out in enumerate(outputs):
            set_history(out, node, nr)
    wrapped = tuple(_graph.to_tensor(o) for o in outputs)
    return wrapped[0] if len(wrapped) == 1 else wrapped


class _CppFunction:
    """The callable object ``torch._C._functions.X(...)`` gives: applied to tensors, it returns the outputs."""

    _name = ""
    _is_graph_node = True  # a node class of torch._C._functions, so a torch.autograd.graph.Node subclass

    def name(self) -> str:
        return f"torch::autograd::{self._name}"

    def _impls(self, tensors, expected=None) -> list:
        if expected is not None and len(tensors) != expected:
            raise TypeError(f"expected {expected} arguments, got {len(tensors)} instead")
        return [t._impl for t in tensors]


class DelayedError(_CppFunction):
    """``DelayedError(msg, num_inputs)``: outputs that alias the inputs and raise ``msg`` in backward."""

    _name = "DelayedError"

    def __init__(self, msg: str, num_inputs: int):
        self.msg = msg
        self.num_inputs = num_inputs

    def __call__(self, *tensors):
        inputs = self._impls(tensors, self.num_inputs)
        return _wrap_outputs(inputs, [_tensor_data(i) for i in inputs], lambda edges: Error(self.msg, edges))


class UndefinedGrad(_CppFunction):
    """``UndefinedGrad()``: outputs that clone the inputs and send undefined gradients back."""

    _name = "UndefinedGrad"

    def __call__(self, *tensors):
        inputs = self._impls(tensors)
        outputs = [aten.clone(_tensor_data(i), None) for i in inputs]
        return _wrap_outputs(inputs, outputs, UndefinedGradBackward)
