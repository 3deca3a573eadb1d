"""Random kernels — PyTorch's ``aten/src/ATen/native/cpu/DistributionKernels.cpp`` (on numpy).

Each kernel fills a TensorImpl in place from a Generator's stream.  Uniform floats in [0, 1) use as
many random bits as the dtype's mantissa holds (24 for float32, 11 for float16, 8 for bfloat16), so a
draw can never round up to 1.  Invariant: results depend only on the generator state and the shape.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl

__all__ = ["uniform_", "normal_", "bernoulli_", "random_", "randperm", "exponential_"]

_MANTISSA = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _write(dst: TensorImpl, values: np.ndarray) -> TensorImpl:
    if dst.storage._data is not None:
        np.copyto(dst.as_numpy(), values.reshape(dst.sizes), casting="unsafe")
    return dst


def _unit(dst: TensorImpl, gen) -> np.ndarray:
    """Uniform [0, 1) draws with the dtype's mantissa width, as float64."""
    n = dst.numel()
    bits = _MANTISSA.get(dst.dtype._name, 24)
    if bits == 53:
        return gen.np_gen.random(n)
    if bits == 24:
        return gen.np_gen.random(n, dtype=np.float32).astype(np.float64)
    return gen.np_gen.integers(0, 1 << bits, n).astype(np.float64) * (2.0 ** -bits)


def uniform_(dst: TensorImpl, a: float, b: float, gen) -> TensorImpl:
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    u = _unit(dst, gen)
    out = u * (b - a) + a
    if dst.dtype.itemsize < 8 and b > a:
        # a value that rounds up to `b` in a narrow dtype is pulled back below it
        out = np.minimum(out.astype(dst.dtype.np), np.nextafter(np.asarray(b, dst.dtype.np), np.asarray(a, dst.dtype.np)))
    return _write(dst, out)


def normal_(dst: TensorImpl, mean: float, std: float, gen) -> TensorImpl:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    n = dst.numel()
    dt = np.float64 if dst.dtype is _dt.float64 else np.float32
    return _write(dst, gen.np_gen.standard_normal(n, dtype=dt) * std + mean)


def exponential_(dst: TensorImpl, lambd: float, gen) -> TensorImpl:
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _write(dst, gen.np_gen.exponential(1.0 / lambd, dst.numel()))


def bernoulli_(dst: TensorImpl, p, gen) -> TensorImpl:
    """1 with probability ``p`` (a float, or an array broadcast to ``dst``), else 0."""
    p = np.asarray(p, dtype=np.float64)
    if np.any((p < 0) | (p > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    u = gen.np_gen.random(dst.numel()).reshape(dst.sizes)
    return _write(dst, (u < np.broadcast_to(p, dst.sizes)))


def random_(dst: TensorImpl, low: int, high: int, gen) -> TensorImpl:
    """Integers uniform in [low, high)."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _write(dst, gen.np_gen.integers(low, high, dst.numel(), dtype=np.int64))


def randperm(n: int, gen) -> np.ndarray:
    return gen.np_gen.permutation(n).astype(np.int64)
