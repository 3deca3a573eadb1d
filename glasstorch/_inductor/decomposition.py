"""The inductor's decomposition table: big aten ops as pointwise + reduction pieces (``_inductor/decomposition``).

Each decomposition is written once against an aten namespace ``A`` and used two ways: with
``glasstorch.ops.aten`` in :func:`select_decomp_table` (make_fx / AOT record the pieces), and with the
lowering namespace at lowering time (a graph that still holds ``_softmax`` lowers through the same formula),
so the pieces fuse in both cases.  Formulas follow the eager CPU kernels (shift by the max before ``exp``,
``1 / sqrt(var + eps)``).

Invariant: a decomposition returns exactly the outputs (count, shapes, dtypes) of the op it replaces, and
declines (returns ``NotImplemented``) for arguments it does not cover, so the op stays whole.
"""

from __future__ import annotations

from .. import ops as _gops

__all__ = ["select_decomp_table", "decompositions"]

aten = _gops.aten
decompositions: dict = {}  # OpOverload -> fn(A, *args, **kwargs)


def _decomp(qualname):
    """Register for ``aten.<name>.<overload>`` when glasstorch has that overload."""
    name, overload = qualname.split(".")
    op = getattr(getattr(aten, name, None), overload, None) if hasattr(aten, name) else None

    def deco(fn):
        if op is not None:
            decompositions[op] = fn
        return fn
    return deco


def _floating(x):
    return x.dtype.is_floating_point


@_decomp("_softmax.default")
def softmax(A, x, dim, half_to_float):
    if half_to_float or not _floating(x) or x.dim() == 0:
        return NotImplemented
    shifted = A.sub.Tensor(x, A.amax.default(x, [dim], True))
    e = A.exp.default(shifted)
    return A.div.Tensor(e, A.sum.dim_IntList(e, [dim], True))


@_decomp("_log_softmax.default")
def log_softmax(A, x, dim, half_to_float):
    if half_to_float or not _floating(x) or x.dim() == 0:
        return NotImplemented
    shifted = A.sub.Tensor(x, A.amax.default(x, [dim], True))
    total = A.sum.dim_IntList(A.exp.default(shifted), [dim], True)
    return A.sub.Tensor(shifted, A.log.default(total))


@_decomp("_softmax_backward_data.default")
def softmax_backward(A, grad, out, dim, input_dtype):
    if grad.dtype is not input_dtype or not _floating(grad):
        return NotImplemented
    go = A.mul.Tensor(grad, out)
    return A.sub.Tensor(go, A.mul.Tensor(out, A.sum.dim_IntList(go, [dim], True)))


@_decomp("_log_softmax_backward_data.default")
def log_softmax_backward(A, grad, out, dim, input_dtype):
    if grad.dtype is not input_dtype or not _floating(grad):
        return NotImplemented
    return A.sub.Tensor(grad, A.mul.Tensor(A.exp.default(out), A.sum.dim_IntList(grad, [dim], True)))


@_decomp("native_layer_norm.default")
def layer_norm(A, x, normalized_shape, weight, bias, eps):
    k = len(normalized_shape)
    if not _floating(x) or k == 0 or x.dim() < k or (weight is not None and weight.dtype is not x.dtype):
        return NotImplemented
    dims = list(range(x.dim() - k, x.dim()))
    mean = A.mean.dim(x, dims, True)
    centered = A.sub.Tensor(x, mean)
    var = A.mean.dim(A.mul.Tensor(centered, centered), dims, True)
    rstd = A.reciprocal.default(A.sqrt.default(A.add.Scalar(var, eps)))
    out = A.mul.Tensor(centered, rstd)
    if weight is not None:
        out = A.mul.Tensor(out, weight)
    if bias is not None:
        out = A.add.Tensor(out, bias)
    # mean and rstd are not differentiable outputs of native_layer_norm: detached, so that a decomposition
    # traced above autograd sends no gradient through them (out keeps its full gradient)
    return out, A.detach.default(mean), A.detach.default(rstd)


@_decomp("nll_loss_forward.default")
def nll_loss_forward(A, x, target, weight, reduction, ignore_index):
    if weight is not None or x.dim() not in (1, 2) or reduction not in (1, 2) or not _floating(x):
        return NotImplemented
    t = target if x.dim() == 2 else A.unsqueeze.default(target, 0)
    x2 = x if x.dim() == 2 else A.unsqueeze.default(x, 0)
    valid = A.ne.Scalar(t, ignore_index)
    invalid = A.logical_not.default(valid)
    safe = A.masked_fill.Scalar(t, invalid, 0)
    picked = A.squeeze.dim(A.gather.default(x2, 1, A.unsqueeze.default(safe, 1)), 1)
    losses = A.masked_fill.Scalar(A.neg.default(picked), invalid, 0.0)
    total = A.sum.default(losses)
    count = A.sum.default(A._to_copy.default(valid, dtype=x.dtype))
    if reduction == 1:  # mean
        return A.div.Tensor(total, count), count
    return total, count


def select_decomp_table() -> dict:
    """OpOverload -> callable over public tensors, for ``make_fx(decomposition_table=...)``."""
    table = {}
    for op, fn in decompositions.items():
        table[op] = _bound(fn)
    return table


def _bound(fn):
    def run(*args, **kwargs):
        return fn(aten, *args, **kwargs)
    run.__name__ = fn.__name__
    return run
