"""Matrix-product composites (CompositeImplicitAutograd) — PyTorch's ``LinearAlgebra.cpp`` (matmul, outer,
ger) and ``Linear.cpp`` (linear, einsum).

Each is written in terms of other operators called through the dispatcher (``dot``/``mv``/``mm``/``bmm``,
the view operators, ``mul``, ``add_``), following PyTorch's own decomposition step by step, so results,
dtypes, aliasing and error messages are PyTorch's:

- ``matmul`` picks dot / mv / mm for 1-2 dimensional operands, *folds* the batch dimensions of a >= 3-d
  operand into the rows of one ``mm`` when that costs no copy (``_should_fold``), and otherwise
  broadcasts the batch dimensions, flattens them and calls ``bmm``;
- ``einsum`` parses the equation, aligns every operand to one dimension order (diagonals for repeated
  labels, size-1 dimensions for missing ones) and contracts operands pairwise, left to right (or along
  ``path``), each contraction being one ``bmm`` (``sumproduct_pair``, kernels/composite/trilinear.py).

Invariant: no kernel is called directly; everything dispatches, so autograd will see the primitives.
"""

from __future__ import annotations

import collections

from ..._core import shape as _shape
from ..._core.layout import contiguous_format
from ..._core.user_warning import warn as _user_warn
from ..._tensor.impl import TensorImpl, empty_impl
from ..aten import aten
from ..kernels.composite.trilinear import sumproduct_pair
from ..tensor_iterator import resize_out

__all__ = ["matmul", "matmul_out", "linear", "linear_out", "bilinear", "outer", "outer_out", "ger", "ger_out", "einsum",
           "linalg_svd", "linalg_svd_U", "linalg_svdvals", "linalg_svdvals_out", "tensordot", "tensordot_out", "inner",
           "inner_out", "kron", "kron_out"]


def _requires_grad(t: TensorImpl) -> bool:
    return t.autograd is not None and bool(t.autograd.requires_grad)


# -- matmul --------------------------------------------------------------------------------------------------
def _should_fold(t1: TensorImpl, t2: TensorImpl, has_out: bool) -> bool:
    """Can the >= 3-d operand's batch dims fold into one matrix (an ``mm``/``mv``) without a copy?"""
    larger = t1.ndim >= t2.ndim
    if larger:
        sizes, strides, dim_small = t1.sizes, t1.strides, t2.ndim
    else:  # the larger operand is t2, seen transposed (mT)
        sizes = t2.sizes[:-2] + (t2.sizes[-1], t2.sizes[-2])
        strides = t2.strides[:-2] + (t2.strides[-1], t2.strides[-2])
        dim_small = t1.ndim
    if not (len(sizes) >= 3 and dim_small <= 2):
        return False
    if _requires_grad(t2 if larger else t1) and not has_out:
        return True  # avoids materialising an expanded gradient in the backward (PyTorch's reason)
    if t1.ndim == 2:
        return False  # folding would need a transpose and a contiguous copy of the result
    if _shape.prod(sizes) == 0:
        return True
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(len(sizes) - 2))


def _squeeze0_(t: TensorImpl) -> TensorImpl:
    """``squeeze_(0)`` on the ``out=`` tensor: drop the leading size-1 dim in place (out= has no autograd)."""
    t.set_geometry(t.sizes[1:], t.strides[1:], t.offset)
    return t


def _matmul_folded(t1, t2, out):
    transpose = t2.ndim > t1.ndim
    big = aten.transpose_int(t2, -2, -1) if transpose else t1
    small = (aten.t(t1) if t1.ndim == 2 else t1) if transpose else t2
    output_shape = list(big.sizes[:-1])
    folded = _shape.prod(output_shape)
    is_matrix = small.ndim == 2
    if is_matrix:
        output_shape.append(small.sizes[1])
    big_folded = aten.reshape(big, (folded, big.sizes[-1]))
    if out is None:
        if not is_matrix:
            return aten._unsafe_view(aten.mv(big_folded, small), output_shape)
        output = aten._unsafe_view(aten.mm(big_folded, small), output_shape)
        if transpose:  # output.mT.contiguous()
            output = aten.transpose_int(output, -2, -1)
            return output if output.is_contiguous() else aten.clone(output, contiguous_format)
        return output
    resize_out(out, output_shape)
    if is_matrix:
        reshaped = aten.reshape(out, (folded, small.sizes[-1]))
        aten.mm_out(big_folded, small, reshaped)
    else:
        reshaped = aten.reshape(out, (folded,))
        aten.mv_out(big_folded, small, reshaped)
    if reshaped.storage is not out.storage:
        aten.copy_(out, reshaped, False)
    return out


