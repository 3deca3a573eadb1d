"""OpInfo entries: random operators (glasstorch/_ops/native_functions/random.yaml).

glasstorch's streams are not PyTorch's, so plain entries (``random=True``) compare shapes, dtypes and
errors only.  Three kinds of entries check values anyway, each run in both libraries on the same inputs:

- deterministic cases (``bernoulli`` with probabilities 0/1, ``multinomial`` with one-hot rows, dropout
  with ``p`` 0 or 1) compare values exactly;
- *property* entries run a small program and return Python booleans — the in-place contract (returns
  ``self``, bumps ``_version``), reproducibility under ``manual_seed`` and a ``Generator``;
- *statistics* entries draw many samples and return whether range, mean and spread fit the
  distribution (5-sigma bounds), so both libraries must pass the same statistical test.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np
from opinfo import ALL_FLOAT, FLOATS, HALF, INTS, ErrorSample, OpInfo, Sample, T

RANDOM_FLOAT = ALL_FLOAT + ("complex64",)
SHAPES = [(), (5,), (3, 4), (2, 3, 4), (0,), (2, 0, 3)]


@dataclasses.dataclass
class FnOpInfo(OpInfo):
    """An entry whose callable is ``fn(lib)`` (a program over the library) instead of a dotted name."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib)


def _np(t) -> np.ndarray:
    t = t.detach()
    if repr(t.dtype) in ("torch.bfloat16", "torch.float16"):
        t = t.float()
    return np.asarray(t.tolist())


def inplace_samples(*arg_sets, layouts=True):
    """Samples ``(T(shape), *args)`` for every shape and argument set, plus non-contiguous layouts."""
    def samples(dtype):
        for args, kwargs in arg_sets:
            for shape in SHAPES:
                yield Sample((T(shape),) + args, dict(kwargs), name=f"{shape} {args} {kwargs}")
            if layouts:
                yield Sample((T((3, 4), layout="transposed"),) + args, dict(kwargs), name=f"transposed {args}")
                yield Sample((T((3, 6), layout="strided"),) + args, dict(kwargs), name=f"strided {args}")
    return samples


def _overlap(*args):
    return ErrorSample((T((2, 3), layout="expanded"),) + args, form="method", name="expanded self")


# -- error samples -------------------------------------------------------------------------------------------
def uniform_errors():
    return [ErrorSample((T((3,), dtype="int64"),), form="method", name="int"),
            ErrorSample((T((3,), dtype="bool"),), form="method", name="bool"),
            ErrorSample((T((3,)), 2.0, 1.0), form="method", name="from > to"),
            ErrorSample((T((3,)), float("inf"), 1.0), form="method", name="from inf"),
            ErrorSample((T((3,)), 0.0, 1e39), form="method", name="to out of float range"),
            ErrorSample((T((3,), dtype="float16"), 0.0, 7e4), form="method", name="to out of half range"),
            ErrorSample((T((3,)), -3e38, 3e38), form="method", name="to - from overflows"),
            ErrorSample((T((3,), dtype="complex64"), 0.0, 1e39), form="method", name="complex bounds"),
            ErrorSample((T((3,)), "x"), form="method", name="from type"),
            ErrorSample((T((3,)),), {"generator": "x"}, form="method", name="generator type"),
            _overlap()]


def normal_errors():
    return [ErrorSample((T((3,), dtype="int64"),), form="method", name="int"),
            ErrorSample((T((3,)), 0.0, -1.0), form="method", name="negative std"),
            ErrorSample((T((3,), dtype="int64"), 0.0, -1.0), form="method", name="int, negative std"),
            ErrorSample((T((3,)), 0.0, -1.0), {"generator": 1}, form="method", name="generator type first"),
            _overlap()]


def exponential_errors():
    return [ErrorSample((T((3,)), 0.0), form="method", name="lambda 0"),
            ErrorSample((T((3,)), -1.0), form="method", name="negative lambda"),
            ErrorSample((T((3,), dtype="int64"),), form="method", name="int"),
            ErrorSample((T((3,), dtype="complex64"),), form="method", name="complex"),
            ErrorSample((T((3,), dtype="int64"), 0.0), form="method", name="int, lambda 0"),
            ErrorSample((T((3,)),), {"generator": "x"}, form="method", name="generator type"),
            _overlap()]


