"""The weights-only unpickler — PyTorch's ``torch/_weights_only_unpickler.py``: a restricted pickle VM.

``load(weights_only=True)`` (the default) runs the checkpoint's pickle here instead of in :mod:`pickle`.
This VM executes the opcodes that build plain data (numbers, strings, bytes, tuples, lists, dicts, sets)
itself, and allows the risky ones only on an allowlist:

* ``GLOBAL``/``STACK_GLOBAL`` resolve a name only through :func:`allowed_globals` (PyTorch's names for
  glasstorch's dtypes, Size, device, Tensor, the ``torch._utils._rebuild_*`` functions, OrderedDict ...)
  or the user's additions (``add_safe_globals``); nothing is ever imported.
* ``REDUCE`` calls, and ``NEWOBJ`` instantiates, only objects that came from that allowlist.
* ``BUILD`` sets state only on tensors, OrderedDicts and allowlisted types; ``APPEND``/``SETITEM``/
  ``ADDITEMS`` only on list/dict/set; persistent ids must name a storage.

Anything else raises :class:`pickle.UnpicklingError` before running it, so a hostile file (a ``__reduce__``
that calls ``os.system``) fails without effect.

Invariant: no object reachable from the pickle is called unless it is in the allowlist.
"""

from __future__ import annotations

import pickle
import pickletools
import warnings
from _codecs import encode
from collections import Counter, OrderedDict
from struct import unpack

from . import _utils
from ._core import dtype as _dt
from ._core.device import device
from ._core.shape import Size
from ._tensor.storage import UntypedStorage
from .tensor import LEGACY_TYPES, Tensor

__all__ = ["Unpickler", "load", "allowed_globals", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "globals_in_pickle", "torch_module_name", "UNSUPPORTED_TORCH_DTYPES"]

UnpicklingError = pickle.UnpicklingError

# Never allowed, even when the user allowlists something from them (PyTorch's blocklist).
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")
# PyTorch dtypes glasstorch has no storage type for: named in a clear error rather than "unsupported global".
UNSUPPORTED_TORCH_DTYPES = ("float8_e8m0fnu", "float4_e2m1fn_x2", "bits8", "bits16", "bits1x8",
                            "bits2x4", "bits4x2", "qint8", "qint32", "quint8", "quint4x2", "quint2x4")

# -- the user's allowlist (``torch.serialization.add_safe_globals``) ----------------------------------------
_user_globals: set = set()


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes/functions (or ``(obj, "module.name")`` pairs) in weights-only loads."""
    global _user_globals
    _user_globals = _user_globals | set(safe_globals)


def get_safe_globals() -> list:
    return list(_user_globals)


def clear_safe_globals() -> None:
    global _user_globals
    _user_globals = set()


def _remove_safe_globals(items) -> None:
    global _user_globals
    _user_globals = _user_globals - set(items)


class safe_globals:
    """Context manager: allow ``globals`` in weights-only loads inside the block."""

    def __init__(self, safe_globals: list):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _remove_safe_globals(self.safe_globals)


def _user_allowed() -> dict:
    out = {}
    for g in _user_globals:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), but got tuple of "
                                 f"length: {len(g)}")
            if type(g[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: "
                                f"{type(g[1])}")
            out[g[1]] = g[0]
        else:
            out[f"{g.__module__}.{g.__qualname__}"] = g
            if g.__module__:  # a glasstorch class also under PyTorch's module, the name glasstorch's files use
                out[f"{torch_module_name(g.__module__)}.{g.__qualname__}"] = g
    return out


def torch_module_name(module: str) -> str:
    """The module a checkpoint names for something of glasstorch's module ``module``: PyTorch's counterpart
    (``glasstorch.testing._internal.two_tensor`` -> ``torch.testing._internal.two_tensor``), so that files name
    what PyTorch's would and load in either library; any other module is itself."""
    if module == "glasstorch" or module.startswith("glasstorch."):
        return "torch" + module[len("glasstorch"):]
    return module


# -- the default allowlist, under the names PyTorch's pickles use -------------------------------------------
_REBUILD_FUNCTIONS = ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3", "_rebuild_parameter",
                      "_rebuild_parameter_with_state", "_rebuild_meta_tensor_no_storage", "_rebuild_sparse_tensor",
                      "_rebuild_device_tensor_from_numpy", "_rebuild_device_tensor_from_cpu_tensor",
                      "_rebuild_wrapper_subclass")


