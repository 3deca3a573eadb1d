"""Decompositions of the sparse layout conversions (CompositeImplicitAutograd) — PyTorch's ``to_dense``,
``to_sparse*`` and ``coalesce`` in ``aten/src/ATen/native/TensorConversions.cpp`` and ``SparseTensor.cpp``.

Each public conversion returns its input when it already has the asked layout and otherwise calls the
differentiable ``_to_*`` operator, so autograd records the conversion (not the public name).

Invariant: ``to_dense`` of a strided tensor and ``coalesce`` of a coalesced one are the input itself.
"""

from __future__ import annotations

from ..._core.layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from ..aten import aten
from ..factories import full_impl
from ..kernels.sparse.compressed import layout_name

__all__ = ["to_dense", "to_sparse_sparse_dim", "to_sparse", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
           "to_sparse_bsc", "coalesce", "sparse_mm"]


def to_dense(self, dtype=None, masked_grad=None):
    if self.sparse is not None:
        return aten._to_dense(self, dtype, masked_grad)
    return self if dtype is None or dtype is self.dtype else aten._to_copy(self, dtype, None, None, None, False, None)


def to_sparse_sparse_dim(self, sparse_dim):
    return aten._to_sparse_sparse_dim(self, sparse_dim)


def _same_blocks(self, blocksize) -> bool:
    return blocksize is None or tuple(blocksize) == self.sparse.blocksize


def to_sparse(self, layout=None, blocksize=None, dense_dim=None):
    wanted = sparse_coo if layout is None else layout
    if wanted is strided:
        return to_dense(self)
    if self.layout is wanted and (wanted not in (sparse_bsr, sparse_bsc) or _same_blocks(self, blocksize)):
        return self
    return aten._to_sparse(self, layout, blocksize, dense_dim)


def to_sparse_csr(self, dense_dim=None):
    return self if self.layout is sparse_csr else aten._to_sparse_csr(self, dense_dim)


def to_sparse_csc(self, dense_dim=None):
    return self if self.layout is sparse_csc else aten._to_sparse_csc(self, dense_dim)


def to_sparse_bsr(self, blocksize, dense_dim=None):
    if self.layout is sparse_bsr and _same_blocks(self, blocksize):
        return self
    return aten._to_sparse_bsr(self, blocksize, dense_dim)


def to_sparse_bsc(self, blocksize, dense_dim=None):
    if self.layout is sparse_bsc and _same_blocks(self, blocksize):
        return self
    return aten._to_sparse_bsc(self, blocksize, dense_dim)


def coalesce(self):
    if self.layout is not sparse_coo:
        raise RuntimeError(f"coalesce expected sparse coordinate tensor layout but got {layout_name(self.layout)}")
    return self if self.sparse.coalesced else aten._coalesce(self)


def sparse_mm(sparse, dense):
    """``torch.sparse.mm(sparse, dense)``: ``_sparse_addmm`` into zeros, whose gradient keeps ``sparse``'s pattern."""
    zeros = full_impl((sparse.sizes[0], dense.sizes[1]), 0, sparse.dtype, sparse.device)
    return aten._sparse_addmm(zeros, sparse, dense, 0, 1)

