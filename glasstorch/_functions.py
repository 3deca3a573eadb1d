"""Public ``glasstorch.*`` functions for tensor creation, random draws and views.

PyTorch counterpart: the ``torch.*`` factory and shape functions (``torch/_C/_VariableFunctions``).
Each parses Python arguments the way PyTorch's argument parser does (varargs sizes or one sequence,
keyword-only ``dtype``/``device``/``requires_grad``/``generator``), then calls the impl-level factory
or view; zeros/ones/empty/full, rand/randn, the ``*_like`` factories and ``split`` run PyTorch's own Python
signatures through ``python_arg_parser`` (so their TypeErrors are PyTorch's word for word, and ``out=`` is
honoured).  Invariant: defaults (dtype inference, the default dtype) are PyTorch's.
"""

from __future__ import annotations

import builtins
import collections.abc
import functools
import math
import operator
import warnings

import numpy as np

from ._core import dtype as _dt
from ._core import shape as _shape
from ._core.device import as_device, factory_device
from ._core.dispatch_key import bit as _dk_bit
from ._core.dispatch_key import tls as _dk_tls
from ._device.generator import Generator, default_generator
from ._ops import dispatcher as _dispatcher
from ._ops import factories as _fac
from ._ops.aten import aten as _aten
from ._ops.invalid_arguments import tp_name
from ._ops.kernels.cpu import random as _rand
from ._ops.python_arg_parser import Signatures as _Signatures
from ._ops.python_arg_parser import TorchFunctionOverload, dtype_arg
from ._tensor.impl import TensorImpl, empty_strided_impl
from .overrides import _binding_fallback
from .tensor import Tensor, _finish, _subclass_protocol, parse_size, preserve_format, wrap

__all__ = [
    "tensor", "as_tensor", "from_numpy", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "empty_strided", "arange", "range", "linspace", "logspace", "eye", "rand", "randn",
    "randint", "randperm", "normal", "bernoulli", "rand_like", "randn_like", "randint_like", "manual_seed", "seed",
    "initial_seed", "get_rng_state", "set_rng_state", "is_tensor", "is_storage", "numel", "is_floating_point",
    "is_inference", "is_complex", "is_conj", "is_neg",
    "result_type", "promote_types", "can_cast", "split", "broadcast_shapes", "detach",
    "default_generator", "Generator", "adjoint",
]


_PYTHON_KEY = _dk_bit("Python")


def _dtype_or_default(dtype):
    return _dt.get_default_dtype() if dtype is None else dtype


def _new(impl, requires_grad):
    if _dk_tls.included & _PYTHON_KEY:  # a dispatch mode is active: it sees the fresh tensor (PyTorch's lift_fresh)
        impl = _dispatcher.get_op("aten::lift_fresh").call(impl)
    return _finish(impl, requires_grad)


# -- from data -------------------------------------------------------------------------------------------

