"""Helpers used by the backward formulas of ``derivatives/*.yaml`` — PyTorch's ``FunctionsManual.cpp``.

Formulas are Python expressions over public Tensors (``grad * other``), evaluated by the generated
Node classes; these helpers cover what one expression cannot say directly.  Broadcasting needs no
helper: the engine sums a gradient back to its input's shape (``validate_outputs``).  The math follows
PyTorch's formulas (same masks, tie rules and order of operations, so float32 results agree).

Invariant: every helper is built from differentiable operators (no in-place writes, no ``copy_``), so
double backward works.
"""

from __future__ import annotations

import cmath
import math

from .._core.dispatch_key import bit as _bit
from .._core.dispatch_key import tls as _tls
from .._core.shape import maybe_overlapping as _maybe_overlapping
from .._core.user_warning import warn as _warn
from .basic_ops import DelayedError
from .forward_grad import is_fw_grad_defined

__all__ = [
    # generic
    "maybe_multiply", "thnn_fused_lstm_cell_backward", "conj_scalar", "scalar_div", "zeros_like", "to_copy_backward",
    "zeros_like_grad", "where", "where_grad", "not_implemented",
    "trace_backward", "block_diag_backward", "nansum_backward", "warn_backwards",
    "tensor_list",
    "cat_grads", "pad_dim", "unsqueeze_dims", "restore_reduced_dims", "reshape_backward",
    # pointwise
    "div_self_backward", "div_other_backward", "pow_backward", "pow_backward_self", "pow_backward_exponent",
    "pow_scalar_backward_exponent", "ldexp_scale", "clamp_backward", "clamp_backward_min_max", "minmax_backward",
    "fminmax_backward", "atan2_recip", "copysign_backward", "xlogy_self_backward", "xlogy_scalar_other_backward",
    # reductions
    "sum_backward", "mean_backward", "expand_backward", "amax_backward", "evenly_distribute_backward",
    "value_selecting_backward", "cummaxmin_backward", "logsumexp_backward", "var_backward", "std_backward",
    "var_mean_backward",
    "std_mean_backward", "norm_backward", "prod_backward", "prod_dim_backward", "cumsum_backward",
    "cumprod_backward",
    # views and shapes
    "select_backward", "slice_backward", "slice_of", "slice_zeroed", "permute_backward", "diagonal_backward",
    "unfold_backward",
    "as_strided_backward", "as_strided_scatter_backward", "repeat_backward", "roll_backward", "constant_pad_backward",
    "reflection_pad_backward",
    "replication_pad_backward", "reflection_pad", "replication_pad", "circular_pad_backward", "cat_tensors_backward",
    "stack_tensors_backward",
    # indexing
    "gather_backward", "unsafe_masked_index_backward", "unsafe_masked_index_of", "index_select_backward",
    "index_backward", "aten_index", "aten_index_put",
    "masked_fill_value_backward", "masked_select_backward", "masked_scatter_source_backward", "take_backward",
    "index_source_backward", "index_fill_value_backward", "scatter_reduce_backward", "unsupported_double_backward",
    # activations, losses, normalisation, convolution, pooling
    "softmax_backward_data", "softmax_double_backward", "native_dropout_double_backward",
    "log_softmax_backward_data", "gelu_backward", "silu_backward", "mish_backward",
    "softplus_backward", "softplus_double_backward", "tanh_backward", "sigmoid_backward", "elu_backward",
    "elu_double_backward", "threshold_backward", "hardtanh_backward", "leaky_relu_backward",
    "hardsigmoid_backward", "hardswish_backward", "hardswish_double_backward", "hardshrink_backward",
    "softshrink_backward", "soft_margin_loss_backward", "rrelu_with_noise_backward", "pdist_backward",
    "log_sigmoid_backward", "log_sigmoid_double_backward", "glu_backward", "embedding_backward", "nll_loss_backward",
    "nll_loss_of_grad", "mse_loss_backward", "ctc_loss_backward",
    "smooth_l1_loss_backward", "huber_loss_backward", "bce_backward", "bce_target_backward", "bce_logits_backward",
    "bce_logits_target_backward", "layer_norm_backward", "layer_norm_jvp", "batch_norm_backward", "batch_norm_jvp",
    "group_norm_backward",
    "rms_norm_backward", "convolution_backward", "convolution_jvp", "trilinear_backward", "sdpa_backward",
    "gelu_double_backward",
]

_T = None  # glasstorch module, bound lazily by the generated nodes (formulas use the public API)


def bind(torch_module) -> None:
    global _T
    _T = torch_module


# -- generic ---------------------------------------------------------------------------------------------------
def maybe_multiply(grad, alpha):
    return grad if alpha == 1 else grad * alpha


def conj_scalar(x):
    """The conjugate of a Scalar argument (``Scalar::conj``), or of a Tensor argument that arrived as a Python
    number (Note [Wrapped numbers]); a real number is its own."""
    if isinstance(x, complex):
        return x.conjugate()
    return x.conj() if isinstance(x, _T.Tensor) else x


def zeros_like(t):
    return _T.zeros_like(t)


def to_copy_backward(grad, self_dtype):
    """PyTorch's ``_to_copy_backward``: a real input of a copy to complex takes the gradient's real part (no
    "discards the imaginary part" warning), then the input's dtype."""
    if grad.is_complex() and not self_dtype.is_complex:
        grad = _T.real(grad)
    return grad.to(self_dtype)


def zeros_like_grad(sizes, dtype, device):
    return _T.zeros(sizes, dtype=dtype, device=device)


def tensor_list(items):
    """A saved ``Tensor[]`` / ``Tensor?[]`` argument (TensorImpls) as public Tensors."""
    from . import graph

    return [x if x is None or isinstance(x, _T.Tensor) else graph.to_tensor(x) for x in items]


def not_implemented(name):
    """PyTorch's ``not_implemented("op")`` formula: the output requires grad, its backward raises."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


def warn_backwards(grad):
    """``_test_warn_in_autograd``'s derivative: the gradient unchanged, with a warning from inside backward."""
    _warn("Warn from backward (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/FunctionsManual.cpp:"
          "7122.)")
    return grad


def where(condition, a, b):
    return _T.where(condition, a, b)


def where_grad(mask, grad):
    """``where(mask, grad, 0)``: the gradient where ``mask`` holds, 0 elsewhere (NaN/inf grads stay put)."""
    return _T.where(mask, grad, _T.zeros((), dtype=grad.dtype, device=grad.device))


def pad_dim(t, dim, before, after, value=0.0):
    """``constant_pad_nd`` along one dimension (negative amounts crop)."""
    dim = dim % t.dim()
    pad = [0, 0] * (t.dim() - dim)
    pad[-2], pad[-1] = before, after
    return _T.constant_pad_nd(t, pad, value)


def _needs_graph(tensors) -> bool:
    return _T.is_grad_enabled() and any(t.requires_grad for t in tensors)


def cat_grads(grads, dim):
    """The gradient of a split (split, chunk, unbind ...): its outputs' gradients put back together."""
    return _T.cat(list(grads), dim)


def cat_tensors_backward(grad, sizes, dtypes, dim):
    """The pieces of ``grad`` that each ``cat`` input became (0-size 1-d inputs are skipped by cat)."""
    out, start = [], 0
    ndim = grad.dim()
    for s, dt in zip(sizes, dtypes, strict=True):
        if len(s) == 1 and s[0] == 0:
            out.append(_T.zeros(s, dtype=dt, device=grad.device))
            continue
        d = dim % ndim
        out.append(grad.narrow(d, start, s[d]).to(dt))
        start += s[d]
    return out


def stack_tensors_backward(grad, dim, dtypes):
    return [g.to(dt) for g, dt in zip(grad.unbind(dim), dtypes, strict=True)]


def unsqueeze_dims(grad, dims, ndim):
    for d in sorted(d % ndim for d in dims):
        grad = grad.unsqueeze(d)
    return grad


