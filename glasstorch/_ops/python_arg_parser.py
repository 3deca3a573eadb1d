"""Python argument parsing for the generated bindings — PyTorch's ``torch/csrc/utils/python_arg_parser.cpp``.

A :class:`Signatures` object holds the Python signatures of one public name (``add``, ``sum``,
``Tensor.view``), written in PyTorch's binding syntax::

    add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)
    sum(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None)

``parse(args, kwargs)`` returns ``(index, values)``: the overload that accepts the call and its values,
converted (Tensors unwrapped to TensorImpls, sizes to tuples, dtypes checked) with defaults filled.  It
follows ``FunctionSignature::parse`` step by step, because the errors depend on the order of the steps:

* parameters are visited in order, each taken from the next positional argument or else from the keywords,
  where NumPy's names also work (``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/``x1``
  for ``input``, ``x2`` for ``other``);
* a value's *type check* decides whether an overload fits; some values pass the check and fail later, once
  the overload is chosen ("argument 'size' failed to unpack the object at pos 2 ...": an int list is checked
  on its first element only), and a tensor list with a non-Tensor element fails at once;
* one overload raises its own precise error ("argument 'other' (position 2) must be Tensor, not str",
  "missing 1 required positional arguments", "got an unexpected keyword argument 'foo'"); so does the only
  overload whose argument count fits the call, when all fail; otherwise the "invalid combination of
  arguments" message lists every overload (:mod:`.invalid_arguments`).

Note [Wrapped numbers]: where PyTorch allows a Python number in a Tensor slot (binary arithmetic),
the number travels through the dispatcher *as the Python scalar* instead of a 0-dim "wrapped number"
tensor.  TensorIterator gives it wrapped-number promotion semantics; this saves an allocation per
``x + 1`` and is what PyTorch's own Python-level references (``torch._refs``) do.  A call with numbers
only (``torch.add(2, 3)``) has no tensor for the dispatcher to key on: there the numbers become real
wrapped-number impls (0-dim, ``is_wrapped_number``), as PyTorch makes every such number.

Invariant: conversion never copies tensor data; a parse failure never has side effects.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from .._core import dtype as _dt
from .._core import layout as _layout
from .._core.device import as_device, device
from .._core.shape import Size
from .._core.torch_function import tf_subclass_active
from .._device.generator import Generator
from .._tensor.impl import TensorImpl, from_numpy_impl
from .._tensor.storage import UntypedStorage
from .._tensor.typed_storage import TypedStorage
from .invalid_arguments import format_invalid_args, register_tp_name, tp_name
from .schema import Type, parse_default, parse_schema

__all__ = ["Signatures", "tensor_class", "set_tensor_class", "dtype_arg"]

_Tensor = None  # the public Tensor class, bound by the tensor layer (set_tensor_class)
_MISSING = object()
_warned_deprecated = False  # PyTorch warns about a legacy signature once per process

for _cls, _name in ((_dt.dtype, "torch.dtype"), (device, "torch.device"), (Generator, "torch._C.Generator"),
                    (_layout.layout, "torch.layout"), (_layout.memory_format, "torch.memory_format"),
                    (Size, "torch.Size"), (_dt.finfo, "torch.finfo"), (_dt.iinfo, "torch.iinfo")):
    register_tp_name(_cls, _name)


class _Mismatch(Exception):
    """A converter's verdict: the value fails the parameter's type check."""

    failed_idx = -1


class _FirstElementMismatch(_Mismatch):
    """An int list whose first element is not an int (PyTorch reports it by its index, 0)."""

    failed_idx = 0


class _Unpack(Exception):
    """An int list passed its check (first element) but element ``idx`` does not convert."""

    def __init__(self, idx, obj, error=""):
        self.idx, self.obj, self.error = idx, obj, error


class _NotTensor(Exception):
    """Element ``idx`` of a tensor list is not a Tensor: PyTorch raises this during the check itself."""

    def __init__(self, idx, obj):
        self.idx, self.obj = idx, obj


class _Later(Exception):
    """A conversion error PyTorch raises only once this overload is chosen (``exc``)."""

    def __init__(self, exc):
        self.exc = exc


def set_tensor_class(cls) -> None:
    global _Tensor
    _Tensor = cls
    register_tp_name(cls, "Tensor")


def tensor_class():
    return _Tensor


# -- checks and conversions, one per parameter type (FunctionParameter::check + PythonArgs accessors) ----------
_INT64_MIN, _INT64_MAX, _UINT64_END = -(1 << 63), 1 << 63, 1 << 64


def _is_long(v) -> bool:
    """THPUtils_checkLong: a Python int that is not a bool, or a numpy integer."""
    return (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, np.integer)


def _is_int_or_symint(v) -> bool:
    """A value an int (SymInt) parameter accepts: ints, one-element integral (or bool) tensors, ``__index__``."""
    if _is_long(v):
        return True
    if isinstance(v, bool):
        return False
    if isinstance(v, _Tensor):
        return v._impl.numel() == 1 and v._impl.dtype._cat <= _dt.INT_CAT
    if getattr(type(v), "__index__", None) is None:
        return False
    try:
        operator.index(v)
    except Exception:  # noqa: BLE001 - PyNumber_Index failing for any reason means "not an index"
        return False
    return True


def _zero_dim_no_grad(v) -> bool:
    return v._impl.ndim == 0 and not v.requires_grad


class TorchFunctionOverload(TypeError):
    """A Tensor argument whose subclass takes part in ``__torch_function__``: the binding hands the call to the
    protocol instead of parsing on (``glasstorch/overrides.py``)."""


def _impl_of(v):
    """A Tensor argument's impl, once its type passed the protocol check (exact Tensors pass at once)."""
    if type(v) is not _Tensor and tf_subclass_active(type(v)):
        raise TorchFunctionOverload(type(v).__name__)
    return v._impl



