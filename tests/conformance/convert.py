"""torch values -> glasstorch values, and glasstorch results -> torch, for running OpInfo samples in both.

A tensor crosses as its bytes: the whole storage is copied and the new tensor is set over it with the same dtype,
sizes, strides and storage offset (``set_``), so no view or copy changes its geometry; ``requires_grad`` makes it a
leaf that requires grad, as the sample's leaves are.  Everything else crosses by name: dtypes, devices, layouts and
memory formats by their printed name, torch modules and public functions by their dotted path
(``torch.linalg.inv`` -> ``glasstorch.linalg.inv``).  A Python function written in torch's test modules (the
OpInfos' lambdas and wrappers) is rebuilt over the same code with its globals, closure and defaults translated, so
its ``torch.foo`` calls become ``glasstorch.foo`` calls.  A name glasstorch lacks raises ``MissingName``.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import types

import numpy as np
import torch

import glasstorch as gt

__all__ = ["MissingName", "to_gt", "to_torch", "public_path", "gt_attr"]


class MissingName(Exception):
    """glasstorch has no counterpart of a torch name (a missing operator, module or dtype)."""


# Namespaces whose members are looked up by identity; the first listed wins for an object found in several.
_NAMESPACES = ("torch.nn.functional", "torch.linalg", "torch.fft", "torch.special", "torch.masked",
               "torch.signal.windows", "torch.nn.init", "torch.autograd", "torch.random", "torch.Tensor", "torch",
               "torch.functional", "torch.nn", "torch._C._nn", "torch._C._linalg", "torch._C._fft",
               "torch._C._special", "torch._C._VariableFunctions")


def _namespace(path: str):
    obj = torch
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


@functools.cache
def _paths() -> dict[int, str]:
    """id(torch object) -> its dotted public path; within a namespace an object's own ``__name__`` is preferred."""
    found: dict[int, str] = {}
    for ns_path in _NAMESPACES:
        mine: dict[int, str] = {}
        ns = _namespace(ns_path)
        for name in dir(ns):
            try:
                obj = getattr(ns, name)
            except Exception:  # noqa: BLE001 - a lazy attribute that fails to load is simply not a public name
                continue
            if isinstance(obj, (types.ModuleType, int, float, str, bool)) or obj is None:
                continue
            if id(obj) not in mine or getattr(obj, "__name__", None) == name:
                mine[id(obj)] = f"{ns_path}.{name}"
        found = mine | found
    return found


