"""COO kernels (SparseCPU) — PyTorch's ``aten/src/ATen/native/sparse/SparseTensor.cpp``, ``SparseTensorMath.cpp``.

A COO tensor's parts are an int64 ``indices`` matrix ``(sparse_dim, nnz)`` and ``values`` ``(nnz, *dense)``
(``_tensor/sparse.py``).  The kernels work on numpy views of the parts; elementwise sums of duplicates follow
PyTorch: ``coalesce`` sorts the indices in row-major order and adds the values of equal indices.

Invariant: a kernel never writes into the parts of its inputs, except the in-place kernels into ``self``.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core.dtype import promote_types, result_type_groups, scalar_dtype
from ...._core.layout import sparse_coo as _sparse_coo
from ...._tensor.impl import empty_contiguous_numpy
from ...._tensor.sparse import sparse_coo_impl
from ...aten import aten

__all__ = ["new_with_dims_and_tensor_sparse", "sparse_to_dense", "coalesce_sparse", "is_coalesced_sparse",
           "coalesced_sparse_", "nnz_sparse", "sparse_dim_sparse", "dense_dim_sparse", "sparse_dim_strided",
           "dense_dim_strided", "indices_sparse", "values_sparse", "indices_sparse_raw", "values_sparse_raw",
           "sparse_mask_sparse", "add_sparse", "add_sparse_", "mul_sparse", "mul_sparse_", "sum_sparse",
           "mm_sparse", "t_sparse", "transpose_sparse", "clone_sparse", "copy_sparse_", "dense_to_sparse_coo",
           "np_impl", "coo_from_np", "coo_parts_np", "coalesce_np", "neg_sparse", "result_type_impls",
           "sparse_to_dense_np", "is_coalesced_strided", "sparse_addmm"]


# -- building blocks ----------------------------------------------------------------------------------------------
def np_impl(arr: np.ndarray, dtype, device):
    """A fresh contiguous TensorImpl holding a copy of ``arr``."""
    impl, out = empty_contiguous_numpy(tuple(arr.shape), dtype, device)
    out[...] = arr
    return impl


def coo_from_np(indices: np.ndarray, values: np.ndarray, sizes, dtype, device, coalesced: bool):
    return sparse_coo_impl(np_impl(indices.astype(np.int64), _dt.int64, device), np_impl(values, dtype, device),
                           tuple(sizes), coalesced)


def coo_parts_np(t) -> tuple:
    """(indices, values) of a COO impl as numpy arrays (values with the conjugate/negative bits applied)."""
    return t.sparse.indices.values_np(), t.sparse.values.values_np()


def coalesce_np(indices: np.ndarray, values: np.ndarray, sparse_sizes) -> tuple:
    """Sorted unique indices and the summed values of each (PyTorch's ``_coalesce_sparse_cpu``)."""
    nnz = values.shape[0]
    if nnz == 0:
        return indices.copy(), values.copy()
    lin = np.ravel_multi_index(tuple(indices), tuple(sparse_sizes)) if len(sparse_sizes) else np.zeros(nnz, np.int64)
    uniq, inverse = np.unique(lin, return_inverse=True)
    out = np.zeros((uniq.size,) + values.shape[1:], values.dtype)
    np.add.at(out, inverse.reshape(-1), values)
    if not len(sparse_sizes):
        return np.zeros((0, uniq.size), np.int64), out
    idx = np.array(np.unravel_index(uniq, tuple(sparse_sizes)), np.int64).reshape(len(sparse_sizes), uniq.size)
    return idx, out


def _coalesced_parts(t) -> tuple:
    idx, vals = coo_parts_np(t)
    if t.sparse.coalesced:
        return idx, vals
    return coalesce_np(idx, vals, t.sizes[:t.sparse.sparse_dim])


def result_type_impls(*impls):
    """The promoted dtype of impl operands by PyTorch's three groups (dims, 0-dim, wrapped numbers)."""
    groups: dict = {}
    for t in impls:
        if isinstance(t, (bool, int, float, complex)):  # a wrapped number (Note [Wrapped numbers])
            g, dt = 2, scalar_dtype(t)
        else:
            g, dt = (2 if t.is_wrapped_number else 1 if t.ndim == 0 else 0), t.dtype
        groups[g] = dt if g not in groups else promote_types(groups[g], dt)
    return result_type_groups(groups.get(0), groups.get(1), groups.get(2))


def _fmt(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _dense_np(t) -> np.ndarray:
    return sparse_to_dense_np(t) if t.sparse is not None else t.values_np()


def sparse_to_dense_np(t) -> np.ndarray:
    idx, vals = coo_parts_np(t)
    out = np.zeros(t.sizes, vals.dtype)
    if vals.shape[0]:
        if idx.shape[0]:
            np.add.at(out, tuple(idx), vals)
        else:
            out += vals.sum(0)
    return out


# -- construction and conversion -----------------------------------------------------------------------------------
def new_with_dims_and_tensor_sparse(sparse_dim, dense_dim, size, indices, values, dtype=None, layout=None,
                                    device=None, pin_memory=False, is_coalesced=None):
    """``_sparse_coo_tensor_with_dims_and_tensors``: a COO tensor over ``indices`` and ``values`` (aliased)."""
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim ({dense_dim}), but "
                           f"got {len(size)}")
    if indices.ndim != 2 or indices.sizes[0] != sparse_dim:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {_fmt(indices.sizes)}")
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"indices must be an int64 tensor, but got: {indices.dtype}")
    if values.ndim != dense_dim + 1:
        raise RuntimeError(f"values must have dense_dim + 1 dimensions, but got: {values.ndim}")
    if dtype is not None and dtype is not values.dtype:
        values = aten._to_copy(values, dtype, None, None, None, False, None)
    return sparse_coo_impl(indices, values, tuple(size), bool(is_coalesced))