def _tensor(v):
    if isinstance(v, _Tensor):
        return _impl_of(v)
    raise _Mismatch


def _number(v):
    """THPUtils_checkScalar plus the unpacking of ``PythonArgs::scalar``; _Mismatch when not a number."""
    if isinstance(v, (bool, float, complex)):
        return v
    if isinstance(v, int):
        if not _INT64_MIN <= v < _UINT64_END:  # an int64, else a uint64 Scalar
            raise _Later(OverflowError("can't convert negative int to unsigned" if v < 0 else "int too big to convert"))
        return v
    if isinstance(v, np.generic):
        if isinstance(v, np.integer):
            return int(v)
        if isinstance(v, np.complexfloating):
            return complex(v)
        if isinstance(v, (np.floating, np.bool_)):
            return float(v)  # numpy bools unpack as doubles
    raise _Mismatch


def _tensor_or_number(v):
    if isinstance(v, _Tensor):
        return _impl_of(v)
    return _number(v)


_WRAPPED_DTYPES = {bool: _dt.bool, int: _dt.int64, float: _dt.float64, complex: _dt.complex128}


def _number_tensor(v):
    """A number as PyTorch's ``scalar_to_tensor`` makes it: a 0-dim bool, int64, float64 or complex128 tensor."""
    dtype = next(d for cls, d in _WRAPPED_DTYPES.items() if isinstance(v, cls))  # numpy's float64 is a float
    return from_numpy_impl(np.array(v, dtype=dtype.np), dtype)


def _wrapped_number(v):
    """A number in a Tensor slot of a call that has no Tensor at all (``torch.add(2, 3)``): PyTorch's wrapped
    number, a 0-dim tensor that promotes as the Python scalar would (Note [Wrapped numbers])."""
    impl = _number_tensor(v)
    impl.is_wrapped_number = True
    return impl


def _out_tensor_or_number(v):
    """``out=`` where numbers stand in for Tensors: PyTorch wraps the number in a 0-dim tensor (int64,
    float64, ...), so the kernel's output checks speak ("result type Float can't be cast to ... Long")."""
    if isinstance(v, _Tensor):
        return _impl_of(v)
    return _number_tensor(_number(v))


def _scalar(v):
    if isinstance(v, _Tensor):
        if _zero_dim_no_grad(v):
            return v.item()
        raise _Mismatch
    return _number(v)


def _int(v):
    if type(v) is int:
        if not _INT64_MIN <= v < _INT64_MAX:
            raise _Later(ValueError("Overflow when unpacking long long"))
        return v
    if _is_long(v):
        return int(v)
    if isinstance(v, _Tensor) and _zero_dim_no_grad(v) and v._impl.dtype._cat == _dt.INT_CAT:
        return v.item()
    raise _Mismatch


def _symint(v):
    if type(v) is int:
        if not _INT64_MIN <= v < _INT64_MAX:
            raise _Later(ValueError("Overflow when unpacking long long"))
        return v
    if not _is_int_or_symint(v):
        raise _Mismatch
    return v.item() if isinstance(v, _Tensor) else operator.index(v)