def _matmul_batched(t1, t2, out):
    d1, d2 = t1.ndim, t2.ndim
    n = t1.sizes[-2] if d1 > 1 else 1
    m1 = t1.sizes[-1]
    batch1 = t1.sizes[:max(d1 - 2, 0)]
    m2 = t2.sizes[-2] if d2 > 1 else t2.sizes[0]
    p = t2.sizes[-1] if d2 > 1 else 1
    batch2 = t2.sizes[:max(d2 - 2, 0)]
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:  # broadcasting a batch of one: fold instead
        if batch1[0] == 1 and _requires_grad(t1):
            return _matmul(aten.squeeze_dim(t1, 0), t2, out)
        if batch2[0] == 1 and _requires_grad(t2):
            return _matmul(t1, aten.squeeze_dim(t2, 0), out)
    output_shape = list(_shape.broadcast_shapes(batch1, batch2))
    nbatch = _shape.prod(output_shape)
    t1e = aten.reshape(aten.expand(t1, output_shape + [n, m1], False), (nbatch, n, m1))
    vector_rhs = d2 == 1
    if vector_rhs:
        t2e = aten.unsqueeze(aten.reshape(aten.expand(t2, output_shape + [m2], False), (nbatch, m2)), 2)
    else:
        t2e = aten.reshape(aten.expand(t2, output_shape + [m2, p], False), (nbatch, m2, p))
    if d1 > 1:
        output_shape.append(n)
    if d2 > 1:
        output_shape.append(p)
    if out is None:
        result = aten.bmm(t1e, t2e)
        if vector_rhs:
            result = aten.squeeze_dim(result, -1)
        return aten._unsafe_view(result, output_shape)
    resize_out(out, output_shape)
    reshaped = aten.reshape(out, (nbatch, n, p))
    aten.bmm_out(t1e, t2e, reshaped)
    if vector_rhs:
        reshaped = aten.squeeze_dim(reshaped, -1)
    if reshaped.storage is not out.storage:
        aten.copy_(out, aten.view(reshaped, out.sizes), False)
    return out


def _matmul(t1: TensorImpl, t2: TensorImpl, out):
    """PyTorch's ``_matmul_impl``: ``out`` is None for the functional form."""
    d1, d2 = t1.ndim, t2.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if out is not None and (_requires_grad(t1) or _requires_grad(t2) or _requires_grad(out)):
        raise RuntimeError("matmul(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    if d1 == 1 and d2 == 1:
        return aten.dot(t1, t2) if out is None else aten.dot_out(t1, t2, out)
    if d1 == 2 and d2 == 1:
        return aten.mv(t1, t2) if out is None else aten.mv_out(t1, t2, out)
    if d1 == 1 and d2 == 2:
        if out is None:  # PyTorch squeezes the fresh result in place: version 1, SqueezeBackward4
            return aten.squeeze__dim(aten.mm(aten.unsqueeze(t1, 0), t2), 0)
        return _squeeze0_(aten.mm_out(aten.unsqueeze(t1, 0), t2, out))
    if d1 == 2 and d2 == 2:
        return aten.mm(t1, t2) if out is None else aten.mm_out(t1, t2, out)
    if _should_fold(t1, t2, out is not None):
        return _matmul_folded(t1, t2, out)
    return _matmul_batched(t1, t2, out)


def matmul(self: TensorImpl, other: TensorImpl) -> TensorImpl:
    """The matrix product with NumPy's broadcasting rules for 1-d and batched operands."""
    return _matmul(self, other, None)


def matmul_out(self: TensorImpl, other: TensorImpl, out: TensorImpl) -> TensorImpl:
    return _matmul(self, other, out)


# -- linear / outer ------------------------------------------------------------------------------------------
def linear(input: TensorImpl, weight: TensorImpl, bias=None) -> TensorImpl:
    """``input @ weight.T + bias``: one fused ``addmm`` for 2-d (and contiguous 3-d) inputs with a bias."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    if input.ndim == 2 and bias is not None:
        return aten.addmm(bias, input, aten.t(weight), 1, 1)
    if input.ndim == 3 and bias is not None and input.is_contiguous():
        b, s, k = input.sizes
        result = aten.addmm(bias, aten.view(input, (b * s, k)), aten.t(weight), 1, 1)
        return aten.view(result, (b, s, result.sizes[1]))
    output = matmul(input, aten.t(weight))
    if bias is not None:
        aten.add__Tensor(output, bias, 1)
    return output


def bilinear(input1: TensorImpl, input2: TensorImpl, weight: TensorImpl, bias=None) -> TensorImpl:
    """``y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]``: the batch dims flattened into one ``_trilinear``
    (its output unrolled over ``o``), as PyTorch's ``bilinear``."""
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.sizes[i] != input2.sizes[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.sizes[i]} "
                               f"and {input2.sizes[i]}")
    for k, t in ((1, input1), (2, input2)):
        if t.sizes[t.ndim - 1] != weight.sizes[k]:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got {t.sizes[t.ndim - 1]} "
                               f"but expected {weight.sizes[k]}")
    if bias is not None:
        if bias.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if bias.sizes[0] != weight.sizes[0]:
            raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.sizes[0]} but expected "
                               f"{weight.sizes[0]}")
    output_size = list(input1.sizes[:-1]) + [weight.sizes[0]]
    flat1 = aten.reshape(input1, (-1, input1.sizes[-1]))
    flat2 = aten.reshape(input2, (-1, input2.sizes[-1]))
    output = aten.reshape(aten._trilinear(flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3], 1), output_size)
    return output if bias is None else aten.add_Tensor(output, bias, 1)


