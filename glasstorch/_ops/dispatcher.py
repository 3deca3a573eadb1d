"""The dispatcher — PyTorch's ``aten/src/ATen/core/dispatch/{Dispatcher,OperatorEntry}.cpp``.

Every operator is an :class:`OperatorHandle`: a schema, the kernels registered per dispatch key, and
a dispatch *table* with one entry per runtime key, recomputed on every registration.  A call:

1. ORs together the key sets of the tensor arguments (TensorImpls; Python scalars do not take part);
2. applies the thread-local sets: ``(ks | included) & ~excluded``, and the op's non-fallthrough mask;
3. runs the kernel of the highest key.  Layer kernels (Autograd, ADInplaceOrView, BackendSelect,
   Python, Autocast) are registered ``with_keyset`` and receive the key set *below* themselves, which
   they pass to :meth:`OperatorHandle.redispatch` to continue downwards.

Table entries are resolved as PyTorch's ``computeDispatchTableEntry``: a kernel on the key itself,
else CompositeExplicitAutograd (backends), else CompositeImplicitAutograd (backends, and autograd
keys when the backend has no kernel of its own), else the Autograd alias, else the key's backend
fallback, else "missing" (the NotImplementedError PyTorch raises).  A *fallthrough* entry removes
its key from the op's mask, so dispatch skips it at no cost.

``GLASSTORCH_SHOW_DISPATCH_TRACE=1`` (or ``with show_dispatch_trace():``) prints every hop.

Invariant: ``table[k]`` is a function of the registrations only; calls never mutate dispatcher state.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import warnings

from .._core import dispatch_key as dk
from .._core.dispatch_key import NUM_KEYS, RUNTIME_KEYS, tls
from .schema import FunctionSchema, parse_schema

__all__ = ["OperatorHandle", "Kernel", "FALLTHROUGH", "register_op", "get_op", "find_op", "register_kernel",
           "register_fallback", "show_dispatch_trace", "all_ops", "dispatch_table_dump"]


class Kernel:
    """One registered kernel: the function, whether it takes the key set, and where it came from.

    A *boxed* kernel (backend fallbacks) also receives the OperatorHandle first: ``fn(op, ks, *args)``.
    """

    __slots__ = ("fn", "with_keyset", "label", "boxed")

    def __init__(self, fn, with_keyset=False, label=None, boxed=False):
        self.fn = fn
        self.with_keyset = with_keyset
        self.label = label or getattr(fn, "__qualname__", repr(fn))
        self.boxed = boxed

    def bind(self, op) -> Kernel:
        """The per-operator kernel of a boxed fallback (the op handle bound as first argument)."""
        return Kernel(functools.partial(self.fn, op), self.with_keyset, self.label)

    def __repr__(self):
        return f"Kernel({self.label})"


FALLTHROUGH = Kernel(None, False, "fallthrough")

# Note [Calling a layer kernel]
# Every call and redispatch runs this hop, so it is spelled for CPython's cheapest path: the key set below the
# chosen key comes from a table (no shift and subtract), and ``fn(*((ks,) + args))`` passes one tuple where
# ``fn(ks, *args)`` would build a list, extend it and convert it (measured: ~15% of a redispatch).
_BELOW = tuple((1 << k) - 1 for k in range(NUM_KEYS))  # _BELOW[k]: every runtime key below key k

# Note [Composite kernels run below autograd]
# PyTorch's autograd kernel redispatches under AutoDispatchBelowADInplaceOrView, so the operators that a
# CompositeExplicitAutograd kernel calls (index_put: clone, then index_put_ on the clone) record no graph and bump
# no version: ``torch.index_put(x, i, v)._version`` is 0.  Our generated autograd kernels redispatch without that
# guard, so the table entry of a composite kernel of an operator with an autograd kernel carries it instead.
_BELOW_AUTOGRAD = dk.bit("ADInplaceOrView") | dk.AUTOGRAD_SET


# Note [Sparse kernels run below autograd]
# A sparse kernel computes with operators on its parts and on dense tensors (``aten._to_dense`` then ``aten.mm``).
# Those calls start from the top of the dispatcher, so without a guard they would record a graph of their own under
# the one the operator's autograd kernel records (PyTorch's autograd kernels redispatch under
# AutoDispatchBelowADInplaceOrView for the same reason).
def _below_autograd(kernel: Kernel) -> Kernel:
    """``kernel`` run with autograd and ADInplaceOrView excluded (Note [Composite kernels run below autograd])."""
    fn = kernel.fn

    def below_autograd(*args, **kwargs):
        with dk.ExcludeDispatchKeyGuard(_BELOW_AUTOGRAD):
            return fn(*args, **kwargs)

    return Kernel(below_autograd, kernel.with_keyset, kernel.label)


_TensorImpl = None  # bound by set_tensor_type() to avoid importing the tensor layer's class at import time


class OperatorHandle:
    """An operator in the dispatcher (``c10::OperatorHandle``)."""

    __slots__ = ("name", "schema", "kernels", "table", "mask", "_packet", "__weakref__")

    def __init__(self, schema: FunctionSchema):
        self.schema = schema
        self.name = schema.qualified_name
        self.kernels: dict[str, list] = {}
        self.table: list = [None] * NUM_KEYS
        self.mask = dk.FULL_SET
        self._packet = None

    def __repr__(self):
        return f"<OpOverload {self.name}>"

    # -- calling ----------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        return self.call(*args, **kwargs)

    def call(self, *args, **kwargs):
        """Dispatch from the top: compute the key set of the arguments and run the highest kernel."""
        impl_t = _TensorImpl
        ks = 0
        for a in args:
            t = type(a)
            if t is impl_t:
                ks |= a.key_set
            elif t is list or t is tuple:
                for x in a:
                    if type(x) is impl_t:
                        ks |= x.key_set
        if kwargs:
            for a in kwargs.values():
                if type(a) is impl_t:
                    ks |= a.key_set
        state = tls
        ks = ((ks | state.included) & ~state.excluded | 1) & self.mask  # bit 0: Undefined, the floor
        if _trace_enabled:
            return _traced(self, "call", ks, args, kwargs)
        key = ks.bit_length() - 1
        k = self.table[key]
        if k is None:
            raise _missing(self, key)
        if kwargs:
            return k.fn(_BELOW[key] & ks, *args, **kwargs) if k.with_keyset else k.fn(*args, **kwargs)
        if k.with_keyset:
            return k.fn(*((_BELOW[key] & ks,) + args))  # Note [Calling a layer kernel]
        return k.fn(*args)

    def redispatch(self, ks, *args, **kwargs):
        """Continue dispatch with an explicit key set (already masked below the calling layer)."""
        ks &= self.mask
        if _trace_enabled:
            return _traced(self, "redispatch", ks, args, kwargs)
        key = ks.bit_length() - 1
        k = self.table[key]
        if k is None:
            raise _missing(self, key)
        if kwargs:
            return k.fn(_BELOW[key] & ks, *args, **kwargs) if k.with_keyset else k.fn(*args, **kwargs)
        if k.with_keyset:
            return k.fn(*((_BELOW[key] & ks,) + args))  # Note [Calling a layer kernel]
        return k.fn(*args)

    # -- registration -----------------------------------------------------------------------------------
    def register(self, key: str, kernel: Kernel):
        if key not in RUNTIME_KEYS and key not in dk.ALIAS_KEYS:
            raise ValueError(f"unknown dispatch key {key!r} for {self.name}")
        stack = self.kernels.setdefault(key, [])
        if stack and stack[-1] is not FALLTHROUGH and kernel is not FALLTHROUGH and not _quiet_override:
            warnings.warn(f"Overriding a previously registered kernel for the same operator and the same dispatch "
                          f"key\n  operator: {self.name}\n  dispatch key: {key}\n  previous kernel: "
                          f"{stack[-1].label}\n       new kernel: {kernel.label}", UserWarning, stacklevel=3)
        stack.append(kernel)
        self.update_table()

    def deregister(self, key: str, kernel: Kernel):
        stack = self.kernels.get(key, [])
        if kernel in stack:
            stack.remove(kernel)
            self.update_table()

    def has_kernel(self, key: str) -> bool:
        return bool(self.kernels.get(key))

    def update_table(self):
        mask = dk.FULL_SET
        for k in range(NUM_KEYS):
            entry = self._resolve(RUNTIME_KEYS[k])
            self.table[k] = None if entry is FALLTHROUGH else entry
            if entry is FALLTHROUGH:
                mask &= ~(1 << k)
        self.mask = mask

    def _direct(self, key):
        stack = self.kernels.get(key)
        return stack[-1] if stack else None

    def _resolve(self, key: str):
        """PyTorch's ``computeDispatchTableEntryWithDebug`` for one runtime key."""
        k = self._direct(key)
        if k is not None:
            if key in dk.SPARSE_KEYS and k is not FALLTHROUGH:  # Note [Sparse kernels run below autograd]
                return _below_autograd(k)
            return k
        is_backend = key in dk.BACKEND_KEYS or key == "Undefined"
        is_autograd = key in dk.AUTOGRAD_KEYS
        if is_backend:
            for alias in ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd",
                          "CompositeImplicitAutograd"):
                k = self._direct(alias)
                if k is not None and alias != "CompositeImplicitAutograd" and k is not FALLTHROUGH and \
                        self._direct("Autograd") is not None:
                    return _below_autograd(k)
                if k is not None:
                    return k
        elif key in dk.SPARSE_KEYS:  # Note [Sparse keys]: decompositions only
            k = self._direct("CompositeImplicitAutograd")
            if k is not None:
                return k
        if is_autograd:
            cia = self._direct("CompositeImplicitAutograd")
            if cia is not None and not self._backend_has_kernel(key):
                return cia
            k = self._direct("Autograd")
            if k is not None:
                return k
        fb = _backend_fallbacks.get(key)
        if fb is not None and self.name in _fallthrough_ops.get(key, ()):
            return FALLTHROUGH  # the op handles what the key's fallback would do (Note [Math bits])
        return fb.bind(self) if fb is not None and fb.boxed else fb

    def _backend_has_kernel(self, autograd_key: str) -> bool:
        backend = autograd_key.removeprefix("Autograd")
        if backend == "Other":
            return False
        sparse = backend == "CPU" and any(self._direct(k) for k in dk.SPARSE_KEYS)  # AutogradCPU covers them
        return bool(self._direct(backend) or sparse or self._direct("CompositeExplicitAutograd")
                    or self._direct("CompositeExplicitAutogradNonFunctional"))

    def available_backends(self) -> list:
        """Keys with a real kernel, PyTorch's "is only available for these backends" list."""
        keys = [k for k, v in self.kernels.items() if v and v[-1] is not FALLTHROUGH]
        return sorted(keys, key=lambda k: (k in dk.ALIAS_KEYS, k))


