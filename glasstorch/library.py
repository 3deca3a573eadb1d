"""``glasstorch.library`` — define custom operators and register their kernels (PyTorch's ``torch/library.py``).

Two shapes, as in PyTorch:

* the low-level ``Library(ns, "DEF" | "IMPL" | "FRAGMENT")`` with ``define(schema)`` and
  ``impl(name, fn, dispatch_key)``; registrations are undone when the Library is garbage-collected;
* the high-level ``@custom_op("ns::name", mutates_args=())`` that infers the schema from type hints
  and returns a :class:`CustomOpDef` with ``register_fake``, ``register_kernel`` and
  ``register_autograd``.

Kernels registered here are Python functions of public Tensors: the dispatcher hands them TensorImpls,
which are wrapped on the way in and unwrapped on the way out.

Example:
    >>> @custom_op("mylib::twice", mutates_args=())
    ... def twice(x: Tensor) -> Tensor:
    ...     return x * 2
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import typing
import weakref

from ._core import thread_state
from ._core.dispatch_key import ALIAS_KEYS, RUNTIME_KEYS
from ._ops import dispatcher as _dispatcher
from ._ops.schema import parse_schema
from ._ops_namespace import OpOverload, to_impls, to_tensors
from .autograd.function import Function
from .tensor import Tensor

__all__ = ["Library", "define", "impl", "custom_op", "register_fake", "register_kernel", "register_autograd",
           "CustomOpDef", "infer_schema", "get_kernel"]

_RESERVED = {"aten", "prim", "prims", "_refs", "_decomp"}
_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "emu": "PrivateUse1", None: "CompositeExplicitAutograd"}
_libraries: dict[str, Library] = {}


def _boxed_python_kernel(fn):
    """Adapt a kernel of public Tensors to the dispatcher's TensorImpl calling convention."""
    def kernel(*args):
        return to_impls(fn(*to_tensors(list(args))))
    kernel.__qualname__ = getattr(fn, "__qualname__", repr(fn))
    return kernel


class Library:
    """A namespace of custom operators (``torch.library.Library``)."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError("Unsupported kind: ", kind)
        if ns in _RESERVED and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        if kind == "DEF" and ns in _libraries and _libraries[ns]._alive:
            raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put "
                               f"all of your definitions in a single TORCH_LIBRARY block.")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defined: list[str] = []
        self._impls: list[tuple] = []
        self._alive = True
        if kind == "DEF":
            _libraries[ns] = self
        weakref.finalize(self, Library._cleanup, self._defined, self._impls)

    @staticmethod
    def _cleanup(defined, impls):
        for name, key, kernel in impls:
            op = _dispatcher.find_op(name)
            if op is not None:
                op.deregister(key, kernel)
        for name in defined:
            _dispatcher.deregister_op(name)

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Declare ``name(args) -> returns`` in this namespace; returns the op's name."""
        if self.kind == "IMPL":
            raise RuntimeError("define() is not allowed on an IMPL library")
        s = parse_schema(schema if "::" in schema.split("(")[0] else f"{self.ns}::{schema}")
        op = _dispatcher.register_op(s)
        self._defined.append(op.name)
        return s.name.split("::")[-1]

    def impl(self, op_name, fn, dispatch_key: str = "", *, with_keyset: bool = False):
        """Register ``fn`` (a function of public Tensors) for ``op_name`` at ``dispatch_key``."""
        name = op_name._handle.name if isinstance(op_name, OpOverload) else op_name
        if "::" not in name:
            name = f"{self.ns}::{name}"
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        if key not in RUNTIME_KEYS and key not in ALIAS_KEYS:
            raise ValueError(f"unknown dispatch key {key!r}")
        kernel = _dispatcher.register_kernel(name, key, _boxed_python_kernel(fn), with_keyset=with_keyset,
                                             label=getattr(fn, "__qualname__", None))
        self._impls.append((name, key, kernel))

    def _destroy(self):
        Library._cleanup(self._defined, self._impls)
        self._alive = False


@contextlib.contextmanager
def _scoped_library(*args, **kwargs):
    """A :class:`Library` for a ``with`` block, destroyed (its registrations undone) when the block ends."""
    lib = Library(*args, **kwargs)
    try:
        yield lib
    finally:
        lib._destroy()


def define(qualname: str, schema: str, *, lib: Library | None = None, tags=()) -> None:
    ns, name = qualname.split("::")
    lib = lib or _fragment(ns)
    lib.define(name + schema)


def _fragment(ns: str) -> Library:
    key = f"__fragment_{ns}"
    lib = _libraries.get(key)
    if lib is None:
        lib = _libraries[key] = Library(ns, "FRAGMENT")
    return lib


def impl(qualname: str, types, func=None, *, lib: Library | None = None):
    """Register a kernel for device type(s) ``types`` ("cpu", "cuda", "meta", or "CompositeImplicitAutograd")."""
    def register(fn):
        ns = qualname.split("::")[0]
        target = lib or _fragment(ns)
        for t in ([types] if isinstance(types, str) or types is None else types):
            target.impl(qualname, fn, _DEVICE_KEYS.get(t, t))
        return fn
    return register(func) if func is not None else register