def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new tensor holding a copy of ``data`` (PyTorch's dtype inference).

    Example:
        >>> tensor([1, 2.5]).dtype
        torch.float32
    """
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    return _new(_fac.tensor_impl(data, dtype_arg("tensor", dtype), factory_device(device)), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Share ``data``'s memory when it is a tensor or numpy array of the right dtype; copy otherwise."""
    dtype = dtype_arg("as_tensor", dtype)
    if isinstance(data, Tensor):
        if dtype is None and device is None:
            return data
        return data.to(dtype=dtype, device=device)
    if isinstance(data, np.ndarray) and factory_device(device).type == "cpu":
        out = from_numpy(data)
        return out if dtype is None or dtype is out.dtype else out.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False) -> Tensor:
    dtype = dtype_arg("asarray", dtype)
    if copy:
        out = tensor(obj, dtype=dtype, device=device)
    else:
        out = as_tensor(obj, dtype=dtype, device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def from_numpy(ndarray) -> Tensor:
    """A tensor sharing memory with ``ndarray`` (writes in either are seen by both)."""
    return wrap(_fac.numpy_impl(ndarray))


# -- filled factories --------------------------------------------------------------------------------------

# PyTorch's Python signatures of the factories (the parser gives their TypeErrors word for word)
_OPTIONS = ("ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
            "bool requires_grad=False")
_SIGS = {
    "zeros": _Signatures("zeros", [f"zeros(SymInt[] size, *, Tensor? out=None, {_OPTIONS})"]),
    "ones": _Signatures("ones", [f"ones(SymInt[] size, *, Tensor? out=None, {_OPTIONS})"]),
    "empty": _Signatures("empty", [f"empty(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor? out=None, "
                                   f"{_OPTIONS})"]),
    "full": _Signatures("full", [f"full(SymInt[] size, Scalar fill_value, *, Tensor? out=None, {_OPTIONS})"]),
    "rand": _Signatures("rand", [f"rand(SymInt[] size, *, Generator? generator, Tensor? out=None, {_OPTIONS})",
                                 f"rand(SymInt[] size, *, Tensor? out=None, {_OPTIONS})"]),
    "randn": _Signatures("randn", [f"randn(SymInt[] size, *, Generator? generator, Tensor? out=None, {_OPTIONS})",
                                   f"randn(SymInt[] size, *, Tensor? out=None, {_OPTIONS})"]),
}
for _name in ("zeros_like", "ones_like", "empty_like"):
    _SIGS[_name] = _Signatures(_name, [f"{_name}(Tensor input, *, MemoryFormat? memory_format=None, {_OPTIONS})"])
_SIGS["full_like"] = _Signatures("full_like", [f"full_like(Tensor input, Scalar fill_value, *, "
                                               f"MemoryFormat? memory_format=None, {_OPTIONS})"])
_SIGS["split"] = _Signatures("split", ["split(Tensor input, SymInt split_size, int dim=0)",
                                       "split(Tensor input, SymInt[] split_size, int dim=0)"])
_SIGS["split_with_sizes"] = _Signatures("split_with_sizes", ["split_with_sizes(Tensor input, SymInt[] split_sizes, "
                                                             "int dim=0)"])


# PyTorch's overloads of the hand-written factories whose keyword ``dtype`` is checked by ``_dtype_checked`` (the
# rest of their arguments is parsed by hand)
_OUT_OPTIONS = f"Tensor? out=None, {_OPTIONS}"
_GEN = "Generator? generator, "
_LIKE = f"MemoryFormat? memory_format=None, {_OPTIONS}"
_OVERLOADS = {
    "arange": [f"arange(Scalar end, *, {_OUT_OPTIONS})", f"arange(Scalar start, Scalar end, *, {_OPTIONS})",
               f"arange(Scalar start, Scalar end, Scalar step=1, *, {_OUT_OPTIONS})"],
    "linspace": [f"linspace({a} start, {b} end, int steps, *, {_OUT_OPTIONS})"
                 for a, b in (("Tensor", "Tensor"), ("Scalar", "Tensor"), ("Tensor", "Scalar"), ("Scalar", "Scalar"))],
    "logspace": [f"logspace({a} start, {b} end, int steps, float base=10.0, *, {_OUT_OPTIONS})"
                 for a, b in (("Tensor", "Tensor"), ("Scalar", "Tensor"), ("Tensor", "Scalar"), ("Scalar", "Scalar"))],
    "eye": [f"eye(int n, *, {_OUT_OPTIONS})", f"eye(int n, int m, *, {_OUT_OPTIONS})"],
    "randperm": [f"randperm(int n, *, {_GEN}{_OUT_OPTIONS})", f"randperm(int n, *, {_OUT_OPTIONS})"],
    "randint": [f"randint({lo}int high, SymInt[] size, *, {gen}{_OUT_OPTIONS})"
                for lo in ("", "int low, ") for gen in (_GEN, "")],
    "normal": ["normal(Tensor mean, Tensor std, *, Generator? generator=None, Tensor? out=None)",
               "normal(Tensor mean, float std=1, *, Generator? generator=None, Tensor? out=None)",
               "normal(float mean, Tensor std, *, Generator? generator=None, Tensor? out=None)",
               f"normal(float mean, float std, SymInt[] size, *, Generator? generator=None, {_OUT_OPTIONS})"],
    "rand_like": [f"rand_like(Tensor input, *, {_GEN}{_LIKE})", f"rand_like(Tensor input, *, {_LIKE})"],
    "randn_like": [f"randn_like(Tensor input, *, {_GEN}{_LIKE})", f"randn_like(Tensor input, *, {_LIKE})"],
    "randint_like": [f"randint_like(Tensor input, {args}, *, {gen}{_LIKE})"
                     for args in ("int low, int high", "Tensor high", "int high") for gen in (_GEN, "")],
}


def _dtype_checked(fn):
    """A hand-written factory whose ``dtype`` keyword is converted as the parser's ScalarType (Note [Python types
    as dtypes]); a value that is no dtype raises the parser's error over PyTorch's overloads of the name."""
    sigs = _Signatures(fn.__name__, _OVERLOADS[fn.__name__])

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        dtype = kwargs.get("dtype")
        if dtype is not None and type(dtype) is not _dt.dtype:
            converted = _dt.as_scalar_type(dtype)
            if converted is None:
                sigs.parse(args, kwargs)  # raises: the dtype fits none of them
            kwargs["dtype"] = converted
        return fn(*args, **kwargs)
    return checked


def _into_out(out, sizes, dtype, device, requires_grad, fill):
    """A factory's ``out=``: the tensor is resized to ``sizes`` and filled (``fill(tensor)``), then returned."""
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"dtype {dtype._short} does not match dtype of out parameter ({out.dtype._short})")
    if device is not None and device.type != out.device.type:
        raise RuntimeError(f"device type {device.type} does not match device type of out parameter "
                           f"({out.device.type})")
    t = wrap(out)
    if t.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if out.sizes != sizes:  # ``out.resize_(sizes)``: factories resize without the out= deprecation warning
        need = (out.offset + _shape.prod(sizes)) * out.dtype.itemsize
        if need > out.storage.nbytes():
            out.storage.resize_(need)
        out.set_geometry(sizes, _shape.contiguous_strides(sizes), out.offset)
    fill(t)
    return t.requires_grad_() if requires_grad else t