def linear_out(input: TensorImpl, weight: TensorImpl, bias, out: TensorImpl) -> TensorImpl:
    if input.ndim == 2 and bias is not None:
        return aten.addmm_out(bias, input, aten.t(weight), 1, 1, out)
    aten.matmul_out(input, aten.t(weight), out)
    if bias is not None:
        aten.add__Tensor(out, bias, 1)
    return out


def _check_1d(t: TensorImpl, arg: str, fn: str) -> None:
    if t.ndim != 1:
        raise RuntimeError(f"{fn}: Expected 1-D argument {arg}, but got {t.ndim}-D")


def outer(self: TensorImpl, vec2: TensorImpl) -> TensorImpl:
    """``self[:, None] * vec2`` (with ``mul``'s type promotion)."""
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return aten.mul_Tensor(aten.reshape(self, (self.sizes[0], 1)), vec2)


def outer_out(self: TensorImpl, vec2: TensorImpl, out: TensorImpl) -> TensorImpl:
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return aten.mul_out(aten.reshape(self, (self.sizes[0], 1)), vec2, out)


def ger(self: TensorImpl, vec2: TensorImpl) -> TensorImpl:
    return aten.outer(self, vec2)


def ger_out(self: TensorImpl, vec2: TensorImpl, out: TensorImpl) -> TensorImpl:
    _user_warn("torch.ger is deprecated and will be removed in a future PyTorch release. Use torch.outer "
               "instead.")
    return aten.outer_out(self, vec2, out)


# -- einsum --------------------------------------------------------------------------------------------------
_TOTAL_LABELS = 52
_ELLIPSIS = _TOTAL_LABELS


def _subscript(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + 26


def _label(s: int) -> str:
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


def _is_label(c: str) -> bool:
    return c.isascii() and c.isalpha()


def _sum(t: TensorImpl, dims, keepdim: bool) -> TensorImpl:
    """``t.sum(dims, keepdim)``: integer and bool operands sum to int64, as in PyTorch's einsum."""
    return aten.sum_dim_IntList(t, list(dims), keepdim, None)


def _parse_lhs(lhs: str, num_ops: int) -> list:
    op_labels = [[] for _ in range(num_ops)]
    ell_in_input, curr, i = False, 0, 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if ell_in_input:
                raise RuntimeError(f"einsum(): found '.' for operand {curr} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {curr} that is not part of any ellipsis")
            i += 2
            op_labels[curr].append(_ELLIPSIS)
            ell_in_input = True
        elif c == ",":
            curr += 1
            if curr >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ell_in_input = False
        elif c != " ":
            if not _is_label(c):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            op_labels[curr].append(_subscript(c))
        i += 1
    if curr != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels


def _count_labels(operands, op_labels):
    label_count, ell_num_dim = [0] * _TOTAL_LABELS, 0
    for i, (op, labels) in enumerate(zip(operands, op_labels, strict=True)):
        nlabels, has_ellipsis = len(labels), _ELLIPSIS in labels
        if has_ellipsis:
            nlabels -= 1
            ell_num_dim = max(ell_num_dim, op.ndim - nlabels)
        for s in labels:
            if s != _ELLIPSIS:
                label_count[s] += 1
        if (nlabels > op.ndim) if has_ellipsis else (nlabels != op.ndim):
            what = "is more than the number of dimensions (" if has_ellipsis else \
                "does not match the number of dimensions ("
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nlabels}) {what}{op.ndim}) for "
                               f"operand {i}" + ("" if has_ellipsis else " and no ellipsis was given"))
    return label_count, ell_num_dim


