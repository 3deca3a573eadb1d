"""FakeTensor and FakeTensorMode — PyTorch's ``torch/_subclasses/fake_tensor.py``.

A FakeTensor has everything a tensor has except data: sizes, strides, storage offset, dtype, the device
it *claims* (``cpu``, ``emu`` ...), requires_grad and an autograd history.  Its TensorImpl holds a
storage of the ``meta`` device (a byte count and no buffer) and carries the dispatcher's ``Python`` key,
so every operator on it reaches the Python-key fallback below Autograd.  There :class:`FakeTensorMode`
runs the operator's *meta* kernel on meta twins of the arguments (same storage object, same geometry,
device ``meta``) and dresses the meta results as FakeTensors of the fake device again.

Because autograd sits above the Python key, fakes that require grad build ordinary ``grad_fn`` graphs and
``autograd.grad`` over them runs the backward formulas on fakes.  Reading a fake's values (``item``,
``tolist``, ``bool``, ``numpy`` ...) raises :class:`DataDependentOutputException`; operators whose output
shape depends on the data (``nonzero``, ``unique``, ``masked_select``, boolean-mask indexing) raise
:class:`DynamicOutputShapeException`; an operator without a meta kernel raises
:class:`UnsupportedOperatorException` (an :class:`UnsupportedFakeTensorException`) naming it.  A few operators
with no meta kernel of their own get their result geometry from ``_FAKE_IMPLS`` here (``nonzero_static``).

Invariants:
- a fake's impl and its meta twin share the Storage object and the version counter, so views of one fake
  storage alias each other exactly as real views do;
- the public object of a fake impl is always the same FakeTensor (the impl pins it, PyTorch's PyObject
  preservation for subclasses), so a fake never shows up as a plain Tensor;
- ``mode.from_tensor(real)`` is memoised per real TensorImpl and fakes of views of one real storage share
  one fake storage.
"""

from __future__ import annotations

import weakref

from .._binding_support import _disabled_torch_function_impl
from .._core import dtype as _dt
from .._core.device import as_device
from .._core.dispatch_key import AUTOCAST_SET, AUTOGRAD_SET, bit, tls
from .._ops.factories import empty_impl
from .._ops.tensor_iterator import resize_out
from .._tensor.impl import AutogradMeta, TensorImpl, set_subclass_hooks
from .._tensor.storage import UntypedStorage
from ..tensor import PinnedPyObject as _Pin
from ..tensor import Tensor, wrap
from ..utils._python_dispatch import TorchDispatchMode, _sync_key, mode_stack

__all__ = ["FakeTensor", "FakeTensorConverter", "FakeTensorMode", "DataDependentOutputException",
           "DynamicOutputShapeException", "UnsupportedFakeTensorException", "UnsupportedOperatorException", "is_fake",
           "unset_fake_temporarily"]

_PYTHON = bit("Python")
_META = as_device("meta")
# Keys already handled above the Python key: a handler's own calls must not pass them again.
_BELOW_PYTHON_EXCLUDE = AUTOGRAD_SET | AUTOCAST_SET | bit("ADInplaceOrView")
_LOCAL_SCALAR_DENSE = "aten._local_scalar_dense.default"
# Operators whose output size depends on the input's values (PyTorch's ``dynamic_output_shape`` tag).
_DYNAMIC_OUTPUT_OPS = frozenset({
    "aten::nonzero", "aten::nonzero.out", "aten::_unique2", "aten::unique_dim", "aten::unique_consecutive",
    "aten::masked_select", "aten::masked_select.out", "aten::argwhere", "aten::bincount", "aten::_unique",
    "aten::unique_dim_consecutive",
})


# -- exceptions ---------------------------------------------------------------------------------------------
class UnsupportedFakeTensorException(RuntimeError):
    """A tensor or an operator that fake tensors cannot represent (``reason`` says which)."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class UnsupportedOperatorException(UnsupportedFakeTensorException):
    """The operator ``func`` has no meta kernel, so it cannot run on FakeTensors; ``str(e)`` names it."""

    def __init__(self, func):
        super().__init__(str(func))
        self.func = func


class DynamicOutputShapeException(RuntimeError):
    """``func``'s output shape depends on the input's data (``nonzero``, ``unique`` ...)."""

    def __init__(self, func):
        super().__init__(str(func))
        self.func = func


class DataDependentOutputException(RuntimeError):
    """A fake's values were asked for (``item()``, ``bool()`` ...); ``func`` is the operator that needed them."""

    def __init__(self, func):
        super().__init__(str(func))
        self.func = func


