"""The "invalid combination of arguments" TypeError — PyTorch's ``torch/csrc/utils/invalid_arguments.cpp``.

When no overload of a binding accepts a call, PyTorch re-reads each overload from its printed signature
(``(Tensor input, *, torch.dtype dtype = None)``) and says, per overload whose argument count fits the call,
either which keywords it does not know or which arguments have the wrong type (``!str!``)::

    view() received an invalid combination of arguments - got (str), but expected one of:
     * (torch.dtype dtype)
          didn't match because some of the arguments have invalid types: (!str!)
     * (tuple of ints size)
          didn't match because some of the arguments have invalid types: (!str!)

The re-reading is textual and so are its quirks, kept here on purpose: an argument is the text after the
last space of its entry (``bool keepdim = False`` is named ``False``; ``*`` counts as an argument), a type
matches when it equals the value's C type name (``tuple of ints`` and ``Number`` never match), and the keyword
arguments are visited in the order of a libstdc++ ``std::unordered_map<std::string, ...>`` (Note [kwarg order]).

Invariant: formatting never raises and never looks at tensor data.
"""

from __future__ import annotations

import bisect
import os

__all__ = ["format_invalid_args", "tp_name", "unordered_map_order"]

_TP_NAMES = {}  # type -> C type name, for the library's own classes (registered by python_arg_parser)


def tp_name(obj) -> str:
    """CPython's ``Py_TYPE(obj)->tp_name``: builtins and classes written in Python by bare name, C types
    with their module (``numpy.float64``, ``torch.dtype``)."""
    t = type(obj)
    name = _TP_NAMES.get(t)
    if name is not None:
        return name
    module = t.__module__
    if module.startswith("numpy"):  # numpy.float64, numpy.dtypes.Float32DType
        return f"{module}.{t.__name__}"
    return t.__name__


def register_tp_name(cls, name: str) -> None:
    """Give ``cls`` the C type name PyTorch's class of that role has (``torch.dtype``, ``torch._C.Generator``)."""
    _TP_NAMES[cls] = name


# -- Note [kwarg order] ----------------------------------------------------------------------------------------
# invalid_arguments.cpp copies the keyword arguments into a std::unordered_map<std::string, PyObject*> and
# prints them in that map's iteration order.  With libstdc++ that order follows from std::hash<std::string>
# (_Hash_bytes, a 64-bit MurmurHash2 variant, seed 0xc70f6907), the prime rehash policy (13 buckets from the
# first insertion on) and the way nodes are spliced into the one list behind the buckets.
_MASK = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_SEED = 0xC70F6907
_FAST_BKT = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash_bytes(data: bytes) -> int:
    n = len(data)
    h = (_SEED ^ (n * _MUL)) & _MASK
    aligned = n & ~7
    for p in range(0, aligned, 8):
        d = (_shift_mix((int.from_bytes(data[p:p + 8], "little") * _MUL) & _MASK) * _MUL) & _MASK
        h = ((h ^ d) * _MUL) & _MASK
    if n & 7:
        h = ((h ^ int.from_bytes(data[aligned:], "little")) * _MUL) & _MASK
    return _shift_mix((_shift_mix(h) * _MUL) & _MASK)


# The start of libstdc++'s __prime_list (past 13), as far as a call's keywords can reach in practice
_PRIMES = (17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113, 127, 137, 139,
           149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577,
           619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357,
           2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497)


def _next_bucket_count(n: int) -> tuple:
    """``_Prime_rehash_policy::_M_next_bkt``: (bucket count, next resize threshold) for a wanted minimum."""
    if n < len(_FAST_BKT):
        return _FAST_BKT[n], _FAST_BKT[n]
    p = _PRIMES[min(bisect.bisect_left(_PRIMES, n), len(_PRIMES) - 1)]
    return p, p


class _Map:
    """The node list and buckets of a libstdc++ unordered_map, enough to replay insertions."""

    __slots__ = ("order", "before", "nbkt", "next_resize", "hashes")

    def __init__(self):
        self.order, self.before, self.nbkt, self.next_resize, self.hashes = [], {}, 1, 0, {}

    def _bucket(self, key) -> int:
        return self.hashes[key] % self.nbkt

    def insert(self, key) -> None:
        self.hashes[key] = _hash_bytes(key.encode("utf-8", "surrogatepass"))
        n = len(self.order)
        if n + 1 > self.next_resize:
            min_bkts = max(n + 1, 0 if self.next_resize else 11)
            if min_bkts >= self.nbkt:
                self._rehash(*_next_bucket_count(max(min_bkts + 1, self.nbkt * 2)))
            else:
                self.next_resize = self.nbkt
        self._insert_bucket_begin(self._bucket(key), key)

    def _insert_bucket_begin(self, b, key) -> None:
        prev = self.before.get(b)
        if prev is not None:  # after the node before the bucket's first one
            self.order.insert(0 if prev is _HEAD else self.order.index(prev) + 1, key)
            return
        if self.order:
            self.before[self._bucket(self.order[0])] = key
        self.order.insert(0, key)
        self.before[b] = _HEAD

    def _rehash(self, nbkt, next_resize) -> None:
        old, self.order, self.before = self.order, [], {}
        self.nbkt, self.next_resize = nbkt, next_resize
        begin_bkt = 0
        for key in old:
            b = self._bucket(key)
            prev = self.before.get(b)
            if prev is None:
                if self.order:
                    self.before[begin_bkt] = key
                self.order.insert(0, key)
                self.before[b] = _HEAD
                begin_bkt = b
            else:
                self.order.insert(0 if prev is _HEAD else self.order.index(prev) + 1, key)


