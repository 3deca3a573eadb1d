"""The masked operators of ``torch.masked`` (PyTorch's ``torch/masked/_ops.py``), for strided tensors.

Each operator replaces the masked-out elements of its input by the identity of the underlying reduction (0 for
sums, 1 for products, the dtype's lowest value for maxima, ...), then runs the ordinary operator.  The mask
broadcasts to the input's shape (never to more dimensions) and is read as bool.  Operators with no identity
(mean, var, std) divide by the count of masked-in elements, so a fully masked-out slice gives nan.

Invariant: every step is a public operator call, so autograd records the whole computation; sparse layouts raise
the ValueError PyTorch gives for an unsupported layout.
"""

from __future__ import annotations

import builtins
import math

from .._core import dtype as _dt
from .._core.layout import strided
from .._functions import ones, tensor
from .._generated import functions as _gen
from ..nn import functional as _F

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp", "logsumexp", "mean",
           "median", "norm", "normalize", "prod", "softmax", "softmin", "std", "sum", "var"]

# integral inputs that sum and prod accumulate in int64 when no dtype is given
_WIDENED = (_dt.uint8, _dt.bool, _dt.int8, _dt.int16, _dt.int32)


def _identity(op_name: str, input, ord=2):
    """The value that leaves the reduction ``op_name`` unchanged, as a 0-dim tensor of ``input``'s dtype."""
    dtype = input.dtype
    if op_name in ("sum", "cumsum", "norm"):
        value = math.inf if op_name == "norm" and ord == -math.inf else 0
    elif op_name in ("prod", "cumprod"):
        value = 1
    elif op_name in ("amax", "argmax", "logaddexp", "logsumexp", "amin", "argmin"):
        low = op_name in ("amax", "argmax", "logaddexp", "logsumexp")
        if dtype.is_floating_point or (dtype.is_complex and op_name == "logsumexp"):
            value = -math.inf if low else math.inf
        elif dtype.is_signed or dtype is _dt.uint8:
            info = _dt.iinfo(dtype)
            value = info.min if low else info.max
        else:
            raise NotImplementedError(f"identity of {op_name} on {dtype} input")
    elif op_name == "median":
        return tensor(math.nan, dtype=dtype if dtype.is_floating_point else _dt.float32, device=input.device)
    else:
        raise NotImplementedError(f"identity of {op_name} on {dtype} input")
    return tensor(value, dtype=dtype, device=input.device)


def _canonical_dim(dim, ndim: int) -> tuple:
    """``dim`` as a sorted tuple of non-negative dims; ``None`` and ``()`` mean every dim."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = builtins.max(ndim, 1)
    dims = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _check_strided(name: str, *tensors) -> None:
    for t in tensors:
        if t.layout is not strided:
            raise ValueError(f"masked {name} expects strided tensor (got {t.layout} tensor)")


def _input_mask(input, mask):
    """The mask as a bool tensor of ``input``'s shape (broadcast, never to more dims than ``input`` has)."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                             "input)")
        mask = _gen.broadcast_to(mask.clone(), input.shape)
    if mask.layout is not strided:
        mask = mask.to_dense()
    return mask.to(dtype=_dt.bool)


def _masked_input(op_name: str, input, mask, ord=2):
    """``input`` with its masked-out elements replaced by the identity of ``op_name``."""
    if mask is None:
        return input
    return _gen.where(_input_mask(input, mask), input, _identity(op_name, input, ord))


def _accumulate_dtype(input, dtype):
    if dtype is not None:
        return dtype
    return _dt.int64 if input.dtype in _WIDENED else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the masked-in elements over ``dim`` (all dims by default)."""
    dtype = _accumulate_dtype(input, dtype)
    _check_strided("sum", input)
    dims = _canonical_dim(dim, input.ndim)
    return _gen.sum(_masked_input("sum", input, mask), dims, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the masked-in elements over ``dim`` (all dims by default), one dim at a time."""
    dtype = _accumulate_dtype(input, dtype)
    _check_strided("prod", input)
    dims = _canonical_dim(dim, input.ndim)
    out = _masked_input("prod", input, mask).to(dtype=dtype)
    for d in reversed(dims):
        out = out.prod(dim=d, keepdim=bool(keepdim))
    return out