def allowed_globals() -> dict:
    """``{"torch.name": glasstorch object}`` for everything a weights-only load may name."""
    rc = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.serialization._get_layout": _utils._get_layout,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch.storage.UntypedStorage": UntypedStorage,
        "torch._tensor._rebuild_from_type_v2": _utils._rebuild_from_type_v2,
    }
    param = _utils.parameter_class()
    if param is not None:
        rc["torch.nn.parameter.Parameter"] = param
    for d in _dt.EVERY_DTYPE:
        rc[repr(d)] = d
    for name, cls in LEGACY_TYPES.items():
        rc[f"torch.{name}"] = cls
    for name in _utils.STORAGE_TYPE_NAMES.values():
        rc[f"torch.{name}"] = _utils.StorageType(name)
    for fname in _REBUILD_FUNCTIONS:
        rc[f"torch._utils.{fname}"] = getattr(_utils, fname)
    return rc


def _get_allowed_globals() -> dict:
    """PyTorch's name of :func:`allowed_globals` (looked up at each call, so it can be patched)."""
    return allowed_globals()


def _get_user_allowed_globals() -> dict:
    """PyTorch's name of the user's allowlist, as ``{"module.name": obj}``."""
    return _user_allowed()


# The Python 2 names PyTorch's VM renames (its own short list, not all of pickle's ``fix_imports``): others,
# such as ``commands.Popen``, keep their Python 2 name, and the error messages show it.
_IMPORT_MAPPING = {"__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
                   "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
                   "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io"}
_NAME_MAPPING = {
    ("__builtin__", "xrange"): ("builtins", "range"), ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"), ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"), ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"), ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"), ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"), ("UserList", "UserList"): ("collections", "UserList"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"),
    ("UserString", "UserString"): ("collections", "UserString"), ("__builtin__", "basestring"): ("builtins", "str"),
    ("exceptions", "StandardError"): ("builtins", "Exception"), ("UserDict", "UserDict"): ("collections", "UserDict"),
}


def _map_old_name(module: str, name: str) -> tuple[str, str]:
    """Python 2 names (``__builtin__.set``) to their Python 3 home, by PyTorch's tables."""
    if (module, name) in _NAME_MAPPING:
        return _NAME_MAPPING[(module, name)]
    return _IMPORT_MAPPING.get(module, module), name


def _unsupported_global_error(full_path: str) -> UnpicklingError:
    if full_path.startswith("builtins."):
        full_path = full_path[len("builtins."):]
    return UnpicklingError(
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{full_path}])` or the `torch.serialization.safe_globals("
        f"[{full_path}])` context manager to allowlist this global if you trust this class/function.")


# -- the VM ----------------------------------------------------------------------------------------------------
_OPS: dict = {}


def _op(*codes):
    def register(fn):
        for c in codes:
            _OPS[c[0]] = fn
        return fn
    return register


class _Stop(Exception):
    def __init__(self, value):
        self.value = value


class Unpickler:
    """Runs a pickle with the allowlist above; ``persistent_load`` resolves storage records.

    Example:
        >>> import io, pickle
        >>> Unpickler(io.BytesIO(pickle.dumps({"a": [1, 2.0]}, protocol=2))).load()
        {'a': [1, 2.0]}
    """

    def __init__(self, file, *, encoding: str = "bytes"):
        self.encoding = encoding
        self.read = file.read
        self.readline = file.readline
        self.memo: dict = {}
        self.proto = -1

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")

    def load(self):
        """Run the pickle to its STOP and return the object it built."""
        self.allowed = allowed_globals()
        self.user_allowed = _user_allowed()
        self._callable_ids = {id(v) for v in self.allowed.values()} | {id(v) for v in self.user_allowed.values()}
        self.stack: list = []
        self.metastack: list = []
        read = self.read
        try:
            while True:
                key = read(1)
                if not key:
                    raise EOFError("Ran out of input")
                handler = _OPS.get(key[0])
                if handler is None:
                    raise UnpicklingError(f"Unsupported operand {key[0]}")
                handler(self)
        except _Stop as stop:
            return stop.value
        except (IndexError, KeyError, ValueError) as e:  # stack underflow, missing memo entry, bad literal
            raise UnpicklingError(f"malformed pickle data: {type(e).__name__}: {e}") from None

    # -- helpers ---------------------------------------------------------------------------------------
    def _read(self, n: int) -> bytes:
        data = self.read(n)
        if len(data) != n:
            raise UnpicklingError("pickle data was truncated")
        return data

    def _pop_mark(self) -> list:
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _is_allowed(self, obj) -> bool:
        if id(obj) in self._callable_ids:
            return True
        # a bound method (``ZoneInfo._unpickle`` via an allowed getattr) is a new object at each lookup: equal to
        # the allowlisted one, not identical (PyTorch tests membership with ==)
        return hasattr(obj, "__self__") and any(obj == g for g in self.user_allowed.values())

    def _resolve(self, module: str, name: str):
        module, name = _map_old_name(module, name)
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
        if full_path in self.allowed:
            return self.allowed[full_path]
        if full_path in self.user_allowed:
            return self.user_allowed[full_path]
        if module == "torch" and name in UNSUPPORTED_TORCH_DTYPES:
            raise UnpicklingError(f"the checkpoint uses dtype torch.{name}, which glasstorch does not support")
        raise _unsupported_global_error(full_path)


