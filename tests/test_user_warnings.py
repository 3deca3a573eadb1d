"""Kernel warnings name the user's line, as PyTorch's TORCH_WARN does, whichever path the call took (a binding's
fast path or parser, autograd recording or not): ``glasstorch/_core/user_warning.py``."""

from __future__ import annotations

import warnings

import pytest

import glasstorch as gt

CASES = {
    "out= resize, fast path": lambda: gt.add(gt.ones(3), gt.ones(3), out=gt.empty(2)),
    "out= resize, parser": lambda: gt.add(gt.ones(3), gt.ones(3), alpha=2, out=gt.empty(2)),
    "out= resize, autograd input": lambda: gt.mul(gt.ones(3), 2.0, out=gt.empty(2)),
    "uint8 index": lambda: gt.arange(3.0)[gt.tensor([1, 0, 1], dtype=gt.uint8)],
    "index_put_ on expanded": lambda: gt.zeros(1).expand(3).index_put_((gt.tensor([0]),), gt.tensor(1.0)),
    "ger out=": lambda: gt.ger(gt.ones(2), gt.ones(2), out=gt.empty(2, 2)),
    "var, no degrees of freedom": lambda: gt.ones(1).var(),
    "std_mean, no degrees of freedom": lambda: gt.std_mean(gt.ones(1)),
    "complex to real copy": lambda: gt.zeros(2).copy_(gt.ones(2, dtype=gt.complex64)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_warning_points_at_the_callers_line(name):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        CASES[name]()
    mine = [w for w in seen if issubclass(w.category, UserWarning)]
    assert mine, f"{name}: no warning"
    assert all(w.filename == __file__ for w in mine), [(w.filename, w.lineno, str(w.message)[:60]) for w in mine]


def test_warning_inside_a_user_function_names_that_function():
    def helper():
        return gt.ones(1).var()  # the warning's line
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        helper()
    (w,) = [w for w in seen if issubclass(w.category, UserWarning)]
    assert w.filename == __file__ and w.lineno == helper.__code__.co_firstlineno + 1