def _float(v):
    if isinstance(v, (float, int)):  # PyLong_Check takes bools too
        return float(v)
    if isinstance(v, np.generic) and isinstance(v, (np.number, np.bool_)):
        return float(v.real) if isinstance(v, np.complexfloating) else float(v)
    if isinstance(v, _Tensor) and _zero_dim_no_grad(v):
        return float(v.item().real) if v._impl.dtype.is_complex else float(v.item())
    raise _Mismatch


def _bool(v):
    if type(v) is bool:
        return v
    raise _Mismatch


def _str(v):
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return v.decode()
    raise _Mismatch


def _dtype(v):
    """ScalarType: a dtype or a Python scalar type (Note [Python types as dtypes])."""
    d = _dt.as_scalar_type(v)
    if d is None:
        raise _Mismatch
    return d


def dtype_arg(fname: str, v, pos: int | None = None, name: str = "dtype"):
    """The ``ScalarType?`` argument ``name`` of a hand-written binding ``fname`` (``tensor``, ``Tensor.new_zeros``):
    None, a dtype or a Python scalar type, converted as the generated bindings do; anything else raises the
    parser's TypeError for it (``position`` given when it was passed positionally)."""
    if v is None:
        return None
    d = _dt.as_scalar_type(v)
    if d is None:
        where = "" if pos is None else f" (position {pos})"
        raise TypeError(f"{fname}(): argument '{name}'{where} must be torch.dtype, not {tp_name(v)}")
    return d


def _device(v):
    if isinstance(v, device):
        return v
    if _is_long(v) or isinstance(v, str):
        try:
            return as_device(int(v) if _is_long(v) else v)
        except (RuntimeError, ValueError) as e:
            raise _Later(e) from None
    raise _Mismatch


def _isinstance_of(cls):
    def check(v):
        if isinstance(v, cls):
            return v
        raise _Mismatch
    return check


def _any(v):
    return v


def _tensor_list(v):
    """TENSOR_LIST: a tuple or list of Tensors; a non-Tensor element raises during the check."""
    if not isinstance(v, (list, tuple)):
        raise _Mismatch
    out = []
    for idx, x in enumerate(v):
        if not isinstance(x, _Tensor):
            raise _NotTensor(idx, x)
        out.append(_impl_of(x))
    return out


def _int_list(size):
    """INT_LIST / SYM_INT_LIST: checked on the first element only; every element converted afterwards."""
    def convert(v):
        if isinstance(v, (list, tuple)):
            for x in v:  # the common case: plain ints in range
                if type(x) is not int or not _INT64_MIN <= x < _INT64_MAX:
                    break
            else:
                return tuple(v)
            if not _is_int_or_symint(v[0]):
                raise _FirstElementMismatch
            return tuple(_unpack_index(x, i) for i, x in enumerate(v))
        if size and _is_int_or_symint(v):
            return (_unpack_index(v, 0),) * size
        raise _Mismatch
    return convert


def _unpack_index(x, idx) -> int:
    """THPUtils_unpackIndex for element ``idx`` of an int list (_Unpack when it is not an index)."""
    if type(x) is int:
        if not _INT64_MIN <= x < _INT64_MAX:
            raise _Unpack(idx, x, "Overflow when unpacking long long")
        return x
    try:
        v = operator.index(x)
    except Exception:  # noqa: BLE001 - whatever __index__ raised, PyTorch reports the element's type
        raise _Unpack(idx, x) from None
    if not _INT64_MIN <= v < _INT64_MAX:
        raise _Unpack(idx, x, "Overflow when unpacking long long")
    return v


def _list_of(conv):
    def convert(v):
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        raise _Mismatch
    return convert


_BASE_CONVERTERS = {
    "Tensor": _tensor, "int": _int, "SymInt": _symint, "float": _float, "bool": _bool, "Scalar": _scalar, "str": _str,
    "ScalarType": _dtype, "Device": _device, "Layout": _isinstance_of(_layout.layout),
    "MemoryFormat": _isinstance_of(_layout.memory_format), "Generator": _isinstance_of(Generator), "Any": _any,
    "Dimname": _str, "Storage": _isinstance_of((UntypedStorage, TypedStorage)), "Stream": _any,
}

