"""Statistics CPU kernels — PyTorch's ``TensorCompare.cpp`` (aminmax, isin) and ``ReduceOps.cpp``
(logcumsumexp).

``aminmax`` is amin and amax of one pass in PyTorch; here two numpy reductions over the same strided view, with
PyTorch's checks (a reduced dim must be non-empty, ``out=`` tensors must have the input's dtype).  ``isin`` compares
in the promoted dtype of its two operands, so ``1`` is in ``[1.0]`` and NaN is in nothing.

Invariant: dtypes and shapes of the outputs are settled before any data is read; meta operands stop there.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core.shape import wrap_dim
from ...._tensor.impl import TensorImpl, empty_contiguous
from ...tensor_iterator import common_dtype, reduction_dims, resize_out
from .dispatch_types import not_implemented
from .reduce import _SCAN_ACC, _no_data, _quiet, _reduction_output, _zero_numel_check

__all__ = ["aminmax_out", "logcumsumexp", "logcumsumexp_out", "isin_Tensor_Tensor_out", "isin_Tensor_Scalar_out",
           "isin_Scalar_Tensor_out"]


def aminmax_out(self: TensorImpl, dim=None, keepdim=False, min=None, max=None):  # noqa: A002 - PyTorch's names
    """Minimum and maximum over ``dim`` (every element when None), NaN propagating."""
    if _dt.is_barebones(self.dtype) and self.storage._data is not None:
        raise not_implemented("aminmax_cpu", self.dtype)
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        dims = tuple(range(self.ndim))
    else:
        d = wrap_dim(dim, self.ndim)
        _zero_numel_check(self, d, "aminmax")
        dims = reduction_dims((d,), self.ndim) if self.ndim else ()
    outs = [_reduction_output(self, dims, keepdim, self.dtype, o) for o in (min, max)]
    if self.dtype.is_complex:
        raise not_implemented("aminmax_cpu", self.dtype)
    if not _no_data(self, *outs):
        a = self.as_numpy()
        axes = dims if dims else None
        with _quiet(self.dtype):
            for ufunc, out in zip((np.minimum, np.maximum), outs, strict=True):
                value = ufunc.reduce(a, axis=axes, keepdims=keepdim) if a.ndim else a
                np.copyto(out.as_numpy(), value)
    return tuple(outs)


def _isin_operand(value, dtype):
    """A numpy array of ``value`` (impl or Python number) in the comparison dtype (bfloat16 compares as float32,
    which holds it exactly)."""
    np_dt = np.float32 if dtype is _dt.bfloat16 else dtype.np
    if type(value) is TensorImpl:
        return value.as_numpy().astype(np_dt)
    return np.asarray(value).astype(np_dt)


def _isin(elements, test, invert, out, shape, device):
    dtype = common_dtype((elements, test))
    for v in (elements, test):
        dt = v.dtype if type(v) is TensorImpl else _dt.scalar_dtype(v)
        if dt.is_complex or dt is _dt.bool:
            raise RuntimeError(f"Unsupported input type encountered for isin(): {_dt.name_of(dt)}")
    if out is None:
        out = empty_contiguous(shape, _dt.bool, device)
    else:
        if out.dtype is not _dt.bool:
            raise RuntimeError(f"Expected out tensor to have dtype bool, but got {_dt.name_of(out.dtype)} instead")
        resize_out(out, shape)
    if _no_data(out, *(v for v in (elements, test) if type(v) is TensorImpl)):
        return out
    a, b = _isin_operand(elements, dtype), _isin_operand(test, dtype)
    np.copyto(out.as_numpy(), np.isin(a, b, invert=invert))
    return out


def isin_Tensor_Tensor_out(elements, test_elements, assume_unique=False, invert=False, out=None):  # noqa: N802
    """Whether each element of ``elements`` occurs in ``test_elements`` (``invert``: does not)."""
    return _isin(elements, test_elements, invert, out, elements.sizes, elements.device)


def isin_Tensor_Scalar_out(elements, test_element, assume_unique=False, invert=False, out=None):  # noqa: N802
    return _isin(elements, test_element, invert, out, elements.sizes, elements.device)


def isin_Scalar_Tensor_out(element, test_elements, assume_unique=False, invert=False, out=None):  # noqa: N802
    return _isin(element, test_elements, invert, out, (), test_elements.device)


# -- logcumsumexp ---------------------------------------------------------------------------------------------
def _log_add_exp_complex(x, y):
    """PyTorch's complex ``log(exp(x) + exp(y))``: shifted by the operand of larger real part; a NaN operand gives
    NaN; two infinite real parts of one sign are added directly (-inf: the result is that operand)."""
    swap = x.real < y.real
    lo, hi = np.where(swap, x, y), np.where(swap, y, x)
    with np.errstate(all="ignore"):
        out = hi + np.log1p(np.exp(lo - hi))
        same_inf = ~np.isfinite(lo.real) & (lo.real == hi.real)
        out = np.where(same_inf, np.where(lo.real < 0, lo, np.log(np.exp(lo) + np.exp(hi))), out)
        nan = np.isnan(lo.real) | np.isnan(lo.imag) | np.isnan(hi.real) | np.isnan(hi.imag)
    return np.where(nan, complex(np.nan, np.nan), out)


def _logcumsumexp_np(a: np.ndarray, d: int, acc) -> np.ndarray:
    """The running ``log(sum(exp))`` along axis ``d``, accumulated in ``acc`` (float64 for float32 inputs)."""
    wide = a.astype(acc)
    if wide.dtype.kind != "c":
        np.logaddexp.accumulate(wide, axis=d, out=wide)
        return wide
    wide = np.moveaxis(wide, d, 0)  # complex: no numpy ufunc, so a step per position along d (vectorised across)
    for i in range(1, wide.shape[0]):
        wide[i] = _log_add_exp_complex(wide[i], wide[i - 1])
    return np.moveaxis(wide, 0, d)


def logcumsumexp_out(self: TensorImpl, dim, out):
    """``log(cumsum(exp(self), dim))`` computed stably, into ``out`` (which must have ``self``'s dtype)."""
    if out.dtype is not self.dtype:
        raise RuntimeError(f"expected scalar_type {_dt.name_of(self.dtype)} but found {_dt.name_of(out.dtype)}")
    d = wrap_dim(dim, self.ndim)
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise not_implemented("logcumsumexp_out_cpu", self.dtype)
    resize_out(out, self.sizes)
    if _no_data(self, out):
        return out
    a = self.as_numpy()
    if self.ndim == 0 or self.numel() == 0:
        np.copyto(out.as_numpy(), a)
        return out
    with _quiet(self.dtype):
        np.copyto(out.as_numpy(), _logcumsumexp_np(a, d, _SCAN_ACC.get(self.dtype, self.dtype.np)), casting="unsafe")
    return out


def logcumsumexp(self: TensorImpl, dim):
    return logcumsumexp_out(self, dim, empty_contiguous(self.sizes, self.dtype, self.device))
