"""Differential fuzz: random chains of views with in-place writes through them, against torch.

A program builds a base (contiguous, or an ``as_strided`` window of a larger buffer), takes 1-6 view steps
(slices with steps, transpose/permute, view/reshape, unsqueeze/squeeze, expand, narrow, select, diagonal,
as_strided, unfold, t, flatten, movedim, split/chunk/unbind and a piece of their result, real/imag, the lazy
conj, view_as_real/view_as_complex), and between them writes
through the current view (fill_, zero_, add_, mul_, copy_, index_fill_, index_copy_, setitem).  Every step's result
and, after each write, the base are compared with torch: values, strides, storage offset, ``_version``, whether
it is a view and which tensors share its storage; errors by type and message (see programs.py).
"""

from __future__ import annotations

import math

import strategies as S
from hypothesis import strategies as st
from programs import DT, Stop, T, V, dims_for, explore, fuzz, tensor_literal, values_for

BASE_DTYPES = ("float32", "int64", "float64", "int16", "uint8", "float16", "bfloat16", "complex64", "bool")


@st.composite
def _expand_sizes(draw, shape):
    new = [draw(st.sampled_from([-1, n])) if n != 1 else draw(st.sampled_from([-1, 1, 0, 2, 3])) for n in shape]
    return tuple([draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 1)))] + new)


@st.composite
def _as_strided_args(draw, storage_numel):
    size, stride = draw(S.strided_geometries(3, 3, 4))
    need = S.extent(size, stride)
    offset = draw(st.integers(0, max(storage_numel - need, 0) + 1))
    return size, stride, offset


def _scalar_for(dtype):
    return values_for(dtype) if dtype != "bool" else st.booleans()


