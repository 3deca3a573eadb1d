"""Public ``glasstorch.*`` functions for tensor creation, random draws and views.

PyTorch counterpart: the ``torch.*`` factory and shape functions (``torch/_C/_VariableFunctions``).
Each parses Python arguments the way PyTorch's argument parser does (varargs sizes or one sequence,
keyword-only ``dtype``/``device``/``requires_grad``/``generator``), then calls the impl-level factory
or view.  Invariant: defaults (dtype inference, the default dtype) are PyTorch's.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings

import numpy as np

from ._core import dtype as _dt
from ._core import shape as _shape
from ._core.device import as_device
from ._device.generator import Generator, default_generator
from ._ops import factories as _fac
from ._ops.kernels.cpu import random as _rand
from ._tensor.impl import empty_strided_impl
from .tensor import Tensor, _finish, _strides_for, parse_size, preserve_format, wrap

__all__ = [
    "tensor", "as_tensor", "from_numpy", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "empty_strided", "arange", "range", "linspace", "logspace", "eye", "rand", "randn",
    "randint", "randperm", "normal", "bernoulli", "rand_like", "randn_like", "randint_like", "manual_seed", "seed",
    "initial_seed", "get_rng_state", "set_rng_state", "is_tensor", "is_storage", "numel", "is_floating_point",
    "is_complex", "result_type", "split", "broadcast_shapes", "detach", "default_generator", "Generator",
]


def _dtype_or_default(dtype):
    return _dt.get_default_dtype() if dtype is None else dtype


def _index_like(x) -> bool:
    """What PyTorch's argument parser accepts as one int of a size (ints, numpy ints, 1-element int tensors)."""
    if isinstance(x, (builtins.int, np.integer)):
        return True
    return isinstance(x, Tensor) and x.numel() == 1 and not (x.is_floating_point() or x.is_complex())


def _unpack_dims(fname, seq, argname="size") -> tuple:
    """IntArrayRef unpacking: the first element is type-checked strictly (no bool), later ones by ``__index__``."""
    out = []
    for i, x in enumerate(seq):
        if i == 0 and (isinstance(x, bool) or not _index_like(x)):
            raise TypeError(f"{fname}(): argument '{argname}' (position 1) must be tuple of ints, but found element "
                            f"of type {type(x).__name__} at pos 0")
        if not _index_like(x):
            raise TypeError(f"{fname}(): argument '{argname}' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {type(x).__name__}\"")
        out.append(operator.index(x))
    return tuple(out)


def _sizes(args, kwargs, fname):
    """A size given as varargs ``f(2, 3)``, one sequence ``f((2, 3))`` or ``size=``, with PyTorch's errors."""
    if "size" in kwargs:
        if args:
            raise TypeError(f"{fname}() got multiple values for argument 'size'")
        seq = kwargs.pop("size")
        if not isinstance(seq, (tuple, list)):
            raise TypeError(f"{fname}(): argument 'size' must be tuple of ints, not {type(seq).__name__}")
    elif not args:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "size"')
    elif len(args) == 1 and (isinstance(args[0], bool) or not _index_like(args[0])):
        seq = args[0]
        if not isinstance(seq, (tuple, list)):
            raise TypeError(f"{fname}(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(seq).__name__}")
    else:
        seq = args
    return _unpack_dims(fname, seq)


def _new(impl, requires_grad):
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
    return _new(_fac.tensor_impl(data, dtype, as_device(device)), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Share ``data``'s memory when it is a tensor or numpy array of the right dtype; copy otherwise."""
    if isinstance(data, Tensor):
        if dtype is None and device is None:
            return data
        return data.to(dtype=dtype, device=device)
    if isinstance(data, np.ndarray) and (device is None or as_device(device).type == "cpu"):
        out = from_numpy(data)
        return out if dtype is None or dtype is out.dtype else out.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False) -> Tensor:
    if copy:
        out = tensor(obj, dtype=dtype, device=device)
    else:
        out = as_tensor(obj, dtype=dtype, device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def from_numpy(ndarray) -> Tensor:
    """A tensor sharing memory with ``ndarray`` (writes in either are seen by both)."""
    return wrap(_fac.numpy_impl(ndarray))


# -- filled factories --------------------------------------------------------------------------------------

def _filled(fname, value, size, dtype, device, requires_grad, kw):
    sizes = _sizes(size, kw, fname)
    if kw:
        raise TypeError(f"{fname}() got an unexpected keyword argument '{next(iter(kw))}'")
    if value is not None and any(d < 0 for d in sizes):
        raise RuntimeError(f"{fname}: Dimension size must be non-negative.")
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    device = as_device(device)
    if value is None:
        return _new(_fac.empty_impl(sizes, dtype, device), requires_grad)
    return _new(_fac.full_impl(sizes, value, dtype, device), requires_grad)


def zeros(*size, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
          memory_format=None, **kw) -> Tensor:
    """A tensor of zeros; ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``."""
    return _filled("zeros", 0, size, dtype, device, requires_grad, kw)


def ones(*size, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
         memory_format=None, **kw) -> Tensor:
    return _filled("ones", 1, size, dtype, device, requires_grad, kw)


def empty(*size, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
          memory_format=None, **kw) -> Tensor:
    """Uninitialised memory of the given shape."""
    return _filled("empty", None, size, dtype, device, requires_grad, kw)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False,
         out=None) -> Tensor:
    """A tensor filled with ``fill_value``; its dtype is inferred from the value when not given."""
    fill_value = _number_arg("full", fill_value, 2)
    if dtype is None:
        dtype = _dt.scalar_dtype(fill_value) if isinstance(fill_value, (bool, int, float, complex)) else \
            _fac.infer_dtype(fill_value)
    if not isinstance(size, (tuple, list)):  # full's size is always one sequence, never varargs
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    sizes = _unpack_dims("full", size)
    return _new(_fac.full_impl(sizes, fill_value, dtype, as_device(device)), requires_grad)


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
    return _new(empty_strided_impl(tuple(size), tuple(stride), _dtype_or_default(dtype), as_device(device)),
                requires_grad)


