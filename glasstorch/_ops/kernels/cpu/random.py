"""Random kernels — PyTorch's ``native/cpu/DistributionTemplates.h`` and ``core/DistributionsHelper.h`` (on numpy).

Each kernel fills a TensorImpl in place from a Generator's mt19937 stream with PyTorch's draws and transforms,
so the same seed gives PyTorch's numbers bit for bit (the arithmetic is ``distribution_kernels.py``):

- ``uniform_``: ``uniform_real_distribution<opmath_t>`` — one 32-bit word per element (24 bits) for float32,
  float16 and bfloat16, one ``random64()`` (53 bits) for float64; a value that rounds up to ``to`` in the
  narrow dtype becomes ``from``.
- ``normal_``: contiguous tensors of 16 elements and more take ``normal_fill`` (all uniforms first, Box-Muller in
  blocks of 16, the last 16 recomputed from 16 fresh uniforms when 16 does not divide the size); the others
  take ``normal_distribution<double>`` element by element, whose second Box-Muller value is cached on the
  generator (``next_double_normal_sample``) for the next element, or the next call.
- ``bernoulli_``: ``u < p`` with ``u`` a double (scalar or float64 ``p``) or a float (``p`` of another dtype).
- ``random_``: ``val % range + base`` with one word per element, or ``random64()`` from ``range >= 2**28``.
- ``exponential_``: ``-1/lambda * log1p(-u)``, ``u`` a double.
- ``randperm``: Fisher-Yates as ``randperm_cpu`` does it.

Elements are written in TensorIterator's order: along memory, dims sorted by stride (a transposed tensor gets
its numbers in storage order, as in PyTorch).  Complex tensors are filled as their real view (``(..., 2)``);
``normal_`` gives each part ``std / sqrt(2)``.  Argument checks and their messages are PyTorch's
(``DistributionTemplates.h``).  On Intel CPUs PyTorch's MKL builds draw ``bernoulli_(float p)`` — and so
dropout masks — from MKL instead (``bernoulli_scalar_kernel``: one ``random()`` word seeds a ``VSL_BRNG_MCG31``
stream sampled by ``viRngBernoulli``, in row-major order); this module does the same on the same CPUs
(``MKL_BERNOULLI``, from the CPU's vendor as cpuinfo reports it) and the default kernel elsewhere.

Invariant: results depend only on the generator state, the shape and the strides.
"""

from __future__ import annotations

import math
import platform

import numpy as np

from ...._core import dtype as _dt
from ...._core.user_warning import warn as _user_warn
from ...._tensor.impl import TensorImpl
from . import distribution_kernels as _dk

