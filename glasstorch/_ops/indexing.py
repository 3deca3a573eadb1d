"""Python indexing — PyTorch's ``torch/csrc/autograd/python_variable_indexing.cpp`` and
``aten/src/ATen/TensorIndexing.{h,cpp}``: ``x[idx]`` and ``x[idx] = v`` for every kind of index.

An index is translated exactly as PyTorch does it:

1. a non-tuple index is wrapped in a tuple; a short list holding a sequence, slice, tensor, ``None`` or
   ``...`` is treated *as* the tuple (NumPy's legacy heuristic, with PyTorch's deprecation warning);
2. the number of dims the index consumes is counted (a bool/uint8 tensor consumes its ``ndim``) and
   "too many indices" is raised before anything else;
3. "basic" items are applied as views in order — ints ``select`` (bounds message names the item's
   position), slices ``slice``, ``None`` ``unsqueeze``, ``...`` skips dims; a Python bool or a 0-dim
   bool tensor unsqueezes and records an index ``[0]`` (True) or ``[]`` (False); a 0-dim integer
   tensor selects like an int;
4. tensors, lists and arrays become index tensors (lists of floats are truncated to int64, lists of
   bools stay masks) recorded at the dim they index;
5. with no index tensors the result is the view; otherwise ``aten::index.Tensor`` (getitem) or
   ``aten::index_put_`` (setitem, after stripping leading 1-dims of the value) runs on the view with
   the recorded indices (``None`` for dims not indexed): masks become ``nonzero`` indices, indices
   broadcast together, and advanced indices separated by a slice move their result dims to the front.

Entry points (public Tensors in, public Tensors out): :func:`getitem` / :func:`advanced_getitem` and
:func:`setitem` / :func:`advanced_setitem`.  They accept every index, basic ones included.

Invariant: a getitem that uses only basic items returns a view (``_base`` set); any index tensor makes
it a copy; a setitem writes ``self`` in place and bumps its version counter.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from .._core.user_warning import warn as _user_warn
from .._core import dtype as _dt
from .._tensor import views as _views
from .._tensor.impl import TensorImpl, empty_impl
from . import factories as _fac
from .aten import aten
from .python_arg_parser import tensor_class as _tensor_cls
from .kernels.cpu import copy as _copy

__all__ = ["getitem", "setitem", "advanced_getitem", "advanced_setitem", "translate_index"]

_SEQ_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor "
                "index, x[torch.tensor(seq)], which will result either in an error or a different result")


_wrap = None  # impl -> public Tensor, bound by the tensor layer (bind_wrap)


def bind_wrap(fn) -> None:
    global _wrap
    _wrap = fn


# -- classifying index items ------------------------------------------------------------------------------------
def _type_name(obj) -> str:
    """``Py_TYPE(obj)->tp_name``: static (C) types carry their module (``numpy.float64``), heap types do not."""
    tp = type(obj)
    if tp.__module__ == "builtins" or tp.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE
        return tp.__name__
    return f"{tp.__module__}.{tp.__qualname__}"


def _check_long(obj) -> bool:
    """``THPUtils_checkLong``: Python ints (not bools) and numpy integer scalars."""
    return (isinstance(obj, int) and not isinstance(obj, builtins.bool)) or isinstance(obj, np.integer)


def _is_sequence(obj) -> bool:
    """``PySequence_Check``: lists, tuples, ranges, strings, arrays ... but not dicts, sets or tensors."""
    if isinstance(obj, (dict, set, frozenset)) or isinstance(obj, _tensor_cls()):
        return False
    return hasattr(type(obj), "__getitem__") and hasattr(type(obj), "__len__")


def _treat_sequence_as_tuple(index) -> bool:
    if isinstance(index, tuple):
        return True
    if isinstance(index, (_tensor_cls(), np.ndarray)):
        return False
    if not _is_sequence(index):
        return False
    try:
        n = len(index)
    except TypeError:
        return False
    if n >= 32:
        return False
    Tensor = _tensor_cls()
    for i in range(n):
        try:
            obj = index[i]
        except Exception:  # noqa: BLE001 - PyErr_Clear
            return False
        if isinstance(obj, Tensor) or _is_sequence(obj) or isinstance(obj, slice) or obj is Ellipsis or obj is None:
            _user_warn(_SEQ_WARNING)
            return True
    return False


def _count_specified_dims(items) -> int:
    Tensor = _tensor_cls()
    count = 0
    for obj in items:
        if isinstance(obj, Tensor):
            dt = obj._impl.dtype
            count += obj._impl.ndim if dt in (_dt.uint8, _dt.bool) else 1
        elif obj is not None and obj is not Ellipsis and obj is not True and obj is not False:
            count += 1
    return count


def _sequence_to_index(seq) -> TensorImpl:
    """``sequenceToVariable``: a list/array becomes an int64 index tensor, or stays a bool/uint8 mask."""
    if isinstance(seq, range):
        seq = list(seq)
    impl = _fac.tensor_impl(seq)
    if impl.dtype in (_dt.bool, _dt.uint8, _dt.int64):
        return impl
    out = empty_impl(impl.sizes, _dt.int64, impl.device)
    return _copy.copy_(out, impl)


def _bool_index(value: bool, device) -> TensorImpl:
    """``boolToIndexingTensor``: True -> ``[0]``, False -> an empty int64 index."""
    out = empty_impl((1,) if value else (0,), _dt.int64, device)
    if value and out.storage._data is not None:
        _copy.fill_(out, 0)
    return out


def _invalid_index(obj):
    return IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                      f"indices (got {_type_name(obj)})")


# -- the view part -------------------------------------------------------------------------------------------
def _apply_select(impl: TensorImpl, dim: int, index: int, real_dim: int) -> TensorImpl:
    if index == 0 and dim == 0 and impl.ndim == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    size = impl.sizes[dim] if dim < impl.ndim else 0
    if not (size >= -index and size > index):
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    return aten.select_int(impl, dim, index)


def _slice_index(v):
    """A slice bound as an int (CPython's ``_PyEval_SliceIndex``, which PyTorch's ``PySlice_Unpack`` calls)."""
    if v is None:
        return None
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ method") from None


def _apply_slice(impl: TensorImpl, dim: int, s: slice, skip_full=False) -> TensorImpl:
    """``applySlice``; with ``skip_full`` (items of a tuple index) a slice that keeps the whole dim (start 0,
    step 1, stop at or past the end) is no op at all, as PyTorch's slice optimization: ``x[:, :]`` is then an
    alias (AliasBackward0), ``x[:]`` alone stays a slice (SliceBackward0)."""
    start, stop, step = _slice_index(s.start), _slice_index(s.stop), _slice_index(s.step)  # all before the checks
    step = 1 if step is None else step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    if impl.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if skip_full and not start and step == 1 and (stop is None or stop >= impl.sizes[dim]):
        return impl
    return aten.slice_Tensor(impl, dim, start, stop, step)


def translate_index(impl: TensorImpl, index):
    """Split ``index`` into (view impl, recorded indices): PyTorch's ``wrapTuple`` + ``applySlicing``.

    The recorded indices are a list for ``aten::index.Tensor``: one entry per indexed position of the
    view, ``None`` for dims left alone (a k-dim mask is one entry standing for k dims).  An empty list
    means the index was basic.
    """
    Tensor = _tensor_cls()
    items = index if _treat_sequence_as_tuple(index) else (index,)
    specified = _count_specified_dims(items)
    if specified > impl.ndim:
        raise IndexError(f"too many indices for tensor of dimension {impl.ndim}")
    result = impl
    dim = 0
    recorded = []  # (dim of the view, index impl, number of dims it consumes)

    def record(t: TensorImpl):
        nonlocal dim
        k = t.ndim if t.dtype in (_dt.uint8, _dt.bool) else 1
        recorded.append((dim, t, k))
        dim += k

    for i, obj in enumerate(items):
        if _check_long(obj):
            result = _apply_select(result, dim, int(obj), i)
        elif isinstance(obj, slice):
            result = _apply_slice(result, dim, obj, skip_full=True)
            dim += 1
        elif obj is Ellipsis:
            dim += impl.ndim - specified
        elif obj is None:
            result = aten.unsqueeze(result, dim)
            dim += 1
        elif obj is True or obj is False:
            result = aten.unsqueeze(result, dim)
            record(_bool_index(obj, impl.device))
        elif isinstance(obj, Tensor) or _is_sequence(obj):
            t = obj._impl if isinstance(obj, Tensor) else _sequence_to_index(obj)
            if t.ndim == 0 and (t.dtype._cat == _dt.INT_CAT or t.dtype is _dt.bool):
                if t.dtype in (_dt.uint8, _dt.bool):
                    result = aten.unsqueeze(result, dim)
                    record(_bool_index(bool(t.values_np()), impl.device))
                else:
                    result = _apply_select(result, dim, int(t.values_np()), i)
            else:
                record(t)
        else:
            try:
                value = operator.index(obj)
            except TypeError:
                raise _invalid_index(obj) from None
            result = _apply_select(result, dim, value, i)
    indices = []
    cur = 0
    for d, t, k in recorded:
        indices.extend([None] * (d - cur))
        indices.append(t)
        cur = d + k
    return result, indices


# -- getitem ---------------------------------------------------------------------------------------------------
def getitem(tensor, index):
    """``tensor[index]`` for any index (``THPVariable_getitem``)."""
    impl = tensor._impl
    if index is None:
        return _wrap(aten.unsqueeze(impl, 0))
    if index is Ellipsis:
        return _wrap(aten.alias(impl))
    if _check_long(index):
        return _wrap(_apply_select(impl, 0, int(index), 0))
    if isinstance(index, slice):
        return _wrap(_apply_slice(impl, 0, index))
    result, indices = translate_index(impl, index)
    if not indices:
        return _wrap(result if result is not impl else aten.alias(impl))
    return _wrap(aten.index_Tensor(result, indices))


advanced_getitem = getitem


# -- setitem ---------------------------------------------------------------------------------------------------
def _value_to_impl(tensor, value) -> TensorImpl:
    """``valueToTensor``: a Tensor is used as is, a Python number becomes a 0-dim tensor of self's dtype."""
    impl = tensor._impl
    if isinstance(value, _tensor_cls()):
        return value._impl
    if _check_long(value) or isinstance(value, builtins.bool):
        value = int(value)
        if not -(1 << 63) <= value < (1 << 63):
            raise ValueError("Overflow when unpacking long long")
    elif isinstance(value, float):
        value = float(value)
    elif isinstance(value, complex):
        value = complex(value)
    else:
        raise TypeError(f"can't assign a {_type_name(value)} to a {_views.tensor_type_name(impl)}")
    _fac.check_fits(value, impl.dtype, 1)  # scalarToTensor: a one-element fill (half/bfloat16 through double)
    out = empty_impl((), impl.dtype, impl.device)
    if out.storage._data is not None:
        _copy.fill_(out, value)
    return out


