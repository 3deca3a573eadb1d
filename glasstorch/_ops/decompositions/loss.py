"""Loss decompositions — PyTorch's CompositeImplicitAutograd kernels of ``Loss.cpp`` and ``LossNLL.cpp``.

- ``cross_entropy_loss``: class indices → ``log_softmax`` + ``nll_loss_nd``; class probabilities (input and
  target of one shape) → ``-(log_softmax(x) * target [* weight]).sum(...)``; ``label_smoothing`` mixes the
  NLL term with the uniform-target term exactly as PyTorch's ``cross_entropy_loss_label_smoothing``;
- ``nll_loss_nd``: 1-D/2-D → ``nll_loss`` (``nll_loss_forward``), 4-D → ``nll_loss2d``, 3-D and >4-D are
  reshaped to ``(N, C, 1, -1)`` for ``nll_loss2d``;
- ``l1_loss`` = ``apply_loss_reduction(|x - y|)``; ``kl_div`` from ``xlogy``/``exp``.

Every function takes TensorImpls in schema order and calls other operators through ``aten``, so autograd
sees the same graph PyTorch builds.

Invariant: no data is touched here; all arithmetic happens in the operators called.
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..aten import aten
from ..factories import full_impl

__all__ = ["cross_entropy_loss", "nll_loss", "nll_loss_out", "nll_loss_nd", "nll_loss2d", "nll_loss2d_out",
           "l1_loss", "kl_div", "apply_loss_reduction", "cosine_embedding_loss", "hinge_embedding_loss",
           "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss", "soft_margin_loss", "pdist",
           "multi_margin_loss", "multilabel_margin_loss"]

NONE, MEAN, SUM = 0, 1, 2


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def apply_loss_reduction(unreduced, reduction):
    """``at::native::apply_loss_reduction``: mean, sum, or the tensor itself for any other value."""
    if reduction == MEAN:
        return aten.mean(unreduced, None)
    if reduction == SUM:
        return aten.sum(unreduced, None)
    return unreduced


def _contiguous(t):
    return t if t.is_contiguous() else aten.clone(t, None)


# -- nll ------------------------------------------------------------------------------------------------
def nll_loss(self, target, weight, reduction, ignore_index):
    return aten.nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss_out(self, target, weight, reduction, ignore_index, out):
    from ..._tensor.impl import empty_contiguous
    total_weight = empty_contiguous((), self.dtype, self.device)
    return aten.nll_loss_forward_output(self, target, weight, reduction, ignore_index, out, total_weight)[0]


def nll_loss2d(self, target, weight, reduction, ignore_index):
    return aten.nll_loss2d_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss2d_out(self, target, weight, reduction, ignore_index, out):
    from ..._tensor.impl import empty_contiguous
    total_weight = empty_contiguous((), self.dtype, self.device)
    return aten.nll_loss2d_forward_output(self, target, weight, reduction, ignore_index, out, total_weight)[0]


def nll_loss_nd(self, target, weight, reduction, ignore_index):
    """``nll_loss_nd``: route by the input's rank (``nll_loss_nd_symint``)."""
    if self.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.ndim})")
    if self.ndim != 1:
        tb = target.sizes[0] if target.ndim else 0
        if self.sizes[0] != tb:
            raise ValueError(f"Expected input batch_size ({self.sizes[0]}) to match target batch_size ({tb}).")
    if self.ndim in (1, 2):
        return nll_loss(self, target, weight, reduction, ignore_index)
    if self.ndim == 4:
        return nll_loss2d(self, target, weight, reduction, ignore_index)
    n, c = self.sizes[0], self.sizes[1]
    out_size = (n,) + tuple(self.sizes[2:])
    if tuple(target.sizes[1:]) != tuple(self.sizes[2:]):
        raise RuntimeError(f"Expected target size {_fmt(out_size)}, got {_fmt(target.sizes)}")
    inp, tgt = self, target
    if inp.numel() > 0:
        inp = _contiguous(inp)
        tgt = _contiguous(tgt)
    else:
        inp = aten.clone(inp, None)
        tgt = aten.clone(tgt, None)
    inp = aten.view(inp, [n, c, 1, -1])
    tgt = aten.view(tgt, [n, 1, -1])
    if reduction != NONE:
        return nll_loss2d(inp, tgt, weight, reduction, ignore_index)
    out = nll_loss2d(inp, tgt, weight, reduction, ignore_index)
    return aten.view(out, list(out_size))


# -- cross entropy ----------------------------------------------------------------------------------------
def _weight_view(weight, ndim, class_dim):
    if ndim <= 1:
        return weight
    shape = [1] * ndim
    shape[class_dim] = weight.sizes[0]
    return aten.view(weight, shape)