__all__ = ["MKL_BERNOULLI", "uniform_", "normal_", "bernoulli_", "random_", "random_from_to_", "random_full_range_",
           "random_default_", "randperm", "exponential_", "cauchy_", "log_normal_", "geometric_", "uniform_real",
           "iteration_view"]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _cpu_is_intel() -> bool:
    """Whether CPU 0's vendor is Intel (``cpuinfo_vendor_intel``), read from /proc/cpuinfo; False elsewhere."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip() == "GenuineIntel"
    except OSError:
        pass
    return False


# torch 2.13's CPU build draws bernoulli_(float p) with the default kernel on Intel too: its libtorch_cpu carries
# no VSL stream code (no vslNewStream), and on an Intel Xeon its masks are the default kernel's draw for draw.
# The MKL emulation stays for builds that still take that path.
_TORCH_USES_MKL_BERNOULLI = False
MKL_BERNOULLI = _TORCH_USES_MKL_BERNOULLI and platform.machine() in ("x86_64", "AMD64") and _cpu_is_intel()
_RANDPERM_SMALL = 0xFFFFFFFF // 20  # randperm_cpu's "small n" bound


def _g(x) -> str:
    """A double as C++ ``operator<<`` prints it."""
    return f"{float(x):g}"


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_dt.name_of(dtype)}\'')


def _require_floating(dst: TensorImpl, kernel: str) -> None:
    if not (dst.dtype.is_floating_point or dst.dtype.is_complex) or _dt.is_barebones(dst.dtype):
        raise _not_implemented(kernel, dst.dtype)


# -- layout: the order TensorIterator visits a nullary op's output -------------------------------------------------
def _iteration_order(arr: np.ndarray) -> list:
    return sorted(range(arr.ndim), key=lambda d: (-abs(arr.strides[d]), -arr.shape[d]))


def iteration_view(arr: np.ndarray) -> np.ndarray:
    """``arr`` with its dims permuted outermost-first as TensorIterator's ``reorder_dimensions`` orders an
    output: by stride, and for equal strides the larger size outside; the last dim of the view is the fastest."""
    return arr if arr.ndim < 2 else arr.transpose(_iteration_order(arr))


def _real_np(dst: TensorImpl) -> np.ndarray:
    """The numpy view to fill: the tensor itself, or ``view_as_real`` of a complex one."""
    arr = dst.as_numpy()
    if not dst.dtype.is_complex:
        return arr
    # complex32 is stored as (real, imag) float16 fields: its "real" part is the field, not ``.real`` (which a
    # structured array answers with itself, whose last (i, 1) element would lie past the storage's end)
    real = arr["real"] if arr.dtype.names else arr.real
    return np.lib.stride_tricks.as_strided(real, arr.shape + (2,), arr.strides + (real.itemsize,))


def _store(view: np.ndarray, values: np.ndarray, dtype) -> None:
    """Write ``values`` (in iteration order) into ``view``, converting as C++'s ``static_cast`` does: a double or
    an integer reaches float16/bfloat16 through float (c10::Half and BFloat16 are built from a float)."""
    if dtype in (_dt.float16, _dt.bfloat16) and values.dtype != np.float32:
        values = values.astype(np.float32)
    np.copyto(view, values.reshape(view.shape), casting="unsafe")


def _fill(dst: TensorImpl, values_for) -> TensorImpl:
    """Fill ``dst`` in iteration order with ``values_for(n)`` (a flat array of ``n`` values)."""
    if dst.storage._data is None or dst.numel() == 0:
        return dst
    view = iteration_view(_real_np(dst))
    _store(view, values_for(view.size), dst.dtype.to_real())
    return dst


def uniform_real(gen, n: int, dtype, low: float = 0.0, high: float = 1.0, out=None, clamp=False) -> np.ndarray:
    """``n`` draws of ``uniform_real_distribution<opmath_t>(low, high)``: float64 for double, float32 otherwise
    (into ``out`` when given; ``clamp``: a value equal to ``high`` becomes ``low``)."""
    if dtype is _dt.float64:
        return _dk.uniform_real_f64(gen, n, low, high, out, clamp)
    return _dk.uniform_real_f32(gen, n, low, high, out, clamp)


def _direct(dst: TensorImpl):
    """The flat numpy view of a contiguous float32/float64 tensor (or of a complex one's real view), which
    the kernels can fill in place; None when the values go through a conversion or a permutation."""
    if dst.storage._data is None or not dst.is_contiguous() or dst.dtype.to_real() not in (_dt.float32, _dt.float64):
        return None
    return _real_np(dst).reshape(-1)


# -- uniform_ -------------------------------------------------------------------------------------------------
def uniform_(dst: TensorImpl, a: float, b: float, gen) -> TensorImpl:
    """Uniform in [a, b) (``uniform_``); floating and complex dtypes only."""
    _require_floating(dst, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(a)} > to={_g(b)}")
    real = dst.dtype.to_real()
    flat = _direct(dst)
    if flat is not None:
        uniform_real(gen, flat.size, real, a, b, out=flat, clamp=True)
        return dst

    def values(n):
        v = uniform_real(gen, n, real, a, b)
        top, bottom = (np.array(x, v.dtype).astype(real.np) for x in (b, a))  # static_cast<scalar_t>(to_), via float
        v = v.astype(real.np, copy=False)
        v[v == top] = bottom  # a value that rounded up to the bound in the narrow dtype
        return v

    return _fill(dst, values)


# -- normal_ --------------------------------------------------------------------------------------------------
def normal_(dst: TensorImpl, mean: float, std: float, gen) -> TensorImpl:
    """Normal(mean, std) (``normal_``); a complex tensor gets ``std / sqrt(2)`` on each part."""
    _require_floating(dst, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    if dst.dtype.is_complex:
        std = std / math.sqrt(2)
    if dst.storage._data is None or dst.numel() == 0:
        return dst
    real = dst.dtype.to_real()
    arr = _real_np(dst)
    if arr.size >= 16 and dst.is_contiguous():
        flat = _direct(dst)
        if flat is not None:
            _normal_fill(gen, flat, real, mean, std)
        else:
            flat = arr.reshape(-1)
            _store(flat, _normal_fill(gen, np.empty(flat.size, np.float32), real, mean, std), real)
        return dst
    return _fill(dst, lambda n: _normal_scalar(gen, n, mean, std))


def _normal_fill(gen, data: np.ndarray, real, mean: float, std: float) -> np.ndarray:
    """``normal_fill`` into ``data`` (float32, or float64 for double): uniforms (all of them first for
    float32/float64, whose kernel draws into the output; only the full blocks' for float16/bfloat16, whose kernel
    draws block by block), Box-Muller on each full block of 16, then the last 16 positions again from 16 new
    uniforms when 16 does not divide the size."""
    fill16 = _dk.normal16_f64 if real is _dt.float64 else _dk.normal16_f32
    n = data.size
    full = n - n % 16
    drawn = data[:full] if real in (_dt.float16, _dt.bfloat16) else data
    uniform_real(gen, drawn.size, real, out=drawn)
    fill16(data[:full], mean, std)
    if n % 16:
        tail = uniform_real(gen, 16, real)
        fill16(tail, mean, std)
        data[n - 16:] = tail
    return data


def _normal_scalar(gen, n: int, mean: float, std: float) -> np.ndarray:
    """``n`` draws of ``normal_distribution<double>(mean, std)``, using and refilling the generator's cached
    second Box-Muller value."""
    fused = _dk.normal_scalar(gen, n, mean, std)
    if fused is not None:
        return fused
    raw = np.empty(n, np.float64)
    k = 0
    if gen.next_double_normal_sample is not None:
        raw[0], k = gen.next_double_normal_sample, 1
        gen.next_double_normal_sample = None
    m = n - k
    if m:
        pairs = _dk.box_muller(uniform_real(gen, 2 * ((m + 1) // 2), _dt.float64))
        raw[k:] = pairs[:m]
        if m % 2:
            gen.next_double_normal_sample = float(pairs[-1])
    return _dk.fma_f64(raw, std, mean)


# -- exponential_ ---------------------------------------------------------------------------------------------
def exponential_(dst: TensorImpl, lambd: float, gen) -> TensorImpl:
    _require_floating(dst, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    return _fill(dst, lambda n: _dk.exponential(uniform_real(gen, n, _dt.float64), lambd))


# -- cauchy_, log_normal_, geometric_ -------------------------------------------------------------------------
def cauchy_(dst: TensorImpl, median: float, sigma: float, gen) -> TensorImpl:
    """``cauchy_kernel``: ``cauchy_distribution<double>`` per element (floating dtypes)."""
    _require_floating(dst, "cauchy_cpu")
    return _fill(dst, lambda n: _dk.cauchy(uniform_real(gen, n, _dt.float64), median, sigma))


def log_normal_(dst: TensorImpl, mean: float, std: float, gen) -> TensorImpl:
    """``log_normal_kernel``: ``exp`` of ``normal_distribution<double>(mean, std)`` per element (always the scalar
    Box-Muller path, with its cache)."""
    _require_floating(dst, "log_normal_cpu")
    return _fill(dst, lambda n: _dk.exp(_normal_scalar(gen, n, mean, std)))


def geometric_(dst: TensorImpl, p: float, gen) -> TensorImpl:
    """``geometric_kernel``: ``geometric_distribution<double>(p)`` per element (any real dtype)."""
    return _fill(dst, lambda n: _dk.geometric(uniform_real(gen, n, _dt.float64), p))


# -- bernoulli_ -----------------------------------------------------------------------------------------------
def bernoulli_(dst: TensorImpl, p, gen) -> TensorImpl:
    """1 with probability ``p`` (a float, or an array broadcast to ``dst``), else 0."""
    if isinstance(p, (int, float)):
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
        if MKL_BERNOULLI:
            return _bernoulli_mkl(dst, p, gen)
        return _fill(dst, lambda n: uniform_real(gen, n, _dt.float64) < p)
    p = np.asarray(p)
    if p.dtype.kind in "biu":  # bool and integral probabilities (bfloat16 is numpy kind 'V')
        raise _not_implemented("bernoulli_tensor_cpu_p_", _dt.from_numpy_dtype(p.dtype))
    wide = p.dtype == np.float64
    p = p.astype(np.float64 if wide else np.float32)
    if np.any((p < 0) | (p > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    if dst.storage._data is None or dst.numel() == 0:
        return dst
    arr = dst.as_numpy()
    order = _iteration_order(arr)
    view = arr.transpose(order)
    probs = np.broadcast_to(p, arr.shape).transpose(order).reshape(-1)
    u = uniform_real(gen, view.size, _dt.float64 if wide else _dt.float32)
    _store(view, u < probs, dst.dtype)
    return dst


def _bernoulli_mkl(dst: TensorImpl, p: float, gen) -> TensorImpl:
    """``bernoulli_scalar_kernel`` with MKL: one ``random()`` word seeds MKL's MCG31 stream, whose Bernoulli draws
    fill the elements in row-major order (through an int32 buffer when ``dst`` is not a contiguous int32)."""
    seed = int(_dk.words(gen, 1)[0])
    if dst.storage._data is not None and dst.numel():
        np.copyto(dst.as_numpy(), _dk.mcg31_bernoulli(seed, dst.numel(), p).reshape(dst.sizes), casting="unsafe")
    return dst


# -- random_ --------------------------------------------------------------------------------------------------
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


def _round_int(value: int, dtype) -> int:
    """``static_cast<int64_t>(static_cast<scalar_t>(value))`` for a floating dtype; a value the conversion cannot
    represent (inf, or beyond int64) gives x86's "integer indefinite", int64's minimum."""
    wide = np.float32 if dtype.itemsize <= 4 else np.float64
    with np.errstate(over="ignore"):
        x = float(np.array(value, np.int64).astype(wide).astype(dtype.np).astype(np.float64))
    return int(x) if math.isfinite(x) and -(2.0**63) <= x < 2.0**63 else _INT64_MIN


def update_from(value: int, dtype) -> int:
    """``update_from``: the smallest ``from`` the floating dtype represents at or above ``value``."""
    plus_1 = _round_int(value + 1, dtype)
    if plus_1 < value:
        n = abs(value + 1).bit_length() - 1
        value = plus_1 + (1 << (n - _dt.float_digits(dtype) + 1))
    return value


def update_to(value: int, dtype) -> int:
    """``update_to``: the largest ``to`` the floating dtype represents at or below ``value``."""
    minus_1 = _round_int(value - 1, dtype)
    if minus_1 >= value:
        n = abs(value - 1).bit_length() - 1
        value = minus_1 - (1 << (n - _dt.float_digits(dtype) + 1))
    return value


def random_(dst: TensorImpl, low: int, high: int, gen) -> TensorImpl:
    """Integers uniform in [low, high), stored in ``dst``'s dtype (``random_(from, to)``, ``randint``)."""
    # ``to`` may be 2**63: the facade's ``random_()`` on int64 asks for the whole range [0, 2**63)
    if not (_INT64_MIN <= low <= _INT64_MAX and _INT64_MIN <= high <= _INT64_MAX + 1):
        raise ValueError("Overflow when unpacking long long")
    if dst.dtype.is_complex:  # ATen's random_from_to checks the bounds' type first (randint(..., dtype=complex))
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if dst.dtype.is_floating_point:
        low, high = update_from(low, dst.dtype), update_to(high, dst.dtype)
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but "
                               f"got from={low} >= to={high}")
    _check_random_bounds(dst.dtype, low, high)
    return random_from_to_(dst, high - low, low, gen)