def sparse_to_dense(self, dtype=None, masked_grad=None):
    """``_to_dense`` of a COO tensor: the values added at their indices into zeros."""
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    return np_impl(sparse_to_dense_np(self), self.dtype, self.device)


def dense_to_sparse_coo(arr: np.ndarray, sparse_dim: int, dtype, device):
    """The COO tensor of the nonzero entries of ``arr`` (whole dense slices for ``sparse_dim < ndim``)."""
    lead = arr.shape[:sparse_dim]
    flat = arr.reshape((int(np.prod(lead, dtype=np.int64)),) + arr.shape[sparse_dim:])
    keep = flat.reshape(flat.shape[0], -1).any(axis=1) if flat.ndim > 1 else flat != 0
    pos = np.nonzero(keep)[0]
    idx = (np.array(np.unravel_index(pos, lead), np.int64) if sparse_dim else np.zeros(0, np.int64)).reshape(
        sparse_dim, pos.size)
    return coo_from_np(idx, flat[pos], arr.shape, dtype, device, True)


def coalesce_sparse(self):
    """``_coalesce``: a new COO tensor with sorted unique indices."""
    idx, vals = _coalesced_parts(self)
    return coo_from_np(idx, vals, self.sizes, self.dtype, self.device, True)


def is_coalesced_sparse(self) -> bool:
    return self.sparse.coalesced


def is_coalesced_strided(self) -> bool:
    raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got Strided")


def coalesced_sparse_(self, coalesced):
    self.sparse.coalesced = bool(coalesced)
    return self


def nnz_sparse(self) -> int:
    return self.sparse.nnz


def sparse_dim_sparse(self) -> int:
    return self.sparse.sparse_dim


def dense_dim_sparse(self) -> int:
    return self.sparse.dense_dim


def sparse_dim_strided(self) -> int:
    return 0


def dense_dim_strided(self) -> int:
    return self.ndim


def _alias(part):
    return part.view_impl(part.sizes, part.strides, part.offset)


def indices_sparse_raw(self):
    """``_indices``: the indices matrix as it is (an alias)."""
    return _alias(self.sparse.indices)


def values_sparse_raw(self):
    """``_values``: the values as they are (an alias)."""
    return _alias(self.sparse.values)


def indices_sparse(self):
    if not self.sparse.coalesced:
        raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
    return _alias(self.sparse.indices)


def values_sparse(self):
    if not self.sparse.coalesced:
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
    return _alias(self.sparse.values)


def sparse_mask_sparse(self, mask):
    """``sparse_mask``: the entries of ``self`` at the indices of ``mask`` (its duplicates kept)."""
    if mask.sparse is None or mask.sparse.layout is not mask.sparse.__class__.layout:
        raise RuntimeError("sparse_mask expects mask to be a sparse COO tensor")
    if tuple(self.sizes) != tuple(mask.sizes):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {_fmt(self.sizes)} "
                           f"but mask has size {_fmt(mask.sizes)}.")
    dense = _dense_np(self)
    idx = mask.sparse.indices.values_np()
    vals = dense[tuple(idx)] if idx.shape[0] else np.broadcast_to(dense, (idx.shape[1],) + dense.shape)
    return coo_from_np(idx, vals, self.sizes, self.dtype, self.device, mask.sparse.coalesced)