def _prob_target(self, target, weight, reduction, label_smoothing):
    """``cross_entropy_loss_prob_target``: soft targets of the input's shape."""
    class_dim = 0 if self.ndim == 1 else 1
    n_classes = self.sizes[class_dim]
    if weight is not None and not (weight.ndim == 1 and weight.numel() == n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or "
                           f"no classes but got weight tensor of shape: {_fmt(weight.sizes)}")
    inp = aten.log_softmax_int(self, class_dim, self.dtype)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        target = aten.add_Tensor(aten.mul_Tensor(target, 1 - label_smoothing), label_smoothing / n_classes, 1)
    prod = aten.mul_Tensor(inp, target)
    if weight is not None:
        prod = aten.mul_Tensor(prod, _weight_view(weight, inp.ndim, class_dim))
    if reduction == MEAN:
        total = aten.neg(aten.sum(prod, None))
        if inp.numel() == 0:
            return aten.fill__Scalar(total, float("nan"))
        return aten.div_Tensor(total, inp.numel() // n_classes)
    if reduction == SUM:
        return aten.neg(aten.sum(prod, None))
    if reduction == NONE:
        return aten.neg(aten.sum_dim_IntList(prod, [class_dim], False, None))
    raise RuntimeError(f"Invalid reduction type encountered in cross_entropy: {reduction}")


def _label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing):
    """``cross_entropy_loss_label_smoothing``: (1 - eps) * nll + eps / C * (uniform-target loss)."""
    class_dim = 0 if self.ndim == 1 else 1
    inp = aten.log_softmax_int(self, class_dim, self.dtype)
    nllloss = nll_loss_nd(inp, target, weight, reduction, ignore_index)
    n_classes = self.sizes[class_dim]
    ignore_mask = aten.eq_Scalar(target, ignore_index)
    if weight is not None:
        smooth = aten.neg(aten.sum_dim_IntList(aten.mul_Tensor(inp, _weight_view(weight, inp.ndim, class_dim)),
                                               [class_dim], False, None))
    else:
        smooth = aten.neg(aten.sum_dim_IntList(inp, [class_dim], False, None))
    smooth = aten.masked_fill__Scalar(smooth, ignore_mask, 0.0)
    if reduction == MEAN:
        if weight is not None:
            kept = aten.masked_select(target, aten.logical_not(ignore_mask))
            denom = aten.sum(aten.gather(weight, 0, aten.flatten_using_ints(kept, 0, -1), False), None)
        else:
            denom = aten.sum(aten.logical_not(ignore_mask), None)
        ret = aten.div_Tensor(aten.sum(smooth, None), denom)
    elif reduction == SUM:
        ret = aten.sum(smooth, None)
    elif reduction == NONE:
        ret = smooth
    else:
        raise RuntimeError(f"Invalid reduction type encountered in cross_entropy: {reduction}")
    return aten.add_Tensor(aten.mul_Tensor(nllloss, 1 - label_smoothing),
                           aten.mul_Tensor(ret, label_smoothing / n_classes), 1)


def cross_entropy_loss(self, target, weight, reduction, ignore_index, label_smoothing):
    """``cross_entropy_loss_symint``: soft targets when shapes match, else class indices."""
    if tuple(self.sizes) == tuple(target.sizes):
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_dt.name_of(target.dtype)}")
        if not ignore_index < 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        return _label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing)
    class_dim = 0 if self.ndim == 1 else 1
    return nll_loss_nd(aten.log_softmax_int(self, class_dim, self.dtype), target, weight, reduction, ignore_index)


# -- l1, kl ----------------------------------------------------------------------------------------------
def l1_loss(self, target, reduction):
    return apply_loss_reduction(aten.abs(aten.sub_Tensor(self, target, 1)), reduction)


def kl_div(self, target, reduction, log_target):
    if self.dtype.is_complex or target.dtype.is_complex:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not self.dtype.is_floating_point or not target.dtype.is_floating_point:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = aten.mul_Tensor(aten.exp(target), aten.sub_Tensor(target, self, 1))
    else:
        out = aten.sub_Tensor(aten.xlogy_Tensor(target, target), aten.mul_Tensor(target, self), 1)
    return apply_loss_reduction(out, reduction)


# -- embedding and ranking losses (Loss.cpp's composites) -------------------------------------------------
_COS_EPS = 1e-12  # Loss.cpp's EPSILON, added to each squared magnitude