def bernoulli__errors():
    return [ErrorSample((T((3,)), 1.5), form="method", name="p > 1"),
            ErrorSample((T((3,)), -0.5), form="method", name="p < 0"),
            ErrorSample((T((3,), dtype="complex64"), 0.5), form="method", name="complex self"),
            ErrorSample((T((3,)), T((3,), values=(1.5, 0.0, 0.0))), form="method", name="tensor p > 1"),
            ErrorSample((T((3,)), T((2,), low=0, high=1)), form="method", name="p not broadcastable"),
            ErrorSample((T((2, 3)), T((3, 1), low=0, high=1)), form="method", name="p shape"),
            ErrorSample((T((3,)), T((3,), dtype="int64", low=0, high=2)), form="method", name="int p"),
            ErrorSample((T((3,), dtype="complex64"), T((3,), low=0, high=1)), form="method", name="complex, tensor p"),
            ErrorSample((T((3,)), "x"), form="method", name="p type"),
            _overlap()]


def bernoulli_errors():
    return [ErrorSample((T((3,), values=(1.5, 0.0, 0.0)),), name="p > 1"),
            ErrorSample((T((3,), values=(-1.5, 0.0, 0.0)),), name="p < 0"),
            ErrorSample((T((3,), dtype="bool"),), name="bool"),
            ErrorSample((T((3,), dtype="int64", low=0, high=2),), name="int"),
            ErrorSample((T((3,)), 1.5), name="float p > 1"),
            ErrorSample((T((3,)), "x"), name="p type")]


def random_errors():
    return [ErrorSample((T((3,)), 5, 5), form="method", name="from == to"),
            ErrorSample((T((3,)), 0), form="method", name="to 0"),
            ErrorSample((T((3,)), -1), form="method", name="to negative"),
            ErrorSample((T((3,)), 3, 2), form="method", name="from > to"),
            ErrorSample((T((3,), dtype="int8"), 0, 300), form="method", name="int8 to"),
            ErrorSample((T((3,), dtype="int8"), -129, 0), form="method", name="int8 from"),
            ErrorSample((T((3,), dtype="uint8"), -5, 5), form="method", name="uint8 from"),
            ErrorSample((T((3,), dtype="uint8"), -1, None), form="method", name="uint8 from, to=None"),
            ErrorSample((T((3,), dtype="int8"), 200, None), form="method", name="int8 from, to=None"),
            ErrorSample((T((3,), dtype="bool"), 10), form="method", name="bool to"),
            ErrorSample((T((3,), dtype="bool"), 3, None), form="method", name="bool from"),
            ErrorSample((T((3,)), 2 ** 25, None), form="method", name="float from > 2**24"),
            ErrorSample((T((3,), dtype="complex64"),), form="method", name="complex"),
            ErrorSample((T((3,), dtype="complex64"), 10), form="method", name="complex to"),
            ErrorSample((T((3,), dtype="complex64"), 3, None), form="method", name="complex from"),
            ErrorSample((T((3,), dtype="int64"), 0, 2 ** 63), form="method", name="int64 overflow"),
            _overlap(), _overlap(10), _overlap(1, 5)]


def multinomial_errors():
    p = T((3,), low=0.1, high=1)
    return [ErrorSample((p, 4), name="too many without replacement"),
            ErrorSample((p, 0), name="n=0"), ErrorSample((p, -1), name="n<0"),
            ErrorSample((T((3,), dtype="int64", low=1, high=3), 1), name="int"),
            ErrorSample((T(()), 1), name="0-d"), ErrorSample((T((2, 2, 2)), 1), name="3-d"),
            ErrorSample((T((3,), values=(0.0, 0.0, 0.0)), 1), name="zero sum"),
            ErrorSample((T((2, 3), values=((0.0, 0.0, 0.0), (1.0, 1.0, 1.0))), 2, True), name="zero row, replacement"),
            ErrorSample((T((3,), values=(1.0, -1.0, 2.0)), 1), name="negative"),
            ErrorSample((T((3,), values=(1.0, float("nan"), 2.0)), 1), name="nan"),
            ErrorSample((T((3,), values=(1.0, float("inf"), 2.0)), 1), name="inf"),
            ErrorSample((T((3,), values=(1.0, -1.0, 2.0)), 2, True), name="negative, replacement"),
            ErrorSample((T((3,), values=(1.0, float("nan"), 2.0)), 2, True), name="nan, replacement"),
            ErrorSample((T((3,), values=(1.0, float("inf"), 2.0)), 2, True), name="inf, replacement"),
            ErrorSample((p, 2), {"out": T((0,))}, name="float out"),
            ErrorSample((p, 2), {"generator": "x"}, name="generator type"),
            ErrorSample((T((2, 0)), 1), name="no categories")]