def _dims(dim, ndim):
    """The reduced dims of an ``int[1]?`` argument; None or [] mean all."""
    if dim is None:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return list(range(ndim)) if not dims else [d % max(ndim, 1) for d in dims]


def restore_reduced_dims(grad, dim, keepdim, sizes):
    """The gradient of a reduction, with the reduced dims put back as size 1."""
    ndim = len(sizes)
    if keepdim or ndim == 0:
        return grad
    return unsqueeze_dims(grad, _dims(dim, ndim), ndim)


def reshape_backward(grad, sizes):
    return grad.reshape(sizes)


def _sum_over(t, dims):
    """``t.sum(dims)``, where an empty ``dims`` sums nothing (``sum(())`` would reduce every dim)."""
    return t.sum(tuple(dims)) if len(dims) else t


def _safe_size(sizes, dims):
    n = 1
    for d in dims:
        n *= sizes[d]
    return n


# -- pointwise ---------------------------------------------------------------------------------------------------
def div_self_backward(grad, other, rounding_mode=None):
    if rounding_mode is not None:
        return _T.zeros_like(grad)
    return grad / conj_scalar(other)


def div_other_backward(grad, self, other, rounding_mode=None):
    if rounding_mode is not None:
        return _T.zeros_like(grad)
    return -grad * ((self / other) / other).conj()


def pow_backward(grad, self, exponent):
    if exponent == 0:
        return _T.zeros_like(self)
    e = exponent if isinstance(exponent, complex) else float(exponent)
    return grad * (e * self.pow(e - 1)).conj()


def pow_backward_self(grad, self, exponent):
    zero = _T.zeros((), dtype=grad.dtype, device=grad.device)
    return _T.where(exponent == 0.0, zero, grad * (exponent * self.pow(exponent - 1)).conj())


def pow_backward_exponent(grad, self, exponent, result):
    nonneg = _T.logical_and(exponent.imag == 0, exponent.real >= 0) if exponent.is_complex() else exponent >= 0
    cond = (self == 0).logical_and(nonneg)
    dtype = _T.result_type(self, exponent)
    zero = _T.zeros((), dtype=grad.dtype, device=grad.device)
    return grad * _T.where(cond, zero, (result * self.to(dtype).log()).conj())


def _log_scalar(b):
    b = float(b)
    return math.log(b) if b > 0 else (-math.inf if b == 0 else math.nan)


def pow_scalar_backward_exponent(grad, base, exponent, result):
    """PyTorch's ``pow_backward_exponent`` for a Scalar base: ``grad * conj(result * log(base))``, the log taken
    in complex when the exponent is complex (log(-1) = i pi, not NaN), 0 where base 0 meets a nonnegative
    exponent."""
    if base == 0:
        zero = _T.zeros((), dtype=grad.dtype, device=grad.device)
        nonneg = _T.logical_and(exponent.imag == 0, exponent.real >= 0) if exponent.is_complex() else exponent >= 0
        return grad * _T.where(nonneg, zero, result * -math.inf).conj()
    log_base = cmath.log(complex(base)) if exponent.is_complex() or isinstance(base, complex) else _log_scalar(base)
    return grad * (result * log_base).conj()


def clamp_backward(grad, self, min, max):  # noqa: A002 - PyTorch's argument names
    if min is not None and max is not None:
        return where_grad((self >= min).logical_and(self <= max), grad)
    if min is not None:
        return where_grad(self >= min, grad)
    if max is not None:
        return where_grad(self <= max, grad)
    return grad


def clamp_backward_min_max(grad, self, min, max):  # noqa: A002
    """(d min, d max) of clamp.Tensor: a bound gets the gradient where it is the value taken."""
    if min is not None and max is not None:
        gmin = where_grad((self < min).logical_and(min < max), grad)
        gmax = where_grad((self > max).logical_or(max < min), grad)
        return gmin, gmax
    if min is not None:
        return where_grad(self < min, grad), None
    if max is not None:
        return None, where_grad(self > max, grad)
    return None, None


def minmax_backward(grad, x, other, is_max):
    """maximum/minimum: the gradient goes to the winner; ties split it in half (PyTorch's rule)."""
    loses = (x < other) if is_max else (x > other)
    return _T.where(x == other, grad / 2, grad).masked_fill(loses, 0)


def fminmax_backward(grad, x, other, is_max, for_self):
    """fmax/fmin: like maximum/minimum but NaN loses and ties go to ``self``."""
    takes_self = ((x >= other) if is_max else (x <= other)).logical_or(other.isnan())
    return grad.masked_fill(takes_self.logical_not() if for_self else takes_self, 0)


def atan2_recip(self, other):
    """``1 / (self^2 + other^2)`` for atan2's gradients, 0 where that is infinite (the origin): PyTorch's
    gradient there is 0, not 0 * inf = NaN."""
    recip = (self * self + other * other).reciprocal()
    return recip.masked_fill(recip.isinf(), 0)


def copysign_backward(grad, self, result):
    ratio = (result / self).masked_fill(self == 0, 0)
    return grad * ratio


def xlogy_self_backward(grad, self, other):
    if not isinstance(other, _T.Tensor):
        return xlogy_scalar_other_backward(grad, self, other)
    return _T.xlogy(grad, other).masked_fill((self == 0.0).logical_and(other <= 0.0), 0.0)


def xlogy_scalar_other_backward(grad, self, other):
    out = _T.xlogy(grad, other)
    return out if other > 0 else out.masked_fill(self == 0.0, 0.0)


# -- reductions --------------------------------------------------------------------------------------------------
def sum_backward(grad, sizes, dim, keepdim):
    return restore_reduced_dims(grad, dim, keepdim, sizes).expand(sizes)


def mean_backward(grad, sizes, dim, numel, keepdim):
    all_reduce = dim is None or (not isinstance(dim, int) and len(dim) == 0)
    n = numel if all_reduce else _safe_size(sizes, _dims(dim, len(sizes))) if sizes else 1
    return sum_backward(grad, sizes, dim, keepdim) / n


