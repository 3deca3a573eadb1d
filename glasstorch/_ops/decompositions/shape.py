"""Shape decompositions — PyTorch's CompositeImplicitAutograd kernels of ``TensorShape.cpp``,
``TensorTransformations.cpp``, ``Repeat.cpp`` and ``PadNd.cpp``.

Each function takes TensorImpls in schema order and is written in terms of other operators (called
through ``aten``) and zero-copy views, exactly as PyTorch's composite kernels are; ``pad`` is the
dispatcher behind ``torch.nn.functional.pad`` (PyTorch's ``pad`` → ``_pad_enum``).

Invariant: nothing here touches data directly except through an operator or ``copy_``.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.dispatch_key import bit, tls
from ..._core.layout import contiguous_format
from ..._core.shape import wrap_dim
from ..._core.user_warning import warn_once
from ..._tensor.impl import empty_impl
from ..aten import aten
from ..dispatcher import get_op
from ..factories import arange_impl, full_impl
from ..tensor_iterator import resize_out
from .views import atleast_nd

__all__ = [
    "concat", "concat_out", "concatenate", "concatenate_out", "hstack", "hstack_out", "vstack", "vstack_out",
    "dstack", "dstack_out", "column_stack", "column_stack_out", "tile", "repeat_interleave_self_Tensor",
    "repeat_interleave_self_int", "fliplr", "flipud", "rot90", "diag", "pad", "pad_enum",
    "pad_circular", "narrow_Tensor", "nonzero_numpy", "tensor_split_tensor_indices_or_sections", "diagflat",
    "cartesian_prod", "meshgrid", "meshgrid_indexing", "combinations", "diff", "diff_out",
]

_PYTHON_KEY = bit("Python")
PAD_MODES = {"reflect": 0, "replicate": 1, "circular": 2, "constant": 3}
_PAD_NAMES = {v: k for k, v in PAD_MODES.items()}


def _reshape(impl, sizes):
    return aten.reshape(impl, tuple(sizes))


# -- concatenation aliases and stacks ---------------------------------------------------------------------------
def concat(tensors, dim):
    return aten.cat(tensors, dim)


def concat_out(tensors, dim, out):
    return aten.cat_out(tensors, dim, out)


def concatenate(tensors, dim):
    return aten.cat(tensors, dim)


def concatenate_out(tensors, dim, out):
    return aten.cat_out(tensors, dim, out)


def _nonempty(tensors, name):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def _hstack_parts(tensors):
    parts = [atleast_nd(t, 1) for t in _nonempty(tensors, "hstack")]
    return parts, (0 if parts[0].ndim == 1 else 1)


def hstack(tensors):
    parts, dim = _hstack_parts(tensors)
    return aten.cat(parts, dim)


def hstack_out(tensors, out):
    parts, dim = _hstack_parts(tensors)
    return aten.cat_out(parts, dim, out)


def vstack(tensors):
    return aten.cat([atleast_nd(t, 2) for t in _nonempty(tensors, "vstack")], 0)


def vstack_out(tensors, out):
    return aten.cat_out([atleast_nd(t, 2) for t in _nonempty(tensors, "vstack")], 0, out)


def dstack(tensors):
    return aten.cat([atleast_nd(t, 3) for t in _nonempty(tensors, "dstack")], 2)


def dstack_out(tensors, out):
    return aten.cat_out([atleast_nd(t, 3) for t in _nonempty(tensors, "dstack")], 2, out)


def _column_parts(tensors):
    return [_reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in _nonempty(tensors, "column_stack")]


def column_stack(tensors):
    return aten.cat(_column_parts(tensors), 1)


def column_stack_out(tensors, out):
    return aten.cat_out(_column_parts(tensors), 1, out)


# -- repetition -------------------------------------------------------------------------------------------------
def tile(self, dims):
    dims = tuple(dims)
    if self.ndim > len(dims):
        dims = (1,) * (self.ndim - len(dims)) + dims
    return aten.repeat(self, dims)


def repeat_interleave_self_int(self, repeats, dim, output_size):
    inp = self if dim is not None else _reshape(self, (-1,))
    d = wrap_dim(0 if dim is None else dim, self.ndim)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    expanded = aten.expand(aten.unsqueeze(inp, d + 1), inp.sizes[:d + 1] + (repeats,) + inp.sizes[d + 1:], False)
    return aten.flatten_using_ints(aten.clone(expanded, contiguous_format), d, d + 1)


def repeat_interleave_self_Tensor(self, repeats, dim, output_size):
    inp = self
    if dim is None:
        inp, dim = _reshape(self, (-1,)), 0
    size = inp.sizes[wrap_dim(dim, inp.ndim)]
    if repeats.ndim == 0 or (repeats.ndim == 1 and repeats.sizes[0] == 1):
        repeats = aten.expand(_reshape(repeats, (1,)), (size,), False)
    elif repeats.ndim == 1:
        if repeats.sizes[0] != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats.sizes[0]} and input.size({dim}) = {size}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return aten.index_select(inp, dim, aten.repeat_interleave_Tensor(repeats, output_size))


# -- flips ------------------------------------------------------------------------------------------------------
def fliplr(self):
    if self.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return aten.flip(self, (1,))


def flipud(self):
    if self.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return aten.flip(self, (0,))


def rot90(self, k, dims):
    dims = tuple(dims)
    n = self.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = dims
    w0, w1 = wrap_dim(d0, n), wrap_dim(d1, n)
    if w0 == w1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return aten.transpose_int(aten.flip(self, (d1,)), d0, d1)
    if k == 2:
        return aten.flip(self, dims)
    if k == 3:
        return aten.transpose_int(aten.flip(self, (d0,)), d0, d1)
    return aten.clone(self, contiguous_format)


def diag(self, diagonal):
    if self.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.ndim}D")
    if self.ndim == 1:
        return aten.diag_embed(self, diagonal, 0, 1)
    return aten.clone(aten.diagonal(self, diagonal, 0, 1), contiguous_format)


# -- padding ----------------------------------------------------------------------------------------------------
_PAD_HELP = ("Supported combinations for non-constant padding:\n"
             "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
             "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
             "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _circular_out_shape(self, pad) -> list:
    n_padded = len(pad) // 2
    n_keep = self.ndim - n_padded
    if n_keep not in (1, 2):
        raise RuntimeError(f"Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent "
                           f"to padding of length {(self.ndim - 1) * 2} or {(self.ndim - 2) * 2} respectively but got "
                           f"{len(pad)}")
    shape = list(self.sizes)
    for i in range(n_padded):
        before, after = pad[2 * (n_padded - i - 1)], pad[2 * (n_padded - i - 1) + 1]
        size = self.sizes[n_keep + i]
        shape[n_keep + i] = size + before + after
        if not (before <= size and after <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if shape[n_keep + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    return shape


def pad_circular(self, pad):
    """PyTorch's ``_pad_circular``: copy the (cropped) input into the middle of a new tensor, then copy the wrapped
    borders from that middle, last dim first (differentiable through copy_ into slices: CopySlices)."""
    pad = tuple(pad)
    shape = _circular_out_shape(self, pad)
    out = empty_impl(shape, self.dtype, self.device)
    if tls.included & _PYTHON_KEY:  # a dispatch mode (make_fx, a fake mode) must see the fresh buffer, as it sees
        out = get_op("aten::lift_fresh").call(out)  # factories', else a tracer takes the output for a constant
    dst, src = out, self
    dims = [self.ndim - 1 - i for i in range(len(pad) // 2)]  # pad[2i], pad[2i+1] pad dim ndim-1-i
    for i, d in enumerate(dims):
        before, after = pad[2 * i], pad[2 * i + 1]
        dst = aten.slice_Tensor(dst, d, max(before, 0), shape[d] - max(after, 0), 1)
        src = aten.slice_Tensor(src, d, max(-before, 0), self.sizes[d] - max(-after, 0), 1)
    aten.copy_(dst, src, False)
    for i, d in enumerate(dims):
        before, after = pad[2 * i], pad[2 * i + 1]
        end = shape[d] - max(after, 0)
        if before > 0:
            aten.copy_(aten.slice_Tensor(out, d, 0, before, 1), aten.slice_Tensor(out, d, end - before, end, 1), False)
        if after > 0:
            start = max(before, 0)
            aten.copy_(aten.slice_Tensor(out, d, shape[d] - after, shape[d], 1),
                       aten.slice_Tensor(out, d, start, start + after, 1), False)
    return out


def pad_enum(self, pad, mode, value):
    pad = tuple(pad)
    n = self.ndim
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > n * 2:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {n}")
    name = _PAD_NAMES.get(mode)
    if name == "constant":
        return aten.constant_pad_nd(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{name}" doesn\'t take in value argument')
    nd = len(pad) // 2
    if nd in (1, 2, 3) and n in (nd + 1, nd + 2):
        if name == "circular":
            return aten._pad_circular(self, pad)
        if name in ("reflect", "replicate"):
            op = getattr(aten, f"{'reflection' if name == 'reflect' else 'replication'}_pad{nd}d")
            return op(self, pad)
    raise NotImplementedError(f"Padding size {len(pad)} is not supported for {n}D input tensor.\n{_PAD_HELP}")


def pad(self, pad, mode, value):
    if mode not in PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return aten._pad_enum(self, pad, PAD_MODES[mode], value)


# -- narrow with a tensor start, where(condition) ---------------------------------------------------------------
def narrow_Tensor(self, dim, start, length):
    """``narrow`` whose start is a 0-dim integer tensor (read once, as PyTorch's ``start.item()``)."""
    if start.ndim != 0 or start.dtype._cat != _dt.INT_CAT:
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return aten.narrow(self, dim, int(start.values_np()[()]), length)


def nonzero_numpy(condition):
    """``where(condition)``: one index tensor per dimension (``nonzero(as_tuple=True)``; 0-dim counts as 1-dim)."""
    if condition.ndim == 0:
        condition = aten.unsqueeze(condition, 0)
    return aten.unbind_int(aten.nonzero(condition), 1)


def tensor_split_tensor_indices_or_sections(self, tensor_indices_or_sections, dim=0):
    """``tensor_split`` with a CPU long tensor: 0-dim, the number of sections; 1-dim, the split indices."""
    t = tensor_indices_or_sections
    if self.ndim < 1:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with {self.ndim} "
                           "dims")
    if t.device.type != "cpu":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {t.device}")
    if t.dtype is not _dt.int64:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{t.dtype._short}")
    if t.ndim not in (0, 1):
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {t.ndim} dims")
    values = t.values_np()
    if t.ndim == 0:
        return aten.tensor_split_sections(self, int(values[()]), dim)
    return aten.tensor_split_indices(self, [int(v) for v in values], dim)