# -- the high-level API ------------------------------------------------------------------------------------
_HINTS = {Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str"}


def _type_text(hint) -> str:
    if hint in _HINTS:
        return _HINTS[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union and type(None) in args:
        inner = [a for a in args if a is not type(None)][0]
        return _type_text(inner) + "?"
    if origin in (list, typing.List) or origin in (tuple, typing.Tuple):  # noqa: UP006
        elem = _type_text(args[0])
        return f"{elem}[]"
    raise ValueError(f"infer_schema(func): Parameter has unsupported type {hint}")


def infer_schema(fn, *, mutates_args=(), op_name: str | None = None) -> str:
    """A schema string from ``fn``'s type hints (``torch.library.infer_schema``)."""
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    params = []
    for name, p in sig.parameters.items():
        t = _type_text(hints[name])
        if name in mutates_args:
            t = t.replace("Tensor", "Tensor(a!)", 1)
        text = f"{t} {name}"
        if p.default is not inspect.Parameter.empty:
            text += f"={p.default!r}" if not isinstance(p.default, str) else f'="{p.default}"'
        params.append(text)
    ret = hints.get("return", type(None))
    if ret is type(None):
        rets = "()"
    elif typing.get_origin(ret) in (tuple, typing.Tuple):  # noqa: UP006
        rets = "(" + ", ".join(_type_text(a) for a in typing.get_args(ret)) + ")"
    else:
        rets = _type_text(ret)
    return f"{op_name or ''}({', '.join(params)}) -> {rets}"


class CustomOpDef:
    """A custom operator made by :func:`custom_op`; call it like a function."""

    def __init__(self, qualname: str, schema: str, fn, device_types=None):
        ns, name = qualname.split("::")
        self._qualname = qualname
        self._lib = Library(ns, "FRAGMENT")
        self._lib.define(name + schema)
        self._opoverload = OpOverload(_dispatcher.get_op(qualname))
        self._backward = None
        self._setup_context = None
        self.register_kernel(device_types)(fn)

    def register_kernel(self, device_types, fn=None):
        def register(f):
            types = [device_types] if isinstance(device_types, str) or device_types is None else device_types
            for t in types:
                self._lib.impl(self._qualname, f, _DEVICE_KEYS.get(t, t))
            return f
        return register(fn) if fn is not None else register

    def register_fake(self, fn):
        """The shape function: runs on meta tensors (``torch.library.register_fake``)."""
        self._lib.impl(self._qualname, fn, "Meta")
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """Make the op differentiable: ``backward(ctx, *grads)`` returns one gradient per input, after
        ``setup_context(ctx, inputs, output)`` saved what it needs (``torch.library.register_autograd``)."""
        self._backward, self._setup_context = backward, setup_context
        _install_autograd(self._lib, self._qualname, backward, setup_context)

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"


# the key set below Autograd, for the forward of the running op
_autograd_state = thread_state.register(threading.local())


def _install_autograd(lib: Library, qualname: str, backward, setup_context) -> None:
    """Register an Autograd-key kernel that runs the op as an ``autograd.Function`` (as PyTorch does: its node
    is ``GeneratedBackwardFor_<ns>_<name>_<overload>Backward``); the forward redispatches below Autograd."""
    handle = _dispatcher.get_op(qualname)
    ns, name = qualname.split("::")
    overload = handle.schema.overload_name or "default"

    def forward(*args):
        return to_tensors(handle.redispatch(_autograd_state.ks, *to_impls(list(args))))

    def setup(ctx, inputs, output):
        if setup_context is not None:
            setup_context(ctx, inputs, output)

    def grads(ctx, *grad_outputs):
        res = backward(ctx, *grad_outputs)
        return res if isinstance(res, tuple) else (res,)

    fn_cls = type(f"GeneratedBackwardFor_{ns}_{name}_{overload}", (Function,), {
        "forward": staticmethod(forward), "setup_context": staticmethod(setup), "backward": staticmethod(grads)})

    def kernel(ks, *args):
        prev = getattr(_autograd_state, "ks", None)
        _autograd_state.ks = ks
        try:
            return fn_cls.apply(*args)
        finally:
            _autograd_state.ks = prev

    kernel.__qualname__ = f"autograd::{qualname}"
    lib.impl(qualname, kernel, "Autograd", with_keyset=True)


def custom_op(name: str, fn=None, /, *, mutates_args, device_types=None, schema: str | None = None):
    """Turn a Python function into a dispatcher operator (``torch.library.custom_op``)."""
    def make(f):
        s = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        return CustomOpDef(name, s, f, device_types)
    return make(fn) if fn is not None else make


def register_fake(op, fn=None, /, *, lib=None):
    target = op if isinstance(op, CustomOpDef) else None

    def register(f):
        if target is not None:
            return target.register_fake(f)
        impl(op, "meta", f, lib=lib)
        return f
    return register(fn) if fn is not None else register


def register_kernel(op, device_types, fn=None, /, *, lib=None):
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, fn)
    return impl(op, device_types, fn, lib=lib)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    if isinstance(op, CustomOpDef):
        return op.register_autograd(backward, setup_context=setup_context)
    qualname = op._handle.name if isinstance(op, OpOverload) else op
    _install_autograd(lib or _fragment(qualname.split("::")[0]), qualname, backward, setup_context)


def get_kernel(op, dispatch_key: str):
    handle = op._handle if isinstance(op, OpOverload) else _dispatcher.get_op(op)
    entry = handle.table[RUNTIME_KEYS.index(dispatch_key)]
    return None if entry is None else entry.fn
