"""The public Tensor — PyTorch's ``torch/_tensor.py`` over ``torch/csrc/autograd/python_variable.cpp``.

``Tensor`` is a thin facade over one TensorImpl (``self._impl``): it parses Python arguments, calls the
impl-level operation and wraps the resulting impl.  Views made here record their root base in
``impl.base`` so ``v._base`` answers as PyTorch does.

Invariant: a Tensor never owns data itself; identity (``is``, hooks, ``id``) lives on the facade,
everything about memory lives on the impl.
"""

from __future__ import annotations

import builtins
import copy as _copy
import copyreg as _copyreg
import numbers
import operator
import warnings
from weakref import ref as _weakref

import numpy as np

from ._core import dtype as _dt
from ._core import shape as _shape
from ._core import torch_function as _tf
from ._core.device import as_device, device
from ._core.dispatch_key import MATH_BITS as _MATH_BITS
from ._core.dispatch_key import bit as _dk_bit
from ._core.dispatch_key import tls as _dk_tls
from ._core.grad_state import forward_levels as _forward_levels
from ._core.grad_state import state as _grad_state
from ._core.shape import Size
from ._core.user_warning import warn_once as _warn_once
from ._device.generator import Generator
from ._ops import dispatcher as _dispatcher
from ._ops import indexing as _indexing
from ._ops import legacy_constructors as _legacy
from ._ops.aten import aten
from . import autograd as _autograd
from .autograd import graph as _autograd_graph
from .autograd.forward_grad import fw_grad as _fw_grad
from .autograd.graph import current_grad_fn as _current_grad_fn
from ._ops import factories as _fac
from ._ops import python_arg_parser as _arg_parser
from ._ops.view_funcs import as_strided_view_func as _as_strided_view_func
from ._tensor.impl import (INFERENCE_VERSION, AutogradMeta, TensorImpl, VersionCounter, empty_strided_impl,
                           storage_nbytes_for)
from ._tensor.storage import UntypedStorage, _rebuild_untyped_storage
from ._tensor.typed_storage import TypedStorage, warn_typed_storage_removal

__all__ = ["Tensor", "wrap", "PinnedPyObject", "memory_format", "contiguous_format", "channels_last",
           "channels_last_3d", "preserve_format", "layout", "strided"]


from ._core.layout import (  # noqa: E402,F401
    _mkldnn, channels_last, channels_last_3d, contiguous_format, jagged, layout, memory_format, preserve_format,
    sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided,
)


class PinnedPyObject:
    """A strong stand-in for an impl's weak ``pyobj`` reference: keeps a subclass instance (a FakeTensor, a wrapper
    subclass) alive as long as its impl, so its attributes survive a trip through the dispatcher (PyTorch's
    PyObject preservation)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __call__(self):
        return self.obj


# PyTorch's names of the sparse layouts in messages: c10's Layout printing, and the TensorImpl class of each
_SPARSE_NAMES = {sparse_coo: "Sparse", sparse_csr: "SparseCsr", sparse_csc: "SparseCsc", sparse_bsr: "SparseBsr",
                 sparse_bsc: "SparseBsc"}
_SPARSE_KIND = {sparse_csr: "CSR", sparse_csc: "CSC", sparse_bsr: "BSR", sparse_bsc: "BSC"}


def _impl_type(impl) -> str:
    """The C++ TensorImpl class PyTorch would use for ``impl`` (set_data requires equal ones)."""
    sp = impl.sparse
    if sp is None:
        return "TensorImpl"
    return "SparseTensorImpl" if sp.layout is sparse_coo else "SparseCsrTensorImpl"


def _has_compatible_shallow_copy_type(tensor, other) -> bool:
    """Whether ``tensor.data = other`` is allowed: both have the same kind of TensorImpl (dense, COO, compressed)
    (``torch._has_compatible_shallow_copy_type``)."""
    return _impl_type(tensor._impl) == _impl_type(other._impl)


def wrap(impl: TensorImpl, cls=None) -> Tensor:
    """The public Tensor for an impl: the existing one if the impl has one alive (PyTorch's pyobj slot)."""
    ref = impl.pyobj
    if ref is not None:
        t = ref()
        if t is not None:
            return t
    t = object.__new__(Tensor if cls is None else cls)
    t._impl = impl
    impl.pyobj = _weakref(t)
    return t


def _as_int(x, what="size"):
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(f"{what} must be tuple of ints, not {type(x).__name__}") from None


def parse_size(args, fname="view", argname="size") -> tuple:
    """Varargs sizes ``f(2, 3)`` or one sequence ``f((2, 3))``, as PyTorch's IntArrayRef parsing."""
    for a in args:
        if type(a) is not int:
            break
    else:
        return args
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)) and not _is_int_tensor(args[0]):
        seq = args[0]
        if isinstance(seq, (tuple, list, Size)):
            return tuple(_size_item(x, fname, argname) for x in seq)
        raise TypeError(f"{fname}(): argument '{argname}' (position 1) must be tuple of ints, not "
                        f"{type(seq).__name__}")
    return tuple(_size_item(x, fname, argname) for x in args)


def _size_item(x, fname, argname):
    if isinstance(x, bool) or isinstance(x, float):
        raise TypeError(f"{fname}(): argument '{argname}' (position 1) must be tuple of ints, but found element "
                        f"of type {type(x).__name__} at pos 0")
    if isinstance(x, Tensor):
        return x.__index__()
    return operator.index(x)


def _is_int_tensor(x):
    return isinstance(x, Tensor) and x._impl.numel() == 1 and x._impl.dtype._cat <= _dt.INT_CAT


class _LegacyTensorMeta(type):
    """Lets ``isinstance(t, torch.FloatTensor)`` test the dtype, as PyTorch's legacy types do.

    Only the legacy classes use this metaclass, so ``isinstance(x, Tensor)`` stays a plain, fast check.
    """

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._impl.dtype is cls._legacy_dtype and obj._impl.device.type == "cpu"

    # What PyTorch's ``torch.tensortype`` tells about the tensors a legacy class makes (``torch.FloatTensor.dtype``):
    # metaclass properties, so the class's own ``dtype`` property still serves its instances.
    @property
    def dtype(cls):
        return cls._legacy_dtype

    @property
    def layout(cls):
        return strided

    @property
    def is_cuda(cls) -> bool:
        return False

    @property
    def is_sparse(cls) -> bool:
        return False



def _subclass_protocol(fn):
    """A hand-written Tensor method that a ``self`` of a Tensor subclass in the protocol hands to its
    ``__torch_function__`` first, with the method itself as ``func`` (the generated methods do the same inline)."""
    def method(self, *args, **kwargs):
        if type(self) is not Tensor and _tf.tf_subclass_active(type(self)):
            return _tf.handle_torch_function(method, (self,), self, *args, **kwargs)
        return fn(self, *args, **kwargs)
    method.__name__, method.__qualname__, method.__doc__ = fn.__name__, f"Tensor.{fn.__name__}", fn.__doc__
    method.__wrapped__ = fn
    return method


def _leaf_flag_error(requires_grad: bool) -> str:
    return "you can only change requires_grad flags of leaf variables." + (
        "" if requires_grad else " If you want to use a computed variable in a subgraph that doesn't require "
        "differentiation use var_no_grad = var.detach().")