def _filled(fname, value, size, out, dtype, device, requires_grad):
    sizes = tuple(size)
    if value is not None and any(d < 0 for d in sizes):
        raise RuntimeError(f"{fname}: Dimension size must be non-negative.")
    if out is not None:
        return _into_out(out, sizes, dtype, device, requires_grad,
                         (lambda t: t) if value is None else (lambda t: t.fill_(value)))
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    device = factory_device(device)
    if value is None:
        return _new(_fac.empty_impl(sizes, dtype, device), requires_grad)
    return _new(_fac.full_impl(sizes, value, dtype, device), requires_grad)


def _plain_sizes(args, kwargs) -> bool:
    """``f(2, 3)``: exact int64 ints, no keywords: what the parser would return unchanged (it is skipped)."""
    return not kwargs and bool(args) and all([type(v) is builtins.int and -(1 << 63) <= v < (1 << 63) for v in args])


def zeros(*args, **kwargs) -> Tensor:
    """A tensor of zeros; ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``."""
    if _plain_sizes(args, kwargs):
        return _filled("zeros", 0, args, None, None, None, False)
    size, out, dtype, _layout, device, _pin, requires_grad = _SIGS["zeros"].parse(args, kwargs)[1]
    return _filled("zeros", 0, size, out, dtype, device, requires_grad)


def ones(*args, **kwargs) -> Tensor:
    if _plain_sizes(args, kwargs):
        return _filled("ones", 1, args, None, None, None, False)
    size, out, dtype, _layout, device, _pin, requires_grad = _SIGS["ones"].parse(args, kwargs)[1]
    return _filled("ones", 1, size, out, dtype, device, requires_grad)


