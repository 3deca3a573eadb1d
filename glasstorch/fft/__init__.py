"""``glasstorch.fft`` — PyTorch's ``torch.fft``: the discrete Fourier transforms (``fft``, ``ifft``, ``rfft``,
``irfft``, ``hfft``, ``ihfft`` in 1, 2 and n dimensions), ``fftfreq``/``rfftfreq`` and ``fftshift``/``ifftshift``.

Each is the generated binding of an ``aten::fft_*`` operator (``python_module: fft`` in
``_ops/native_functions/spectral.yaml``) under its short name; the operators are compositions of the
``_fft_r2c``/``_fft_c2r``/``_fft_c2c`` primitives (``_ops/decompositions/fft.py``).

Invariant: no data is touched here; every result comes from an operator.

Example:
    >>> import glasstorch as torch
    >>> torch.fft.rfft(torch.ones(4))
    tensor([4.+0.j, 0.+0.j, 0.+0.j])
"""

from __future__ import annotations

from .._generated import functions as _gen

__all__ = []
for _name in getattr(_gen, "FFT_FUNCTIONS", ()):
    _short = _name.removeprefix("fft_")
    globals()[_short] = getattr(_gen, _name)
    __all__.append(_short)
del _name, _short