# -- the tensor ---------------------------------------------------------------------------------------------
def _no_data(*args, **kwargs):
    raise DataDependentOutputException(_LOCAL_SCALAR_DENSE)


class FakeTensor(Tensor):
    """A tensor with metadata and no data (``torch._subclasses.fake_tensor.FakeTensor``).

    ``fake_mode`` is the FakeTensorMode that made it; ``device`` is the device it stands for.

    Example:
        >>> import glasstorch as torch
        >>> mode = FakeTensorMode()
        >>> f = mode.from_tensor(torch.randn(2, 3))
        >>> with mode:
        ...     (f @ f.t()).shape
        torch.Size([2, 2])
    """

    __slots__ = ()
    # outside __torch_function__ (PyTorch's FakeTensor too): its ops reach __torch_dispatch__ as plain Tensors' do
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, *args, **kwargs):
        raise TypeError("FakeTensor is made by FakeTensorMode.from_tensor or by operators under FakeTensorMode")

    @property
    def fake_device(self):
        return self._impl.device

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        """An operator reached a fake outside any mode: run it under the fake's own mode."""
        mode = _find_mode(args, kwargs)
        return mode.__torch_dispatch__(func, types, args, kwargs)

    item = tolist = __bool__ = __int__ = __float__ = __complex__ = __index__ = _no_data

    def numpy(self, *, force=False):
        raise DataDependentOutputException(".numpy() is not supported for tensor subclasses.")

    def __array__(self, dtype=None, copy=None):
        raise DataDependentOutputException(".numpy() is not supported for tensor subclasses.")

    def __deepcopy__(self, memo):
        """A new fake of the same mode over a copied fake storage (views copied together stay views)."""
        out = memo.get(id(self))
        if out is None:
            impl = self._impl
            storage = memo.get(id(impl.storage))
            if storage is None:
                storage = memo[id(impl.storage)] = UntypedStorage(impl.storage.nbytes(), device=_META)
            out = _new_fake(self.fake_mode, storage, impl.sizes, impl.strides, impl.offset, impl.dtype, impl.device)
            if self.requires_grad and self.is_leaf:
                out._impl.autograd = AutogradMeta(requires_grad=True)
            memo[id(self)] = out
        return out

    def __reduce_ex__(self, proto):
        raise DataDependentOutputException("FakeTensor has no data to pickle")

    def __repr__(self, *, tensor_contents=None):
        impl = self._impl
        parts = ["..."]
        if impl.device.type != "cpu":
            parts.append(f"device='{impl.device}'")
        parts.append(f"size={tuple(impl.sizes)}")
        if impl.dtype is not _dt.get_default_dtype():
            parts.append(f"dtype={impl.dtype}")
        if self.requires_grad:
            parts.append("requires_grad=True")
        return f"FakeTensor({', '.join(parts)})"

    __str__ = __repr__


def is_fake(t) -> bool:
    """True for a FakeTensor (PyTorch's ``torch._subclasses.fake_tensor.is_fake``)."""
    return isinstance(t, FakeTensor)


def _find_mode(args, kwargs):
    for a in list(args) + list((kwargs or {}).values()):
        if isinstance(a, FakeTensor):
            return a.fake_mode
        if isinstance(a, (list, tuple)):
            for x in a:
                if isinstance(x, FakeTensor):
                    return x.fake_mode
    raise AssertionError("FakeTensor.__torch_dispatch__ called without a FakeTensor argument")


def _new_fake(mode, storage, sizes, strides, offset, dtype, device, version=None) -> FakeTensor:
    """A fake impl over a meta ``storage`` claiming ``device``, with its pinned FakeTensor facade."""
    impl = TensorImpl(storage, sizes, strides, offset, dtype, device, version)
    impl.key_set |= _PYTHON
    t = object.__new__(FakeTensor)
    t._impl = impl
    t.fake_mode = mode
    impl.pyobj = _Pin(t)
    return t


def _fake_alias(src: TensorImpl, out: TensorImpl) -> None:
    """An alias made outside the dispatcher (``detach()``, a saved output) of a fake is a fake of the same mode."""
    out.key_set = src.key_set
    owner = src.pyobj() if src.pyobj is not None else None
    if isinstance(owner, FakeTensor):
        t = object.__new__(FakeTensor)
        t._impl = out
        t.fake_mode = owner.fake_mode
        out.pyobj = _Pin(t)