def expand_backward(grad, sizes):
    sizes = tuple(sizes)
    lead = grad.dim() - len(sizes)
    if lead:
        grad = grad.sum(tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(sizes) if s == 1 and grad.shape[i] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad


def amax_backward(grad, x, dim, keepdim, result):
    """amax/amin: the gradient is shared evenly by the elements equal to the result."""
    sizes = tuple(x.shape)
    g = restore_reduced_dims(grad, dim, keepdim, sizes)
    mask = restore_reduced_dims(result, dim, keepdim, sizes) == x
    if x.dim() == 0:
        return g * mask
    return (g / mask.sum(_dims(dim, x.dim()), keepdim=True)) * mask


def evenly_distribute_backward(grad, x, value):
    """max()/min() of all elements: the gradient is shared by every element equal to the result."""
    mask = (x == value).logical_or(x.isnan().logical_and(value.isnan()))
    return mask * (grad / mask.sum())


def cummaxmin_backward(grad, self, indices, dim):
    """cummax/cummin: each position's gradient goes to the index whose value it carried (summed)."""
    if self.numel() == 0:
        return zeros_like(self)
    return _T.zeros_like(self).scatter_add(dim, indices, grad)


def value_selecting_backward(grad, dim, indices, sizes, keepdim):
    """max(dim)/min(dim)/sort/topk/kthvalue values: scatter the gradient back to the selected positions."""
    if not len(sizes):
        return grad.reshape(sizes)
    if not keepdim:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    out = _T.zeros(sizes, dtype=grad.dtype, device=grad.device)
    return out.scatter(dim, indices, grad)


def logsumexp_backward(grad, x, result, dim, keepdim):
    sizes = tuple(x.shape)
    g = restore_reduced_dims(grad, dim, keepdim, sizes)
    r = restore_reduced_dims(result, dim, keepdim, sizes)
    return g * (x - r).exp().conj()  # the conjugate Wirtinger gradient for complex inputs


def var_backward(grad, x, dim, correction, keepdim):
    c = 1 if correction is None else correction
    if x.dim() == 0 or dim is None:
        dof = x.numel() - c
        if dof <= 0:
            return grad * _T.where(x == x.mean(), math.nan, math.inf)
        return (2.0 / dof) * grad * (x - x.mean())
    dims = _dims(dim, x.dim())
    if not keepdim and x.dim() > 1:
        grad = unsqueeze_dims(grad, dims, x.dim())
    n = _safe_size(tuple(x.shape), [dim] if isinstance(dim, int) else list(dim))
    scale = 2.0 / (n - c) if n != c else math.inf  # C++ double division: 2 / 0 is inf
    return scale * grad * (x - x.mean(dims, keepdim=True))


def std_backward(result, grad, x, dim, correction, keepdim):
    grad_var = (grad / (result * 2)).masked_fill(result == 0, 0)
    return var_backward(grad_var, x, dim, correction, keepdim)


def _mean_part(out, gmean, x, dim, keepdim):
    """``out`` plus the gradient through the mean output; an undefined (None) grad contributes nothing."""
    if gmean is None:
        return out
    part = mean_backward(gmean, tuple(x.shape), dim, x.numel(), keepdim)
    return part if out is None else out + part


def var_mean_backward(gvar, gmean, x, dim, correction, keepdim):
    out = None if gvar is None else var_backward(gvar, x, dim, correction, keepdim)
    return _mean_part(out, gmean, x, dim, keepdim)


def std_mean_backward(gstd, gmean, x, std, dim, correction, keepdim):
    out = None if gstd is None else std_backward(std, gstd, x, dim, correction, keepdim)
    return _mean_part(out, gmean, x, dim, keepdim)


def norm_backward(grad, x, p, norm, dim=(), keepdim=False):
    """p-norm (norm, linalg_vector_norm): PyTorch's case split on p (0, 1, 2, inf, <1, <2, other)."""
    p = 2.0 if p is None else float(p)
    ndim = x.dim()
    dims = [] if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if not keepdim and ndim != 0:
        grad = unsqueeze_dims(grad, dims, ndim)
        norm = unsqueeze_dims(norm, dims, ndim)
    if p == 0.0:
        return None  # PyTorch returns an undefined gradient: the 0-"norm" counts nonzeros
    if p == 1.0:
        return x.sgn() * grad
    if p == 2.0:
        return grad * (x / norm).masked_fill(norm == 0, 0)
    if math.isinf(p):
        xa = x.abs()
        mask = xa.eq(norm).logical_or(xa.isnan())
        count = mask.sum(_dims(dims, ndim), keepdim=True) if ndim else mask.sum()
        return x.sgn() * ((grad / count) * mask)
    if p < 1.0:
        scaled = x.sgn() * x.abs().pow(p - 1).masked_fill(x == 0, 0)
        return scaled * grad * norm.pow(1 - p)
    if p < 2.0:
        scaled = x.sgn() * x.abs().pow(p - 1)
    else:
        scaled = x * x.abs().pow(p - 2)
    scale = (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0)
    return scaled * scale


def _exclusive_cumprod(x, dim, reverse=False):
    """prod of the elements before each one along ``dim`` (after it, with ``reverse``); no division."""
    n = x.shape[dim]
    if reverse:
        return _exclusive_cumprod(x.flip(dim), dim).flip(dim)
    return pad_dim(x.narrow(dim, 0, n - 1), dim, 1, 0, 1.0).cumprod(dim)


def _prod_safe_zeros_backward(grad, x, dim):
    if x.numel() == 0:
        return grad.expand_as(x)
    if x.shape[dim] == 1:  # the product of no other element: the gradient itself, as torch (no graph through x)
        return grad
    return grad * (_exclusive_cumprod(x, dim) * _exclusive_cumprod(x, dim, reverse=True)).conj()


_PYTHON_KEY = _bit("Python")


def _subclass_like(*ts) -> bool:
    """PyTorch's ``isTensorSubclassLike``: a dispatch mode is on (make_fx, FakeTensorMode) or a tensor takes the
    Python key (a FakeTensor) or lives on ``meta``.  Such tensors have no values to test, so formulas that pick
    a path by reading values (a zero check) take their value-independent path instead."""
    if _tls.included & _PYTHON_KEY:
        return True
    return any(t._impl.key_set & _PYTHON_KEY or t.device.type == "meta" for t in ts)


def prod_backward(grad, x, result):
    if x.dim() == 0:
        return grad
    if _subclass_like(grad, x, result):
        return _prod_safe_zeros_backward(grad, x.contiguous().view(-1), 0).view_as(x)
    if not bool((x == 0).any()):
        return grad * (result / x).conj()
    flat = x.contiguous().view(-1)
    return _prod_safe_zeros_backward(grad, flat, 0).view_as(x)


def prod_dim_backward(grad, x, result, dim, keepdim):
    if x.dim() == 0:
        return grad
    dim = dim % x.dim()
    if not keepdim:
        grad, result = grad.unsqueeze(dim), result.unsqueeze(dim)
    if not _subclass_like(grad, x, result) and not bool((x == 0).any()):
        return grad * (result / x).conj()
    return _prod_safe_zeros_backward(grad, x, dim)


def _reversed_cumsum(t, dim):
    return t.flip(dim).cumsum(dim).flip(dim)


def cumsum_backward(grad, dim):
    if grad.numel() <= 1 or grad.dim() == 0 or grad.shape[dim] == 1:
        return grad
    return _reversed_cumsum(grad, dim)


def cumprod_backward(grad, x, dim, result):
    """d/dx_j of cumprod = sum_{k>=j} g_k prod_{i<=k, i!=j} x_i; divides only when no input is zero (known
    only for real values: fakes take the division-free path)."""
    if x.numel() <= 1 or x.dim() == 0:
        return grad
    dim = dim % x.dim()
    if x.shape[dim] == 1:  # cumprod along a size-1 dim is the identity: the gradient as it came (PyTorch's rule)
        return grad
    if not _subclass_like(grad, x, result) and not bool((x == 0).any()):
        return _reversed_cumsum(result.conj() * grad, dim) / x.conj()
    # h_j = g_j + conj(x_{j+1}) h_{j+1} (Horner from the end); grad_j = conj(prod_{i<j} x_i) * h_j
    n = x.shape[dim]
    xc = x.conj()
    hs = [grad.narrow(dim, n - 1, 1)]
    for j in range(n - 2, -1, -1):
        hs.append(grad.narrow(dim, j, 1) + xc.narrow(dim, j + 1, 1) * hs[-1])
    h = _T.cat(hs[::-1], dim)
    return _exclusive_cumprod(x, dim).conj() * h


# -- views and shapes -------------------------------------------------------------------------------------------
def select_backward(grad, sizes, dim, index):
    dim = dim % len(sizes)
    index = index % sizes[dim]
    return pad_dim(grad.unsqueeze(dim), dim, index, sizes[dim] - index - 1)


def slice_of(grad, dim, start, end, step):
    """``grad[..., start:end:step, ...]`` along ``dim`` (the public ``aten.slice``)."""
    return grad[(slice(None),) * (dim % grad.dim()) + (slice(start, end, step),)]


def slice_zeroed(grad, dim, start, end, step):
    """``grad`` with the slice ``[start:end:step]`` of ``dim`` set to 0 (what ``slice_inverse``'s src gets)."""
    out = grad.clone()
    out[(slice(None),) * (dim % grad.dim()) + (slice(start, end, step),)] = 0
    return out


def slice_backward(grad, sizes, dim, start, end, step):
    dim = dim % len(sizes)
    positions = range(*slice(start, end, step).indices(sizes[dim]))
    if step == 1:
        n = len(positions)
        first = positions.start if n else 0
        return pad_dim(grad, dim, first, sizes[dim] - first - n)
    out = _T.zeros(sizes, dtype=grad.dtype, device=grad.device)
    index = _T.tensor(list(positions), dtype=_T.int64, device=grad.device)
    return out.index_add(dim, index, grad)


def permute_backward(grad, dims):
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return grad.permute(inverse)


def diagonal_backward(grad, sizes, offset, dim1, dim2):
    ndim = len(sizes)
    d1, d2 = dim1 % ndim, dim2 % ndim
    out = grad.diag_embed(offset, d1, d2)
    for d in (d1, d2):
        out = pad_dim(out, d, 0, sizes[d] - out.shape[d])
    return out


def unfold_backward(grad, sizes, dim, size, step):
    if len(sizes) == 0:
        return grad.reshape(sizes)
    dim = dim % len(sizes)
    windows = grad.shape[dim]
    positions = [w * step + k for w in range(windows) for k in range(size)]
    g = grad.movedim(-1, dim + 1).flatten(dim, dim + 1)
    index = _T.tensor(positions, dtype=_T.int64, device=grad.device)
    out = _T.zeros(sizes, dtype=grad.dtype, device=grad.device)
    return out.index_add(dim, index, g)


def _storage_indices(sizes, strides, offset, device):
    idx = _T.full((), offset, dtype=_T.int64, device=device)
    for d, (n, s) in enumerate(zip(sizes, strides, strict=True)):
        shape = [1] * len(sizes)
        shape[d] = n
        idx = idx + _T.arange(n, dtype=_T.int64, device=device).reshape(shape) * s
    return idx.expand(tuple(sizes)).reshape(-1)


def ldexp_scale(other):
    """``2 ** other`` with an integer 2, as ldexp's backward writes it (``at::pow(2, other)``)."""
    return _T.pow(2, other)


def as_strided_scatter_backward(grad, self_geometry, src_geometry, size, stride, storage_offset):
    """(self's, src's) gradients of ``as_strided_scatter`` exactly as PyTorch 2.13 computes them: ``self`` is taken
    to be contiguous (Note [as_strided_scatter backward support]) and ``grad`` is made contiguous; both gradients
    are ``grad`` read through the scattered geometry, self's placed there in zeros (PyTorch keeps the scattered
    positions, not the others: that is the oracle's result, kept here)."""
    g = grad.contiguous()
    self_sizes, self_strides, _ = self_geometry
    buf = _T.zeros(self_sizes, dtype=grad.dtype, device=grad.device)
    self_grad = buf.as_strided(self_sizes, self_strides)
    buf.as_strided(size, stride, storage_offset).copy_(g.as_strided(size, stride, storage_offset))
    src_grad = _T.zeros(src_geometry[0], dtype=grad.dtype, device=grad.device)
    src_grad.copy_(g.as_strided(size, stride, storage_offset))
    return self_grad, src_grad


def as_strided_backward(grad, geometry, size, stride, storage_offset):
    """Scatter the gradient onto the input's storage positions, then read the input's geometry back (shared
    spots averaged where the input's geometry overlaps itself).  Only the input's geometry (sizes, strides, offset)
    is saved, as PyTorch's TensorGeometry: writing into the input later does not invalidate this backward."""
    x_sizes, x_strides, x_offset = geometry
    dev = grad.device
    off = x_offset if storage_offset is None else storage_offset
    out_idx = _storage_indices(size, stride, off, dev)
    in_idx = _storage_indices(x_sizes, x_strides, x_offset, dev)
    length = 1 + max([int(out_idx.max()) if out_idx.numel() else 0, int(in_idx.max()) if in_idx.numel() else 0])
    buf = _T.zeros(length, dtype=grad.dtype, device=dev).index_add(0, out_idx, grad.reshape(-1))
    if not _maybe_overlapping(x_sizes, x_strides):  # PyTorch divides by the counts only where the input overlaps
        return buf.index_select(0, in_idx).reshape(x_sizes)
    count = _T.zeros(length, dtype=grad.dtype, device=dev).index_add(0, in_idx, _T.ones(in_idx.shape, dtype=grad.dtype,
                                                                                          device=dev))
    return (buf.index_select(0, in_idx) / count.index_select(0, in_idx)).reshape(x_sizes)


def repeat_backward(grad, repeats, sizes):
    if any(r == 0 for r in repeats):
        return _T.zeros(sizes, dtype=grad.dtype, device=grad.device)
    lead = grad.dim() - len(sizes)
    if lead:
        grad = grad.sum(tuple(range(lead)))
    shape, dims = [], []
    for d, n in enumerate(sizes):
        r = repeats[d + lead]
        if r != 1:
            shape.append(r)
            dims.append(len(shape) - 1)
        shape.append(n)
    grad = grad.reshape(shape)
    return grad.sum(dims) if dims else grad


def roll_backward(grad, shifts, dims):
    return grad.roll([-s for s in reversed(list(shifts))], list(reversed(list(dims))))


def constant_pad_backward(grad, pad):
    return _T.constant_pad_nd(grad, [-p for p in pad])


def _pad_backward(grad, sizes, padding, source_index):
    """Reflection/replication padding: each output position reads one input position along each padded dim."""
    for k in range(len(padding) // 2):
        dim = grad.dim() - 1 - k
        n = sizes[dim]
        left = padding[2 * k]
        index = [source_index(j - left, n) for j in range(grad.shape[dim])]
        index = _T.tensor(index, dtype=_T.int64, device=grad.device)
        shape = list(grad.shape)
        shape[dim] = n
        grad = _T.zeros(shape, dtype=grad.dtype, device=grad.device).index_add(dim, index, grad)
    return grad


def reflection_pad(grad, padding):
    """The ``reflection_pad<n>d`` operator on a gradient (the derivative of its backward)."""
    return getattr(_T.ops.aten, f"reflection_pad{len(padding) // 2}d").default(grad, padding)


def replication_pad(grad, padding):
    return getattr(_T.ops.aten, f"replication_pad{len(padding) // 2}d").default(grad, padding)


def reflection_pad_backward(grad, self, padding):
    """The ``reflection_pad<n>d_backward`` operator (differentiable again: ReflectionPad1DBackwardBackward0 ...)."""
    return getattr(_T.ops.aten, f"reflection_pad{len(padding) // 2}d_backward").default(grad, self, padding)


def replication_pad_backward(grad, self, padding):
    """The ``replication_pad<n>d_backward`` operator (differentiable again)."""
    return getattr(_T.ops.aten, f"replication_pad{len(padding) // 2}d_backward").default(grad, self, padding)


def circular_pad_backward(grad, sizes, padding):
    return _pad_backward(grad, sizes, padding, lambda i, n: i % n)


# -- indexing ---------------------------------------------------------------------------------------------------
def unsafe_masked_index_backward(self, mask, indices, grad):
    """``_unsafe_masked_index``'s gradient: ``grad`` accumulated back where the mask held."""
    return _T.ops.aten._unsafe_masked_index_put_accumulate(_T.zeros_like(self), mask, indices, grad)


def unsafe_masked_index_of(grad, mask, indices):
    return _T.ops.aten._unsafe_masked_index(grad, mask, indices, 0)


def gather_backward(grad, sizes, dim, index):
    return _T.zeros(sizes, dtype=grad.dtype, device=grad.device).scatter_add(dim, index, grad)


def index_select_backward(grad, sizes, dim, index):
    out = _T.zeros(sizes, dtype=grad.dtype, device=grad.device)
    if len(sizes) == 0:
        return out + grad.reshape(sizes)
    return out.index_add(dim, index.reshape(-1) if index.dim() == 0 else index, grad)


def aten_index(t, indices):
    """``t[indices]`` with aten's meaning of a ``Tensor?[]`` list (None: the whole dim)."""
    return _T.ops.aten.index.Tensor(t, tensor_list(indices))


def aten_index_put(t, indices, values, accumulate):
    return _T.ops.aten.index_put(t, tensor_list(indices), values, accumulate)


def index_backward(grad, sizes, indices):
    return aten_index_put(_T.zeros(sizes, dtype=grad.dtype, device=grad.device), indices, grad, True)


def masked_fill_value_backward(grad, mask):
    return where_grad(mask, grad).sum()


def masked_select_backward(grad, sizes, mask):
    shape = _T.broadcast_shapes(tuple(sizes), tuple(mask.shape))
    return _T.zeros(shape, dtype=grad.dtype, device=grad.device).masked_scatter(mask, grad)


def masked_scatter_source_backward(grad, mask, sizes):
    numel = 1
    for s in sizes:
        numel *= s
    selected = grad.masked_select(mask)
    missing = numel - selected.numel()
    if missing > 0:
        selected = _T.constant_pad_nd(selected, [0, missing])
    return selected.view(sizes)


def take_backward(grad, sizes, index):
    n = 1
    for d in sizes:
        n *= d
    flat = index.reshape(-1)
    flat = _T.where(flat < 0, flat + n, flat)
    out = _T.zeros(n, dtype=grad.dtype, device=grad.device).index_add(0, flat, grad.reshape(-1))
    return out.reshape(tuple(sizes))


def index_source_backward(grad, dim, index, source_sizes):
    """index_add/index_copy source: the rows of grad that the source rows went to."""
    if len(source_sizes) > 0:
        return grad.index_select(dim, index).expand(tuple(source_sizes))
    return grad.index_select(dim, index.squeeze(0))


def index_fill_value_backward(grad, dim, index):
    return grad.index_select(dim, _T.unique(index.reshape(-1))).sum()


def unsupported_double_backward(msg: str, grad):
    """``grad`` as it is, but differentiating it again raises ``msg`` (PyTorch wraps such a gradient in a
    ``DelayedError`` node where its formula is only right to first order)."""
    return DelayedError(msg, 1)(grad)


def scatter_reduce_backward(grad, x, dim, index, src, reduce, include_self, result):
    """(d self, d src) of scatter_reduce for sum / prod / mean / amax / amin."""
    if reduce == "sum":
        gself, gsrc = grad, grad.gather(dim, index)
    elif reduce == "prod":
        masked_self = x.masked_fill(x == 0, 1)
        masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce, include_self=include_self)
        gself = grad * masked_self_result / masked_self
        src_zero = src == 0
        src_num_zeros = _T.zeros_like(grad).scatter_add(dim, index, src_zero.to(grad.dtype)).gather(dim, index)
        src_single_zero = src_zero.logical_and(src_num_zeros == 1)
        masked_src = src.masked_fill(src_single_zero, 1)
        masked_src_result = x.scatter_reduce(dim, index, masked_src, reduce, include_self=include_self)
        gsrc = _T.where(src_single_zero, (grad * masked_src_result).gather(dim, index),
                        (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
        if _T.is_grad_enabled() and bool((src_num_zeros > 1).any()):  # only a graph being built can refuse
            gsrc = unsupported_double_backward("scatter_reduce(): Double backward is unsupported for src when >1 "
                                               "zeros in src are scattered to the same position in self", gsrc)
    elif reduce == "mean":
        n = _T.ones_like(grad) if include_self else _T.zeros_like(grad)
        n = n.scatter_add(dim, index, _T.ones_like(src))
        n = n.masked_fill(n == 0, 1)
        gself = grad / n
        gsrc = grad.gather(dim, index) / n.gather(dim, index)
    elif reduce in ("amax", "amin"):
        value = result.gather(dim, index)
        self_is_result = (x == result).to(grad.dtype)
        src_is_result = (src == value).to(grad.dtype)
        distributed = grad / self_is_result.scatter_add(dim, index, src_is_result)
        gself = (x == result) * distributed
        gsrc = (src == value) * distributed.gather(dim, index)
    else:
        raise RuntimeError(f"the derivative of scatter_reduce with reduce={reduce!r} is not implemented.")
    if not include_self:
        gself = gself.scatter(dim, index, 0)
    return gself, gsrc


def scalar_div(value, t):
    """ATen's C++ ``Scalar / Tensor`` operator (TensorOperators.h), as PyTorch's formulas write it: the number is
    stored into a tensor like ``t`` (rounded to its dtype) and divided by ``t`` in place."""
    return _T.empty_like(t).fill_(value).div_(t)


# -- activations ------------------------------------------------------------------------------------------------
_SQRT_2 = 2 ** 0.5
_SQRT_2_OVER_PI = (2 / math.pi) ** 0.5
_INV_SQRT_2PI = 1 / (2 * math.pi) ** 0.5


def softmax_backward_data(grad, output, dim, input_dtype):
    """The ``_softmax_backward_data`` operator (differentiable again through its own entry)."""
    return _T.ops.aten._softmax_backward_data.default(grad, output, dim, input_dtype)


def softmax_double_backward(grad, grad_output, dim, output):
    """``_softmax_backward_data``'s gradient with respect to ``output`` (PyTorch's FunctionsManual)."""
    return (grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad
            - grad_output * (output * grad).sum(dim, keepdim=True))


def native_dropout_double_backward(grad, grad_output, mask, scale):
    """``native_dropout_backward``'s gradient: ``grad * mask * scale`` in grad_output's dtype."""
    return grad.type_as(grad_output) * (mask.type_as(grad_output) * scale)


def log_softmax_backward_data(grad, output, dim, input_dtype):
    """The ``_log_softmax_backward_data`` operator (differentiable again through its own entry)."""
    return _T.ops.aten._log_softmax_backward_data.default(grad, output, dim, input_dtype)


def gelu_backward(grad, x, approximate):
    """The ``gelu_backward`` operator: one fused kernel, differentiable again through its own entry."""
    return _T.ops.aten.gelu_backward.default(grad, x, approximate=approximate)


def gelu_double_backward(ggx, grad, x, approximate):
    """d/dx of ``gelu_backward(grad, x)``: ``ggx * grad * gelu''(x)`` (PyTorch's ``gelu_double_backward``)."""
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
        t = inner.tanh()
        sech = 1 / inner.cosh()
        d_inner = _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
        half_x = 0.5 * x
        one_minus_t2 = 1 - t * t
        f_prime_gh = 0.5 * one_minus_t2 * d_inner  # d(x/2)/dx * tanh' * inner'
        g_prime_fh = half_x * d_inner * ((2 * sech) * (-sech * t) * d_inner)
        h_prime_fg = half_x * one_minus_t2 * (6 * 0.044715 * x * _SQRT_2_OVER_PI)
        return ggx * grad * (f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg)
    x_sq = x * x
    pdf = (-0.5 * x_sq).exp() * _INV_SQRT_2PI
    return ggx * grad * (2 * pdf - x_sq * pdf)


def silu_backward(grad, x):
    """PyTorch's choice: with grad mode on (create_graph) the differentiable formula of
    ``infinitely_differentiable_silu_backward``, else the fused ``silu_backward`` kernel."""
    if _T.is_grad_enabled():
        s = x.sigmoid()
        return grad * s * (1 + x * (1 - s))
    return _T.ops.aten.silu_backward.default(grad, x)


def mish_backward(grad, x):
    """As :func:`silu_backward`: ``infinitely_differentiable_mish_backward`` or the fused ``mish_backward``."""
    if _T.is_grad_enabled():
        s = x.sigmoid()
        t = x.exp().log1p().tanh()
        return grad * (t + x * s * (1 - t * t))
    return _T.ops.aten.mish_backward.default(grad, x)


def tanh_backward(grad, result):
    """The ``tanh_backward`` operator, differentiable again through its own entry (TanhBackwardBackward0)."""
    return _T.ops.aten.tanh_backward.default(grad, result)


def sigmoid_backward(grad, result):
    """The ``sigmoid_backward`` operator, differentiable again (SigmoidBackwardBackward0)."""
    return _T.ops.aten.sigmoid_backward.default(grad, result)


def softplus_backward(grad, x, beta, threshold):
    """The ``softplus_backward`` operator, differentiable again through its own entry (SoftplusBackwardBackward0)."""
    return _T.ops.aten.softplus_backward.default(grad, x, beta, threshold)


def softplus_double_backward(grad, x, beta, threshold):
    """d/dx of softplus_backward: the sigmoid's derivative at ``beta * x`` times beta, zero from ``beta * x >=
    threshold`` on (PyTorch's strict ``<``: at the threshold itself the first derivative is still the smooth one)."""
    bx = x * beta
    s = bx.sigmoid()
    # the last step a Tensor * Scalar product, as in PyTorch's C++ formula (MulBackward1 under create_graph)
    return _T.ops.aten.mul.Scalar(grad * s * (1 - s) * (bx < threshold).to(grad.dtype), beta)


def elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result):
    """The ``elu_backward`` operator (differentiable again: EluBackwardBackward0)."""
    return _T.ops.aten.elu_backward.default(grad, alpha, scale, input_scale, is_result, self_or_result)


def elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result):
    """d/d self_or_result of ``elu_backward``: zero where it is positive (PyTorch's elu_double_backward)."""
    negative = (self_or_result < 0).to(grad.dtype)
    if is_result:
        return grad * grad_output * input_scale * negative
    return elu_backward(grad * grad_output * input_scale, alpha, scale, input_scale, is_result,
                        self_or_result) * negative


def threshold_backward(grad, x, threshold):
    """The ``threshold_backward`` operator (``x <= threshold ? 0 : grad``), differentiable again through its own
    entry (ThresholdBackwardBackward0), as relu's gradient is in PyTorch."""
    return _T.ops.aten.threshold_backward.default(grad, x, threshold)


def hardtanh_backward(grad, x, min_val, max_val):
    """The ``hardtanh_backward`` operator (differentiable again: HardtanhBackwardBackward0)."""
    return _T.ops.aten.hardtanh_backward.default(grad, x, min_val, max_val)


def rrelu_with_noise_backward(grad, x, noise, lower, upper, training):
    """``grad * noise`` after a training forward (the slopes it drew), else leaky_relu's at the mean slope."""
    if training and upper - lower > 1e-6:
        return grad * noise
    return _T.ops.aten.leaky_relu_backward.default(grad, x, (lower + upper) / 2, False)


def hardshrink_backward(grad, x, lambd):
    """The ``hardshrink_backward`` operator (differentiable again: HardshrinkBackwardBackward0)."""
    return _T.ops.aten.hardshrink_backward.default(grad, x, lambd)


def softshrink_backward(grad, x, lambd):
    """The ``softshrink_backward`` operator (differentiable again: SoftshrinkBackwardBackward0)."""
    return _T.ops.aten.softshrink_backward.default(grad, x, lambd)


def leaky_relu_backward(grad, x, negative_slope, self_is_result):
    """The ``leaky_relu_backward`` operator (differentiable again: LeakyReluBackwardBackward0)."""
    return _T.ops.aten.leaky_relu_backward.default(grad, x, negative_slope, self_is_result)


def hardsigmoid_backward(grad, x):
    """The ``hardsigmoid_backward`` operator (no derivative of its own, as in PyTorch)."""
    return _T.ops.aten.hardsigmoid_backward.default(grad, x)


def hardswish_backward(grad, x):
    """The ``hardswish_backward`` operator (differentiable again: HardswishBackwardBackward0)."""
    return _T.ops.aten.hardswish_backward.default(grad, x)


def hardswish_double_backward(grad, grad_output, x):
    """d/dx of ``hardswish_backward``: ``grad * grad_output / 3`` strictly inside (-3, 3), else 0 (PyTorch's)."""
    zero = _T.zeros((), dtype=x.dtype, device=x.device)
    return _T.where(_T.logical_and(-3.0 < x, x < 3.0), grad * grad_output / 3.0, zero)


def log_sigmoid_backward(grad, x, buffer):
    """The ``log_sigmoid_backward`` operator (differentiable again: LogSigmoidBackwardBackward0)."""
    return _T.ops.aten.log_sigmoid_backward.default(grad, x, buffer)


def log_sigmoid_double_backward(grad, x):
    """d/dx of ``log_sigmoid_backward``: ``grad * sigmoid(x) * (sigmoid(x) - 1)`` (PyTorch's formula)."""
    z = x.sigmoid()
    return grad * (z - 1) * z


def glu_backward(grad, x, dim):
    a, b = x.chunk(2, dim)
    sb = b.sigmoid()
    return _T.cat([grad * sb, grad * a * sb * (1 - sb)], dim)


# -- embedding and losses ------------------------------------------------------------------------------------------
def embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq=False, sparse=False):
    if sparse:
        return embedding_sparse_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq)
    d = grad.shape[-1]
    flat = indices.reshape(-1)
    g = grad.reshape(-1, d)
    if scale_grad_by_freq:
        counts = _T.zeros(num_weights, dtype=grad.dtype, device=grad.device).index_add(
            0, flat, _T.ones(flat.shape, dtype=grad.dtype, device=grad.device))
        g = g / counts.index_select(0, flat).unsqueeze(1)
    if padding_idx is not None and padding_idx >= 0:
        g = g * (flat != padding_idx).unsqueeze(1)
    out = _T.zeros(num_weights, d, dtype=grad.dtype, device=grad.device)
    return out.index_add(0, flat, g)


