"""Random kernels — PyTorch's ``aten/src/ATen/native/cpu/DistributionKernels.cpp`` (on numpy).

Each kernel fills a TensorImpl in place from a Generator's stream.  Uniform floats in [0, 1) use as
many random bits as the dtype's mantissa holds (24 for float32, 11 for float16, 8 for bfloat16), so a
draw can never round up to 1.  Complex tensors are filled as their (real, imag) pairs; ``normal_`` gives
each part ``std / sqrt(2)`` so that the complex value has variance ``std**2``, as PyTorch does.
Argument checks and their messages are PyTorch's (``DistributionTemplates.h``).

Invariant: results depend only on the generator state and the shape.
"""

from __future__ import annotations

import math

import numpy as np

from ...._core import dtype as _dt
from ...._core.user_warning import warn as _user_warn
from ...._tensor.impl import TensorImpl

__all__ = ["uniform_", "normal_", "bernoulli_", "random_", "randperm", "exponential_"]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _g(x) -> str:
    """A double as C++ ``operator<<`` prints it."""
    return f"{float(x):g}"


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_dt.name_of(dtype)}\'')


def _require_floating(dst: TensorImpl, kernel: str) -> None:
    if not (dst.dtype.is_floating_point or dst.dtype.is_complex):
        raise _not_implemented(kernel, dst.dtype)


def _write(dst: TensorImpl, values: np.ndarray) -> TensorImpl:
    if dst.storage._data is not None:
        np.copyto(dst.as_numpy(), values.reshape(dst.sizes), casting="unsafe")
    return dst


def _real_draws(dst: TensorImpl) -> tuple[int, _dt.dtype]:
    """How many real numbers to draw and in which real dtype: complex tensors draw two per element."""
    n = dst.numel()
    return (2 * n, dst.dtype.to_real()) if dst.dtype.is_complex else (n, dst.dtype)


def _as_dst(dst: TensorImpl, real: np.ndarray) -> np.ndarray:
    """Real draws shaped for ``dst``: pairs become complex numbers."""
    if dst.dtype.is_complex:
        real = real.astype(np.float64)
        return real[0::2] + 1j * real[1::2]
    return real


def _unit(n: int, dtype, gen) -> np.ndarray:
    """``n`` uniform [0, 1) draws with ``dtype``'s mantissa width, as float64."""
    bits = _dt.float_digits(dtype)
    if bits == 53:
        return gen.np_gen.random(n)
    if bits == 24:
        return gen.np_gen.random(n, dtype=np.float32).astype(np.float64)
    return gen.np_gen.integers(0, 1 << bits, n).astype(np.float64) * (2.0 ** -bits)


def uniform_(dst: TensorImpl, a: float, b: float, gen) -> TensorImpl:
    """Uniform in [a, b) (``uniform_``); floating and complex dtypes only."""
    _require_floating(dst, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(a)} > to={_g(b)}")
    n, real = _real_draws(dst)
    out = _unit(n, real, gen) * (b - a) + a
    if real.itemsize < 8 and b > a:
        # a value that rounds up to `b` in a narrow dtype is pulled back below it
        out = np.minimum(out.astype(real.np), np.nextafter(np.asarray(b, real.np), np.asarray(a, real.np)))
    return _write(dst, _as_dst(dst, out))


def normal_(dst: TensorImpl, mean: float, std: float, gen) -> TensorImpl:
    """Normal(mean, std) (``normal_``); a complex tensor gets ``std / sqrt(2)`` on each part."""
    _require_floating(dst, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    n, real = _real_draws(dst)
    if dst.dtype.is_complex:
        std = std / math.sqrt(2)
    dt = np.float64 if real is _dt.float64 else np.float32
    return _write(dst, _as_dst(dst, gen.np_gen.standard_normal(n, dtype=dt) * std + mean))


def exponential_(dst: TensorImpl, lambd: float, gen) -> TensorImpl:
    _require_floating(dst, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    return _write(dst, gen.np_gen.exponential(1.0 / lambd, dst.numel()))


def bernoulli_(dst: TensorImpl, p, gen) -> TensorImpl:
    """1 with probability ``p`` (a float, or an array broadcast to ``dst``), else 0."""
    if isinstance(p, (int, float)):
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    else:
        p = np.asarray(p)
        if p.dtype.kind in "biu":  # bool and integral probabilities (bfloat16 is numpy kind 'V')
            raise _not_implemented("bernoulli_tensor_cpu_p_", _dt.from_numpy_dtype(p.dtype))
        p = p.astype(np.float64)
        if np.any((p < 0) | (p > 1)):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
    u = gen.np_gen.random(dst.numel()).reshape(dst.sizes)
    return _write(dst, (u < np.broadcast_to(p, dst.sizes)))


def _check_random_bounds(dtype, low: int, high: int) -> None:
    """``check_from_to_in_range``: ``from`` and ``to - 1`` must be values of the dtype."""
    name = _dt.cpp_type_name(dtype, "typeid")
    if dtype.is_floating_point:
        info = _dt.finfo(dtype)
        lo, hi = info.min, info.max
    elif dtype is _dt.bool:
        lo, hi = 0, 1
    else:
        info = np.iinfo(dtype.np)
        lo, hi = int(info.min), int(info.max)
    for value, what in ((low, "from"), (high - 1, "to - 1")):
        if not lo <= value <= hi:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if dtype.is_floating_point:
        digits = _dt.float_digits(dtype)
        for value, what in ((low, "from"), (high - 1, "to - 1")):
            if not -(1 << digits) <= value <= (1 << digits):
                _user_warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                           f"{name} can support discrete uniform distribution only within this range. This warning "
                           "will become an error in version 1.7 release, please fix the code in advance")


def random_(dst: TensorImpl, low: int, high: int, gen) -> TensorImpl:
    """Integers uniform in [low, high), stored in ``dst``'s dtype (``random_(from, to)``)."""
    # ``to`` may be 2**63: the facade's ``random_()`` on int64 asks for the whole range [0, 2**63)
    if not (_INT64_MIN <= low <= _INT64_MAX and _INT64_MIN <= high <= _INT64_MAX + 1):
        raise ValueError("Overflow when unpacking long long")
    if dst.dtype.is_complex:  # ATen's random_from_to checks the bounds' type first (randint(..., dtype=complex))
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    _check_random_bounds(dst.dtype, low, high)
    return _write(dst, gen.np_gen.integers(low, high, dst.numel(), dtype=np.int64))


def randperm(n: int, gen) -> np.ndarray:
    return gen.np_gen.permutation(n).astype(np.int64)