# -- sample sets -----------------------------------------------------------------------------------------------
def bernoulli_samples(dtype):
    for shape in SHAPES:
        yield Sample((T(shape, low=0, high=1),), name=f"{shape}")
    yield Sample((T((3, 4), low=0, high=1, layout="transposed"),), name="transposed")
    yield Sample((T((3, 4), low=0, high=1), 0.3), name="p=0.3")
    # (no out= form: PyTorch lists the keyword arguments of the failed call in another order)
    yield Sample((T((3, 4), low=0, high=1), 0.3), {"generator": None}, name="generator=None", skip_out=True)


def bernoulli_deterministic(dtype):
    """Probabilities 0 and 1 leave nothing to chance: values must equal torch's."""
    vals = ((0.0, 1.0, 1.0, 0.0), (1.0, 1.0, 0.0, 0.0))
    yield Sample((T((2, 4), values=vals),), name="p in {0, 1}")
    yield Sample((T((2, 4), values=vals, layout="transposed"),), name="transposed")
    yield Sample((T((2, 4)), 1.0), name="p=1")
    yield Sample((T((2, 4)), 0.0), name="p=0")


def bernoulli__deterministic(dtype):
    yield Sample((T((2, 4)), T((2, 4), dtype="float32", values=((0.0, 1.0, 1.0, 0.0), (1.0, 1.0, 0.0, 0.0)))),
                 name="tensor p in {0, 1}")
    yield Sample((T((2, 4)), T((4,), dtype="float64", values=(0.0, 1.0, 1.0, 0.0))), name="broadcast p")
    yield Sample((T((2, 4)), 1.0), name="p=1")
    yield Sample((T((3, 4), layout="strided"), 0.0), name="p=0 strided")


def random_samples(dtype):
    ranges = [((), {}), ((10,), {}), ((-5, 5) if dtype not in ("uint8", "bool") else (0, 2), {}),
              ((3, None), {}) if dtype != "bool" else ((0, None), {}), ((), {"to": 2}), ((), {"from": 1, "to": 2})]
    for args, kw in ranges:
        if dtype == "bool" and args == (10,):
            args = (2,)
        for shape in ((), (5,), (3, 4), (0,)):
            yield Sample((T(shape),) + args, dict(kw), name=f"{shape} {args} {kw}")
        yield Sample((T((3, 6), layout="strided"),) + args, dict(kw), name=f"strided {args} {kw}")


def multinomial_samples(dtype):
    yield Sample((T((5,), low=0.1, high=1), 3), name="1-d")
    yield Sample((T((5,), low=0.1, high=1), 5), name="all, no replacement")
    yield Sample((T((5,), low=0.1, high=1), 8, True), name="replacement")
    yield Sample((T((4, 5), low=0.1, high=1), 2), name="2-d")
    yield Sample((T((4, 5), low=0.1, high=1), 7), {"replacement": True}, name="2-d replacement")
    yield Sample((T((4, 5), low=0.1, high=1, layout="transposed"), 1), name="transposed")
    yield Sample((T((0, 3), low=0.1, high=1), 1), name="no rows")


def multinomial_deterministic(dtype):
    rows = ((0.0, 0.0, 3.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.5))
    yield Sample((T((3, 4), values=rows), 1), name="one-hot rows")
    yield Sample((T((3, 4), values=rows), 5, True), name="one-hot rows, replacement")
    yield Sample((T((4,), values=rows[0]), 3, True), name="1-d, replacement")


# -- property entries --------------------------------------------------------------------------------------------
def _inplace_contract(call):
    """(returns self, version bumped, dtype kept, shape kept) for ``call(x)`` on a fresh tensor."""
    def run(lib):
        def go(x):
            v, shape, dt = x._version, tuple(x.shape), x.dtype
            res = call(lib, x)
            return res is x, x._version > v, res.dtype == dt, tuple(res.shape) == shape
        return go
    return run