# FunctionParameter::type_name(): the names PyTorch's messages give each parameter type
_TYPE_NAMES = {
    "Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool", "Scalar": "Number",
    "str": "str", "ScalarType": "torch.dtype", "Device": "torch.device", "Layout": "torch.layout",
    "MemoryFormat": "torch.memory_format", "Generator": "torch.Generator", "Dimname": "name",
    "Storage": "torch.Storage", "Stream": "torch.Stream", "Any": "object",
}
_LIST_TYPE_NAMES = {"Tensor": "tuple of Tensors", "int": "tuple of ints", "SymInt": "tuple of ints",
                    "float": "tuple of floats", "Scalar": "tuple of Scalars", "Dimname": "tuple of names"}


def _tensor_or_wrapped_number(v):
    if isinstance(v, _Tensor):
        return _impl_of(v)
    return _wrapped_number(_number(v))


def _converter(t: Type, numbers_as_tensors, name: str = ""):
    """``numbers_as_tensors``: False, True (a number passes as itself, Note [Wrapped numbers]) or "wrapped" (a
    number becomes a wrapped-number tensor, for kernels that take Tensors only)."""
    if t.base == "Tensor" and numbers_as_tensors and name == "out" and not t.is_list:
        return _out_tensor_or_number
    if t.base == "Tensor" and t.is_list:
        conv = _tensor_list  # Tensor[] and Tensor?[] alike: PyTorch's check wants Tensors in both
    elif t.is_list:
        conv = _int_list(t.list_size) if t.base in ("int", "SymInt") else _list_of(_BASE_CONVERTERS[t.base])
    elif t.base == "Tensor" and numbers_as_tensors == "wrapped":
        conv = _tensor_or_wrapped_number
    elif t.base == "Tensor" and numbers_as_tensors:
        conv = _tensor_or_number
    else:
        conv = _BASE_CONVERTERS[t.base]
    return conv


def _type_name(t: Type) -> str:
    if t.is_list:
        return _LIST_TYPE_NAMES.get(t.base, f"tuple of {_TYPE_NAMES.get(t.base, t.base)}s")
    return _TYPE_NAMES.get(t.base, t.base)


# NumPy's names PyTorch also accepts as keywords (numpy_compatibility_arg_names)
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}


def _default_text(text: str) -> str:
    """A default as PyTorch's messages show it: the C++ default expression of the binding (``{-2,-1}`` for a
    list, ``None`` for an empty one, a string in double quotes, ``at::Reduction::Mean``)."""
    if text.startswith("["):
        inner = text[1:-1].replace(" ", "")
        return "{" + inner + "}" if inner else "None"
    if text[:1] in "'\"":
        return '"' + text[1:-1] + '"'
    return {"Mean": "at::Reduction::Mean", "Sum": "at::Reduction::Sum", "contiguous_format": "torch.contiguous_format"
            }.get(text, text)


class _Param:
    __slots__ = ("name", "type", "conv", "default", "default_text", "kwarg_only", "optional", "allow_none",
                 "numpy_names", "type_name", "size", "is_int_list")

    def __init__(self, arg, numbers_as_tensors):
        self.name = arg.name
        self.type = arg.type
        self.conv = _converter(arg.type, numbers_as_tensors, arg.name)
        self.kwarg_only = arg.kwarg_only
        # PyTorch: a parameter is optional when it has a default; None is allowed for T?, for default None and
        # for an int list whose default is empty (x.amax(None), avg_pool2d(x, 2, None): the default)
        self.optional = arg.default is not None
        int_list = arg.type.is_list and arg.type.base in ("int", "SymInt")
        self.allow_none = arg.type.is_optional or arg.default == "None" or (int_list and arg.default == "[]")
        self.default = None if arg.default is None else parse_default(arg.default, arg.type)
        self.default_text = None if arg.default is None else _default_text(arg.default)
        self.numpy_names = _NUMPY_NAMES.get(arg.name, ())
        self.type_name = _type_name(arg.type)
        self.size = arg.type.list_size or 0
        self.is_int_list = arg.type.is_list and arg.type.base in ("int", "SymInt")

    def describe(self) -> str:
        text = f"{self.type_name} {self.name}"
        if self.optional:
            text += f" = {self.default_text}"
        return text

    def lookup_alias(self, kwargs):
        """The value under one of NumPy's names for this parameter, else _MISSING."""
        for alias in self.numpy_names:
            obj = kwargs.get(alias, _MISSING)
            if obj is not _MISSING:
                return obj
        return _MISSING


