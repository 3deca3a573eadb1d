"""``addr``: ``beta * self + alpha * outer(vec1, vec2)`` — PyTorch's ``addr`` of ``LinearAlgebra.cpp`` with its CPU
``addr_kernel``.

``self`` is expanded to the outer product's shape and the three operands go through one TensorIterator (promotion to
their common dtype, safe casting into ``out``). As in PyTorch: ``beta == 0`` ignores ``self`` (its NaNs too), a bool
result is ``(self and beta) or (vec1 and vec2 and alpha)``, integral results refuse floating ``beta``/``alpha``, and
every operation rounds in the result's dtype (float16/bfloat16 included: Vectorized<Half> rounds per operation).

Invariant: ``vec1`` and ``vec2`` are 1-D; the result has shape ``(len(vec1), len(vec2))``.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...aten import aten
from ...tensor_iterator import build
from .pointwise_support import cast_outputs

__all__ = ["addr", "addr_out", "addr_"]


def _check_scalar(dtype, value, name):
    if not (dtype.is_floating_point or dtype.is_complex) and isinstance(value, (float, complex)):
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")


def _check_vectors(vec1, vec2):
    for t, name in ((vec1, "vec1"), (vec2, "vec2")):
        if t.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t.ndim}-D")


def _fmt(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def addr_out(self, vec1, vec2, beta=1, alpha=1, out=None):
    _check_vectors(vec1, vec2)
    n, m = vec1.sizes[0], vec2.sizes[0]
    it = build((out,), (aten.expand(self, (n, m), False), aten.view(vec1, (n, 1)), vec2), cast_outputs=True)
    dt = it.common_dtype
    _check_scalar(dt, beta, "beta")
    _check_scalar(dt, alpha, "alpha")
    if it.is_meta:
        return it.out
    a, v1, v2 = it.ins_np
    if dt is _dt.bool:
        res = v1 & v2 & bool(alpha)
        if beta:
            res = res | (a & bool(beta))
    else:  # each operation rounded in the dtype itself, in the kernel's order (no fused multiply-add)
        work = dt.np
        with np.errstate(all="ignore"):
            res = np.asarray(alpha).astype(work) * v1 * v2
            if beta != 0:
                res = np.asarray(beta).astype(work) * a + res
    np.copyto(it.out_np, res, casting="unsafe")
    return cast_outputs(it)


def addr(self, vec1, vec2, beta=1, alpha=1):
    return addr_out(self, vec1, vec2, beta, alpha, None)


def addr_(self, vec1, vec2, beta=1, alpha=1):
    """In place: ``self`` must already be the outer product's 2-D shape (no broadcasting into it)."""
    _check_vectors(vec1, vec2)
    if self.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")
    if self.sizes != (vec1.sizes[0], vec2.sizes[0]):
        raise RuntimeError(f"size mismatch, input: {_fmt(self.sizes)}, v1: {_fmt(vec1.sizes)}, v2: {_fmt(vec2.sizes)}")
    return addr_out(self, vec1, vec2, beta, alpha, self)
