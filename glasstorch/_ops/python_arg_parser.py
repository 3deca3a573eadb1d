"""Python argument parsing for the generated bindings — PyTorch's ``torch/csrc/utils/python_arg_parser.cpp``.

A :class:`Signatures` object holds the Python signatures of one public name (``add``, ``sum``,
``Tensor.view``), written in PyTorch's binding syntax::

    add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)
    sum(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None)

``parse(args, kwargs)`` tries them in order and returns ``(index, values)`` with every value
converted (Tensors unwrapped to TensorImpls, sizes to tuples, dtypes checked) and defaults filled.
When nothing matches it raises PyTorch's TypeError: the single-signature form names the offending
argument ("argument 'other' (position 2) must be Tensor, not str"); the multi-signature form lists
every signature ("received an invalid combination of arguments - got (Tensor, str), but expected one
of: ...").

Note [Wrapped numbers]: where PyTorch allows a Python number in a Tensor slot (binary arithmetic),
the number travels through the dispatcher *as the Python scalar* instead of a 0-dim "wrapped number"
tensor.  TensorIterator gives it wrapped-number promotion semantics; this saves an allocation per
``x + 1`` and is what PyTorch's own Python-level references (``torch._refs``) do.

Invariant: conversion never copies tensor data; a parse failure never has side effects.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from .._core import dtype as _dt
from .._core.device import as_device, device
from .._device.generator import Generator
from .schema import Type, parse_default, parse_schema

__all__ = ["Signatures", "tensor_class", "set_tensor_class"]

_Tensor = None  # the public Tensor class, bound by the tensor layer (set_tensor_class)
_MISSING = object()


class _Mismatch(Exception):
    """Raised by a converter: the value does not fit this parameter's type."""


def set_tensor_class(cls) -> None:
    global _Tensor
    _Tensor = cls


def tensor_class():
    return _Tensor


# -- converters (value -> converted value, or raise _Mismatch) --------------------------------------------
_PY_SCALARS = (bool, int, float, complex)


def _tensor(v):
    if isinstance(v, _Tensor):
        return v._impl
    raise _Mismatch


def _tensor_or_number(v):
    if isinstance(v, _Tensor):
        return v._impl
    if isinstance(v, _PY_SCALARS):
        return v
    if isinstance(v, np.generic):
        return v.item()
    raise _Mismatch


def _opt(conv):
    def convert(v):
        return None if v is None else conv(v)
    return convert


def _tensor_list(v):
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            if not isinstance(x, _Tensor):
                raise _Mismatch
            out.append(x._impl)
        return out
    raise _Mismatch


def _opt_tensor_list(v):
    if isinstance(v, (list, tuple)):
        return [None if x is None else _tensor(x) for x in v]
    raise _Mismatch


def _int(v):
    if isinstance(v, bool):
        raise _Mismatch
    if type(v) is int:
        return v
    if isinstance(v, _Tensor):
        if v._impl.numel() == 1 and v._impl.dtype._cat <= _dt.INT_CAT and v._impl.dtype is not _dt.bool:
            return v.__index__()
        raise _Mismatch
    try:
        return operator.index(v)
    except TypeError:
        raise _Mismatch from None


def _int_list(size):
    def convert(v):
        if isinstance(v, (list, tuple)):
            return tuple(_int(x) for x in v)
        if size is not None and not isinstance(v, bool):
            return (_int(v),) * size
        raise _Mismatch
    return convert


def _float(v):
    if isinstance(v, (float, int)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, np.floating | np.integer):
        return float(v)
    if isinstance(v, _Tensor) and v._impl.numel() == 1:
        return float(v)
    raise _Mismatch


def _bool(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, _Tensor) and v._impl.numel() == 1 and v._impl.dtype is _dt.bool:
        return bool(v)
    raise _Mismatch


def _scalar(v):
    if isinstance(v, _PY_SCALARS):
        return v
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, _Tensor) and v._impl.numel() == 1 and v._impl.ndim == 0:
        return v.item()
    if isinstance(v, numbers.Number):
        return v
    raise _Mismatch


def _str(v):
    if isinstance(v, str):
        return v
    raise _Mismatch


