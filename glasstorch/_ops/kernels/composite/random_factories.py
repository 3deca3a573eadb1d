"""Random factory kernels declared in ``native_functions/random.yaml`` — PyTorch's ``rand``, ``randn``,
``randint`` and ``randperm`` (``TensorFactories.cpp``).

CompositeExplicitAutograd, after BackendSelect has chosen the backend from ``device``: a fresh tensor filled by
the in-place sampler's kernel (``uniform_``, ``normal_``, ``random_.from``), so the stream a generator gives is the
sampler's; called below the dispatcher, as PyTorch's kernel runs below ADInplaceOrView, so the fresh tensor's
version stays 0.  A dispatch mode sees the factory itself (``aten.rand.default``), as in PyTorch.

Invariant: an unset dtype is the default dtype (rand, randn) or int64 (randint, randperm, their schema default).
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core.device import CPU, as_device
from ...._tensor.impl import TensorImpl, empty_impl
from ...factories import check_fits, not_implemented
from ..cpu import random as _rand
from ..cpu import random_ops as _samplers  # the module, so its kernel names stay defined in one place

__all__ = ["rand", "rand_generator", "randn", "randn_generator", "randint", "randint_generator", "randint_low",
           "randint_low_generator", "randperm", "randperm_generator"]


def _fresh(size, dtype, device, default) -> TensorImpl:
    return empty_impl(tuple(size), default if dtype is None else dtype, CPU if device is None else as_device(device))


def rand_generator(size, generator, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    """Uniform samples in [0, 1)."""
    return _samplers.uniform_impl_(_fresh(size, dtype, device, _dt.get_default_dtype()), 0.0, 1.0, generator)


def randn_generator(size, generator, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    """Standard normal samples."""
    return _samplers.normal_impl_(_fresh(size, dtype, device, _dt.get_default_dtype()), 0.0, 1.0, generator)


def randint_low_generator(low, high, size, generator, dtype=None, layout=None, device=None,
                          pin_memory=None) -> TensorImpl:
    """Integers uniform in ``[low, high)``."""
    return _samplers.random_from_impl_(_fresh(size, dtype, device, _dt.int64), low, high, generator)


def randperm_generator(n, generator, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    """A random permutation of ``0 .. n-1``."""
    dtype = _dt.int64 if dtype is None else dtype
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dtype is _dt.bool or dtype.is_complex:
        raise not_implemented("randperm", dtype)
    if n > 0:
        check_fits(n - 1, dtype)  # every value 0 .. n-1 must be representable
    out = _fresh((n,), dtype, device, dtype)
    perm = _rand.randperm(n, _samplers._gen(generator, "randperm"))
    if out.storage._data is not None:
        np.copyto(out.as_numpy(), perm, casting="unsafe")
    return out


def rand(size, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    return rand_generator(size, None, dtype, layout, device, pin_memory)


def randn(size, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    return randn_generator(size, None, dtype, layout, device, pin_memory)


def randint(high, size, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    return randint_low_generator(0, high, size, None, dtype, layout, device, pin_memory)


def randint_generator(high, size, generator, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    return randint_low_generator(0, high, size, generator, dtype, layout, device, pin_memory)


def randint_low(low, high, size, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    return randint_low_generator(low, high, size, None, dtype, layout, device, pin_memory)


def randperm(n, dtype=None, layout=None, device=None, pin_memory=None) -> TensorImpl:
    return randperm_generator(n, None, dtype, layout, device, pin_memory)
