"""In-place operations on views — PyTorch's ``rebase_history``, ``CopySlices`` and view ``grad_fn`` regeneration
(``torch/csrc/autograd/{variable,functions/tensor}.cpp``).

A view shares its base's storage, so writing into the view changes the base.  When an in-place op that
records a node ``fn`` writes into a view, the *base* gets a new history: a :class:`CopySlices` node, whose
backward takes the base's gradient, lets ``fn`` turn the slice that the view covers into the gradient of the
view's old value, writes it back into that slice, and sends the whole to the base's previous history (the
other inputs of ``fn`` get ``fn``'s gradients unchanged).  The view's own ``grad_fn`` becomes an
:class:`AsStridedBackward0` of the base.

Every view of that base — also ones created earlier — must see the new history.  Views share the base's
version counter; a view remembers the version at which its ``grad_fn`` was set (``version_at_grad_fn``) and
:func:`refresh_view_grad_fn` regenerates it when the counter moved (PyTorch does this lazily in
``VariableHooks::grad_fn``).  Views made in no-grad mode, or by an op returning several views (unbind,
split, chunk), may not be written in place once grad mode records: :func:`handle_view_on_rebase` raises
PyTorch's errors.

With view replay on (``torch.autograd._force_original_view_tracking(True)``), a view carries the chain of view
ops that made it (``_ops/view_funcs.py``); the regenerated ``grad_fn`` is then that chain replayed on the base
(``ViewBackward0``, ``SliceBackward0`` …) and CopySlices finds the view's slice of the gradient the same way.

Invariant: after an in-place op on a view records, ``base.grad_fn`` is a CopySlices whose edge 0 is the
base's previous gradient edge, and the view's ``grad_fn`` is an AsStridedBackward0 (or, with a replay chain, the
last view op's node) pointing at it.

Note [Views without autograd metadata]: a view taken while its base had no autograd history, and never itself
recorded, carries no AutogradMeta (PyTorch gives every view one; we keep the per-view cost at zero for tensors
outside autograd).  It reads its base instead: it requires grad when the base does, and once the base has a
grad_fn (which can only have come from an in-place write since) it gets metadata and a regenerated grad_fn
(``graph._adopt_view``).  The in-place kernels check such a view's ``self`` too, so writing into a view of a leaf
that now requires grad raises PyTorch's error.
"""

from __future__ import annotations

from .._core.dtype import int64
from .._core.grad_state import state as _grad_state
from .._core.layout import contiguous_format
from .._core.shape import maybe_overlapping
from .._ops.aten import aten
from .._ops.factories import arange_impl, full_impl
from .._tensor.impl import CreationMeta, TensorImpl, empty_strided_impl
from . import graph as _graph
from .graph import NodeBase, forward_op_name, gradient_edge, requires_grad, set_history

__all__ = ["CreationMeta", "CopySlices", "AsStridedBackward0", "rebase_history", "refresh_view_grad_fn",
           "handle_view_on_rebase", "CopyBackwards"]


_WHY = {
    CreationMeta.MULTI_OUTPUT_NODE: (
        " This view is the output of a function that returns multiple views. Such functions do not allow the "
        "output views to be modified inplace. You should replace the inplace operation by an out-of-place one."),
    CreationMeta.NO_GRAD_MODE: (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
        "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
        "inplace to be tracked) or both outside (if you want the inplace to be tracked)."),
    CreationMeta.INFERENCE_MODE: (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
        "moving both the view and the inplace either both inside the inference_mode block (if you don't want "
        "the inplace to be tracked) or both outside (if you want the inplace to be tracked)."),
    CreationMeta.IN_CUSTOM_FUNCTION: (
        " This view was created inside a custom Function (or because an input was returned as-is) and the "
        "autograd logic to handle view+inplace would override the custom backward associated with the custom "
        "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the "
        "output of the custom Function."),
}


