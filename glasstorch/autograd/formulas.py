"""Helpers used by the backward formulas of ``derivatives/*.yaml`` — PyTorch's ``FunctionsManual.cpp``.

Formulas are Python expressions over public Tensors (``grad * other``), evaluated by the generated
Node classes; these helpers cover what one expression cannot say directly.  Broadcasting needs no
helper: the engine sums a gradient back to its input's shape (``validate_outputs``).

Invariant: every helper is built from differentiable operators, so double backward works.
"""

from __future__ import annotations

__all__ = ["sdpa_backward", "gelu_backward", "silu_backward", "clamp_backward", "minmax_backward", "amax_backward",
           "value_selecting_backward", "logsumexp_backward", "cat_grads", "embedding_backward", "nll_loss_backward",
           "layer_norm_backward", "var_backward", "sum_backward", "mean_backward", "expand_backward", "unsqueeze_dims", "softmax_backward",
           "log_softmax_backward", "restore_reduced_dims", "select_backward", "slice_backward", "permute_backward",
           "maybe_multiply", "zeros_like_grad", "reshape_backward"]

_T = None  # glasstorch module, bound lazily by the generated nodes (formulas use the public API)


def bind(torch_module) -> None:
    global _T
    _T = torch_module


def maybe_multiply(grad, alpha):
    return grad if alpha == 1 else grad * alpha


def unsqueeze_dims(grad, dims, ndim):
    for d in sorted(d % ndim for d in dims):
        grad = grad.unsqueeze(d)
    return grad


def restore_reduced_dims(grad, dim, keepdim, sizes):
    """The gradient of a reduction, with the reduced dims put back as size 1."""
    ndim = len(sizes)
    if keepdim or ndim == 0:
        return grad
    dims = range(ndim) if dim is None or (not isinstance(dim, int) and len(dim) == 0) else \
        ([dim] if isinstance(dim, int) else list(dim))
    return unsqueeze_dims(grad, dims, ndim)


def sum_backward(grad, sizes, dim, keepdim):
    return restore_reduced_dims(grad, dim, keepdim, sizes).expand(sizes)


def mean_backward(grad, sizes, dim, keepdim, numel_in, numel_out):
    n = numel_in // max(numel_out, 1) if numel_out else numel_in
    return sum_backward(grad, sizes, dim, keepdim) / n


def expand_backward(grad, sizes):
    return grad.sum_to_size(sizes) if hasattr(grad, "sum_to_size") else _sum_to(grad, sizes)


def _sum_to(grad, sizes):
    lead = grad.dim() - len(sizes)
    if lead:
        grad = grad.sum(tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(sizes) if s == 1 and grad.shape[i] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad


def softmax_backward(grad, result, dim):
    return result * (grad - (grad * result).sum(dim, keepdim=True))


def log_softmax_backward(grad, result, dim):
    return grad - result.exp() * grad.sum(dim, keepdim=True)


def select_backward(grad, sizes, dim, index):
    out = _T.zeros(sizes, dtype=grad.dtype, device=grad.device)
    out.select(dim, index).copy_(grad)
    return out


def slice_backward(grad, sizes, dim, start, end, step):
    out = _T.zeros(sizes, dtype=grad.dtype, device=grad.device)
    out[_slicer(len(sizes), dim, start, end, step)].copy_(grad)
    return out


def _slicer(ndim, dim, start, end, step):
    idx = [slice(None)] * ndim
    idx[dim % ndim] = slice(start, end, step)
    return tuple(idx)


def permute_backward(grad, dims):
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return grad.permute(inverse)


def reshape_backward(grad, sizes):
    return grad.reshape(sizes)


def zeros_like_grad(sizes, dtype, device):
    return _T.zeros(sizes, dtype=dtype, device=device)


# -- activations, losses, normalisation -----------------------------------------------------------------------
_SQRT_2 = 2 ** 0.5
_SQRT_2_OVER_PI = (2 / 3.141592653589793) ** 0.5
_INV_SQRT_2PI = 1 / (2 * 3.141592653589793) ** 0.5


def gelu_backward(grad, x, approximate):
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
        t = inner.tanh()
        d_inner = _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
        return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner)
    cdf = 0.5 * (1 + (x / _SQRT_2).erf())
    pdf = (-0.5 * x * x).exp() * _INV_SQRT_2PI
    return grad * (cdf + x * pdf)


def silu_backward(grad, x):
    s = x.sigmoid()
    return grad * (s * (1 + x * (1 - s)))


def clamp_backward(grad, x, min, max):  # noqa: A002 - PyTorch's argument names
    mask = None
    if min is not None:
        mask = x >= min
    if max is not None:
        upper = x <= max
        mask = upper if mask is None else mask & upper
    return grad if mask is None else grad * mask


def minmax_backward(grad, x, other, take_x_when_greater):
    """maximum/minimum: the gradient goes to the winner; ties split it in half (PyTorch's rule)."""
    wins = (x > other) if take_x_when_greater else (x < other)
    ties = x == other
    return grad * wins + grad * ties * 0.5