def _reproducible(call):
    """Same seed, same numbers: with manual_seed and with an explicit Generator; different seeds differ."""
    def run(lib):
        def go(x):
            lib.manual_seed(123)
            a = _np(call(lib, x.clone(), None))
            lib.manual_seed(123)
            b = _np(call(lib, x.clone(), None))
            g1, g2 = lib.Generator().manual_seed(7), lib.Generator().manual_seed(7)
            c = _np(call(lib, x.clone(), g1))
            d = _np(call(lib, x.clone(), g2))
            e = _np(call(lib, x.clone(), g1))  # the generator moved on
            return np.array_equal(a, b, equal_nan=True), np.array_equal(c, d, equal_nan=True), \
                not np.array_equal(c, e)
        return go
    return run


def _stats(call, check):
    """Draw ``call(lib, x)`` on a large tensor; ``check(values, dtype_name)`` returns a tuple of booleans."""
    def run(lib):
        def go(x):
            out = call(lib, x)
            return tuple(bool(b) for b in check(_np(out), repr(out.dtype).removeprefix("torch.")))
        return go
    return run


def _five_sigma(values, mean, std):
    return abs(values.mean() - mean) <= 5 * std / math.sqrt(values.size) + 1e-3 * abs(mean)


_RES = {"float16": 2 ** -11, "bfloat16": 2 ** -8}


def _check_uniform(lo, hi):
    def check(v, dt):
        tol = _RES.get(dt, 0) * max(abs(lo), abs(hi))
        return (v.min() >= lo, v.max() < hi + tol, _five_sigma(v, (lo + hi) / 2, (hi - lo) / math.sqrt(12)),
                abs(v.std() - (hi - lo) / math.sqrt(12)) < 0.05 * (hi - lo))
    return check


def _check_normal(mean, std):
    def check(v, dt):
        return _five_sigma(v, mean, std), abs(v.std() - std) < 0.05 * std
    return check


def _check_exponential(lambd):
    def check(v, dt):
        return v.min() >= 0, _five_sigma(v, 1 / lambd, 1 / lambd), abs(v.std() - 1 / lambd) < 0.05 / lambd
    return check


def _check_bernoulli(p):
    def check(v, dt):
        return np.isin(v, (0, 1)).all(), _five_sigma(v, p, math.sqrt(p * (1 - p)))
    return check


def _check_random(lo, hi_inclusive):
    def check(v, dt):
        n = hi_inclusive - lo + 1
        hits = np.bincount((v - lo).astype(np.int64), minlength=n) if n <= 64 else None
        return (v.min() >= lo, v.max() <= hi_inclusive, np.all(v == np.round(v)),
                _five_sigma(v, (lo + hi_inclusive) / 2, math.sqrt((n * n - 1) / 12)),
                hits is None or (hits > 0).all())
    return check


def _check_multinomial(probs, n, replacement):
    probs = np.asarray(probs, dtype=np.float64)

    def check(v, dt):
        v = v.astype(np.int64)
        if not replacement:
            return ((np.sort(v, axis=-1) == np.arange(len(probs))).all(),)  # a permutation per row
        freq = np.bincount(v.reshape(-1), minlength=len(probs)) / v.size
        p = probs / probs.sum()
        return np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / v.size) + 1e-9), (freq[p == 0] == 0).all()
    return check


def _check_dropout(p):
    def check(v, dt):
        kept = v != 0
        return (np.allclose(v[kept], 1 / (1 - p), rtol=1e-2), _five_sigma(kept.astype(np.float64), 1 - p,
                                                                          math.sqrt(p * (1 - p))))
    return check


N = 20000
BIG = (T((N,), low=0, high=1),)
ONES = (T((N,), values=(1.0,) * N),)


def _stat_entry(name, call, check, dtypes=FLOATS + HALF, args=BIG):
    return FnOpInfo(f"statistics: {name}", aten=(), fn=_stats(call, check), dtypes=dtypes,
                    samples=lambda dt: [Sample(args, name=name)])


def _nn_dropout(lib):
    return lib.nn.functional.dropout


