"""Statistics decompositions (CompositeImplicitAutograd) — PyTorch's ``Correlation.cpp`` (cov, corrcoef),
``Distance.cpp`` (dist) and the renorm of ``ReduceOps.cpp``.

``cov`` centres each variable (a row) on its weighted mean, multiplies by the conjugate transpose weighted by
``fweights * aweights`` and divides by the weight sum less the correction (numpy's ``v1 - ddof * v2 / v1`` when
aweights are given), clamped at 0 with PyTorch's warning.  ``quantile`` sorts
the reduced values (all of them flattened when ``dim`` is None), turns each ``q`` into a fractional rank (the last
one where a NaN is present; for ``nanquantile`` among the non-NaN values), rounds it as the interpolation asks and
interpolates between the neighbouring sorted values with ``lerp``.  ``renorm`` scales each slice along ``dim`` whose
``p``-norm exceeds ``maxnorm`` by ``maxnorm / (norm + 1e-7)``; the norm accumulates in float32 for reduced floats
and so does the scale, which multiplies in float32 before the result is rounded, as PyTorch's kernel does.

Invariant: nothing here touches tensor data except the checks PyTorch makes with ``.item()``; every computation
is another operator call, so autograd sees it.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core import shape as _shape
from ..._core.layout import contiguous_format
from ..._core.shape import wrap_dim
from ..._core.user_warning import warn as _user_warn
from ..aten import aten
from ..kernels.cpu.distance import cdist_checks, uses_mm
from ..tensor_iterator import resize_out

__all__ = ["cov", "corrcoef", "dist", "renorm", "renorm_", "renorm_out", "quantile", "quantile_out", "quantile_scalar",
           "quantile_scalar_out", "nanquantile", "nanquantile_out", "nanquantile_scalar", "nanquantile_scalar_out",
           "cdist"]


def _item(t):
    return t.values_np()[()]


def _check_weights(name, w, n, integral):
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.ndim} "
                           f"dimensions")
    ok = w.dtype._cat == _dt.INT_CAT if integral else w.dtype.is_floating_point
    if not ok:
        kind = "integral" if integral else "floating point"
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with {_dt.name_of(w.dtype)} "
                           f"dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input but "
                           f"got {w.numel()} != {n}")
    if n and _item(aten.min(w)) < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(self, correction=1, fweights=None, aweights=None):
    if self.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {self.ndim} "
                           f"dimensions")
    if self.dtype is _dt.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = aten.view(self, [1, -1]) if self.ndim < 2 else self
    n = 1 if self.ndim == 0 else x.sizes[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, n, True)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, n, False)
        w = aweights if w is None else aten.mul_Tensor(w, aweights)
    if w is None:
        w_sum = n
    else:
        w_sum = aten.sum(w, None)
        if not _item(aten.ne_Scalar(w_sum, 0)):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    weighted = x if w is None else aten.mul_Tensor(x, w)
    avg = aten.div_Tensor(aten.sum_dim_IntList(weighted, [1], False, None), w_sum)
    if w is not None and aweights is not None and correction != 0:
        norm = aten.sub_Tensor(w_sum, aten.div_Tensor(aten.mul_Tensor(aten.sum(aten.mul_Tensor(w, aweights), None),
                                                                      correction), w_sum), 1)
    else:
        norm = aten.sub_Tensor(w_sum, correction, 1) if w is not None else n - correction
    if _item(aten.le_Scalar(norm, 0)) if w is not None else norm <= 0:
        _user_warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                   "observations.")
        norm = aten.mul_Tensor(norm, 0) if w is not None else 0
    centred = aten.sub_Tensor(x, aten.unsqueeze(avg, 1), 1)
    other = centred if w is None else aten.mul_Tensor(centred, w)
    c = aten.mm(centred, aten.conj(aten.t(other)))
    return aten.squeeze(aten.true_divide_Tensor(c, norm))


def corrcoef(self):
    if self.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{self.ndim} dimensions")
    c = aten.cov(self, 1, None, None)
    if c.ndim == 0:
        return aten.div_Tensor(c, c)
    d = aten.diagonal(c, 0, 0, 1)
    stddev = aten.sqrt(aten.real(d) if d.dtype.is_complex else d)
    c = aten.div_Tensor(aten.div_Tensor(c, aten.view(stddev, [-1, 1])), aten.view(stddev, [1, -1]))
    if c.dtype.is_complex:
        return aten.complex(aten.clamp(aten.real(c), -1, 1), aten.clamp(aten.imag(c), -1, 1))
    return aten.clamp(c, -1, 1)


def dist(self, other, p=2):
    return aten.norm_Scalar(aten.sub_Tensor(self, other, 1), p)


def _renorm_factor(self, p, dim, maxnorm):
    """The per-slice scale of renorm (1 where the slice's norm is within ``maxnorm``), in ``self``'s dtype."""
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    if self.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.ndim} dimensions")
    d = wrap_dim(dim, self.ndim)
    dims = [i for i in range(self.ndim) if i != d]
    acc = _dt.float32 if self.dtype in (_dt.float16, _dt.bfloat16) else None
    norm = aten.linalg_vector_norm(self, p, dims, True, acc)  # real, float32 for reduced floats
    scale = aten.div_Tensor(aten.scalar_tensor(maxnorm, norm.dtype, None, self.device, None),
                            aten.add_Tensor(norm, 1e-7, 1))
    return aten.where_ScalarOther(aten.gt_Scalar(norm, maxnorm), scale, 1)


def renorm(self, p, dim, maxnorm):
    out = aten.mul_Tensor(self, _renorm_factor(self, p, dim, maxnorm))
    return out if out.dtype is self.dtype else aten._to_copy(out, self.dtype, None, None, None, False, None)


def renorm_(self, p, dim, maxnorm):
    # the scale is computed from a copy: autograd saves the norm's input, which the write must not change
    src = aten.clone(self, None)
    return aten.mul__Tensor(self, _renorm_factor(src, p, dim, maxnorm))


def renorm_out(self, p, dim, maxnorm, out):
    return aten.mul_out(self, _renorm_factor(self, p, dim, maxnorm), out)


# -- quantile / nanquantile -------------------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_checks(self, q, interpolation):
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self.dtype not in (_dt.float32, _dt.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q.dtype is not self.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")


def _quantile_shape(self, q, dim, keepdim, d):
    """The result's shape: the reduced input's shape, led by the number of quantiles when ``q`` is 1-d."""
    if dim is not None and self.ndim > 0:
        shape = list(self.sizes)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
    else:
        shape = [1] * self.ndim if keepdim else []
    return ([q.numel()] if q.ndim > 0 else []) + shape


def _broadcast(a, b):
    shape = _shape.broadcast_shapes(a.sizes, b.sizes)
    return tuple(t if t.sizes == shape else aten.expand(t, list(shape), False) for t in (a, b))


def _quantile(self, q, dim, keepdim, interpolation, ignore_nan):
    _quantile_checks(self, q, interpolation)
    d = wrap_dim(0 if dim is None else dim, self.ndim)
    shape = _quantile_shape(self, q, dim, keepdim, d)
    if not _item(aten.all(aten.logical_and(aten.ge_Scalar(q, 0), aten.le_Scalar(q, 1)))):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    src = aten.flatten_using_ints(self, 0, -1) if dim is None else aten.transpose_int(aten.unsqueeze(self, -1), d, -1)
    ranked = aten.sort(src, -1, False)[0]
    lead = shape if q.ndim > 0 else [1] + shape
    ranked = aten.view(ranked, lead[1:] + [ranked.sizes[-1]])  # (*reduced shape, n)
    if ignore_nan:  # ranks among the non-NaN values (rank 0 when all are NaN: the quantile is NaN)
        valid = aten.sum_dim_IntList(aten.logical_not(aten.isnan(ranked)), [-1], True, None)
        ranks = aten.mul_Tensor(q, aten.sub_Tensor(valid, 1, 1))
        ranks = aten.masked_fill_Scalar(ranks, aten.lt_Scalar(ranks, 0), 0)
    else:  # a NaN anywhere makes the rank the last index, whose sorted value is NaN
        last = ranked.sizes[-1] - 1
        ranks, has_nan = _broadcast(aten.mul_Tensor(q, last), aten.any_dim(aten.isnan(ranked), -1, True))
        ranks = aten.masked_fill_Scalar(ranks, has_nan, last)
    if interpolation in ("lower", "higher", "nearest"):
        ranks = {"lower": aten.floor, "higher": aten.ceil, "nearest": aten.round}[interpolation](ranks)
    below = aten._to_copy(ranks, _dt.int64, None, None, None, False, None)
    out = aten.gather(ranked, -1, below, False)
    if interpolation in ("linear", "midpoint"):
        above = aten.gather(ranked, -1, aten._to_copy(aten.ceil(ranks), _dt.int64, None, None, None, False, None),
                            False)
        out = (aten.lerp_Scalar(out, above, 0.5) if interpolation == "midpoint"
               else aten.lerp_Tensor(out, above, aten.sub_Tensor(ranks, below, 1)))
    if q.ndim == 0:
        return aten.squeeze_dim(out, -1)
    return aten.squeeze_dim(aten.transpose_int(aten.unsqueeze(out, 0), 0, -1), -1)


def _quantile_into(self, q, dim, keepdim, interpolation, ignore_nan, out):
    _quantile_checks(self, q, interpolation)
    if out.dtype is not self.dtype:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
    result = _quantile(self, q, dim, keepdim, interpolation, ignore_nan)
    resize_out(out, result.sizes)
    return aten.copy_(out, result, False)


def _scalar_q(self, q):
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    return aten.scalar_tensor(q, self.dtype, None, self.device, None)


def quantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile(self, q, dim, keepdim, interpolation, False)


def quantile_out(self, q, dim=None, keepdim=False, interpolation="linear", out=None):
    return _quantile_into(self, q, dim, keepdim, interpolation, False, out)


def quantile_scalar(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile(self, _scalar_q(self, q), dim, keepdim, interpolation, False)


def quantile_scalar_out(self, q, dim=None, keepdim=False, interpolation="linear", out=None):
    return quantile_out(self, _scalar_q(self, q), dim, keepdim, interpolation, out)


def nanquantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile(self, q, dim, keepdim, interpolation, True)


def nanquantile_out(self, q, dim=None, keepdim=False, interpolation="linear", out=None):
    return _quantile_into(self, q, dim, keepdim, interpolation, True, out)


def nanquantile_scalar(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile(self, _scalar_q(self, q), dim, keepdim, interpolation, True)


def nanquantile_scalar_out(self, q, dim=None, keepdim=False, interpolation="linear", out=None):
    return nanquantile_out(self, _scalar_q(self, q), dim, keepdim, interpolation, out)


# -- cdist -----------------------------------------------------------------------------------------------------
def cdist(x1, x2, p=2.0, compute_mode=None):
    """Pairwise ``p``-norm distances; ``p = 2`` in the matmul mode goes through ``_euclidean_dist`` (whose backward
    handles zero distances), everything else through ``_cdist_forward``."""
    cdist_checks(x1, x2, p, compute_mode)
    r1, r2 = x1.sizes[-2], x2.sizes[-2]
    if x1.numel() == 0 or x2.numel() == 0 or not uses_mm(p, compute_mode, r1, r2):
        return aten._cdist_forward(x1, x2, p, compute_mode)
    batch = list(_shape.broadcast_shapes(x1.sizes[:-2], x2.sizes[:-2]))
    n = 1
    for s in batch:
        n *= s
    c = x1.sizes[-1]
    if n == 1:
        return aten.view(aten._euclidean_dist(x1, x2), batch + [r1, r2])
    a = aten.view(aten.clone(aten.expand(x1, batch + [r1, c], False), contiguous_format), [n, r1, c])
    b = aten.view(aten.clone(aten.expand(x2, batch + [r2, c], False), contiguous_format), [n, r2, c])
    return aten.view(aten._euclidean_dist(a, b), batch + [r1, r2])
