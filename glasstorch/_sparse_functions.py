"""The sparse tensor constructors — PyTorch's ``torch.sparse_coo_tensor`` & co. (``torch/csrc/utils/tensor_new.cpp``
and ``aten/src/ATen/native/sparse/SparseTensor.cpp``, ``SparseCsrTensor.cpp``).

Each turns its index and value arguments into tensors (indices always int64, values by ``torch.tensor``'s
inference or ``dtype``), infers the size when none is given, checks the invariants when asked (argument or
``torch.sparse.check_sparse_tensor_invariants``), and builds the tensor through the differentiable operator
(``_sparse_coo_tensor_with_dims_and_tensors`` / ``_sparse_compressed_tensor_unsafe``), so a ``values`` that
requires grad gives a result with a ``grad_fn``; ``requires_grad=True`` makes the result a leaf that requires grad.

Invariant: the result aliases the given index and value tensors when no conversion is needed.
"""

from __future__ import annotations

from ._core import dtype as _dt
from ._core.layout import sparse_bsc, sparse_bsr, sparse_csc, sparse_csr
from ._functions import tensor as _tensor
from ._ops.aten import aten as _aten
from ._tensor.sparse import COMPRESSED_LAYOUTS, ROW_COMPRESSED
from .sparse import check_sparse_tensor_invariants as _invariants
from .tensor import Tensor, wrap

__all__ = ["sparse_coo_tensor", "sparse_compressed_tensor", "sparse_csr_tensor", "sparse_csc_tensor",
           "sparse_bsr_tensor", "sparse_bsc_tensor"]


def _as_impl(x, dtype=None):
    if isinstance(x, Tensor):
        t = x if dtype is None or x.dtype is dtype else x.to(dtype)
    else:
        t = _tensor(x, dtype=dtype)
    return t._impl


def _values_impl(values, dtype):
    return _as_impl(values, None if isinstance(values, Tensor) else dtype)


def _check_coo(indices, values, size) -> None:
    idx = indices.as_numpy()
    sparse_dim = idx.shape[0]
    for d in range(sparse_dim):
        row = idx[d]
        if row.size and row.min() < 0:
            raise RuntimeError(f"found negative index {int(row.min())} for dim {d}")
        if row.size and row.max() >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found index "
                               f"{int(row.max())}")


def _finish(impl, requires_grad):
    out = wrap(impl)
    if requires_grad:
        out.requires_grad_(True)
    return out


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None) -> Tensor:
    """A COO tensor with ``values[k]`` at ``indices[:, k]``.

    Args:
        indices: ``(sparse_dim, nnz)`` integer indices (any array-like; converted to int64).
        values: ``(nnz, *dense_sizes)`` values.
        size: the tensor's sizes; inferred from the largest index when omitted.

    Raises:
        RuntimeError: PyTorch's messages for mismatched indices, values and size.

    Example:
        >>> torch.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (3,)).to_dense()
        tensor([1., 0., 2.])
    """
    ind = _as_impl(indices, _dt.int64)
    val = _values_impl(values, dtype)
    if ind.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: [{', '.join(str(s) for s in ind.sizes)}]")
    sparse_dim, nnz = ind.sizes
    if val.ndim == 0 or val.sizes[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {val.sizes[0] if val.ndim else 0}")
    dense_dim = val.ndim - 1
    if size is None:
        idx = ind.as_numpy()
        lead = [int(idx[d].max()) + 1 if nnz else 0 for d in range(sparse_dim)]
        size = tuple(lead) + tuple(val.sizes[1:])
    size = tuple(size)
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")
    if check_invariants or (check_invariants is None and _invariants.is_enabled()):
        _check_coo(ind, val, size)
    out = _aten._sparse_coo_tensor_with_dims_and_tensors(sparse_dim, dense_dim, list(size), ind, val, dtype, None,
                                                          None, False, is_coalesced)
    return _finish(out, requires_grad)


def _infer_compressed_size(layout, compressed, plain, values) -> tuple:
    ncomp = compressed.sizes[-1] - 1
    nplain = int(plain.as_numpy().max()) + 1 if plain.numel() else 0
    block = tuple(values.sizes[1:3]) if layout in (sparse_bsr, sparse_bsc) else (1, 1)
    rows, cols = (ncomp, nplain) if layout in ROW_COMPRESSED else (nplain, ncomp)
    return rows * block[0], cols * block[1]


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None, layout=None,
                             device=None, pin_memory=False, requires_grad=False, check_invariants=None) -> Tensor:
    """A CSR/CSC/BSR/BSC tensor (``layout``) from its compressed and plain indices and its values.

    Example:
        >>> torch.sparse_compressed_tensor([0, 1, 2], [0, 1], [1.0, 2.0], (2, 2), layout=torch.sparse_csr).to_dense()
        tensor([[1., 0.],
                [0., 2.]])
    """
    if layout not in COMPRESSED_LAYOUTS:
        raise RuntimeError(f"sparse_compressed_tensor expected sparse compressed tensor layout but got "
                           f"{'Strided' if layout is None else layout}")
    ci, pi = _as_impl(compressed_indices, _dt.int64), _as_impl(plain_indices, _dt.int64)
    val = _values_impl(values, dtype)
    size = _infer_compressed_size(layout, ci, pi, val) if size is None else tuple(size)
    out = _aten._sparse_compressed_tensor_unsafe(ci, pi, val, list(size), dtype, layout, None, None)
    return _finish(out, requires_grad)


def _named(layout, name):
    def ctor(compressed_indices, plain_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
             requires_grad=False, check_invariants=None) -> Tensor:
        return sparse_compressed_tensor(compressed_indices, plain_indices, values, size, dtype=dtype, layout=layout,
                                        device=device, pin_memory=pin_memory, requires_grad=requires_grad,
                                        check_invariants=check_invariants)
    ctor.__name__ = ctor.__qualname__ = name
    ctor.__doc__ = f"``sparse_compressed_tensor(..., layout=torch.{layout})``."
    return ctor


sparse_csr_tensor = _named(sparse_csr, "sparse_csr_tensor")
sparse_csc_tensor = _named(sparse_csc, "sparse_csc_tensor")
sparse_bsr_tensor = _named(sparse_bsr, "sparse_bsr_tensor")
sparse_bsc_tensor = _named(sparse_bsc, "sparse_bsc_tensor")