def cosine_embedding_loss(input1, input2, target, margin, reduction):
    """``1 - cos`` where ``target == 1``, ``max(0, cos - margin)`` where ``target == -1``, 0 elsewhere."""
    tdim = len(target.sizes)
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if tdim == 1 else 1
    if len(input1.sizes) != want or len(input2.sizes) != want:
        raise RuntimeError(f"{tdim}D target tensor expects {want}D input tensors, but found inputs with sizes "
                           f"{_fmt(input1.sizes)} and {_fmt(input2.sizes)}.")

    def sq_sum(a, b):
        return aten.sum_dim_IntList(aten.mul_Tensor(a, b), [tdim], False, None)

    mag1 = aten.add_Scalar(sq_sum(input1, input1), _COS_EPS, 1)
    mag2 = aten.add_Scalar(sq_sum(input2, input2), _COS_EPS, 1)
    cos = aten.div_Tensor(sq_sum(input1, input2), aten.sqrt(aten.mul_Tensor(mag1, mag2)))
    pos = aten.where_ScalarOther(aten.eq_Scalar(target, 1), aten.rsub_Scalar(cos, 1, 1), 0)
    neg = aten.where_ScalarOther(aten.eq_Scalar(target, -1), aten.clamp_min(aten.sub_Scalar(cos, margin, 1), 0), 0)
    return apply_loss_reduction(aten.add_Tensor(pos, neg, 1), reduction)


def hinge_embedding_loss(self, target, margin, reduction):
    """``x`` where ``target != -1`` plus ``max(0, margin - x)`` where ``target != 1``."""
    hinge = aten.where_ScalarOther(aten.ne_Scalar(target, 1), aten.clamp_min(aten.rsub_Scalar(self, margin, 1), 0), 0)
    kept = aten.where_ScalarOther(aten.ne_Scalar(target, -1), self, 0)
    return apply_loss_reduction(aten.add_Tensor(hinge, kept, 1), reduction)


def margin_ranking_loss(input1, input2, target, margin, reduction):
    """``max(0, -target * (input1 - input2) + margin)``."""
    ranked = aten.mul_Tensor(aten.neg(target), aten.sub_Tensor(input1, input2, 1))
    return apply_loss_reduction(aten.clamp_min(aten.add_Scalar(ranked, margin, 1), 0), reduction)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``exp(x) - t * x`` (``log_input``) or ``x - t * log(x + eps)``; ``full`` adds Stirling's term where t > 1."""
    if log_input:
        loss = aten.sub_Tensor(aten.exp(input), aten.mul_Tensor(target, input), 1)
    else:
        loss = aten.sub_Tensor(input, aten.mul_Tensor(target, aten.log(aten.add_Scalar(input, eps, 1))), 1)
    if full:
        t_log_t = aten.sub_Tensor(aten.mul_Tensor(target, aten.log(target)), target, 1)
        stirling = aten.add_Tensor(t_log_t, aten.mul_Scalar(aten.log(aten.mul_Scalar(target, 2 * math.pi)), 0.5), 1)
        loss = aten.add_Tensor(loss, aten.masked_fill_Scalar(stirling, aten.le_Scalar(target, 1), 0), 1)
    return apply_loss_reduction(loss, reduction)


def _pairwise_distance(x1, x2, p, eps):
    """ATen's ``pairwise_distance``: the ``p``-norm of ``x1 - x2 + eps`` over the innermost dim of the two."""
    dim = max(len(x1.sizes), len(x2.sizes)) - 1
    return aten.norm_ScalarOpt_dim(aten.add_Scalar(aten.sub_Tensor(x1, x2, 1), eps, 1), p, [dim], False)


def triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction):
    """``max(0, margin + d(a, p) - d(a, n))``, ``d(a, n)`` replaced by ``min(d(a, n), d(p, n))`` with ``swap``."""
    dims = (len(anchor.sizes), len(positive.sizes), len(negative.sizes))
    if not dims[0] == dims[1] == dims[2]:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           f"inputs")
    dist_pos = _pairwise_distance(anchor, positive, p, eps)
    dist_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = aten.min_other(dist_neg, _pairwise_distance(positive, negative, p, eps))
    loss = aten.clamp_min(aten.sub_Tensor(aten.add_Scalar(dist_pos, margin, 1), dist_neg, 1), 0)
    return apply_loss_reduction(loss, reduction)


def soft_margin_loss(self, target, reduction):
    """``log(1 + exp(-x * t))``, reduced."""
    loss = aten.log(aten.add_Scalar(aten.exp(aten.mul_Tensor(aten.neg(self), target)), 1, 1))
    return apply_loss_reduction(loss, reduction)



def pdist(self, p):
    """``pdist``: a 2-D floating input and a non-negative ``p``, then ``_pdist_forward`` of it made contiguous."""
    if len(self.sizes) != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {len(self.sizes)}D")
    if not self.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return aten._pdist_forward(_contiguous(self), p)