_backend_fallbacks: dict[str, Kernel] = {}
_fallthrough_ops: dict[str, frozenset] = {}  # per key: the ops that skip its fallback (``m.impl(op, fallthrough)``)
_ops: dict[str, OperatorHandle] = {}
_quiet_override = False


def set_tensor_type(cls) -> None:
    """The tensor layer tells the dispatcher which class carries ``key_set`` (TensorImpl)."""
    global _TensorImpl
    _TensorImpl = cls


def register_op(schema: str | FunctionSchema) -> OperatorHandle:
    """Define an operator (``TORCH_LIBRARY m.def``); redefining the same schema returns the same handle."""
    s = parse_schema(schema) if isinstance(schema, str) else schema
    name = s.qualified_name
    op = _ops.get(name)
    if op is not None:
        if str(op.schema) != str(s):
            raise RuntimeError(f"Tried to register an operator ({s}) with the same name and overload name multiple "
                               f"times. Each overload's schema should only be registered with a single call to "
                               f"def(). Duplicate registration: {op.schema}")
        return op
    op = OperatorHandle(s)
    op.update_table()
    _ops[name] = op
    return op


def deregister_op(name: str) -> None:
    _ops.pop(name, None)


def get_op(name: str) -> OperatorHandle:
    """The handle for ``aten::add.Tensor`` (the namespace defaults to aten)."""
    if "::" not in name:
        name = "aten::" + name
    try:
        return _ops[name]
    except KeyError:
        raise RuntimeError(f"Could not find schema for {name}") from None


