"""Window and frequency factories — PyTorch's ``hann_window``, ``hamming_window``, ``bartlett_window``,
``blackman_window``, ``kaiser_window`` (``TensorFactories.cpp``) and ``fft_fftfreq`` / ``fft_rfftfreq``
(``SpectralOps.cpp``).

CompositeExplicitAutograd: one kernel for every backend.  Each window follows PyTorch's arithmetic step by step
(``arange`` in the result dtype, then in-place multiplies and adds by scalars, which the window kernels round to
the dtype first): every step is computed in the dtype's op-math type (float32 for the 16-bit floats) and rounded
to the dtype, as a TensorIterator kernel rounds.  A periodic window of length N is the symmetric one of length
N + 1 without its last point.

Invariant: a factory returns a fresh tensor (or the ``out=`` tensor, resized); an unset dtype is the default.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as _sp

from ...._core import dtype as _dt
from ...._core.device import CPU, as_device
from ...._core.layout import strided
from ...._core.user_warning import warn as _user_warn
from ...._tensor.impl import TensorImpl, empty_impl, from_numpy_impl
from ...tensor_iterator import resize_out
from ..cpu.dispatch_types import not_implemented

__all__ = ["hann_window", "hann_window_periodic", "hann_window_out", "hann_window_periodic_out",
           "hamming_window", "hamming_window_periodic", "hamming_window_periodic_alpha",
           "hamming_window_periodic_alpha_beta", "hamming_window_out", "hamming_window_periodic_out",
           "hamming_window_periodic_alpha_out", "hamming_window_periodic_alpha_beta_out",
           "bartlett_window", "bartlett_window_periodic", "bartlett_window_out", "bartlett_window_periodic_out",
           "blackman_window", "blackman_window_periodic", "blackman_window_out", "blackman_window_periodic_out",
           "kaiser_window", "kaiser_window_periodic", "kaiser_window_beta", "kaiser_window_out",
           "kaiser_window_periodic_out", "kaiser_window_beta_out", "fft_fftfreq", "fft_fftfreq_out",
           "fft_rfftfreq", "fft_rfftfreq_out"]


def _options_text(name, dtype, layout) -> str:
    """PyTorch's ``TensorOptions`` repr, as the window checks print it: only ``hann_window`` checks before its
    unset dtype is filled in (it checks, then calls ``hamming_window``)."""
    if dtype is None:
        dt = "float (default)" if name == "hann_window" else _dt.cpp_type_name(_dt.get_default_dtype(), "typeid")
    else:
        dt = _dt.cpp_type_name(dtype, "typeid")
    lay = "Strided (default)" if layout is None else "Sparse" if layout is not strided else "Strided"
    return (f"TensorOptions(dtype={dt}, device=cpu, layout={lay}, requires_grad=false (default), "
            f"pinned_memory=false, memory_format=(nullopt))")


def _checks(name: str, window_length: int, dtype, layout) -> None:
    """``window_function_checks``: a strided layout, a floating dtype, a non-negative length."""
    resolved = _dt.get_default_dtype() if dtype is None else dtype
    if layout is not None and layout is not strided:
        raise RuntimeError(f"{name} is not implemented for sparse types, got: {_options_text(name, dtype, layout)}")
    if not (resolved.is_floating_point or resolved.is_complex):
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_options_text(name, dtype, layout)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if resolved.is_complex:
        raise not_implemented("arange_cpu", resolved)


class _Steps:
    """Element-wise steps in a dtype: each result rounded to the dtype, computed in its op-math type."""

    def __init__(self, dtype):
        self.np = dtype.np
        self.math = np.float64 if dtype is _dt.float64 else np.float32

    def r(self, a):
        return np.asarray(a, dtype=self.math).astype(self.np).astype(self.math)

    def arange(self, n):
        return self.r(np.arange(n))

    def scalar(self, s):
        """A Python scalar as the window kernels see it: rounded to the dtype (a 16-bit float loses bits)."""
        return self.math(self.np.type(s))

    def mul(self, a, s):
        return self.r(a * self.scalar(s))

    def add(self, a, s):
        return self.r(a + self.scalar(s))

    def cos(self, a):
        return self.r(np.cos(a))


def _make(dtype, device, values) -> TensorImpl:
    dev = CPU if device is None else as_device(device)
    n = len(values)
    if dev.type == "meta" or n == 0:
        return empty_impl((n,), dtype, dev)
    return from_numpy_impl(np.ascontiguousarray(np.asarray(values).astype(dtype.np)).reshape(n), dtype, dev)


def _hamming_values(st, N, alpha, beta):
    w = st.mul(st.arange(N), math.pi * 2.0 / (N - 1))
    return st.add(st.mul(st.cos(w), -beta), alpha)


def _blackman_values(st, N):
    w = st.mul(st.arange(N), math.pi / (N - 1))
    a = st.mul(st.cos(st.mul(w, 4)), 0.08)
    b = st.mul(st.cos(st.mul(w, 2)), 0.5)
    return st.add(st.r(a - b), 0.42)


def _bartlett_values(st, N):
    w = st.mul(st.arange(N), 2.0 / (N - 1))
    first = ((N - 1) >> 1) + 1
    w[first:] = st.add(st.mul(w[first:], -1), 2)
    return w


def _kaiser_values(st, N, beta):
    alpha = st.math((N - 1) / 2.0)
    a = st.arange(N)
    inner = np.sqrt(np.abs(1 - ((a - alpha) / alpha) ** 2)).astype(st.math)
    return st.r(_sp.i0(st.math(beta) * inner) / _sp.i0(st.math(beta)))


def _window(name, values_fn):
    """The kernel of one window: the checks, the 0- and 1-point cases, then ``values_fn(steps, N, *params)``."""
    def build(window_length, periodic, params, dtype, layout, device):
        _checks(name, window_length, dtype, layout)
        dtype = _dt.get_default_dtype() if dtype is None else dtype
        if window_length <= 1:
            return _make(dtype, device, np.ones(window_length))
        N = window_length + 1 if periodic else window_length
        values = values_fn(_Steps(dtype), N, *params)
        return _make(dtype, device, values[:window_length])
    return build


def _into(out: TensorImpl, res: TensorImpl) -> TensorImpl:
    resize_out(out, res.sizes)
    if out.storage._data is not None and res.numel():
        out.as_numpy()[...] = res.as_numpy()
    return out


_hann = _window("hann_window", lambda st, N: _hamming_values(st, N, 0.5, 0.5))
_hamming = _window("hamming_window", _hamming_values)
_bartlett = _window("bartlett_window", _bartlett_values)
_blackman = _window("blackman_window", _blackman_values)
_kaiser = _window("kaiser_window", _kaiser_values)


def hann_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return _hann(window_length, True, (), dtype, layout, device)


def hann_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    return _hann(window_length, periodic, (), dtype, layout, device)


def hann_window_out(window_length, out):
    return _into(out, _hann(window_length, True, (), out.dtype, None, out.device))


def hann_window_periodic_out(window_length, periodic, out):
    return _into(out, _hann(window_length, periodic, (), out.dtype, None, out.device))


def hamming_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return _hamming(window_length, True, (0.54, 0.46), dtype, layout, device)


def hamming_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    return _hamming(window_length, periodic, (0.54, 0.46), dtype, layout, device)


def hamming_window_periodic_alpha(window_length, periodic, alpha, dtype=None, layout=None, device=None,
                                  pin_memory=None):
    return _hamming(window_length, periodic, (alpha, 0.46), dtype, layout, device)


def hamming_window_periodic_alpha_beta(window_length, periodic, alpha, beta, dtype=None, layout=None, device=None,
                                       pin_memory=None):
    return _hamming(window_length, periodic, (alpha, beta), dtype, layout, device)


def hamming_window_out(window_length, out):
    return _into(out, _hamming(window_length, True, (0.54, 0.46), out.dtype, None, out.device))


def hamming_window_periodic_out(window_length, periodic, out):
    return _into(out, _hamming(window_length, periodic, (0.54, 0.46), out.dtype, None, out.device))


def hamming_window_periodic_alpha_out(window_length, periodic, alpha, out):
    return _into(out, _hamming(window_length, periodic, (alpha, 0.46), out.dtype, None, out.device))


def hamming_window_periodic_alpha_beta_out(window_length, periodic, alpha, beta, out):
    return _into(out, _hamming(window_length, periodic, (alpha, beta), out.dtype, None, out.device))


def bartlett_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return _bartlett(window_length, True, (), dtype, layout, device)


def bartlett_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    return _bartlett(window_length, periodic, (), dtype, layout, device)


def bartlett_window_out(window_length, out):
    return _into(out, _bartlett(window_length, True, (), out.dtype, None, out.device))


def bartlett_window_periodic_out(window_length, periodic, out):
    return _into(out, _bartlett(window_length, periodic, (), out.dtype, None, out.device))


def blackman_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return _blackman(window_length, True, (), dtype, layout, device)


def blackman_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    return _blackman(window_length, periodic, (), dtype, layout, device)


def blackman_window_out(window_length, out):
    return _into(out, _blackman(window_length, True, (), out.dtype, None, out.device))


def blackman_window_periodic_out(window_length, periodic, out):
    return _into(out, _blackman(window_length, periodic, (), out.dtype, None, out.device))


def kaiser_window(window_length, dtype=None, layout=None, device=None, pin_memory=None):
    return _kaiser(window_length, True, (12.0,), dtype, layout, device)


def kaiser_window_periodic(window_length, periodic, dtype=None, layout=None, device=None, pin_memory=None):
    return _kaiser(window_length, periodic, (12.0,), dtype, layout, device)


def kaiser_window_beta(window_length, periodic, beta, dtype=None, layout=None, device=None, pin_memory=None):
    return _kaiser(window_length, periodic, (beta,), dtype, layout, device)


def kaiser_window_out(window_length, out):
    return _into(out, _kaiser(window_length, True, (12.0,), out.dtype, None, out.device))


def kaiser_window_periodic_out(window_length, periodic, out):
    return _into(out, _kaiser(window_length, periodic, (12.0,), out.dtype, None, out.device))


def kaiser_window_beta_out(window_length, periodic, beta, out):
    return _into(out, _kaiser(window_length, periodic, (beta,), out.dtype, None, out.device))


# -- fftfreq / rfftfreq -----------------------------------------------------------------------------------------
def _freq(name, n, d, dtype, device, onesided: bool) -> TensorImpl:
    """``fft_fftfreq_out`` / ``fft_rfftfreq_out``: the sample frequencies ``k / (n d)``; fftfreq puts the
    negative ones (from ``-(n // 2)``) in the second half."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if dtype.is_complex:
        raise not_implemented("arange_cpu", dtype)
    count = n // 2 + 1 if onesided else n
    if count < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {count}: [{count}]")
    st = _Steps(dtype)
    k = np.arange(count, dtype=np.float64)
    if not onesided:
        k[(n + 1) // 2:] = np.arange(-(n // 2), 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.float64(1.0) / np.float64(n * d)
    return _make(dtype, device, st.r(st.r(k) * st.math(scale)))


def _freq_into(out: TensorImpl, res: TensorImpl) -> TensorImpl:
    """``arange_out``'s resize: its own warning when ``out`` has elements but the wrong count."""
    count = res.numel()
    if out.numel() not in (0, count):
        _user_warn(f"The number of elements in the out tensor of shape {list(out.sizes)} is {out.numel()} which does "
                   f"not match the computed number of elements {count}. Note that this may occur as a result of "
                   f"rounding error. The out tensor will be resized to a tensor of shape ({count},).")
        need = (out.offset + count) * out.dtype.itemsize
        if need > out.storage.nbytes():
            out.storage.resize_(need)
        out.set_geometry((count,), (1,), out.offset)
    return _into(out, res)


def fft_fftfreq(n, d=1.0, dtype=None, layout=None, device=None, pin_memory=None):
    return _freq("fftfreq", n, d, dtype, device, False)


def fft_fftfreq_out(n, d=1.0, out=None):
    return _freq_into(out, _freq("fftfreq", n, d, out.dtype, out.device, False))


def fft_rfftfreq(n, d=1.0, dtype=None, layout=None, device=None, pin_memory=None):
    return _freq("rfftfreq", n, d, dtype, device, True)


def fft_rfftfreq_out(n, d=1.0, out=None):
    return _freq_into(out, _freq("rfftfreq", n, d, out.dtype, out.device, True))
