"""Differential fuzz: reductions with random dims, keepdim and dtype, against torch.

A program makes one input (any dtype, 0-3 dims, sometimes empty or transposed) and calls one reduction as a
function or a method: sum, mean, prod, amax, amin, max/min (whole and with a dim), argmax, argmin, std, var,
any, all, logsumexp, cumsum, norm.  The dim is ``None``, an int (sometimes out of range), a tuple (sometimes with
a repeat) or ``()``; ``keepdim`` and ``dtype=`` are drawn too.  Values, result dtype, shape and strides, and
errors (an empty reduction, a dtype the op refuses, a bad dim) are compared.
"""

from __future__ import annotations

import strategies as S
from hypothesis import strategies as st
from programs import ALL_DTYPES, DT, V, dims_for, explore, fuzz, tensor_literal

# op -> how it takes its dim: "dims" (None, int or tuple), "int" (one int, required), "opt_int" (None or
# int), "none_or_int" (whole reduction without the argument, or one int: max/min)
REDUCTIONS = {"sum": "dims", "mean": "dims", "prod": "int", "amax": "dims", "amin": "dims", "max": "none_or_int",
              "min": "none_or_int", "argmax": "opt_int", "argmin": "opt_int", "std": "dims", "var": "dims",
              "any": "dims", "all": "dims", "logsumexp": "dims", "cumsum": "int", "norm": "dims",
              "count_nonzero": "dims"}
# not fuzzed: nansum, aminmax (glasstorch has neither yet)
TAKES_DTYPE = {"sum", "mean", "prod", "cumsum"}
TAKES_KEEPDIM = set(REDUCTIONS) - {"cumsum", "count_nonzero"}


def _dim_arg(p, style, n):
    if style == "int":
        return p.draw(dims_for(n), "dim")
    if style in ("opt_int", "none_or_int"):
        return p.draw(st.none() | dims_for(n), "dim")
    return p.draw(st.none() | dims_for(n) | st.lists(dims_for(n), max_size=3).map(tuple), "dim")


def _reduction(p):
    op = p.draw(st.sampled_from(sorted(REDUCTIONS)), "op")
    dtype = p.draw(st.sampled_from(ALL_DTYPES), "dtype")
    shape = p.draw(S.shapes(0, 3, 4), "shape")
    p.do(("fn", "tensor"), p.draw(tensor_literal(shape, dtype)).values, dtype=DT(dtype), name="x")
    if len(shape) >= 2 and p.draw(st.booleans()):
        p.method("x", "transpose", 0, -1, name="x")
    n, style = len(shape), REDUCTIONS[op]
    dim = _dim_arg(p, style, n)
    kwargs = {}
    if op in TAKES_KEEPDIM and p.draw(st.booleans()):
        kwargs["keepdim"] = p.draw(st.booleans())
    if op in TAKES_DTYPE and p.draw(st.integers(0, 3)) == 0:
        kwargs["dtype"] = DT(p.draw(st.sampled_from(ALL_DTYPES), "dtype="))
    if op in ("std", "var") and p.draw(st.booleans()):
        kwargs["correction"] = p.draw(st.integers(0, 2))
    if op == "norm" and p.draw(st.booleans()):
        kwargs["p"] = p.draw(st.sampled_from([1, 2, 3, float("inf"), float("-inf"), 0]))
    if dim is None and style == "none_or_int":
        kwargs.pop("keepdim", None)  # max()/min() have no keepdim without a dim
        args = ()
    elif dim is None and style == "dims" and op not in ("std", "var", "norm", "logsumexp", "count_nonzero") and \
            "keepdim" not in kwargs:
        args = ()  # the full reduction, x.sum()
    else:
        args = (dim,)
    if p.draw(st.booleans()):
        p.method("x", op, *args, **kwargs)
    else:
        p.fn(op, V("x"), *args, **kwargs)


@fuzz(examples=150)
def reductions(data):
    explore(data, _reduction, tol_scale=4.0)


test_reductions, test_reductions_long = reductions