class _Signature:
    __slots__ = ("name", "params", "n", "max_pos_args", "min_args", "max_args", "varargs", "hidden", "deprecated",
                 "index", "text", "number_slots")

    def __init__(self, name, text, numbers_as_tensors, index, is_method=False):
        text, _, flag = text.partition("|")
        schema = parse_schema(_as_schema(text))
        self.name = name
        self.index = index
        self.text = text
        self.params = [_Param(a, numbers_as_tensors) for a in schema.arguments]
        self.n = len(self.params)
        self.max_pos_args = sum(not p.kwarg_only for p in self.params)
        self.min_args = sum(not p.optional for p in self.params)
        self.max_args = self.n
        self.deprecated = flag == "deprecated"
        self.hidden = flag in ("deprecated", "hidden")
        # expand(5, 3) for expand((5, 3)): a lone positional int list also takes the positional args themselves
        self.varargs = self.max_pos_args == 1 and self.params[0].is_int_list
        # the Tensor parameters that take numbers too (Note [Wrapped numbers]); a method has its Tensor already
        self.number_slots = [] if is_method else [i for i, p in enumerate(self.params) if p.conv is _tensor_or_number]

    def describe(self) -> str:
        """FunctionSignature::toString: ``(Tensor input, *, torch.dtype dtype = None)``."""
        parts, star = [], False
        for p in self.params:
            if p.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(p.describe())
        return "(" + ", ".join(parts) + ")"

    def bind(self, args, kwargs, raise_exception: bool):
        """Converted values in parameter order; None when the call does not fit (or the error, when asked)."""
        nargs = len(args)
        remaining = len(kwargs) if kwargs else 0
        # (PyTorch also allows it for no arguments at all, where it changes nothing)
        allow_varargs = self.varargs and nargs > 0 and (type(args[0]) is int or (
            not isinstance(args[0], (list, tuple)) and _is_int_or_symint(args[0])))
        if nargs > self.max_pos_args and not allow_varargs:
            return self._fail(raise_exception, self._extra_args, nargs)
        out = [None] * self.n
        later = None
        arg_pos = 0
        for i, p in enumerate(self.params):
            is_kwd = False
            if arg_pos < nargs:
                if p.kwarg_only:
                    return self._fail(raise_exception, self._extra_args, nargs)
                obj = args[arg_pos]
            elif kwargs:
                obj = kwargs.get(p.name, _MISSING)
                if obj is _MISSING and p.numpy_names:
                    obj = p.lookup_alias(kwargs)
                is_kwd = True
            else:
                obj = _MISSING
            if obj is _MISSING:
                if not p.optional:
                    return self._fail(raise_exception, self._missing_args, i)
                out[i] = p.default
                continue
            if obj is None and p.allow_none:
                out[i] = p.default
            else:
                if allow_varargs and arg_pos == 0 and not is_kwd and not isinstance(obj, (list, tuple)) and \
                        not (p.size and _is_int_or_symint(obj)):  # permute(1, 2, 3) as permute((1, 2, 3))
                    try:
                        out[i] = p.conv(args)
                    except _Unpack as u:
                        later = later or _Later(self._unpack_error(p, u))
                    arg_pos = nargs
                    continue
                try:
                    out[i] = p.conv(obj)
                except _Mismatch as m:
                    if raise_exception:
                        raise self._type_error(p, obj, is_kwd, arg_pos, m.failed_idx) from None
                    return None
                except _Unpack as u:
                    later = later or _Later(self._unpack_error(p, u))
                except _Later as e:
                    later = later or e
                except _NotTensor as e:
                    raise TypeError(f"expected Tensor as element {e.idx} in argument {i}, but got "
                                    f"{tp_name(e.obj)}") from None
            if is_kwd:
                remaining -= 1
            else:
                arg_pos += 1
        if remaining > 0:
            return self._fail(raise_exception, self._extra_kwargs, kwargs, nargs)
        if later is not None:
            raise later.exc
        if self.number_slots and not any(type(out[i]) is TensorImpl for i in self.number_slots):
            for i in self.number_slots:
                if out[i] is not None:
                    out[i] = _wrapped_number(out[i])
        return out

    @staticmethod
    def _fail(raise_exception, make_error, *details):
        if raise_exception:
            raise make_error(*details)
        return None

    def _extra_args(self, nargs) -> TypeError:
        if self.min_args != self.max_pos_args:
            return TypeError(f"{self.name}() takes from {self.min_args} to {self.max_pos_args} positional arguments "
                             f"but {nargs} were given")
        n = self.max_pos_args
        return TypeError(f"{self.name}() takes {n} positional argument{'' if n == 1 else 's'} but {nargs} "
                         f"{'was' if nargs == 1 else 'were'} given")

    def _missing_args(self, idx) -> TypeError:
        names = [f'"{p.name}"' for p in self.params[idx:] if not p.optional]
        # PyTorch's plural quirk: "1 required positional arguments", "2 required positional argument"
        return TypeError(f"{self.name}() missing {len(names)} required positional argument"
                         f"{'s' if len(names) == 1 else ''}: {', '.join(names)}")

    def _extra_kwargs(self, kwargs, nargs) -> TypeError:
        by_name = [p.name for p in self.params]
        for key in kwargs:
            if not isinstance(key, str):
                return TypeError("keywords must be strings")
            if key not in by_name:
                return TypeError(f"{self.name}() got an unexpected keyword argument '{key}'")
            if by_name.index(key) < nargs:
                return TypeError(f"{self.name}() got multiple values for argument '{key}'")
        return TypeError("invalid keyword arguments")

    def _type_error(self, p, obj, is_kwd, arg_pos, failed_idx) -> TypeError:
        if is_kwd:
            return TypeError(f"{self.name}(): argument '{p.name}' must be {p.type_name}, not {tp_name(obj)}")
        where = f"{self.name}(): argument '{p.name}' (position {arg_pos + 1}) must be {p.type_name}"
        if failed_idx != -1:
            return TypeError(f"{where}, but found element of type {tp_name(obj[failed_idx])} at pos {failed_idx}")
        return TypeError(f"{where}, not {tp_name(obj)}")

    def _unpack_error(self, p, u: _Unpack) -> TypeError:
        error = u.error or f"type must be {p.type_name},but got {tp_name(u.obj)}"
        return TypeError(f"{self.name}(): argument '{p.name}' failed to unpack the object at pos {u.idx + 1} with "
                         f'error "{error}"')