def _view_step(p, var, x):
    n, shape = x.dim(), tuple(x.shape)
    kinds = ["getitem", "transpose", "permute", "view", "reshape", "unsqueeze", "squeeze", "expand", "narrow",
             "select", "diagonal", "as_strided", "unfold", "t", "flatten", "movedim", "split", "chunk", "unbind",
             "view_dtype", "unflatten", "tensor_split", "mT", "swapaxes", "real", "imag", "conj", "view_as_real",
             "view_as_complex"]
    kind = p.draw(st.sampled_from(kinds), "view kind")
    draw = p.draw
    if kind == "getitem":
        return p.do(("getitem", var), draw(S.basic_indices(shape)))
    if kind == "transpose":
        return p.method(var, "transpose", draw(dims_for(n)), draw(dims_for(n)))
    if kind == "permute":
        return p.method(var, "permute", draw(S.permutations(n)))
    if kind in ("view", "reshape"):
        return p.method(var, kind, draw(S.view_shapes(x.numel())))
    if kind == "unsqueeze":
        return p.method(var, "unsqueeze", draw(dims_for(n + 1)))
    if kind == "squeeze":
        how = draw(st.sampled_from(["all", "dim", "dims"]))
        if how == "all":
            return p.method(var, "squeeze")
        if how == "dim":
            return p.method(var, "squeeze", draw(dims_for(n)))
        return p.method(var, "squeeze", tuple(draw(st.lists(dims_for(n, allow_bad=False), max_size=3))))
    if kind == "expand":
        return p.method(var, "expand", draw(_expand_sizes(shape)))
    if kind == "narrow":
        d = draw(dims_for(n))
        size = shape[d] if -n <= d < n else 2
        start = draw(st.integers(-size, size))
        return p.method(var, "narrow", d, start, draw(st.integers(0, size)))
    if kind == "select":
        d = draw(dims_for(n))
        size = shape[d] if -n <= d < n else 2
        return p.method(var, "select", d, draw(st.integers(-size, max(size - 1, 0))))
    if kind == "diagonal":
        return p.method(var, "diagonal", draw(st.integers(-3, 3)), draw(dims_for(n)), draw(dims_for(n)))
    if kind == "as_strided":
        return p.method(var, "as_strided", *draw(_as_strided_args(x.untyped_storage().nbytes() // x.element_size())))
    if kind == "unfold":
        d = draw(dims_for(n))
        size = shape[d] if n and -n <= d < n else 1
        return p.method(var, "unfold", d, draw(st.integers(0, size + 1)), draw(st.integers(1, 3)))
    if kind == "t":
        return p.method(var, "t")
    if kind == "flatten":
        return p.method(var, "flatten", draw(dims_for(n)), draw(dims_for(n)))
    if kind == "movedim":
        return p.method(var, "movedim", draw(dims_for(n)), draw(dims_for(n)))
    if kind == "view_dtype":
        return p.method(var, "view", DT(draw(st.sampled_from(["int32", "uint8", "float64", "int16", "bool",
                                                               "complex64", "bfloat16"]))))
    if kind == "unflatten" and n:  # a 0-dim tensor: torch's message carries its C++ backtrace
        d = draw(dims_for(n))
        size = shape[d] if n and -n <= d < n else 1
        return p.method(var, "unflatten", d, draw(S.view_shapes(size)))
    if kind == "unflatten":
        return p.method(var, "flatten")
    if kind == "mT":
        return p.do(("attr", var, "mT"))
    if kind in ("real", "imag"):  # of a conjugate view, imag is a negative view (torch's lazy bits)
        return p.do(("attr", var, kind))
    if kind == "conj":
        return p.method(var, "conj")
    if kind in ("view_as_real", "view_as_complex"):
        return p.fn(kind, var)
    if kind == "swapaxes":
        return p.method(var, "swapaxes", draw(dims_for(n)), draw(dims_for(n)))
    return _split_step(p, var, kind, n, shape)


def _split_step(p, var, kind, n, shape):
    draw = p.draw
    d = draw(dims_for(n))
    size = shape[d] if n and -n <= d < n else 1
    if kind == "split":
        how = draw(st.integers(1, 3)) if draw(st.booleans()) else _sizes_summing(draw, size)
        pieces = p.method(var, "split", how, d)
    elif kind == "chunk":
        pieces = p.method(var, "chunk", draw(st.integers(1, 4)), d)
    elif kind == "tensor_split":
        how = draw(st.integers(1, 4)) if draw(st.booleans()) else sorted(draw(st.lists(st.integers(-1, size + 1),
                                                                                       max_size=3)))
        pieces = p.method(var, "tensor_split", how, d)
    else:
        pieces = p.method(var, "unbind", d)
    if not pieces:
        raise Stop
    return p.do(("getitem", p.steps[-1].out), draw(st.integers(0, len(pieces) - 1)))


def _sizes_summing(draw, total):
    sizes, left = [], total
    while left > 0:
        sizes.append(draw(st.integers(0, left)))
        left -= sizes[-1]
    return sizes


def _write_step(p, var, x, base):
    dtype = repr(x.dtype).removeprefix("torch.")
    kind = p.draw(st.sampled_from(["fill_", "zero_", "add_", "mul_", "copy_", "index_fill_", "index_copy_",
                                   "setitem", "masked_fill_", "clamp_", "index_add_"]), "write kind")
    draw, n, shape = p.draw, x.dim(), tuple(x.shape)
    seen = (var, base)
    if _undetected_overlap(x):
        return None  # which write lands last is the loop order's choice: undefined, and torch does not check
    if kind in ("fill_", "add_", "mul_"):
        return p.method(var, kind, draw(_scalar_for(dtype)), observe=seen)
    if kind == "zero_":
        return p.method(var, "zero_", observe=seen)
    if kind == "masked_fill_":
        mask = draw(tensor_literal(shape[draw(st.integers(0, n)):], "bool"))
        return p.method(var, "masked_fill_", mask, draw(_scalar_for(dtype)), observe=seen)
    if kind == "clamp_":
        return p.method(var, "clamp_", draw(st.integers(-3, 0)), draw(st.integers(0, 5)), observe=seen)
    if kind == "copy_":
        src_shape = shape[draw(st.integers(0, n)):] if draw(st.booleans()) else tuple(
            draw(st.sampled_from([1, s])) for s in shape)
        src_dtype = draw(st.sampled_from([dtype, "float32", "int64"]))
        return p.method(var, "copy_", draw(tensor_literal(src_shape, src_dtype)), observe=seen)
    if kind == "setitem":
        return p.do(("setitem", var), draw(S.basic_indices(shape)), draw(_scalar_for(dtype)), observe=seen)
    d = draw(dims_for(n))
    size = shape[d] if n and -n <= d < n else 1
    index = draw(st.lists(st.integers(-size, max(size - 1, 0)) if size else st.just(0), max_size=3))
    if kind == "index_fill_":
        if not x.numel():
            return None  # torch's error here comes from an internal restride; its text names that storage's size
        return p.method(var, "index_fill_", d, T(index, "int64"), draw(_scalar_for(dtype)), observe=seen)
    unique = sorted({i % size for i in index}) if size else []
    src_shape = shape[:d % max(n, 1)] + (len(unique),) + shape[d % max(n, 1) + 1:] if n else ()
    if kind == "index_add_":
        return p.method(var, "index_add_", d, T(unique, "int64"), draw(tensor_literal(src_shape, dtype)),
                        observe=seen)
    return p.method(var, "index_copy_", d, T(unique, "int64"), draw(tensor_literal(src_shape, dtype)),
                    observe=seen)


def _undetected_overlap(x) -> bool:
    """Elements that share memory where torch's internal-overlap check (a zero stride on a dim > 1) sees none."""
    if any(st_ == 0 and n > 1 for n, st_ in zip(x.shape, x.stride(), strict=True)):
        return False  # torch detects it and raises: a write is a fine error-parity test
    offsets = [0]
    for n, stride in zip(x.shape, x.stride(), strict=True):
        offsets = [o + i * stride for o in offsets for i in range(n)]
    return len(set(offsets)) < len(offsets)


def _base(p):
    dtype = p.draw(st.sampled_from(BASE_DTYPES), "dtype")
    shape = p.draw(S.shapes(0, 4, 5))
    numel = math.prod(shape)
    if p.draw(st.booleans()):
        p.fn("arange", numel + p.draw(st.integers(0, 6)), name="buf")
        size, stride = tuple(shape), tuple(p.draw(st.integers(0, 6)) for _ in shape)
        offset = p.draw(st.integers(0, 6))
        p.method("buf", "as_strided", size, stride, offset, name="raw")
    else:
        p.fn("arange", numel, name="buf")
        p.method("buf", "view", shape, name="raw")
    return p.method("raw", "to", DT(dtype), name="base")


def _views(p):
    _base(p)
    var, x = "base", p.env["base"]
    for _ in range(p.draw(st.integers(1, 6), "steps")):
        if p.draw(st.integers(0, 9)) < 7:
            x = _view_step(p, var, x)
            var = p.steps[-1].out
        else:
            _write_step(p, var, x, "base")
    p.method(var, "contiguous")
    p.method(var, "reshape", (-1,))
    p.method(var, "clone")


@fuzz(examples=100)
def view_chains(data):
    explore(data, _views, exact=True)


test_view_chains, test_view_chains_long = view_chains


@fuzz(examples=40)
def view_of_view_writes(data):
    """Two views of one base written in turn: each write is visible through the other."""
    def program(p):
        _base(p)
        x = _view_step(p, "base", p.env["base"])
        first = p.steps[-1].out
        y = _view_step(p, "base", p.env["base"])
        second = p.steps[-1].out
        _write_step(p, first, x, second)
        _write_step(p, second, y, first)
        p.fn("add", V(first), 1, name="sum_first")

    explore(data, program, exact=True)


test_view_of_view_writes, test_view_of_view_writes_long = view_of_view_writes
