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
from ._ops.kernels.cpu.spectral import LinAlgError
from ._ops.tensor_iterator import resize_out

__all__ = ["matrix_norm", "norm", "LinAlgError"]
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
    ``'nuc'`` (sum of the singular values), ``2``/``-2`` (largest/smallest singular value).

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
        result = _spectral_norm(A, ord, d0, d1, keepdim, dtype)
    elif ord == "fro":
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


def _spectral_norm(A, ord, d0, d1, keepdim, dtype):
    """``'nuc'``, ``2`` and ``-2``: a reduction of the singular values of ``A`` with ``(d0, d1)`` moved last."""
    if dtype is not None:
        A = A.to(dtype)
    perm = [i for i in range(A.dim()) if i not in (d0, d1)] + [d0, d1]
    sv = svdvals(A.permute(perm))  # noqa: F821 - bound from the generated linalg functions above
    if ord == "nuc":
        result = _gen.sum(sv, [-1], keepdim)
    else:
        result = _gen.amax(sv, -1, keepdim) if float(ord) > 0 else _gen.amin(sv, -1, keepdim)
    if keepdim:
        inverse = [perm.index(i) for i in range(A.dim())]
        result = result.unsqueeze(-1).permute(inverse)
    return result


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """A vector or matrix norm (``torch.linalg.norm``): a matrix norm when ``ord`` is given and ``dim`` names two
    dims (or ``A`` is 2-D without ``dim``), else the vector norm (``ord`` 2 by default) over ``dim``.

    Raises:
        RuntimeError: PyTorch's messages for a bad ``dim`` length, or an ``ord`` without ``dim`` on a >2-D input.

    Example:
        >>> import glasstorch as torch
        >>> torch.linalg.norm(torch.tensor([[3., 4.]]), "nuc")
        tensor(5.)
    """
    dims = [dim] if isinstance(dim, int) else (None if dim is None else list(dim))
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"[{', '.join(str(d) for d in dims)}]")
    if dims is None and ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.dim()}D.")
    extra = {} if out is None else {"out": out}
    if isinstance(ord, str) or (ord is not None and (len(dims) == 2 if dims is not None else A.dim() == 2)):
        return matrix_norm(A, ord, dims if dims is not None else [0, 1], keepdim, dtype=dtype, **extra)
    return vector_norm(A, 2.0 if ord is None else ord, dims, keepdim, dtype=dtype, **extra)  # noqa: F821