def _text_line(u: Unpickler) -> str:
    return u.readline()[:-1].decode("utf-8")


# -- framing, stop, stack -------------------------------------------------------------------------------------
@_op(pickle.PROTO)
def _proto(u):
    u.proto = u._read(1)[0]
    if u.proto != 2:
        warnings.warn(f"Detected pickle protocol {u.proto} in the checkpoint, which was not the default pickle "
                      "protocol used by `torch.load` (2). The weights_only Unpickler might not support all "
                      "instructions implemented by this protocol, please file an issue for adding support if you "
                      "encounter this.",
                      stacklevel=2)


@_op(pickle.STOP)
def _stop(u):
    raise _Stop(u.stack.pop())


@_op(pickle.MARK)
def _mark(u):
    u.metastack.append(u.stack)
    u.stack = []


@_op(pickle.POP)
def _pop(u):
    if u.stack:
        u.stack.pop()
    else:
        u._pop_mark()


@_op(pickle.POP_MARK)
def _pop_mark(u):
    u._pop_mark()


@_op(pickle.DUP)
def _dup(u):
    u.stack.append(u.stack[-1])


# -- scalars --------------------------------------------------------------------------------------------------
@_op(pickle.NONE)
def _none(u):
    u.stack.append(None)


@_op(pickle.NEWTRUE)
def _true(u):
    u.stack.append(True)


@_op(pickle.NEWFALSE)
def _false(u):
    u.stack.append(False)


@_op(pickle.BININT)
def _binint(u):
    u.stack.append(unpack("<i", u._read(4))[0])


@_op(pickle.BININT1)
def _binint1(u):
    u.stack.append(u._read(1)[0])


@_op(pickle.BININT2)
def _binint2(u):
    u.stack.append(unpack("<H", u._read(2))[0])


@_op(pickle.INT)
def _int(u):
    text = u.readline()[:-1]
    u.stack.append(text == b"01" if text in (b"00", b"01") else int(text))  # protocol 0 spells bools 00/01


@_op(pickle.LONG)
def _long(u):
    text = u.readline()[:-1]
    u.stack.append(int(text[:-1] if text.endswith(b"L") else text))


@_op(pickle.LONG1)
def _long1(u):
    u.stack.append(pickle.decode_long(u._read(u._read(1)[0])))


@_op(pickle.LONG4)
def _long4(u):
    n = unpack("<i", u._read(4))[0]
    if n < 0:
        raise UnpicklingError("LONG pickle has negative byte count")
    u.stack.append(pickle.decode_long(u._read(n)))


@_op(pickle.BINFLOAT)
def _binfloat(u):
    u.stack.append(unpack(">d", u._read(8))[0])


@_op(pickle.FLOAT)
def _float(u):
    u.stack.append(float(u.readline()[:-1]))


# -- strings and bytes ------------------------------------------------------------------------------------------
def _push_str(u, raw: bytes):
    u.stack.append(str(raw, "utf-8", "surrogatepass"))


@_op(pickle.BINUNICODE)
def _binunicode(u):
    _push_str(u, u._read(unpack("<I", u._read(4))[0]))


@_op(pickle.SHORT_BINUNICODE)
def _short_binunicode(u):
    _push_str(u, u._read(u._read(1)[0]))


@_op(pickle.BINUNICODE8)
def _binunicode8(u):
    _push_str(u, u._read(unpack("<Q", u._read(8))[0]))


@_op(pickle.UNICODE)
def _unicode(u):
    u.stack.append(str(u.readline()[:-1], "raw-unicode-escape"))


def _push_py2_str(u, raw: bytes):
    u.stack.append(raw if u.encoding == "bytes" else raw.decode(u.encoding, "strict"))