def embedding_sparse_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """A COO gradient of the weight: one row of ``grad`` per looked-up index, the padding index's rows left out
    (uncoalesced, as PyTorch's)."""
    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    d = grad.shape[-1]
    flat = indices.reshape(-1)
    values = grad.reshape(-1, d)
    if padding_idx is not None and padding_idx != -1:
        keep = flat != padding_idx
        flat, values = flat[keep], values[keep]
    return _T.sparse_coo_tensor(flat.reshape(1, -1).long(), values, (num_weights, d), check_invariants=False)


def nll_loss_backward(grad, x, target, weight, reduction, ignore_index, total_weight):
    """The ``nll_loss_backward`` / ``nll_loss2d_backward`` operator (4-d inputs), differentiable again."""
    op = _T.ops.aten.nll_loss2d_backward if x.dim() == 4 else _T.ops.aten.nll_loss_backward
    return op.default(grad, x, target, weight, reduction, ignore_index, total_weight)


def ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, nll, log_alpha, blank, zero_infinity):
    """The ``_ctc_loss_backward`` operator (its ``.Tensor`` overload when the lengths are tensors)."""
    return _T.ops.aten._ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, nll, log_alpha,
                                          blank, zero_infinity)


def nll_loss_of_grad(grad, target, weight, reduction, ignore_index):
    """The derivative of the NLL backward in its ``grad_output``: the same loss, of the gradient."""
    op = _T.ops.aten.nll_loss2d_forward if grad.dim() == 4 else _T.ops.aten.nll_loss_forward
    return op.default(grad, target, weight, reduction, ignore_index)[0]