def handle_view_on_rebase(view: TensorImpl, indirect: bool = False) -> None:
    """Raise PyTorch's error when a view that may not be rebased is (or, ``indirect``, its base is) written.  A
    view with a grad_fn names it; one made in no-grad or inference mode (or without a grad_fn, so made in no-grad
    mode) says so, as "a view of a view" when it has a grad_fn (it was taken from such a view)."""
    meta = view.autograd
    creation = None if meta is None else meta.creation_meta
    if creation is None:
        return
    modified = "its base or another view of its base has been" if indirect else "is being"
    node = meta.grad_fn
    if creation in (CreationMeta.INFERENCE_MODE, CreationMeta.NO_GRAD_MODE) or node is None:
        prefix = ("A view was created in" if node is None else
                  f"Output {meta.output_nr} of {forward_op_name(node)} is a view of a view which was created in")
        if creation == CreationMeta.INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {meta.output_nr} of {forward_op_name(node)} is a view and {modified} modified inplace."
    raise RuntimeError(msg + _WHY[creation])


# -- geometry ------------------------------------------------------------------------------------------------
def _geometry(impl: TensorImpl) -> tuple:
    return impl.sizes, impl.strides, impl.offset


def _zeros_strided(sizes, strides, like: TensorImpl) -> TensorImpl:
    out = empty_strided_impl(sizes, strides, like.dtype, like.device)
    return aten.zero_(out)


def _scatter_into(result: TensorImpl, sizes, strides, offset, grad: TensorImpl) -> None:
    """result.as_strided(sizes, strides, offset) += grad, correct also where the geometry overlaps itself."""
    if not maybe_overlapping(sizes, strides):
        aten.copy_(aten.as_strided(result, sizes, strides, offset), grad, False)
        return
    # Overlapping geometry: several elements of grad land on one storage slot, so add them one by one
    # through the flat storage (PyTorch's as_strided_backward does the same with index_add).
    extent = 1 + sum((s - 1) * st for s, st in zip(result.sizes, result.strides, strict=True))
    flat = aten.as_strided(result, (extent,), (1,), 0)
    index = aten.as_strided(arange_impl(0, extent, 1, int64, result.device), sizes,
                            strides, offset)
    aten.index_add_(flat, 0, aten.reshape(index, (-1,)), aten.reshape(grad, (-1,)), 1)


# -- the nodes ------------------------------------------------------------------------------------------------
class CopySlices(NodeBase):
    """The base's history after an in-place op ``fn`` wrote into one of its views."""

    __slots__ = ("base_geometry", "view_geometry", "view_fn", "fn")

    def __init__(self, base: TensorImpl, view: TensorImpl, fn: NodeBase):
        super().__init__()
        self.base_geometry = _geometry(base)
        self.view_geometry = _geometry(view)
        self.view_fn = _view_fn(view)
        self.fn = fn

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads):
        grad = grads[0]
        n = len(self.next_edges)
        if grad is None:
            return [None] * n
        sizes, strides, offset = self.base_geometry
        result = empty_strided_impl(sizes, strides, grad.dtype, grad.device)
        aten.copy_(result, grad, False)
        if self.view_fn is not None:
            grad_slice = self.view_fn(result)
        else:
            v_sizes, v_strides, v_offset = self.view_geometry
            grad_slice = aten.as_strided(result, v_sizes, v_strides, v_offset - offset)
        # fn may save its incoming gradient for double backward, and grad_slice is written below: clone.
        res = self.fn.apply([aten.clone(grad_slice, contiguous_format)])
        out = [None] * n
        for i, r in enumerate(res):
            if i >= n or not self.should_compute_output(i):
                continue
            if i == 0:
                if r is None:
                    aten.zero_(grad_slice)
                else:
                    aten.copy_(grad_slice, r, False)
                out[0] = result
            else:
                out[i] = r
        return out

    def release_variables(self) -> None:
        self._released = True
        self.fn.release_variables()