# -- margin losses over classes: LossMultiMargin.cpp / LossMultiLabelMargin.cpp, as compositions ------------
def _margin_shape_check(self):
    """(frames, classes) of a non-empty 0-, 1- or 2-D input."""
    nd = len(self.sizes)
    if not ((nd == 2 and self.sizes[1] != 0) or (nd == 1 and self.sizes[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{_fmt(self.sizes)}")
    return (1 if nd <= 1 else self.sizes[0]), (1 if nd == 0 else self.sizes[-1])


def _values(t):
    """The numbers of a small index tensor, for the range checks PyTorch's kernels make (None on meta)."""
    return None if t.storage._data is None else t.as_numpy()


def _class_mask(nframe, dim, index, device):
    """``(nframe, dim)`` booleans, True at each row's ``index`` columns (``index``: (nframe, k))."""
    return aten.scatter_value(full_impl((nframe, dim), False, _dt.bool, device), 1, index, True)


def multi_margin_loss(self, target, p, margin, weight, reduction):
    """Per sample ``sum_{i != y} max(0, margin - x[y] + x[i])^p [* w[y]] / C`` (the hinge's gradient is 0 at 0)."""
    nframe, dim = _margin_shape_check(self)
    if not (len(target.sizes) <= 1 and target.numel() == nframe):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got {_fmt(target.sizes)}. "
                           f"Input has shape {_fmt(self.sizes)}.")
    if weight is not None and not (len(weight.sizes) <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {_fmt(weight.sizes)}")
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    t = _values(target)
    if t is not None and ((t < 0) | (t >= dim)).any():
        raise RuntimeError("target out of range")
    x = aten.view(self, [nframe, dim])
    idx = aten.view(target, [nframe, 1])
    z = aten.relu(aten.add_Tensor(aten.rsub_Scalar(aten.gather(x, 1, idx, False), margin, 1), x, 1))
    if p == 2:
        z = aten.mul_Tensor(z, z)
    if weight is not None:
        z = aten.mul_Tensor(z, aten.view(aten.gather(aten.view(weight, [dim]), 0, aten.view(target, [nframe]),
                                                     False), [nframe, 1]))
    z = aten.masked_fill_Scalar(z, _class_mask(nframe, dim, idx, self.device), 0)
    loss = aten.div_Scalar(aten.sum_dim_IntList(z, [1], False, None), dim)
    if reduction == NONE:
        return loss if len(target.sizes) > 0 else aten.view(loss, [])
    return apply_loss_reduction(loss, reduction)


def multilabel_margin_loss(self, target, reduction):
    """Per sample ``sum_j sum_{i not a target} max(0, 1 - (x[y_j] - x[i])) / C`` over the targets ``y_j`` before
    the first -1."""
    nframe, dim = _margin_shape_check(self)
    if len(self.sizes) <= 1:
        ok = len(target.sizes) <= 1 and target.numel() == dim
    else:
        ok = len(target.sizes) == 2 and tuple(target.sizes) == (nframe, dim)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {_fmt(target.sizes)} for input of size: {_fmt(self.sizes)}")
    if target.dtype is not _dt.int64:
        raise RuntimeError(f"expected scalar type Long but found {_dt.name_of(target.dtype)}")
    t = _values(target)
    if t is not None and ((t < -1) | (t >= dim)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    x = aten.view(self, [nframe, dim])
    tg = aten.view(target, [nframe, dim])
    # the targets before the first -1; the others are scattered into a spare last column, then dropped
    valid = aten.ne_Scalar(aten.cumprod(aten.ge_Scalar(tg, 0), 1, _dt.int64), 0)
    idx = aten.clamp_min(tg, 0)
    spare = aten.where_self(valid, idx, full_impl((nframe, dim), dim, _dt.int64, self.device))
    is_target = aten.narrow(aten.scatter_value(full_impl((nframe, dim + 1), False, _dt.bool, self.device), 1, spare,
                                               True), 1, 0, dim)
    x_t = aten.gather(x, 1, idx, False)  # (N, j)
    z = aten.relu(aten.add_Tensor(aten.rsub_Scalar(aten.unsqueeze(x_t, 2), 1, 1), aten.unsqueeze(x, 1), 1))
    keep = aten.logical_and(aten.unsqueeze(valid, 2), aten.unsqueeze(aten.logical_not(is_target), 1))
    loss = aten.div_Scalar(aten.sum_dim_IntList(aten.mul_Tensor(z, keep), [1, 2], False, None), dim)
    if reduction == NONE:
        return loss if len(self.sizes) > 1 else aten.view(loss, [])
    return apply_loss_reduction(loss, reduction)