_DTYPE_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half", "bfloat16": "BFloat16"}


def _check_same_dtype(x, *others):
    """PyTorch's elementwise loss-backward kernels take one dtype ("Found dtype Double but expected Float")."""
    for o in others:
        if o.dtype != x.dtype:
            found = str(o.dtype).removeprefix("torch.")
            want = str(x.dtype).removeprefix("torch.")
            found, want = _DTYPE_NAMES.get(found, found), _DTYPE_NAMES.get(want, want)
            raise RuntimeError(f"Found dtype {found} but expected {want}")


def _loss_norm(reduction, numel):
    return 1.0 / numel if reduction == 1 else 1.0


def mse_loss_backward(grad, x, target, reduction):
    norm = 2.0 / x.numel() if reduction == 1 else 2.0
    return norm * (x - target) * grad


def smooth_l1_loss_backward(grad, x, target, reduction, beta):
    norm = _loss_norm(reduction, x.numel())
    d = x - target
    if beta == 0:
        return norm * d.sign() * grad
    return _T.where(d < -beta, -norm * grad, _T.where(d > beta, norm * grad, norm * d * grad / beta))


def huber_loss_backward(grad, x, target, reduction, delta):
    _check_same_dtype(x, grad, target)
    norm = _loss_norm(reduction, x.numel())
    d = x - target
    return _T.where(d < -delta, -norm * grad * delta, _T.where(d > delta, norm * grad * delta, norm * d * grad))


