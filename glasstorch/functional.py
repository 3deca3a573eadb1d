"""Python-level functions of ``torch.functional`` — ``einsum``, ``unique``, ``unique_consecutive``, ``norm``,
``broadcast_tensors``, ``atleast_1d``/``2d``/``3d``, ``lu``, ``tensordot``, ``block_diag``, ``cartesian_prod``,
``unravel_index``, ``gradient`` — and
the ``as_tuple`` form of ``nonzero`` (a manual binding in PyTorch's ``python_torch_functions_manual.cpp``).

PyTorch writes these in Python over the aten operators; so does glasstorch: each parses its arguments the
way PyTorch's code does and calls the generated bindings of ``einsum``, ``_unique2``, ``unique_dim``,
``unique_consecutive``, ``nonzero`` and ``linalg.vector_norm``/``linalg.matrix_norm``.  :func:`install` puts
them (and the ``Tensor.unique``, ``Tensor.unique_consecutive``, ``Tensor.nonzero``, ``Tensor.norm`` methods) in
place of the generated bindings.

Invariant: no data is touched here; every result comes from an operator.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

from . import _functions as _fn
from . import linalg as _linalg
from ._binding_support import _return_type
from ._core import dtype as _dt
from ._core import shape as _shape
from ._generated import functions as _ops
from .tensor import Tensor

_HISTOGRAMDD = _return_type("histogramdd", ["hist", "bin_edges"])

__all__ = ["einsum", "unique", "unique_consecutive", "nonzero", "norm", "broadcast_tensors", "atleast_1d", "atleast_2d",
           "stft", "atleast_3d", "lu", "tensordot", "block_diag", "cartesian_prod", "meshgrid",
           "unravel_index", "gradient", "histogramdd", "cdist", "install"]


def _subscript(n) -> str:
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args) -> Tensor:
    """Einstein summation: ``einsum(equation, *operands)`` or the sublist form ``einsum(a, [0, 1], b, [1, 2])``.

    Example:
        >>> import glasstorch as torch
        >>> torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(3, 4)).shape
        torch.Size([2, 4])
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation = ",".join("".join(_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    return _ops.einsum(equation, operands)


def _pick(output, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of ``input`` (or distinct slices along ``dim``), with optional inverse and counts.

    Example:
        >>> import glasstorch as torch
        >>> torch.unique(torch.tensor([3, 1, 3]), return_counts=True)
        (tensor([1, 3]), tensor([1, 2]))
    """
    if dim is not None:
        output, inverse, counts = _ops.unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse,
                                                  return_counts=return_counts)
    else:
        output, inverse, counts = _ops._unique2(input, sorted=sorted, return_inverse=return_inverse,
                                                return_counts=return_counts)
    return _pick(output, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse consecutive runs of equal elements (or slices along ``dim``)."""
    output, inverse, counts = _ops.unique_consecutive(input, return_inverse=return_inverse,
                                                      return_counts=return_counts, dim=dim)
    return _pick(output, inverse, counts, return_inverse, return_counts)


def nonzero(input, *, out=None, as_tuple=False):
    """Coordinates of the nonzero elements: an (n, ndim) tensor, or one index tensor per dim (``as_tuple``)."""
    if out is not None and not isinstance(out, Tensor):
        raise TypeError(f"nonzero(): argument 'out' must be Tensor, not {type(out).__name__}")
    if not as_tuple:
        return _ops.nonzero(input) if out is None else _ops.nonzero(input, out=out)
    if out is not None:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    flat = input if input.dim() else input.unsqueeze(0)  # PyTorch's nonzero_numpy treats 0-d as 1-d
    return _ops.nonzero(flat).unbind(1)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` (..., R1, M) and each row of ``x2`` (..., R2, M).
    ``compute_mode`` picks the matmul identity for ``p = 2`` always, never, or beyond 25 rows (the default)."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _ops.cdist(x1, x2, p, _CDIST_MODES[compute_mode])


def histogramdd(input, bins, range=None, weight=None, density=False):  # noqa: A002 - PyTorch's names
    """The ``N``-dimensional histogram of the rows of ``input`` (..., N): ``bins`` is a bin count, one count per
    dim, or one tensor of edges per dim.  Returns ``(hist, bin_edges)`` with a tuple of edges."""
    if isinstance(bins, int):
        bins = [bins] * input.shape[-1]
    if len(bins) and isinstance(bins[0], Tensor):
        hist = _ops._histogramdd_from_bin_tensors(input, bins, weight=weight, density=density)
        return _HISTOGRAMDD(hist, tuple(bins))
    edges = _ops._histogramdd_bin_edges(input, bins, range=range, weight=weight, density=density)
    hist = _ops._histogramdd_from_bin_cts(input, bins, range=range, weight=weight, density=density)
    return _HISTOGRAMDD(hist, tuple(edges))


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """The vector or matrix norm of ``input`` (``torch.norm``, deprecated in PyTorch but widely used).

    A number ``p`` (``inf`` included; None means 2) is ``linalg.vector_norm`` over ``dim`` (all dims when None);
    ``'fro'`` over at most two dims is the 2-norm of the elements; ``'nuc'``, and ``'fro'`` over more dims, are
    ``linalg.matrix_norm`` (which checks the dims and refuses other strings).

    Example:
        >>> import glasstorch as torch
        >>> torch.norm(torch.tensor([[3., 4.]]))
        tensor(5.)
    """
    dims = [dim] if isinstance(dim, int) else dim
    extra = {} if out is None else {"out": out}
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _linalg.vector_norm(input, 2, dims, keepdim, dtype=dtype, **extra)
        if dims is None:
            dims = list(range(input.dim()))
        return _linalg.matrix_norm(input, p, dims, keepdim, dtype=dtype, **extra)
    return _linalg.vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype, **extra)


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to the shape they broadcast to; one that has it already is returned itself (PyTorch's
    ``expand_outplace``).  A mismatch raises PyTorch's ``infer_size`` error.

    Example:
        >>> import glasstorch as torch
        >>> [t.shape for t in torch.broadcast_tensors(torch.zeros(3, 1), torch.zeros(2))]
        [torch.Size([3, 2]), torch.Size([3, 2])]
    """
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    shape = _shape.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)


def _atleast_args(tensors):
    # PyTorch's torch/functional.py: one argument is passed through (a Tensor or a sequence), several make a tuple
    return tensors[0] if len(tensors) == 1 else tensors


def atleast_1d(*tensors):
    """Each tensor with at least one dimension (a 0-dim one is reshaped to ``(1,)``); several give a tuple.

    Example:
        >>> import glasstorch as torch
        >>> torch.atleast_1d(torch.tensor(1.))
        tensor([1.])
    """
    return _ops.atleast_1d(_atleast_args(tensors))


def atleast_2d(*tensors):
    """Each tensor with at least two dimensions (leading size-1 dims added); several give a tuple.

    Example:
        >>> import glasstorch as torch
        >>> torch.atleast_2d(torch.ones(3)).shape
        torch.Size([1, 3])
    """
    return _ops.atleast_2d(_atleast_args(tensors))


def atleast_3d(*tensors):
    """Each tensor with at least three dimensions (``(N,)`` becomes ``(1, N, 1)``, ``(M, N)`` ``(M, N, 1)``).

    Example:
        >>> import glasstorch as torch
        >>> torch.atleast_3d(torch.ones(2, 3)).shape
        torch.Size([2, 3, 1])
    """
    return _ops.atleast_3d(_atleast_args(tensors))


def lu(A, pivot=True, get_infos=False, out=None):
    """The LU factorization of ``A`` (``torch.lu``): ``(LU, pivots)``, and ``infos`` when ``get_infos`` (which also
    turns off the error a singular factor raises).

    Example:
        >>> import glasstorch as torch
        >>> LU, pivots = torch.lu(torch.tensor([[1., 2.], [3., 4.]]))
        >>> pivots
        tensor([2, 2], dtype=torch.int32)
    """
    result = _ops._lu_with_info(A, pivot=pivot, check_errors=not get_infos)
    result = tuple(result) if get_infos else tuple(result[:2])
    if out is None:
        return result
    if len(out) != len(result):
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    for o, r in zip(out, result, strict=True):
        o.resize_as_(r).copy_(r)
    return out


def _lu_method(self, pivot=True, get_infos=False):
    return lu(self, pivot=pivot, get_infos=get_infos)


def tensordot(a, b, dims=2, out=None):
    """Contract ``a`` and ``b``: ``dims`` is a count (the last ``dims`` of ``a`` with the first of ``b``), a pair of
    dimension lists, or a tensor holding either (PyTorch's ``torch.functional.tensordot``).

    Example:
        >>> import glasstorch as torch
        >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), dims=1).shape
        torch.Size([2, 4])
    """
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            if dims.size()[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims.size()[0]}")
            dims = (dims[0].tolist(), dims[1].tolist())
        elif int(dims.item()) < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        else:
            dims = int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims = (list(range(-dims, 0)), list(range(dims)))
    dims_a, dims_b = dims
    if out is None:
        return _ops.tensordot(a, b, dims_a, dims_b)
    return _ops.tensordot(a, b, dims_a, dims_b, out=out)


def block_diag(*tensors):
    """The tensors as blocks on the diagonal of one matrix (a 0-d tensor a 1x1 block, a 1-d tensor a row).

    Example:
        >>> import glasstorch as torch
        >>> torch.block_diag(torch.ones(2, 2), torch.tensor([5., 6.])).shape
        torch.Size([3, 4])
    """
    return _ops.block_diag(tensors)


def cartesian_prod(*tensors):
    """Every combination of the 1-d tensors' elements, one per row, in ``itertools.product`` order.

    Example:
        >>> import glasstorch as torch
        >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4])).tolist()
        [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    return _ops.cartesian_prod(tensors)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids over 0-d or 1-d tensors, given variadic or as one list; ``indexing`` "ij" (matrix,
    the default, which warns once when not given) or "xy" (Cartesian: the first two dimensions exchanged).

    Example:
        >>> import glasstorch as torch
        >>> [g.tolist() for g in torch.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5]), indexing="xy")]
        [[[1, 2], [1, 2], [1, 2]], [[3, 3], [4, 4], [5, 5]]]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing is None:
        return tuple(_ops.meshgrid(tensors))
    return tuple(_ops.meshgrid(tensors, indexing=indexing))


def unravel_index(indices, shape):
    """The coordinates in ``shape`` of each flat (row-major) index, one tensor per dimension; indices past the
    end wrap around (each coordinate is taken modulo its size), as PyTorch's ``torch.unravel_index`` does.

    Example:
        >>> import glasstorch as torch
        >>> [c.tolist() for c in torch.unravel_index(torch.tensor([5, 7]), (2, 4))]
        [[1, 1], [1, 3]]
    """
    if indices.is_complex() or indices.is_floating_point() or indices.dtype == _dt.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    shape = [shape] if isinstance(shape, int) else list(shape)
    for d in shape:
        if not isinstance(d, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    # the row-major stride of each dimension: the product of the sizes after it
    strides = list(itertools.accumulate(reversed(shape[1:] + [1]), operator.mul))[::-1]
    coords = _ops.remainder(_ops.floor_divide(indices.unsqueeze(-1), _fn.tensor(strides, device=indices.device)),
                            _fn.tensor(shape, dtype=_dt.int64, device=indices.device))
    return coords.unbind(-1)


def _gradient_checks(input, n_spacing, dim, edge_order) -> list:
    """PyTorch's ``pre_check_gradient``; returns the dims to differentiate along (as given, unwrapped)."""
    if input.dtype == _dt.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if n_spacing is not None and dim is None and n_spacing != input.dim():
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                           f"to 'self.dim() = {input.dim()}', since dim argument was not given, but got a list of "
                           f"length {n_spacing}")
    if n_spacing is not None and dim is not None and n_spacing != len(dim):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {n_spacing} "
                           f"and a dim argument of length {len(dim)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.dim())) if dim is None else list(dim)
    seen = set()
    for d in dims:
        w = _shape.wrap_dim(d, input.dim())
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
    if any(input.shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    return dims


def _along(t, d, start, stop=None):
    return t.narrow(d, start, (t.shape[d] if stop is None else stop) - start)


def _gradient_uniform(x, d, h, edge_order):
    """Central differences with a uniform step ``h`` (one-sided, of ``edge_order``'s accuracy, at the ends)."""
    n = x.shape[d]
    # the graph is built in PyTorch's order (centre, head, tail): the backward then sums the slices' gradients in
    # the same order, which float16/bfloat16 results can tell apart
    center = (_along(x, d, 2) - _along(x, d, 0, n - 2)) / h
    if edge_order == 1:
        head = (_along(x, d, 1, 2) - _along(x, d, 0, 1)) / h
        tail = (_along(x, d, n - 1) - _along(x, d, n - 2, n - 1)) / h
    else:
        head = (_along(x, d, 0, 1) * -1.5 + _along(x, d, 1, 2) * 2 - _along(x, d, 2, 3) * 0.5) / h
        tail = (_along(x, d, n - 3, n - 2) * 0.5 - _along(x, d, n - 2, n - 1) * 2 + _along(x, d, n - 1) * 1.5) / h
    return _ops.cat([head, center / 2, tail], d)


def _gradient_coordinates(x, d, coords, edge_order):
    """Second-order differences over the sample coordinates ``coords`` along ``d`` (uneven steps)."""
    if coords.dim() != 1:
        raise RuntimeError(f"torch.gradient expected each element of spacing to have one dimension, but got an "
                           f"element with {coords.dim()} dimensions!")
    n = x.shape[d]
    shape = [1] * x.dim()
    shape[d] = -1
    dx = coords.diff(1, 0)
    h1, h2 = dx[:-1], dx[1:]
    a = (-h2 / (h1 * (h1 + h2))).reshape(shape)
    b = ((h2 - h1) / (h1 * h2)).reshape(shape)
    c = (h1 / (h2 * (h1 + h2))).reshape(shape)
    center = a * _along(x, d, 0, n - 2) + b * _along(x, d, 1, n - 1) + c * _along(x, d, 2)
    if edge_order == 1:
        head = (_along(x, d, 1, 2) - _along(x, d, 0, 1)) / dx[0]
        tail = (_along(x, d, n - 1) - _along(x, d, n - 2, n - 1)) / dx[-1]
    else:
        d0, d1, e0, e1 = dx[0], dx[1], dx[-1], dx[-2]
        head = (-(2.0 * d0 + d1) / (d0 * (d0 + d1)) * _along(x, d, 0, 1) + (d0 + d1) / (d0 * d1) * _along(x, d, 1, 2)
                + (-d0) / (d1 * (d0 + d1)) * _along(x, d, 2, 3))
        tail = (e0 / (e1 * (e0 + e1)) * _along(x, d, n - 3, n - 2) - (e0 + e1) / (e0 * e1) * _along(x, d, n - 2, n - 1)
                + (2 * e0 + e1) / (e0 * (e0 + e1)) * _along(x, d, n - 1))
    return _ops.cat([head, center, tail], d)


def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """The derivative of a sampled function along each of ``dim`` (all dims by default), by central differences
    inside and one-sided ones of ``edge_order`` (1 or 2) at the ends, as ``torch.gradient``.

    ``spacing``: the step (a number, one number per dim), or the sample coordinates (one 1-d tensor per dim).

    Example:
        >>> import glasstorch as torch
        >>> torch.gradient(torch.tensor([1.0, 4.0, 9.0, 16.0]))[0].tolist()
        [3.0, 4.0, 6.0, 7.0]
    """
    if isinstance(dim, int):
        dim = [dim]
    listed = isinstance(spacing, (list, tuple))
    dims = _gradient_checks(input, len(spacing) if listed else None, dim, edge_order)
    if listed and spacing and isinstance(spacing[0], Tensor):
        for c in spacing:
            if c.device != input.device:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device, but got devices "
                                   f"{input.device} and {c.device}!")
        return tuple(_gradient_coordinates(input, _shape.wrap_dim(d, input.dim()), c, edge_order)
                     for d, c in zip(dims, spacing, strict=True))
    steps = list(spacing) if listed else [1.0 if spacing is None else spacing] * len(dims)
    return tuple(_gradient_uniform(input, _shape.wrap_dim(d, input.dim()), h, edge_order)
                 for d, h in zip(dims, steps, strict=True))


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


def _unique_method(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return unique(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def _unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
    return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def _nonzero_method(self, *, as_tuple=False):
    return nonzero(self, as_tuple=as_tuple)


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None) -> Tensor:
    """Short-time Fourier transform (``torch.stft``): windowed frames of ``n_fft`` points every ``hop_length``,
    each transformed; with ``center`` the signal is first padded by ``n_fft // 2`` on both sides (``pad_mode``).

    Returns ``(freq, frames)`` or ``(batch, freq, frames)``, complex (``return_complex=True``, required for real
    input) or as real pairs.

    Raises:
        RuntimeError: PyTorch's messages for bad sizes, a missing ``return_complex``, a bad window.

    Example:
        >>> import glasstorch as torch
        >>> torch.stft(torch.ones(16), 8, window=torch.hann_window(8), return_complex=True).shape
        torch.Size([5, 9])
    """
    return _ops.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                     return_complex, align_to_window)


def _stft_method(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
                 normalized=False, onesided=None, return_complex=None, align_to_window=None):
    return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                return_complex, align_to_window)


def install(namespace) -> None:
    """Bind the functions into ``namespace`` (the ``glasstorch`` module) and the methods onto Tensor."""
    for name in ("einsum", "unique", "unique_consecutive", "nonzero", "norm", "broadcast_tensors", "atleast_1d",
                 "atleast_2d", "atleast_3d", "lu", "tensordot", "block_diag",
                 "cartesian_prod", "meshgrid", "stft", "unravel_index", "gradient",
                 "histogramdd", "cdist"):
        setattr(namespace, name, globals()[name])
    for method, name in ((_unique_method, "unique"), (_unique_consecutive_method, "unique_consecutive"),
                         (_nonzero_method, "nonzero"), (_norm_method, "norm"), (_lu_method, "lu"),
                         (_stft_method, "stft")):
        method.__name__, method.__qualname__ = name, f"Tensor.{name}"
        # Python's own call errors ("Tensor.norm() got multiple values for argument 'p'") read the code's name
        method.__code__ = method.__code__.replace(co_name=name, co_qualname=f"Tensor.{name}")
        setattr(Tensor, name, method)