def _dtype(v):
    if isinstance(v, _dt.dtype):
        return v
    if v in (float, int, bool, complex):
        return {float: _dt.float64, int: _dt.int64, bool: _dt.bool, complex: _dt.complex128}[v]
    raise _Mismatch


def _device(v):
    if isinstance(v, device):
        return v
    if isinstance(v, (str, int)) and not isinstance(v, bool):
        return as_device(v)
    raise _Mismatch


def _any(v):
    return v


def _generator(v):
    if isinstance(v, Generator):
        return v
    raise _Mismatch


_BASE_CONVERTERS = {
    "Tensor": _tensor, "int": _int, "SymInt": _int, "float": _float, "bool": _bool, "Scalar": _scalar, "str": _str,
    "ScalarType": _dtype, "Device": _device, "Layout": _any, "MemoryFormat": _any, "Generator": _generator, "Any": _any,
    "Dimname": _str, "Storage": _any, "Stream": _any,
}

_PY_TYPE_NAMES = {
    "Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool", "Scalar": "Number",
    "str": "str", "ScalarType": "torch.dtype", "Device": "torch.device", "Layout": "torch.layout",
    "MemoryFormat": "torch.memory_format", "Generator": "torch.Generator", "Dimname": "name",
}


def _converter(t: Type, numbers_as_tensors: bool):
    if t.base == "Tensor" and t.is_list:
        inner_opt = "?" in t.suffixes[:-1] if not t.is_optional else "?" in t.suffixes[:-2]
        conv = _opt_tensor_list if inner_opt else _tensor_list
    elif t.is_list:
        conv = _int_list(t.list_size) if t.base in ("int", "SymInt") else _list_of(_BASE_CONVERTERS[t.base])
    elif t.base == "Tensor" and numbers_as_tensors:
        conv = _tensor_or_number
    else:
        conv = _BASE_CONVERTERS[t.base]
    return _opt(conv) if t.is_optional else conv


def _list_of(conv):
    def convert(v):
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        raise _Mismatch
    return convert


def _type_name(t: Type) -> str:
    if t.base == "Tensor" and t.is_list:
        return "tuple of Tensors"
    if t.is_list:
        return f"tuple of {_PY_TYPE_NAMES.get(t.base, t.base)}s"
    return _PY_TYPE_NAMES.get(t.base, t.base)


def _value_type_name(v) -> str:
    if _Tensor is not None and isinstance(v, _Tensor):
        return "Tensor"
    if isinstance(v, (tuple, list)):
        return f"{type(v).__name__} of {', '.join(_value_type_name(x) for x in v)}" if v else type(v).__name__
    if isinstance(v, _dt.dtype):
        return "torch.dtype"
    return type(v).__name__


class _Param:
    __slots__ = ("name", "type", "conv", "default", "kwarg_only", "required")

    def __init__(self, arg, numbers_as_tensors):
        self.name = arg.name
        self.type = arg.type
        self.conv = _converter(arg.type, numbers_as_tensors)
        self.kwarg_only = arg.kwarg_only
        # As in PyTorch's parser, an optional type without a default is still a required argument.
        self.required = arg.default is None
        self.default = _MISSING if arg.default is None else parse_default(arg.default, arg.type)

    def describe(self) -> str:
        text = f"{_type_name(self.type)} {self.name}"
        if self.default is not _MISSING:
            d = self.default
            shown = "None" if d is None else (str(list(d)).replace("[", "(").replace("]", ")") if isinstance(d, tuple)
                                              else str(d))
            text += f" = {shown}"
        return text


