"""Shape and stride arithmetic — PyTorch's ``c10/core/Contiguity.h``, ``ATen/TensorUtils.cpp``
(computeStride), ``ATen/InferSize.h``, ``ATen/ExpandUtils.cpp`` and ``c10/core/WrapDimMinimal.h``.

Pure functions over tuples of ints: no tensors here.  Strides are in elements.  Invariant: these
rules are PyTorch's exactly, because views, ``reshape`` and output layouts are built on them.
"""

from __future__ import annotations

import operator
from functools import lru_cache, reduce

from .layout import channels_last, channels_last_3d, contiguous_format, preserve_format

__all__ = [
    "Size", "contiguous_strides", "is_contiguous", "is_non_overlapping_and_dense", "maybe_overlapping",
    "compute_stride", "infer_size", "wrap_dim", "broadcast_shapes", "prod",
]


class Size(tuple):
    """A tensor's shape (``torch.Size``): a tuple of ints that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return prod(self)

    def __getitem__(self, item):
        out = tuple.__getitem__(self, item)
        return Size(out) if isinstance(item, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


def prod(xs) -> int:
    return reduce(operator.mul, xs, 1)


def contiguous_strides(sizes) -> tuple:
    """Row-major strides; a size-0 dim counts as 1 so strides stay positive (PyTorch's rule).

    Cached: kernels ask for the same few shapes over and over.

    Raises:
        RuntimeError: a stride does not fit in int64 ("Stride calculation overflowed", as
        ``TensorImpl::empty_tensor_restride``); only the strides are checked, not the element count.
    """
    return _contiguous_strides(sizes if type(sizes) is tuple else tuple(sizes))


_INT64_MAX = (1 << 63) - 1


@lru_cache(maxsize=8192)
def _contiguous_strides(sizes: tuple) -> tuple:
    strides = [1] * len(sizes)
    acc = 1
    for d in range(len(sizes) - 1, -1, -1):
        if acc > _INT64_MAX:
            raise RuntimeError("Stride calculation overflowed")
        strides[d] = acc
        acc *= max(sizes[d], 1)
    return tuple(strides)


def is_contiguous(sizes, strides) -> bool:
    """Row-major contiguity, ignoring size-1 dims; an empty tensor is contiguous."""
    expected = 1
    for d in range(len(sizes) - 1, -1, -1):
        s = sizes[d]
        if s == 0:
            return True
        if s != 1:
            if strides[d] != expected:
                # keep scanning: a later zero-size dim still makes the tensor contiguous
                return 0 in sizes
            expected *= s
    return True


def maybe_overlapping(sizes, strides) -> bool:
    """Whether two index tuples of this geometry may reach the same element (stride-0 or interleaved dims), as
    PyTorch's ``_maybe_overlapping_memory``; an empty geometry reaches none."""
    dims = sorted((st, s) for s, st in zip(sizes, strides, strict=True) if s != 1)
    if any(s == 0 for _, s in dims):
        return False
    reach = 0
    for st, s in dims:
        if st <= reach:
            return True
        reach += (s - 1) * st
    return False


def is_non_overlapping_and_dense(sizes, strides) -> bool:
    """True when some permutation of the dims is contiguous (PyTorch's definition)."""
    n = len(sizes)
    if 0 in sizes:
        return True  # an empty tensor overlaps nothing (PyTorch keeps its strides in empty_like)
    if n == 1:
        return sizes[0] < 2 or strides[0] == 1
    order = sorted(range(n), key=lambda d: (sizes[d] < 2, strides[d]))
    expected = 1
    for d in order:
        if sizes[d] < 2:
            return True
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def channels_last_strides(sizes) -> tuple:
    """NHWC strides for NCHW sizes (``torch.channels_last``): ``get_channels_last_strides_2d``.

    Unlike row-major strides a size-0 dim is not counted as 1 (PyTorch's rule), so ``(0, 3, 2, 2)`` gets
    ``(12, 1, 6, 3)`` but ``(2, 0, 2, 2)`` gets ``(0, 1, 0, 0)``.
    """
    N, C, H, W = sizes
    return (H * W * C, 1, W * C, C)


def is_channels_last_contiguous(sizes, strides) -> bool:
    """``is_contiguous(memory_format=channels_last)``: dense NHWC order, size-1 dims ignored; 4-d only.

    No shortcut for an empty tensor (unlike row-major contiguity): the strides of its other dims still count.
    """
    return len(sizes) == 4 and _dense_in_order(sizes, strides, (1, 3, 2, 0))


def is_channels_last_3d_contiguous(sizes, strides) -> bool:
    """``is_contiguous(memory_format=channels_last_3d)``: dense NDHWC order, size-1 dims ignored; 5-d only."""
    return len(sizes) == 5 and _dense_in_order(sizes, strides, (1, 4, 3, 2, 0))


def _dense_in_order(sizes, strides, order) -> bool:
    """Each dim of ``order`` (fastest first) has the stride of the dims before it multiplied; size-1 dims skipped."""
    expected = 1
    for d in order:
        s = sizes[d]
        if s != 1:
            if strides[d] != expected:
                return False
            expected *= s
    return True


def channels_last_3d_strides(sizes) -> tuple:
    """NDHWC strides for NCDHW sizes (``torch.channels_last_3d``); a size-0 dim counts as 0, as in 2-d."""
    N, C, D, H, W = sizes
    return (D * H * W * C, 1, H * W * C, W * C, C)


def memory_format_strides(sizes, memory_format) -> tuple:
    """Strides a fresh tensor of ``sizes`` gets in ``memory_format`` (``empty_tensor_restride``), with its errors.

    ``None`` means row-major; ``preserve_format`` has no meaning without a source tensor and is refused.
    """
    if memory_format is None or memory_format is contiguous_format:
        return contiguous_strides(sizes)
    if memory_format is channels_last:
        if len(sizes) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return channels_last_strides(sizes)
    if memory_format is channels_last_3d:
        if len(sizes) != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        return channels_last_3d_strides(sizes)
    raise RuntimeError("unsupported memory format Preserve")


def is_channels_last_strides_2d(sizes, strides) -> bool:
    """The heuristic PyTorch uses to *guess* a channels-last layout (``preserve_format``)."""
    return len(sizes) == 4 and _channels_last_guess(sizes, strides, (1, 3, 2, 0))


def is_channels_last_strides_3d(sizes, strides) -> bool:
    """:func:`is_channels_last_strides_2d` for 5-d tensors (``channels_last_3d``)."""
    return len(sizes) == 5 and _channels_last_guess(sizes, strides, (1, 4, 3, 2, 0))


def _channels_last_guess(sizes, strides, order) -> bool:
    """PyTorch's ``is_channels_last_strides_{2,3}d`` over ``order`` (channels first, then the spatial dims from
    the fastest, the batch last)."""
    if strides[1] == 0:
        return False
    min_stride = 0
    for d in order:
        if sizes[d] == 0:
            return False
        if strides[d] < min_stride:
            return False
        # N111 or N stride == C stride: ambiguous, PyTorch keeps NCHW
        if d == 0 and min_stride == strides[1]:
            return False
        min_stride = strides[d]
        if sizes[d] > 1:
            min_stride *= sizes[d]
    return True


def compute_stride(oldshape, oldstride, newshape):
    """Strides that let ``newshape`` view memory laid out as (oldshape, oldstride), or None.

    PyTorch's ``computeStride``: the old dims split into chunks of memory-contiguous dims; each chunk
    must be matched exactly by a run of new dims with the same element count.
    """
    numel = prod(oldshape)
    if numel == 0:
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        return contiguous_strides(newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1] if oldstride else 1
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def infer_size(shape, numel) -> tuple:
    """Resolve one ``-1`` in ``shape`` against ``numel`` (PyTorch's ``infer_size``), with its errors."""
    newsize = 1
    infer_dim = None
    for d, s in enumerate(shape):
        if s == -1:
            if infer_dim is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_dim = d
        elif s >= 0:
            newsize *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {d} of shape {_fmt(shape)}")
    if numel == newsize or (infer_dim is not None and newsize > 0 and numel % newsize == 0):
        if infer_dim is None:
            return tuple(shape)
        if newsize == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_fmt(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        out = list(shape)
        out[infer_dim] = numel // newsize
        return tuple(out)
    if infer_dim is not None and newsize == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_fmt(shape)} because the "
                           "unspecified dimension size -1 can be any value and is ambiguous")
    raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")


