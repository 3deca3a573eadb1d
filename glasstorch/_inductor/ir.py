"""The loop-level IR: index expressions, lazy tensor values, buffers and the kernel nodes the scheduler fuses.

PyTorch counterpart: ``torch/_inductor/ir.py`` (TensorBox/StorageBox/Pointwise/Reduction/ExternKernel) with
``sympy`` index algebra; here the algebra is a small affine form of our own.

Grammar::

    Index   := Affine( {term: int coeff}, const )          term := var | FloorDiv(Index, k) | Mod(Index, k)
                                                                  | Load(buffer, Index)   (indirect indexing)
    Box     := Pointwise(sizes, dtype, fn(idx) -> V)        lazy, inlined into every reader
             | BufView(buffer, sizes, strides, offset)      strided window on a materialised buffer
             | Reindexed(base Box, sizes, fn(idx) -> idx)   view that is not strided (reshape of a lazy value)
    Node    := PointwiseNode(buffer, fn) | ReductionNode(buffer, red_sizes, rtype, fn) | ExternNode(...)

A body ``fn`` is ordinary Python that calls :data:`ops` (``ops.load``, ``ops.add`` ...); running it under a
:class:`KernelWriter` prints C statements and records every read, which is how the scheduler sees accesses.

Invariant: an Affine is canonical (zero coefficients dropped, FloorDiv/Mod pairs recombined), so equal
index functions compare equal structurally.
"""

from __future__ import annotations

import math

from .._core import dtype as _dt

# -- index algebra ----------------------------------------------------------------------------------------
RANGES: dict = {}  # loop variable name -> extent, set by whoever builds loops


class FloorDiv:
    __slots__ = ("e", "k", "_h")

    def __init__(self, e, k):
        self.e, self.k = e, k
        self._h = hash(("fd", e, k))

    def __eq__(self, o):
        return type(o) is FloorDiv and o.k == self.k and o.e == self.e

    def __hash__(self):
        return self._h

    def bounds(self):
        lo, hi = self.e.bounds()
        return (None if lo is None else lo // self.k), (None if hi is None else hi // self.k)

    def render(self):
        return f"(({self.e.render()}) / {self.k})"

    def free(self):
        return self.e.free()


class Mod:
    __slots__ = ("e", "k", "_h")

    def __init__(self, e, k):
        self.e, self.k = e, k
        self._h = hash(("mod", e, k))

    def __eq__(self, o):
        return type(o) is Mod and o.k == self.k and o.e == self.e

    def __hash__(self):
        return self._h

    def bounds(self):
        return 0, self.k - 1

    def render(self):
        return f"(({self.e.render()}) % {self.k})"

    def free(self):
        return self.e.free()


class Clamp:
    """``min(max(e, lo), hi)``: keeps an index in bounds where a select between inputs does not use it (cat)."""

    __slots__ = ("e", "lo", "hi", "_h")

    def __init__(self, e, lo, hi):
        self.e, self.lo, self.hi = e, lo, hi
        self._h = hash(("clamp", e, lo, hi))

    def __eq__(self, o):
        return type(o) is Clamp and (o.lo, o.hi) == (self.lo, self.hi) and o.e == self.e

    def __hash__(self):
        return self._h

    def bounds(self):
        return self.lo, self.hi

    def render(self):
        e = self.e.render()
        return f"(({e}) < {self.lo} ? {self.lo} : (({e}) > {self.hi} ? {self.hi} : ({e})))"

    def free(self):
        return self.e.free()


def clamp(e, lo, hi):
    elo, ehi = e.bounds()
    if elo is not None and elo >= lo and ehi <= hi:
        return e
    return Affine({Clamp(e, lo, hi): 1})


class Load:
    """An index read from a buffer (embedding rows, gathered targets)."""

    __slots__ = ("buf", "index", "_h")

    def __init__(self, buf, index):
        self.buf, self.index = buf, index
        self._h = hash(("ld", buf.name, index))

    def __eq__(self, o):
        return type(o) is Load and o.buf is self.buf and o.index == self.index

    def __hash__(self):
        return self._h

    def bounds(self):
        return None, None

    def render(self):
        return f"((int64_t){current_writer().load(self.buf, self.index).name})"

    def free(self):
        return self.index.free() | {"@" + self.buf.name}


class Affine:
    """``const + sum(coeff * term)`` over int64 loop variables."""

    __slots__ = ("terms", "const", "_h")

    def __init__(self, terms: dict, const: int = 0):
        self.terms, extra = _recombine({k: c for k, c in terms.items() if c})
        self.const = const + extra
        self._h = None

    def __eq__(self, o):
        return type(o) is Affine and o.const == self.const and o.terms == self.terms

    def __hash__(self):
        if self._h is None:
            self._h = hash((frozenset(self.terms.items()), self.const))
        return self._h

    def __add__(self, o):
        if isinstance(o, int):
            return Affine(self.terms, self.const + o)
        t = dict(self.terms)
        for k, c in o.terms.items():
            t[k] = t.get(k, 0) + c
        return Affine(t, self.const + o.const)

    __radd__ = __add__

    def __mul__(self, k: int):
        if k == 0:
            return Affine({}, 0)
        return Affine({t: c * k for t, c in self.terms.items()}, self.const * k)

    __rmul__ = __mul__

    def is_const(self):
        return not self.terms

    def coeff(self, var: str) -> int:
        return self.terms.get(var, 0)

    def free(self) -> set:
        out = set()
        for t in self.terms:
            out |= {t} if isinstance(t, str) else t.free()
        return out

    def opaque_vars(self) -> set:
        """Variables that occur inside a FloorDiv/Mod/Load term (not linearly)."""
        out = set()
        for t in self.terms:
            if not isinstance(t, str):
                out |= t.free()
        return out

    def bounds(self):
        lo = hi = self.const
        for t, c in self.terms.items():
            if isinstance(t, str):
                tl, th = 0, RANGES[t] - 1
            else:
                tl, th = t.bounds()
                if tl is None or th is None:
                    return None, None
            a, b = c * tl, c * th
            lo += min(a, b)
            hi += max(a, b)
        return lo, hi

    def render(self) -> str:
        parts = []
        for t, c in sorted(self.terms.items(), key=_term_order):
            s = t if isinstance(t, str) else t.render()
            parts.append(s if c == 1 else f"{c}*{s}" if c > 0 else f"({c})*{s}")
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)

    def __repr__(self):
        return f"Affine({self.render()})"