def _scan(name, op, input, dim, dtype, mask):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = _masked_input("sum" if name == "cumsum" else "prod", input, mask)
    _check_strided(name, masked)
    return op(masked, d, dtype=dtype).to(dtype=dtype)


def cumsum(input, dim, *, dtype=None, mask=None):
    """Running sum along ``dim``, masked-out elements counting as 0."""
    return _scan("cumsum", _gen.cumsum, input, dim, dtype, mask)


def cumprod(input, dim, *, dtype=None, mask=None):
    """Running product along ``dim``, masked-out elements counting as 1."""
    return _scan("cumprod", _gen.cumprod, input, dim, dtype, mask)


def _extreme(name, op, input, dim, keepdim, dtype, mask):
    dtype = input.dtype if dtype is None else dtype
    masked = _masked_input(name, input, mask)
    _check_strided(name, masked)
    return op(masked, _canonical_dim(dim, masked.ndim), bool(keepdim)).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Maximum of the masked-in elements over ``dim``."""
    return _extreme("amax", _gen.amax, input, dim, keepdim, dtype, mask)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Minimum of the masked-in elements over ``dim``."""
    return _extreme("amin", _gen.amin, input, dim, keepdim, dtype, mask)


def _arg_extreme(name, op, input, dim, keepdim, dtype, mask):
    dtype = input.dtype if dtype is None else dtype
    masked = _masked_input(name, input, mask)
    _check_strided(name, masked)
    return op(masked, dim, bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the maximum among the masked-in elements along ``dim``."""
    return _arg_extreme("argmax", _gen.argmax, input, dim, keepdim, dtype, mask)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the minimum among the masked-in elements along ``dim``."""
    return _arg_extreme("argmin", _gen.argmin, input, dim, keepdim, dtype, mask)


def _total_and_count(input, dim, keepdim, dtype, mask):
    """The masked sum over ``dim`` and the number of elements it summed (int64)."""
    if mask is None:
        count = sum(ones(input.shape, dtype=_dt.int64, device=input.device), dim, keepdim=keepdim)
        return sum(input, dim, keepdim=keepdim, dtype=dtype), count, None
    inmask = _input_mask(input, mask)
    count = inmask.sum(dim=dim, keepdim=bool(keepdim))
    return sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask), count, inmask


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the masked-in elements over ``dim``; nan where every element is masked out."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating point or "
                         f"complex dtype. Got: {dtype}")
    if input.layout is not strided:
        raise ValueError(f"masked mean expects strided or sparse_csr tensor (got {input.layout} tensor)")
    total, count, _ = _total_and_count(input, dim, keepdim, dtype, mask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median of the masked-in elements along ``dim`` (``nanmedian`` over the input with nan where masked out)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=_dt.float32)
    masked = _masked_input("median", input, mask)
    _check_strided("median", masked)
    out = _gen.nanmedian(masked, d, keepdim).values
    if is_float:
        return out
    if not _gen.isnan(out).any():
        return out.to(dtype=dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """``log(sum(exp(x)))`` of the masked-in elements over ``dim``."""
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dim(dim, input.ndim)
    masked = _masked_input("logsumexp", input, mask)
    _check_strided("logsumexp", masked)
    return _gen.logsumexp(masked, dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """``logaddexp`` of ``input`` and ``other``, each with its own mask (masked-out elements count as -inf)."""
    dtype = input.dtype if dtype is None else dtype
    if input.layout is not strided or other.layout is not strided:
        raise ValueError(f"masked logaddexp expects strided tensors (got {input.layout} tensor for input, "
                         f"{other.layout} for other)")
    return _gen.logaddexp(_masked_input("logaddexp", input, input_mask),
                          _masked_input("logaddexp", other, other_mask)).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector ``ord``-norm of the masked-in elements over ``dim``."""
    dtype = input.dtype if dtype is None else dtype
    masked = _masked_input("norm", input, mask, ord)
    _check_strided("norm", masked)
    return _gen.linalg_vector_norm(masked, ord, _canonical_dim(dim, input.ndim), bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    """Variance (or its root) of the masked-in elements: the squared deviations from the masked mean, summed over
    the masked-in elements and divided by ``max(count - correction, 0)``."""
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    corr = float(correction) if correction is not None else (1.0 if unbiased is None or unbiased else 0.0)
    if dtype is None:
        dtype = input.dtype if (input.dtype.is_floating_point or input.dtype.is_complex) else _dt.float32
    compute = dtype if (dtype.is_floating_point or dtype.is_complex) else _dt.float32
    if input.layout is not strided:
        raise ValueError(f"masked std/var expects strided tensor (got {input.layout} tensor)")
    total, count, inmask = _total_and_count(input, dim, True, dtype, mask)
    x = _gen.subtract(input, _gen.divide(total, count))
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if corr != 0:
        count = _gen.subtract(count.to(compute.to_real() if compute.is_complex else compute), corr)
        count = _gen.maximum(count, count.new_zeros([]))
    out = _gen.divide(total, count).to(dtype=dtype)
    return _gen.sqrt(out) if take_sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Variance of the masked-in elements over ``dim`` (``correction`` 1 by default); nan where all masked out."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Standard deviation of the masked-in elements over ``dim``."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def _normalization(name, identity_of, op, input, dim, dtype, mask):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = _masked_input(identity_of, input, mask)
    _check_strided(name, masked)
    return op(masked, d, dtype=dtype)


def softmax(input, dim, *, dtype=None, mask=None):
    """Softmax along ``dim`` over the masked-in elements (masked-out ones get 0)."""
    return _normalization("softmax", "amax", _F.softmax, input, dim, dtype, mask)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """Log-softmax along ``dim`` over the masked-in elements (masked-out ones get -inf)."""
    return _normalization("log_softmax", "amax", _F.log_softmax, input, dim, dtype, mask)


def softmin(input, dim, *, dtype=None, mask=None):
    """Softmin along ``dim`` over the masked-in elements (masked-out ones get 0)."""
    return _normalization("softmin", "amin", _F.softmin, input, dim, dtype, mask)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """``input`` divided by its masked ``ord``-norm along ``dim`` (at least ``eps``); masked-out elements are 0."""
    dtype = input.dtype if dtype is None else dtype
    masked = _masked_input("sum", input, mask)
    _check_strided("normalize", masked)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return _gen.divide(masked, _gen.maximum(nrm, nrm.new_full([], eps)))


_REDUCTIONS = ("sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm", "var", "std", "logsumexp")
_NORMALIZATIONS = ("softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod")


def _output_mask(op, input, *args, **kwargs):
    """Which elements of ``op(input, *args, **kwargs)`` are masked in: the input mask itself for normalisations,
    its ``any`` over the reduced dims for reductions."""
    if not callable(op):
        raise ValueError(f"_output_mask expected masked operation (got {type(op).__name__} object)")
    name = op.__name__
    if name in _NORMALIZATIONS:
        return _input_mask(input, kwargs.get("mask"))
    if name not in _REDUCTIONS:
        raise ValueError(f"_output_mask expected masked operation (got callable {op.__module__}.{name})")
    if name == "norm" and args:
        args = args[1:]  # the ord argument comes before dim
    dim = args[0] if args else kwargs.get("dim")
    out = _input_mask(input, kwargs.get("mask"))
    keepdim = bool(kwargs.get("keepdim", False))
    for d in reversed(_canonical_dim(dim, input.ndim)):
        out = out.any(d, keepdim=keepdim)
    return out