def random_from_to_(dst: TensorImpl, span: int, base: int, gen) -> TensorImpl:
    """``random_from_to_kernel``: ``(val % span) + base`` with one word per element, or ``random64()`` from
    ``span >= 2**28`` (``uniform_int_from_to_distribution``)."""
    if dst.dtype in _dt.FLOAT8_DTYPES:
        raise _not_implemented("random_update_from_to", dst.dtype)

    def values(n):
        words = _dk.words64(gen, n) if span >= 1 << 28 else _dk.words(gen, n)
        out = (words % np.uint64(span)) + np.uint64(base & ((1 << 64) - 1))  # wraps like uint64_t
        return out.view(np.int64)

    return _fill(dst, values)


def random_full_range_(dst: TensorImpl, gen) -> TensorImpl:
    """``random_full_64_bits_range_kernel``: ``random64()`` read as int64 (``random_(-2**63, None)``)."""
    if dst.dtype not in (_dt.int64, _dt.float64, _dt.float32, _dt.bfloat16):
        raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
    return _fill(dst, lambda n: _dk.words64(gen, n).view(np.int64))


def random_default_(dst: TensorImpl, gen) -> TensorImpl:
    """``random_()``: ``uniform_int_distribution`` — ``[0, max]`` of an integer dtype, ``[0, 2**digits]`` of a
    floating one; int64 and float64 draw ``random64()``, bool takes the low bit."""
    dt = dst.dtype
    wide = dt in (_dt.int64, _dt.float64)

    def values(n):
        words = _dk.words64(gen, n) if wide else _dk.words(gen, n)
        if dt is _dt.bool:
            return (words & np.uint64(1)).astype(np.bool_)
        if dt.is_floating_point:
            modulus = (1 << _dt.float_digits(dt)) + 1
        else:
            modulus = int(np.iinfo(dt.np).max) + 1
        return (words % np.uint64(modulus)).astype(np.int64)

    return _fill(dst, values)


# -- randperm -------------------------------------------------------------------------------------------------
def randperm(n: int, gen) -> np.ndarray:
    """``randperm_cpu``'s permutation of ``0 .. n-1`` (int64)."""
    if n < _RANDPERM_SMALL:
        return _dk.randperm_small(gen, n)
    return _dk.randperm_large(_dk.words64(gen, n), n)
