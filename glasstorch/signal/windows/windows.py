"""The window functions of ``torch.signal.windows`` (``torch/signal/windows/windows.py``), SciPy's definitions.

Each window samples its formula at ``M`` points of a ``linspace`` (a symmetric window when ``sym``, else the first
``M`` points of the symmetric window of ``M + 1``), as PyTorch's do, over public operators, so ``requires_grad``
and ``device`` behave as for any factory.  ``kaiser`` is the ``kaiser_window`` factory (the same samples of
``I0(beta sqrt(1 - (2n/N - 1)^2)) / I0(beta)``).

Invariant: only float32/float64 strided windows; errors are PyTorch's ValueError/TypeError texts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..._core import dtype as _dt
from ..._core.layout import strided
from ..._functions import arange, empty, linspace, ones, tensor
from ..._generated import functions as _gen

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _checks(function_name: str, M: int, dtype, layout) -> None:
    """``_window_function_checks``: a non-negative length, a strided layout, float32 or float64."""
    if M < 0:
        raise ValueError(f"{function_name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{function_name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dt.float32, _dt.float64):
        raise ValueError(f"{function_name} expects float32 or float64 dtypes, got: {dtype}")


def _start(name, M, dtype, layout, device, requires_grad):
    """The checks, then the 0-point window (or None to go on)."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    _checks(name, M, dtype, layout)
    if M == 0:
        return dtype, empty((0,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    return dtype, None


def _line(start, end, M, dtype, layout, device, requires_grad):
    return linspace(start, end, M, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None,
                requires_grad=False):
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``.

    Example:
        >>> import glasstorch as torch
        >>> torch.signal.windows.exponential(3).shape
        torch.Size([3])
    """
    dtype, early = _start("exponential", M, dtype, layout, device, requires_grad)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if early is not None:
        return early
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / tau
    k = _line(-center * c, (-center + (M - 1)) * c, M, dtype, layout, device, requires_grad)
    return _gen.exp(-_gen.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The cosine (sine) window ``sin(pi (n + 0.5) / M)``."""
    dtype, early = _start("cosine", M, dtype, layout, device, requires_grad)
    if early is not None:
        return early
    c = math.pi / (M + 1 if not sym and M > 1 else M)
    return _gen.sin(_line(0.5 * c, (0.5 + (M - 1)) * c, M, dtype, layout, device, requires_grad))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Gaussian window ``exp(-(n / (2 std))^2)`` around the window's centre."""
    dtype, early = _start("gaussian", M, dtype, layout, device, requires_grad)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if early is not None:
        return early
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / (std * math.sqrt(2))
    k = _line(start * c, (start + (M - 1)) * c, M, dtype, layout, device, requires_grad)
    return _gen.exp(-(k ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Kaiser window with shape parameter ``beta``."""
    dtype, early = _start("kaiser", M, dtype, layout, device, requires_grad)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if early is not None:
        return early
    return _gen.kaiser_window(M, not sym, float(beta), dtype=dtype, layout=layout, device=device,
                              requires_grad=requires_grad)


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The generalised cosine window ``sum_i (-1)^i a[i] cos(2 pi i n / N)``."""
    dtype, early = _start("general_cosine", M, dtype, layout, device, requires_grad)
    if early is not None:
        return early
    if M == 1:
        return ones((1,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    c = 2 * math.pi / (M if not sym else M - 1)
    k = _line(0, (M - 1) * c, M, dtype, layout, device, requires_grad)
    a_i = tensor([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype, requires_grad=requires_grad)
    i = arange(a_i.shape[0], dtype=a_i.dtype, device=a_i.device, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * _gen.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The generalised Hamming window ``alpha - (1 - alpha) cos(2 pi n / N)``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hamming window (``general_hamming`` with alpha 0.54)."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hann window (``general_hamming`` with alpha 0.5)."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Bartlett (triangular) window ``1 - |2n/N - 1|``."""
    dtype, early = _start("bartlett", M, dtype, layout, device, requires_grad)
    if early is not None:
        return early
    if M == 1:
        return ones((1,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    c = 2 / (M if not sym else M - 1)
    return 1 - _gen.abs(_line(-1, -1 + (M - 1) * c, M, dtype, layout, device, requires_grad))


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Blackman window (``general_cosine`` with 0.42, 0.5, 0.08)."""
    _start("blackman", M, _dt.get_default_dtype() if dtype is None else dtype, layout, device, requires_grad)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)
