"""Layout conversions and compressed-layout kernels (SparseCsrCPU) — PyTorch's
``aten/src/ATen/native/TensorConversions.cpp`` (``_to_sparse*``, ``to_dense``) and ``SparseCsrTensor.cpp``.

Every conversion goes through the COO entries of the source, pattern kept: a specified zero stays specified, so
``x.to_sparse().to_sparse_csr()`` has ``x``'s nnz (gradcheck's densify relies on it).  Strided sources specify
their nonzero entries; block layouts specify every element of a stored block.  The compressed layouts are
supported for matrices (no batch dims, no dense dims), as the conversions here need.

Invariant: conversions copy; the result never aliases the source's parts.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core.layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from ...._tensor.sparse import BLOCKED, COMPRESSED_LAYOUTS, ROW_COMPRESSED, sparse_compressed_impl, sparse_coo_impl
from ...aten import aten
from .coo import coalesce_np, coo_from_np, coo_parts_np, dense_to_sparse_coo, np_impl

__all__ = ["sparse_compressed_tensor_unsafe", "to_sparse_any", "to_sparse_dim", "to_sparse_csr_any",
           "to_sparse_csc_any", "to_sparse_bsr_any", "to_sparse_bsc_any", "compressed_to_dense", "compressed_nnz",
           "compressed_sparse_dim", "compressed_dense_dim", "compressed_values", "crow_indices_compressed",
           "col_indices_compressed", "ccol_indices_compressed", "row_indices_compressed", "compressed_sum",
           "value_positions", "compressed_clone", "layout_name", "sparse_mask_compressed", "transpose_compressed",
           "t_compressed"]

_LAYOUT_NAMES = {strided: "Strided", sparse_coo: "Sparse", sparse_csr: "SparseCsr", sparse_csc: "SparseCsc",
                 sparse_bsr: "SparseBsr", sparse_bsc: "SparseBsc"}


def layout_name(layout) -> str:
    """A layout as PyTorch's C++ prints it (``SparseCsr``)."""
    return _LAYOUT_NAMES[layout]


def _layout_of(t):
    return strided if t.sparse is None else t.sparse.layout


# -- the COO entries of any layout ---------------------------------------------------------------------------------
def _compressed_entries(t) -> tuple:
    """(rows, cols, values) of each stored element of a compressed matrix, in storage order."""
    sp = t.sparse
    ci, pi, vals = sp.compressed_indices.values_np(), sp.plain_indices.values_np(), sp.values.values_np()
    comp = np.repeat(np.arange(ci.size - 1), np.diff(ci))
    rows, cols = (comp, pi) if sp.layout in ROW_COMPRESSED else (pi, comp)
    if sp.layout in BLOCKED:
        br, bc = sp.blocksize
        rows = (rows[:, None, None] * br + np.arange(br)[None, :, None]) + np.zeros((1, 1, bc), np.int64)
        cols = (cols[:, None, None] * bc + np.arange(bc)[None, None, :]) + np.zeros((1, br, 1), np.int64)
        return rows.reshape(-1), cols.reshape(-1), vals.reshape(-1)
    return rows, cols, vals


def value_positions(t) -> np.ndarray:
    """The flat row-major dense position of every element of ``t``'s values (in their memory order)."""
    sp = t.sparse
    if sp.layout is sparse_coo:
        idx = sp.indices.values_np()
        sparse_sizes, dense_sizes = t.sizes[:sp.sparse_dim], t.sizes[sp.sparse_dim:]
        lin = np.ravel_multi_index(tuple(idx), sparse_sizes) if sp.sparse_dim else np.zeros(sp.nnz, np.int64)
        dn = int(np.prod(dense_sizes, dtype=np.int64))
        return (lin[:, None] * dn + np.arange(dn)[None, :]).reshape(-1)
    rows, cols, _ = _compressed_entries(t)
    return np.ravel_multi_index((rows, cols), t.sizes)


def _coo_entries(t, funcname, layout_to) -> tuple:
    """Coalesced 2-d COO parts (indices, values) of ``t``'s specified elements."""
    src = _layout_of(t)
    if src is strided:
        if t.ndim != 2:
            raise RuntimeError(f"{funcname}: expected 2-dimensional input for the {layout_name(layout_to)} layout "
                               f"(batch and dense dims are not supported by glasstorch), got {t.ndim} dims")
        coo = dense_to_sparse_coo(t.values_np(), 2, t.dtype, t.device)
        return coo_parts_np(coo)
    if src is sparse_coo:
        if t.sparse.sparse_dim != 2:
            raise RuntimeError(f"coo_to_sparse_{layout_name(layout_to)[6:].lower()}: conversion from Sparse to "
                               f"{layout_name(layout_to)} for input tensors with sparse_dim()!=2 is not supported")
        idx, vals = coo_parts_np(t)
        return coalesce_np(idx, vals, t.sizes[:2]) if not t.sparse.coalesced else (idx, vals)
    rows, cols, vals = _compressed_entries(t)
    return coalesce_np(np.stack([rows, cols]), vals, t.sizes)


