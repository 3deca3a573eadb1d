"""Runtime support of the generated autograd kernels and nodes — PyTorch's ``VariableTypeUtils.h``.

The generated Autograd-key kernel of an op asks: is grad mode on and does a differentiable input
require grad?  If so it builds the node, points its edges at the inputs' gradient edges, saves what
the formulas need, redispatches below autograd and makes the outputs the node's outputs.  In-place
kernels first check PyTorch's leaf rules; ``out=`` kernels refuse to record.

Operators without a formula get :func:`not_implemented_fallback` at the Autograd keys: their floating
outputs still get a node, whose backward raises "the derivative for 'aten::foo' is not implemented."

Invariant: nothing is recorded when grad mode is off or no input requires grad.
"""

from __future__ import annotations

from .._core.dispatch_key import AUTOGRAD_KEYS
from .._core.dtype import name_of
from .._core.grad_state import forward_levels
from .._ops.aten import aten
from .._ops.dispatcher import register_fallback, register_kernel
from .._ops.factories import full_impl
from .._tensor.impl import AutogradMeta, TensorImpl
from . import graph as _graph
from .anomaly_mode import _state as _anomaly
from .anomaly_mode import is_anomaly_enabled, record_forward_stack
from .forward_grad import has_fw_grad
from .grad_mode import state as _grad_state
from .graph import (
    NodeBase,
    SavedTensor,
    collect_next_edges,
    grad_accumulator,
    gradient_edge,
    requires_grad,
    set_history,
)
from .view_history import handle_view_on_rebase, rebase_history

__all__ = ["grad_enabled", "requires_grad_any", "record", "check_inplace", "out_not_differentiable",
           "out_no_forward_ad", "register_autograd", "materialize", "unwrap", "wrap_saved", "not_implemented_fallback"]


def grad_enabled() -> bool:
    return _grad_state.enabled


def requires_grad_any(*impls) -> bool:
    for t in impls:
        if type(t) is TensorImpl:
            meta = t.autograd
            if meta is not None and (meta.requires_grad or meta.grad_fn is not None) or (
                    t.base is not None and requires_grad(t.base)):
                return True
    return False


def _differentiable(impl) -> bool:
    return type(impl) is TensorImpl and (impl.dtype.is_floating_point or impl.dtype.is_complex)


# Note [Recording fast paths]
# A recorded 1-element op spends most of its time in Python frames.  ``record.edges`` and ``record.output`` do
# the common cases of graph.gradient_edge / set_history inline: a non-view input's edge is its grad_fn or its
# live AccumulateGrad, and a fresh output (no autograd metadata, not a view) of a fresh node gets its metadata
# in a few stores.  Every other case (views, whose grad_fn may need regenerating; outputs that already have
# history or retain their grad) goes through graph's general functions, so the result is the same either way.
def _edges(*impls) -> tuple:
    """``graph.collect_next_edges``: per input, ``(grad_fn, output_nr)``, ``(AccumulateGrad, 0)`` or None."""
    out = []
    for t in impls:
        meta = t.autograd if type(t) is TensorImpl else None
        if meta is None:
            out.append(None)
        elif t.base is not None:
            out.append(gradient_edge(t))
        elif meta.grad_fn is not None:
            out.append((meta.grad_fn, meta.output_nr))
        elif meta.requires_grad:
            ref = meta.grad_accumulator
            acc = ref() if ref is not None else None
            out.append((grad_accumulator(t) if acc is None else acc, 0))
        else:
            out.append(None)
    return tuple(out)


def _histories(result, node: NodeBase, output_differentiability) -> None:
    """``record.history`` for a result that is not one TensorImpl: each differentiable output (lists too)."""
    if not isinstance(result, (list, tuple)):
        return  # an int, float or bool result has no history
    for i, r in enumerate(result):
        if output_differentiability is not None and not output_differentiability[i]:
            continue
        if _differentiable(r):
            set_history(r, node, i)
        elif isinstance(r, (list, tuple)):
            for j, x in enumerate(r):
                if _differentiable(x):
                    set_history(x, node, j)


