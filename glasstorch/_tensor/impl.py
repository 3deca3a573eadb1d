"""TensorImpl — PyTorch's ``c10/core/TensorImpl.h``: a description of how to read a Storage.

A TensorImpl is (storage, sizes, strides, storage_offset, dtype, device) plus a version counter and
the autograd metadata.  Element ``i`` of dim ``d`` lives at byte
``(offset + sum_d(index_d * stride_d)) * itemsize`` of the storage.  Views are new TensorImpls over the
same Storage and the same VersionCounter; they never copy.

Kernels work on TensorImpls; the public ``glasstorch.Tensor`` is a thin facade over one.

Invariants:
- ``sizes``/``strides`` are tuples of equal length; strides are in elements and never negative;
- every element the geometry can reach lies inside the storage;
- views share ``version``; ``x.data`` and new tensors get a fresh one.
"""

from __future__ import annotations

import numpy as np

from .._core import shape as _shape
from .._core.device import CPU
from .._core.dispatch_key import AUTOGRAD_SET, MATH_BITS, backend_keyset_for_device, bit
from .._core.dtype import complex32_values as _complex32_values
from .._core.grad_state import state as _grad_state
from .._core.layout import strided
from .storage import UntypedStorage

__all__ = ["TensorImpl", "VersionCounter", "InferenceVersion", "AutogradMeta", "empty_impl", "empty_strided_impl",
           "empty_contiguous", "empty_contiguous_numpy", "storage_nbytes_for", "contiguous_nbytes"]


class VersionCounter:
    """A shared box with the number of in-place writes to a storage region (``VariableVersion``)."""

    __slots__ = ("version",)

    def __init__(self, version=0):
        self.version = version

    def bump(self):
        self.version += 1


_INPLACE_UPDATE_OF_INFERENCE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.")


class InferenceVersion:
    """The version counter of an inference tensor (PyTorch's disabled ``VariableVersion``): it counts nothing,
    reads as 0 inside the library (``Tensor._version`` refuses it), and a write into the tensor outside inference
    mode, which bumps it, raises PyTorch's error.  One shared instance."""

    __slots__ = ()

    @property
    def version(self) -> int:
        return 0

    @version.setter
    def version(self, value) -> None:
        if not _grad_state.inference:
            raise RuntimeError(_INPLACE_UPDATE_OF_INFERENCE)

    def bump(self) -> None:
        self.version = 1


INFERENCE_VERSION = InferenceVersion()
# Note [Inference tensors]: a tensor made in inference mode lacks the autograd keys and ADInplaceOrView (PyTorch's
# is_inference() reads exactly that) and has a disabled version counter.  Views take their source's key set, so a
# view of a normal tensor made in inference mode stays a normal tensor.
_NOT_INFERENCE_KEYS = AUTOGRAD_SET | bit("ADInplaceOrView")
_ADINPLACE_BIT = bit("ADInplaceOrView")


class CreationMeta:
    """How a view was created (PyTorch's ``CreationMeta``), kept on its AutogradMeta; None is DEFAULT.
    Views made in no-grad mode or by an op returning several views may not be rebased in place."""

    DEFAULT = None
    NO_GRAD_MODE = "no_grad_mode"
    INFERENCE_MODE = "inference_mode"
    MULTI_OUTPUT_NODE = "multi_output_node"
    IN_CUSTOM_FUNCTION = "in_custom_function"