def find_op(name: str):
    if "::" not in name:
        name = "aten::" + name
    return _ops.get(name)


def all_ops() -> dict:
    return dict(_ops)


def register_kernel(name: str, key: str, fn, *, with_keyset=False, label=None) -> Kernel:
    """Register ``fn`` for op ``name`` at ``key`` (``TORCH_LIBRARY_IMPL m.impl``); returns the Kernel."""
    kernel = FALLTHROUGH if fn is FALLTHROUGH else Kernel(fn, with_keyset, label)
    get_op(name).register(key, kernel)
    return kernel


def register_fallback(key: str, fn, *, with_keyset=True, label=None, fallthrough_for=frozenset()) -> None:
    """A boxed fallback for every op at ``key`` (``m.fallback``): ``fn(op, keyset, *args)``.

    ``FALLTHROUGH`` makes every op skip the key; ``fallthrough_for`` names the ops (``aten::copy_``) that skip
    it while the others take the fallback (PyTorch's ``m.impl(name, makeFallthrough())`` beside ``m.fallback``),
    whether or not they are registered yet.
    """
    _backend_fallbacks[key] = FALLTHROUGH if fn is FALLTHROUGH else Kernel(fn, with_keyset, label, boxed=True)
    _fallthrough_ops[key] = frozenset(fallthrough_for)
    for op in _ops.values():
        op.update_table()


