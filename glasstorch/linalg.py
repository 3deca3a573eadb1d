"""``glasstorch.linalg`` — PyTorch's ``torch.linalg``: the aten ``linalg_*`` operators under their short names,
and ``matrix_norm``, written (as PyTorch's ``LinearAlgebra.cpp`` writes it) over those operators.

``torch.linalg.vector_norm`` is the generated binding of ``aten::linalg_vector_norm`` and so on; the
list comes from the declarations (``python_module: linalg``).

Invariant: no data is touched here; every result comes from an operator.
"""

from __future__ import annotations

import math

from ._core import dtype as _dt
from ._core.shape import wrap_dim
from ._generated import functions as _gen
from ._ops.tensor_iterator import resize_out

__all__ = ["matrix_norm"]
for _name in getattr(_gen, "LINALG_FUNCTIONS", ()):
    _short = _name.removeprefix("linalg_")
    globals()[_short] = getattr(_gen, _name)
    __all__.append(_short)
del _name, _short

_FULL_PRECISION = (_dt.float32, _dt.float64, _dt.complex64, _dt.complex128)


def _matrix_norm_checks(A, dim, dtype, low_precision: bool) -> list:
    """``_linalg_matrix_norm_checks``: a (batch of) floating matrices, two distinct dims, a fitting dtype."""
    fn = "linalg.matrix_norm"
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got {_dt.name_of(A.dtype)}")
    if not low_precision and A.dtype not in _FULL_PRECISION:
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {_dt.name_of(A.dtype)}")
    dim = [dim] if isinstance(dim, int) else list(dim)
    if len(dim) != 2:
        raise RuntimeError(f"{fn}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    dim = [wrap_dim(d, A.dim()) for d in dim]
    if dim[0] == dim[1]:
        raise RuntimeError(f"{fn}: dims must be different. Got ({dim[0]}, {dim[1]})")
    _dt.check_linalg_norm_dtype(dtype, A.dtype, fn)
    return dim


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """A matrix norm over the two dims ``dim`` of ``A`` (``torch.linalg.matrix_norm``).

    ``ord``: ``'fro'`` (Frobenius), ``1``/``-1`` (max/min column sum), ``inf``/``-inf`` (max/min row sum);
    ``'nuc'`` and ``2``/``-2`` need singular values, which no operator computes yet (NotImplementedError).

    Raises:
        RuntimeError: PyTorch's messages for an unknown order, a non-matrix or integer input, bad dims or dtype.

    Example:
        >>> import glasstorch as torch
        >>> torch.linalg.matrix_norm(torch.ones(2, 3), 1)
        tensor(2.)
    """
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        spectral = ord == "nuc"
    else:
        o = float(ord)
        if abs(o) not in (1.0, 2.0, math.inf):
            raise RuntimeError(f"linalg.matrix_norm: Order {o:g} not supported.")
        spectral = abs(o) == 2.0
    d0, d1 = _matrix_norm_checks(A, dim, dtype, low_precision=not spectral)
    if spectral:
        raise NotImplementedError(f"linalg.matrix_norm: ord={ord!r} needs singular values (aten::linalg_svdvals), "
                                  "which glasstorch does not implement yet")
    if ord == "fro":
        result = _gen.linalg_vector_norm(A, 2, [d0, d1], keepdim, dtype=dtype)
    else:
        if abs(o) == math.inf:  # the inf norm is the 1 norm of the transpose
            d0, d1 = d1, d0
        if not keepdim and d0 < d1:
            d1 -= 1  # the first reduction removed a dim in front of d1
        sums = _gen.linalg_vector_norm(A, 1.0, [d0], keepdim, dtype=dtype)
        result = _gen.amax(sums, d1, keepdim) if o > 0 else _gen.amin(sums, d1, keepdim)
    if out is None:
        return result
    resize_out(out._impl, result.shape)
    return out.copy_(result)