# -- diagflat / cartesian_prod / diff (TensorShape.cpp, ReduceOps.cpp) ------------------------------------------
def diagflat(self, offset):
    """The flattened input on the ``offset``-th diagonal of a square matrix."""
    return aten.diag_embed(aten.reshape(self, (-1,)), offset, 0, 1)


def cartesian_prod(tensors):
    """Every combination of the 1-d inputs' elements, one per row (``meshgrid(indexing="ij")``, flattened)."""
    tensors = list(tensors)
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.sizes)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = aten.meshgrid_indexing(tensors, "ij")
    return aten.stack([_reshape(g, (-1,)) for g in grids], 1)


_MESHGRID_WARNING = "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."


def meshgrid(tensors):
    """Without ``indexing``: "ij", after PyTorch's once-per-process warning."""
    warn_once(_MESHGRID_WARNING, key="meshgrid")
    return meshgrid_indexing(tensors, "ij")


def meshgrid_indexing(tensors, indexing):
    """Coordinate grids: input ``i`` (0-d or 1-d) viewed along dimension ``i`` and expanded to every input's
    length. "xy" (Cartesian) indexing exchanges the roles of the first two inputs, in the inputs and the grids."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in zip(tensors, tensors[1:], strict=False):
        if a.dtype != b.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if a.device != b.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               f"a tensor of sizes {list(t.sizes)}")
    sizes = [t.numel() for t in tensors]
    grids = [aten.expand(aten.view(t, [-1 if j == i else 1 for j in range(len(tensors))]), sizes, False)
             for i, t in enumerate(tensors)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


def _ordered_mask(n, r, with_replacement, device):
    """Over the r-dimensional grid of indices into ``n`` elements, True where i < j < k ... (i <= j <= k ...
    with replacement): the grid points that are combinations."""
    grids = aten.meshgrid_indexing([arange_impl(0, n, 1, _dt.int64, device)] * r, "ij")
    mask = full_impl(grids[0].sizes, True, _dt.bool, grids[0].device)
    compare = aten.le_Tensor if with_replacement else aten.lt_Tensor
    for a, b in zip(grids, grids[1:], strict=False):
        mask = aten.mul_Tensor(mask, compare(a, b))
    return mask


def combinations(self, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-d tensor's elements, one per row, in ``itertools.combinations``
    (``combinations_with_replacement``) order: ``r`` copies of the input on a grid, kept where ordered."""
    if self.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(self.sizes)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty_impl((0,), self.dtype, self.device)
    mask = _ordered_mask(self.numel(), r, with_replacement, self.device)
    return aten.stack([aten.masked_select(g, mask) for g in aten.meshgrid_indexing([self] * r, "ij")], 1)