def bce_backward(grad, x, target, weight, reduction):
    _check_same_dtype(x, grad, target)
    out = grad * (x - target) / ((1 - x) * x).clamp_min(1e-12)
    if weight is not None:
        out = out * weight
    return out / x.numel() if reduction == 1 else out


def bce_target_backward(grad, x, target, weight, reduction):
    out = -(x / (1 - x)).log() * grad
    if weight is not None:
        out = out * weight
    return out / target.numel() if reduction == 1 else out


def pdist_backward(grad, x, p, result):
    """The ``_pdist_backward`` operator (no derivative of its own, as in PyTorch)."""
    return _T.ops.aten._pdist_backward.default(grad, x, p, result)


def soft_margin_loss_backward(grad, x, target, reduction):
    """``-norm * target * z / (1 + z) * grad`` with ``z = exp(-target * x)`` (torch's order of operations), in
    differentiable operations (double backward)."""
    z = (-target * x).exp()
    norm = 1.0 / x.numel() if reduction == 1 else 1.0
    return target * z * (-norm) / (z + 1) * grad


def bce_logits_backward(grad, x, target, weight, pos_weight, reduction):
    if pos_weight is not None:
        t = pos_weight * target
        out = (t + 1 - target) * x.sigmoid() - t
    else:
        out = x.sigmoid() - target
    out = out * grad
    if weight is not None:
        out = out * weight
    return out / x.numel() if reduction == 1 else out