@contextlib.contextmanager
def quiet_overrides():
    global _quiet_override
    prev, _quiet_override = _quiet_override, True
    try:
        yield
    finally:
        _quiet_override = prev


def _missing(op: OperatorHandle, key: int) -> Exception:
    name = RUNTIME_KEYS[key]
    if name == "Undefined":
        return NotImplementedError(
            f"There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), but no "
            f"fallback function is registered for schema {op.name}.  This usually means that this function requires "
            f"a non-empty list of Tensors, or that you (the operator writer) forgot to register a fallback function."
            f"  Available functions are {op.available_backends()}.")
    backend = "'PrivateUse1'" if name == "PrivateUse1" else f"'{name}'"
    return NotImplementedError(
        f"Could not run '{op.name}' with arguments from the {backend} backend. This could be because the operator "
        f"doesn't exist for this backend, or was omitted during the selective/custom build process (if using "
        f"custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
        f"https://fburl.com/ptmfixes for possible resolutions. '{op.name}' is only available for these backends: "
        f"{op.available_backends()}.")


# -- the dispatch trace --------------------------------------------------------------------------------
_trace_enabled = os.environ.get("GLASSTORCH_SHOW_DISPATCH_TRACE", "0") not in ("", "0")
_trace_stream = None


def _traced(op, how, ks, args, kwargs):
    key = ks.bit_length() - 1
    k = op.table[key] if key >= 0 else None
    depth = tls.trace_depth
    label = "missing" if k is None else k.label
    out = _trace_stream or sys.stderr
    out.write(f"{'  ' * depth}[{how}] op=[{op.name}], key=[{RUNTIME_KEYS[max(key, 0)]}] kernel=[{label}]\n")
    if k is None:
        raise _missing(op, max(key, 0))
    tls.trace_depth = depth + 1
    try:
        if k.with_keyset:
            return k.fn((1 << key) - 1 & ks, *args, **kwargs)
        return k.fn(*args, **kwargs)
    finally:
        tls.trace_depth = depth


@contextlib.contextmanager
def show_dispatch_trace(stream=None):
    """Print every dispatcher hop inside the block: ``[call] op=[aten::add.Tensor], key=[CPU] kernel=[...]``."""
    global _trace_enabled, _trace_stream
    prev = (_trace_enabled, _trace_stream)
    _trace_enabled, _trace_stream = True, stream
    try:
        yield
    finally:
        _trace_enabled, _trace_stream = prev


def dispatch_table_dump(name: str) -> str:
    """The computed table of one op, one line per runtime key (``torch._C._dispatch_dump_table``)."""
    op = get_op(name)
    lines = []
    for k in range(NUM_KEYS - 1, -1, -1):
        entry = op.table[k]
        if not op.mask >> k & 1:
            lines.append(f"{RUNTIME_KEYS[k]}: fallthrough")
        elif entry is not None:
            lines.append(f"{RUNTIME_KEYS[k]}: {entry.label}")
    return "\n".join(lines)