def gt_attr(path: str):
    """The glasstorch object at torch's dotted ``path`` (``torch.linalg.inv`` -> ``glasstorch.linalg.inv``)."""
    parts = path.split(".")
    obj = gt
    for part in parts[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise MissingName(".".join(["glasstorch", *parts[1:]])) from None
    return obj


def public_path(obj) -> str | None:
    """torch's dotted path of a public torch callable or class, or None when it has none."""
    if isinstance(obj, torch._ops.OpOverloadPacket):
        return "torch.ops.aten." + obj._qualified_op_name.split("::")[1]
    if isinstance(obj, torch._ops.OpOverload):
        return "torch.ops.aten." + obj._schema.name.split("::")[1] + "." + (obj._overloadname or "default")
    path = _paths().get(id(obj))
    if path is not None:
        return path
    module, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", "")
    if module and module.startswith("torch") and not module.startswith("torch.testing") and "<" not in qual:
        return f"{module}.{qual}"
    return None


def _dtype(d: torch.dtype):
    name = str(d).removeprefix("torch.")
    if not hasattr(gt, name):
        raise MissingName(f"glasstorch.{name}")
    return getattr(gt, name)


def _storage_bytes_torch(t: torch.Tensor) -> np.ndarray:
    # .numpy() marks a storage not resizable: read a copy, so torch's own tensor (an out= target) stays resizable
    raw = torch.empty(0, dtype=torch.uint8).set_(t.untyped_storage().clone())
    return raw.numpy()


def _storage_to_gt(src: torch.Tensor, storages: dict):
    key = src.untyped_storage().data_ptr()
    if key and key in storages:
        return storages[key]
    raw = _storage_bytes_torch(src)
    # a storage of glasstorch's own allocator (resizable, as torch's is), not one borrowed from numpy
    storage = gt.empty(raw.size, dtype=gt.uint8).copy_(gt.from_numpy(raw)).untyped_storage()
    storages[key] = storage
    return storage


def tensor_to_gt(t: torch.Tensor, storages: dict | None = None):
    """A glasstorch tensor with ``t``'s bytes, dtype, sizes, strides, storage offset and requires_grad; tensors
    converted with one ``storages`` dict share a glasstorch storage where they share torch's (overlap checks)."""
    if t.layout != torch.strided:
        raise MissingName(f"glasstorch layout {t.layout}")
    # A conjugate view's storage holds the conjugates of its values: copy those bytes and set glasstorch's bit.
    # A negative view (rare) crosses resolved: its values, without the bit.
    conj, neg = t.is_conj() and not t.is_neg(), t.is_neg()
    src = t.detach().resolve_conj().resolve_neg() if neg else t.detach()
    dtype = _dtype(src.dtype)
    if src.device.type == "meta":
        out = gt.empty_strided(tuple(src.shape), src.stride(), dtype=dtype, device="meta")
    else:
        storage = _storage_to_gt(src, {} if storages is None or conj or neg else storages)
        out = gt.empty(0, dtype=dtype).set_(storage, src.storage_offset(), tuple(src.shape), src.stride())
    if conj:
        if not hasattr(out, "conj"):
            raise MissingName("glasstorch.Tensor.conj (a sample input has torch's conjugate bit)")
        out = out.conj()
    if t.requires_grad:
        out.requires_grad_()
    return out


def tensor_to_torch(x) -> torch.Tensor:
    """A torch tensor with glasstorch tensor ``x``'s bytes, dtype, sizes, strides and storage offset.

    ``_gt_is_view`` on the result records whether ``x`` was a view, for the comparison of view outputs."""
    dtype = getattr(torch, str(x.dtype).removeprefix("torch."))
    is_view = x._is_view()
    x = x.detach()
    if getattr(x, "is_conj", lambda: False)():  # a lazy conjugate is compared by its values
        x = x.resolve_conj()
    if x.device.type == "meta":
        out = torch.empty_strided(tuple(x.shape), x.stride(), dtype=dtype, device="meta")
    else:
        raw = gt.empty(0, dtype=gt.uint8).set_(x.untyped_storage()).numpy().copy()
        out = torch.empty(0, dtype=dtype).set_(torch.from_numpy(raw).untyped_storage(), x.storage_offset(),
                                               tuple(x.shape), x.stride())
    out._gt_is_view = is_view
    return out


def _name_of_enum(v, kind: str):
    name = str(v).removeprefix("torch.")
    if not hasattr(gt, name):
        raise MissingName(f"glasstorch.{name} ({kind})")
    return getattr(gt, name)


def _rebuild_function(fn: types.FunctionType, memo: dict):
    """``fn`` over the same code, with glasstorch in place of torch in its globals, closure and defaults."""
    g = {"__builtins__": fn.__globals__.get("__builtins__", __builtins__), "__name__": fn.__globals__.get("__name__")}
    cells = tuple(types.CellType() for _ in fn.__closure__ or ())
    rebuilt = types.FunctionType(fn.__code__, g, fn.__name__, None, cells or None)
    memo[id(fn)] = rebuilt  # before the globals: a function may name itself
    names, stack = set(), [fn.__code__]
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    g.update({n: to_gt(fn.__globals__[n], memo) for n in names if n in fn.__globals__})
    for cell, old in zip(cells, fn.__closure__ or (), strict=True):
        try:
            contents = old.cell_contents
        except ValueError:  # a cell not yet bound (a later local of the enclosing function)
            continue
        cell.cell_contents = to_gt(contents, memo)
    rebuilt.__defaults__ = to_gt(fn.__defaults__, memo)
    rebuilt.__kwdefaults__ = to_gt(fn.__kwdefaults__, memo)
    return rebuilt


@contextlib.contextmanager
def _freeze_gt_rng_state():
    """glasstorch's form of torch.testing's ``freeze_rng_state`` (its torch form guards dispatch modes and CUDA)."""
    state = gt.get_rng_state()
    try:
        yield
    finally:
        gt.set_rng_state(state)


# torch test helpers that touch torch internals glasstorch has no reason to mirror, by module.qualname.
TEST_HELPERS = {"torch.testing._utils.freeze_rng_state": _freeze_gt_rng_state}


def _module_instance_to_gt(m, memo: dict):
    """A torch.nn module instance without parameters or buffers (``distance_function=nn.PairwiseDistance()``):
    glasstorch's class of the same path, with the same public settings."""
    path = public_path(type(m))
    if path is None or next(m.parameters(), None) is not None or next(m.buffers(), None) is not None:
        raise MissingName(f"glasstorch version of the module {m!r}")
    cls = gt_attr(path)
    out = cls.__new__(cls)
    gt.nn.Module.__init__(out)
    for k, v in vars(m).items():
        if not k.startswith("_") and k != "training":
            setattr(out, k, to_gt(v, memo))
    return out.train(m.training)


def _callable_to_gt(fn, memo: dict):
    if isinstance(fn, torch.nn.Module):
        return _module_instance_to_gt(fn, memo)
    helper = TEST_HELPERS.get(f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', '')}")
    if helper is not None:
        return helper
    path = public_path(fn)
    if path is not None:
        return gt_attr(path)
    if isinstance(fn, types.FunctionType):
        return _rebuild_function(fn, memo)
    if isinstance(fn, functools.partial):
        return functools.partial(to_gt(fn.func, memo), *to_gt(fn.args, memo), **to_gt(fn.keywords, memo))
    return fn  # operator.add, builtins, numpy: library-neutral


def _module_to_gt(m: types.ModuleType):
    if not m.__name__.startswith("torch") or m.__name__.startswith("torch.testing"):
        return m
    name = "glasstorch" + m.__name__.removeprefix("torch")
    try:
        return importlib.import_module(name)
    except ImportError:
        raise MissingName(name) from None


def to_gt(v, memo: dict | None = None):
    """``v`` with every torch value in it replaced by glasstorch's (containers rebuilt, Python scalars kept)."""
    memo = {} if memo is None else memo
    if id(v) in memo:
        return memo[id(v)]
    if isinstance(v, torch.Tensor):
        out = tensor_to_gt(v, memo.setdefault("storages", {}))
    elif isinstance(v, torch.dtype):
        out = _dtype(v)
    elif isinstance(v, torch.device):
        out = gt.device(str(v))
    elif isinstance(v, (torch.memory_format, torch.layout)):
        out = _name_of_enum(v, type(v).__name__)
    elif isinstance(v, torch.Size):
        out = gt.Size(v)
    elif isinstance(v, torch.Generator):
        out = gt.Generator().manual_seed(v.initial_seed())
    elif isinstance(v, tuple) and hasattr(v, "_fields"):
        out = type(v)(*(to_gt(x, memo) for x in v))
    elif isinstance(v, (list, tuple)):
        out = type(v)(to_gt(x, memo) for x in v)
    elif isinstance(v, dict):
        out = {k: to_gt(x, memo) for k, x in v.items()}
    elif isinstance(v, types.ModuleType):
        out = _module_to_gt(v)
    elif isinstance(v, type):
        path = public_path(v)
        out = gt_attr(path) if path and path.startswith("torch") else v
    elif callable(v):
        out = _callable_to_gt(v, memo)
    else:
        out = v
    memo[id(v)] = out
    return out


def to_torch(v):
    """A glasstorch result as torch values (tensors via their bytes; containers rebuilt; dtypes by name)."""
    if isinstance(v, gt.Tensor):
        return tensor_to_torch(v)
    if isinstance(v, gt.dtype):
        return getattr(torch, str(v).removeprefix("torch."))
    if isinstance(v, gt.Size):
        return torch.Size(v)
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return tuple(to_torch(x) for x in v)
    if isinstance(v, (list, tuple)):
        return type(v)(to_torch(x) for x in v)
    if isinstance(v, dict):
        return {k: to_torch(x) for k, x in v.items()}
    return v