def bce_logits_target_backward(grad, x, target, weight, pos_weight, reduction):
    lsig = _T.nn.functional.logsigmoid
    out = lsig(-x) - lsig(x) * pos_weight if pos_weight is not None else -x
    out = out * grad
    if weight is not None:
        out = out * weight
    return out / target.numel() if reduction == 1 else out


# -- normalisation ---------------------------------------------------------------------------------------------------
def layer_norm_backward(grad, x, normalized_shape, mean, rstd, weight, bias, eps):
    """(d input, d weight, d bias) of native_layer_norm from its saved mean and rstd: the
    ``native_layer_norm_backward`` kernel, or under create_graph a composite that can be differentiated again (the
    statistics recomputed from the input there: the saved ones are not differentiable outputs)."""
    if not _needs_graph([grad, x, weight]):  # PyTorch's kernel, in its order of operations
        mask = [True, weight is not None, bias is not None]
        return _T.ops.aten.native_layer_norm_backward.default(grad, x, list(normalized_shape), mean, rstd, weight,
                                                               bias, mask)
    axes = tuple(range(x.dim() - len(normalized_shape), x.dim()))
    outer = tuple(range(x.dim() - len(normalized_shape)))
    if _needs_graph([x]):
        mean = x.mean(axes, keepdim=True)
        rstd = ((x - mean).pow(2).mean(axes, keepdim=True) + eps).rsqrt()
    xhat = (x - mean) * rstd
    gw = grad * weight if weight is not None else grad
    dx = rstd * (gw - gw.mean(axes, keepdim=True) - xhat * (gw * xhat).mean(axes, keepdim=True))
    dweight = _sum_over(grad * xhat, outer) if weight is not None else None
    dbias = _sum_over(grad, outer) if bias is not None else None
    return dx, dweight, dbias


def layer_norm_jvp(x_p, x_t, weight_p, weight_t, bias_t, mean, rstd, normalized_shape):
    """The tangent of native_layer_norm's output (PyTorch's ``layer_norm_jvp``), from its saved mean and rstd."""
    axes = tuple(range(x_p.dim() - len(normalized_shape), x_p.dim()))
    xhat = (x_p - mean) * rstd
    out = rstd * (x_t - x_t.mean(axes, keepdim=True) - xhat * (x_t * xhat).mean(axes, keepdim=True))
    if weight_p is not None:
        out = out * weight_p
    if _T.is_tensor(weight_t):
        out = out + xhat * weight_t
    if _T.is_tensor(bias_t):
        out = out + bias_t
    return out


def _channel_shape(x):
    return (1, -1) + (1,) * (x.dim() - 2)


def batch_norm_jvp(x_p, x_t, weight_p, weight_t, bias_t, running_mean, running_var, save_mean, save_invstd,
                   training, eps):
    """The tangent of native_batch_norm's output (PyTorch's ``batch_norm_jvp``): batch statistics in training,
    the running ones (which must carry no tangent: they are not differentiable) in evaluation."""
    shape = _channel_shape(x_p)
    if training:
        axes = [0] + list(range(2, x_p.dim()))
        invstd = save_invstd.reshape(shape)
        xhat = (x_p - save_mean.reshape(shape)) * invstd
        out = invstd * (x_t - x_t.mean(axes, keepdim=True) - xhat * (x_t * xhat).mean(axes, keepdim=True))
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expect running_mean and running_var to have value when train=false")
        if is_fw_grad_defined(running_mean._impl) or is_fw_grad_defined(running_var._impl):
            raise RuntimeError("batch_norm is not differentiable wrt running_mean and running_var, they cannot have "
                               "forward grad defined")
        invstd = (running_var + eps).rsqrt().reshape(shape)
        xhat = (x_p - running_mean.reshape(shape)) * invstd
        out = x_t * invstd
    if weight_p is not None:
        out = out * weight_p.reshape(shape)
    if _T.is_tensor(weight_t):
        out = out + xhat * weight_t.reshape(shape)
    if _T.is_tensor(bias_t):
        out = out + bias_t.reshape(shape)
    return out


def batch_norm_backward(grad, x, weight, bias, running_mean, running_var, save_mean, save_invstd, training, eps):
    """(d input, d weight, d bias) of native_batch_norm (training: batch statistics; eval: running ones): the
    ``native_batch_norm_backward`` kernel, or under create_graph a composite that can be differentiated again."""
    if not _needs_graph([grad, x, weight]):
        mask = [True, weight is not None, bias is not None]
        return _T.ops.aten.native_batch_norm_backward.default(grad, x, weight, running_mean, running_var, save_mean,
                                                               save_invstd, training, eps, mask)
    axes = [0] + list(range(2, x.dim()))
    shape = _channel_shape(x)
    if training and _needs_graph([x]):  # create_graph: batch statistics as functions of the input
        mean = x.mean(axes, keepdim=True)
        invstd = ((x - mean).pow(2).mean(axes, keepdim=True) + eps).rsqrt()
    elif training:
        mean, invstd = save_mean, save_invstd
    else:
        mean, invstd = running_mean, (running_var + eps).rsqrt()
    mean, invstd = mean.reshape(shape), invstd.reshape(shape)
    xhat = (x - mean) * invstd
    w = weight.reshape(shape) if weight is not None else None
    if training:
        g_mean = grad.mean(axes, keepdim=True)
        proj = (grad * xhat).mean(axes, keepdim=True)
        dx = (grad - g_mean - xhat * proj) * invstd
    else:
        dx = grad * invstd
    if w is not None:
        dx = dx * w
    dweight = (grad * xhat).sum(axes) if weight is not None else None
    dbias = grad.sum(axes) if bias is not None else None
    return dx, dweight, dbias


