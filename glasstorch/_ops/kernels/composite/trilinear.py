"""The pairwise product-sum behind einsum and ``_trilinear`` (CompositeExplicitAutogradNonFunctional) — PyTorch's
``sumproduct_pair`` and ``_trilinear`` (``Linear.cpp``).

``_trilinear`` multiplies three operands, each first unsqueezed at its ``expand`` dims, and sums ``sumdim``; it
loops over ``unroll_dim``, contracting one slice of each operand at a time (two ``bmm`` calls per slice) and adding
each slice's result into a zero-filled output.  When ``unroll_dim`` is summed, those additions accumulate in the
operands' dtype, one rounding per slice in float16/bfloat16, which is where its results differ from einsum's.
``nn.functional.bilinear`` runs through it, and its derivative (``trilinear_backward``) is three more calls.

Invariant: no data is touched here; every result comes from an operator dispatched below autograd.
"""

from __future__ import annotations

from ...._tensor.impl import TensorImpl
from ...aten import aten
from ...factories import full_impl

__all__ = ["sumproduct_pair", "trilinear"]


def sumproduct_pair(left: TensorImpl, right: TensorImpl, sum_dims: list) -> TensorImpl:
    """``(left * right).sum(sum_dims, keepdim=True)`` as one ``bmm`` over (shared, left-only, summed, right-only)."""
    if left.ndim != right.ndim:
        raise RuntimeError("number of dimensions must match")
    if not sum_dims:
        return aten.mul_Tensor(left, right)
    summed = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left.ndim):
        sl, sr = left.sizes[i] != 1, right.sizes[i] != 1
        if i in summed:
            if sl and sr:
                if left.sizes[i] != right.sizes[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.sizes[i]
            elif sl:
                left = aten.sum_dim_IntList(left, [i], True, None)
            elif sr:
                right = aten.sum_dim_IntList(right, [i], True, None)
        elif sl and sr:
            if left.sizes[i] != right.sizes[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.sizes[i]
        elif sl:
            lo.append(i)
            lo_size *= left.sizes[i]
        else:
            ro.append(i)
            ro_size *= right.sizes[i]
    out_size = [left.sizes[d] for d in lro + lo] + [1] * len(sum_dims) + [right.sizes[d] for d in ro]
    order = lro + lo + list(sum_dims) + ro
    operm = [0] * len(order)
    for k, d in enumerate(order):
        operm[d] = k
    left = aten.reshape(aten.permute(left, order), (lro_size, lo_size, sum_size))
    right = aten.reshape(aten.permute(right, lro + list(sum_dims) + ro + lo), (lro_size, sum_size, ro_size))
    return aten.permute(aten.view(aten.bmm(left, right), out_size), operm)


def _dim_set(dims, total: int, name: str = "dim") -> set:
    """``dim_list_to_bitset``: wrapped dims; a repeated one raises."""
    seen = set()
    for d in dims:
        if not -total <= d < total:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-total}, {total - 1}], but got "
                             f"{d})")
        d %= total
        if d in seen:
            raise RuntimeError(f"{name} {d} appears multiple times in the list of dims")
        seen.add(d)
    return seen


def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1) -> TensorImpl:
    """``(i1.unsqueeze(expand1) * i2.unsqueeze(expand2) * i3.unsqueeze(expand3)).sum(sumdim)``, unrolled over
    ``unroll_dim`` as PyTorch's ``_trilinear``."""
    total = i1.ndim + len(expand1)
    if not 0 <= unroll_dim < total:
        raise RuntimeError(f"unroll_dim must be in [0,{total - 1}]")
    e1, e2, e3 = (_dim_set(e, total) for e in (expand1, expand2, expand3))
    summed = _dim_set(sumdim, total)
    out_size, sum12, sum23 = [], [], []
    unroll_size = -1
    for i in range(total):
        s = 0
        if i in e1:
            i1 = aten.unsqueeze(i1, i)
        else:
            s = i1.sizes[i]
        if i in e2:
            i2 = aten.unsqueeze(i2, i)
        else:
            s = i2.sizes[i]
        if i in e3:
            i3 = aten.unsqueeze(i3, i)
            if i in summed and i != unroll_dim:
                sum12.append(i)
        else:
            s = i3.sizes[i]
            if i in summed and i != unroll_dim:
                sum23.append(i)
        out_size.append(1 if i in summed else s)
        if i == unroll_dim:
            unroll_size = s
    step1, step2, step3 = (0 if unroll_dim in e else 1 for e in (e1, e2, e3))
    output = full_impl(out_size, 0, i1.dtype, i1.device)
    if i1.numel() and i2.numel() and i3.numel():
        for k in range(unroll_size):
            buf = sumproduct_pair(aten.narrow(i1, unroll_dim, k * step1, 1), aten.narrow(i2, unroll_dim, k * step2, 1),
                                  sum12)
            buf = sumproduct_pair(buf, aten.narrow(i3, unroll_dim, k * step3, 1), sum23)
            target = output if unroll_dim in summed else aten.narrow(output, unroll_dim, k, 1)
            aten.add__Tensor(target, buf, 1)
    for i in range(total - 1, -1, -1):
        if i in summed:
            aten.squeeze__dim(output, i)
    return output
