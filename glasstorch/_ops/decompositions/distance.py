"""Distance decompositions (CompositeImplicitAutograd) — PyTorch's ``aten/src/ATen/native/Distance.cpp``.

``cosine_similarity`` follows ATen's order of operations: integral inputs are converted to the (floating) common
dtype, both sides expanded to one shape, each divided by its own 2-norm clamped to ``eps`` (the clamp runs with
the autograd keys excluded, on a clone of the norm, so the gradient is that of the unclamped norm), then
multiplied and summed.

``pairwise_distance`` is ATen's: the ``p``-norm of ``x1 - x2 + eps`` over the innermost dimension of the
broadcast result (``aten::norm``, so its node is NormBackward1, as torch's).

Invariant: nothing here touches tensor data; every computation is another operator call.
"""

from __future__ import annotations

from ..._core import dispatch_key as _dk
from ..._core import dtype as _dt
from ..._core import shape as _shape
from ..aten import aten
from ..tensor_iterator import common_dtype

__all__ = ["cosine_similarity", "pairwise_distance"]


def _expand_outplace(a, b):
    """ATen's ``expand_outplace``: both sides at the broadcast shape (untouched when the shapes agree)."""
    if a.sizes == b.sizes:
        return a, b
    shape = _shape.broadcast_shapes(a.sizes, b.sizes)
    return aten.expand(a, shape, False), aten.expand(b, shape, False)


def _clamped_norm(x, dim, eps):
    """The norm, clamped to ``eps`` without recording the clamp (ATen clamps under a NoGradGuard): the clamp runs
    with the autograd keys excluded, so it is not recorded and its version bump still happens, and grad mode
    never flips inside the operator (a traced call sees none)."""
    norm = aten.clone(aten.linalg_vector_norm(x, 2, [dim], True, None), None)
    with _dk.ExcludeDispatchKeyGuard(_dk.AUTOGRAD_SET):
        aten.clamp_min_(norm, eps)
    return norm


def cosine_similarity(x1, x2, dim, eps):
    common = common_dtype((x1, x2))
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {_dt.name_of(common)}")
    x1, x2 = (aten._to_copy(x, common, None, None, None, False, None)
              if not (x.dtype.is_floating_point or x.dtype.is_complex) else x for x in (x1, x2))
    x1, x2 = _expand_outplace(x1, x2)
    return aten.sum_dim_IntList(aten.mul_Tensor(aten.div_Tensor(x1, _clamped_norm(x1, dim, eps)),
                                                aten.div_Tensor(x2, _clamped_norm(x2, dim, eps))), [dim], False, None)


def pairwise_distance(x1, x2, p, eps, keepdim):
    innermost = max(len(x1.sizes), len(x2.sizes)) - 1
    return aten.norm_ScalarOpt_dim(aten.add_Scalar(aten.sub_Tensor(x1, x2, 1), eps, 1), p, [innermost], keepdim)
