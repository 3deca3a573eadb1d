"""Operators PyTorch keeps for its own tests — ``aten/src/ATen/native/TestOps.cpp``.

``_test_warn_in_autograd`` is a copy of its input whose derivative warns (``warn_backwards`` in
``autograd/formulas.py``), so a warning given inside backward can be seen to reach Python.

Invariant: the forward never shares memory with its input (it is a clone).
"""

from __future__ import annotations

from ...._tensor.impl import TensorImpl
from ...aten import aten

__all__ = ["test_warn_in_autograd"]


def test_warn_in_autograd(self: TensorImpl) -> TensorImpl:
    return aten.clone(self, None)
