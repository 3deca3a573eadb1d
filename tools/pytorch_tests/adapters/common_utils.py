"""The few ``common_utils`` helpers whose body calls ``torch.*`` on the test's tensors, for the glasstorch variant.

``gradcheck`` and ``gradgradcheck`` are torch's own wrappers (their defaults: batched-grad checks, fast mode) with
their module's ``torch`` bound to glasstorch, so glasstorch's gradcheck runs with exactly the harness's defaults.
``set_default_dtype`` sets glasstorch's default dtype, as the harness sets torch's, and ``set_warn_always_context``
glasstorch's warn-always switch. ``freeze_rng_state`` saves and
restores both generators (the test's randomness is glasstorch's; make_tensor's is torch's). The numpy/torch dtype
dictionaries hold glasstorch dtypes (those glasstorch has).
"""

from __future__ import annotations

import contextlib
import types

import torch
from torch.testing._internal import common_utils as _cu

import glasstorch
from tools.pytorch_tests.adapters.convert import glass_dtype


def rebind(fn, **names):
    """A copy of function ``fn`` whose globals see ``names`` (e.g. ``torch=glasstorch``) instead of its module's."""
    env = dict(fn.__globals__, **names)
    new = types.FunctionType(fn.__code__, env, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__doc__ = fn.__doc__
    return new


gradcheck = rebind(_cu.gradcheck, torch=glasstorch)
gradgradcheck = rebind(_cu.gradgradcheck, torch=glasstorch)
_assertGradAndGradgradChecks = rebind(_cu._assertGradAndGradgradChecks, torch=glasstorch, gradcheck=gradcheck,
                                      gradgradcheck=gradgradcheck)


@contextlib.contextmanager
def set_default_dtype(dtype):
    saved = glasstorch.get_default_dtype()
    glasstorch.set_default_dtype(getattr(glasstorch, str(dtype).removeprefix("torch.")))
    try:
        yield
    finally:
        glasstorch.set_default_dtype(saved)


@contextlib.contextmanager
def set_warn_always_context(new_val: bool):
    saved = glasstorch.is_warn_always_enabled()
    glasstorch.set_warn_always(new_val)
    try:
        yield
    finally:
        glasstorch.set_warn_always(saved)


@contextlib.contextmanager
def freeze_rng_state():
    glass_state, torch_state = glasstorch.get_rng_state(), torch.get_rng_state()
    try:
        yield
    finally:
        glasstorch.set_rng_state(glass_state)
        torch.set_rng_state(torch_state)


numpy_to_torch_dtype_dict = {k: glass_dtype(v) for k, v in _cu.numpy_to_torch_dtype_dict.items()
                             if glass_dtype(v) is not None}
torch_to_numpy_dtype_dict = {glass_dtype(k): v for k, v in _cu.torch_to_numpy_dtype_dict.items()
                             if glass_dtype(k) is not None}
dtype2prec_DONTUSE = {glass_dtype(k): v for k, v in _cu.dtype2prec_DONTUSE.items() if glass_dtype(k) is not None}