def empty(*args, **kwargs) -> Tensor:
    """Uninitialised memory of the given shape."""
    if _plain_sizes(args, kwargs):
        return _filled("empty", None, args, None, None, None, False)
    size, memory_format, out, dtype, _layout, device, _pin, requires_grad = _SIGS["empty"].parse(args, kwargs)[1]
    if memory_format is None:
        return _filled("empty", None, size, out, dtype, device, requires_grad)
    if out is not None:
        raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor argument")
    sizes = tuple(size)
    impl = _fac.empty_impl(sizes, _dtype_or_default(dtype), factory_device(device))
    impl.set_geometry(sizes, _shape.memory_format_strides(sizes, memory_format), 0)
    return _new(impl, requires_grad)


def full(*args, **kwargs) -> Tensor:
    """A tensor filled with ``fill_value``; its dtype is inferred from the value when not given."""
    size, fill_value, out, dtype, _layout, device, _pin, requires_grad = _SIGS["full"].parse(args, kwargs)[1]
    sizes = tuple(size)
    if out is not None:
        return _into_out(out, sizes, dtype, device, requires_grad, lambda t: t.fill_(fill_value))
    if dtype is None:
        dtype = _dt.scalar_dtype(fill_value)
    return _new(_fac.full_impl(sizes, fill_value, dtype, factory_device(device)), requires_grad)


def _number_arg(fname, value, pos, argname="fill_value"):
    """The argument parser's ``Scalar``: a Python/numpy number or a 0-dim tensor (read with ``item()``)."""
    if isinstance(value, Tensor) and value.dim() == 0:
        return value.item()
    if isinstance(value, np.generic) and isinstance(value, (np.number, np.bool_)):
        return value.item()
    if not isinstance(value, (bool, builtins.int, float, complex)):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Number, not {type(value).__name__}")
    if isinstance(value, builtins.int) and not isinstance(value, bool):
        if value < -(1 << 63):
            raise OverflowError("can't convert negative int to unsigned")
        if value >= 1 << 64:
            raise OverflowError("int too big to convert")
    return value


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    dtype = _dtype_or_default(dtype_arg("empty_strided", dtype))
    return _new(empty_strided_impl(tuple(size), tuple(stride), dtype, factory_device(device)),
                requires_grad)


def _like(fname, args, kwargs):
    try:
        values = _SIGS[fname].parse(args, kwargs)[1]
    except TorchFunctionOverload as e:
        return _binding_fallback(e, globals()[fname], args, kwargs)
    if fname == "full_like":
        input, value, memory_format, dtype, _layout, device, _pin, requires_grad = values
    else:
        (input, memory_format, dtype, _layout, device, _pin, requires_grad), value = values, _LIKE_VALUES[fname]
    return _new(_fac.like_impl(input, value, dtype, device, memory_format), requires_grad)


_LIKE_VALUES = {"zeros_like": 0, "ones_like": 1, "empty_like": None}


def zeros_like(*args, **kwargs):
    return _like("zeros_like", args, kwargs)


def ones_like(*args, **kwargs):
    return _like("ones_like", args, kwargs)


def empty_like(*args, **kwargs):
    return _like("empty_like", args, kwargs)


def full_like(*args, **kwargs):
    return _like("full_like", args, kwargs)


# -- ranges ----------------------------------------------------------------------------------------------

def _default_space_dtype(start, end):
    """linspace/logspace without a dtype: the default complex dtype for a complex endpoint, else the float one."""
    if isinstance(start, complex) or isinstance(end, complex):
        return _dt.get_default_complex_dtype()
    return _dt.get_default_dtype()


def _range_result(make, out, dtype, device, requires_grad) -> Tensor:
    """A range factory's result: ``make(dtype, device)``, or with ``out=`` its values written into ``out`` (resized,
    in ``out``'s dtype when none is given) and ``out`` itself returned, as the ``.out`` overloads do."""
    if out is None:
        return _new(make(dtype, factory_device(device)), requires_grad)
    device = None if device is None else as_device(device)
    res = make(out.dtype if dtype is None else dtype, out._impl.device if device is None else device)
    return _into_out(out._impl, res.sizes, dtype, device, requires_grad, lambda t: _fac._copy.copy_(t._impl, res))