@_op(pickle.SHORT_BINSTRING)
def _short_binstring(u):
    _push_py2_str(u, u._read(u._read(1)[0]))


@_op(pickle.BINSTRING)
def _binstring(u):
    n = unpack("<i", u._read(4))[0]
    if n < 0:
        raise UnpicklingError("BINSTRING pickle has negative byte count")
    _push_py2_str(u, u._read(n))


@_op(pickle.SHORT_BINBYTES)
def _short_binbytes(u):
    u.stack.append(u._read(u._read(1)[0]))


@_op(pickle.BINBYTES)
def _binbytes(u):
    u.stack.append(u._read(unpack("<I", u._read(4))[0]))


@_op(pickle.BINBYTES8)
def _binbytes8(u):
    u.stack.append(u._read(unpack("<Q", u._read(8))[0]))


@_op(pickle.BYTEARRAY8)
def _bytearray8(u):
    u.stack.append(bytearray(u._read(unpack("<Q", u._read(8))[0])))


# -- containers -------------------------------------------------------------------------------------------------
@_op(pickle.EMPTY_TUPLE)
def _empty_tuple(u):
    u.stack.append(())


@_op(pickle.TUPLE)
def _tuple(u):
    items = tuple(u._pop_mark())  # pop first: the stack object changes under the mark
    u.stack.append(items)


@_op(pickle.TUPLE1)
def _tuple1(u):
    u.stack[-1] = (u.stack[-1],)


@_op(pickle.TUPLE2)
def _tuple2(u):
    u.stack[-2:] = [(u.stack[-2], u.stack[-1])]


@_op(pickle.TUPLE3)
def _tuple3(u):
    u.stack[-3:] = [(u.stack[-3], u.stack[-2], u.stack[-1])]


@_op(pickle.EMPTY_LIST)
def _empty_list(u):
    u.stack.append([])


@_op(pickle.LIST)
def _list(u):
    items = u._pop_mark()
    u.stack.append(items)


@_op(pickle.EMPTY_DICT)
def _empty_dict(u):
    u.stack.append({})


@_op(pickle.DICT)
def _dict(u):
    items = u._pop_mark()
    u.stack.append({items[i]: items[i + 1] for i in range(0, len(items), 2)})


@_op(pickle.EMPTY_SET)
def _empty_set(u):
    u.stack.append(set())


@_op(pickle.FROZENSET)
def _frozenset(u):
    items = frozenset(u._pop_mark())
    u.stack.append(items)


@_op(pickle.APPEND)
def _append(u):
    item = u.stack.pop()
    target = u.stack[-1]
    if type(target) is not list:
        raise UnpicklingError(f"Can only append to lists, but got {type(target)}")
    target.append(item)


@_op(pickle.APPENDS)
def _appends(u):
    items = u._pop_mark()
    target = u.stack[-1]
    if type(target) is not list:
        raise UnpicklingError(f"Can only extend lists, but got {type(target)}")
    target.extend(items)


def _check_mapping(u, opname: str):
    if type(u.stack[-1]) not in (dict, OrderedDict, Counter):
        raise UnpicklingError(f"Can only {opname} for dict, collections.OrderedDict, collections.Counter, but got "
                              f"{type(u.stack[-1])}")


@_op(pickle.SETITEM)
def _setitem(u):
    value, key = u.stack.pop(), u.stack.pop()
    _check_mapping(u, "SETITEM")
    u.stack[-1][key] = value


@_op(pickle.SETITEMS)
def _setitems(u):
    items = u._pop_mark()
    _check_mapping(u, "SETITEMS")
    target = u.stack[-1]
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


@_op(pickle.ADDITEMS)
def _additems(u):
    items = u._pop_mark()
    target = u.stack[-1]
    if type(target) is not set:
        raise UnpicklingError(f"Can only add items to sets, but got {type(target)}")
    target.update(items)


# -- memo ----------------------------------------------------------------------------------------------------------
@_op(pickle.BINPUT)
def _binput(u):
    u.memo[u._read(1)[0]] = u.stack[-1]


@_op(pickle.LONG_BINPUT)
def _long_binput(u):
    u.memo[unpack("<I", u._read(4))[0]] = u.stack[-1]


@_op(pickle.PUT)
def _put(u):
    u.memo[int(u.readline()[:-1])] = u.stack[-1]


@_op(pickle.MEMOIZE)
def _memoize(u):
    u.memo[len(u.memo)] = u.stack[-1]


