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

    def then(self, other: ViewFunc) -> ViewFunc:
        """This chain followed by ``other`` (PyTorch's ``ChainedViewFunc``)."""
        return ViewFunc(self.steps + other.steps)

    def __repr__(self):
        return " -> ".join("as_strided" if op is None else op.name for op, _, _ in self.steps)


def as_strided_view_func(impl, source) -> ViewFunc:
    """A step that gives ``impl`` its geometry back by ``as_strided`` from a tensor laid out as ``source`` (PyTorch's
    ``AsStridedViewFunc``); the offset is kept relative to ``source``'s, in its element size, so the chain also
    replays on a copy laid out from offset 0 (CopySlices' gradient buffer) and after a dtype-changing view."""
    return ViewFunc(((None, (impl.sizes, impl.strides, impl.offset - source.offset), None),))
