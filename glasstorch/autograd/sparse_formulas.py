"""Backward formulas of the sparse layouts — PyTorch's ``to_dense_backward``, ``to_sparse_backward``,
``values_backward``, ``sparse_mask_backward`` (``FunctionsManual.cpp``, ``TensorConversions.cpp``) and the sparse
constructors' entries of ``derivatives.yaml``, over public Tensors; the generated nodes import these next to
``formulas.py``.

Note [Sparse: autograd semantics]
As PyTorch's: ``to_dense`` defaults to masked gradients (the gradient of an unspecified element is dropped:
``grad.sparse_mask(input)``), ``to_dense(masked_grad=False)`` keeps every element; the gradient of a conversion is
the incoming gradient converted back to the input's layout; ``_values()`` is not differentiable, ``values()`` is.

Invariant: only differentiable operators, so double backward works where the sparse kernels have formulas.
"""

from __future__ import annotations

from .._core.layout import sparse_bsc, sparse_bsr, sparse_coo, strided
from . import formulas as _formulas

__all__ = ["to_dense_backward", "to_sparse_backward", "values_backward", "sparse_mask_backward",
           "mm_mat1_sparse_backward"]


def _torch():
    return _formulas._T


def to_dense_backward(grad, self, masked_grad):
    """The gradient of ``_to_dense``, in the input's layout (Note [Sparse: autograd semantics])."""
    masked = True if masked_grad is None else masked_grad
    layout = self.layout
    if layout is sparse_coo:
        return grad.sparse_mask(self.coalesce()) if masked else grad.to_sparse(self.sparse_dim())
    blocksize = tuple(self.values().shape[1:3]) if layout in (sparse_bsr, sparse_bsc) else None
    if masked:
        return grad.sparse_mask(self.to_sparse(self.sparse_dim())).to_sparse(layout=layout, blocksize=blocksize)
    return grad.to_sparse(layout=layout, blocksize=blocksize, dense_dim=self.dense_dim())


def to_sparse_backward(grad, self_layout, self_blocksize):
    """The gradient of a layout conversion: back to the input's layout."""
    if self_layout is strided:
        return grad.to_dense()
    return grad.to_sparse(layout=self_layout, blocksize=self_blocksize)


def values_backward(grad, self):
    """The gradient of ``values()``: a sparse tensor of the input's pattern holding ``grad``."""
    T = _torch()
    if self.layout is sparse_coo:
        return T.sparse_coo_tensor(self.indices(), grad, self.shape, is_coalesced=True)
    row = self.layout in (T.sparse_csr, T.sparse_bsr)
    compressed = self.crow_indices() if row else self.ccol_indices()
    plain = self.col_indices() if row else self.row_indices()
    return T.sparse_compressed_tensor(compressed, plain, grad, self.shape, layout=self.layout)


def sparse_mask_backward(grad, mask, self_layout):
    """The gradient of ``sparse_mask``: ``grad`` on the mask's pattern, dense for a strided input."""
    out = grad.sparse_mask(mask)
    return out.to_dense() if self_layout is strided else out


def mm_mat1_sparse_backward(grad, mat1, mat2, alpha):
    """The gradient of ``_sparse_addmm`` for its sparse ``mat1``: ``alpha * grad @ mat2^T`` on ``mat1``'s pattern."""
    return _formulas.maybe_multiply(grad.mm(mat2.t()), alpha).sparse_mask(mat1.coalesce())