class AutogradMeta:
    """What autograd keeps on a tensor (``AutogradMeta``); absent (None) when nothing is recorded."""

    __slots__ = ("requires_grad", "grad", "grad_fn", "output_nr", "__dict__")

    # Rarely set: class-level defaults, so the metadata every recorded output gets costs four stores.
    retains_grad = False
    hooks = None
    post_acc_grad_hooks = None
    grad_accumulator = None
    name = None
    creation_meta = None
    version_at_grad_fn = None
    view_fn = None  # a view's replay chain (Note [View replay] in _ops/layer_kernels.py; _ops/view_funcs.py)
    grad_pyobj = None  # the public Tensor last handed out for ``grad`` (Tensor.grad keeps it alive)
    fw_grad = None  # forward-AD tangents, level -> TensorImpl (autograd/forward_grad.py)
    # ``Tensor.grad_dtype`` once assigned (None: gradients of any dtype); unassigned, it is the tensor's dtype
    grad_dtype = None
    grad_dtype_set = False

    def __init__(self, requires_grad=False):
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = None
        self.output_nr = 0


_KEYSETS: dict = {}
_PYTHON_BIT = bit("Python")
_CONJ_BIT, _NEG_BIT = bit("Conjugate"), bit("Negative")
_ndarray = np.ndarray
_contiguous_strides = _shape.contiguous_strides


def _copy_python_key(src, out):
    out.key_set = src.key_set


def _no_hook(impl):
    return None


_subclass_view_hook = _copy_python_key
_subclass_no_data_hook = _no_hook


def set_subclass_hooks(view, no_data) -> None:
    """Hooks for impls carrying the Python key (tensor subclasses such as FakeTensor register here):
    ``view(src_impl, alias_impl)`` runs for every alias made with :meth:`TensorImpl.view_impl` (so ``detach()``
    and saved outputs stay of their class); ``no_data(impl)`` may raise the subclass's error when its data is
    read (it has none)."""
    global _subclass_view_hook, _subclass_no_data_hook
    _subclass_view_hook, _subclass_no_data_hook = view, no_data


def _keyset_for(device) -> int:
    ks = _KEYSETS.get(device.type)
    if ks is None:
        ks = _KEYSETS[device.type] = backend_keyset_for_device(device.type)
    return ks