def _build_compressed(idx, vals, sizes, layout, blocksize, dtype, device):
    rows, cols = idx[0], idx[1]
    row_major = layout in ROW_COMPRESSED
    if layout in BLOCKED:
        br, bc = blocksize
        if sizes[0] % br or sizes[1] % bc:
            raise RuntimeError(f"Tensor size({0 if sizes[0] % br else 1}) {sizes[0] if sizes[0] % br else sizes[1]} "
                               f"needs to be divisible by blocksize[{0 if sizes[0] % br else 1}] "
                               f"{br if sizes[0] % br else bc}")
        nbr, nbc = sizes[0] // br, sizes[1] // bc
        brow, bcol = rows // br, cols // bc
        lin = brow * nbc + bcol if row_major else bcol * nbr + brow
        uniq, inverse = np.unique(lin, return_inverse=True)
        blocks = np.zeros((uniq.size, br, bc), vals.dtype)
        blocks[inverse.reshape(-1), rows % br, cols % bc] = vals
        comp, plain = (uniq // nbc, uniq % nbc) if row_major else (uniq // nbr, uniq % nbr)
        ncomp, values = (nbr if row_major else nbc), blocks
    else:
        order = np.lexsort((cols, rows)) if row_major else np.lexsort((rows, cols))
        comp, plain = (rows[order], cols[order]) if row_major else (cols[order], rows[order])
        ncomp, values = (sizes[0] if row_major else sizes[1]), vals[order]
    crow = np.concatenate([[0], np.cumsum(np.bincount(comp, minlength=ncomp))]).astype(np.int64)
    return sparse_compressed_impl(layout, np_impl(crow, _dt.int64, device), np_impl(plain, _dt.int64, device),
                                  np_impl(values, dtype, device), tuple(sizes))


# -- kernels -------------------------------------------------------------------------------------------------------
def sparse_compressed_tensor_unsafe(compressed_indices, plain_indices, values, size, dtype=None, layout=None,
                                    device=None, pin_memory=None):
    """``_sparse_compressed_tensor_unsafe``: a compressed tensor over the given parts (aliased)."""
    if layout not in COMPRESSED_LAYOUTS:
        shown = "Strided" if layout is None else layout_name(layout)
        raise RuntimeError(f"sparse_compressed_tensor expected sparse compressed tensor layout but got {shown}")
    if dtype is not None and dtype is not values.dtype:
        values = aten._to_copy(values, dtype, None, None, None, False, None)
    return sparse_compressed_impl(layout, compressed_indices, plain_indices, values, tuple(size))


def to_sparse_dim(self, sparse_dim):
    """``_to_sparse.sparse_dim``: the COO tensor of ``self`` with ``sparse_dim`` sparse dims."""
    src = _layout_of(self)
    if src is strided:
        if sparse_dim == 0 and self.ndim > 0:
            raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
        if sparse_dim < 0 or sparse_dim > self.ndim:
            raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{self.ndim}] range, but "
                               f"{sparse_dim} is given")
        return dense_to_sparse_coo(self.values_np(), sparse_dim, self.dtype, self.device)
    if src is sparse_coo:
        if sparse_dim != self.sparse.sparse_dim:
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                               "!=self.sparse_dim() is not supported")
        sp = self.sparse
        return sparse_coo_impl(sp.indices, sp.values, self.sizes, sp.coalesced)
    if sparse_dim != 2:
        raise RuntimeError(f"to_sparse: conversion from {layout_name(src)} to Sparse with sparse_dim argument !=2 is "
                           f"not supported")
    rows, cols, vals = _compressed_entries(self)  # storage order: coalesced only when that is row-major
    return coo_from_np(np.stack([rows, cols]), vals, self.sizes, self.dtype, self.device, src is sparse_csr)


def to_sparse_any(self, layout=None, blocksize=None, dense_dim=None):
    """``_to_sparse``: ``self`` in ``layout`` (COO by default)."""
    layout = sparse_coo if layout is None else layout
    if layout is sparse_coo:
        if blocksize is not None:
            raise RuntimeError("to_sparse for Strided to Sparse conversion does not use specified blocksize")
        return to_sparse_dim(self, self.ndim - (dense_dim or 0) if self.sparse is None else
                             self.sparse.sparse_dim if self.sparse.layout is sparse_coo else 2)
    if layout in BLOCKED and blocksize is None:
        raise RuntimeError(f"to_sparse for {layout_name(_layout_of(self))} to {layout_name(layout)} conversion "
                           f"requires blocksize")
    return _to_compressed(self, layout, blocksize, dense_dim, "to_sparse")