def _plan_output(equation, arrow, lhs_len, label_count, ell_num_dim):
    """Positions of every label (and of the ellipsis dims) in the aligned order: output dims first."""
    perm_index_of = [-1] * _TOTAL_LABELS
    perm, ell_index, ell_in_output = 0, 0, False
    if arrow < 0:  # implicit output: the ellipsis, then the labels seen once, in alphabetical order
        perm, ell_in_output = ell_num_dim, True
        for s in range(_TOTAL_LABELS):
            if label_count[s] == 1:
                perm_index_of[s] = perm
                perm += 1
    else:
        rhs, i = equation[arrow + 2:], 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index, perm, ell_in_output = perm, perm + ell_num_dim, True
            elif c != " ":
                if not _is_label(c):
                    raise RuntimeError(f"einsum(): invalid subscript given at index {lhs_len + 2 + i} in the equation "
                                       "string, subscripts must be in [a-zA-Z]")
                s = _subscript(c)
                if not (label_count[s] > 0 and perm_index_of[s] == -1):
                    why = "appears more than once in the output" if perm_index_of[s] > -1 else \
                        "does not appear in the equation for any input operand"
                    raise RuntimeError(f"einsum(): output subscript {c} {why}")
                perm_index_of[s] = perm
                perm += 1
            i += 1
    out_num_dim = perm
    if not ell_in_output:
        ell_index, perm = perm, perm + ell_num_dim
    for s in range(_TOTAL_LABELS):
        if label_count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s] = perm
            perm += 1
    return perm_index_of, ell_index, out_num_dim, perm


def _align(i, op, labels, ctx):
    """Permute operand ``i`` to the aligned order: diagonals for repeated labels, size-1 dims for missing ones."""
    perm_index_of, ell_index, ell_num_dim, perm_total, label_size, ell_sizes, dim_counts = ctx
    permutation = [-1] * perm_total
    dim, ell_ndim = 0, op.ndim - (len(labels) - 1)  # dims under the ellipsis, counted on the original operand
    for s in labels:
        if s == _ELLIPSIS:
            ndim = ell_ndim
            for j in range(ell_num_dim - ndim, ell_num_dim):
                size = op.sizes[dim]
                if size != 1:
                    if ell_sizes[j] != 1 and ell_sizes[j] != size:
                        raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                                           f"{size} which does not broadcast with previously seen ellipsis with "
                                           f"size {ell_sizes[j]} for the respective dimension")
                    ell_sizes[j] = size
                    dim_counts[ell_index + j] += 1
                permutation[ell_index + j] = dim
                dim += 1
        elif permutation[perm_index_of[s]] == -1:
            size = op.sizes[dim]
            if size != 1:
                if label_size[s] != 1 and label_size[s] != size:
                    raise RuntimeError(f"einsum(): subscript {_label(s)} has size {size} for operand {i} which does "
                                       f"not broadcast with previously seen size {label_size[s]}")
                label_size[s] = size
                dim_counts[perm_index_of[s]] += 1
            permutation[perm_index_of[s]] = dim
            dim += 1
        else:  # a repeated label: take the diagonal, keep it where the label first appeared
            prev = permutation[perm_index_of[s]]
            if op.sizes[dim] != op.sizes[prev]:
                raise RuntimeError(f"einsum(): subscript {_label(s)} is repeated for operand {i} but the sizes don't "
                                   f"match, {op.sizes[dim]} != {op.sizes[prev]}")
            op = aten.movedim_int(aten.diagonal(op, 0, prev, dim), -1, prev)
    for k in range(perm_total):
        if permutation[k] == -1:
            op = aten.unsqueeze(op, dim)
            permutation[k] = dim
            dim += 1
    return aten.permute(op, permutation)