def _like(fname, value, input, dtype, device, requires_grad, memory_format):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    impl = input._impl
    dtype = impl.dtype if dtype is None else dtype
    dev = impl.device if device is None else as_device(device)
    if value is not None:
        value = _number_arg(fname, value, 2)
    out = empty_strided_impl(impl.sizes, _strides_for(impl, memory_format), dtype, dev)
    if value is not None:
        _fac.check_fits(value, dtype, out.numel())
        _fac._copy.fill_(out, _fac.fill_value_for(value, dtype))
    return _new(out, requires_grad)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=preserve_format, **_):
    return _like("zeros_like", 0, input, dtype, device, requires_grad, memory_format)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=preserve_format, **_):
    return _like("ones_like", 1, input, dtype, device, requires_grad, memory_format)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=preserve_format, **_):
    return _like("empty_like", None, input, dtype, device, requires_grad, memory_format)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=preserve_format,
              **_):
    return _like("full_like", fill_value, input, dtype, device, requires_grad, memory_format)


# -- ranges ----------------------------------------------------------------------------------------------

def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
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
    if dtype is None:
        is_int = all(isinstance(v, (builtins.int, np.integer)) for v in vals)
        dtype = _dt.int64 if is_int else _dt.get_default_dtype()
    return _new(_fac.arange_impl(*vals, dtype, as_device(device)), requires_grad)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:  # noqa: A001
    """Deprecated inclusive range (``torch.range``): ``end`` is included; default float dtype."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    dtype = _dtype_or_default(dtype)
    n = builtins.int(math.floor((end - start) / step)) + 1
    out = _fac.empty_impl((max(n, 0),), dtype, as_device(device))
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


def _steps_arg(fname, steps):
    if isinstance(steps, bool) or not isinstance(steps, (builtins.int, np.integer, Tensor)):
        raise TypeError(f"{fname}() received an invalid combination of arguments - got steps of type "
                        f"{type(steps).__name__}")
    return operator.index(steps)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    Example:
        >>> linspace(0, 10, 7, dtype=int32).tolist()
        [0, 1, 3, 5, 6, 8, 10]
    """
    steps = _steps_arg("linspace", steps)
    start, end = _range_endpoint("linspace", start, "start", 1), _range_endpoint("linspace", end, "end", 2)
    if dtype is None:
        dtype = _dt.get_default_complex_dtype() if isinstance(start, complex) or isinstance(end, complex) else \
            _dt.get_default_dtype()
    return _new(_fac.linspace_impl(start, end, steps, dtype, as_device(device)), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    """``base ** linspace(start, end, steps)``."""
    steps = _steps_arg("logspace", steps)
    start, end = _range_endpoint("logspace", start, "start", 1), _range_endpoint("logspace", end, "end", 2)
    if dtype is None:
        dtype = _dt.get_default_complex_dtype() if isinstance(start, complex) or isinstance(end, complex) else \
            _dt.get_default_dtype()
    return _new(_fac.logspace_impl(start, end, steps, float(base), dtype, as_device(device)), requires_grad)


def _int_arg(fname, value, name, pos):
    if isinstance(value, Tensor) or isinstance(value, np.integer):
        return operator.index(value)
    if isinstance(value, bool) or not isinstance(value, builtins.int):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not {type(value).__name__}")
    return value


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    """The ``n x m`` identity matrix."""
    n = _int_arg("eye", n, "n", 1)
    m = n if m is None else _int_arg("eye", m, "m", 2)
    return _new(_fac.eye_impl(n, m, _dtype_or_default(dtype), as_device(device)), requires_grad)


# -- random ----------------------------------------------------------------------------------------------

def _gen(generator, fname="random"):
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"{fname}() received an invalid combination of arguments - got generator of type "
                        f"{type(generator).__name__}, expected torch.Generator")
    return generator


