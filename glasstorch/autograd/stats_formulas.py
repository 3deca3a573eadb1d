"""Backward formulas of the statistics operators — PyTorch's ``aminmax``, ``logcumsumexp_backward`` and
``logcumsumexp_jvp``, ``renorm_backward``, ``index_reduce_backward``, ``_cdist_backward`` and
``_euclidean_dist_backward`` (``FunctionsManual.cpp``), over public Tensors; the generated nodes import these next
to ``formulas.py``.

Invariant: only differentiable operators, so double backward works (``cdist_backward`` has no second derivative
in PyTorch either).
"""

from __future__ import annotations

from . import formulas as _formulas

__all__ = ["aminmax_backward", "cdist_backward", "euclidean_dist_backward", "index_reduce_backward",
           "segment_reduce_backward", "renorm_backward", "logcumsumexp_backward", "logcumsumexp_jvp"]


def aminmax_backward(grad_min, grad_max, x, dim, keepdim, min_, max_):
    """aminmax: each defined output gradient is shared by the elements equal to its extreme (amax's rule)."""
    dims = [] if dim is None else [dim]
    out = None
    for g, r in ((grad_min, min_), (grad_max, max_)):
        if g is not None:
            part = _formulas.amax_backward(g, x, dims, keepdim, r)
            out = part if out is None else out + part
    return out


def _reverse_logcumsumexp(x, dim):
    """``log`` of the reversed running sum of ``exp(x)`` along ``dim`` (from the end)."""
    return x.flip([dim]).logcumsumexp(dim).flip([dim])


def logcumsumexp_backward(grad, x, result, dim):
    """d/dx_j sum_k g_k * [j <= k] exp(x_j - r_k), computed in log space: positive and negative parts of a real
    gradient separately (each a reversed logcumsumexp), the conjugated gradient directly for complex values."""
    if grad.dim() == 0 or grad.numel() == 0:
        return grad
    torch = _formulas._T
    if grad.is_complex():
        return (_reverse_logcumsumexp(grad.conj().log() - result, dim) + x).exp().conj()
    lowest = torch.finfo(grad.dtype).min
    log_abs = grad.abs().log()
    parts = [(_reverse_logcumsumexp(torch.where(sel, log_abs, lowest) - result, dim) + x).exp()
             for sel in (grad > 0, grad < 0)]
    return parts[0] - parts[1]


def logcumsumexp_jvp(x, t, dim):
    """Tangent of logcumsumexp: the running softmax-weighted sum of the tangent, ``cumsum(e * t) / cumsum(e)``
    with ``e = exp(x - max(x))`` (real inputs; complex ones are not shifted), plus 1e-13 against 0/0."""
    e = x.exp() if x.is_complex() else (x - x.amax(dim, keepdim=True)).exp()
    return (e * t).cumsum(dim) / (e.cumsum(dim) + 1e-13)