def _term_order(kv):
    """A stable order of terms (generated C must not depend on object addresses: the disk cache keys on it)."""
    t = kv[0]
    if isinstance(t, str):
        return (0, t)
    if isinstance(t, Load):
        return (2, t.buf.name)
    return (1, t.render())


def _recombine(terms: dict) -> dict:
    """``k*c*FloorDiv(e,k) + c*Mod(e,k) -> c*e`` until nothing changes (undoes a split of one variable)."""
    extra = 0
    changed = True
    while changed:
        changed = False
        for t, c in list(terms.items()):
            if type(t) is not Mod or t not in terms:
                continue
            fd = FloorDiv(t.e, t.k)
            if terms.get(fd) == c * t.k:
                del terms[t], terms[fd]
                for k2, c2 in t.e.terms.items():
                    terms[k2] = terms.get(k2, 0) + c * c2
                    if terms[k2] == 0:
                        del terms[k2]
                extra += c * t.e.const
                changed = True
                break
    return terms, extra


def var(name: str) -> Affine:
    return Affine({name: 1})


def const(c: int) -> Affine:
    return Affine({}, c)


def _term_affine(t) -> Affine:
    return Affine({t: 1})


def floordiv(e: Affine, k: int) -> Affine:
    """``e // k`` for ``e >= 0``, simplified when the low part of ``e`` cannot carry into the quotient."""
    if k == 1:
        return e
    if e.is_const():
        return const(e.const // k)
    lo, hi = e.bounds()
    if lo is not None and 0 <= lo and hi < k:
        return const(0)
    split = _split(e, k)
    if split is not None:
        high, g = split
        return floordiv(high, k // g)
    if e.const and e.const % k == 0 and lo is not None and lo >= 0:
        return floordiv(Affine(e.terms), k) + e.const // k
    return _term_affine(FloorDiv(e, k))


def mod(e: Affine, k: int) -> Affine:
    """``e % k`` for ``e >= 0``."""
    if k == 1:
        return const(0)
    if e.is_const():
        return const(e.const % k)
    lo, hi = e.bounds()
    if lo is not None and 0 <= lo and hi < k:
        return e
    split = _split(e, k)
    if split is not None:
        high, g = split
        low = e + high * (-g)
        return mod(high, k // g) * g + low
    return _term_affine(Mod(e, k))


def _split(e: Affine, k: int):
    """Write ``e = g*high + low`` with ``g | k``, ``g > 1`` and ``0 <= low < g``; ``(high, g)`` or None."""
    items = sorted(e.terms.items(), key=lambda kv: -abs(kv[1]))
    for j in range(1, len(items) + 1):
        g = k
        for _, c in items[:j]:
            g = math.gcd(g, c)
        if g <= 1:
            return None
        low = Affine(dict(items[j:]), e.const)
        lo, hi = low.bounds()
        if lo is not None and lo >= 0 and hi < g:
            return Affine({t: c // g for t, c in items[:j]}), g
    return None


def unflatten(flat: Affine, sizes) -> list:
    """Per-dimension indices of a row-major flat index over ``sizes`` (nested div/mod, simplified)."""
    out = [None] * len(sizes)
    rest = flat
    for d in range(len(sizes) - 1, -1, -1):
        s = sizes[d]
        if s == 1:
            out[d] = const(0)
            continue
        if d == 0:
            out[d] = rest
        else:
            out[d] = mod(rest, s)
            rest = floordiv(rest, s)
    return out


def flatten(idx, strides) -> Affine:
    acc = const(0)
    for i, st in zip(idx, strides, strict=False):
        if st:
            acc = acc + i * st
    return acc


def contiguous_strides(sizes) -> tuple:
    out, acc = [], 1
    for s in reversed(sizes):
        out.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(out))


# -- C types ----------------------------------------------------------------------------------------------
CTYPES = {_dt.float32: "float", _dt.float64: "double", _dt.int64: "int64_t", _dt.int32: "int32_t",
          _dt.int16: "int16_t", _dt.int8: "int8_t", _dt.uint8: "uint8_t", _dt.bool: "bool"}


def ctype(dtype) -> str:
    return CTYPES[dtype]


def supported_dtype(dtype) -> bool:
    return dtype in CTYPES


# -- values and the kernel writer -------------------------------------------------------------------------
class V:
    """A C value in a kernel body: a variable or literal name and its dtype."""

    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype


class KernelWriter:
    """Collects the C statements of one loop body and the reads it performs."""

    def __init__(self, locals_=None):
        self.lines: list = []
        self.reads: list = []  # (buffer, Affine)
        self.n = 0
        self.locals = locals_ or {}  # buffer name -> C scalar holding buffer[x0] (fused reductions)
        self.cache: dict = {}

    def tmp(self, expr: str, dtype) -> V:
        key = (expr, dtype)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        self.n += 1
        name = f"t{self.n}"
        self.lines.append(f"{ctype(dtype)} {name} = {expr};")
        v = self.cache[key] = V(name, dtype)
        return v

    def load(self, buf, index: Affine) -> V:
        self.reads.append((buf, index))
        if buf.name in self.locals:
            return V(self.locals[buf.name], buf.dtype)
        return self.tmp(f"{buf.name}[{index.render()}]", buf.dtype)


_writers: list = []


def current_writer() -> KernelWriter:
    return _writers[-1]


class writing:
    """Context manager installing a :class:`KernelWriter` as the target of :data:`ops`."""

    def __init__(self, writer):
        self.writer = writer

    def __enter__(self):
        _writers.append(self.writer)
        return self.writer

    def __exit__(self, *exc):
        _writers.pop()


def _lit(value, dtype) -> str:
    if dtype is _dt.bool:
        return "1" if value else "0"
    if dtype.is_floating_point:
        v = float(value)
        if math.isnan(v):
            return "NAN" if dtype is _dt.float32 else "((double)NAN)"
        if math.isinf(v):
            return ("INFINITY" if v > 0 else "-INFINITY") if dtype is _dt.float32 else \
                ("((double)INFINITY)" if v > 0 else "((double)-INFINITY)")
        return f"(({ctype(dtype)}){v!r})"
    v = int(value)
    if dtype is _dt.int64 and v == -(2 ** 63):
        return "INT64_MIN"
    return f"(({ctype(dtype)}){v}LL)"


class _Ops:
    """The ops handler of loop bodies: each call prints one C statement into the current writer."""

    def load(self, buf, index) -> V:
        return current_writer().load(buf, index)

    def constant(self, value, dtype) -> V:
        return V(_lit(value, dtype), dtype)

    def index_expr(self, index: Affine, dtype) -> V:
        return current_writer().tmp(f"(({ctype(dtype)})({index.render()}))", dtype)

    def to(self, x: V, dtype) -> V:
        if x.dtype is dtype:
            return x
        if dtype is _dt.bool:
            return current_writer().tmp(f"({x.name} != 0)", dtype)
        return current_writer().tmp(f"(({ctype(dtype)}){x.name})", dtype)

    def expr(self, template: str, args, dtype) -> V:
        """``template`` with ``{0}``, ``{1}`` ... standing for the argument names."""
        return current_writer().tmp(template.format(*[a.name for a in args]), dtype)


ops = _Ops()


# -- lazy values ------------------------------------------------------------------------------------------
class Box:
    __slots__ = ("sizes", "dtype")

    def numel(self):
        return math.prod(self.sizes)


class Pointwise(Box):
    """A value computed elementwise from other boxes; ``fn(idx) -> V``; ``cost`` counts its ops."""

    __slots__ = ("fn", "cost")

    def __init__(self, sizes, dtype, fn, cost=1):
        self.sizes, self.dtype, self.fn, self.cost = tuple(sizes), dtype, fn, cost

    def load(self, idx):
        return self.fn(idx)


class BufView(Box):
    __slots__ = ("buf", "strides", "offset")

    def __init__(self, buf, sizes, strides, offset=0):
        self.buf, self.sizes, self.strides, self.offset = buf, tuple(sizes), tuple(strides), offset
        self.dtype = buf.dtype

    cost = 1

    def load(self, idx):
        return ops.load(self.buf, flatten(idx, self.strides) + self.offset)

    def is_identity(self):
        return self.offset == 0 and self.sizes == self.buf.sizes and same_strides(self.sizes, self.strides,
                                                                                    self.buf.strides)


class Reindexed(Box):
    """``remake(BufView) -> BufView | None`` redoes the view on a realised base (strided views only)."""

    __slots__ = ("base", "reindex", "remake")

    def __init__(self, base, sizes, reindex, remake=None):
        self.base, self.sizes, self.reindex, self.dtype = base, tuple(sizes), reindex, base.dtype
        self.remake = remake

    @property
    def cost(self):
        return getattr(self.base, "cost", 1)

    def load(self, idx):
        return self.base.load(self.reindex(idx))


def same_strides(sizes, a, b) -> bool:
    """Strides ``a`` and ``b`` address the same elements for ``sizes`` (they may differ on size-1 dims only)."""
    return all(s == 1 or x == y for s, x, y in zip(sizes, a, b, strict=False))


# -- buffers and scheduler nodes --------------------------------------------------------------------------
class Buffer:
    """A named piece of memory: ``kind`` is input / computed / extern / const."""

    __slots__ = ("name", "sizes", "strides", "dtype", "kind", "producer", "users", "is_output", "index", "origin")

    def __init__(self, name, sizes, strides, dtype, kind, index=None, origin=""):
        self.name, self.sizes, self.strides, self.dtype, self.kind = name, tuple(sizes), tuple(strides), dtype, kind
        self.origin = origin  # "fx node name: op" that created it (schedules, profiles, debug files)
        self.producer = None
        self.users: list = []
        self.is_output = False
        self.index = index  # placeholder position (inputs) / constant slot (consts)

    def numel(self):
        return math.prod(self.sizes)

    def nbytes(self):
        if 0 in self.sizes:
            return 0
        return (1 + sum((s - 1) * st for s, st in zip(self.sizes, self.strides, strict=False))) * self.dtype.itemsize

    def view(self) -> BufView:
        return BufView(self, self.sizes, self.strides, 0)

    def __repr__(self):
        return f"{self.name}:{self.dtype._name}{list(self.sizes)}"


class ComputeNode:
    """A loop nest writing one buffer: pointwise (``red_sizes`` empty) or a reduction."""

    __slots__ = ("buf", "fn", "red_sizes", "rtype", "acc_dtype", "reads", "order")

    def __init__(self, buf, fn, red_sizes=(), rtype=None, acc_dtype=None):
        self.buf, self.fn, self.red_sizes, self.rtype = buf, fn, tuple(red_sizes), rtype
        self.acc_dtype = acc_dtype
        self.reads: set = set()
        self.order = 0

    @property
    def is_reduction(self):
        return self.rtype is not None

    def outer_numel(self):
        return self.buf.numel() if self.is_reduction else None

    def __repr__(self):
        kind = f"reduction[{self.rtype} over {list(self.red_sizes)}]" if self.is_reduction else "pointwise"
        return f"{self.buf.name} = {kind} {list(self.buf.sizes)}"


class ExternNode:
    """A call outside the generated C: ``kind`` is "mm" / "bmm" (BLAS through numpy) or "fallback"."""

    __slots__ = ("kind", "op", "args", "kwargs", "inputs", "outs", "order", "reads", "multi", "out_view")

    def __init__(self, kind, op, args, kwargs, inputs, outs, multi=(), out_view=None):
        self.kind, self.op, self.args, self.kwargs, self.inputs, self.outs = kind, op, args, kwargs, inputs, outs
        self.multi = multi  # a fallback returning a tuple: the result index of each of ``outs`` (else ())
        self.out_view = out_view  # BLAS: the window of outs[0] numpy.matmul writes (a 4-d split of a bmm's batch)
        self.reads = {v.buf for v in inputs}
        self.order = 0

    @property
    def buf(self):
        return self.outs[0] if self.outs else None

    def __repr__(self):
        return f"{', '.join(o.name for o in self.outs)} = extern {self.kind} {self.op}"