def _random_factory(fname, kernel, params, size, kwargs, dtype_default=None):
    generator = _gen(kwargs.pop("generator", None), fname)
    dtype = kwargs.pop("dtype", None)
    device = as_device(kwargs.pop("device", None))
    requires_grad = kwargs.pop("requires_grad", False)
    kwargs.pop("layout", None), kwargs.pop("pin_memory", None), kwargs.pop("out", None)
    sizes = _sizes(size, kwargs, fname)
    dtype = dtype or dtype_default or _dt.get_default_dtype()
    out = _fac.empty_impl(sizes, dtype, device)
    kernel(out, *params, generator)
    return _new(out, requires_grad)


def rand(*size, **kwargs) -> Tensor:
    """Uniform samples in [0, 1) (floating and complex dtypes)."""
    return _random_factory("rand", _rand.uniform_, (0.0, 1.0), size, kwargs)


def randn(*size, **kwargs) -> Tensor:
    """Standard normal samples."""
    return _random_factory("randn", _rand.normal_, (0.0, 1.0), size, kwargs)


def randint(*args, size=None, **kwargs) -> Tensor:
    """Integers uniform in ``[low, high)``: ``randint(high, size)`` or ``randint(low, high, size)``; int64 default."""
    args = list(args)
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
    return _random_factory("randint", _rand.random_, (low, high), (size,), kwargs, _dt.int64)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, **_) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 by default)."""
    n = _int_arg("randperm", n, "n", 1)
    dtype = dtype or _dt.int64
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dtype is _dt.bool or dtype.is_complex:
        raise _fac._not_implemented("randperm", dtype)
    if n > 0:
        _fac.check_fits(n - 1, dtype)  # every value 0 .. n-1 must be representable
    out = _fac.empty_impl((n,), dtype, as_device(device))
    perm = _rand.randperm(n, _gen(generator, "randperm"))
    if out.storage._data is not None:
        np.copyto(out.as_numpy(), perm, casting="unsafe")
    return _new(out, requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=preserve_format, generator=None):
    out = empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    return out.uniform_(generator=generator).requires_grad_(requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=preserve_format, generator=None):
    out = empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    return out.normal_(generator=generator).requires_grad_(requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,
                 memory_format=preserve_format, generator=None):
    if high is None:
        low, high = 0, low
    out = empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    return out.random_(low, high, generator=generator)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False,
           out=None) -> Tensor:
    """Normal samples: scalar mean/std with ``size``, or elementwise from tensor ``mean``/``std``.

    With a tensor ``mean`` the result has ``mean``'s dtype (else ``std``'s) and the broadcast shape.
    """
    gen = _gen(generator, "normal")
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if isinstance(std, Tensor):
            if np.any(std._impl.as_numpy() < 0):
                raise RuntimeError("normal expects all elements of std >= 0.0")
        elif std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
        like = mean if isinstance(mean, Tensor) else std
        m = mean._impl.as_numpy() if isinstance(mean, Tensor) else mean
        s = std._impl.as_numpy() if isinstance(std, Tensor) else std
        shape = tuple(np.broadcast_shapes(np.shape(m), np.shape(s)))
        res = _fac.empty_impl(shape, like.dtype, like.device)
        _rand.normal_(res, 0.0, 1.0, gen)
        if res.storage._data is not None:
            with np.errstate(over="ignore", invalid="ignore"):
                np.copyto(res.as_numpy(), res.as_numpy() * s + m, casting="unsafe")
        return wrap(res)
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments - got (float, float), but expected "
                        "a size when mean and std are numbers")
    res = _fac.empty_impl(parse_size((size,), "normal"), _dtype_or_default(dtype), as_device(device))
    _rand.normal_(res, float(mean), float(std), gen)
    return _new(res, requires_grad)


def bernoulli(input, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 samples with probabilities ``input`` (or a scalar ``p``), in ``input``'s dtype; always contiguous."""
    res = _fac.empty_impl(input._impl.sizes, input._impl.dtype, input._impl.device)
    _rand.bernoulli_(res, input._impl.as_numpy() if p is None else float(p), _gen(generator, "bernoulli"))
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


def numel(input) -> int:
    return input.numel()


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def is_complex(input) -> bool:
    return input.is_complex()


def result_type(tensor1, tensor2) -> _dt.dtype:
    """The dtype an elementwise op on these operands computes in (``torch.result_type``)."""
    return _dt.result_type_of((tensor1, tensor2))


# -- functional views ------------------------------------------------------------------------------------


def split(tensor, split_size_or_sections, dim=0):
    return tensor.split(split_size_or_sections, dim)



def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to, with PyTorch's error text."""
    norm = [(s,) if isinstance(s, builtins.int) else tuple(s) for s in shapes]
    return _shape.Size(_shape.broadcast_shapes(*norm))



def detach(input):
    return input.detach()