def _contract(ops, path, dim_counts, out_num_dim, perm_total):
    ops = collections.deque(ops)
    steps = iter(path or ())
    while len(ops) > 1:
        i, j = 0, 1
        if path is not None:
            i, j = next(steps), next(steps)
            if j < i:
                i, j = j, i
            if not (i != j and i >= 0 and j < len(ops)):
                why = ") cannot contract an operand with itself" if i == j else ") operand index is out of bounds"
                raise RuntimeError(f"einsum(): invalid contraction ({i}, {j}{why}")
        a, b = ops[i], ops[j]
        del ops[j]
        del ops[i]
        sum_dims, a_sum, b_sum = [], [], []
        for dim in range(out_num_dim, perm_total):
            if a.sizes[dim] != 1 and b.sizes[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a.sizes[dim] != 1:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif b.sizes[dim] != 1:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = _sum(a, a_sum, True)
        if b_sum:
            b = _sum(b, b_sum, True)
        result = sumproduct_pair(a, b, sum_dims)
        if path is not None:
            ops.append(result)
        else:
            ops.appendleft(result)
    return ops[0]


def einsum(equation: str, tensors, path=None) -> TensorImpl:
    """Einstein summation over ``tensors`` as described by ``equation`` (PyTorch's algorithm and errors)."""
    operands = list(tensors)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    if path is not None:
        path_size = 1 if num_ops == 1 else (num_ops - 1) * 2
        if len(path) != path_size:
            raise RuntimeError(f"einsum(): expected contraction path given in path parameter to have size {path_size} "
                               f"but got {len(path)}")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_lhs(lhs, num_ops)
    label_count, ell_num_dim = _count_labels(operands, op_labels)
    perm_index_of, ell_index, out_num_dim, perm_total = _plan_output(equation, arrow, len(lhs), label_count,
                                                                      ell_num_dim)
    dim_counts = [0] * perm_total
    ctx = (perm_index_of, ell_index, ell_num_dim, perm_total, [1] * _TOTAL_LABELS, [1] * ell_num_dim, dim_counts)
    aligned = [_align(i, op, labels, ctx) for i, (op, labels) in enumerate(zip(operands, op_labels, strict=True))]
    result = _contract(aligned, path, dim_counts, out_num_dim, perm_total)
    if perm_total - out_num_dim > 0:
        if num_ops > 1:  # contracted dims are all size 1 by now
            return aten.view(result, result.sizes[:out_num_dim] + result.sizes[perm_total:])
        return _sum(result, list(range(out_num_dim, perm_total)), False)
    return result


# -- singular values: every form is one _linalg_svd call (PyTorch's BatchLinearAlgebra.cpp) -------------------
def linalg_svd(A, full_matrices=True, driver=None):
    return aten._linalg_svd(A, full_matrices, True, driver)


def linalg_svd_U(A, full_matrices=True, driver=None, U=None, S=None, Vh=None):
    return aten._linalg_svd_U(A, full_matrices, True, driver, U, S, Vh)


def linalg_svdvals(A, driver=None):
    """The singular values; U and V are computed only when a gradient will need them (``compute_uv``)."""
    meta = A.autograd
    needs_uv = meta is not None and (bool(meta.requires_grad) or meta.grad_fn is not None)
    return aten._linalg_svd(A, False, needs_uv, driver)[1]


def linalg_svdvals_out(A, driver=None, out=None):
    U, Vh = empty_impl((0,), A.dtype, A.device), empty_impl((0,), A.dtype, A.device)
    aten._linalg_svd_U(A, False, False, driver, U, out, Vh)
    return out


# -- tensordot / inner / kron (Linear.cpp, LinearAlgebra.cpp) --------------------------------------------------
def _tensordot_operands(self: TensorImpl, other: TensorImpl, dims_self, dims_other):
    """``self`` permuted to (free, contracted) and ``other`` to (contracted, free), each flattened to a matrix,
    and the result's sizes. A contracted pair of sizes (1, n) broadcasts: the size-n side is summed first."""
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    if self.dtype != other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    d1 = [_shape.wrap_dim(d, self.ndim) for d in dims_self]
    d2 = [_shape.wrap_dim(d, other.ndim) for d in dims_other]
    t1, t2, csize = self, other, 1
    for a, b, raw in zip(d1, d2, dims_self, strict=True):
        if d1.count(a) > 1:
            raise RuntimeError(f"dim {raw} appears multiple times in the list of dims")
        s1, s2 = self.sizes[a], other.sizes[b]
        if s1 == s2:
            csize *= s1
        elif s2 == 1:
            t1 = aten.sum_dim_IntList(t1, [a], True, t1.dtype)
        elif s1 == 1:
            t2 = aten.sum_dim_IntList(t2, [b], True, t2.dtype)
        else:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {a} and second "
                               f"has size {s2} in dim {b}")
    for b, raw in zip(d2, dims_other, strict=True):
        if d2.count(b) > 1:
            raise RuntimeError(f"dim {raw} appears multiple times in the list of dims")
    free1 = [d for d in range(self.ndim) if d not in d1]
    free2 = [d for d in range(other.ndim) if d not in d2]
    rows, cols = _shape.prod([self.sizes[d] for d in free1]), _shape.prod([other.sizes[d] for d in free2])
    m1 = aten.reshape(aten.permute(t1, free1 + d1), (rows, csize))
    m2 = aten.reshape(aten.permute(t2, d2 + free2), (csize, cols))
    return m1, m2, [self.sizes[d] for d in free1] + [other.sizes[d] for d in free2]