def amax_backward(grad, x, dim, keepdim, result):
    g = restore_reduced_dims(grad, dim, keepdim, tuple(x.shape))
    r = restore_reduced_dims(result, dim, keepdim, tuple(x.shape))
    mask = x == r
    count = mask.sum(dim if dim else None, keepdim=True) if dim else mask.sum()
    return g * mask / count


def value_selecting_backward(grad, dim, indices, sizes, keepdim):
    """max(dim)/min(dim)/sort values: scatter the gradient back to the selected positions."""
    if not keepdim and len(sizes):
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    out = _T.zeros(sizes, dtype=grad.dtype, device=grad.device)
    return out.scatter(dim, indices, grad) if len(sizes) else grad.reshape(sizes)


def logsumexp_backward(grad, x, result, dim, keepdim):
    g = restore_reduced_dims(grad, dim, keepdim, tuple(x.shape))
    r = restore_reduced_dims(result, dim, keepdim, tuple(x.shape))
    return g * (x - r).exp()


def cat_grads(grads, dim):
    return _T.cat(list(grads), dim)


def embedding_backward(grad, indices, num_weights, padding_idx):
    d = grad.shape[-1]
    flat = indices.reshape(-1)
    g = grad.reshape(-1, d)
    if padding_idx is not None and padding_idx >= 0:
        g = g * (flat != padding_idx).unsqueeze(1)
    out = _T.zeros(num_weights, d, dtype=grad.dtype, device=grad.device)
    return out.index_add(0, flat, g)


def nll_loss_backward(grad, x, target, weight, reduction, ignore_index, total_weight):
    """d loss / d input: -w[target] at the target class, scaled by the reduction."""
    batched = x.dim() > 1
    xs = x if batched else x.unsqueeze(0)
    t = target if batched else target.unsqueeze(0)
    safe_t = t.masked_fill(t == ignore_index, 0)
    w = weight[safe_t] if weight is not None else _T.ones(tuple(safe_t.shape), dtype=x.dtype, device=x.device)
    w = w * (t != ignore_index)
    if reduction == 1:  # mean
        w = w / total_weight
    g = grad if reduction != 0 else grad.reshape(tuple(t.shape))
    coeff = -(w * g)
    out = _T.zeros(tuple(xs.shape), dtype=x.dtype, device=x.device)
    out = out.scatter(1, safe_t.unsqueeze(1), coeff.unsqueeze(1))
    return out if batched else out.squeeze(0)


def layer_norm_backward(grad, x, normalized_shape, mean, rstd, weight, bias):
    """(d input, d weight, d bias) of native_layer_norm from its saved mean and rstd."""
    axes = tuple(range(x.dim() - len(normalized_shape), x.dim()))
    outer = tuple(range(x.dim() - len(normalized_shape)))
    xhat = (x - mean) * rstd
    gw = grad * weight if weight is not None else grad
    dx = rstd * (gw - gw.mean(axes, keepdim=True) - xhat * (gw * xhat).mean(axes, keepdim=True))
    dweight = (grad * xhat).sum(outer) if weight is not None else None
    dbias = grad.sum(outer) if bias is not None else None
    return dx, dweight, dbias


def var_backward(grad, x, dim, correction, keepdim):
    sizes = tuple(x.shape)
    g = restore_reduced_dims(grad, dim, keepdim, sizes)
    dims = None if dim is None else dim
    n = x.numel() if dims is None else _count(sizes, dims)
    c = 1 if correction is None else correction
    return (2.0 / max(n - c, 0)) * g * (x - x.mean(dims, keepdim=True) if dims is not None else x - x.mean())


def _count(sizes, dims):
    dims = [dims] if isinstance(dims, int) else list(dims)
    if not dims:
        dims = range(len(sizes))
    n = 1
    for d in dims:
        n *= sizes[d % len(sizes)]
    return n


def sdpa_backward(grad, query, key, value, attn_mask, dropout_p, is_causal, scale, logsumexp):
    """(dq, dk, dv) of softmax(q k^T * scale + mask) v, recomputing the probabilities from logsumexp."""
    E = query.shape[-1]
    s = scale if scale is not None else 1.0 / (E ** 0.5)
    scores = query.matmul(key.transpose(-2, -1)) * s
    L, S = scores.shape[-2], scores.shape[-1]
    if is_causal:
        keep = _T.ones(L, S, dtype=_T.bool, device=query.device).tril()
        scores = scores.masked_fill(keep.logical_not(), float("-inf"))
    if attn_mask is not None:
        scores = scores.masked_fill(attn_mask.logical_not(), float("-inf")) if attn_mask.dtype == _T.bool \
            else scores + attn_mask
    probs = (scores - logsumexp.unsqueeze(-1)).exp()
    dv = probs.transpose(-2, -1).matmul(grad)
    dprobs = grad.matmul(value.transpose(-2, -1))
    dscores = probs * (dprobs - (dprobs * probs).sum(-1, keepdim=True))
    dq = dscores.matmul(key) * s
    dk = dscores.transpose(-2, -1).matmul(query) * s
    return dq, dk, dv