_HEAD = object()  # the list's before-begin node


def unordered_map_order(keys) -> list:
    """The iteration order of a libstdc++ ``unordered_map<std::string, T>`` filled with ``keys`` in turn."""
    m = _Map()
    for k in keys:
        if k not in m.hashes:
            m.insert(k)
    return m.order


# -- the re-read signatures ------------------------------------------------------------------------------------
class _Option:
    """A printed signature read back as invalid_arguments.cpp reads it: (name, type) per ", "-separated entry."""

    __slots__ = ("names", "types", "text")

    def __init__(self, text: str):
        self.text = text
        self.names, self.types = [], []
        for entry in text[1:-1].split(", "):
            cut = entry.rfind(" ")
            self.names.append(entry[cut + 1:])
            self.types.append(entry[:cut] if cut >= 0 else entry)

    def count_matches(self, args, kwargs) -> bool:
        return len(args) + len(kwargs) == len(self.names)

    def unmatched_kwargs(self, kw_order) -> list:
        start = max(len(self.names) - len(kw_order), 0)
        known = self.names[start:]
        return [k for k in kw_order if k not in known]


def _type_matches(type_name: str, obj) -> bool:
    got = tp_name(obj)
    if type_name == "float":
        return got in ("float", "int", "long")
    if type_name == "int":
        return got in ("int", "long")
    return got == type_name


def _colors():
    if os.isatty(1) and os.isatty(2):
        return "\33[31;1m", "\33[0m", "\33[32;1m", "\33[0m"
    return "!", "!", "", ""


def _value_desc(obj) -> str:
    if isinstance(obj, (tuple, list)):
        inner = ", ".join(tp_name(x) for x in obj)
        if isinstance(obj, tuple):
            return f"tuple of ({inner}{',' if len(obj) == 1 else ''})"
        return f"list of [{inner}]"
    return tp_name(obj)


def _formatted_arg_desc(option: _Option, args, kwargs) -> str:
    """The call's arguments, each marked matching (green) or not (``!red!``) against ``option``."""
    red, reset_red, green, reset_green = _colors()
    parts = []
    for i in range(len(args) + len(kwargs)):
        is_kwarg = i >= len(args)
        obj = kwargs[option.names[i]] if is_kwarg else args[i]
        ok = i < len(option.types) and _type_matches(option.types[i], obj)
        text = (option.names[i] + "=" if is_kwarg else "") + _value_desc(obj)
        parts.append(f"{green}{text}{reset_green}" if ok else f"{red}{text}{reset_red}")
    out = "".join(p + ", " for p in parts)
    return "(" + (out[:-2] if args else out) + ")"


def _arg_desc(args, kw_order, kwargs) -> str:
    out = "".join(tp_name(a) + ", " for a in args) + "".join(f"{k}={tp_name(kwargs[k])}, " for k in kw_order)
    return "(" + (out[:-2] if args else out) + ")"


def format_invalid_args(args, kwargs, function_name: str, options: list) -> str:
    """PyTorch's message for a call no signature accepts; ``options`` are the printed signatures."""
    kwargs = kwargs or {}
    kw_order = unordered_map_order(list(kwargs))
    msg = f"{function_name} received an invalid combination of arguments - "
    if len(options) == 1:
        option = _Option(options[0])
        unmatched = option.unmatched_kwargs(kw_order) if kwargs else []
        if unmatched:
            return msg + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = _formatted_arg_desc(option, args, kwargs) if option.count_matches(args, kwargs) else \
            _arg_desc(args, kw_order, kwargs)
        return msg + f"got {got}, but expected {option.text}"
    lines = [msg + f"got {_arg_desc(args, kw_order, kwargs)}, but expected one of:"]
    for text in options:
        option = _Option(text)
        lines.append(f" * {text}")
        if option.count_matches(args, kwargs):
            unmatched = option.unmatched_kwargs(kw_order) if kwargs else []
            if unmatched:
                lines.append("      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched))
            else:
                lines.append("      didn't match because some of the arguments have invalid types: "
                             + _formatted_arg_desc(option, args, kwargs))
    return "\n".join(lines) + "\n"
