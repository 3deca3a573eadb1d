"""Forward-mode tangents on tensors — PyTorch's ``torch/csrc/autograd/forward_grad.{h,cpp}`` and the ``fw_grad``
/ ``set_fw_grad`` half of ``autograd_meta.cpp`` (the kernels that use them: ``forward_support.py``).

A tangent is a TensorImpl kept in ``AutogradMeta.fw_grad`` (a dict level -> tangent).  Levels are process-wide
(``forward_levels.level`` is the innermost, -1 for none); each level remembers the tensors holding one of its
tangents, and exiting it clears them.

Invariant (Note [Forward grad layout], PyTorch's [Forward Grad View/inplace]): a tensor and its tangent have the
same sizes, strides (where the size is not 1) and storage offset, so the tangent of a view is the same view of its
base's tangent and an in-place op can update a tangent in place.  ``set_fw_grad`` enforces it by copying a tangent
of another layout into zeros laid out as the primal.
"""

from __future__ import annotations

import weakref

from .._core.dispatch_key import MATH_BITS
from .._core.grad_state import forward_levels
from .._core.grad_state import state as _gs
from .._ops.aten import aten
from .._ops.factories import full_impl
from .._tensor import views as _views
from .._tensor.impl import AutogradMeta, TensorImpl

__all__ = ["enter_dual_level", "exit_dual_level", "fw_grad", "fw_view_base", "set_fw_grad", "has_fw_grad",
           "is_fw_grad_defined"]

_levels: list = []  # per level, the tensors that hold one of its tangents (weakly)


# -- levels -----------------------------------------------------------------------------------------------------
def enter_dual_level() -> int:
    """PyTorch's ``_enter_dual_level``: a new level; only one may exist at a time."""
    if _levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _levels.append(weakref.WeakSet())
    forward_levels.level = len(_levels) - 1
    return forward_levels.level


def exit_dual_level(level: int) -> None:
    """PyTorch's ``_exit_dual_level``: drop every tangent of ``level`` (the innermost one)."""
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != len(_levels) - 1:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    for impl in list(_levels.pop()):
        grads = impl.autograd.fw_grad if impl.autograd is not None else None
        if grads:
            grads.pop(level, None)
    forward_levels.level = len(_levels) - 1


# -- reading and writing tangents ---------------------------------------------------------------------------------
def fw_view_base(impl):
    """The base whose tangent a view's tangent is a view of; None for a non-view or a view that is not forward
    differentiable (``_make_dual``, ``_fw_primal``)."""
    base = impl.base
    if base is None or impl.autograd is None:
        return base
    d = impl.autograd.__dict__
    return None if d.get("no_fw_view") else d.get("fw_base", base)


def fw_grad(impl, level: int = 0):
    """The tangent of ``impl`` at ``level`` or None (always None while forward grad mode is off).  A view without
    one reads its base's (set by an in-place op on the base) and keeps that view of it."""
    if type(impl) is not TensorImpl or not _gs.fw_grad_mode:
        return None
    meta = impl.autograd
    grads = meta.fw_grad if meta is not None else None
    if grads:
        t = grads.get(level)
        if t is not None:
            return t
    base = fw_view_base(impl)
    if base is None:
        return None
    base_t = fw_grad(base, level)
    if base_t is None:
        return None
    t = aten.as_strided(base_t, impl.sizes, impl.strides, impl.offset)
    _store(impl, t, level)
    return t


def is_fw_grad_defined(impl, level: int = 0) -> bool:
    """PyTorch's ``isFwGradDefined`` as a forward formula calls it: whether ``impl`` has a tangent, read while the
    formula runs with forward grad mode off (so that its own ops record none)."""
    mode, _gs.fw_grad_mode = _gs.fw_grad_mode, True
    try:
        return fw_grad(impl, level) is not None
    finally:
        _gs.fw_grad_mode = mode


def has_fw_grad(*impls) -> bool:
    """Whether any tensor (or list of tensors) among ``impls`` has a tangent at level 0."""
    for x in impls:
        if type(x) is TensorImpl:
            if fw_grad(x) is not None:
                return True
        elif isinstance(x, (list, tuple)) and any(type(t) is TensorImpl and fw_grad(t) is not None for t in x):
            return True
    return False


def _store(impl, tangent, level) -> None:
    meta = impl.autograd
    if meta is None:
        meta = impl.autograd = AutogradMeta()
    if meta.fw_grad is None:
        meta.fw_grad = {}
    meta.fw_grad[level] = tangent
    _levels[level].add(impl)


def _storage_numel(t) -> int:
    return t.storage.nbytes() // t.dtype.itemsize


def _same_meta(a, b) -> bool:
    """PyTorch's ``has_same_meta``: storages of one element count and the same conj/neg bits, the same sizes and,
    unless both are empty, the same offset and strides wherever the size is not 0 or 1."""
    if _storage_numel(a) != _storage_numel(b) or a.is_conj() != b.is_conj() or a.is_neg() != b.is_neg():
        return False
    if a.sizes != b.sizes:
        return False
    if a.numel() == 0 and b.numel() == 0:
        return True
    return a.offset == b.offset and all(sa == sb or n in (0, 1) for sa, sb, n in zip(a.strides, b.strides, a.sizes,
                                                                                   strict=True))


def _zeros_laid_out_as(tangent, primal):
    """PyTorch's ``_new_zeros_with_same_feature_meta`` plus the primal's conj/neg bits: zeros of the tangent's
    dtype over a storage as large as the primal's, read with the primal's sizes, strides and offset."""
    flat = full_impl((_storage_numel(primal),), 0, tangent.dtype, tangent.device)
    out = _views.as_strided(flat, primal.sizes, primal.strides, primal.offset)
    out.key_set |= primal.key_set & MATH_BITS
    return out


def _sizes(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def set_fw_grad(impl, new, level: int = 0, is_inplace: bool = False) -> None:
    """PyTorch's ``AutogradMeta::set_fw_grad``: store ``new`` as the tangent of ``impl`` keeping Note [Forward
    grad layout]; an in-place op on a view without a tangent gives its base a tangent first."""
    if fw_grad(new, level) is not None:
        raise RuntimeError(f"Setting a forward grad that itself has a forward gradient at the same level{level} "
                           "is not supported.")
    meta = impl.autograd
    if meta is not None and meta.fw_grad and meta.fw_grad.get(level) is not None:
        assert is_inplace and meta.fw_grad[level] is new, "an in-place op must update its tangent in place"
        return
    if new.sizes != impl.sizes:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {_sizes(impl.sizes)} while the given "
                           f"forward gradient is of size {_sizes(new.sizes)}.")
    base = fw_view_base(impl) if is_inplace else None
    if base is not None and fw_grad(base, level) is None:
        if _same_meta(new, base) and _same_meta(new, impl):
            base_t = new
        else:
            base_t = _zeros_laid_out_as(new, base)
            view_t = aten.as_strided(base_t, impl.sizes, impl.strides, impl.offset)
            aten.copy_(view_t, new, False)
            new = view_t
        set_fw_grad(base, base_t, level, False)
    if not _same_meta(new, impl):
        laid_out = _zeros_laid_out_as(new, impl)
        aten.copy_(laid_out, new, False)
        new = laid_out
    _store(impl, new, level)
