"""Factories (glasstorch/_functions.py) against real PyTorch: bad arguments raise PyTorch's exception type and
text (the factories run PyTorch's Python signatures through the argument parser), and ``out=`` is honoured.

Each case is a line of Python run with ``m`` bound to glasstorch and to torch, ``x`` a float 2x3 tensor.
"""

import re
import warnings

import pytest
import torch

import glasstorch as gt

CASES = [
    # TensorOptions keywords of the wrong type
    "m.ones(2, dtype='a')", "m.zeros(2, device=1.5)", "m.ones(2, layout=1)", "m.ones(2, requires_grad='a')",
    "m.zeros(2, pin_memory='a')", "m.empty(2, memory_format=1)", "m.full((2,), 1, dtype='a')",
    "m.zeros_like(x, dtype='a')", "m.ones_like(x, device=1.5)", "m.full_like(x, 'a')", "m.empty_like(1)",
    # sizes and counts
    "m.zeros('a')", "m.zeros((2,), 3)", "m.zeros(2, foo=1)", "m.ones(size=2)", "m.empty(2, 'a')", "m.full(2, 1)",
    "m.full((2,), 'a')", "m.zeros(-1)", "m.empty(-1)", "m.ones(2, 2**70)", "m.zeros(2, size=(2,))",
    # generators and out=
    "m.randn(2, generator=1)", "m.rand(2, dtype=1)", "m.randn(2, foo=1)", "m.zeros(2, out=1)",
    "m.ones(2, out=m.empty(3), dtype=m.float64)", "m.randn(2, out=x.requires_grad_())",
    "m.zeros(2, out=m.empty(0), device='meta')",
    # split: an int goes to split (two signatures), anything else to split_with_sizes
    "x.split('a')", "x.split(1.5)", "m.split(x, 'a')", "x.split(1, 'a')", "x.split([1, 'a'], 1)", "x.split([1, 2])",
    # out= of the numbers-as-tensors ops: the number is wrapped as a 0-dim tensor
    "m.add(x, x, out=1)", "m.mul(x, 2, out=True)", "m.sub(x, 1, out=2)",
]


def _outcome(m, code):
    x = m.ones(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = eval(code, {"m": m, "x": x})  # noqa: S307 - the cases are literals of this file
        except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
            # PyTorch puts a C++ backtrace into some messages (before the closing quote); it is left out
            return type(e).__name__, re.sub(r"\nException raised from .*(?=\"$)", "", str(e), flags=re.DOTALL)
    return "ok", tuple(r.shape), str(r.dtype)


@pytest.mark.parametrize("code", CASES)
def test_factory_error(code):
    assert _outcome(gt, code) == _outcome(torch, code)


OUT_CALLS = [
    "m.zeros(2, 3, out=o)", "m.ones((4,), out=o)", "m.full((2, 2), 7.5, out=o)", "m.empty(0, out=o)",
    "m.zeros(2, out=o, dtype=m.float32)", "m.ones(3, out=o, requires_grad=True)",
]


@pytest.mark.parametrize("code", OUT_CALLS)
def test_factory_out(code):
    """The result is the ``out`` tensor itself, resized and filled."""
    def run(m):
        o = m.empty(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = eval(code, {"m": m, "o": o})  # noqa: S307 - the cases are literals of this file
        values = r.detach().tolist() if "empty" not in code else None
        return r is o, tuple(r.shape), str(r.dtype), r.requires_grad, values
    assert run(gt) == run(torch)


def test_random_factories_with_generator_and_out():
    for m in (gt, torch):
        g = m.Generator().manual_seed(0)
        o = m.empty(0)
        r = m.randn(2, 3, generator=g, out=o)
        assert r is o and tuple(o.shape) == (2, 3)
        assert tuple(m.rand(4, generator=None).shape) == (4,)