def index_reduce_backward(grad, x, dim, index, source, reduce, include_self, result):
    """(d self, d source) of index_reduce: scatter_reduce's rules along one dim (a product's zeros handled by
    recomputing without them, a mean divided by its counts, amax/amin shared by the elements equal to the
    result); without ``include_self`` the indexed slices of ``self`` get none."""
    torch = _formulas._T
    if reduce == "prod":
        masked_self = x.masked_fill(x == 0, 1)
        gself = grad * masked_self.index_reduce(dim, index, source, reduce, include_self=include_self) / masked_self
        src_zero = source == 0
        zeros_per_slot = torch.zeros_like(x).index_add(dim, index, src_zero.to(x.dtype)).index_select(dim, index)
        single_zero = src_zero.logical_and(zeros_per_slot == 1)
        without_zero = x.index_reduce(dim, index, source.masked_fill(single_zero, 1), reduce,
                                      include_self=include_self)
        gsrc = torch.where(single_zero, (grad * without_zero).index_select(dim, index),
                           (grad * result).index_select(dim, index) / source.masked_fill(src_zero, 1))
        if torch.is_grad_enabled() and bool((zeros_per_slot > 1).any()):  # only a graph being built can refuse
            gsrc = _formulas.unsupported_double_backward("index_reduce(): Double backward is unsupported for source "
                                                         "when >1 zeros in source are scattered to the same position "
                                                         "in self", gsrc)
    elif reduce == "mean":
        n = (torch.ones_like(grad) if include_self else torch.zeros_like(grad)).index_add(dim, index,
                                                                                          torch.ones_like(source))
        n = n.masked_fill(n == 0, 1)
        gself = grad / n
        gsrc = grad.index_select(dim, index) / n.index_select(dim, index)
    else:
        value = result.index_select(dim, index)
        self_is_result = (x == result).to(x.dtype)
        src_is_result = (source == value).to(x.dtype)
        distributed = grad / self_is_result.index_add(dim, index, src_is_result)
        gself = self_is_result * distributed
        gsrc = src_is_result * distributed.index_select(dim, index)
    if not include_self:
        gself = gself.index_fill(dim, index, 0)
    return gself, gsrc


def cdist_backward(grad, x1, x2, p, dist):
    """d/dx1 of cdist: each pair's gradient is ``grad * dD/dx1`` summed over the rows of ``x2``, with PyTorch's
    subgradients (0 where the distance is 0, and for ``p < 1`` where a coordinate difference is 0)."""
    torch = _formulas._T
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., R1, R2, M)
    d = dist.unsqueeze(-1)
    if p == 0:
        return torch.zeros_like(x1)
    if p == 1:
        term = diff.sign()
    elif p == 2:
        term = torch.where(d == 0, 0.0, diff / d)
    elif p == float("inf"):
        term = diff.sign() * (diff.abs() == d)
    elif p < 2:
        zero = (d == 0).logical_or(diff == 0) if p < 1 else (d == 0).expand_as(diff)
        term = torch.where(zero, 0.0, diff.sign() * diff.abs().pow(p - 1) / d.pow(p - 1))
    else:
        term = torch.where(d == 0, 0.0, diff * diff.abs().pow(p - 2) / d.pow(p - 1))
    return (grad.unsqueeze(-1) * term).sum(-2)


def euclidean_dist_backward(grad, x1, x2, dist):
    """(d x1, d x2) of ``_euclidean_dist``: ``grad / dist`` (0 where the distance is 0) against each operand."""
    ratio = (grad / dist).masked_fill(dist == 0, 0)
    return (x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2),
            x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1))


def segment_reduce_backward(grad, result, data, reduce, lengths, offsets, axis, initial):
    """segment_reduce: the ``_segment_reduce_backward`` operator (PyTorch's kernel; no second derivative)."""
    return _formulas._T._segment_reduce_backward(grad.contiguous(), result, data, reduce, lengths=lengths,
                                                 offsets=offsets, axis=axis, initial=initial)


def renorm_backward(grad, x, p, dim, maxnorm):
    """renorm: where a slice was scaled, ``s * (grad - n'(x) . <x, grad> / (n + 1e-7))`` with
    ``s = maxnorm / (n + 1e-7)``; the norm and the inner products in float32 for reduced floats, as PyTorch's."""
    torch = _formulas._T
    d = dim % x.dim()
    dims = [i for i in range(x.dim()) if i != d]
    acc = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else None
    norm = torch.linalg.vector_norm(x, p, dims, keepdim=True, dtype=acc)
    inner = x.conj() * grad
    if inner.is_complex():
        inner = inner.real
    inner = inner.sum(dims, keepdim=True, dtype=norm.dtype)
    nb = _formulas.norm_backward(inner, x, p, norm, dims, True)
    invnorm = (norm + 1e-7).reciprocal()
    return torch.where(norm > maxnorm, invnorm * maxnorm * (grad - invnorm * nb), grad)