@_dtype_checked
def arange(start, end=None, step=1, *, out=None, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    """Values from ``start`` up to (not including) ``end``; length ``ceil((end - start) / step)``.

    The dtype is int64 when start, end and step are all integers (bools count), else the default float
    dtype.  Numbers may be Python/numpy scalars or 0-dim tensors.
    """
    names = (("end", 1),) if end is None else (("start", 1), ("end", 2), ("step", 3))
    if end is None:
        start, end = 0, start
        vals = [0, _number_arg("arange", end, 1, "end"), _number_arg("arange", step, 2, "step")]
    else:
        vals = [_number_arg("arange", v, pos, name) for v, (name, pos) in zip((start, end, step), names, strict=True)]
    if dtype is None and out is None:
        is_int = all(isinstance(v, (builtins.int, np.integer)) for v in vals)
        dtype = _dt.int64 if is_int else _dt.get_default_dtype()
    return _range_result(lambda dt, dev: _fac.arange_impl(*vals, dt, dev), out, dtype, device, requires_grad)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:  # noqa: A001
    """Deprecated inclusive range (``torch.range``): ``end`` is included; default float dtype."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    dtype = _dtype_or_default(dtype_arg("range", dtype))
    if dtype is _dt.bool or dtype.is_complex:
        raise _fac.not_implemented("range_cpu", dtype)
    n = builtins.int(math.floor((end - start) / step)) + 1
    out = _fac.empty_impl((max(n, 0),), dtype, factory_device(device))
    if out.storage._data is not None:
        np.copyto(out.as_numpy(), start + step * np.arange(max(n, 0), dtype=np.float64), casting="unsafe")
    return _new(out, requires_grad)


def _range_endpoint(fname, value, which, pos):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"{fname} only supports 0-dimensional start and end tensors, but got {which} with "
                               f"{value.dim()} dimension(s).")
        return value.item()
    return _number_arg(fname, value, pos, which)


def _steps_arg(fname, start, end, steps):
    if isinstance(steps, bool) or not isinstance(steps, (builtins.int, np.integer, Tensor)):
        _Signatures(fname, _OVERLOADS[fname]).parse((start, end, steps), {})  # raises the parser's TypeError
    return operator.index(steps)


@_dtype_checked
def linspace(start, end, steps, *, out=None, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    Example:
        >>> linspace(0, 10, 7, dtype=int32).tolist()
        [0, 1, 3, 5, 6, 8, 10]
    """
    steps = _steps_arg("linspace", start, end, steps)
    start, end = _range_endpoint("linspace", start, "start", 1), _range_endpoint("linspace", end, "end", 2)
    if dtype is None and out is None:
        dtype = _default_space_dtype(start, end)
    return _range_result(lambda dt, dev: _fac.linspace_impl(start, end, steps, dt, dev), out, dtype, device,
                         requires_grad)


@_dtype_checked
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    """``base ** linspace(start, end, steps)``."""
    steps = _steps_arg("logspace", start, end, steps)
    start, end = _range_endpoint("logspace", start, "start", 1), _range_endpoint("logspace", end, "end", 2)
    if dtype is None and out is None:
        dtype = _default_space_dtype(start, end)
    return _range_result(lambda dt, dev: _fac.logspace_impl(start, end, steps, float(base), dt, dev), out, dtype,
                         device, requires_grad)


def _int_arg(fname, value, name, pos):
    if isinstance(value, Tensor) or isinstance(value, np.integer):
        return operator.index(value)
    if isinstance(value, bool) or not isinstance(value, builtins.int):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not {type(value).__name__}")
    return value


@_dtype_checked
def eye(n, m=None, *, out=None, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    """The ``n x m`` identity matrix."""
    n = _int_arg("eye", n, "n", 1)
    m = n if m is None else _int_arg("eye", m, "m", 2)
    if dtype is None and out is None:
        dtype = _dt.get_default_dtype()
    return _range_result(lambda dt, dev: _fac.eye_impl(n, m, dt, dev), out, dtype, device, requires_grad)


# -- random ----------------------------------------------------------------------------------------------

def _gen(generator, fname="random"):
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"{fname}() received an invalid combination of arguments - got generator of type "
                        f"{type(generator).__name__}, expected torch.Generator")
    return generator


def _random_factory(fname, kernel, params, sizes, generator, out, dtype, device, requires_grad, lead=()):
    """``out=`` samples into ``out`` directly; otherwise the factory operator ``aten::<fname>`` (its ``.generator``
    overload when a generator is given; ``lead``: randint's bounds) builds the tensor, so a dispatch mode sees
    the factory itself, as PyTorch's."""
    if out is not None:
        gen = _gen(generator, fname)
        return _into_out(out, tuple(sizes), dtype, device, requires_grad, lambda t: kernel(t._impl, *params, gen))
    if generator is not None:
        _gen(generator, fname)  # the type check and its message
    op = _factory_op(fname, len(lead), generator is not None)
    gen = (generator,) if generator is not None else ()
    return _finish(op.call(*lead, list(sizes), *gen, dtype, None, factory_device(device), None), requires_grad)


@functools.cache
def _factory_op(fname: str, n_lead: int, with_generator: bool):
    """``aten::rand`` / ``rand.generator`` / ``randint.low`` / ``randint.low_generator`` ... by the call's form."""
    overload = "low" if n_lead == 2 else ""
    if with_generator:
        overload = f"{overload}_generator" if overload else "generator"
    return _dispatcher.get_op(f"aten::{fname}" + (f".{overload}" if overload else ""))


def _sampled(fname, kernel, args, kwargs):
    if _plain_sizes(args, kwargs):
        return _random_factory(fname, kernel, (0.0, 1.0), args, None, None, None, None, False)
    i, values = _SIGS[fname].parse(args, kwargs)
    if i == 0:
        size, generator, out, dtype, _layout, device, _pin, requires_grad = values
    else:
        (size, out, dtype, _layout, device, _pin, requires_grad), generator = values, None
    return _random_factory(fname, kernel, (0.0, 1.0), size, generator, out, dtype, device, requires_grad)


def rand(*args, **kwargs) -> Tensor:
    """Uniform samples in [0, 1) (floating and complex dtypes)."""
    return _sampled("rand", _rand.uniform_, args, kwargs)


def randn(*args, **kwargs) -> Tensor:
    """Standard normal samples."""
    return _sampled("randn", _rand.normal_, args, kwargs)


@_dtype_checked
def randint(*args, size=None, **kwargs) -> Tensor:
    """Integers uniform in ``[low, high)``: ``randint(high, size)`` or ``randint(low, high, size)``; int64 default.

    ``low`` and ``high`` may also come by keyword (``randint(low=1, high=5, size=(3,))``)."""
    args = list(args)
    if "low" in kwargs:
        if "high" not in kwargs or args:
            raise TypeError('randint() missing 2 required positional argument: "high", "size"')
        args = [kwargs.pop("low"), kwargs.pop("high")]
    elif "high" in kwargs:
        args.append(kwargs.pop("high"))
    if size is None:
        if len(args) < 2:
            raise TypeError(f"randint() received an invalid combination of arguments - got {len(args)} positional "
                            "argument(s), expected (high, size) or (low, high, size)")
        size = args.pop()
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"randint(): argument 'size' (position {len(args) + 1}) must be tuple of ints, not "
                            f"{type(size).__name__}")
    names = ("high",) if len(args) == 1 else ("low", "high")
    bounds = [_int_arg("randint", v, name, pos) for pos, (v, name) in enumerate(zip(args, names, strict=True), 1)]
    low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
    generator, dtype, device = kwargs.pop("generator", None), kwargs.pop("dtype", None), kwargs.pop("device", None)
    requires_grad, out = kwargs.pop("requires_grad", False), kwargs.pop("out", None)
    sizes = parse_size((size,), "randint")
    return _random_factory("randint", _rand.random_, (low, high), sizes, generator, None if out is None else out._impl,
                           dtype, device, requires_grad, tuple(bounds))


