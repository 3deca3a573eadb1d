"""glasstorch.sparse — PyTorch's ``torch/sparse/__init__.py``: the switch of sparse invariant checks.

glasstorch has only the strided layout; what lives here is the process-wide flag PyTorch's sparse tensor
constructors read (``check_sparse_tensor_invariants``), with its context-manager and decorator forms, so code
that sets it (test suites do, at import) runs unchanged.

Invariant: leaving a ``check_sparse_tensor_invariants`` block restores the flag it found.
"""

from __future__ import annotations

import functools
import sys

__all__ = ["check_sparse_tensor_invariants", "sum", "mm"]

_CHECK_INVARIANTS = [False]  # off by default, as in PyTorch


class check_sparse_tensor_invariants:
    """Turn the checking of sparse tensor invariants on (or off) — a context manager, decorator or switch.

    Args:
        enable: the state inside the block (default True).

    Raises:
        RuntimeError: one instance entered twice without leaving.

    Example:
        >>> import glasstorch as torch
        >>> with torch.sparse.check_sparse_tensor_invariants():
        ...     torch.sparse.check_sparse_tensor_invariants.is_enabled()
        True
    """

    @staticmethod
    def is_enabled() -> bool:
        return _CHECK_INVARIANTS[0]

    @staticmethod
    def enable() -> None:
        _CHECK_INVARIANTS[0] = True

    @staticmethod
    def disable() -> None:
        _CHECK_INVARIANTS[0] = False

    def __init__(self, enable: bool = True):
        self.state = enable
        self.saved_state: bool | None = None

    def __enter__(self):
        if self.saved_state is not None:
            raise RuntimeError("This context manager instance is already activated. Use a different context manager "
                               "instance for context nesting.")
        self.saved_state = _CHECK_INVARIANTS[0]
        _CHECK_INVARIANTS[0] = self.state

    def __exit__(self, *exc):
        _CHECK_INVARIANTS[0] = self.saved_state
        self.saved_state = None

    def __call__(self, fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            with type(self)(self.state):
                return fn(*args, **kwargs)
        return checked


def sum(input, dim=None, dtype=None):  # noqa: A001 - PyTorch's name
    """The sum of a sparse tensor's specified elements, as a 0-dim dense tensor (``torch.sparse.sum``); its gradient
    is sparse, on the input's pattern (PyTorch's ``_sparse_sum`` is ``coalesce().values().sum()``).

    Example:
        >>> torch.sparse.sum(torch.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse())
        tensor(5.)
    """
    if dim is not None:
        raise NotImplementedError("torch.sparse.sum over dims (_sparse_sum.dim) is not implemented in glasstorch")
    return input.coalesce().values().sum(dtype=dtype)


def mm(mat1, mat2):
    """``mat1 @ mat2`` for a sparse ``mat1`` (``torch.sparse.mm``): dense for a dense ``mat2``, sparse for a sparse
    one; the gradient of a sparse operand keeps its pattern.

    Example:
        >>> torch.sparse.mm(torch.eye(2).to_sparse(), torch.ones(2, 1))
        tensor([[1.],
                [1.]])
    """
    torch = sys.modules["glasstorch"]  # the package above this module, complete by the time of a call
    if mat1.is_sparse and mat2.is_sparse:
        return torch._sparse_sparse_matmul(mat1, mat2)
    return torch._sparse_mm(mat1, mat2)

