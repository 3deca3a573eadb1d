"""Reduction decompositions (CompositeImplicitAutograd) — PyTorch's ``ReduceOps.cpp`` / ``TensorCompare.cpp``
composites.

The legacy ``unbiased=`` forms of var/std/var_mean/std_mean are the ``correction=`` overloads with
correction 1 (unbiased) or 0; the binary ``max(Tensor, Tensor)`` / ``min`` overloads are ``maximum`` /
``minimum``.  Each calls the target operator through the dispatcher, so autograd and tracing see it.
"""

from __future__ import annotations

from ..aten import aten

__all__ = ["var_dim", "var_unbiased", "var_dim_out", "std_dim", "std_unbiased", "std_dim_out", "var_mean_dim",
           "var_mean_unbiased", "std_mean_dim", "std_mean_unbiased", "max_other", "max_other_out", "min_other",
           "min_other_out", "nanmean", "nanmean_out", "sum_to", "sum_to_size"]


def _correction(unbiased: bool) -> int:
    return 1 if unbiased else 0


def var_dim(self, dim, unbiased, keepdim):
    return aten.var_correction(self, dim, _correction(unbiased), keepdim)


def var_unbiased(self, unbiased):
    return aten.var_correction(self, None, _correction(unbiased), False)


def var_dim_out(self, dim, unbiased, keepdim, out):
    return aten.var_correction_out(self, dim, _correction(unbiased), keepdim, out)


def std_dim(self, dim, unbiased, keepdim):
    return aten.std_correction(self, dim, _correction(unbiased), keepdim)


def std_unbiased(self, unbiased):
    return aten.std_correction(self, None, _correction(unbiased), False)


def std_dim_out(self, dim, unbiased, keepdim, out):
    return aten.std_correction_out(self, dim, _correction(unbiased), keepdim, out)


def var_mean_dim(self, dim, unbiased, keepdim):
    return aten.var_mean_correction(self, dim, _correction(unbiased), keepdim)


def var_mean_unbiased(self, unbiased):
    return aten.var_mean_correction(self, None, _correction(unbiased), False)


def std_mean_dim(self, dim, unbiased, keepdim):
    return aten.std_mean_correction(self, dim, _correction(unbiased), keepdim)


def std_mean_unbiased(self, unbiased):
    return aten.std_mean_correction(self, None, _correction(unbiased), False)


def max_other(self, other):
    return aten.maximum(self, other)


def max_other_out(self, other, out):
    return aten.maximum_out(self, other, out)


def min_other(self, other):
    return aten.minimum(self, other)


def min_other_out(self, other, out):
    return aten.minimum_out(self, other, out)


# -- nanmean: nansum over the count of non-NaN elements ----------------------------------------------------------
def _nan_count(self, dim, keepdim):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{self.dtype._short}")
    return aten.sum_dim_IntList(aten.logical_not(aten.isnan(self)), dim, keepdim, None)


def nanmean(self, dim, keepdim, dtype):
    count = _nan_count(self, dim, keepdim)
    return aten.div_Tensor(aten.nansum(self, dim, keepdim, dtype), count)


def nanmean_out(self, dim, keepdim, dtype, out):
    count = _nan_count(self, dim, keepdim)
    return aten.div__Tensor(aten.nansum_out(self, dim, keepdim, dtype, out), count)


# -- sum_to_size (ReduceOps.cpp; autograd's reduction of a broadcast gradient) ------------------------------
def sum_to(grad, sizes: tuple):
    """Reduce a broadcast gradient back to ``sizes`` (PyTorch's ``sum_to``)."""
    if grad.sizes == sizes:
        return grad
    if not sizes:  # a 0-dim input: the full sum, a fresh tensor (not a view of a keepdim sum)
        return aten.sum(grad, None)
    lead = grad.ndim - len(sizes)
    dims = list(range(lead))
    for i, s in enumerate(sizes):
        if s == 1 and grad.sizes[lead + i] != 1:
            dims.append(lead + i)
    out = aten.sum_dim_IntList(grad, dims, True, None) if dims else grad
    if lead:
        out = aten.view(out, sizes)
    return out


def _expandable(shape, desired) -> bool:
    """Whether ``shape`` broadcasts to ``desired`` (PyTorch's is_expandable_to)."""
    if len(shape) > len(desired):
        return False
    return all(s in (1, d) for s, d in zip(reversed(shape), reversed(desired), strict=False))


def sum_to_size(self, size):
    """``self`` summed down to ``size``, a shape it broadcasts from; ``self`` itself when the shapes agree."""
    size = tuple(size)
    if not _expandable(size, self.sizes):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(self.sizes)}}}.")
    if not size:  # PyTorch's sum_to: an empty shape is always the full sum (integers promote), even for 0-dim
        return aten.sum(self, None)
    return sum_to(self, size)