# -- arithmetic ----------------------------------------------------------------------------------------------------
def _same_size(op, self, other):
    if tuple(self.sizes) != tuple(other.sizes):
        raise RuntimeError(f"{op}: expected 'self' and 'other' to have same size, but self has size "
                           f"{_fmt(self.sizes)} while other has size {_fmt(other.sizes)} (FYI: dense-sparse "
                           f"addition does not currently support broadcasting)")


def _sparse_sum(self, other, alpha, dtype):
    """``self + alpha * other`` for two COO tensors: merged when both are coalesced, else concatenated."""
    si, sv = coo_parts_np(self)
    oi, ov = coo_parts_np(other)
    idx = np.concatenate([si, oi], axis=1)
    vals = np.concatenate([sv.astype(dtype.np), (ov * alpha).astype(dtype.np)])
    if self.sparse.coalesced and other.sparse.coalesced:
        idx, vals = coalesce_np(idx, vals, self.sizes[:self.sparse.sparse_dim])
        return coo_from_np(idx, vals, self.sizes, dtype, self.device, True)
    return coo_from_np(idx, vals, self.sizes, dtype, self.device, False)


def add_sparse(self, other, alpha=1):
    """``add.Tensor`` with a sparse operand: sparse + sparse is sparse, dense + sparse is dense."""
    dtype = result_type_impls(self, other)
    if self.sparse is None:  # dense + sparse
        _same_size("add", self, other)
        out = self.values_np().astype(dtype.np, copy=True)
        _scatter_add(out, other, alpha)
        return np_impl(out, dtype, self.device)
    if other.sparse is None:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if tuple(self.sizes) != tuple(other.sizes):
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {_fmt(self.sizes)} != "
                           f"{_fmt(other.sizes)}")
    if self.sparse.sparse_dim != other.sparse.sparse_dim:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same sparse dimensions, but got "
                           f"{self.sparse.sparse_dim} and {other.sparse.sparse_dim}")
    return _sparse_sum(self, other, alpha, dtype)


def _scatter_add(out: np.ndarray, sparse, alpha) -> None:
    idx, vals = coo_parts_np(sparse)
    if vals.shape[0]:
        np.add.at(out, tuple(idx), (vals * alpha).astype(out.dtype))


def _assign(self, new):
    self.sparse = new.sparse
    return self


def add_sparse_(self, other, alpha=1):
    """``add_.Tensor`` with a sparse operand: into a dense ``self`` in place, or replacing a sparse one's parts."""
    if self.sparse is None:
        _same_size("add_", self, other)
        _scatter_add(self.as_numpy(), other, alpha)
        return self
    return _assign(self, add_sparse(self, other, alpha))


def _intersect(self, other, dtype):
    si, sv = _coalesced_parts(self)
    oi, ov = _coalesced_parts(other)
    sizes = self.sizes[:self.sparse.sparse_dim]
    sl = np.ravel_multi_index(tuple(si), sizes) if len(sizes) else np.zeros(sv.shape[0], np.int64)
    ol = np.ravel_multi_index(tuple(oi), sizes) if len(sizes) else np.zeros(ov.shape[0], np.int64)
    common, a, b = np.intersect1d(sl, ol, assume_unique=True, return_indices=True)
    vals = (sv[a] * ov[b]).astype(dtype.np)
    return coo_from_np(si[:, a], vals, self.sizes, dtype, self.device, True)


def mul_sparse(self, other):
    """``mul.Tensor`` with a sparse operand: the product on the sparse pattern (both sparse: the intersection)."""
    dtype = result_type_impls(self, other)
    if getattr(self, "sparse", None) is not None and getattr(other, "sparse", None) is not None:
        if tuple(self.sizes) != tuple(other.sizes) or self.sparse.sparse_dim != other.sparse.sparse_dim:
            raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs with equal "
                               "dimensionality, number of sparse dimensions, and shape of sparse dimensions")
        return _intersect(self, other, dtype)
    sp, dense = (self, other) if getattr(self, "sparse", None) is not None else (other, self)
    idx, vals = coo_parts_np(sp)
    d = np.asarray(dense) if isinstance(dense, (bool, int, float, complex)) else dense.values_np()
    if d.ndim == 0:
        factor = d
    else:
        if tuple(sp.sizes) != tuple(d.shape):
            a, b = self.sizes, (other.shape if isinstance(other, np.ndarray) else other.sizes)
            dim = next(i for i, (x, y) in enumerate(zip(a[::-1], b[::-1], strict=False)) if x != y)
            raise RuntimeError(f"The size of tensor a ({a[len(a) - 1 - dim]}) must match the size of tensor b "
                               f"({b[len(b) - 1 - dim]}) at non-singleton dimension {len(a) - 1 - dim}")
        factor = d[tuple(idx)]
    return coo_from_np(idx, (vals * factor).astype(dtype.np), sp.sizes, dtype, sp.device, sp.sparse.coalesced)