@_dtype_checked
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 by default)."""
    n = _int_arg("randperm", n, "n", 1)
    if generator is not None:
        _gen(generator, "randperm")  # the type check and its message
    op = _factory_op("randperm", 0, generator is not None)
    gen = (generator,) if generator is not None else ()
    return _finish(op.call(n, *gen, dtype, None, factory_device(device), None), requires_grad)


@_dtype_checked
def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=preserve_format, generator=None):
    out = empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    return out.uniform_(generator=generator).requires_grad_(requires_grad)


@_dtype_checked
def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=preserve_format, generator=None):
    out = empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    return out.normal_(generator=generator).requires_grad_(requires_grad)


@_dtype_checked
def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,
                 memory_format=preserve_format, generator=None):
    if high is None:
        low, high = 0, low
    out = empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    return out.random_(low, high, generator=generator)


@_dtype_checked
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
           requires_grad=False, out=None) -> Tensor:
    """Normal samples: scalar mean/std with ``size``, or elementwise from tensor ``mean``/``std``.

    With a tensor ``mean`` the result has ``mean``'s dtype (else ``std``'s) and the broadcast shape; the tensor
    forms are the ``normal.Tensor_*`` operators (their gradients are zeros, as PyTorch's). ``out=`` is written and
    returned.
    """
    gen = _gen(generator, "normal")
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        kind = ("Tensor" if isinstance(mean, Tensor) else "float") + "_" + ("Tensor" if isinstance(std, Tensor)
                                                                            else "float")
        m = mean._impl if isinstance(mean, Tensor) else float(mean)
        s = std._impl if isinstance(std, Tensor) else float(std)
        if out is not None:
            getattr(_aten, f"normal_{kind}_out")(m, s, generator, out._impl)
            return out
        return wrap(getattr(_aten, f"normal_{kind}")(m, s, generator))
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments - got (float, float), but expected "
                        "a size when mean and std are numbers")
    sizes = parse_size((size,), "normal")
    if out is not None:
        return _into_out(out._impl, tuple(sizes), dtype, None if device is None else as_device(device), requires_grad,
                         lambda t: _rand.normal_(t._impl, float(mean), float(std), gen))
    res = _fac.empty_impl(sizes, _dtype_or_default(dtype), as_device(device))
    _rand.normal_(res, float(mean), float(std), gen)
    return _new(res, requires_grad)


def bernoulli(input, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 samples with probabilities ``input`` (or a scalar ``p``), in ``input``'s dtype; always contiguous."""
    res = _fac.empty_impl(input._impl.sizes, input._impl.dtype, input._impl.device)
    _rand.bernoulli_(res, input._impl.values_np() if p is None else float(p), _gen(generator, "bernoulli"))
    return wrap(res)


def manual_seed(seed) -> Generator:
    """Seed the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


# -- predicates and promotion ---------------------------------------------------------------------------

def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_storage(obj) -> bool:
    return type(obj).__name__ in ("UntypedStorage", "TypedStorage")


def _tensor_input(fname, input):
    """The Tensor argument ``input`` of a hand-written one-tensor binding, or the parser's TypeError for it."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {tp_name(input)}")
    return input


def numel(input) -> int:
    return _tensor_input("numel", input).numel()


def is_floating_point(input) -> bool:
    return _tensor_input("is_floating_point", input).is_floating_point()


def is_inference(input) -> bool:
    """Whether ``input`` was made in inference mode (``torch.is_inference``)."""
    return _tensor_input("is_inference", input).is_inference()


def is_complex(input) -> bool:
    return _tensor_input("is_complex", input).is_complex()


def is_conj(input) -> bool:
    return _tensor_input("is_conj", input).is_conj()


def is_neg(input) -> bool:
    return _tensor_input("is_neg", input).is_neg()


_SIGS["promote_types"] = _Signatures("promote_types", ["promote_types(ScalarType type1, ScalarType type2)"])
_SIGS["can_cast"] = _Signatures("can_cast", ["can_cast(ScalarType from_, ScalarType to)"])


def promote_types(*args, **kwargs) -> _dt.dtype:
    """``torch.promote_types``: dtypes or Python types (``promote_types(int, float)`` is float64).

    Example:
        >>> promote_types(uint8, int8)
        torch.int16
    """
    return _dt.promote_types(*_SIGS["promote_types"].parse(args, kwargs)[1])


def can_cast(*args, **kwargs) -> bool:
    """``torch.can_cast``: whether an in-place or ``out=`` result may be cast ``from_`` one dtype ``to`` another."""
    return _dt.can_cast(*_SIGS["can_cast"].parse(args, kwargs)[1])


_SIGS["result_type"] = _Signatures("result_type", [
    "result_type(Tensor tensor, Tensor other)", "result_type(Scalar scalar, Tensor tensor)",
    "result_type(Tensor tensor, Scalar other)", "result_type(Scalar scalar1, Scalar scalar2)"])


def result_type(*args, **kwargs) -> _dt.dtype:
    """The dtype an elementwise op on these operands computes in (``torch.result_type``): tensors or numbers."""
    operands = _SIGS["result_type"].parse(args, kwargs)[1]
    return _dt.result_type_of([wrap(v) if isinstance(v, TensorImpl) else v for v in operands])


# -- functional views ------------------------------------------------------------------------------------


def split(tensor, split_size_or_sections, dim=0):
    return tensor.split(split_size_or_sections, dim)


def _split_method(self, split_size, dim=0):
    """``Tensor.split`` as PyTorch's ``_tensor.py`` writes it: an int goes to ``split`` (two signatures), anything
    else to ``split_with_sizes``, each parsed with its own Python signatures (and their TypeErrors)."""
    if isinstance(split_size, builtins.int):
        i, (impl, size, d) = _SIGS["split"].parse((self, split_size, dim), None)
        if i == 0:
            return tuple([wrap(v) for v in _aten.split_Tensor(impl, size, d)])
    else:
        impl, size, d = _SIGS["split_with_sizes"].parse((self, split_size, dim), None)[1]
    return tuple([wrap(v) for v in _aten.split_with_sizes(impl, list(size), d)])


_split_method.__name__ = "split"  # as __torch_function__ sees it
Tensor.split = _subclass_protocol(_split_method)



def broadcast_shapes(*shapes):
    """The shape tensors of ``shapes`` broadcast to, without making tensors (``torch.broadcast_shapes``).

    PyTorch runs ``torch._refs._broadcast_shapes`` here, whose checks and texts differ from the tensor
    broadcast's: ``None`` is skipped, an int is a 1-d shape, a negative size meeting a 1 is a ValueError.

    Raises:
        RuntimeError: a shape is not an int or sequence, or two sizes are neither equal nor 1.
        ValueError: "Attempting to broadcast a dimension with negative length!".

    Example:
        >>> broadcast_shapes((2,), (3, 1), (1, 1, 1))
        torch.Size([1, 3, 2])
    """
    shapes = [(s,) if isinstance(s, builtins.int) else s for s in shapes if s is not None]
    for s in shapes:
        if not isinstance(s, collections.abc.Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
    common = [1] * builtins.max((len(s) for s in shapes), default=0)
    for arg, s in enumerate(shapes):
        for i in builtins.range(-1, -1 - len(s), -1):
            if s[i] == common[i]:
                continue
            if common[i] == 1:
                if s[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = s[i]
            elif s[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[i]} at {i}! Mismatching "
                                   f"argument at index {arg} had {s}; but expected shape should be broadcastable "
                                   f"to {common}")
    return _shape.Size(common)



def detach(input):
    return input.detach()


def adjoint(input):
    """``torch.adjoint(x)``: the conjugate transpose of the last two dims, a view (``Tensor.adjoint``)."""
    return _tensor_input("adjoint", input).adjoint()