def _fake_data_read(impl: TensorImpl) -> None:
    """A fake's (missing) data was read below the Tensor methods (``as_numpy``): the same error as ``item()``."""
    raise DataDependentOutputException(_LOCAL_SCALAR_DENSE)


set_subclass_hooks(_fake_alias, _fake_data_read)


def _meta_twin(impl: TensorImpl) -> TensorImpl:
    """The meta-device impl an operator runs on in place of a fake impl (shares storage and version)."""
    out = TensorImpl(impl.storage, impl.sizes, impl.strides, impl.offset, impl.dtype, _META, impl.version)
    out.is_wrapped_number = impl.is_wrapped_number
    out.autograd = impl.autograd  # kernels that read requires_grad (``_fused_sdp_choice``'s mask gate) see eager's
    return out


# -- the mode -----------------------------------------------------------------------------------------------
class FakeTensorConverter:
    """Real tensors to fakes for one mode (``torch._subclasses.fake_tensor.FakeTensorConverter``).

    Memoised per real TensorImpl (``tensor_memo``), and the fakes of views of one real storage share one meta
    storage, so aliasing among the real tensors survives conversion.
    """

    def __init__(self, *, copy_data: bool = False, export: bool = False):
        self.copy_data = copy_data
        self.export = export
        self.tensor_memo = weakref.WeakKeyDictionary()  # real TensorImpl -> FakeTensor
        self._storage_memo = weakref.WeakKeyDictionary()  # real storage -> meta storage

    def from_real_tensor(self, fake_mode, t: Tensor, make_constant: bool = False, shape_env=None, *, source=None,
                         symbolic_context=None, trace: bool = True) -> FakeTensor:
        if isinstance(t, FakeTensor):
            if t.fake_mode is not fake_mode:
                raise UnsupportedFakeTensorException("Mixing fake modes NYI")
            return t
        impl = t._impl
        out = self.tensor_memo.get(impl)
        if out is None:
            flatten = getattr(type(t), "__tensor_flatten__", None)
            if flatten is not None and type(t) is not Tensor:  # a traceable wrapper subclass: fakes inside it
                out = self._fake_subclass(fake_mode, t)
            else:
                out = self.convert(fake_mode, impl)
            self.tensor_memo[impl] = out
        return out

    def _fake_subclass(self, fake_mode, t: Tensor) -> Tensor:
        """A wrapper subclass (``__tensor_flatten__``/``__tensor_unflatten__``, as TwoTensor) rebuilt over fakes of
        its inner tensors, as PyTorch's converter does: the outer class stays, its data becomes fake."""
        names, ctx = t.__tensor_flatten__()
        inner = {n: self.from_real_tensor(fake_mode, getattr(t, n)) for n in names}
        return type(t).__tensor_unflatten__(inner, ctx, t.size(), t.stride())

    def convert(self, fake_mode, impl: TensorImpl) -> FakeTensor:
        """A new fake of ``impl`` (not memoised: the caller decides)."""
        storage = self.fake_storage(impl.storage)
        out = _new_fake(fake_mode, storage, impl.sizes, impl.strides, impl.offset, impl.dtype, impl.device)
        fimpl = out._impl
        fimpl.is_wrapped_number = impl.is_wrapped_number
        meta = impl.autograd
        if meta is not None and meta.requires_grad:
            fimpl.autograd = AutogradMeta(requires_grad=True)
        if meta is not None and meta.grad is not None:
            fimpl.autograd = fimpl.autograd or AutogradMeta()
            grad = meta.grad._impl if isinstance(meta.grad, Tensor) else meta.grad
            fimpl.autograd.grad = self.from_real_tensor(fake_mode, wrap(grad))._impl
        if impl.base is not None:
            fimpl.base = self.from_real_tensor(fake_mode, wrap(impl.base))._impl
        return out

    def fake_storage(self, storage: UntypedStorage) -> UntypedStorage:
        """The meta storage standing for ``storage`` (one per real storage)."""
        fake = self._storage_memo.get(storage)
        if fake is None:
            fake = self._storage_memo[storage] = UntypedStorage(storage.nbytes(), device=_META)
        return fake


