"""Which Python overloads a public name has, and in which order the parser tries them.

PyTorch's counterpart is the grouping half of ``tools/autograd/gen_python_functions.py``: functional and
``out=`` overloads pair up into one Python signature (:class:`Overload`), legacy argument orders from
``deprecated.yaml`` join as extra signatures, and the list is ordered the way PyTorch orders it, which is
what decides both which overload a call binds to and the order of the TypeError's "expected one of" list:

1. alphabetically by the signature's text in PyTorch's binding syntax (C++ type names: ``int64_t``,
   ``SymIntArrayRef``, ``c10::string_view``; ``self`` spelled ``input`` when it is a Tensor);
2. then topologically by a partial order on argument types, so that of two signatures that could take the
   same call the more specific one comes first: Tensor before Scalar, ``int`` before ``int[]``, a Tensor
   list after other lists, ``int[]`` before ``SymInt[]``, Tensor before ``int``/``SymInt``.

Invariant: the order depends only on the declarations, never on the order of the YAML files.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import yaml
from model import ROOT, DeclarationError, NativeFunction, parse_schema

DEPRECATED_YAML = Path(__file__).resolve().parent / "deprecated.yaml"
TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")


@dataclass(frozen=True)
class Deprecated:
    """A legacy argument order (``add(Tensor self, Scalar alpha, Tensor other)``) that forwards to ``target``.

    ``call`` gives, per argument of ``target``, the legacy argument's name or a literal (``"1"``).
    """

    func: object  # FunctionSchema of the legacy signature
    target: NativeFunction
    call: tuple
    loc: str

    @property
    def ident(self) -> str:
        return self.target.ident


@dataclass
class Overload:
    """One Python signature: a functional overload, its ``out=`` twin, or both; ``deprecated`` ones are
    legacy orders (then ``fn``/``out`` are :class:`Deprecated`)."""

    fn: object = None
    out: object = None
    deprecated: bool = False

    @property
    def base(self):
        return self.fn or self.out


# -- PyTorch's binding-syntax text of a signature (the sort key) -----------------------------------------------
_CPP_NAMES = {"int": "int64_t", "float": "double", "str": "c10::string_view"}
_CPP_LISTS = {"int": "IntArrayRef", "SymInt": "SymIntArrayRef", "Tensor": "TensorList", "Scalar": "ScalarList"}


def _cpp_type(t) -> str:
    if t.is_optional:
        inner = type(t)(t.base, t.suffixes[:-1])
        return _cpp_type(inner) + "?"
    if t.is_list:
        size = "" if t.list_size is None else f"[{t.list_size}]"
        if t.base == "bool":
            return f"::std::array<bool,{t.list_size}>"
        if str(t) == "Tensor?[]":
            return "c10::List<::std::optional<Tensor>>"
        if t.base in _CPP_LISTS:
            return _CPP_LISTS[t.base] + size
        return f"ArrayRef<{_CPP_NAMES.get(t.base, t.base)}>"
    return _CPP_NAMES.get(t.base, t.base)


def _cpp_default(d: str) -> str:
    return {"True": "True", "False": "False", "true": "True", "false": "False"}.get(d, d)


def _arguments(f, method: bool, skip_outputs: bool):
    """The Python arguments of ``f``: positional, keyword-only, ``out``, then the tensor options."""
    args = [a for a in f.func.arguments if not (a.is_write and a.kwarg_only)]
    if method:
        args = [a for a in args if a.name != "self"]
    options = [a for a in args if a.name in TENSOR_OPTIONS]
    args = [a for a in args if a.name not in TENSOR_OPTIONS]
    return args, options


def sort_text(ov: Overload, method: bool) -> str:
    """``signature_str``: the text PyTorch sorts overloads by (outputs and tensor options included)."""
    args, options = _arguments(ov.base, method, False)
    parts, star = [], False
    for a in args:
        if a.kwarg_only and not star:
            parts.append("*")
            star = True
        t = _cpp_type(a.type)
        name = "input" if (a.name == "self" and t == "Tensor" and not method) else a.name
        parts.append(f"{t} {name}" + (f"={_cpp_default(a.default)}" if a.default is not None else ""))
    outs = (ov.out or ov.base).func.out_arguments if (ov.out or ov.base.func.is_out) else ()
    rest = (["Tensor out=None"] if len(outs) == 1 else [f"TensorList[{len(outs)}] out=None"]) if outs else []
    if options:
        rest += ["ScalarType? dtype=None", "Layout? layout=None", "Device? device=None", "bool? pin_memory=False",
                 "bool requires_grad=False"]
    if rest and not star:
        parts.append("*")
    name = ov.base.func.name.split("::")[-1]
    return f"{name}({', '.join(parts + rest)})" + ("|deprecated" if ov.deprecated else "")


def _types(ov: Overload, method: bool) -> list:
    args, options = _arguments(ov.base, method, True)
    return [str(a.type) for a in args + options]


def _arg_smaller(t1: str, t2: str) -> bool:
    """Whether a parameter of type ``t1`` ranks below one of type ``t2`` (it is tried later)."""
    return ((t1 == "Scalar" and t2 == "Tensor") or (t1 == "Scalar?" and t2 == "Tensor?")
            or (t1 == "int[]" and t2 in ("int", "int?")) or (t1 == "Tensor[]" and "[]" in t2)
            or (t1 == "SymInt[]" and t2 == "int[]") or (t1 in ("SymInt", "int") and t2 == "Tensor"))


def _smaller(s1: list, s2: list) -> bool:
    if len(s1) != len(s2) or s1 == s2:
        return False
    return all(a == b or _arg_smaller(a, b) for a, b in zip(s1, s2, strict=True))


def sort_overloads(entries: list, method: bool) -> list:
    """PyTorch's order: by signature text, then a topological sort of the "tried later" relation."""
    entries = sorted(entries, key=lambda ov: sort_text(ov, method))
    types = [_types(ov, method) for ov in entries]
    larger_than = defaultdict(set)
    for i, t1 in enumerate(types):
        for j, t2 in enumerate(types):
            if _smaller(t1, t2):
                larger_than[i].add(j)
    if not larger_than:
        return entries
    order = [i for i in range(len(entries)) if i not in larger_than]
    for idx in range(len(entries)):
        done = order[idx]
        for j in sorted(larger_than):
            waiting = larger_than[j]
            waiting.discard(done)
            if not waiting:
                del larger_than[j]
                order.append(j)
    return [entries[i] for i in order]