def tensordot(self: TensorImpl, other: TensorImpl, dims_self, dims_other) -> TensorImpl:
    """Contract ``self``'s ``dims_self`` with ``other``'s ``dims_other``: one ``mm`` over permuted matrices."""
    m1, m2, sizes = _tensordot_operands(self, other, dims_self, dims_other)
    return aten.reshape(aten.mm(m1, m2), sizes)


def tensordot_out(self: TensorImpl, other: TensorImpl, dims_self, dims_other, out: TensorImpl) -> TensorImpl:
    result = tensordot(self, other, dims_self, dims_other)
    if result.dtype != out.dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype {result.dtype._short}, but got an "
                           f"output tensor with dtype {out.dtype._short}")
    resize_out(out, result.sizes)
    return aten.copy_(out, result, False)


def _inner_check(self: TensorImpl, other: TensorImpl) -> None:
    if self.sizes[-1] != other.sizes[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(self.sizes)} and {list(other.sizes)}")


def inner(self: TensorImpl, other: TensorImpl) -> TensorImpl:
    """``tensordot`` over both last dimensions; a 0-dim operand multiplies instead."""
    if self.ndim == 0 or other.ndim == 0:
        return aten.mul_Tensor(self, other)
    _inner_check(self, other)
    return aten.tensordot(self, other, [-1], [-1])


def inner_out(self: TensorImpl, other: TensorImpl, out: TensorImpl) -> TensorImpl:
    if self.ndim == 0 or other.ndim == 0:
        return aten.mul_out(self, other, out)
    _inner_check(self, other)
    return aten.tensordot_out(self, other, [-1], [-1], out)


def _kron_views(self: TensorImpl, other: TensorImpl):
    """Both operands padded to one rank and interleaved: ``self`` as (a0, 1, a1, 1, ...), ``other`` as
    (1, b0, 1, b1, ...); their broadcast product, flattened pairwise, is the Kronecker product."""
    n = max(self.ndim, other.ndim)
    a = (1,) * (n - self.ndim) + tuple(self.sizes)
    b = (1,) * (n - other.ndim) + tuple(other.sizes)
    va = aten.reshape(self, [s for x in a for s in (x, 1)])
    vb = aten.reshape(other, [s for x in b for s in (1, x)])
    interleaved = [s for pair in zip(a, b, strict=True) for s in pair]
    return va, vb, interleaved, [x * y for x, y in zip(a, b, strict=True)]


def kron(self: TensorImpl, other: TensorImpl) -> TensorImpl:
    va, vb, _, sizes = _kron_views(self, other)
    return aten.reshape(aten.mul_Tensor(va, vb), sizes)


def kron_out(self: TensorImpl, other: TensorImpl, out: TensorImpl) -> TensorImpl:
    va, vb, interleaved, sizes = _kron_views(self, other)
    resize_out(out, sizes)
    aten.mul_out(va, vb, aten.view(out, interleaved))
    return out
