"""Sparse tensors — PyTorch's ``aten/src/ATen/SparseTensorImpl.h`` and ``SparseCsrTensorImpl.h``.

A sparse tensor is a :class:`TensorImpl` whose ``sparse`` slot holds its parts and whose key set carries SparseCPU
(COO) or SparseCsrCPU (CSR, CSC, BSR, BSC) in place of CPU, so every call with a sparse argument runs the sparse
kernel (Note [Sparse keys] in ``_core/dispatch_key.py``).  It has no strided storage: its sizes are the logical
shape, its storage is empty and reading its data raises.

- COO: ``indices`` (int64, ``(sparse_dim, nnz)``) and ``values`` (``(nnz, *dense_sizes)``); ``coalesced`` says the
  indices are sorted and unique (``is_coalesced``).
- compressed: ``compressed_indices`` (``crow_indices`` or ``ccol_indices``, ``(*batch, n_compressed + 1)``),
  ``plain_indices`` (``col_indices`` or ``row_indices``, ``(*batch, nnz)``) and ``values`` (``(*batch, nnz,
  *block, *dense)``).

Invariant: the parts are TensorImpls of the tensor's device; ``values.dtype`` is the tensor's dtype.
"""

from __future__ import annotations

from .._core.dispatch_key import bit
from .._core.layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr
from .impl import TensorImpl
from .storage import UntypedStorage

__all__ = ["SparseCoo", "SparseCompressed", "sparse_coo_impl", "sparse_compressed_impl", "COMPRESSED_LAYOUTS",
           "ROW_COMPRESSED", "BLOCKED"]

COMPRESSED_LAYOUTS = (sparse_csr, sparse_csc, sparse_bsr, sparse_bsc)
ROW_COMPRESSED = (sparse_csr, sparse_bsr)
BLOCKED = (sparse_bsr, sparse_bsc)
_CPU_BIT, _COO_BIT, _CSR_BIT = bit("CPU"), bit("SparseCPU"), bit("SparseCsrCPU")


class SparseCoo:
    """The parts of a COO tensor (``SparseTensorImpl``)."""

    __slots__ = ("indices", "values", "sparse_dim", "dense_dim", "coalesced")
    layout = sparse_coo

    def __init__(self, indices: TensorImpl, values: TensorImpl, sparse_dim: int, dense_dim: int, coalesced: bool):
        self.indices, self.values = indices, values
        self.sparse_dim, self.dense_dim, self.coalesced = sparse_dim, dense_dim, coalesced

    @property
    def nnz(self) -> int:
        return self.values.sizes[0] if self.values.sizes else 0


class SparseCompressed:
    """The parts of a CSR/CSC/BSR/BSC tensor (``SparseCsrTensorImpl``)."""

    __slots__ = ("layout", "compressed_indices", "plain_indices", "values")

    def __init__(self, layout, compressed_indices: TensorImpl, plain_indices: TensorImpl, values: TensorImpl):
        self.layout = layout
        self.compressed_indices, self.plain_indices, self.values = compressed_indices, plain_indices, values

    @property
    def batch_dim(self) -> int:
        return self.plain_indices.ndim - 1

    @property
    def nnz(self) -> int:
        return self.plain_indices.sizes[-1]

    @property
    def sparse_dim(self) -> int:
        return 2

    @property
    def dense_dim(self) -> int:
        block = 2 if self.layout in BLOCKED else 0
        return self.values.ndim - self.batch_dim - 1 - block

    @property
    def blocksize(self) -> tuple | None:
        if self.layout not in BLOCKED:
            return None
        b = self.batch_dim
        return tuple(self.values.sizes[b + 1:b + 3])


def _shell(sizes, dtype, device, strides, compressed: bool) -> TensorImpl:
    out = TensorImpl(UntypedStorage(0, device=device), tuple(sizes), strides, 0, dtype, device)
    out.key_set = out.key_set & ~_CPU_BIT | (_CSR_BIT if compressed else _COO_BIT)  # inference mode kept
    return out


def sparse_coo_impl(indices: TensorImpl, values: TensorImpl, sizes, coalesced: bool = False) -> TensorImpl:
    """A COO tensor of ``sizes`` over ``indices`` and ``values`` (``_sparse_coo_tensor_with_dims_and_tensors``)."""
    sparse_dim = indices.sizes[0]
    dense_dim = values.ndim - 1
    out = _shell(sizes, values.dtype, values.device, (0,) * len(sizes), False)
    nnz = values.sizes[0] if values.sizes else 0
    out.sparse = SparseCoo(indices, values, sparse_dim, dense_dim, coalesced or nnz <= 1)
    return out


def sparse_compressed_impl(layout, compressed_indices: TensorImpl, plain_indices: TensorImpl, values: TensorImpl,
                           sizes) -> TensorImpl:
    """A compressed-layout tensor of ``sizes`` over its index and value parts (``_sparse_compressed_tensor_unsafe``)."""
    out = _shell(sizes, values.dtype, values.device, (), True)
    out.sparse = SparseCompressed(layout, compressed_indices, plain_indices, values)
    return out
