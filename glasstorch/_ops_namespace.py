"""``glasstorch.ops``: every dispatcher operator as a Python object — PyTorch's ``torch/_ops.py``.

``glasstorch.ops.aten.add`` is an :class:`OpOverloadPacket`; ``glasstorch.ops.aten.add.Tensor`` (or
``.default`` for an overload-less op) is an :class:`OpOverload` wrapping one dispatcher handle.  Calling
an OpOverload binds the Python arguments to its schema (positional or keyword, defaults filled),
unwraps Tensors, dispatches from the top and wraps the results — the boxed calling convention that
``__torch_dispatch__`` modes, ``glasstorch.library`` kernels and tracing tools use.

Invariant: ``op._schema`` is the dispatcher's schema; an OpOverload never caches a kernel.
"""

from __future__ import annotations

from ._ops import dispatcher as _dispatcher
from ._ops.schema import parse_default
from .tensor import Tensor, wrap

__all__ = ["ops", "OpOverload", "OpOverloadPacket", "bind_schema", "to_impls", "to_tensors"]


def to_impls(value):
    """Tensors (also inside lists/tuples) to TensorImpls; everything else unchanged."""
    if isinstance(value, Tensor):
        return value._impl
    if isinstance(value, (list, tuple)):
        return type(value)(to_impls(v) for v in value)
    return value


def to_tensors(value):
    """TensorImpls (also inside lists/tuples) to public Tensors; everything else unchanged."""
    if type(value).__name__ == "TensorImpl":
        return wrap(value)
    if isinstance(value, (list, tuple)):
        return type(value)(to_tensors(v) for v in value)
    return value


def bind_schema(schema, args, kwargs) -> list:
    """Python arguments in schema order with defaults filled (raises TypeError like a Python call)."""
    params = schema.arguments
    out = list(args)
    if len(out) > len(params):
        raise TypeError(f"{schema.name}() takes {len(params)} arguments but {len(out)} were given")
    for p in params[len(out):]:
        if p.name in kwargs:
            out.append(kwargs[p.name])
        elif p.default is not None:
            out.append(parse_default(p.default, p.type))
        elif p.type.is_optional:
            out.append(None)
        else:
            raise TypeError(f"{schema.name}() missing required argument '{p.name}'")
    extra = set(kwargs) - {p.name for p in params}
    if extra:
        raise TypeError(f"{schema.name}() got an unexpected keyword argument '{sorted(extra)[0]}'")
    return out


class OpOverload:
    """One overload of an operator, callable with public Tensors (``torch._ops.OpOverload``)."""

    __slots__ = ("_handle", "_schema", "__name__", "_overloadname", "__weakref__")

    def __init__(self, handle):
        self._handle = handle
        self._schema = handle.schema
        self._overloadname = handle.schema.overload_name or "default"
        self.__name__ = f"{handle.schema.name.split('::')[-1]}.{self._overloadname}"

    def __call__(self, *args, **kwargs):
        bound = bind_schema(self._schema, args, kwargs)
        return to_tensors(self._handle.call(*to_impls(bound)))

    def redispatch(self, keyset, *args, **kwargs):
        bound = bind_schema(self._schema, args, kwargs)
        return to_tensors(self._handle.redispatch(keyset, *to_impls(bound)))

    @property
    def name(self) -> str:
        return self._handle.name

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        """The packet of all overloads of this name (``ops.aten.add`` for ``ops.aten.add.Tensor``)."""
        ns, _, rest = self._handle.name.partition("::")
        return getattr(getattr(ops, ns), rest.split(".")[0])

    def __repr__(self):
        ns, _, rest = self._handle.name.partition("::")
        return f"{ns}.{rest.split('.')[0]}.{self._overloadname}"

    def __hash__(self):
        return hash(self._handle.name)

    def __eq__(self, other):
        return isinstance(other, OpOverload) and other._handle is self._handle


class OpOverloadPacket:
    """All overloads of one name: ``ops.aten.add`` (``.Tensor``, ``.out`` ...); calling picks the first that binds."""

    def __init__(self, ns: str, name: str):
        self._ns = ns
        self._name = name

    def _overloads(self) -> dict:
        prefix = f"{self._ns}::{self._name}"
        out = {}
        for qname, handle in _dispatcher.all_ops().items():
            base, _, overload = qname.partition(".")
            if base == prefix:
                out[overload or "default"] = handle
        return out

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__"):
            raise AttributeError(overload)
        handle = self._overloads().get(overload)
        if handle is None:
            raise AttributeError(f"The underlying op of '{self._ns}.{self._name}' has no overload name '{overload}'")
        op = OpOverload(handle)
        setattr(self, overload, op)
        return op

    def overloads(self) -> list:
        return list(self._overloads())

    def __call__(self, *args, **kwargs):
        errors = []
        for _name, handle in self._overloads().items():
            try:
                bound = bind_schema(handle.schema, args, kwargs)
            except TypeError as e:
                errors.append(str(e))
                continue
            return to_tensors(handle.call(*to_impls(bound)))
        raise TypeError(f"no overload of {self._ns}::{self._name} accepts these arguments: {errors}")

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"


class _OpNamespace:
    def __init__(self, ns: str):
        self._ns = ns

    def __getattr__(self, name: str) -> OpOverloadPacket:
        if name.startswith("__"):
            raise AttributeError(name)
        prefix = f"{self._ns}::{name}"
        if not any(q == prefix or q.startswith(prefix + ".") for q in _dispatcher.all_ops()):
            raise AttributeError(f"'_OpNamespace' '{self._ns}' object has no attribute '{name}'")
        packet = OpOverloadPacket(self._ns, name)
        setattr(self, name, packet)
        return packet


class _Ops:
    """``glasstorch.ops``: namespaces created on first access (``ops.aten``, ``ops.mylib``)."""

    def __getattr__(self, ns: str) -> _OpNamespace:
        if ns.startswith("__"):
            raise AttributeError(ns)
        space = _OpNamespace(ns)
        setattr(self, ns, space)
        return space


ops = _Ops()