class AsStridedBackward0(NodeBase):
    """A view's regenerated grad_fn: its gradient lands on its spot of a zero gradient of the base."""

    __slots__ = ("base_geometry", "size", "stride", "storage_offset")

    def __init__(self, base: TensorImpl, view: TensorImpl):
        super().__init__()
        self.base_geometry = _geometry(base)
        self.size, self.stride, self.storage_offset = _geometry(view)

    @property
    def _saved_size(self):
        return self.size

    @property
    def _saved_stride(self):
        return self.stride

    @property
    def _saved_storage_offset(self):
        return self.storage_offset

    def apply(self, grads):
        grad = grads[0]
        if grad is None or not self.should_compute_output(0):
            return [None]
        sizes, strides, offset = self.base_geometry
        result = _zeros_strided(sizes, strides, grad)
        _scatter_into(result, self.size, self.stride, self.storage_offset - offset, grad)
        return [result]


# -- rebasing ---------------------------------------------------------------------------------------------------
def rebase_history(view: TensorImpl, fn: NodeBase) -> None:
    """``fn`` wrote into ``view`` in place: give the base a CopySlices history and the view a fresh grad_fn."""
    base = view.base
    while len(fn.input_meta) < 1:
        fn.input_meta.append(None)
    fn.input_meta[0] = (view.sizes, view.dtype, view.device)
    copy_slices = CopySlices(base, view, fn)
    copy_slices.next_edges = (gradient_edge(base),) + tuple(fn.next_edges[1:])
    set_history(base, copy_slices, 0)
    _regenerate(view)


def _view_fn(view: TensorImpl):
    meta = view.autograd
    return None if meta is None else meta.view_fn


def _regenerate(view: TensorImpl) -> None:
    """A fresh grad_fn for ``view`` over its base's current history: the replayed view ops' own node when the
    view has a replay chain (PyTorch replays it with grad mode forced on), else an AsStridedBackward0."""
    view_fn = _view_fn(view)
    if view_fn is not None:
        prev = _grad_state.enabled
        _grad_state.enabled = True
        try:
            replayed = view_fn(view.base).autograd
        finally:
            _grad_state.enabled = prev
        if replayed is not None and replayed.grad_fn is not None:
            set_history(view, replayed.grad_fn, replayed.output_nr)
            return
    node = AsStridedBackward0(view.base, view)
    node.next_edges = (gradient_edge(view.base),)
    set_history(view, node, 0)


def refresh_view_grad_fn(view: TensorImpl) -> None:
    """PyTorch's lazy ``grad_fn`` of a view: regenerate it when the shared version counter moved."""
    meta = view.autograd
    if meta.version_at_grad_fn is None:  # metadata made outside a view op (e.g. requires_grad_ on a view)
        meta.version_at_grad_fn = view.version.version
        return
    if meta.grad_fn is None and not requires_grad(view.base):
        return
    handle_view_on_rebase(view, indirect=True)
    _regenerate(view)


_graph.refresh_view_grad_fn = refresh_view_grad_fn


class CopyBackwards(NodeBase):
    """Backward of ``copy_`` (PyTorch's hand-written ``CopyBackwards``): the old value of ``self`` is gone
    (zero gradient); ``src`` gets the gradient in its own dtype and device (the engine sums broadcasts)."""

    __slots__ = ("src_dtype", "src_device")

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    def apply(self, grads):
        grad = grads[0]
        out = [None, None]
        if grad is None:
            return out
        if self.should_compute_output(0):
            out[0] = full_impl(grad.sizes, 0, grad.dtype, grad.device)
        if self.should_compute_output(1):
            if grad.dtype.is_complex and not self.src_dtype.is_complex:
                grad = _graph.to_tensor(grad).real._impl
            out[1] = aten._to_copy(grad, self.src_dtype, None, self.src_device, None, False, None)
        return out