def _strip_leading_ones(impl: TensorImpl) -> TensorImpl:
    """``slicePrefix1sSize``: a value of shape [1, 1, 3] is used as [3]."""
    k = 0
    while k < impl.ndim and impl.sizes[k] == 1:
        k += 1
    if k == 0:
        return impl
    return aten.view(impl, list(impl.sizes[k:]))  # a recorded view, so a value that requires grad gets its gradient


def _copy_to(dst: TensorImpl, src: TensorImpl) -> None:
    """``at::indexing::copy_to``: copy, fill from a 0-dim value, or expand the value (leading 1s dropped)."""
    if dst.sizes == src.sizes:
        aten.copy_(dst, src, False)
    elif src.ndim == 0 and src.device.type == "cpu":
        aten.fill__Tensor(dst, src)
    else:
        aten.copy_(dst, aten.expand(_strip_leading_ones(src), dst.sizes, False), False)


def setitem(tensor, index, value) -> None:
    """``tensor[index] = value`` for any index (``THPVariable_setitem``)."""
    impl = tensor._impl
    val = _value_to_impl(tensor, value)
    if index is False:
        return
    if index is Ellipsis:
        return _copy_to(impl, val)
    if index is None or index is True:
        return _copy_to(aten.unsqueeze(impl, 0), val)
    if _check_long(index):
        return _copy_to(_apply_select(impl, 0, int(index), 0), val)
    if isinstance(index, slice):  # setitem's single slice keeps the optimization (getitem's does not)
        return _copy_to(_apply_slice(impl, 0, index, skip_full=True), val)
    result, indices = translate_index(impl, index)
    if not indices:
        return _copy_to(result, val)
    aten.index_put_(result, indices, _strip_leading_ones(val), False)


advanced_setitem = setitem