class _Signature:
    __slots__ = ("name", "params", "positional", "by_name", "varargs", "text", "n")

    def __init__(self, name, text, numbers_as_tensors, is_method):
        schema = parse_schema(_as_schema(text))
        self.name = name
        self.params = [_Param(a, numbers_as_tensors) for a in schema.arguments]
        self.positional = [p for p in self.params if not p.kwarg_only]
        self.by_name = {p.name: i for i, p in enumerate(self.params)}
        self.n = len(self.params)
        # f(2, 3) for f(int[] size): an int list as the only positional parameter takes varargs
        self.varargs = len(self.positional) == 1 and self.positional[0].type.is_list and \
            self.positional[0].type.base in ("int", "SymInt")
        self.text = text

    def describe(self) -> str:
        parts, star = [], False
        for p in self.params:
            if p.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(p.describe())
        return "(" + ", ".join(parts) + ")"

    def bind(self, args, kwargs):
        """Converted values in parameter order, or raise _Mismatch / _Failure with details."""
        params = self.params
        out = [_MISSING] * self.n
        npos = len(self.positional)
        if self.varargs and args and (len(args) > 1 or not isinstance(args[0], (list, tuple))):
            args = (tuple(args),)  # view(2, 3) and view(6) as view((2, 3)) and view((6,))
        if len(args) > npos:
            raise _Failure(f"takes {npos} positional argument{'' if npos == 1 else 's'} but {len(args)} were given",
                           None)
        for i, v in enumerate(args):
            p = params[i]
            try:
                out[i] = p.conv(v)
            except _Mismatch:
                raise _Failure("type", (i, p, v)) from None
        for k, v in kwargs.items():
            i = self.by_name.get(k)
            if i is None:
                raise _Failure(f"got an unexpected keyword argument '{k}'", None)
            if out[i] is not _MISSING:
                raise _Failure(f"got multiple values for argument '{k}'", None)
            p = params[i]
            try:
                out[i] = p.conv(v)
            except _Mismatch:
                raise _Failure("type", (i, p, v)) from None
        for i in range(self.n):
            if out[i] is _MISSING:
                d = params[i].default
                if d is _MISSING:
                    raise _Failure(f"missing required argument '{params[i].name}'", None)
                out[i] = d
        return out


class _Failure(Exception):
    def __init__(self, what, detail):
        self.what = what
        self.detail = detail


def _as_schema(text: str) -> str:
    """A Python signature written as a schema with a dummy return, so one parser serves both."""
    return text if "->" in text else text + " -> Tensor"


class Signatures:
    """The overloads of one Python-visible name, tried in order (``PythonArgParser``)."""

    __slots__ = ("name", "sigs", "is_method")

    def __init__(self, name: str, texts: list, *, numbers_as_tensors=False, is_method=False):
        self.name = name
        self.is_method = is_method
        self.sigs = [_Signature(name, t, numbers_as_tensors, is_method) for t in texts]

    def parse(self, args, kwargs):
        failures = []
        for i, sig in enumerate(self.sigs):
            try:
                return i, sig.bind(args, kwargs)
            except _Failure as f:
                failures.append(f)
        raise self._error(args, kwargs, failures)

    def _error(self, args, kwargs, failures) -> TypeError:
        name = self.name
        if len(self.sigs) == 1:
            f = failures[0]
            if f.what == "type":
                i, p, v = f.detail
                where = f"argument '{p.name}'" + (f" (position {i + 1})" if not p.kwarg_only and
                                                  i < len(args) else "")
                return TypeError(f"{name}(): {where} must be {_type_name(p.type)}, not {_value_type_name(v)}")
            if f.what.startswith(("got an unexpected", "got multiple", "takes ")):
                return TypeError(f"{name}() {f.what}")
            if f.what.startswith("missing"):
                missing = [p for p in self.sigs[0].params if p.default is _MISSING]
                missing = missing[len(args):]
                # PyTorch's message, including its plural quirk ("1 required positional arguments")
                return TypeError(f"{name}() missing {len(missing)} required positional argument"
                                 f"{'s' if len(missing) == 1 else ''}: "
                                 f"{', '.join(chr(34) + p.name + chr(34) for p in missing)}")
        got = ", ".join(_value_type_name(a) for a in args)
        if kwargs:  # PyTorch's formatting quirk: keywords alone are followed by ", "
            kw = ", ".join(f"{k}={_value_type_name(v)}" for k, v in kwargs.items())
            got = f"{got}, {kw}" if args else f"{kw}, "
        if len(self.sigs) == 1:
            return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected "
                             f"{self.sigs[0].describe()}")
        lines = [f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:"]
        lines += [f" * {s.describe()}" for s in self.sigs]
        return TypeError("\n".join(lines) + "\n")
