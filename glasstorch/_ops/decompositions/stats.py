"""Statistics decompositions (CompositeImplicitAutograd) — PyTorch's ``Correlation.cpp`` (cov, corrcoef),
``Distance.cpp`` (dist) and the renorm of ``ReduceOps.cpp``.

``cov`` centres each variable (a row) on its weighted mean, multiplies by the conjugate transpose weighted by
``fweights * aweights`` and divides by the weight sum less the correction (numpy's ``v1 - ddof * v2 / v1`` when
aweights are given), clamped at 0 with PyTorch's warning.  ``renorm`` scales each slice along ``dim`` whose
``p``-norm exceeds ``maxnorm`` by ``maxnorm / (norm + 1e-7)``; the norm accumulates in float32 for reduced floats
and so does the scale, which multiplies in float32 before the result is rounded, as PyTorch's kernel does.

Invariant: nothing here touches tensor data except the checks PyTorch makes with ``.item()``; every computation
is another operator call, so autograd sees it.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..._core.user_warning import warn as _user_warn
from ..aten import aten

__all__ = ["cov", "corrcoef", "dist", "renorm", "renorm_", "renorm_out"]


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