def _diff_operand(self, dim, prepend, append):
    """``self`` with ``prepend``/``append`` concatenated along ``dim``, after PyTorch's shape checks."""
    pieces = []
    for extra in (prepend, self, append):
        if extra is None:
            continue
        if extra is not self:
            if extra.ndim != self.ndim:
                raise RuntimeError("diff expects prepend or append to be the same dimension as input")
            for d in range(self.ndim):
                if d != dim and extra.sizes[d] != self.sizes[d]:
                    raise RuntimeError(f"diff expects the shape of tensor to prepend or append to match that of "
                                       f"input except along the differencing dimension; input.size({d}) = "
                                       f"{self.sizes[d]}, but got tensor.size({d}) = {extra.sizes[d]}")
        pieces.append(extra)
    return pieces[0] if len(pieces) == 1 else aten.cat(pieces, dim)


def _diff_check(self, n, dim):
    if self.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    return wrap_dim(dim, self.ndim)


def _diff_once(x, dim, out=None):
    """``x[1:] - x[:-1]`` along ``dim`` (``logical_xor`` for bool), into ``out`` when given."""
    length = x.sizes[dim] - 1
    hi, lo = aten.narrow(x, dim, 1, length), aten.narrow(x, dim, 0, length)
    if x.dtype == _dt.bool:
        return aten.logical_xor(hi, lo) if out is None else aten.logical_xor_out(hi, lo, out)
    return aten.sub_Tensor(hi, lo, 1) if out is None else aten.sub_out(hi, lo, 1, out)


def _diff_repeat(x, n, dim):
    for _ in range(n):
        x = _diff_once(x, dim)
    return x


def diff(self, n, dim, prepend, append):
    """The ``n``-th forward difference along ``dim``, after concatenating ``prepend`` and ``append``; an order past
    the dimension's length stops at an empty result (PyTorch clamps ``n`` to it)."""
    dim = _diff_check(self, n, dim)
    x = _diff_operand(self, dim, prepend, append)
    if n == 0:
        return aten.clone(x, None)
    return _diff_repeat(x, min(n, x.sizes[dim]), dim)


def diff_out(self, n, dim, prepend, append, out):
    dim = _diff_check(self, n, dim)
    x = _diff_operand(self, dim, prepend, append)
    if n == 0:
        resize_out(out, x.sizes)
        return aten.copy_(out, x, False)
    n = min(n, x.sizes[dim])
    return _diff_once(_diff_repeat(x, n - 1, dim), dim, out)