class FakeTensorMode(TorchDispatchMode):
    """Run operators on FakeTensors with meta kernels (``torch._subclasses.fake_tensor.FakeTensorMode``).

    Inside ``with mode:``, operators on fakes give fakes, factories (``zeros``, ``arange``, ``randn`` ...)
    give fakes, and real tensors mixed into an operator are converted with :meth:`from_tensor`.

    Args:
        allow_non_fake_inputs: convert real tensors met in operators (True, the compile stack's need) or
            raise (False, PyTorch's default).
        shape_env: accepted for signature compatibility; shapes are always static here.

    Example:
        >>> import glasstorch as torch
        >>> with FakeTensorMode():
        ...     y = torch.zeros(2, 3) + 1
        >>> type(y).__name__, y.shape
        ('FakeTensor', torch.Size([2, 3]))
    """

    def __init__(self, *, allow_non_fake_inputs=True, allow_fallback_kernels=True, shape_env=None,
                 static_shapes=None, export=False):
        self.allow_non_fake_inputs = allow_non_fake_inputs
        self.shape_env = shape_env
        self.fake_tensor_converter = FakeTensorConverter(export=export)

    # -- conversion --------------------------------------------------------------------------------------
    def from_tensor(self, t: Tensor, *, static_shapes=None, source=None, symbolic_context=None) -> FakeTensor:
        """The fake of a real tensor: same geometry, dtype, device and requires_grad (a leaf), no data.

        Raises:
            UnsupportedFakeTensorException: for a fake of another mode.
        """
        return self.fake_tensor_converter.from_real_tensor(self, t, source=source,
                                                           symbolic_context=symbolic_context)

    def _to_fake_impl(self, t: Tensor) -> TensorImpl:
        impl = t._impl
        if impl.key_set & _PYTHON and isinstance(t, FakeTensor):
            if t.fake_mode is not self:
                raise UnsupportedFakeTensorException("Mixing fake modes NYI")
            return impl
        if impl.is_wrapped_number:  # a Python scalar in tensor form: ephemeral, never memoised
            return self.fake_tensor_converter.convert(self, impl)._impl
        if not self.allow_non_fake_inputs:
            raise AssertionError(f"Please convert all Tensors to FakeTensors first or instantiate FakeTensorMode "
                                 f"with 'allow_non_fake_inputs'. Found in {t!r}")
        return self.from_tensor(t)._impl

    # -- dispatch ----------------------------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.name
        if name in _DYNAMIC_OUTPUT_OPS or (name == "aten::repeat_interleave.Tensor" and
                                           kwargs.get("output_size") is None):
            raise DynamicOutputShapeException(func)
        if name == "aten::index.Tensor" and _has_mask_index(args):  # a mask index is a nonzero (as PyTorch)
            raise DynamicOutputShapeException("aten.nonzero.default")
        call = _FakeCall(self)
        meta_args = call.to_meta(list(args))  # a list: a positional ``device`` is rewritten in place
        meta_kwargs = {k: call.to_meta(v) for k, v in kwargs.items()}
        device = _requested_device(func, meta_args, meta_kwargs)
        if device is None:
            device = call.common_device()
        impl = _FAKE_IMPLS.get(name)
        out = _run_meta(func, meta_args, meta_kwargs) if impl is None else impl(*meta_args, **meta_kwargs)
        call.sync_inputs()
        return call.to_fake(out, device)


class _FakeCall:
    """The bookkeeping of one operator call under a FakeTensorMode: fake impl <-> meta twin."""

    __slots__ = ("mode", "pairs", "by_meta")

    def __init__(self, mode):
        self.mode = mode
        self.pairs = []  # (fake impl, meta twin)
        self.by_meta = {}  # id(meta twin) -> fake impl

    def to_meta(self, value):
        if isinstance(value, Tensor):
            fake = self.mode._to_fake_impl(value)
            twin = _meta_twin(fake)
            self.pairs.append((fake, twin))
            self.by_meta[id(twin)] = fake
            return wrap(twin)
        if isinstance(value, list):  # plain list/tuple: the dispatcher finds keys only in exactly those types (an fx
            return [self.to_meta(v) for v in value]  # graph's immutable_list of tensors would hide every key)
        if isinstance(value, tuple):
            return tuple(self.to_meta(v) for v in value)
        return value

    def common_device(self):
        """PyTorch's common device: the first non-0-dim fake's device, else the first fake's, else the default."""
        for fake, _ in self.pairs:
            if fake.sizes and not fake.is_wrapped_number:
                return fake.device
        for fake, _ in self.pairs:
            if not fake.is_wrapped_number:
                return fake.device
        return self.pairs[0][0].device if self.pairs else as_device("cpu")

    def sync_inputs(self):
        """In-place restrides (``t_``, ``resize_``, ``set_`` ...) changed the twin: carry that to the fake."""
        for fake, twin in self.pairs:
            if twin.sizes != fake.sizes or twin.strides != fake.strides or twin.offset != fake.offset:
                fake.set_geometry(twin.sizes, twin.strides, twin.offset)
            if twin.storage is not fake.storage:
                fake.storage = twin.storage

    def to_fake(self, value, device):
        if isinstance(value, Tensor):
            impl = value._impl
            fake = self.by_meta.get(id(impl))
            if fake is not None:  # an in-place or out= op returned its argument
                return wrap(fake)
            return _new_fake(self.mode, impl.storage, impl.sizes, impl.strides, impl.offset, impl.dtype, device,
                             impl.version)
        if isinstance(value, (list, tuple)):
            return type(value)(self.to_fake(v, device) for v in value)
        return value