@_op(pickle.BINGET)
def _binget(u):
    u.stack.append(u.memo[u._read(1)[0]])


@_op(pickle.LONG_BINGET)
def _long_binget(u):
    u.stack.append(u.memo[unpack("<I", u._read(4))[0]])


@_op(pickle.GET)
def _get(u):
    u.stack.append(u.memo[int(u.readline()[:-1])])


# -- the risky operators, restricted ---------------------------------------------------------------------------
@_op(pickle.GLOBAL)
def _global(u):
    module = _text_line(u)
    name = _text_line(u)
    u.stack.append(u._resolve(module, name))


@_op(pickle.STACK_GLOBAL)
def _stack_global(u):
    name, module = u.stack.pop(), u.stack.pop()
    if type(name) is not str or type(module) is not str:
        raise UnpicklingError("STACK_GLOBAL requires str")
    u.stack.append(u._resolve(module, name))


@_op(pickle.REDUCE)
def _reduce(u):
    args = u.stack.pop()
    func = u.stack[-1]
    if not u._is_allowed(func):
        msg = f"Trying to call reduce for unrecognized function {func}"
        if hasattr(func, "__self__"):
            msg += f" which belongs to {func.__self__}"
        raise UnpicklingError(msg)
    if type(args) is not tuple:
        raise UnpicklingError(f"REDUCE arguments must be a tuple, got {type(args)}")
    u.stack[-1] = func(*args)


def _new_object(u, cls, args, kwargs):
    param = _utils.parameter_class()
    if param is not None and cls is param:
        return param(*args, **kwargs)
    if not isinstance(cls, type) or not u._is_allowed(cls):
        raise UnpicklingError(f"Can only create new object for nn.Parameter or classes allowlisted via "
                              f"`add_safe_globals` but got {cls}")
    return cls.__new__(cls, *args, **kwargs)


@_op(pickle.NEWOBJ)
def _newobj(u):
    args = u.stack.pop()
    cls = u.stack.pop()
    u.stack.append(_new_object(u, cls, args, {}))


@_op(pickle.NEWOBJ_EX)
def _newobj_ex(u):
    kwargs = u.stack.pop()
    args = u.stack.pop()
    cls = u.stack.pop()
    u.stack.append(_new_object(u, cls, args, kwargs))


@_op(pickle.BUILD)
def _build(u):
    state = u.stack.pop()
    inst = u.stack[-1]
    if type(inst) is Tensor or type(inst) is _utils.parameter_class():
        _utils._tensor_setstate(inst, state)
    elif type(inst) is OrderedDict:
        if not isinstance(state, dict):
            raise UnpicklingError(f"OrderedDict state must be a dict, got {type(state)}")
        inst.__dict__.update(state)
    elif u._is_allowed(type(inst)):
        _build_allowed(inst, state)
    else:
        raise UnpicklingError(f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                              f"`add_safe_globals`, but got {type(inst)}")


def _build_allowed(inst, state):
    """pickle's BUILD for an allowlisted type: ``__setstate__``, else ``__dict__`` and slot updates."""
    setstate = getattr(inst, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slotstate = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slotstate = state
    if state:
        inst.__dict__.update(state)
    for k, v in (slotstate or {}).items():
        setattr(inst, k, v)


@_op(pickle.BINPERSID)
def _binpersid(u):
    _persistent(u, u.stack.pop())


@_op(pickle.PERSID)
def _persid(u):
    _persistent(u, u.readline()[:-1].decode("ascii"))


def _persistent(u, pid):
    if type(pid) is not tuple and type(pid) is not int and type(pid) is not str:
        raise UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
    if type(pid) is tuple and pid and (pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]) != "storage":
        raise UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
    u.stack.append(u.persistent_load(pid))


def load(file, *, encoding: str = "ASCII"):
    """Unpickle one object from ``file`` under the allowlist."""
    return Unpickler(file, encoding=encoding).load()


def globals_in_pickle(data: bytes) -> set[str]:
    """Every ``module.name`` a pickle refers to, found without running it (``get_globals_in_pkl``)."""
    names, strings = set(), []
    for op, arg, _pos in pickletools.genops(data):
        if op.name == "GLOBAL":
            module, name = _map_old_name(*arg.split(" ", 1))
            names.add(f"{module}.{name}")
        elif op.name in ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"):
            strings.append(arg)
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            module, name = _map_old_name(strings[-2], strings[-1])
            names.add(f"{module}.{name}")
    return names
