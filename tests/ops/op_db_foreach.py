"""OpInfo entries: the foreach operators of glasstorch/_ops/native_functions/foreach.yaml — the unary family
(functional and in-place) and add/sub/mul/div with a Scalar or a second list.

The functional forms are differentiable (one node for the list, the element op's formula per entry), so the
harness checks their gradients too; the in-place forms return nothing, so they are called through a wrapper that
returns the written list (as op_db_optim's foreach entries are).
"""

from __future__ import annotations

from op_db_optim import LibOpInfo, _inplace_list
from opinfo import FLOATS, ErrorSample, OpInfo, Sample, T

UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac", "log",
         "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt",
         "tan", "tanh", "trunc")
BINARY = ("add", "sub", "mul", "div")


def _list(seed=0):
    # values in (0.1, 0.9): inside every unary op's domain (log, sqrt, acos ...); a 0-dim and a strided entry
    return [T((3, 4), seed=seed + 1, low=0.1, high=0.9), T((5,), seed=seed + 2, low=0.1, high=0.9),
            T((), seed=seed + 3, low=0.1, high=0.9), T((4, 6), seed=seed + 4, low=0.1, high=0.9, layout="transposed")]


def _unary_samples(dtype):
    yield Sample((_list(),), name="four entries")
    yield Sample(([T((0,))],), name="empty entry")


def _scalar_samples(dtype):
    yield Sample((_list(), 0.5), name="float scalar")
    yield Sample((_list(), 2), name="int scalar")


def _list_samples(binary):
    def samples(dtype):
        yield Sample((_list(), _list(10)), name="two lists")
        if binary in ("add", "sub"):
            yield Sample((_list(), _list(10)), {"alpha": 0.5}, name="alpha")
    return samples


def _unary_errors():
    return [ErrorSample(([],), name="empty list")]


def _list_errors():
    return [ErrorSample(([T((2,))], [T((2,)), T((2,))]), name="lengths differ"), ErrorSample(([], []), name="empty")]


def _named(name: str):
    return lambda lib: getattr(lib, name)


def _entries() -> list:
    ops = []
    for u in UNARY:
        ops.append(OpInfo(f"_foreach_{u}", aten=(f"_foreach_{u}",), samples=_unary_samples, dtypes=FLOATS,
                          errors=_unary_errors))
        ops.append(LibOpInfo(f"_foreach_{u}_", aten=(f"_foreach_{u}_",), fn=_inplace_list(f"_foreach_{u}_"),
                             samples=_unary_samples, dtypes=FLOATS, grad=False, gradcheck=False,
                             errors=_unary_errors))
    for b in BINARY:
        ops.append(LibOpInfo(f"_foreach_{b} scalar", aten=(f"_foreach_{b}.Scalar",), fn=_named(f"_foreach_{b}"),
                             samples=_scalar_samples, dtypes=FLOATS))
        ops.append(LibOpInfo(f"_foreach_{b} list", aten=(f"_foreach_{b}.List",), fn=_named(f"_foreach_{b}"),
                             samples=_list_samples(b), dtypes=FLOATS, errors=_list_errors))
        scalar_inplace = () if b == "add" else (f"_foreach_{b}_.Scalar",)  # add_.Scalar: op_db_optim's entry
        ops.append(LibOpInfo(f"_foreach_{b}_", aten=scalar_inplace + (f"_foreach_{b}_.List",),
                             fn=_inplace_list(f"_foreach_{b}_"), samples=_inplace_samples(b), dtypes=FLOATS,
                             grad=False, gradcheck=False, errors=_list_errors))
    return ops


def _inplace_samples(binary):
    def samples(dtype):
        if binary != "add":
            yield from _scalar_samples(dtype)
        yield from _list_samples(binary)(dtype)
    return samples


OPS = _entries()