class record:
    """What a generated kernel does while recording (namespaced for readable generated code)."""

    edges = staticmethod(_edges)

    @staticmethod
    def save(impl):
        # an absent optional tensor is saved too (a SavedTensor of None, as PyTorch's undefined SavedVariable)
        return SavedTensor(impl) if impl is None or type(impl) is TensorImpl else impl

    @staticmethod
    def save_output(result, parts=None):
        """The outputs the formulas read, saved (all, or the positions in ``parts``; the others are None)."""
        if type(result) is TensorImpl:
            return SavedTensor(result, is_output=True)
        return tuple(None if parts is not None and i not in parts else
                     SavedTensor(r, is_output=True) if type(r) is TensorImpl else r for i, r in enumerate(result))

    @staticmethod
    def clone(impl):
        """The old value of an in-place op's ``self``, cloned with history (PyTorch's ``original_self``), so
        double backward reaches what it was computed from."""
        return aten.clone(impl, None)

    @staticmethod
    def meta(impl, what):
        if type(impl) is not TensorImpl:
            return None
        if what == "geometry":  # PyTorch's TensorGeometry: where the input lay, not its (mutable) values
            return impl.sizes, impl.strides, impl.offset
        if what == "layout":
            return impl.layout
        if what == "blocksize":  # of a BSR/BSC tensor (PyTorch's sym_blocksize), else None
            return getattr(impl.sparse, "blocksize", None)
        return {"sizes": impl.sizes, "dtype": impl.dtype, "numel": impl.numel(), "device": impl.device,
                "ndim": impl.ndim}[what]

    @staticmethod
    def history(result, node: NodeBase, output_differentiability=None) -> None:
        if _anomaly.enabled:
            record_forward_stack(node)
        if type(result) is TensorImpl:
            dtype = result.dtype
            if dtype.is_floating_point or dtype.is_complex:
                set_history(result, node, 0)
            return
        _histories(result, node, output_differentiability)

    @staticmethod
    def output(result, node: NodeBase) -> None:
        """The single tensor output of a functional op: PyTorch's dtype check, then ``history(result, node)``."""
        is_tensor = type(result) is TensorImpl
        if is_tensor:
            dtype = result.dtype
            if not (dtype.is_floating_point or dtype.is_complex):
                raise RuntimeError(f"Autograd not support dtype: {name_of(dtype)}")
        if _anomaly.enabled:  # called from here, as from history: the stack ends in the generated kernel
            record_forward_stack(node)
        if not is_tensor:
            _histories(result, node, None)
            return
        input_meta = node.input_meta
        if result.autograd is None and result.base is None and not input_meta:  # set_history's fresh case
            meta = result.autograd = AutogradMeta()
            meta.grad_fn = node
            input_meta.append((result.sizes, dtype, result.device))
            return
        set_history(result, node, 0)

    @staticmethod
    def history_inplace_view(result, node: NodeBase) -> None:
        """After an in-place view op (``t_``, ``squeeze_`` ...): ``node`` becomes the tensor's own history, as
        PyTorch's set_history; a retained grad stays with the old grad_fn (only a rebase moves it)."""
        if _anomaly.enabled:
            record_forward_stack(node)
        if type(result) is TensorImpl and (result.dtype.is_floating_point or result.dtype.is_complex):
            set_history(result, node, 0, move_hooks=False)

    @staticmethod
    def history_inplace(result, node: NodeBase, output_differentiability=None) -> None:
        """After an in-place op: a view's write becomes its base's history (CopySlices); else as ``history``."""
        if type(result) is TensorImpl and result.base is not None and _differentiable(result):
            if is_anomaly_enabled():
                record_forward_stack(node)
            rebase_history(result, node)
            return
        record.history(result, node, output_differentiability)


def check_inplace(self: TensorImpl) -> None:
    """PyTorch's ``check_inplace``: a leaf (or a view of one) that requires grad cannot be modified, nor a
    view whose creation forbids it (no-grad mode, several views from one op)."""
    meta = self.autograd
    base = self.base
    if base is not None:
        if meta is not None and meta.creation_meta is not None:
            handle_view_on_rebase(self)
        # the view requires grad (through its base or, returned by a custom Function, its own grad_fn) while its
        # base is a leaf: rebasing would give the leaf a history
        if (base.autograd is None or base.autograd.grad_fn is None) and requires_grad(self):
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    elif meta is not None and meta.requires_grad and meta.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def out_not_differentiable(name: str, *inputs) -> None:
    if _grad_state.enabled and requires_grad_any(*inputs):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")


def out_no_forward_ad(name: str, *inputs) -> None:
    """PyTorch's out= kernels refuse forward AD once they have run: an input or ``out`` with a tangent."""
    if has_fw_grad(*inputs):
        raise NotImplementedError(f"Trying to use forward AD with {name}_out that does not support it because it is "
                                  "an out= function")


def register_autograd(qualname: str, fn, key: str = "Autograd") -> None:
    """Register a generated autograd kernel: at the Autograd alias key, or at one key for a per-key formula."""
    register_kernel(qualname, key, fn, with_keyset=True, label=f"autograd::{qualname}")


