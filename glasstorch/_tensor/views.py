"""View operators — PyTorch's ``aten/src/ATen/native/TensorShape.cpp`` (the view half).

Every function takes a TensorImpl and returns a new TensorImpl over the *same* storage and version
counter, with new sizes/strides/offset: no data moves.  They are backend-agnostic (they run on meta
tensors too), which is why PyTorch registers them as CompositeExplicitAutograd kernels.

Invariant: a view never reaches outside its base's storage, strides stay non-negative, and the error
for each bad argument is PyTorch's, type and text.
"""

from __future__ import annotations

import operator

from .._core import shape as _shape
from .._core.shape import wrap_dim
from .impl import TensorImpl, storage_nbytes_for

__all__ = [
    "view", "as_strided", "transpose", "permute", "expand", "narrow", "slice_", "select", "unsqueeze",
    "squeeze", "flatten", "unflatten", "movedim", "unfold", "diagonal", "split", "split_with_sizes", "chunk",
    "unbind", "tensor_split", "basic_index", "alias", "view_dtype", "t", "tensor_type_name", "type_string",
]


def tensor_type_name(impl: TensorImpl) -> str:
    """PyTorch's legacy type string used in messages: ``torch.FloatTensor``, ``torch.cuda.LongTensor``."""
    mid = "" if impl.device.type == "cpu" else f"{impl.device.type}."
    return f"torch.{mid}{impl.dtype._tensor_type}"


# The ScalarTypes that keep a legacy Python name (torch.FloatTensor) in PyTorch's C++ messages; the others print
# as dispatch key + ScalarType + "Type" (CPUBFloat16Type, CPUBoolType), and so does every type on meta.
_LEGACY_NAMED = frozenset({"Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"})
_KEY_OF_DEVICE = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}


def type_string(impl: TensorImpl) -> str:
    """The type string of PyTorch's C++ messages (``TensorBase::toString``): ``torch.FloatTensor`` for the
    classic CPU/CUDA types, ``CPUBFloat16Type`` or ``MetaFloatType`` for the rest."""
    kind = impl.device.type
    if kind in ("cpu", "cuda") and impl.dtype._short in _LEGACY_NAMED:
        return tensor_type_name(impl)
    return f"{_KEY_OF_DEVICE.get(kind, kind)}{impl.dtype._short}Type"


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def alias(impl: TensorImpl) -> TensorImpl:
    return impl.view_impl(impl.sizes, impl.strides, impl.offset)


def view(impl: TensorImpl, shape) -> TensorImpl:
    """``view(*shape)``: same memory read with new sizes; needs stride-compatible geometry."""
    numel = impl.numel()
    sizes = _shape.infer_size(shape, numel)
    if numel and impl.strides == _shape.contiguous_strides(impl.sizes):
        strides = _shape.contiguous_strides(sizes)  # what computeStride gives for canonical strides, faster
    else:
        strides = _shape.compute_stride(impl.sizes, impl.strides, sizes)
        if strides is None:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return impl.view_impl(sizes, strides, impl.offset)