def mul_sparse_(self, other):
    if self.sparse is None:
        raise RuntimeError("mul_: a dense tensor cannot be multiplied in place by a sparse one")
    out = _assign(self, mul_sparse(self, other))
    if getattr(other, "sparse", None) is None:  # PyTorch's in-place scaling marks the result uncoalesced
        out.sparse.coalesced = False
    return out


def neg_sparse(self):
    idx, vals = coo_parts_np(self)
    return coo_from_np(idx, -vals, self.sizes, self.dtype, self.device, self.sparse.coalesced)


def sum_sparse(self, dtype=None):
    """``sum``: the sum of the values (an empty tensor sums to zero)."""
    return aten.sum(self.sparse.values, dtype)


def mm_sparse(self, mat2):
    """``mm`` with a sparse operand: dense result, or sparse when both operands are sparse."""
    a = aten._to_dense(self, None, None) if self.sparse is not None else self
    b = aten._to_dense(mat2, None, None) if mat2.sparse is not None else mat2
    if self.sparse is None and mat2.sparse.layout is _sparse_coo:  # (sparse^T @ dense^T)^T: column-major
        return aten.t(aten.mm(aten.t(b), aten.t(a)))
    out = aten.mm(a, b)
    if self.sparse is not None and mat2.sparse is not None:
        coo = dense_to_sparse_coo(out.as_numpy(), 2, out.dtype, out.device)
        return coo if self.sparse.layout is coo.sparse.layout else aten._to_sparse(coo, self.sparse.layout, None, None)
    return out


def sparse_addmm(self, mat1, mat2, beta=1, alpha=1):
    """``_sparse_addmm``: ``beta * self + alpha * (mat1 @ mat2)``, dense."""
    product = mm_sparse(mat1, mat2)
    product = product if product.sparse is None else aten._to_dense(product, None, None)
    return aten.add_Tensor(aten.mul_Tensor(self, beta), product, alpha)


def transpose_sparse(self, dim0, dim1):
    """``transpose`` of a COO tensor: two sparse dims swap index rows, two dense dims swap value axes."""
    nd = self.ndim
    d0, d1 = (dim0 + nd if dim0 < 0 else dim0), (dim1 + nd if dim1 < 0 else dim1)
    sd = self.sparse.sparse_dim
    if d0 == d1:
        return clone_sparse(self)
    sizes = list(self.sizes)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    idx, vals = coo_parts_np(self)
    if d0 < sd and d1 < sd:
        idx = idx.copy()
        idx[[d0, d1]] = idx[[d1, d0]]
        return coo_from_np(idx, vals, sizes, self.dtype, self.device, False)
    if d0 >= sd and d1 >= sd:
        vals = np.swapaxes(vals, d0 - sd + 1, d1 - sd + 1)
        return coo_from_np(idx, vals, sizes, self.dtype, self.device, self.sparse.coalesced)
    raise RuntimeError("transpose(): cannot transpose sparse dim with dense dim")


def t_sparse(self):
    if self.ndim > 2 or self.sparse.dense_dim:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                           f"{self.sparse.sparse_dim} sparse and {self.sparse.dense_dim} dense dimensions")
    return transpose_sparse(self, 0, 1) if self.ndim == 2 else clone_sparse(self)


def clone_sparse(self, memory_format=None):
    idx, vals = coo_parts_np(self)
    return coo_from_np(idx, vals, self.sizes, self.dtype, self.device, self.sparse.coalesced)


def copy_sparse_(self, src, non_blocking=False):
    """``copy_`` between COO tensors: ``self`` takes ``src``'s sizes and a copy of its parts."""
    if self.sparse is None or src.sparse is None:
        raise RuntimeError("copy_() between dense and sparse Tensors is not implemented! Found self type = "
                           f"{'Sparse' if self.sparse is not None else 'Dense'} and src type = "
                           f"{'Sparse' if src.sparse is not None else 'Dense'}")
    new = clone_sparse(src)
    if new.dtype is not self.dtype:
        new = sparse_coo_impl(new.sparse.indices, aten._to_copy(new.sparse.values, self.dtype, None, None, None,
                                                                  False, None), src.sizes, src.sparse.coalesced)
    self.sizes = tuple(src.sizes)
    self.strides = (0,) * len(src.sizes)
    return _assign(self, new)