def group_norm_backward(grads, x, mean, rstd, weight, bias, N, C, HxW, group):  # noqa: N803 - PyTorch's names
    """(d input, d weight, d bias) of native_group_norm: the ``native_group_norm_backward`` kernel plus the terms
    of the mean/rstd gradients (exact zeros when none flow there: undefined grads arrive as zeros), or under
    create_graph a composite that can be differentiated again."""
    grad, gmean, grstd = grads[0], grads[1], grads[2]
    xg = x.reshape(N, group, -1)
    m = mean.reshape(N, group, 1)
    r = rstd.reshape(N, group, 1)
    n = xg.shape[-1]
    if not _needs_graph([grad, x, weight]):
        mask = [True, weight is not None, bias is not None]
        dx, dweight, dbias = _T.ops.aten.native_group_norm_backward.default(grad, x, mean, rstd, weight, N, C, HxW,
                                                                            group, mask)
        extra = gmean.reshape(N, group, 1) / n - grstd.reshape(N, group, 1) * r * r * r * (xg - m) / n
        return dx + extra.reshape(tuple(x.shape)), dweight, dbias
    xhat = (xg - m) * r
    wshape = (1, C) + (1,) * (x.dim() - 2)
    gw = grad * weight.reshape(wshape) if weight is not None else grad
    gwg = gw.reshape(N, group, -1)
    dx = r * (gwg - gwg.mean(-1, keepdim=True) - xhat * (gwg * xhat).mean(-1, keepdim=True))
    dx = dx + gmean.reshape(N, group, 1) / n - grstd.reshape(N, group, 1) * r * r * r * (xg - m) / n
    dx = dx.reshape(tuple(x.shape))
    xh = xhat.reshape(N, C, -1)
    g3 = grad.reshape(N, C, -1)
    dweight = (g3 * xh).sum((0, 2)) if weight is not None else None
    dbias = g3.sum((0, 2)) if bias is not None else None
    return dx, dweight, dbias


def rms_norm_backward(grads, x, normalized_shape, rstd, weight):
    """(d input, d weight) of _fused_rms_norm, including the gradient of its rstd output."""
    grad, grstd = grads[0], grads[1]
    axes = tuple(range(x.dim() - len(normalized_shape), x.dim()))
    outer = tuple(range(x.dim() - len(normalized_shape)))
    n = 1
    for s in normalized_shape:
        n *= s
    gw = grad * weight if weight is not None else grad
    dx = rstd * (gw - x * (rstd * rstd) * (gw * x).mean(axes, keepdim=True))
    dx = dx - grstd * rstd * rstd * rstd * x / n
    dweight = _sum_over(grad * x * rstd, outer) if weight is not None else None
    return dx, dweight


# -- convolution and pooling ---------------------------------------------------------------------------------------
def convolution_jvp(inp_p, inp_t, weight_p, weight_t, bias_t, stride, padding, dilation, transposed, output_padding,
                    groups):
    """The tangent of convolution (PyTorch's ``convolution_jvp``): bilinear in input and weight, linear in bias (a
    tangent of 0 stands for an input without one)."""
    def conv(x, w):
        return _T.convolution(x, w, None, stride, padding, dilation, transposed, output_padding, groups)
    out = conv(inp_t, weight_p) + conv(inp_p, weight_t)
    if _T.is_tensor(bias_t):
        out = out + bias_t.reshape(_channel_shape(out))
    return out


def convolution_backward(grad, inp, weight, bias_sizes, stride, padding, dilation, transposed, output_padding,
                         groups):
    """(d input, d weight, d bias) of convolution: ``aten::convolution_backward`` (d bias only with a bias; the
    node keeps the bias's sizes, not the bias, as PyTorch's)."""
    mask = [True, True, bias_sizes is not None]
    bias_sizes = None if bias_sizes is None else list(bias_sizes)
    return _T.ops.aten.convolution_backward(grad, inp, weight, bias_sizes, list(stride), list(padding),
                                            list(dilation), transposed, list(output_padding), groups, mask)


def trilinear_backward(grad, i1, i2, i3, expand1, expand2, expand3, sumdim):
    """(d i1, d i2, d i3) of ``_trilinear``: each is another ``_trilinear`` of the gradient with the other two
    operands, the operand's expand dims and ``sumdim`` trading places (PyTorch's ``_trilinear_backward``)."""
    tri = _T.ops.aten._trilinear
    e1, e2, e3, s = list(expand1), list(expand2), list(expand3), list(sumdim)
    return tri(grad, i2, i3, s, e2, e3, e1), tri(i1, grad, i3, e1, s, e3, e2), tri(i1, i2, grad, e1, e2, s, e3)


# -- attention ------------------------------------------------------------------------------------------------------
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
    lse = logsumexp.unsqueeze(-1)
    probs = (scores - lse).exp().masked_fill(lse == float("-inf"), 0)  # a fully masked row attends to nothing
    dv = probs.transpose(-2, -1).matmul(grad)
    dprobs = grad.matmul(value.transpose(-2, -1))
    dscores = probs * (dprobs - (dprobs * probs).sum(-1, keepdim=True))
    dq = dscores.matmul(key) * s
    dk = dscores.transpose(-2, -1).matmul(query) * s
    return dq, dk, dv


def trace_backward(grad, sizes):
    """``grad`` on the main diagonal of a zero matrix of ``sizes``."""
    out = _T.zeros(sizes, dtype=grad.dtype, device=grad.device)
    out.diagonal().copy_(grad.expand(min(sizes)))
    return out


def block_diag_backward(grad, sizes, dtypes):
    """Each input's block of ``grad`` (0-d inputs were 1x1 blocks, 1-d inputs rows), in the input's dtype."""
    out, row, col = [], 0, 0
    for size, dt in zip(sizes, dtypes, strict=True):
        r, c = ((1, 1), (1, math.prod(size)), tuple(size))[len(size)]
        piece = grad[row:row + r, col:col + c].reshape(size)
        out.append(piece.clone() if piece.dtype == dt else piece.to(dt))  # fresh, as PyTorch's
        row, col = row + r, col + c
    return out


def nansum_backward(grad, self, dim, keepdim):
    """``sum``'s gradient, zero where ``self`` is NaN."""
    return sum_backward(grad, tuple(self.shape), dim, keepdim) * self.isnan().logical_not()


def thnn_fused_lstm_cell_backward(grad_hy, grad_cy, input_gates, hidden_gates, cx, input_bias, hidden_bias, cy,
                                  workspace):
    """(d input_gates, d hidden_gates, d cx, d input_bias, d hidden_bias) of ``_thnn_fused_lstm_cell``: both gate
    inputs (and both biases) were summed, so they share one gradient.  Under ``create_graph`` the gradient is built
    from differentiable operators on the recomputed gates (PyTorch's ``_thnn_differentiable_lstm_cell_backward``),
    else by the fused kernel from the saved workspace."""
    has_bias = input_bias is not None
    if not _T.is_grad_enabled():
        grad_gates, grad_cx, grad_bias = _T._thnn_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy,
                                                                                 workspace, has_bias)
        return grad_gates, grad_gates, grad_cx, grad_bias, grad_bias
    grad_hy = _T.zeros_like(cy) if grad_hy is None else grad_hy
    grad_cy = _T.zeros_like(cy) if grad_cy is None else grad_cy
    gates = input_gates + hidden_gates
    if has_bias:
        gates = gates + input_bias + hidden_bias
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    tanh_cy = (f * cx + i * g).tanh()
    gc = grad_hy * o * (1 - tanh_cy * tanh_cy) + grad_cy
    grad_gates = _T.cat([gc * g * i * (1 - i), gc * cx * f * (1 - f), gc * i * (1 - g * g),
                         grad_hy * tanh_cy * o * (1 - o)], 1)
    grad_bias = grad_gates.sum(0) if has_bias else None
    return grad_gates, grad_gates, gc * f, grad_bias, grad_bias