def _to_compressed(self, layout, blocksize, dense_dim, funcname):
    src = _layout_of(self)
    if dense_dim:
        raise RuntimeError(f"{funcname}: dense dimensions of the {layout_name(layout)} layout are not supported "
                           f"by glasstorch")
    if src in BLOCKED and layout not in BLOCKED:
        raise RuntimeError(f"sparse_compressed_to_sparse_{layout_name(layout)[6:].lower()}: expected SparseCsr or "
                           f"SparseCsc layout but got {layout_name(src)}")
    idx, vals = _coo_entries(self, funcname, layout)
    return _build_compressed(idx, vals, self.sizes, layout, tuple(blocksize) if blocksize else None, self.dtype,
                             self.device)


def to_sparse_csr_any(self, dense_dim=None):
    return _to_compressed(self, sparse_csr, None, dense_dim, "to_sparse_csr")


def to_sparse_csc_any(self, dense_dim=None):
    return _to_compressed(self, sparse_csc, None, dense_dim, "to_sparse_csc")


def to_sparse_bsr_any(self, blocksize, dense_dim=None):
    return _to_compressed(self, sparse_bsr, blocksize, dense_dim, "to_sparse_bsr")


def to_sparse_bsc_any(self, blocksize, dense_dim=None):
    return _to_compressed(self, sparse_bsc, blocksize, dense_dim, "to_sparse_bsc")


def compressed_to_dense(self, dtype=None, masked_grad=None):
    """``_to_dense`` of a compressed tensor."""
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_csr_to_dense")
    rows, cols, vals = _compressed_entries(self)
    out = np.zeros(self.sizes, vals.dtype)
    np.add.at(out, (rows, cols), vals)
    return np_impl(out, self.dtype, self.device)


def compressed_nnz(self) -> int:
    return self.sparse.nnz


def compressed_sparse_dim(self) -> int:
    return 2


def compressed_dense_dim(self) -> int:
    return self.sparse.dense_dim


def _alias(part):
    return part.view_impl(part.sizes, part.strides, part.offset)


def compressed_values(self):
    return _alias(self.sparse.values)


def _indices_of(self, name, layouts, part):
    if self.sparse.layout not in layouts:
        raise RuntimeError(f"{name} expected sparse {'row' if layouts[0] in ROW_COMPRESSED else 'column'} "
                           f"compressed tensor layout but got {layout_name(self.sparse.layout)}")
    return _alias(getattr(self.sparse, part))


def crow_indices_compressed(self):
    return _indices_of(self, "crow_indices", ROW_COMPRESSED, "compressed_indices")


def col_indices_compressed(self):
    return _indices_of(self, "col_indices", ROW_COMPRESSED, "plain_indices")


def ccol_indices_compressed(self):
    return _indices_of(self, "ccol_indices", (sparse_csc, sparse_bsc), "compressed_indices")


def row_indices_compressed(self):
    return _indices_of(self, "row_indices", (sparse_csc, sparse_bsc), "plain_indices")


def compressed_sum(self, dtype=None):
    return aten.sum(self.sparse.values, dtype)


def sparse_mask_compressed(self, mask):
    """``sparse_mask`` with a compressed mask: ``self``'s entries on the mask's pattern."""
    if tuple(self.sizes) != tuple(mask.sizes):
        raise RuntimeError("sparse_mask(): operands have incompatible sizes")
    dense = aten._to_dense(self, None, None).as_numpy() if self.sparse is not None else self.values_np()
    sp = mask.sparse
    vals = dense.reshape(-1)[value_positions(mask)].reshape(sp.values.sizes)
    return sparse_compressed_impl(sp.layout, sp.compressed_indices, sp.plain_indices, np_impl(vals, self.dtype,
                                  self.device), mask.sizes)


_TRANSPOSED = {sparse_csr: sparse_csc, sparse_csc: sparse_csr, sparse_bsr: sparse_bsc, sparse_bsc: sparse_bsr}


def transpose_compressed(self, dim0, dim1):
    """``transpose`` of a compressed matrix: the same index arrays read the other way (CSR <-> CSC, BSR <-> BSC,
    blocks transposed)."""
    d0, d1 = sorted(d + self.ndim if d < 0 else d for d in (dim0, dim1))
    if d0 == d1:
        return compressed_clone(self)
    if (d0, d1) != (0, 1) or self.ndim != 2:
        raise RuntimeError("transpose(): glasstorch supports transposing the two sparse dims of a compressed matrix "
                           "only")
    sp = self.sparse
    values = sp.values
    if sp.layout in BLOCKED:
        values = aten.clone(aten.transpose_int(values, 1, 2), None)
    return sparse_compressed_impl(_TRANSPOSED[sp.layout], sp.compressed_indices, sp.plain_indices, values,
                                  (self.sizes[1], self.sizes[0]))


def t_compressed(self):
    return transpose_compressed(self, 0, 1)


def compressed_clone(self, memory_format=None):
    sp = self.sparse
    return sparse_compressed_impl(sp.layout, aten.clone(sp.compressed_indices, None),
                                  aten.clone(sp.plain_indices, None), aten.clone(sp.values, None), self.sizes)