# -- deprecated.yaml ----------------------------------------------------------------------------------------
def _split_call(text: str, loc: str):
    name, _, rest = text.partition("(")
    if not rest.endswith(")"):
        raise DeclarationError(f"{loc}: 'calls' must look like op.overload(arg, ...), got {text!r}")
    return name.strip(), tuple(a.strip() for a in rest[:-1].split(",") if a.strip())


def load_deprecated(fns) -> list:
    """Legacy signatures whose target overload is declared (the others are skipped: no op to call)."""
    by_name = {f.name: f for f in fns}
    shown = DEPRECATED_YAML.relative_to(ROOT)
    out = []
    for raw in yaml.safe_load(DEPRECATED_YAML.read_text()) or []:
        loc = f"{shown}: {raw.get('signature')}"
        schema = parse_schema(raw["signature"])
        target_name, call = _split_call(raw["calls"], loc)
        target = by_name.get(target_name)
        if target is None or target.manual_python_binding:
            continue
        names = {a.name for a in schema.arguments}
        params = [a for a in target.func.arguments]
        if len(call) != len(params) or any(c not in names and c != "1" for c in call):
            raise DeclarationError(f"{loc}: 'calls' must name one legacy argument (or 1) per argument of "
                                   f"{target.func}")
        out.append(Deprecated(schema, target, call, loc))
    return out


def deprecated_overloads(deprecated: list, pyname: str, variant: str) -> list:
    """The :class:`Overload` entries of ``pyname`` from the legacy signatures, ``out=`` folded in."""
    groups = {}
    for d in deprecated:
        if d.func.name != pyname or variant not in d.target.variants and not d.func.is_out:
            continue
        if d.func.is_out and variant != "function":
            continue
        key = tuple(str(a) for a in d.func.arguments if not (a.is_write and a.kwarg_only))
        ov = groups.setdefault(key, Overload(deprecated=True))
        if d.func.is_out:
            ov.out = d
        else:
            ov.fn = d
    return list(groups.values())