STATS = [
    _stat_entry("uniform_(-2, 3)", lambda lib, x: x.uniform_(-2, 3), _check_uniform(-2, 3)),
    _stat_entry("uniform_()", lambda lib, x: x.uniform_(), _check_uniform(0, 1)),
    _stat_entry("normal_(1.5, 2)", lambda lib, x: x.normal_(1.5, 2), _check_normal(1.5, 2)),
    _stat_entry("exponential_(2.5)", lambda lib, x: x.exponential_(2.5), _check_exponential(2.5)),
    _stat_entry("bernoulli_(0.3)", lambda lib, x: x.bernoulli_(0.3), _check_bernoulli(0.3),
                dtypes=FLOATS + ("int64", "uint8")),
    _stat_entry("bernoulli_(tensor 0.7)", lambda lib, x: x.bernoulli_(lib.full((N,), 0.7)), _check_bernoulli(0.7),
                dtypes=("float32", "int64")),
    _stat_entry("bernoulli(p)", lambda lib, x: lib.bernoulli(x * 0 + 0.2), _check_bernoulli(0.2),
                dtypes=("float32", "float64")),
    _stat_entry("random_(-3, 4)", lambda lib, x: x.random_(-3, 4), _check_random(-3, 3),
                dtypes=FLOATS + ("int64", "int8", "int32")),
    _stat_entry("random_(6)", lambda lib, x: x.random_(6), _check_random(0, 5),
                dtypes=ALL_FLOAT + INTS),
    _stat_entry("random_() bool", lambda lib, x: x.random_(), _check_random(0, 1), dtypes=("bool",)),
    _stat_entry("random_() uint8", lambda lib, x: x.random_(), _check_random(0, 255), dtypes=("uint8",)),
    _stat_entry("random_() bfloat16", lambda lib, x: x.random_(), _check_random(0, 256), dtypes=("bfloat16",)),
    _stat_entry("random_(250, None) uint8", lambda lib, x: x.random_(250, None), _check_random(250, 255),
                dtypes=("uint8",)),
    _stat_entry("multinomial replacement", lambda lib, x: lib.multinomial(x, N, True),
                _check_multinomial((0.1, 0.0, 0.6, 0.3), N, True), args=(T((4,), values=(0.1, 0.0, 0.6, 0.3)),),
                dtypes=FLOATS + HALF),
    _stat_entry("multinomial rows", lambda lib, x: x.multinomial(5),
                _check_multinomial(np.ones(5), 5, False), args=(T((50, 5), low=0.01, high=1),), dtypes=FLOATS),
    _stat_entry("multinomial first draw", lambda lib, x: lib.multinomial(x.expand(N, 4), 1),
                _check_multinomial((0.1, 0.0, 0.6, 0.3), 1, True),
                args=(T((1, 4), values=((0.1, 0.0, 0.6, 0.3),)),), dtypes=("float32",)),
    _stat_entry("dropout(p=0.3)", lambda lib, x: _nn_dropout(lib)(x, 0.3), _check_dropout(0.3), args=ONES),
    _stat_entry("native_dropout(p=0.6)", lambda lib, x: lib.native_dropout(x, 0.6, True)[0], _check_dropout(0.6),
                args=ONES, dtypes=FLOATS),
    FnOpInfo("statistics: native_dropout mask", aten=(), dtypes=FLOATS, samples=lambda dt: [Sample(ONES)],
             fn=lambda lib: lambda x: (lambda r: bool(((_np(r[0]) != 0) == _np(r[1])).all()))(
                 lib.native_dropout(x, 0.5, True))),
]


def _call(method, *args):
    return lambda lib, x, gen=None: getattr(x, method)(*args, generator=gen)


def _meta_draws(lib):
    state = _np(lib.get_rng_state())
    # (not normal_/exponential_/multinomial: PyTorch's first meta call of those imports its Python meta
    # registrations, seconds of test time)
    shapes = [tuple(r.shape) for r in (lib.empty(3, 4, device="meta").uniform_(),
                                       lib.empty(2, device="meta").random_(5),
                                       lib.empty(2, device="meta").bernoulli_(0.5))]
    return shapes, bool(np.array_equal(state, _np(lib.get_rng_state())))