def view_dtype(impl: TensorImpl, dtype) -> TensorImpl:
    """``view(dtype)``: reinterpret the bytes; the last dim rescales when element sizes differ."""
    if impl.is_conj():  # PyTorch refuses a lazy view here even for its own dtype
        raise RuntimeError("torch.Tensor.view is not supported for conjugate view tensors when converting to a "
                           "different dtype.")
    if impl.is_neg():
        raise RuntimeError("torch.Tensor.view is not supported for tensors with negative bit set when converting to "
                           "a different dtype.")
    old, new = impl.dtype.itemsize, dtype.itemsize
    if old == new:
        out = impl.view_impl(impl.sizes, impl.strides, impl.offset)
        out.dtype = dtype
        return out
    src, dst = impl.dtype._short, dtype._short
    if impl.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 to view {src} as {dst} (different element sizes)")
    if new < old and impl.strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 to view {src} as {dst} (different element sizes), but got "
                           f"{impl.strides[-1]}")
    if new > old:
        ratio = new // old
        if impl.sizes[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} to view {src} as {dst} (different "
                               f"element sizes), but got {impl.sizes[-1]}")
        if impl.offset % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} to view {src} as {dst} "
                               f"(different element sizes), but got {impl.offset}")
        if impl.strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {src} as {dst} (different element sizes), but "
                               f"got {impl.strides[-1]}")
        for d in range(impl.ndim - 1):
            if impl.strides[d] % ratio:
                raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} to view {src} as {dst} "
                                   f"(different element sizes), but got {impl.strides[d]}")

        sizes = impl.sizes[:-1] + (impl.sizes[-1] // ratio,)
        strides = tuple(s // ratio for s in impl.strides[:-1]) + (1,)
        offset = impl.offset // ratio
    else:
        ratio = old // new
        sizes = impl.sizes[:-1] + (impl.sizes[-1] * ratio,)
        strides = tuple(s * ratio for s in impl.strides[:-1]) + (1,)
        offset = impl.offset * ratio
    out = TensorImpl(impl.storage, sizes, strides, offset, dtype, impl.device, impl.version)
    return out


def as_strided(impl: TensorImpl, size, stride, storage_offset=None) -> TensorImpl:
    """Any geometry over the storage, checked only against the storage's bounds."""
    size, stride = tuple(size), tuple(stride)
    offset = impl.offset if storage_offset is None else storage_offset
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {_fmt(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {_fmt(size)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    isz = impl.dtype.itemsize
    need = storage_nbytes_for(size, stride, offset, isz)
    if need > impl.storage.nbytes():
        raise RuntimeError(f"setStorage: sizes {_fmt(size)}, strides {_fmt(stride)}, storage offset {offset}, and "
                           f"itemsize {isz} requiring a storage size of {need} are out of bounds for storage of size "
                           f"{impl.storage.nbytes()}")
    return impl.view_impl(size, stride, offset)


def transpose(impl: TensorImpl, dim0: int, dim1: int) -> TensorImpl:
    n = impl.ndim
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    if n == 0 or d0 == d1:
        return alias(impl)
    sizes, strides = list(impl.sizes), list(impl.strides)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return impl.view_impl(tuple(sizes), tuple(strides), impl.offset)


def t(impl: TensorImpl) -> TensorImpl:
    if impl.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {impl.ndim}D")
    return transpose(impl, 0, 1) if impl.ndim == 2 else alias(impl)


def permute(impl: TensorImpl, dims) -> TensorImpl:
    n = impl.ndim
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
                           f"len(dims) = {len(dims)}")
    wrapped = [wrap_dim(d, n) for d in dims]
    if len(set(wrapped)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    sizes = tuple(impl.sizes[d] for d in wrapped)
    strides = tuple(impl.strides[d] for d in wrapped)
    return impl.view_impl(sizes, strides, impl.offset)


def expand(impl: TensorImpl, size) -> TensorImpl:
    size = tuple(size)
    if len(size) < impl.ndim:
        raise RuntimeError(f"expand({type_string(impl)}{{{_fmt(impl.sizes)}}}, size={_fmt(size)}): the number "
                           f"of sizes provided ({len(size)}) must be greater or equal to the number of dimensions in "
                           f"the tensor ({impl.ndim})")
    sizes, strides = _shape.expand_strides(impl.sizes, impl.strides, size)
    return impl.view_impl(sizes, strides, impl.offset)


def slice_(impl: TensorImpl, dim: int, start=None, end=None, step: int = 1) -> TensorImpl:
    """``x[start:end:step]`` along ``dim``: bounds wrap and clamp; step must be positive."""
    d = wrap_dim(dim, impl.ndim)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    size = impl.sizes[d]
    start = 0 if start is None else start
    end = size if end is None else end
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    length = (end - start + step - 1) // step
    sizes, strides = list(impl.sizes), list(impl.strides)
    sizes[d] = length
    strides[d] *= step
    offset = impl.offset + start * impl.strides[d] if length else impl.offset + start * impl.strides[d]
    return impl.view_impl(tuple(sizes), tuple(strides), offset)


def narrow_bounds(impl: TensorImpl, dim: int, start: int, length: int) -> tuple:
    """(wrapped dim, non-negative start) for ``narrow``, with PyTorch's checks and messages."""
    if impl.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, impl.ndim)
    size = impl.sizes[d]
    if start < -size or start > size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return d, start


def narrow(impl: TensorImpl, dim: int, start: int, length: int) -> TensorImpl:
    d, start = narrow_bounds(impl, dim, start, length)
    return slice_(impl, d, start, start + length, 1)


def select(impl: TensorImpl, dim: int, index: int) -> TensorImpl:
    if impl.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, impl.ndim)
    size = impl.sizes[d]
    if index < -size or index >= size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {_fmt(impl.sizes)} at dimension "
                         f"{d}")
    if index < 0:
        index += size
    return _drop_dim(impl, d, impl.offset + index * impl.strides[d])


def _drop_dim(impl, d, offset):
    return impl.view_impl(impl.sizes[:d] + impl.sizes[d + 1:], impl.strides[:d] + impl.strides[d + 1:], offset)


def unsqueeze(impl: TensorImpl, dim: int) -> TensorImpl:
    d = wrap_dim(dim, impl.ndim + 1)
    stride = impl.sizes[d] * impl.strides[d] if d < impl.ndim else 1
    return impl.view_impl(impl.sizes[:d] + (1,) + impl.sizes[d:], impl.strides[:d] + (stride,) + impl.strides[d:],
                          impl.offset)


def squeeze(impl: TensorImpl, dim=None) -> TensorImpl:
    """Remove size-1 dims: all of them, one, or a tuple (a dim whose size is not 1 is kept)."""
    n = impl.ndim
    if dim is None:
        drop = {d for d in range(n) if impl.sizes[d] == 1}
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        wrapped = [wrap_dim(d, n) for d in dims]
        seen = set()
        for w in wrapped:
            if w in seen:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.add(w)
        drop = {d for d in wrapped if n and impl.sizes[d] == 1}
    keep = [d for d in range(n) if d not in drop]
    return impl.view_impl(tuple(impl.sizes[d] for d in keep), tuple(impl.strides[d] for d in keep), impl.offset)


def flatten(impl: TensorImpl, start_dim: int = 0, end_dim: int = -1):
    """Returns (sizes) for ``flatten``; the caller reshapes (a view when possible)."""
    n = impl.ndim
    s, e = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if n == 0:
        return (1,)
    if s == e:
        return impl.sizes
    middle = _shape.prod(impl.sizes[s:e + 1])
    return impl.sizes[:s] + (middle,) + impl.sizes[e + 1:]


def unflatten_sizes(impl: TensorImpl, dim: int, sizes) -> tuple:
    """The full new shape of ``unflatten(dim, sizes)`` (one ``-1`` allowed), with PyTorch's errors: sizes that do
    not multiply up say so; any other failure of the size inference (or of a 0-dim tensor's size) comes wrapped
    as "unflatten got an unexpected error" (PyTorch's handle_unflatten_exception, less its C++ backtrace)."""
    sizes = tuple(sizes)
    if not sizes:  # checked before the dim is wrapped, as PyTorch
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = wrap_dim(dim, impl.ndim)
    try:
        if impl.ndim == 0:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        inferred = _shape.infer_size(sizes, impl.sizes[d])
    except (RuntimeError, IndexError) as e:
        if str(e).startswith("shape '["):
            raise RuntimeError(f"unflatten: Provided sizes {_fmt(sizes)} don't multiply up to the size of dim {d} "
                               f"({impl.sizes[d]}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    return impl.sizes[:d] + tuple(inferred) + impl.sizes[d + 1:]


def unflatten(impl: TensorImpl, dim: int, sizes) -> TensorImpl:
    return view(impl, unflatten_sizes(impl, dim, sizes))


def movedim_order(impl: TensorImpl, source, destination) -> list | None:
    """The permutation ``movedim`` applies (None for a 0-dim tensor), with PyTorch's checks."""
    n = impl.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({_fmt(src)} dims) should contain "
                           f"the same number of dims as destination ({_fmt(dst)} dims)")
    ws = [wrap_dim(d, n) for d in src]
    wd = [wrap_dim(d, n) for d in dst]
    if len(set(ws)) != len(ws):
        raise RuntimeError(f"movedim: repeated dim in `source` ({_fmt(src)})")
    if len(set(wd)) != len(wd):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({_fmt(dst)})")
    if n == 0:
        return None
    order = [-1] * n
    for s, d in zip(ws, wd, strict=True):
        order[d] = s
    rest = iter(d for d in range(n) if d not in set(ws))
    return [o if o != -1 else next(rest) for o in order]


def movedim(impl: TensorImpl, source, destination) -> TensorImpl:
    order = movedim_order(impl, source, destination)
    return alias(impl) if order is None else permute(impl, order)


def unfold(impl: TensorImpl, dimension: int, size: int, step: int) -> TensorImpl:
    n = impl.ndim
    d = wrap_dim(dimension, n)
    here = impl.sizes[d] if n else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > here:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {here} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if n == 0:
        return impl.view_impl((size,), (1,), impl.offset)
    sizes, strides = list(impl.sizes), list(impl.strides)
    sizes[d] = (here - size) // step + 1
    strides[d] = impl.strides[d] * step
    return impl.view_impl(tuple(sizes) + (size,), tuple(strides) + (impl.strides[d],), impl.offset)


def diagonal(impl: TensorImpl, offset: int = 0, dim1: int = 0, dim2: int = 1) -> TensorImpl:
    n = impl.ndim
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    s1, s2 = impl.sizes[d1], impl.sizes[d2]
    base = impl.offset
    if offset >= 0:
        length = max(min(s1, s2 - offset), 0)
        if length:
            base += offset * impl.strides[d2]
    else:
        length = max(min(s1 + offset, s2), 0)
        if length:
            base -= offset * impl.strides[d1]
    keep = [d for d in range(n) if d not in (d1, d2)]
    sizes = tuple(impl.sizes[d] for d in keep) + (length,)
    strides = tuple(impl.strides[d] for d in keep) + (impl.strides[d1] + impl.strides[d2],)
    return impl.view_impl(sizes, strides, base)


def split(impl: TensorImpl, split_size: int, dim: int = 0) -> list:
    if impl.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, impl.ndim)
    size = impl.sizes[d]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    chunks = max((size + split_size - 1) // split_size, 1) if split_size else 1
    return [slice_(impl, d, i * split_size, min((i + 1) * split_size, size)) for i in range(chunks)]


def split_with_sizes(impl: TensorImpl, split_sizes, dim: int = 0) -> list:
    if impl.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, impl.ndim)
    size = impl.sizes[d]
    if sum(split_sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {d}), but got split_sizes={_fmt(split_sizes)}")
    out, start = [], 0
    for s in split_sizes:
        if s < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={_fmt(split_sizes)}")
        out.append(slice_(impl, d, start, start + s))
        start += s
    return out


def chunk_plan(impl: TensorImpl, chunks: int, dim: int = 0):
    """How ``chunk`` splits (PyTorch's composite): (dim, split_size, None) for ``split``, or
    (dim, None, sizes) for ``split_with_sizes`` when the dimension is empty."""
    if impl.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, impl.ndim)
    size = impl.sizes[d]
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        sizes = [split_size] * chunks
        sizes[-1] = size - split_size * (chunks - 1)
        return d, None, sizes
    return d, split_size, None


