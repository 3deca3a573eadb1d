"""Kernels of the dispatcher's layer keys that the codegen instantiates per operator.

PyTorch counterparts: ``ADInplaceOrViewType_*.cpp`` (version bumps for in-place and ``out=`` ops,
view bookkeeping for view ops) and ``RegisterBackendSelect.cpp`` (factories pick their backend from
the ``device`` argument).  Each kernel receives the key set below its own key and redispatches.

Invariant: these kernels never touch data; they only bump versions, record ``_base`` (and, with view replay on,
how to make the view again: ``_ops/view_funcs.py``) and choose keys.
"""

from __future__ import annotations

from .._core.device import CPU, factory_device
from .._core.dispatch_key import AUTOGRAD_SET, BACKEND_FOR_DEVICE, bit, tls
from .._core.grad_state import state as _grad_state
from .._tensor.impl import AutogradMeta, CreationMeta, TensorImpl
from .aten import aten
from .view_funcs import ViewFunc, as_strided_view_func

__all__ = ["inplace_kernel", "view_kernel", "backend_select_kernel", "write_observers"]

# Called with each tensor an in-place or out= op is about to write, before the write (below autograd): how
# autograd's allow_mutation_on_saved_tensors clones a saved tensor first (PyTorch uses a dispatch mode).
write_observers: list = []


_BELOW = bit("ADInplaceOrView") | AUTOGRAD_SET  # PyTorch's AutoDispatchBelowADInplaceOrView


def inplace_kernel(op, written: tuple):
    """Redispatch, then bump the version counter of every argument the op writes (``Tensor(a!)``).

    The redispatch runs with autograd and ADInplaceOrView excluded for nested calls, so an in-place op built
    from other in-place ops bumps each version once (PyTorch's AutoDispatchBelowADInplaceOrView).  The
    exclusion and the redispatch are inline, and one written argument (nearly every op) gets its own
    kernel: this hop runs on every in-place and ``out=`` call (see Note [Per-call cost] in tensor_iterator.py).
    """
    redispatch = op.redispatch
    if len(written) == 1:
        w = written[0]

        def kernel(ks, *args, **kwargs):
            prev = tls.excluded
            tls.excluded = prev | _BELOW
            try:
                if write_observers:
                    _observe(args, written)
                out = redispatch(ks, *args, **kwargs)
            finally:
                tls.excluded = prev
            t = args[w] if w < len(args) else None
            if type(t) is TensorImpl:
                t.version.version += 1
            elif isinstance(t, (list, tuple)):
                _bump_each(t)
            return out
    else:
        def kernel(ks, *args, **kwargs):
            prev = tls.excluded
            tls.excluded = prev | _BELOW
            try:
                if write_observers:
                    _observe(args, written)
                out = redispatch(ks, *args, **kwargs)
            finally:
                tls.excluded = prev
            for w in written:
                t = args[w] if w < len(args) else None
                if type(t) is TensorImpl:
                    t.version.version += 1
                elif isinstance(t, (list, tuple)):
                    _bump_each(t)
            return out
    kernel.__qualname__ = f"ADInplaceOrView::{op.name}"
    return kernel


def _observe(args, written) -> None:
    for w in written:
        t = args[w] if w < len(args) else None
        targets = [t] if type(t) is TensorImpl else [x for x in t if type(x) is TensorImpl] if isinstance(
            t, (list, tuple)) else []
        for x in targets:
            for fn in write_observers:
                fn(x)


def _bump_each(tensors) -> None:
    for x in tensors:
        if type(x) is TensorImpl:
            x.version.version += 1


def _mark_creation(view: TensorImpl, creation: str) -> None:
    meta = view.autograd
    if meta is None:
        meta = view.autograd = AutogradMeta()
    meta.creation_meta = creation
    meta.version_at_grad_fn = view.version.version


def _propagated(source: TensorImpl, creation):
    """A view of a view inherits the more restrictive creation (PyTorch's ``propagate_creation_meta``): a plain
    view of an unbind output may not be written in place either; inference mode's mark is never replaced."""
    meta = source.autograd
    prev = None if meta is None or source.base is None else meta.creation_meta
    if creation is None or prev == CreationMeta.INFERENCE_MODE:
        return prev
    return creation


# Note [View replay]
# Autograd rebuilds a view from its root base in two places: CopySlices (an in-place write through the view) takes
# the view's slice of the base's gradient, and a view's grad_fn is regenerated after its base changed.  The
# default is as_strided with the view's geometry, which cannot express a view that changes more than geometry: a
# flipped conjugate/negative bit (_conj, _neg_view) or another dtype (view_as_real, view_as_complex).  Such a view,
# every view taken from it, and with view replay on (torch.autograd._force_original_view_tracking(True)) every
# view, records a ``view_fn`` on its AutogradMeta: the chain of view ops from a tensor laid out as the root base
# (_ops/view_funcs.py; PyTorch's ViewInfo::view_fn, set for VIEW_FUNCTIONS_WITH_METADATA_CHANGE or in that mode).
# With the mode on, the regenerated grad_fn is therefore the view op's own node (ViewBackward0, SliceBackward0 ...).
_METADATA_CHANGING = frozenset({"aten::_conj", "aten::_neg_view", "aten::view_as_real", "aten::view_as_complex"})