def _check_grad_assignment(t, value) -> None:
    """PyTorch's checks of ``t.grad = value`` (``THPVariable_set_grad``), in its order: type, identity, dtype,
    device type, device, size."""
    if not isinstance(value, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
    if value is t:
        raise RuntimeError("can't assign Variable as its own grad")
    impl, g = t._impl, value._impl
    want = _autograd_graph.grad_dtype(impl)
    if want is not None and g.dtype is not want:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{_dt.cpp_type_name(g.dtype, 'typeid')}' to a tensor with "
            f"grad_dtype '{_dt.name_of(want)}'. The gradient must match the tensor's grad_dtype (defaults to "
            "the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to "
            "allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
            "break downstream systems that assume they match.")
    if g.device.type != impl.device.type:
        raise RuntimeError(f"attempting to assign a gradient with device type '{g.device.type}' to a tensor with "
                           f"device type '{impl.device.type}'. Please ensure that the gradient and the tensor are on "
                           "the same device")
    if g.device != impl.device:
        raise RuntimeError(f"attempting to assign a gradient located on device with index '{g.device.index}' to a "
                           f"tensor located on device with index '{impl.device.index}'. Please ensure that the "
                           "gradient and the tensor are on the same device")
    if g.sizes != impl.sizes:
        raise RuntimeError(f"attempting to assign a gradient of size '{list(g.sizes)}' to a tensor of size "
                           f"'{list(impl.sizes)}'. Please ensure that the gradient and the tensor are the same size")


def _conj(t):
    return t.conj() if t.is_complex() else t  # conj() of a real tensor is the tensor itself


# 0-dim tensors pass these with a deprecation warning (the identity, or conj()); 1-dim ones raise.
_ZERO_DIM_WARNINGS = {
    "mT": "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
    "mH": "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().",
    "adjoint()": "adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
}


def _check_batched_matrix(t, what: str) -> bool:
    """False (after the warning) for a 0-dim tensor, True for a (batch of) matrices; raises for 1-dim ones."""
    n = t._impl.ndim
    if n == 0:
        _warn_once(_ZERO_DIM_WARNINGS[what])
        return False
    if n < 2:
        raise RuntimeError(f"tensor.{what} is only supported on matrices or batches of matrices. Got {n}-D tensor.")
    return True