def _has_mask_index(args) -> bool:
    indices = args[1] if len(args) > 1 else ()
    return any(isinstance(i, Tensor) and i._impl.dtype in (_dt.bool, _dt.uint8) for i in indices or ())


def _requested_device(func, args, kwargs):
    """For an op with a ``device`` argument: the device asked for; the argument is rewritten to ``meta``."""
    for i, a in enumerate(func._schema.arguments):
        if a.name != "device":
            continue
        if a.kwarg_only:
            dev = kwargs.get("device")
            if dev is not None:
                kwargs["device"] = _META
        else:
            dev = args[i] if i < len(args) else None
            if dev is not None:
                args[i] = _META
        if dev is None:
            if _has_tensor(args):
                return None
            if a.kwarg_only or i >= len(args):  # a factory on the default device: its data is not made either
                kwargs["device"] = _META
            else:
                args[i] = _META
            return as_device("cpu")
        return _with_index(as_device(dev))
    return None


def _with_index(dev):
    """``emu`` -> ``emu:0`` (the current device), as the device's allocator names the storages it makes."""
    if dev.index is not None or dev.type in ("cpu", "meta"):
        return dev
    return UntypedStorage(0, device=dev).device


def _has_tensor(args) -> bool:
    return any(isinstance(a, Tensor) or (isinstance(a, (list, tuple)) and any(isinstance(x, Tensor) for x in a))
               for a in args)


def _run_meta(func, args, kwargs):
    """Run ``func`` on meta twins below the layers the outer call already went through."""
    prev = tls.excluded
    tls.excluded = prev | _BELOW_PYTHON_EXCLUDE
    try:
        return func(*args, **kwargs)
    except NotImplementedError as e:
        if "register_meta function for torch.nonzero()" in str(e):  # a mask met a count-dependent operand
            raise DynamicOutputShapeException("aten.nonzero.default") from e
        raise UnsupportedOperatorException(func) from e
    except RuntimeError as e:
        if "cannot be called on meta tensors" in str(e):
            raise DataDependentOutputException(func) from e
        raise
    finally:
        tls.excluded = prev


# -- operators whose meta result the mode computes itself (PyTorch's fake_impls / meta_registrations) -----------
def _nonzero_static(self, *, size, fill_value=-1, out=None):
    """``nonzero_static``: the output is ``(size, self.dim())`` int64 whatever the data (its point)."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    shape = (size, len(self.shape))
    if out is None:
        return wrap(empty_impl(shape, _dt.int64, _META))
    if out._impl.dtype is not _dt.int64:
        raise RuntimeError(f"nonzero_static: Expected out tensor to have scalar type Long but got scalar type"
                           f"{out._impl.dtype._short}")
    resize_out(out._impl, shape)
    return out


_FAKE_IMPLS = {"aten::nonzero_static": _nonzero_static, "aten::nonzero_static.out": _nonzero_static}


class unset_fake_temporarily:  # noqa: N801 - PyTorch's name
    """Suspend the active FakeTensorModes inside the block (real tensors are made again)."""

    def __enter__(self):
        stack = mode_stack()
        self.saved = [(i, m) for i, m in enumerate(stack) if isinstance(m, FakeTensorMode)]
        for _, m in reversed(self.saved):
            stack.remove(m)
        _sync_key()
        return self

    def __exit__(self, *exc):
        stack = mode_stack()
        for i, m in self.saved:
            stack.insert(i, m)
        _sync_key()
        return False