PROPERTIES = [
    FnOpInfo(f"in-place contract: {m}{args}", aten=(), fn=_inplace_contract(_call(m, *args)), dtypes=dts,
             samples=lambda dt: [Sample((T((3, 4)),)), Sample((T((3, 6), layout="strided"),))])
    for m, args, dts in (("uniform_", (), ALL_FLOAT), ("normal_", (2.0,), ALL_FLOAT), ("exponential_", (), FLOATS),
                         ("bernoulli_", (0.4,), FLOATS + ("int64",)), ("random_", (), FLOATS + ("int64",)),
                         ("random_", (7,), ("float32", "int8")), ("random_", (2, 9), ("float32", "int64")),
                         ("random_", (2, None), ("int32",)))
] + [
    FnOpInfo(f"reproducible: {m}{args}", aten=(), fn=_reproducible(_call(m, *args)), dtypes=("float32",),
             samples=lambda dt: [Sample((T((50,)),))])
    for m, args in (("uniform_", ()), ("normal_", ()), ("exponential_", ()), ("bernoulli_", (0.5,)),
                    ("random_", (1000,)), ("random_", ()))
] + [
    FnOpInfo("reproducible: multinomial", aten=(), dtypes=("float32",), samples=lambda dt: [Sample((T((50,),
             low=0.1, high=1),))], fn=_reproducible(lambda lib, x, gen=None: lib.multinomial(x, 20, True,
                                                                                              generator=gen))),
    FnOpInfo("reproducible: bernoulli", aten=(), dtypes=("float32",), samples=lambda dt: [Sample((T((50,), low=0,
             high=1),))], fn=_reproducible(lambda lib, x, gen=None: lib.bernoulli(x, generator=gen))),
    FnOpInfo("meta: random ops check shapes and draw nothing", aten=(), dtypes=("float32",),
             samples=lambda dt: [Sample(())], fn=lambda lib: lambda: _meta_draws(lib)),
]

OPS = [
    OpInfo("uniform_", aten=("uniform_",), function=False, method=True, random=True, dtypes=RANDOM_FLOAT,
           samples=inplace_samples(((), {}), ((-3.0, 2.5), {}), ((), {"from": 1, "to": 4}), ((0, 0), {})),
           errors=uniform_errors),
    OpInfo("normal_", aten=("normal_",), function=False, method=True, random=True, dtypes=RANDOM_FLOAT,
           samples=inplace_samples(((), {}), ((2.0, 0.5), {}), ((), {"std": 0.0}), ((), {"mean": -1})),
           errors=normal_errors),
    OpInfo("exponential_", aten=("exponential_",), function=False, method=True, random=True, dtypes=ALL_FLOAT,
           samples=inplace_samples(((), {}), ((3.5,), {})), errors=exponential_errors),
    OpInfo("bernoulli_", aten=("bernoulli_.Tensor", "bernoulli_.float"), function=False, method=True, random=True,
           dtypes=ALL_FLOAT + INTS + ("bool",),
           samples=inplace_samples(((), {}), ((0.2,), {}), ((), {"p": 1.0}), ((T((), low=0, high=1),), {}),
                                   ((T((4,), dtype="float64", low=0, high=1),), {}), layouts=False),
           errors=bernoulli__errors),
    OpInfo("bernoulli_", aten=(), function=False, method=True, dtypes=FLOATS + ("int64", "bool"),
           samples=bernoulli__deterministic),
    OpInfo("bernoulli", aten=("bernoulli", "bernoulli.out", "bernoulli.p"), method=True, out=True, random=True,
           dtypes=ALL_FLOAT, samples=bernoulli_samples, errors=bernoulli_errors),
    OpInfo("bernoulli", aten=(), method=True, out=True, dtypes=ALL_FLOAT, samples=bernoulli_deterministic),
    OpInfo("random_", aten=("random_", "random_.from", "random_.to"), function=False, method=True, random=True,
           dtypes=ALL_FLOAT + INTS + ("bool",), samples=random_samples, errors=random_errors),
    OpInfo("multinomial", aten=("multinomial", "multinomial.out"), method=True, out=True, random=True,
           dtypes=ALL_FLOAT, samples=multinomial_samples, errors=multinomial_errors),
    OpInfo("multinomial", aten=(), method=True, out=True, dtypes=FLOATS + HALF, samples=multinomial_deterministic),
] + PROPERTIES + STATS

for _op in OPS:
    _op.grad = False  # random draws and programs over the library: no gradients to compare