def _as_schema(text: str) -> str:
    """A Python signature written as a schema with a dummy return, so one parser serves both."""
    return text if "->" in text else text + " -> Tensor"


class Signatures:
    """The overloads of one Python-visible name, tried in order (``PythonArgParser``).

    A signature text may end in ``|hidden`` (never listed in errors) or ``|deprecated`` (also tried last).
    """

    __slots__ = ("name", "sigs", "is_method")

    def __init__(self, name: str, texts: list, *, numbers_as_tensors=False, is_method=False):
        self.name = name
        self.is_method = is_method
        sigs = [_Signature(name, t, numbers_as_tensors, i, is_method) for i, t in enumerate(texts)]
        self.sigs = [s for s in sigs if not s.deprecated] + [s for s in sigs if s.deprecated]

    def parse(self, args, kwargs):
        sigs = self.sigs
        if len(sigs) == 1:
            if self.is_method and not sigs[0].n and (args or kwargs):
                raise self._noargs_error(args, kwargs)
            return 0, sigs[0].bind(args, kwargs, True)
        for sig in sigs:
            out = sig.bind(args, kwargs, False)
            if out is not None:
                if sig.deprecated:
                    self._warn_deprecated(sig)
                return sig.index, out
        raise self._error(args, kwargs)

    def _noargs_error(self, args, kwargs) -> TypeError:
        """A method without parameters is a METH_NOARGS C function in PyTorch: CPython words the error, naming
        the method by its defining class (``x.abs(1)``; a ``*args`` call would say ``Tensor.abs``)."""
        if kwargs:
            return TypeError(f"TensorBase.{self.name}() takes no keyword arguments")
        return TypeError(f"TensorBase.{self.name}() takes no arguments ({len(args)} given)")

    def _warn_deprecated(self, sig) -> None:
        """PyTorch warns once per process, for whichever legacy signature is used first."""
        global _warned_deprecated
        if _warned_deprecated:
            return
        _warned_deprecated = True
        others = "".join(f"\n\t{self.name}{s.describe()}" for s in self.sigs if not s.hidden)
        warnings.warn(f"This overload of {self.name} is deprecated:\n\t{self.name}{sig.describe()}\n"
                      f"Consider using one of the following signatures instead:{others}", UserWarning, stacklevel=4)

    def _error(self, args, kwargs) -> TypeError:
        """PythonArgParser::print_error: the one overload whose argument count fits explains itself; else the
        list of every overload."""
        num_args = len(args) + (len(kwargs) if kwargs else 0)
        plausible = [s for s in self.sigs if s.min_args <= num_args <= s.max_args and not s.hidden]
        if len(plausible) == 1:
            plausible[0].bind(args, kwargs, True)
        options = [s.describe() for s in self.sigs if not s.hidden]
        return TypeError(format_invalid_args(args, kwargs, f"{self.name}()", options))
