"""Small helpers of the module layer — PyTorch's ``torch/nn/modules/utils.py`` plus ``torch.typename``.

``_single``/``_pair``/``_triple`` turn an int (or a sequence) into the n-tuple a conv or pooling layer stores;
``_reverse_repeat_tuple`` gives ``F.pad``'s last-dim-first padding order.  ``typename`` names objects in
error messages as PyTorch does: glasstorch classes are spelled under ``torch.`` (as dtypes print
``torch.float32``), since programs run as ``import glasstorch as torch``.

Invariant: pure functions of their arguments.
"""

from __future__ import annotations

import collections.abc
from itertools import repeat

from ...tensor import Tensor

__all__ = ["typename", "zero_grads",
           "_addindent", "_single", "_pair", "_triple", "_quadruple", "_ntuple", "_reverse_repeat_tuple",
           "_list_with_default"]


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """Reverse ``t`` and repeat each element ``n`` times: ``(1, 2) -> (2, 2, 1, 1)`` (F.pad's order)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """``None`` entries of an adaptive pooling ``output_size`` take the input's trailing sizes."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):], strict=False)]


def typename(obj) -> str:
    """``torch.typename``: ``'torch.FloatTensor'`` for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == "glasstorch" or module.startswith("glasstorch."):
        module = "torch" + module[len("glasstorch"):]
    return f"{module}.{qualname}"


def _addindent(s: str, num_spaces: int) -> str:
    """Indent every line but the first by ``num_spaces`` (blank lines stay empty): nested module reprs."""
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    rest = [(" " * num_spaces) + line if line.strip() else "" for line in lines[1:]]
    return lines[0] + "\n" + "\n".join(rest)


def zero_grads(params, set_to_none: bool = True) -> None:
    """What ``Module.zero_grad`` and ``Optimizer.zero_grad`` do to each parameter's ``.grad``: drop it, or
    (``set_to_none=False``) detach it from any graph and zero it in place."""
    for p in params:
        grad = p.grad
        if grad is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if grad.grad_fn is not None:
            grad.detach_()
        else:
            grad.requires_grad_(False)
        grad.zero_()