# -- node helpers ------------------------------------------------------------------------------------------
def materialize(node: NodeBase, grads: list) -> list:
    """Undefined output grads become zeros of the output's shape (PyTorch materializes them)."""
    out = list(grads)
    for i, g in enumerate(out):
        if g is None and i < len(node.input_meta) and node.input_meta[i] is not None:
            sizes, dtype, device = node.input_meta[i]
            out[i] = _graph.to_tensor(full_impl(sizes, 0, dtype, device))
        elif g is not None:
            out[i] = _graph.to_tensor(g)
    return out


def unwrap(t):
    return None if t is None else t._impl


def wrap_saved(saved, node_name: str, saved_for=None):
    """A saved tensor (or a tuple of them) as public tensors; ``saved_for`` is the node that saved an output."""
    if isinstance(saved, SavedTensor):
        impl = saved.unpack_impl(node_name, saved_for)
        return None if impl is None else _graph.to_tensor(impl)
    if isinstance(saved, tuple):
        return tuple(wrap_saved(s, node_name, saved_for) for s in saved)
    return saved


# -- operators without a formula ---------------------------------------------------------------------------
class NotImplemented(NodeBase):  # noqa: A001 - PyTorch's class name (grad_fn of torch.floor_divide(x, 2))
    """Stands in for the node of an operator that has no derivative formula (autogradNotImplementedFallback)."""

    __slots__ = ("op_name",)

    def name(self) -> str:
        return "torch::autograd::NotImplemented"  # PyTorch's C++ node keeps its namespace in name()

    def apply(self, grads):
        raise RuntimeError(f"derivative for {self.op_name} is not implemented")


# ops after which a tensor's AccumulateGrad is forgotten: its metadata may have changed, and the graphs already
# recorded keep the old one (gen_variable_type's RESET_GRAD_ACCUMULATOR)
_RESET_GRAD_ACCUMULATOR = frozenset({"set_", "resize_"})


def not_implemented_fallback(op, ks, *args, **kwargs):
    """Autograd-key fallback: run the op; if it should have recorded, record a node that raises in backward.
    A dual input raises PyTorch's forward-AD error: the op has no formula to derive a tangent from."""
    if op.schema.is_out:
        return _out_fallback(op, ks, args, kwargs)
    out = _not_implemented(op, ks, args, kwargs)
    if op.schema.name in _RESET_GRAD_ACCUMULATOR and args[0].autograd is not None:
        args[0].autograd.grad_accumulator = None
    return out


def _not_implemented(op, ks, args, kwargs):
    if forward_levels.level >= 0 and _grad_state.fw_grad_mode and has_fw_grad(*args, *kwargs.values()):
        return _no_forward_formula(op, ks, args, kwargs)
    if not _grad_state.enabled:
        return op.redispatch(ks, *args, **kwargs)
    values = list(args) + list(kwargs.values())
    tensors = [a for a in values if type(a) is TensorImpl]
    for a in values:
        if isinstance(a, (list, tuple)):
            tensors += [x for x in a if type(x) is TensorImpl]
    if not any(requires_grad(t) for t in tensors):
        return op.redispatch(ks, *args, **kwargs)
    for i, a in enumerate(op.schema.arguments[:len(args)]):  # a written tensor must be writable (set_ on a leaf)
        if a.is_write and type(args[i]) is TensorImpl:
            check_inplace(args[i])
    out = op.redispatch(ks, *args, **kwargs)
    node = NotImplemented()
    node.op_name = op.name
    node.next_edges = collect_next_edges(*tensors)
    record.history(out, node)
    return out


def _out_fallback(op, ks, args, kwargs):
    """An out= overload of an op without a formula: it runs (an input requiring grad is fine: nothing is
    differentiable), then a tangent on any tensor is refused as the generated out= kernels refuse it."""
    out = op.redispatch(ks, *args, **kwargs)
    if forward_levels.level >= 0:
        out_no_forward_ad(op.schema.name, *args, *kwargs.values())
    return out


def _no_forward_formula(op, ks, args, kwargs):
    """A dual input of an op without formulas: fine when no output is differentiable (``x > 0``), else PyTorch's
    forward-AD error."""
    out = op.redispatch(ks, *args, **kwargs)
    outs = out if isinstance(out, (list, tuple)) else (out,)
    if any(_differentiable(o) for o in outs):
        raise NotImplementedError(f"Trying to use forward AD with {op.name.split('.')[0]} that does not support it.")
    return out


def install_fallbacks() -> None:
    for key in AUTOGRAD_KEYS:
        register_fallback(key, not_implemented_fallback, label="autograd_not_implemented_fallback")