def chunk(impl: TensorImpl, chunks: int, dim: int = 0) -> list:
    d, split_size, sizes = chunk_plan(impl, chunks, dim)
    return split(impl, split_size, d) if sizes is None else split_with_sizes(impl, sizes, d)


def unbind(impl: TensorImpl, dim: int = 0) -> list:
    d = wrap_dim(dim, impl.ndim)  # a 0-dim tensor: -1 and 0 pass here, as in PyTorch, and fail on its size
    if impl.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return [select(impl, d, i) for i in range(impl.sizes[d])]


def tensor_split_bounds(impl: TensorImpl, indices_or_sections, dim: int = 0):
    """(dim, [(start, end), ...]) of the pieces ``tensor_split`` returns, with PyTorch's checks."""
    if impl.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(dim, impl.ndim)
    size = impl.sizes[d]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        out, start = [], 0
        for i in range(n):
            length = q + (1 if i < r else 0)
            out.append((start, start + length))
            start += length
        return d, out
    bounds = [0] + [int(i) for i in indices_or_sections] + [size]
    return d, [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]


def tensor_split(impl: TensorImpl, indices_or_sections, dim: int = 0) -> list:
    d, pieces = tensor_split_bounds(impl, indices_or_sections, dim)
    return [slice_(impl, d, a, b) for a, b in pieces]


