"""How to make a view again from its base — PyTorch's ``ViewFunc``, ``ChainedViewFunc`` and ``AsStridedViewFunc``
(``torch/csrc/autograd/variable.h``, the generated ``ViewFuncs.cpp``); Note [View replay] in layer_kernels.py says
which views get one (those as_strided cannot express, and all of them with view replay on).

With view replay on (``torch.autograd._force_original_view_tracking(True)``, ``AutogradState``'s
``view_replay_enabled``), each view op's ADInplaceOrView kernel records, beside ``_base``, the chain of view ops
that leads from the root base to the new view, each with its arguments.  Autograd replays the chain on the base
when it must regenerate the view's ``grad_fn`` after an in-place write (the view's grad_fn is then the last
op's own node, ``ViewBackward0``, ``SliceBackward0`` …, instead of ``AsStridedBackward0``), and ``CopySlices``
replays it on the base's gradient to find the slice the view covers.

A chain may have gaps: a view made with replay off, of a view that has a chain, or the other way round.  As
PyTorch's ``ViewInfo::chain`` does, an ``as_strided`` step with the missing view's sizes, strides and storage
offset covers the gap.

Invariant: replaying the chain on a tensor with the base's geometry gives a tensor with the view's geometry.
"""

from __future__ import annotations

from .._core.grad_state import state as _grad_state
from .aten import aten

__all__ = ["ViewFunc", "as_strided_view_func"]


class ViewFunc:
    """The view ops from a root base to one view: ``(op, args, index)`` steps, ``index`` picking one output of
    an op that returns several views (``unbind``, ``split``).  Calling it on an impl replays the steps through
    the dispatcher from the top, so autograd records each step as it would a user's call."""

    __slots__ = ("steps",)

    def __init__(self, steps: tuple):
        self.steps = steps

    def __call__(self, base):
        out = base
        for op, args, index in self.steps:
            if op is None:  # as_strided, its storage offset relative to the tensor it applies to
                sizes, strides, rel = args
                out = aten.as_strided(out, sizes, strides, out.offset + rel)
                continue
            out = op(out, *args)
            if index is not None:
                out = out[index]
        return out

    def visited(self, symint_fn=None, tensor_fn=None) -> ViewFunc:
        """A copy whose steps' saved SymInts (by schema: ``SymInt``, ``SymInt[]``, ``SymInt?``) went through
        ``symint_fn`` and saved tensors through ``tensor_fn`` (impl -> impl); PyTorch's ``clone_and_set`` of a
        ViewFunc after its state visitors.  The steps' own ``self`` is not saved state."""
        steps = []
        for op, args, index in self.steps:
            if op is not None:
                args = tuple(_visit(a, arg, symint_fn, tensor_fn)
                             for a, arg in zip(op.schema.arguments[1:], args, strict=False))
            steps.append((op, args, index))
        return ViewFunc(tuple(steps))

    def reverse(self, base, view):
        """From ``view`` (laid out as this chain's result on ``base``) back to a view of it laid out as ``base``
        (PyTorch's ``rev_view_func``, built from the functional inverses in their view-returning mode): a
        dtype- or bit-changing step by its inverse view op, any other by ``as_strided`` to the geometry its
        input had."""
        prev, _grad_state.enabled = _grad_state.enabled, False  # the intermediate views are for their geometry
        try:
            states = [base]
            for step in self.steps:
                states.append(ViewFunc((step,))(states[-1]))
        finally:
            _grad_state.enabled = prev
        out = view
        for k in range(len(self.steps) - 1, -1, -1):
            op = self.steps[k][0]
            before, after = states[k], states[k + 1]
            inverse = _INVERSES.get(None if op is None else op.name)
            if inverse is not None:
                out = getattr(aten, inverse)(out)
            else:
                out = aten.as_strided(out, before.sizes, before.strides, out.offset + before.offset - after.offset)
        return out

    def then(self, other: ViewFunc) -> ViewFunc:
        """This chain followed by ``other`` (PyTorch's ``ChainedViewFunc``)."""
        return ViewFunc(self.steps + other.steps)

    def __repr__(self):
        return " -> ".join("as_strided" if op is None else op.name for op, _, _ in self.steps)


_INVERSES = {"aten::view_as_real": "view_as_complex", "aten::view_as_complex": "view_as_real", "aten::_conj": "_conj",
             "aten::_neg_view": "_neg_view"}


def _visit(arg_schema, value, symint_fn, tensor_fn):
    base = arg_schema.type.base
    if base == "SymInt" and symint_fn is not None and value is not None:
        return [symint_fn(v) for v in value] if isinstance(value, (list, tuple)) else symint_fn(value)
    if base == "Tensor" and tensor_fn is not None and value is not None:
        return tensor_fn(value)
    return value


def as_strided_view_func(impl, source) -> ViewFunc:
    """A step that gives ``impl`` its geometry back by ``as_strided`` from a tensor laid out as ``source`` (PyTorch's
    ``AsStridedViewFunc``); the offset is kept relative to ``source``'s, in its element size, so the chain also
    replays on a copy laid out from offset 0 (CopySlices' gradient buffer) and after a dtype-changing view."""
    return ViewFunc(((None, (impl.sizes, impl.strides, impl.offset - source.offset), None),))
