"""Operator schemas — PyTorch's ``torchgen/model.py`` (FunctionSchema, Argument, Type) for our YAML.

Grammar of a schema string (the ``func:`` line of native_functions.yaml and of ``library.define``)::

    schema   := name ['.' overload] '(' [arg {',' arg}] ')' '->' returns
    arg      := '*' | type name ['=' default]
    type     := base ['(' alias ')'] {'[' [N] ']' | '?'}        e.g. Tensor(a!)  int[1]?  Tensor?[]
    alias    := letters ['!'] [' -> *']                       a: aliases input a; a!: writes it
    returns  := '()' | ret | '(' ret {',' ret} ')'            ret := type [name]

Everything after ``*`` is keyword-only.  ``str(parse_schema(s)) == s`` for every normalised schema
(the round trip is tested), and parse errors say where in the string they happened.

Invariant: schemas are frozen values; all facts the codegen and dispatcher need (is this op in-place,
an out= variant, a view?) are derived from the annotations, never stored twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["FunctionSchema", "Argument", "Return", "Type", "Annotation", "parse_schema", "SchemaError",
           "parse_default"]

BASE_TYPES = {"Tensor", "int", "SymInt", "SymBool", "SymFloat", "float", "bool", "str", "Scalar", "ScalarType",
              "Layout", "Device", "MemoryFormat", "Generator", "Dimname", "Storage", "Stream", "QScheme", "Any", "t"}


class SchemaError(ValueError):
    """A malformed schema; the message quotes the schema and the position."""


@dataclass(frozen=True)
class Annotation:
    """An alias annotation: ``(a)`` alias of input a, ``(a!)`` written, ``(a -> *)`` list elements alias."""

    alias_set: str
    is_write: bool = False
    to_wildcard: bool = False

    def __str__(self):
        return f"{self.alias_set}{'!' if self.is_write else ''}{' -> *' if self.to_wildcard else ''}"


@dataclass(frozen=True)
class Type:
    """A schema type: a base name with optional list (``[]``/``[N]``) and optional (``?``) suffixes.

    ``suffixes`` keeps the order the suffixes were written in, e.g. ``Tensor?[]`` = ('?', '[]').
    """

    base: str
    suffixes: tuple = ()

    def __str__(self):
        return self.base + "".join(self.suffixes)

    @property
    def is_optional(self) -> bool:
        return bool(self.suffixes) and self.suffixes[-1] == "?"

    @property
    def is_list(self) -> bool:
        s = self.suffixes[:-1] if self.is_optional else self.suffixes
        return bool(s) and s[-1].startswith("[")

    @property
    def list_size(self) -> int | None:
        s = self.suffixes[:-1] if self.is_optional else self.suffixes
        inner = s[-1][1:-1] if s else ""
        return int(inner) if inner else None

    @property
    def is_tensor_like(self) -> bool:
        """Tensor, Tensor?, Tensor[] and Tensor?[] take part in dispatch."""
        return self.base == "Tensor"


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: str | None = None
    annotation: Annotation | None = None
    kwarg_only: bool = False

    def __str__(self):
        t = self.type.base
        if self.annotation is not None:
            t += f"({self.annotation})"
        t += "".join(self.type.suffixes)
        out = f"{t} {self.name}"
        return out if self.default is None else f"{out}={self.default}"

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write


@dataclass(frozen=True)
class Return:
    type: Type
    name: str | None = None
    annotation: Annotation | None = None

    def __str__(self):
        t = self.type.base
        if self.annotation is not None:
            t += f"({self.annotation})"
        t += "".join(self.type.suffixes)
        return t if self.name is None else f"{t} {self.name}"


@dataclass(frozen=True)
class FunctionSchema:
    name: str  # may carry a namespace: "mylib::foo"
    overload_name: str
    arguments: tuple
    returns: tuple
    _returns_parenthesised: bool = field(default=False, compare=False)

    def __str__(self):
        args, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                args.append("*")
                star = True
            args.append(str(a))
        head = self.name + (f".{self.overload_name}" if self.overload_name else "")
        if len(self.returns) == 1 and not self._returns_parenthesised:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        return f"{head}({', '.join(args)}) -> {rets}"

    # -- derived facts ---------------------------------------------------------------------------------
    @property
    def qualified_name(self) -> str:
        """``aten::add.Tensor`` style name used by the dispatcher."""
        base = self.name if "::" in self.name else f"aten::{self.name}"
        return base + (f".{self.overload_name}" if self.overload_name else "")

    @property
    def base_name(self) -> str:
        """``add`` for ``add_.Tensor`` and ``add.out``: the name without namespace, overload or ``_``."""
        n = self.name.split("::")[-1]
        return n[:-1] if self.is_inplace else n

    @property
    def is_inplace(self) -> bool:
        n = self.name.split("::")[-1]
        return n.endswith("_") and not n.endswith("__") and bool(self.arguments) and self.arguments[0].is_write

    @property
    def is_out(self) -> bool:
        return any(a.is_write and a.kwarg_only for a in self.arguments)

    @property
    def out_arguments(self) -> tuple:
        return tuple(a for a in self.arguments if a.is_write and a.kwarg_only)

    @property
    def is_view(self) -> bool:
        """Returns alias an input without writing it: ``Tensor(a) self -> Tensor(a)``."""
        return any(r.annotation is not None and not r.annotation.is_write for r in self.returns)

    @property
    def is_mutable(self) -> bool:
        return any(a.is_write for a in self.arguments)

    @property
    def tensor_arg_indices(self) -> tuple:
        return tuple(i for i, a in enumerate(self.arguments) if a.type.is_tensor_like)


# -- parser --------------------------------------------------------------------------------------------
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)?")


class _Parser:
    def __init__(self, text: str):
        self.s = text
        self.i = 0

    def fail(self, what):
        raise SchemaError(f"{what} at position {self.i} in schema: {self.s!r}\n{' ' * (self.i + 30)}^")

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def peek(self, tok):
        self.ws()
        return self.s.startswith(tok, self.i)

    def eat(self, tok):
        if not self.peek(tok):
            self.fail(f"expected {tok!r}")
        self.i += len(tok)

    def name(self):
        self.ws()
        m = _NAME.match(self.s, self.i)
        if not m:
            self.fail("expected a name")
        self.i = m.end()
        return m.group(0)

    def schema(self) -> FunctionSchema:
        name = self.name()
        overload = ""
        if self.peek("."):
            self.eat(".")
            overload = self.name()
        self.eat("(")
        args = self.arguments()
        self.eat(")")
        self.eat("->")
        returns, paren = self.returns()
        self.ws()
        if self.i != len(self.s):
            self.fail("unexpected trailing text")
        return FunctionSchema(name, overload, tuple(args), tuple(returns), paren)

    def arguments(self):
        args, kwarg_only = [], False
        if self.peek(")"):
            return args
        while True:
            if self.peek("*"):
                self.eat("*")
                kwarg_only = True
            else:
                t, ann = self.type()
                name = self.name()
                default = None
                if self.peek("="):
                    self.eat("=")
                    default = self.default()
                args.append(Argument(name, t, default, ann, kwarg_only))
            if not self.peek(","):
                return args
            self.eat(",")

    def default(self) -> str:
        self.ws()
        start, depth = self.i, 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in "[(":
                depth += 1
            elif c in "])":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                break
            elif c == '"':
                end = self.s.index('"', self.i + 1)
                self.i = end
            self.i += 1
        text = self.s[start:self.i].strip()
        if not text:
            self.fail("expected a default value")
        return text

    def type(self):
        base = self.name()
        if base not in BASE_TYPES:
            self.fail(f"unknown type {base!r}")
        ann = None
        if self.s.startswith("(", self.i):
            self.i += 1
            ann = self.annotation()
            self.eat(")")
        suffixes = []
        while self.i < len(self.s) and self.s[self.i] in "[?":
            if self.s[self.i] == "?":
                suffixes.append("?")
                self.i += 1
            else:
                end = self.s.index("]", self.i)
                inner = self.s[self.i + 1:end]
                if inner and not inner.isdigit():
                    self.fail("list size must be an integer")
                suffixes.append(f"[{inner}]")
                self.i = end + 1
        return Type(base, tuple(suffixes)), ann

    def annotation(self):
        self.ws()
        m = re.compile(r"[a-z]+").match(self.s, self.i)
        if not m:
            self.fail("expected an alias set")
        self.i = m.end()
        write = False
        if self.s.startswith("!", self.i):
            write = True
            self.i += 1
        wildcard = False
        if self.peek("->"):
            self.eat("->")
            self.eat("*")
            wildcard = True
        return Annotation(m.group(0), write, wildcard)

    def returns(self):
        if self.peek("("):
            self.eat("(")
            rets = []
            if not self.peek(")"):
                while True:
                    rets.append(self.ret())
                    if not self.peek(","):
                        break
                    self.eat(",")
            self.eat(")")
            return rets, True
        return [self.ret()], False

    def ret(self):
        t, ann = self.type()
        name = None
        self.ws()
        if self.i < len(self.s) and (self.s[self.i].isalpha() or self.s[self.i] == "_"):
            name = self.name()
        return Return(t, name, ann)


def parse_schema(text: str) -> FunctionSchema:
    """Parse ``name.overload(args) -> returns``; raises SchemaError naming the position."""
    return _Parser(text.strip()).schema()


_ENUM_DEFAULTS = {"Mean": 1, "Sum": 2, "contiguous_format": "contiguous_format", "long": "long"}
# A ScalarType default as torch's registered schemas print it (c10::ScalarType's number) and as
# native_functions.yaml writes it (``dtype=long``) read the same
_SCALAR_TYPE_CODES = {"4": "long"}


def parse_default(text: str, type_: Type):
    """The Python value of a schema default (``None``, ``True``, ``1``, ``[0, 1]``, ``"valid"``, ``Mean``)."""
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith('"') or text.startswith("'"):
        return text[1:-1]
    if text.startswith("["):
        inner = text[1:-1].strip()
        if not inner:
            return ()
        vals = tuple(parse_default(x.strip(), Type(type_.base)) for x in inner.split(","))
        return vals
    if text in _ENUM_DEFAULTS:
        return _ENUM_DEFAULTS[text]
    if type_.base == "ScalarType" and text in _SCALAR_TYPE_CODES:
        return _SCALAR_TYPE_CODES[text]
    try:
        v = int(text)
    except ValueError:
        try:
            v = float(text)
        except ValueError:
            return text
        return v
    if type_.is_list and type_.list_size:
        return (v,) * type_.list_size
    if type_.base == "float":
        return float(v)
    return v