# -- basic indexing ------------------------------------------------------------------------------------

def _as_index_int(x):
    """An int for integer-like indices (Python/numpy ints, SymInt-likes); None otherwise."""
    if isinstance(x, bool):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def is_basic_index(idx) -> bool:
    """True when ``x[idx]`` is a view: only ints, slices, None and Ellipsis (PyTorch's basic indexing)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    for it in items:
        if it is None or it is Ellipsis or isinstance(it, slice):
            continue
        if isinstance(it, bool) or _as_index_int(it) is None or hasattr(it, "_impl"):
            return False
    return True


def check_basic_index(impl: TensorImpl, items: tuple) -> int:
    """Validate a basic index; returns how many dims it consumes (ints and slices)."""
    n_consuming = sum(1 for it in items if it is not None and it is not Ellipsis)
    if impl.ndim == 0 and n_consuming and any(not isinstance(it, slice) and it is not None and it is not Ellipsis
                                              for it in items):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    if n_consuming > impl.ndim:
        raise IndexError(f"too many indices for tensor of dimension {impl.ndim}")
    return n_consuming


def slice_bounds(it: slice) -> tuple:
    """(start, stop, step) of a Python slice as ints/None; a zero step is PyTorch's ValueError."""
    step = 1 if it.step is None else _as_index_int(it.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    start = None if it.start is None else _as_index_int(it.start)
    stop = None if it.stop is None else _as_index_int(it.stop)
    return start, stop, step


def basic_index(impl: TensorImpl, idx) -> TensorImpl:
    """``x[idx]`` for ints, slices (positive steps), None and one Ellipsis: a view."""
    items = idx if isinstance(idx, tuple) else (idx,)
    n_consuming = check_basic_index(impl, items)
    out = impl
    d = 0
    for it in items:
        if it is None:
            out = unsqueeze(out, d)
            d += 1
        elif it is Ellipsis:
            d += impl.ndim - n_consuming
        elif isinstance(it, slice):
            out = slice_(out, d, *slice_bounds(it))
            d += 1
        else:
            i = _as_index_int(it)
            size = out.sizes[d]
            if i < -size or i >= size:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            out = select(out, d, i)
    return out if out is not impl else alias(impl)