def _fmt(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def wrap_dim(dim, ndim, wrap_scalar=True) -> int:
    """Wrap a possibly negative ``dim`` into ``[0, ndim)``; a 0-dim tensor accepts -1 and 0."""
    if ndim <= 0:
        if not wrap_scalar:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        ndim = 1
    if dim < -ndim or dim >= ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim + ndim if dim < 0 else dim


def broadcast_shapes(*shapes) -> tuple:
    """Right-aligned broadcast of shapes with PyTorch's error text.

    As TensorIterator's compute_shape, the shapes are folded one at a time into the running result (infer_size):
    each pair is walked from its last dim, so the first mismatch named is the rightmost one, and the dimension a
    mismatch names counts in that pair's frame (the longer of the two), not in the final result's."""
    out: list = []
    for shape in shapes:
        n = max(len(out), len(shape))
        cur_full = [1] * (n - len(out)) + out
        off = n - len(shape)
        for d in reversed(range(n)):
            s = shape[d - off] if d >= off else 1
            cur = cur_full[d]
            if cur == s or s == 1:
                continue
            if cur == 1:
                cur_full[d] = s
            else:
                raise RuntimeError(f"The size of tensor a ({cur}) must match the size of tensor b ({s}) at "
                                   f"non-singleton dimension {d}")
        out = cur_full
    return tuple(out)


def expand_strides(sizes, strides, target):
    """Sizes and strides of ``expand(target)``; raises PyTorch's expand errors."""
    if len(target) < len(sizes):
        raise RuntimeError(f"expand: the number of sizes provided ({len(target)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({len(sizes)})")
    ndim = len(target)
    off = ndim - len(sizes)
    new_sizes = [0] * ndim
    new_strides = [0] * ndim
    for d in range(ndim - 1, -1, -1):
        t = target[d]
        if d < off:
            if t < 0:
                raise RuntimeError(f"The expanded size of the tensor ({t}) isn't allowed in a leading, "
                                   "non-existing dimension " + str(d))
            new_sizes[d], new_strides[d] = t, (0 if t != 1 else new_sizes[d + 1] * new_strides[d + 1]
                                               if d + 1 < ndim else 0)
            continue
        s, st = sizes[d - off], strides[d - off]
        if t == -1:
            t = s
        if s == t:
            new_sizes[d], new_strides[d] = s, st
        elif s == 1:
            new_sizes[d], new_strides[d] = t, 0
        else:
            raise RuntimeError(f"The expanded size of the tensor ({t}) must match the existing size ({s}) at "
                               f"non-singleton dimension {d}.  Target sizes: {_fmt(target)}.  Tensor sizes: "
                               f"{_fmt(sizes)}")
    return tuple(new_sizes), tuple(new_strides)


def strides_for_format(sizes, strides, memory_format) -> tuple:
    """Strides of a new tensor shaped like (sizes, strides) in ``memory_format`` (``empty_like`` rules).

    ``preserve_format`` (or None) keeps dense non-overlapping strides, else keeps their order densely
    (``infer_dense_strides``); any other format is that format's fresh strides.
    """
    if memory_format is None or memory_format is preserve_format:
        if is_non_overlapping_and_dense(sizes, strides):
            return tuple(strides)
        return infer_dense_strides(sizes, strides)
    return memory_format_strides(sizes, memory_format)


def infer_dense_strides(sizes, strides) -> tuple:
    """Dense strides that keep the stride order of (sizes, strides) — PyTorch's ``infer_dense_strides``.

    Dims are ordered fastest-first by stride; equal strides put the larger dim outside (TensorIterator's
    reorder rule), and stride-0 dims keep their place.
    """
    ndim = len(sizes)
    perm = list(range(ndim - 1, -1, -1))  # perm[0] is the fastest-moving dim

    def should_swap(d0, d1):
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if sizes[d0] > sizes[d1] else 0

    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= max(sizes[d], 1)
    return tuple(out)