def _view_func(source: TensorImpl, root: TensorImpl, op, args: tuple, index, out: TensorImpl):
    """The replay chain of ``out``, a new view of ``source`` (PyTorch's ``ViewInfo::chain``): this op appended when
    it must be replayed, after an ``as_strided`` standing in for a source made without a chain; else an
    ``as_strided`` to ``out`` after the source's chain; None when neither applies."""
    meta = source.autograd
    parent = meta.view_fn if meta is not None and source.base is not None else None
    if _grad_state.view_replay or op.name in _METADATA_CHANGING:
        step = ViewFunc(((op, args, index),))
        if parent is not None:
            return parent.then(step)
        return step if source.base is None else as_strided_view_func(source, root).then(step)
    return None if parent is None else parent.then(as_strided_view_func(out, source))


def _set_view_func(view: TensorImpl, fn: ViewFunc) -> None:
    meta = view.autograd
    if meta is None:
        meta = view.autograd = AutogradMeta()
        meta.version_at_grad_fn = view.version.version
    meta.view_fn = fn


class _DualAsAlias:
    """``_make_dual`` below ADInplaceOrView is ``alias(primal)`` (a tensor subclass's ``__torch_dispatch__``
    sees ``aten.alias``, never ``_make_dual``); the tangent is autograd's business."""

    @staticmethod
    def redispatch(ks, primal, tangent, level):
        return aten.alias.redispatch(ks, primal)


def _forward_view_base(self: TensorImpl):
    """The forward-mode base of a view of ``self`` when it is not the root base: ``self`` itself when ``self``
    is a view whose tangent is its own (``_make_dual``'s result), else what ``self`` inherited (PyTorch keeps a
    forward ViewInfo apart from the backward one)."""
    meta = self.autograd
    if meta is None:
        return None
    d = meta.__dict__
    return self if d.get("no_fw_view") else d.get("fw_base")


def _set_forward_view_base(view: TensorImpl, fw_base: TensorImpl) -> None:
    if view.autograd is None:
        view.autograd = AutogradMeta()
        view.autograd.version_at_grad_fn = view.version.version
    view.autograd.fw_base = fw_base


def view_kernel(op):
    """Redispatch, then mark each output as a view of the input's root base (``_base``) and, when the view
    may not be written in place under autograd later, how it was created (PyTorch's ``CreationMeta``); a view
    that as_strided cannot replay (or any, with view replay on) gets a view function (Note [View replay])."""
    replays = op.name in _METADATA_CHANGING
    below = op
    if op.name == "aten::_make_dual":  # PyTorch's manual ADInplaceOrView kernel: the primal's alias, below here
        below = _DualAsAlias()

    def kernel(ks, self, *args):
        out = below.redispatch(ks, self, *args)
        if self.is_inference():  # reached outside inference mode: an inference tensor's views are not tracked
            return out
        root = self.base if self.base is not None else self
        chained = replays or _grad_state.view_replay or self.autograd is not None
        fw_base = _forward_view_base(self)
        if type(out) is TensorImpl:
            out.base = root
            if fw_base is not None:
                _set_forward_view_base(out, fw_base)
            creation = None if _grad_state.enabled else (
                CreationMeta.INFERENCE_MODE if _grad_state.inference else CreationMeta.NO_GRAD_MODE)
            creation = _propagated(self, creation)
            if creation is not None:
                _mark_creation(out, creation)
            if chained and (fn := _view_func(self, root, op, args, None, out)) is not None:
                _set_view_func(out, fn)
        else:
            creation = _propagated(self, CreationMeta.MULTI_OUTPUT_NODE if _grad_state.enabled else (
                CreationMeta.INFERENCE_MODE if _grad_state.inference else CreationMeta.NO_GRAD_MODE))
            for i, o in enumerate(out):
                o.base = root
                if fw_base is not None:
                    _set_forward_view_base(o, fw_base)
                _mark_creation(o, creation)
                if chained and (fn := _view_func(self, root, op, args, i, o)) is not None:
                    _set_view_func(o, fn)
        return out
    kernel.__qualname__ = f"ADInplaceOrView::{op.name}"
    return kernel


_BACKEND_BITS = {t: bit(k) for t, k in BACKEND_FOR_DEVICE.items()}


# The generated factories that take the default device when the call names none: those of PyTorch's
# ``torch.utils._device._device_constructors`` (Note [The default device] in _core/device.py).
_DEFAULT_DEVICE_FACTORIES = frozenset((
    "scalar_tensor", "tril_indices", "triu_indices", "fft_fftfreq", "fft_rfftfreq", "hann_window", "hamming_window",
    "bartlett_window", "blackman_window", "kaiser_window", "empty_permuted", "empty_quantized"))


def backend_select_kernel(op, device_index: int):
    """For factories (no tensor arguments): add the backend key of the ``device`` argument, redispatch."""
    takes_default = op.name.removeprefix("aten::").split(".")[0] in _DEFAULT_DEVICE_FACTORIES

    def kernel(ks, *args):
        dev = args[device_index] if device_index < len(args) else None
        if dev is None:
            dev = factory_device(None) if takes_default else CPU
            if dev is not CPU and device_index < len(args):
                args = (*args[:device_index], dev, *args[device_index + 1:])
        return op.redispatch(ks | _BACKEND_BITS.get(dev.type, _BACKEND_BITS["cpu"]), *args)
    kernel.__qualname__ = f"BackendSelect::{op.name}"
    return kernel