class Tensor(_tf.TensorBase):
    """A multi-dimensional array over a Storage (``torch.Tensor``).

    Example:
        >>> import glasstorch as torch
        >>> x = torch.arange(6).view(2, 3)
        >>> x.t().stride()
        (1, 3)
    """

    __slots__ = ("_impl", "__dict__", "__weakref__")
    __hash__ = object.__hash__
    _legacy_dtype = None

    # -- legacy constructor: torch.Tensor(2, 3), torch.Tensor([1, 2]) ---------------------------------
    def __new__(cls, *args, **kwargs):
        legacy = cls.__dict__.get("_legacy_dtype")
        dtype = legacy or _dt.get_default_dtype()
        out_cls = Tensor if legacy is not None else cls
        dev = as_device(kwargs.pop("device", None))
        if kwargs:
            raise TypeError(f"new() received an invalid combination of arguments - got {tuple(kwargs)}")
        if not args:
            impl = _fac.empty_impl((0,), dtype, dev)
        elif len(args) == 1 and isinstance(args[0], Tensor):
            if legacy is not None and args[0].dtype is not dtype:
                raise TypeError(f"expected {_dt.name_of(dtype)} (got {_dt.name_of(args[0].dtype)})")
            return wrap(aten.alias(args[0]._impl), out_cls)  # PyTorch's Tensor(other): other.alias(), recorded
        elif len(args) == 1 and not isinstance(args[0], (int, np.integer)) and not isinstance(args[0], Size):
            impl = _fac.tensor_impl(args[0], dtype, dev)
        else:
            impl = _fac.empty_impl(parse_size(args, "new"), dtype, dev)
        return wrap(impl, out_cls)

    def __init__(self, *args, **kwargs):
        pass

    # -- metadata -----------------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._impl.sizes)

    def size(self, dim=None):
        sizes = self._impl.sizes
        if dim is None:
            return Size(sizes)
        return sizes[_shape.wrap_dim(dim, len(sizes), False)]

    def stride(self, dim=None):
        if self._impl.sparse is not None and self._impl.sparse.layout is not sparse_coo:
            raise RuntimeError(f"Sparse {_SPARSE_KIND[self._impl.sparse.layout]} tensors do not have strides")
        strides = self._impl.strides
        if dim is None:
            return strides
        return strides[_shape.wrap_dim(dim, len(strides), False)]

    def storage_offset(self) -> int:
        return self._impl.offset

    @property
    def dtype(self):
        return self._impl.dtype

    @property
    def device(self) -> device:
        return self._impl.device

    @property
    def layout(self):
        return self._impl.layout

    def dim(self) -> int:
        return len(self._impl.sizes)

    ndimension = dim

    @property
    def ndim(self) -> int:
        return len(self._impl.sizes)

    def numel(self) -> int:
        return self._impl.numel()

    nelement = numel

    def element_size(self) -> int:
        return self._impl.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._impl.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self._impl.numel() * self._impl.dtype.itemsize

    @property
    def is_cuda(self) -> bool:
        return self._impl.device.type == "cuda"

    @property
    def is_meta(self) -> bool:
        return self._impl.device.type == "meta"

    @property
    def is_cpu(self) -> bool:
        return self._impl.device.type == "cpu"

    @property
    def is_sparse(self) -> bool:
        sp = self._impl.sparse
        return sp is not None and sp.layout is sparse_coo

    def to_sparse_coo(self) -> Tensor:
        """This tensor in the COO layout (``Tensor.to_sparse()``)."""
        return self.to_sparse()

    @property
    def is_sparse_csr(self) -> bool:
        sp = self._impl.sparse
        return sp is not None and sp.layout is sparse_csr

    @property
    def is_quantized(self) -> bool:
        return False

    @property
    def is_mkldnn(self) -> bool:
        return False

    def is_floating_point(self) -> bool:
        return self._impl.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._impl.dtype.is_complex

    def is_conj(self) -> bool:
        """Whether this tensor is a lazy conjugate view (Note [Math bits] in ``_ops/math_bits.py``)."""
        return self._impl.is_conj()

    def is_neg(self) -> bool:
        """Whether this tensor's values are its stored ones negated, lazily (``x.conj().imag``)."""
        return self._impl.is_neg()

    @property
    def real(self):
        """The real parts of a complex tensor as a view (``self`` for a real tensor); assigning copies in."""
        return wrap(aten.real(self._impl))

    @real.setter
    def real(self, value):
        self.real.copy_(value)

    @property
    def imag(self):
        """The imaginary parts of a complex tensor as a view; a real tensor raises, as PyTorch's."""
        return wrap(aten.imag(self._impl))

    @imag.setter
    def imag(self, value):
        self.imag.copy_(value)

    def is_signed(self) -> bool:
        return self._impl.dtype.is_signed

    def get_device(self) -> int:
        d = self._impl.device
        return -1 if d.type == "cpu" else (d.index or 0)

    def is_contiguous(self, memory_format=contiguous_format) -> bool:
        impl = self._impl
        if impl.sparse is not None:
            if impl.sparse.layout is not sparse_coo:
                raise RuntimeError(f"Sparse {_SPARSE_KIND[impl.sparse.layout]} tensors do not have is_contiguous")
            return False
        if memory_format is contiguous_format:
            return impl.is_contiguous()
        if type(memory_format) is not _memory_format_type:
            raise TypeError("is_contiguous(): argument 'memory_format' must be torch.memory_format, not "
                            f"{type(memory_format).__name__}")
        if memory_format is channels_last:
            return _shape.is_channels_last_contiguous(impl.sizes, impl.strides)
        if memory_format is channels_last_3d:
            return _shape.is_channels_last_3d_contiguous(impl.sizes, impl.strides)
        return impl.is_contiguous()

    def is_non_overlapping_and_dense(self) -> bool:
        return _shape.is_non_overlapping_and_dense(self._impl.sizes, self._impl.strides)

    def untyped_storage(self):
        if self._impl.sparse is not None:
            raise NotImplementedError(f"Cannot access storage of {_impl_type(self._impl)}")
        return self._impl.storage

    @_subclass_protocol
    def new(self, *args, **kwargs) -> Tensor:
        """PyTorch's legacy constructor: empty, ``new(sizes)``, ``new(data)``, ``new(storage)`` or ``new(tensor)``,
        always in this tensor's dtype and on its device."""
        return wrap(_legacy.tensor_new(self._impl, args, kwargs))

    def set_(self, *args, **kwargs) -> Tensor:
        """Point this tensor at another storage (or tensor's data) with a given geometry; ``set_()`` empties it."""
        _legacy.tensor_set_(self._impl, args, kwargs)
        return self

    @_subclass_protocol
    def storage(self) -> TypedStorage:
        """The tensor's storage as PyTorch's deprecated TypedStorage (warns once per process)."""
        warn_typed_storage_removal()
        return TypedStorage._new_wrapped(self._impl.storage, self._impl.dtype)

    def data_ptr(self) -> int:
        if self._impl.sparse is not None:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        return self._impl.data_ptr()

    def record_stream(self, stream) -> None:
        """Mark this tensor's memory as used on ``stream``: once freed, it is reused only after the work queued
        there by then completes (device tensors; the caching allocator keeps the block until then)."""
        record = getattr(self._impl.storage, "_record_stream", None)
        if record is None:
            raise RuntimeError(f"Could not run 'aten::record_stream' with arguments from the "
                               f"'{self._impl.device.type.upper()}' backend.")
        record(stream._handle)

    def is_set_to(self, other) -> bool:
        a, b = self._impl, other._impl
        return a.storage is b.storage and a.offset == b.offset and a.sizes == b.sizes and a.strides == b.strides

    # -- autograd metadata (the engine arrives with the autograd layer) -------------------------------
    @property
    def requires_grad(self) -> bool:
        impl = self._impl
        meta = impl.autograd
        if impl.base is None:
            return meta is not None and (meta.requires_grad or meta.grad_fn is not None)
        return _autograd_graph.requires_grad(impl) or _current_grad_fn(impl) is not None

    @requires_grad.setter
    def requires_grad(self, value):
        impl = self._impl
        if not self.is_leaf:  # the attribute refuses a non-leaf either way; requires_grad_(True) accepts one
            raise RuntimeError(_leaf_flag_error(value))
        if value and not (impl.dtype.is_floating_point or impl.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad_(value)

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError("requires_grad must be a bool")  # PyTorch's setter, handed no value

    def requires_grad_(self, requires_grad=True) -> Tensor:
        impl = self._impl
        if not self.is_leaf:
            if requires_grad:
                return self  # already requires grad through its grad_fn (PyTorch sets a flag with no effect)
            raise RuntimeError(_leaf_flag_error(False))
        if requires_grad and not (impl.dtype.is_floating_point or impl.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and impl.is_inference() and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        if impl.autograd is None:
            if not requires_grad:
                return self
            impl.autograd = AutogradMeta()
        impl.autograd.requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        meta = self._impl.autograd
        if meta is not None and meta.grad_fn is not None and not meta.retains_grad:
            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                          "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                          "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
                          "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
                          "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
                          "internally at /pytorch/build/aten/src/ATen/core/TensorBody.h:489.)", UserWarning,
                          stacklevel=2)
        g = None if meta is None else meta.grad
        if g is None:
            return None
        # PyTorch keeps a tensor's Python object alive while C++ holds its impl, so ``.grad`` is one object for as
        # long as it is the leaf's gradient (a weak reference to it stays valid): the meta holds the wrapper.
        t = meta.grad_pyobj
        if t is None or t._impl is not g:
            t = meta.grad_pyobj = wrap(g)
        return t

    @grad.setter
    def grad(self, value):
        impl = self._impl
        if value is not None:
            _check_grad_assignment(self, value)
        if impl.autograd is None:
            if value is None:
                return
            impl.autograd = AutogradMeta()
        impl.autograd.grad = None if value is None else value._impl
        impl.autograd.grad_pyobj = value

    @grad.deleter
    def grad(self):
        self.grad = None

    @property
    def grad_dtype(self):
        """The dtype of this leaf's gradients (its own by default; None: any): incoming ones are cast to it, an
        assigned ``.grad`` must have it."""
        if not self.is_leaf:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return _autograd_graph.grad_dtype(self._impl)

    @grad_dtype.setter
    def grad_dtype(self, value):
        impl = self._impl
        if not self.is_leaf:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dt.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
        if impl.autograd is None:
            impl.autograd = AutogradMeta()
        old = impl.autograd.grad
        if value is not None and old is not None and old.dtype is not value:
            raise RuntimeError(f"Cannot set grad_dtype to '{_dt.name_of(value)}' because there is already a gradient "
                               f"with dtype '{_dt.cpp_type_name(old.dtype, 'typeid')}'. Please clear the gradient "
                               "(.grad = None) before changing grad_dtype, or ensure the new grad_dtype matches the "
                               "existing gradient's dtype.")
        _autograd_graph.set_grad_dtype(impl, value)

    @property
    def grad_fn(self):
        return _current_grad_fn(self._impl)

    @property
    def volatile(self) -> bool:
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, value):
        warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                      UserWarning, stacklevel=2)

    @property
    def _grad_fn(self):
        return _current_grad_fn(self._impl)

    @_grad_fn.deleter
    def _grad_fn(self):
        raise RuntimeError("Deletion of _grad_fn not allowed. Detach tensor instead!")

    @property
    def _backward_hooks(self):
        """A slot for scripts that set it (PyTorch keeps the tensor's Python hooks there); None by default."""
        return self.__dict__.get("_backward_hooks")

    @_backward_hooks.setter
    def _backward_hooks(self, value):
        self.__dict__["_backward_hooks"] = value

    @_backward_hooks.deleter
    def _backward_hooks(self):
        raise RuntimeError("Deletion of _backwards_hooks not allowed!")

    @property
    def is_leaf(self) -> bool:
        return _current_grad_fn(self._impl) is None

    # -- backward and hooks (the engine is the autograd layer's) ------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate gradients of this tensor into the leaves' ``.grad`` (``Tensor.backward``)."""
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """``hook(grad) -> Tensor | None`` runs when this tensor's gradient is computed."""
        meta = self._impl.autograd
        if meta is None or not (meta.requires_grad or _current_grad_fn(self._impl) is not None):
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if meta.grad_fn is not None:
            return meta.grad_fn.add_tensor_pre_hook(meta.output_nr, hook)
        return _autograd_graph.grad_accumulator(self._impl).add_tensor_pre_hook(0, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` after ``.grad`` of this leaf was updated."""
        meta = self._impl.autograd
        if meta is None or meta.grad_fn is not None or not meta.requires_grad:
            if meta is not None and meta.grad_fn is not None:
                raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if meta.post_acc_grad_hooks is None:
            meta.post_acc_grad_hooks = {}
        handle = _autograd_graph.RemovableHandle(meta.post_acc_grad_hooks)
        meta.post_acc_grad_hooks[handle.id] = hook
        return handle

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward (a no-op on leaves)."""
        meta = self._impl.autograd
        if meta is None or not (meta.requires_grad or _current_grad_fn(self._impl) is not None):
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if meta.grad_fn is None or meta.retains_grad:
            return
        meta.retains_grad = True
        node = meta.grad_fn
        if node._retains_grad_hooks is None:
            node._retains_grad_hooks = {}

        def store(grad, meta=meta):
            if meta.grad is None:
                meta.grad = grad
            else:
                meta.grad = aten.add_Tensor(meta.grad, grad, 1)
        node._retains_grad_hooks[meta.output_nr] = store

    @property
    def output_nr(self) -> int:
        meta = self._impl.autograd
        return 0 if meta is None else meta.output_nr

    def is_inference(self) -> bool:
        """Whether this tensor was made in inference mode (it has no autograd keys and no version counter)."""
        return self._impl.is_inference()

    @property
    def retains_grad(self) -> bool:
        meta = self._impl.autograd
        return meta is not None and meta.retains_grad

    @property
    def _version(self) -> int:
        version = self._impl.version
        if version is INFERENCE_VERSION:
            raise RuntimeError("Inference tensors do not track version counter.")
        return version.version

    @property
    def _base(self):
        base = self._impl.base
        return None if base is None else wrap(base)

    def _is_view(self) -> bool:
        return self._impl.base is not None

    def _view_chain(self):
        """This view's replay chain from its base: the recorded view ops, else one as_strided (None: no view)."""
        impl = self._impl
        if impl.base is None:
            return None
        meta = impl.autograd
        if meta is not None and meta.view_fn is not None:
            return meta.view_fn
        return _as_strided_view_func(impl, impl.base)

    def _view_func(self, new_base, symint_visitor_fn=None, tensor_visitor_fn=None):
        """This view's ops replayed on ``new_base`` (None when this is no view or ``new_base`` is not laid out as
        this view's base); the visitors may replace the ops' saved SymInts and tensors for this replay."""
        base = self._impl.base
        new = new_base._impl
        if base is None or (new.sizes, new.strides, new.offset, new.dtype, new.device) != (
                base.sizes, base.strides, base.offset, base.dtype, base.device):
            return None
        return self._view_func_unsafe(new_base, symint_visitor_fn, tensor_visitor_fn)

    def _view_func_unsafe(self, new_base, symint_visitor_fn=None, tensor_visitor_fn=None):
        """``_view_func`` without the check that ``new_base`` is laid out as this view's base."""
        chain = self._view_chain()
        if chain is None:
            return None
        if symint_visitor_fn is not None or tensor_visitor_fn is not None:
            to_impl = None if tensor_visitor_fn is None else (lambda t: tensor_visitor_fn(wrap(t))._impl)
            chain = chain.visited(symint_visitor_fn, to_impl)
        return wrap(chain(new_base._impl))

    def _rev_view_func_unsafe(self, new_view):
        """A view of ``new_view`` (laid out as this view) laid out as this view's base: the recorded view ops
        undone (a view recorded without them, outside view replay, has none to undo)."""
        impl = self._impl
        if impl.base is None:
            return None
        meta = impl.autograd
        if meta is None or meta.view_fn is None:
            raise RuntimeError("No _rev_view_func() found")
        return wrap(meta.view_fn.reverse(impl.base, new_view._impl))

    @property
    def data(self) -> Tensor:
        """The same memory without autograd history and with its own version counter."""
        impl = self._impl
        out = TensorImpl(impl.storage, impl.sizes, impl.strides, impl.offset, impl.dtype, impl.device,
                         VersionCounter())
        if impl.is_inference() or impl.sparse is not None:  # an inference tensor (counting), or a sparse one
            out.key_set = impl.key_set
            out.sparse = impl.sparse
        else:
            out.key_set |= impl.key_set & _MATH_BITS  # the same values: lazy conj/neg bits kept (Note [Math bits])
        out.allow_metadata_change = False
        return wrap(out)

    @data.setter
    def data(self, new):
        if not isinstance(new, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
        src, dst = new._impl, self._impl
        if _impl_type(src) != _impl_type(dst):
            raise RuntimeError("Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
                               "incompatible tensor type.")
        dst.sparse = src.sparse
        if self.requires_grad and not (src.dtype.is_floating_point or src.dtype.is_complex):
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        dst.storage, dst.dtype, dst.device, dst.key_set = src.storage, src.dtype, src.device, src.key_set
        dst.set_geometry(src.sizes, src.strides, src.offset)

    @data.deleter
    def data(self):
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @_subclass_protocol
    def detach(self) -> Tensor:
        """A tensor sharing storage and version counter, outside the autograd graph.  A wrapper subclass detaches
        through its ``__torch_dispatch__`` (``aten.detach``), as in PyTorch (Note [detach])."""
        impl = self._impl
        if _is_wrapper_subclass(self):
            return wrap(_dispatcher.get_op("aten::detach").redispatch(impl.key_set & _AT_OR_BELOW_PYTHON | 1, impl))
        out = impl.view_impl(impl.sizes, impl.strides, impl.offset)
        if out.version is INFERENCE_VERSION and not _grad_state.inference:
            out.version = VersionCounter()  # PyTorch's detach outside inference mode counts again
        return wrap(out)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Tensor's default ``__torch_function__``: run ``func`` as for plain Tensors (Tensor subclasses out of the
        protocol meanwhile) and return its Tensor results as ``cls`` (through :meth:`as_subclass`, so a plain
        subclass survives ``x + 1``, ``x.sum()``, ``x[0]``); NotImplemented when an overloaded argument's type
        is not ``cls`` or one of its bases (a more derived class gets its turn)."""
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with _tf.DisableTorchFunctionSubclass():
            ret = func(*args, **(kwargs or {}))
            if func in _DEFAULT_NOWRAP:
                return ret
            return _convert_to_subclass(ret, cls)

    @_subclass_protocol
    def as_subclass(self, cls):
        """A ``cls`` instance aliasing this tensor (``alias``: same memory and version counter, attached to the
        autograd graph through ``AliasBackward0``, its ``_base`` this tensor)."""
        if not isinstance(cls, type):
            raise TypeError(f"cls must be a type (got {type(cls).__name__})")
        if not issubclass(cls, Tensor):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                            "possible. Make sure your class inherits from Tensor.")
        from ._ops._generated.ops import alias
        return wrap(alias.call(self._impl), cls)

    @staticmethod
    def _make_wrapper_subclass(cls, size, strides=None, storage_offset=None, memory_format=None, dtype=None,
                               layout=None, device=None, pin_memory=False, requires_grad=False,
                               dispatch_sizes_strides_policy=None, dispatch_device=False, dispatch_layout=False,
                               _extra_dispatch_keys=None, storage_size=None):
        """A ``cls`` instance with sizes, strides, dtype and device but no data: every operator on it goes to
        ``cls.__torch_dispatch__`` (a wrapper subclass, which usually holds the real tensors as attributes).
        ``storage_size`` sets its (data-less) storage's byte count.  Sending ``size()``/``stride()``, ``device``
        or ``layout`` to ``__torch_dispatch__`` too (the ``dispatch_*`` arguments) is not supported."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                            "possible. Make sure your class inherits from Tensor.")
        if dispatch_sizes_strides_policy not in (None, "sizes", "strides"):
            raise ValueError(f"Unknown sizes_strides_policy: {dispatch_sizes_strides_policy}; expected 'strides' "
                             f"or 'sizes'")
        if dispatch_sizes_strides_policy is not None or dispatch_device or dispatch_layout or _extra_dispatch_keys:
            raise NotImplementedError("_make_wrapper_subclass: glasstorch reads a wrapper's sizes, strides, device "
                                      "and layout from the tensor itself (dispatch_sizes_strides_policy, "
                                      "dispatch_device, dispatch_layout and _extra_dispatch_keys are not supported)")
        sizes = tuple(size)
        strides = _shape.memory_format_strides(sizes, memory_format) if strides is None else tuple(strides)
        dtype = _dt.get_default_dtype() if dtype is None else dtype
        offset = 0 if storage_offset is None else storage_offset
        nbytes = storage_nbytes_for(sizes, strides, offset, dtype.itemsize) if storage_size is None else storage_size
        storage = UntypedStorage(nbytes, device=_META)
        impl = TensorImpl(storage, sizes, strides, offset, dtype, as_device(device))
        impl.key_set |= _PYTHON_KEY
        out = object.__new__(cls)
        out._impl = impl
        impl.pyobj = PinnedPyObject(out)
        if requires_grad:
            impl.autograd = AutogradMeta(True)
        return out

    @staticmethod
    def _make_subclass(cls, data, require_grad=False):
        """A ``cls`` instance over ``data``'s memory and version counter, detached (how ``Parameter`` is made)."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                            "possible. Make sure your class inherits from Tensor.")
        impl = data._impl
        out = wrap(impl.view_impl(impl.sizes, impl.strides, impl.offset), cls)
        if getattr(cls, "__torch_dispatch__", None) is not None:  # its ops go to cls.__torch_dispatch__
            out._impl.key_set |= _PYTHON_KEY
            out._impl.pyobj = PinnedPyObject(out)
        if require_grad:
            if not (impl.dtype.is_floating_point or impl.dtype.is_complex):
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            out._impl.autograd = AutogradMeta(True)
        return out

    def detach_(self) -> Tensor:
        if self._impl.base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
                               "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
                               "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
                               "function in torch/optim/optimizer.py as the solution.")
        if self._impl.autograd is not None:
            self._impl.autograd.requires_grad = False
            self._impl.autograd.grad_fn = None
            self._impl.autograd.fw_grad = None  # PyTorch's detach_ drops the forward-AD tangents too
        return self

    # -- conversion to Python / numpy --------------------------------------------------------------
    def _scalar_check(self, what):
        n = self._impl.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        if self._impl.is_meta:
            raise RuntimeError(f"Tensor.{what}() cannot be called on meta tensors")

    def item(self):
        self._scalar_check("item")
        return _py_scalar(self._impl)

    def tolist(self):
        impl = self._impl
        arr = impl.values_np()
        if impl.dtype in (_dt.bfloat16, _dt.float16):
            arr = arr.astype(np.float32)
        elif arr.dtype.names:  # complex32: (real, imag) float16 fields
            arr = _dt.complex32_values(arr)
        return arr.tolist()

    def numpy(self, *, force=False) -> np.ndarray:
        impl = self._impl
        if impl.sparse is not None:
            raise TypeError(f"can't convert {_SPARSE_NAMES[impl.sparse.layout]} layout tensor to numpy. Use "
                            f"Tensor.to_dense() first.")
        if impl.device.type != "cpu":
            raise TypeError(f"can't convert {impl.device} device type tensor to numpy. Use Tensor.cpu() to copy the "
                            f"tensor to host memory first.")
        if not force and _grad_state.enabled and self.requires_grad:  # PyTorch checks grad mode too
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if impl.dtype is _dt.bfloat16 or impl.dtype in _dt.FLOAT8_DTYPES:  # numpy has no such type
            raise TypeError(f"Got unsupported ScalarType {impl.dtype._short}")
        if impl.key_set & _ZERO_TENSOR_BIT:  # Note [ZeroTensor]: its zeros are real here, but PyTorch's are not
            if not force:
                raise RuntimeError(" Cannot convert a ZeroTensor to numpy. Set force=True if you need the zero array.")
            return impl.as_numpy().copy()
        if force and impl.key_set & _MATH_BITS:  # PyTorch's force: detach().cpu().resolve_conj().resolve_neg()
            return self.detach().resolve_conj().resolve_neg().numpy()
        if impl.is_conj():  # the stored values are not the tensor's (Note [Math bits])
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj()."
                               "numpy() instead.")
        if impl.is_neg():
            raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. Use tensor.resolve_neg()."
                               "numpy() instead.")
        return impl.as_numpy().view()

    # Note [numpy interop]
    # As in PyTorch's _tensor.py: numpy's operators and scalars defer to Tensor's (priority above an ndarray's), so
    # ``ndarray + t`` is ``t.__radd__(ndarray)``.  Tensor's operators take no arrays (only ``__eq__`` does, as a
    # tensor), so ``t + ndarray`` ends in numpy's ufunc on ``__array__`` and comes back through ``__array_wrap__``:
    # a Tensor in numpy's result dtype.  An operator numpy also leaves to Tensor is a TypeError, as in PyTorch.
    __array_priority__ = 1000

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()  # PyTorch's: refuses a tensor that requires grad, and bfloat16
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """A numpy result computed from this tensor, as a tensor over the result's memory; bool comes back uint8,
        as in PyTorch (``np.greater(t, 0)``).  ``return_scalar`` is ignored: PyTorch gives a 0-dim tensor."""
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return wrap(_fac.numpy_impl(array))

    def __index__(self):
        impl = self._impl
        if impl.numel() != 1 or impl.dtype._cat > _dt.INT_CAT:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        self._scalar_check("item")
        return int(_py_scalar(impl))

    def __int__(self):
        return int(self._python_number("int64_t"))

    def __float__(self):
        return float(self._python_number("double"))

    def _python_number(self, c_type):
        """The one value for ``int()``/``float()``: complex values must be real (c10's overflow check)."""
        if self._impl.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        self._scalar_check("item")
        if self.requires_grad:
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                          "Consider using tensor.detach() first.", UserWarning, stacklevel=3)
        v = _py_scalar(self._impl)
        if isinstance(v, complex):
            if v.imag != 0:
                raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
            v = v.real
        return v

    def __complex__(self):
        if self._impl.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        self._scalar_check("item")
        return complex(_py_scalar(self._impl))

    def __bool__(self):
        n = self._impl.numel()
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        self._scalar_check("item")
        return builtins.bool(_py_scalar(self._impl))

    def __len__(self):
        if not self._impl.sizes:
            raise TypeError("len() of a 0-d tensor")
        return self._impl.sizes[0]

    def __iter__(self):
        if not self._impl.sizes:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __repr__(self, *, tensor_contents=None):
        return _printing.tensor_repr(self, tangent=self._tangent_repr())

    # no __str__: object's calls __repr__, so a subclass's own __repr__ prints (PyTorch defines none either)

    def _tangent_repr(self):
        """The repr of this tensor's forward-mode tangent at level 0 (PyTorch prints a dual's as a suffix)."""
        if _forward_levels.level < 0:
            return None
        t = _fw_grad(self._impl, 0)
        return None if t is None else _printing.tensor_repr(_autograd_graph.to_tensor(t))

    def __format__(self, spec):
        if self._impl.sizes == () and not self._impl.is_meta:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        # PyTorch's layout: the whole storage by value plus the geometry, so a view keeps its strides and offset.
        # Like PyTorch's plain pickling, each tensor carries its own copy of the storage (no sharing after load).
        # A subclass, or a tensor with Python attributes, comes back as its class with its __dict__ (torch's
        # _rebuild_from_type_v2), so copy.copy and pickle keep them.
        impl = self._impl
        if _is_wrapper_subclass(self):  # no data of its own: its geometry, its Python state holds the rest
            return (_rebuild_from_type_v2, (_rebuild_wrapper_subclass, type(self), wrapper_subclass_args(self),
                                            _get_obj_state(self)))
        args = (impl.storage.__reduce_ex__(proto)[1], impl.offset, impl.sizes, impl.strides, impl.dtype,
                self.requires_grad)
        bits = get_tensor_metadata(self)
        if bits:  # the lazy conjugate/negative bits, as PyTorch's pickling records them
            args += (bits,)
        state = _get_obj_state(self)
        if type(self) is Tensor and not state:
            return (_rebuild_pickled_tensor, args)
        return (_rebuild_from_type_v2, (_rebuild_pickled_tensor, type(self), args, state))

    @_subclass_protocol
    def __deepcopy__(self, memo):
        """PyTorch's deepcopy: leaves only; the copy keeps strides and offset, and tensors that shared a storage
        share one copied storage (the memo is keyed by storage); ``.grad``, ``__slots__`` and ``__dict__`` are
        deep-copied along.  A subclass keeps its type: one without data (a wrapper subclass) through its
        ``clone()``, one with data through its ``new_empty()``; either must return the subclass, as in PyTorch."""
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        cls = type(self)
        with _autograd.no_grad():
            out = self._deepcopy_data(memo, cls)
            if self.requires_grad:
                out.requires_grad_(True)
            if self.grad is not None:
                out.grad = self.grad.__deepcopy__(memo)
            if cls is not Tensor:
                for slot in _copyreg._slotnames(cls):
                    if hasattr(self, slot):
                        setattr(out, slot, _copy.deepcopy(getattr(self, slot), memo))
            out.__dict__ = _copy.deepcopy(self.__dict__, memo)
        memo[id(self)] = out
        return out

    def _deepcopy_data(self, memo, cls) -> Tensor:
        """The data part of :meth:`__deepcopy__`: a clone for a tensor without data, else a copied storage (one per
        storage in ``memo``) under the same geometry."""
        impl = self._impl
        if impl.device.type == "meta" or (cls is not Tensor and impl.data_ptr() == 0):
            out = self.clone()
            if type(out) is not cls:
                raise RuntimeError("The default implementation of __deepcopy__() for wrapper subclasses only works "
                                   "for subclass types that implement clone() and for which cloning returns another "
                                   "instance of the same subclass. You should either properly implement clone() for "
                                   "your subclass or override __deepcopy__() if it is intended behavior for clone() "
                                   "to return an instance of a different type.")
            return out
        storage = memo.get(id(impl.storage))
        if storage is None:
            storage = memo[id(impl.storage)] = impl.storage.clone()
        copied = TensorImpl(storage, impl.sizes, impl.strides, impl.offset, impl.dtype, impl.device)
        if impl.is_conj():  # PyTorch's deepcopy resolves the lazy bits (a copy that reads as the original)
            copied = aten._conj_physical(copied)
        if impl.is_neg():
            copied = aten.neg(copied)
        if cls is Tensor:
            return wrap(copied)
        out = self.new_empty([])
        if type(out) is not cls:
            raise RuntimeError("The default implementation of __deepcopy__() for non-wrapper subclasses only works "
                               "for subclass types that implement new_empty() and for which that function returns "
                               "another instance of the same subclass. You should either properly implement "
                               "new_empty() for your subclass or override __deepcopy__() if it is intended behavior "
                               "for new_empty() to return an instance of a different type.")
        out._impl = copied  # new_empty's instance (its class and attributes) over the copied storage: PyTorch's set_
        copied.pyobj = _weakref(out)
        return out

    def __contains__(self, item):
        # PyTorch's _tensor.py: ``(item == self).any()`` for a Tensor or a number; anything else (a list, a numpy
        # array, np.bool_) is refused
        if isinstance(item, (Tensor, numbers.Number)):
            return builtins.bool((item == self).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(item)}.")

    # -- copies and conversions ----------------------------------------------------------------------
    @_subclass_protocol
    def contiguous(self, memory_format=contiguous_format) -> Tensor:
        if self.is_contiguous(memory_format):
            return self
        if memory_format is preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        return self.clone(memory_format=memory_format)

    @_subclass_protocol
    def to(self, *args, **kwargs) -> Tensor:
        """Convert dtype and/or device; returns ``self`` when nothing changes and ``copy`` is False."""
        dtype, dev, copy, memory_format = _parse_to(self, args, kwargs)
        impl = self._impl
        dtype = impl.dtype if dtype is None else dtype
        dev = impl.device if dev is None else dev
        same_device = dev.type == impl.device.type and (dev.index is None or dev.index == impl.device.index)
        if not copy and dtype is impl.dtype and same_device and memory_format is preserve_format:
            return self
        return wrap(aten._to_copy(impl, dtype, None, dev, None, False, memory_format))

    @_subclass_protocol
    def cpu(self, memory_format=preserve_format) -> Tensor:
        return self.to("cpu", memory_format=memory_format)

    @_subclass_protocol
    def cuda(self, device=None, non_blocking=False):
        raise AssertionError("Torch not compiled with CUDA enabled")

    @_subclass_protocol
    def type(self, dtype=None, non_blocking=False):
        impl = self._impl
        if dtype is None:
            mid = "" if impl.device.type == "cpu" else f"{impl.device.type}."
            return f"torch.{mid}{impl.dtype._tensor_type}"
        if isinstance(dtype, (str, bytes)):
            text = dtype.decode() if isinstance(dtype, bytes) else dtype
            name = text.removeprefix("torch.")
            if name not in _LEGACY_BY_NAME:
                raise ValueError(f"invalid type: '{text}'")
            dtype = _LEGACY_BY_NAME[name]
        elif isinstance(dtype, type):  # a tensor type; a Python type is no dtype here (unlike ``to``)
            if not issubclass(dtype, Tensor):
                cname = f"numpy.{dtype.__name__}" if dtype.__module__.startswith("numpy") else dtype.__name__
                raise ValueError(f"invalid type: '{cname}'")
            dtype = dtype._legacy_dtype
        elif not isinstance(dtype, _dt.dtype):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self.to(dtype)

    @_subclass_protocol
    def to_dense(self, *args, **kwargs) -> Tensor:
        """A strided tensor is dense already: ``self`` (or ``self.to(dtype)`` for another dtype)."""
        dtype, _masked_grad = TO_DENSE_SIGNATURES.parse(args, kwargs)[1]
        return self if dtype is None or dtype == self.dtype else self.to(dtype)

    @_subclass_protocol
    def type_as(self, other) -> Tensor:
        return self.to(other._impl.device, other._impl.dtype)

    @_subclass_protocol
    def float(self, memory_format=preserve_format):
        return self.to(_dt.float32, memory_format=memory_format)

    @_subclass_protocol
    def double(self, memory_format=preserve_format):
        return self.to(_dt.float64, memory_format=memory_format)

    @_subclass_protocol
    def half(self, memory_format=preserve_format):
        return self.to(_dt.float16, memory_format=memory_format)

    @_subclass_protocol
    def bfloat16(self, memory_format=preserve_format):
        return self.to(_dt.bfloat16, memory_format=memory_format)

    @_subclass_protocol
    def long(self, memory_format=preserve_format):
        return self.to(_dt.int64, memory_format=memory_format)

    @_subclass_protocol
    def int(self, memory_format=preserve_format):
        return self.to(_dt.int32, memory_format=memory_format)

    @_subclass_protocol
    def short(self, memory_format=preserve_format):
        return self.to(_dt.int16, memory_format=memory_format)

    @_subclass_protocol
    def char(self, memory_format=preserve_format):
        return self.to(_dt.int8, memory_format=memory_format)

    @_subclass_protocol
    def byte(self, memory_format=preserve_format):
        return self.to(_dt.uint8, memory_format=memory_format)

    @_subclass_protocol
    def bool(self, memory_format=preserve_format):
        return self.to(_dt.bool, memory_format=memory_format)

    @_subclass_protocol
    def cfloat(self, memory_format=preserve_format):
        return self.to(_dt.complex64, memory_format=memory_format)

    @_subclass_protocol
    def cdouble(self, memory_format=preserve_format):
        return self.to(_dt.complex128, memory_format=memory_format)

    @_subclass_protocol
    def chalf(self, memory_format=preserve_format):
        return self.to(_dt.complex32, memory_format=memory_format)

    # -- new_* factories ------------------------------------------------------------------------------
    @_subclass_protocol
    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, **_):
        dt, dev = _new_options(self, "new_empty", dtype, device)
        return _finish_new(_fac.empty_impl(parse_size(size, "new_empty"), dt, dev), requires_grad)

    @_subclass_protocol
    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, **_):
        """Uninitialised memory with exactly this geometry (``empty_strided``), in this tensor's dtype and device
        unless given."""
        dt, dev = _new_options(self, "new_empty_strided", dtype, device)
        return _finish_new(empty_strided_impl(tuple(size), tuple(stride), dt, dev), requires_grad)

    @_subclass_protocol
    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **_):
        dt, dev = _new_options(self, "new_zeros", dtype, device)
        return _finish_new(_fac.full_impl(parse_size(size, "new_zeros"), 0, dt, dev), requires_grad)

    @_subclass_protocol
    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, **_):
        dt, dev = _new_options(self, "new_ones", dtype, device)
        return _finish_new(_fac.full_impl(parse_size(size, "new_ones"), 1, dt, dev), requires_grad)

    @_subclass_protocol
    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, **_):
        dt, dev = _new_options(self, "new_full", dtype, device)
        return _finish_new(_fac.full_impl(parse_size((size,), "new_full"), fill_value, dt, dev), requires_grad)

    @_subclass_protocol
    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        if isinstance(data, Tensor):
            warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                          "or sourceTensor.clone().detach().requires_grad_(True), rather than "
                          "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
        dt, dev = _new_options(self, "new_tensor", dtype, device)
        return _finish_new(_fac.tensor_impl(data, dt, dev), requires_grad)

    # -- views ---------------------------------------------------------------------------------------

    @property
    def T(self):
        n = self._impl.ndim
        if n == 0:
            _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.")
        elif n != 2:
            _warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
                       "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices "
                       "or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")
        return self.permute(tuple(range(n - 1, -1, -1)))

    @property
    def mT(self):
        return self.transpose(-2, -1) if _check_batched_matrix(self, "mT") else self

    @property
    def H(self):
        n = self._impl.ndim
        if n == 0:
            _warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
            return _conj(self)
        if n != 2:
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor."
                               + (" For batches of matrices, consider using tensor.mH" if n > 2 else ""))
        return _conj(self.transpose(0, 1))

    @property
    def mH(self):
        return _conj(self.transpose(-2, -1) if _check_batched_matrix(self, "mH") else self)

    def adjoint(self):
        """``x.adjoint()``: the conjugate transpose of the last two dims (a view)."""
        return _conj(self.transpose(-2, -1) if _check_batched_matrix(self, "adjoint()") else self)

    def split(self, split_size, dim=0):
        """Python-level, as PyTorch's: an int size or a list of sizes."""
        if isinstance(split_size, (list, tuple)):
            return self.split_with_sizes(split_size, dim)
        return tuple([wrap(v) for v in aten.split_Tensor(self._impl, operator.index(split_size), dim)])

    def __getitem__(self, idx):
        """``x[idx]``: basic items are views (select/slice/unsqueeze), index tensors go to ``aten::index``."""
        if type(self) is not Tensor:
            relevant = _indexing_operands(self, idx)
            if _tf.has_torch_function(relevant):
                return _tf.handle_torch_function(Tensor.__getitem__, relevant, self, idx)
        return _indexing.getitem(self, idx)

    def __setitem__(self, idx, value):
        """``x[idx] = value``: ``copy_`` into the view, or ``aten::index_put_`` for index tensors."""
        if type(self) is not Tensor or type(value) not in _PLAIN_VALUES:
            relevant = _indexing_operands(self, idx, value)
            if _tf.has_torch_function(relevant):
                _tf.handle_torch_function(Tensor.__setitem__, relevant, self, idx, value)
                return
        _indexing.setitem(self, idx, value)

    def __delitem__(self, idx):
        raise TypeError("Tensor does not support deleting items")


# -- the default __torch_function__'s helpers -----------------------------------------------------------
_PLAIN_VALUES = frozenset((Tensor, int, float, bool, complex))


def _indexing_operands(*args) -> tuple:
    """What an indexing call shows ``__torch_function__``: self, the index and its items, the value if any."""
    idx = args[1]
    return args + (tuple(idx) if isinstance(idx, (tuple, list)) else ())



def _convert_to_subclass(ret, cls):
    """A function's result as the default ``__torch_function__`` returns it: Tensors (also inside tuples, lists
    and named tuples) that are not already ``cls`` instances become ``cls`` through ``as_subclass``."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor):
        return ret if isinstance(ret, cls) else ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert_to_subclass(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(type(ret), "_fields") else type(ret)(items)  # named tuples by field
    return ret


# functions whose results the default __torch_function__ returns as they are (torch.overrides'
# get_default_nowrap_functions: the getters of ``_base``, ``grad`` and ``_grad``)
_DEFAULT_NOWRAP = {Tensor.__dict__[name].__get__ for name in ("_base", "grad", "_grad") if name in Tensor.__dict__}


# -- helpers used by the facade ----------------------------------------------------------------------

def _py_scalar(impl: TensorImpl):
    arr = impl.values_np()
    if arr.dtype.names:  # complex32: (real, imag) float16 fields
        arr = _dt.complex32_values(arr)
    v = arr.reshape(()).item() if arr.ndim else arr.item()
    if impl.dtype is _dt.bfloat16:
        return float(v)
    return v


def _check_inplace(t: Tensor):
    """Writes to a tensor whose elements overlap (an expanded tensor) are refused, as PyTorch does."""
    impl = t._impl
    if impl.numel() > 1 and any(st == 0 and sz > 1 for st, sz in zip(impl.strides, impl.sizes, strict=True)):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a single "
                           "memory location. Please clone() the tensor before performing the operation.")


def _strides_for(impl: TensorImpl, memory_format) -> tuple:
    return _shape.strides_for_format(impl.sizes, impl.strides, memory_format)


def _finish_new(impl: TensorImpl, requires_grad: bool) -> Tensor:
    """``new_empty`` & co.: under a dispatch mode the mode sees the fresh tensor (PyTorch's lift_fresh)."""
    if _dk_tls.included & _PYTHON_KEY:
        impl = _dispatcher.get_op("aten::lift_fresh").call(impl)
    return _finish(impl, requires_grad)


def _finish(impl: TensorImpl, requires_grad: bool) -> Tensor:
    t = wrap(impl)
    if requires_grad:
        if not (impl.dtype.is_floating_point or impl.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        impl.autograd = AutogradMeta(True)
    return t


_PYTHON_KEY = _dk_bit("Python")
_AT_OR_BELOW_PYTHON = (_PYTHON_KEY << 1) - 1
_META = as_device("meta")
_memory_format_type = type(contiguous_format)


# Tensor.to's overloads (python_variable_methods.cpp's THPVariable_to; torch._C._nn._parse_to has the same three): a
# Python number binds as a 0-dim tensor (``to(1.5)`` is ``to(float64)``), a Python type as its dtype (``to(int)``)
TO_SIGNATURES = _arg_parser.Signatures("to", [
    "to(Device device=None, ScalarType dtype=None, bool non_blocking=False, bool copy=False, *, "
    "MemoryFormat? memory_format=None)",
    "to(ScalarType dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)",
    "to(Tensor tensor, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)",
], numbers_as_tensors=True)


TO_DENSE_SIGNATURES = _arg_parser.Signatures("to_dense",
                                             ["to_dense(ScalarType? dtype=None, *, bool? masked_grad=None)"])


def _new_options(t, fname, dtype, device):
    """A ``new_*`` factory's dtype (converted as the parser does: Python types too) and device, else ``t``'s."""
    return _arg_parser.dtype_arg(fname, dtype) or t.dtype, as_device(device) if device else t.device


def parse_to(args, kwargs):
    """The arguments of ``to`` (``torch._C._nn._parse_to``): (overload index, device, dtype, non_blocking, copy,
    memory_format), with the parser's TypeErrors."""
    idx, values = TO_SIGNATURES.parse(args, kwargs)
    if idx == 0:
        dev, dtype, non_blocking, copy, fmt = values
    elif idx == 1:
        dev = None
        dtype, non_blocking, copy, fmt = values
    else:
        impl, non_blocking, copy, fmt = values
        dtype, dev = impl.dtype, impl.device
    return idx, dev, dtype, non_blocking, copy, fmt


def nn_parse_to(*args, **kwargs):
    """``torch._C._nn._parse_to`` (Module.to's parser): (device, dtype, non_blocking, memory_format), with the
    argument parser's TypeErrors; a ``copy`` argument is refused, even False (modules convert in place)."""
    idx, device, dtype, non_blocking, _copy, fmt = parse_to(args, kwargs)
    if "copy" in kwargs or len(args) > (3 if idx == 0 else 2):  # given at all, even False
        raise RuntimeError(".to() does not accept copy argument")
    return device, dtype, non_blocking, fmt


def _parse_to(t, args, kwargs):
    """(dtype, device, copy, memory_format) of ``t.to(*args, **kwargs)``."""
    if len(args) == 1 and type(args[0]) is _dt.dtype and (not kwargs or list(kwargs) == ["memory_format"]):
        fmt = kwargs.get("memory_format")  # x.float(), x.to(torch.float64): nothing else to parse
        if fmt is None or type(fmt) is memory_format:
            return args[0], None, False, preserve_format if fmt is None else fmt
    _idx, dev, dtype, _non_blocking, copy, fmt = parse_to(args, kwargs)
    return dtype, dev, copy, preserve_format if fmt is None else fmt


# -- legacy typed tensor classes (torch.FloatTensor ...) ------------------------------------------------

def _legacy_class(dt):
    return _LegacyTensorMeta(dt._tensor_type, (Tensor,), {"_legacy_dtype": dt, "__slots__": ()})


LEGACY_TYPES = {dt._tensor_type: _legacy_class(dt) for dt in _dt.ALL_DTYPES}
_LEGACY_BY_NAME = {name: cls._legacy_dtype for name, cls in LEGACY_TYPES.items()}


def _state_to_tensor(arr):
    return wrap(_fac.tensor_impl(arr, _dt.uint8))


def _state_from_tensor(t):
    if isinstance(t, Tensor):
        if t.dtype is not _dt.uint8:
            raise TypeError(f"expected a torch.ByteTensor, but got {t.type()}")
        return t._impl.as_numpy()
    return np.asarray(t, dtype=np.uint8)


Generator.state_to_tensor = staticmethod(_state_to_tensor)
_dispatcher.set_tensor_type(TensorImpl)
_indexing.bind_wrap(wrap)
_arg_parser.set_tensor_class(Tensor)
Generator.state_from_tensor = staticmethod(_state_from_tensor)

from ._tensor import printing as _printing  # noqa: E402  (printing reads Tensor attributes only)


# ---- pickling: the rebuild side of __reduce_ex__ (torch/_tensor.py keeps _rebuild_from_type_v2 beside Tensor too;
# glasstorch._utils re-exports these under the names checkpoints use) ----

def _tensor_over(untyped: UntypedStorage, dtype, storage_offset, size, stride) -> Tensor:
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(size)} sizes and {len(stride)} strides")
    need = storage_nbytes_for(size, stride, storage_offset, dtype.itemsize)
    if need > untyped.nbytes():
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {storage_offset}, "
                           f"and itemsize {dtype.itemsize} requiring a storage size of {need} are out of bounds for "
                           f"storage of size {untyped.nbytes()}")
    return wrap(TensorImpl(untyped, size, stride, storage_offset, dtype, untyped.device))


def _rebuild_pickled_tensor(storage_state, storage_offset, size, stride, dtype, requires_grad, metadata=None):
    """The unpickling side of ``Tensor.__reduce_ex__``: a tensor with the saved geometry over its own storage."""
    tensor = _tensor_over(_rebuild_untyped_storage(*storage_state), dtype, storage_offset, size, stride)
    tensor = set_tensor_metadata(tensor, metadata)
    tensor.requires_grad = requires_grad
    return tensor


def _is_wrapper_subclass(t: Tensor) -> bool:
    """A subclass tensor without data of its own whose operators go to its ``__torch_dispatch__`` (made by
    ``_make_wrapper_subclass``): PyTorch pickles it as its class and geometry (``_rebuild_wrapper_subclass``) plus
    its Python state.  A FakeTensor is not one here: its pickling is the fake-tensor layer's."""
    cls = type(t)
    if cls is Tensor or getattr(cls, "__torch_dispatch__", None) is None or cls.__name__ == "FakeTensor":
        return False
    impl = t._impl
    return impl.sparse is None and impl.device.type != "meta" and impl.data_ptr() == 0


def wrapper_subclass_args(t: Tensor) -> tuple:
    """The arguments of :func:`_rebuild_wrapper_subclass` for ``t``, in PyTorch's order."""
    impl = t._impl
    return (type(t), impl.dtype, tuple(impl.sizes), tuple(impl.strides), impl.offset, t.layout, impl.device,
            t.requires_grad)


def _rebuild_wrapper_subclass(cls, dtype, size, stride, storage_offset, layout, device, requires_grad):
    """The unpickling side of a wrapper subclass (``torch._utils._rebuild_wrapper_subclass``): a new data-less
    ``cls`` instance of this geometry; ``_rebuild_from_type_v2`` then restores the state that holds its data."""
    return Tensor._make_wrapper_subclass(cls, size, strides=stride, dtype=dtype, storage_offset=storage_offset,
                                         layout=layout, device=device, requires_grad=requires_grad)


_MATH_BIT_NAMES = (("conj", _dk_bit("Conjugate")), ("neg", _dk_bit("Negative")))
_ZERO_TENSOR_BIT = _dk_bit("ZeroTensor")


def get_tensor_metadata(tensor: Tensor) -> dict:
    """The lazy bits a checkpoint records beside a tensor's storage (``torch._C._get_tensor_metadata``):
    ``{'conj': True}`` and/or ``{'neg': True}``, empty when neither is set (Note [Math bits])."""
    ks = tensor._impl.key_set
    if ks & _ZERO_TENSOR_BIT:  # PyTorch's getTensorMetadata check (Note [ZeroTensor])
        raise RuntimeError("ZeroTensor is not serializable, please file an issue if required.")
    return {name: True for name, b in _MATH_BIT_NAMES if ks & b}


def set_tensor_metadata(tensor: Tensor, metadata) -> Tensor:
    """Set the conjugate/negative bits a checkpoint recorded on the rebuilt tensor (``_set_tensor_metadata``):
    its storage holds the stored values, the bits say how to read them."""
    if not metadata:
        return tensor
    if not isinstance(metadata, dict):
        raise RuntimeError(f"expected dict, got {type(metadata).__name__}")
    impl = tensor._impl
    for name, b in _MATH_BIT_NAMES:
        if metadata.get(name):
            impl.key_set |= b
    return tensor


def _rebuild_from_type_v2(func, new_type, args, state):
    """Rebuild with ``func(*args)``, re-class to ``new_type`` and restore Python attributes (``torch._tensor``)."""
    ret = func(*args)
    if type(ret) is not new_type:
        ret = _as_subclass(ret, new_type)
    setstate = getattr(type(ret), "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        ret.__setstate__(state)
        return ret
    return _set_obj_state(ret, state)


def _as_subclass(t: Tensor, new_type) -> Tensor:
    """The same impl under a facade of class ``new_type`` (``Tensor.as_subclass``)."""
    out = object.__new__(new_type)
    out._impl = t._impl
    t._impl.pyobj = _weakref(out)
    return out


def _get_obj_state(obj):
    """The Python state of a tensor (PyTorch's ``_get_obj_state``): what its class's own ``__getstate__`` gives,
    else ``object.__getstate__``'s answer without the facade's ``_impl`` slot — the ``__dict__`` (None when
    empty), or ``(dict, {slot: value})`` when a subclass declares ``__slots__``."""
    if type(obj).__getstate__ is not object.__getstate__:
        return obj.__getstate__()
    state = dict(obj.__dict__) or None
    slots = {n: getattr(obj, n) for n in _copyreg._slotnames(type(obj)) if n != "_impl" and hasattr(obj, n)}
    return (state, slots) if slots else state


def _set_obj_state(obj, state):
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for k, v in (dict_state or {}).items():
        setattr(obj, k, v)
    for k, v in (slots_state or {}).items():
        setattr(obj, k, v)
    return obj
