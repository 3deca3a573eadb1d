"""``glasstorch.nn.init`` — PyTorch's ``torch/nn/init.py``: in-place parameter initialisation.

Every ``*_`` function fills its tensor in place under ``no_grad`` and returns that same tensor; the random
ones take an optional ``generator=``.  Scales follow PyTorch: fans from ``_calculate_fan_in_and_fan_out``
(``fan_in = size(1) * prod(size[2:])``, ``fan_out = size(0) * prod(size[2:])``) and gains from
``calculate_gain``.  The random streams are glasstorch's own; shapes, bounds and distributions are PyTorch's.

Invariant: no function records autograd history, changes a tensor's identity, shape or dtype.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._functions import empty_like, from_numpy, randperm
from .._generated.functions import where
from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
           "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
           "kaiming_normal", "orthogonal", "sparse"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity, param=None) -> float:
    """The recommended gain for a nonlinearity: 1 (linear/conv/sigmoid), 5/3 (tanh), sqrt(2) (relu),
    sqrt(2 / (1 + slope^2)) (leaky_relu, slope ``param`` or 0.01), 3/4 (selu).

    Raises:
        ValueError: an unknown nonlinearity or a non-number leaky_relu slope.

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.init.calculate_gain("tanh")
        1.6666666666666667
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor, mode) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """Fill with U(a, b).

    Example:
        >>> import glasstorch as torch
        >>> w = torch.nn.init.uniform_(torch.empty(3, 5), -1, 1)
        >>> bool((w >= -1).all() and (w <= 1).all())
        True
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """Fill with N(mean, std^2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0, generator=None):
    """Fill with N(mean, std^2) truncated to the absolute bounds [a, b] (rejection sampling).

    Where the interval holds much of the normal's mass, normal draws outside it are redrawn; otherwise
    uniform draws on [a, b] are accepted with probability ``exp(-z^2/2) / peak``.
    """
    if tensor.is_meta:
        return tensor
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    with no_grad():
        mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        result = _trunc_by_redraw(tensor, mean, std, a, b, generator) if mass > 0.3 else \
            _trunc_by_acceptance(tensor, mean, std, a, b, generator)
        if result is not tensor:
            tensor.copy_(result)
    return tensor


def _trunc_by_redraw(tensor, mean, std, a, b, generator):
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < a) | (result > b)
        if not outside.any():
            return result
        result = where(outside, empty_like(result).normal_(mean, std, generator=generator), result)


def _log_accept_threshold(x, mean, std, log_peak):
    """``log`` of the normal density at ``x`` relative to its peak on [a, b] (<= 0)."""
    z = (x - mean) / std
    return z * z * -0.5 - log_peak


def _trunc_by_acceptance(tensor, mean, std, a, b, generator):
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    result = tensor.uniform_(a, b, generator=generator)
    pending = empty_like(tensor).uniform_(generator=generator).log_() > _log_accept_threshold(result, mean, std,
                                                                                               log_peak)
    while pending.any():
        candidates = empty_like(tensor).uniform_(a, b, generator=generator)
        result = where(pending, candidates, result)
        rejected = empty_like(tensor).uniform_(generator=generator).log_() > _log_accept_threshold(
            candidates, mean, std, log_peak)
        pending = pending & rejected
    return result


def constant_(tensor, val: float):
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill with 1."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill with 0."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix (ones on the main diagonal)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.zero_()
        tensor.diagonal().fill_(1)
    return tensor


def dirac_(tensor, groups: int = 1):
    """Fill a 3/4/5-D conv weight with the Dirac delta: each group's first channels pass through unchanged."""
    dims = tensor.ndimension()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    out_per_group = sizes[0] // groups
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(out_per_group, sizes[1])):
                tensor[(g * out_per_group + d, d, *centre)] = 1
    return tensor


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """Fill with U(-a, a), ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """Fill with N(0, std^2), ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity) -> float:
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator=None):
    """Fill with U(-bound, bound), ``bound = gain * sqrt(3 / fan)`` (He et al.); zero-element tensors only warn.

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.init.kaiming_uniform_(torch.empty(3, 5), mode="fan_in", nonlinearity="relu").shape
        torch.Size([3, 5])
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    with no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator=None):
    """Fill with N(0, std^2), ``std = gain / sqrt(fan)``; zero-element tensors only warn."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    with no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor, gain: float = 1, generator=None):
    """Fill with a (semi-)orthogonal matrix: the Q of a normal sample's QR, signs fixed by R's diagonal.

    Trailing dims are flattened (``rows = size(0)``).  The sample is PyTorch's (``new_empty((rows, cols))
    .normal_``, the same draws from the same generator); the factorisation is numpy's (glasstorch has no
    ``linalg.qr`` yet), in float64, so the values agree with PyTorch's LAPACK to rounding, not bit for bit.
    """
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator).numpy().astype(np.float64)
        q, r = np.linalg.qr(flat.T if rows < cols else flat)
        q = q * np.sign(np.diag(r))
        q = np.ascontiguousarray(q.T if rows < cols else q)
        tensor.view(rows, cols).copy_(from_numpy(q))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """Fill a 2-D tensor with N(0, std^2) and zero ``ceil(sparsity * rows)`` random rows of each column."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            tensor[randperm(rows)[:num_zeros], col] = 0
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"See :func:`~glasstorch.nn.init.{new_name}`."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
