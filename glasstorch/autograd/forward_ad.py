"""Forward-mode automatic differentiation — PyTorch's ``torch/autograd/forward_ad.py``.

A dual tensor is a primal with a tangent attached at a level: ``make_dual(x, v)`` inside ``dual_level()``.  Every
differentiable op then computes the tangent of its outputs (the Jacobian-vector product ``J v``) as it runs
(``forward_support.py``); ``unpack_dual`` reads it back.  Only one level may exist at a time, as in PyTorch; leaving
it deletes its tangents.

Example::

    >>> import glasstorch as torch
    >>> import glasstorch.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     y = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])) ** 2
    ...     fwAD.unpack_dual(y).tangent
    tensor([2., 0.])

Invariant: ``_current_level`` mirrors the innermost level of ``forward_grad`` (-1 for none).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .._core.grad_state import state as _gs
from .._ops.dispatcher import get_op
from . import forward_grad as _fg
from . import graph as _graph
from .grad_mode import _DecoratorContextManager, _is_fwd_grad_enabled  # noqa: F401 - torch.autograd.forward_ad._is_fwd_grad_enabled

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

_current_level = -1
_op_make_dual = get_op("aten::_make_dual")
_op_unpack_dual = get_op("aten::_unpack_dual")


def enter_dual_level() -> int:
    """Enter a new forward grad level; the other functions of this module use it by default.

    Returns:
        the new level (0: nested levels are not supported).
    Raises:
        RuntimeError: a level exists already.
    """
    global _current_level
    new_level = _fg.enter_dual_level()
    if new_level != _current_level + 1:
        raise RuntimeError("Entering a new forward AD level but the current level is not valid. Make sure you did "
                           "not modify it directly.")
    _current_level = new_level
    return new_level


def exit_dual_level(*, level=None) -> None:
    """Exit the last forward grad level entered, deleting all its tangents.

    Raises:
        RuntimeError: ``level`` is not the last level entered.
    """
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _fg.exit_dual_level(level)
    _current_level = level - 1


def make_dual(tensor, tangent, *, level=None):
    """A new tensor aliasing ``tensor`` with ``tangent`` as its forward gradient (kept as is when its layout is the
    primal's, else copied into that layout).  Backward differentiable with respect to ``tensor``.

    Raises:
        RuntimeError: no level exists, the sizes differ, or ``tensor`` is already dual at that level.
        ValueError: the primal or the tangent is not floating point or complex.
    """
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    return _graph.to_tensor(_op_make_dual.call(tensor._impl, tangent._impl, level))


class UnpackedDualTensor(NamedTuple):
    """Namedtuple returned by :func:`unpack_dual`: the primal and the tangent (None if there is none)."""

    primal: Any
    tangent: Any


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of a dual tensor: the primal is a view of ``tensor`` without the tangent, the tangent
    is the stored one as is (None when ``tensor`` has none, or when no level exists)."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    primal, tangent = _op_unpack_dual.call(tensor._impl, level)
    return UnpackedDualTensor(_graph.to_tensor(primal), None if tangent is None else _graph.to_tensor(tangent))


class dual_level(_DecoratorContextManager):  # noqa: N801 - PyTorch's name
    """Context manager entering a forward AD level on entry and exiting it (deleting its tangents) on exit."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        exit_dual_level()




class _set_fwd_grad_enabled(_DecoratorContextManager):  # noqa: N801 - PyTorch's name
    """Switch forward grad mode (thread-local) until exit: off, ops ignore tangents."""

    def __init__(self, mode: bool) -> None:
        self.mode, self.prev = mode, _gs.fw_grad_mode
        _gs.fw_grad_mode = mode

    def clone(self):
        return self.__class__(self.mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _gs.fw_grad_mode = self.prev