class TensorImpl:
    """The internal tensor: geometry over a Storage (``TensorImpl``)."""

    __slots__ = ("storage", "sizes", "strides", "offset", "dtype", "device", "version", "autograd", "base",
                 "key_set", "pyobj", "is_wrapped_number", "allow_metadata_change", "_np", "_np_key", "_contig",
                 "sparse", "__weakref__")

    def __init__(self, storage: UntypedStorage, sizes: tuple, strides: tuple, offset: int, dtype, device,
                 version: VersionCounter | None = None):
        self.storage = storage
        self.sizes = sizes
        self.strides = strides
        self.offset = offset
        self.dtype = dtype
        self.device = device
        self.autograd = None
        self.base = None  # the root base TensorImpl of a view (``_base``)
        ks = _KEYSETS.get(device.type)  # _keyset_for's cache, read without a call
        self.key_set = ks if ks is not None else _keyset_for(device)
        if version is not None:
            self.version = version
        elif _grad_state.inference:  # Note [Inference tensors]
            self.version = INFERENCE_VERSION
            self.key_set &= ~_NOT_INFERENCE_KEYS
        else:
            self.version = VersionCounter()
        self.pyobj = None  # weak reference to the public Tensor wrapping this impl (PyTorch's pyobj_slot)
        self.is_wrapped_number = False
        self.allow_metadata_change = True
        self._np = None
        self._np_key = None
        self._contig = None
        self.sparse = None  # a sparse layout's parts (_tensor/sparse.py); None for strided tensors

    # -- geometry -------------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.sizes)

    def numel(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n

    def is_contiguous(self) -> bool:
        c = self._contig
        if c is None:
            c = self._contig = _shape.is_contiguous(self.sizes, self.strides)
        return c

    def set_geometry(self, sizes, strides, offset):
        """Restride in place (``set_sizes_and_strides``); invalidates cached views of the data."""
        self.sizes, self.strides, self.offset = sizes, strides, offset
        self._np = None
        self._contig = None

    @property
    def layout(self):
        """``strided``, or the sparse layout of the parts in ``sparse``."""
        sp = self.sparse
        return strided if sp is None else sp.layout

    def is_inference(self) -> bool:
        return not self.key_set & _ADINPLACE_BIT

    @property
    def is_meta(self) -> bool:
        return self.device.type == "meta"

    # -- data -----------------------------------------------------------------------------------
    def as_numpy(self) -> np.ndarray:
        """A numpy view of exactly this tensor's elements (no copy); cached until the storage moves.

        Raises on ``meta``, which has no data.
        """
        data = self.storage._data
        arr = self._np
        if arr is not None and self._np_key is data:
            return arr
        if self.sparse is not None:
            raise RuntimeError(f"Cannot access data of a tensor with layout {self.sparse.layout}: it has no strided "
                               f"storage")
        if data is None:
            if self.key_set & _PYTHON_BIT:
                _subclass_no_data_hook(self)
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        isz = self.dtype.itemsize
        if 0 in self.sizes:
            arr = np.empty(self.sizes, self.dtype.np)  # nothing to share; offsets may lie past the buffer
            self._np, self._np_key = arr, data
            return arr
        arr = np.ndarray(self.sizes, self.dtype.np, data, self.offset * isz, tuple([s * isz for s in self.strides]))
        self._np = arr
        self._np_key = data
        return arr

    # -- the lazy math bits (Note [Math bits] in _ops/math_bits.py) ----------------------------------------
    def is_conj(self) -> bool:
        return bool(self.key_set & _CONJ_BIT)

    def is_neg(self) -> bool:
        return bool(self.key_set & _NEG_BIT)

    def values_np(self) -> np.ndarray:
        """The elements as a reader outside the dispatcher must see them: :meth:`as_numpy` with the conjugate
        and negative bits applied (a fresh array when a bit is set)."""
        arr = self.as_numpy()
        ks = self.key_set
        if ks & MATH_BITS:
            if arr.dtype.names:  # complex32: (real, imag) float16 fields, read as complex64 values
                arr = _complex32_values(arr)
            if ks & _CONJ_BIT:
                arr = np.conj(arr)
            if ks & _NEG_BIT:
                arr = np.negative(arr)
        return arr

    def data_ptr(self) -> int:
        if self.storage._data is None:
            return 0
        return self.storage._ptr + self.offset * self.dtype.itemsize

    def view_impl(self, sizes, strides, offset) -> TensorImpl:
        """A new TensorImpl over the same storage and version counter (the core of every view)."""
        out = TensorImpl(self.storage, sizes, strides, offset, self.dtype, self.device, self.version)
        out.key_set = self.key_set  # an alias of an inference tensor is one (Note [Inference tensors])
        out.sparse = self.sparse  # an alias of a sparse tensor (detach) shares its indices and values
        if self.key_set & _PYTHON_BIT:  # a tensor subclass's impl (FakeTensor): its aliases are of its kind
            _subclass_view_hook(self, out)
        return out

    def __repr__(self):
        return (f"TensorImpl(sizes={self.sizes}, strides={self.strides}, offset={self.offset}, dtype={self.dtype}, "
                f"device={self.device})")


_INT64_MAX = (1 << 63) - 1
_U64 = 1 << 64


def _fmt_ints(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def storage_nbytes_for(sizes, strides, offset, itemsize) -> int:
    """Bytes a storage needs so that every element of this geometry is inside it (``computeStorageNbytes``).

    Raises:
        RuntimeError: the byte count does not fit in int64 (PyTorch's "Storage size calculation overflowed").
    """
    if any(s == 0 for s in sizes):
        return 0  # PyTorch's computeStorageNbytes: an empty geometry needs no bytes, whatever its offset
    extent = 1 + sum((s - 1) * st for s, st in zip(sizes, strides, strict=False))
    nbytes = (offset + extent) * itemsize
    if nbytes > _INT64_MAX:  # all terms are non-negative: any unsigned overflow in c10's sum shows up here too
        raise RuntimeError(f"Storage size calculation overflowed with sizes={_fmt_ints(sizes)} and "
                           f"strides={_fmt_ints(strides)}")
    return nbytes


def contiguous_nbytes(sizes, itemsize, offset=0) -> int:
    """Bytes a row-major tensor of ``sizes`` needs after ``offset`` elements (``computeStorageNbytesContiguous``).

    The element count is multiplied as c10 does, in unsigned 64 bits with a sticky overflow flag, so a size 0
    after an overflowing prefix still overflows.

    Raises:
        RuntimeError: "Storage size calculation overflowed with sizes=[...]".
    """
    n, overflow = 1, False
    for s in sizes:
        n *= s
        if n >= _U64:
            overflow, n = True, n % _U64
    nbytes = (n + offset) * itemsize
    if overflow or nbytes > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={_fmt_ints(sizes)}")
    return nbytes


def empty_strided_impl(sizes, strides, dtype, device=CPU) -> TensorImpl:
    """Fresh uninitialised storage with exactly this geometry (``empty_strided``)."""
    nbytes = storage_nbytes_for(sizes, strides, 0, dtype.itemsize)
    storage = UntypedStorage(nbytes, device=device)
    return TensorImpl(storage, tuple(sizes), tuple(strides), 0, dtype, storage.device)


def empty_contiguous(sizes: tuple, dtype, device) -> TensorImpl:
    """Fresh contiguous storage for validated sizes (a tuple): the allocation fast path of every kernel."""
    numel = 1
    for s in sizes:
        numel *= s
    storage = UntypedStorage._allocate(numel * dtype.itemsize, device)
    impl = TensorImpl(storage, sizes, _contiguous_strides(sizes), 0, dtype, storage.device)
    impl._contig = True
    return impl


def empty_contiguous_numpy(sizes: tuple, dtype, device) -> tuple:
    """``(impl, impl.as_numpy())`` for a fresh :func:`empty_contiguous` impl of ``sizes`` (a tuple), the view made
    and cached in one go:
    the output allocation of the elementwise fast path, which writes the view at once.

    A fresh row-major buffer needs neither offset nor strides: numpy's own C-order strides are the impl's
    (both count a size-0 dim as 1), so the view is the one :meth:`TensorImpl.as_numpy` would build."""
    impl = empty_contiguous(sizes, dtype, device)
    storage = impl.storage
    data = storage._data
    if data is None or not storage._nbytes:  # meta (raises there) or empty: as_numpy's own cases
        return impl, impl.as_numpy()
    arr = impl._np = _ndarray(sizes, dtype.np, data)
    impl._np_key = data
    return impl, arr


def empty_impl(sizes, dtype, device=CPU) -> TensorImpl:
    """Fresh uninitialised contiguous storage (``empty``)."""
    sizes = tuple(sizes)
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(str(x) for x in sizes)}]")
    storage = UntypedStorage(contiguous_nbytes(sizes, dtype.itemsize), device=device)
    return TensorImpl(storage, sizes, _shape.contiguous_strides(sizes), 0, dtype, storage.device)


def from_numpy_impl(arr: np.ndarray, dtype, device=CPU) -> TensorImpl:
    """A TensorImpl sharing ``arr``'s memory (``from_numpy``); strides must be non-negative multiples."""
    isz = arr.itemsize
    if any(s < 0 for s in arr.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    if any(s % isz for s in arr.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy "
                         "array to reallocate the memory.")
    strides = tuple(s // isz for s in arr.strides)
    sizes = tuple(arr.shape)
    nbytes = storage_nbytes_for(sizes, strides, 0, isz)
    if nbytes:
        flat = np.lib.stride_tricks.as_strided(arr, shape=(nbytes // isz,), strides=(isz,))
        data = flat.view(np.uint8)
    else:
        data = np.empty(0, np.uint8)
    storage = UntypedStorage._wrap(data, nbytes, device)
    return TensorImpl(storage, sizes, strides, 0, dtype, storage.device)
