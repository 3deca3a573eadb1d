"""Differential fuzz: indexing and index assignment, against torch.

A program makes a tensor (several dtypes, 0-3 dims, sometimes transposed) and one index: a tuple of ints,
slices, None, Ellipsis, int64 tensors, bool tensors, Python lists of ints and bools, sometimes out of range or
of the wrong shape.  It reads ``x[index]`` (a view for basic indices, a copy for advanced ones), assigns through
it (``x[index] = v`` with a scalar or a tensor broadcast to the indexed shape), or calls ``index_put_`` with and
without ``accumulate``.  The result and then ``x`` are compared with torch: values, strides, storage sharing,
``_version``, and errors by type and message.
"""

from __future__ import annotations

import strategies as S
from hypothesis import strategies as st
from programs import DT, T, V, explore, fuzz, resolve, tensor_literal, values_for

DTYPES = ("float32", "int64", "bool", "float16", "int8", "uint8", "complex64", "float64")


@st.composite
def _int_tensor(draw, size, ndim):
    shape = draw(S.shapes(0 if draw(st.booleans()) else 1, ndim, 3))
    n = 1
    for s in shape:
        n *= s
    hi = max(size - 1, 0)
    good = st.integers(-size, hi) if size else st.just(0)
    values = draw(st.lists(st.integers(0, 19).flatmap(lambda k: st.just(size) if k == 0 else good),
                           min_size=n, max_size=n))
    return T(_nest(values, shape), "int64")


def _nest(flat, shape):
    if not shape:
        return flat[0]
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


@st.composite
def _bool_tensor(draw, shape):
    covered = shape[:draw(st.integers(0, len(shape)))]
    if draw(st.integers(0, 9)) == 0:
        covered = tuple(s + 1 for s in covered)  # wrong shape: torch's IndexError
    return draw(tensor_literal(covered, "bool"))


@st.composite
def _index(draw, shape):
    """A tuple index over ``shape``; advanced items (tensors, lists) mixed with basic ones."""
    items, d = [], 0
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "int_tensor", "bool_tensor", "list",
                                     "bool"]))
        size = shape[d] if d < len(shape) else 0
        if kind == "none":
            items.append(None)
            continue
        if kind == "bool":
            items.append(draw(st.booleans()))
            continue
        if kind == "ellipsis":
            if Ellipsis not in items:
                items.append(Ellipsis)
                d = max(d, len(shape) - (draw(st.integers(0, 4)) - len(items)))
            continue
        if kind == "bool_tensor":
            mask = draw(_bool_tensor(shape[d:]))
            items.append(mask)
            d += _ndim(mask.values)
            continue
        if kind == "int":
            items.append(draw(st.integers(-size, max(size - 1, 0)) | st.just(size)))
        elif kind == "slice":
            items.append(slice(draw(st.none() | st.integers(-size - 1, size + 1)),
                               draw(st.none() | st.integers(-size - 1, size + 1)),
                               draw(st.none() | st.integers(1, 3))))
        elif kind == "int_tensor":
            items.append(draw(_int_tensor(size, 2)))
        else:
            items.append(draw(st.lists(st.integers(-size, max(size - 1, 0)) if size else st.just(0), max_size=3)))
        d += 1
    return tuple(items) if len(items) > 1 or draw(st.booleans()) else items[0]


def _ndim(values) -> int:
    n = 0
    while isinstance(values, list):
        n += 1
        values = values[0] if values else None
    return n


def _make(p):
    dtype = p.draw(st.sampled_from(DTYPES), "dtype")
    shape = p.draw(S.shapes(0, 3, 4), "shape")
    p.do(("fn", "tensor"), p.draw(tensor_literal(shape, dtype)).values, dtype=DT(dtype), name="x")
    if len(shape) >= 2 and p.draw(st.booleans()):
        p.method("x", "transpose", 0, 1, name="x")
    return dtype, tuple(p.env["x"].shape)


def _indexing(p):
    dtype, shape = _make(p)
    index = p.draw(_index(shape), "index")
    action = p.draw(st.sampled_from(["get", "set_scalar", "set_tensor", "index_put_"]), "action")
    if action == "get":
        p.do(("getitem", "x"), index, observe=("x",))
        return
    if action == "index_put_":
        _index_put(p, dtype, shape)
        return
    target = p.do(("getitem", "x"), index)
    if action == "set_scalar":
        value = p.draw(values_for(p.draw(st.sampled_from([dtype, "int64", "float32", "bool"]))), "value")
    else:
        vshape = tuple(target.shape)[p.draw(st.integers(0, target.dim())):]
        vshape = tuple(p.draw(st.sampled_from([1, s])) for s in vshape)
        if p.draw(st.integers(0, 9)) == 0:
            vshape = vshape + (2,)  # does not broadcast
        value = p.draw(tensor_literal(vshape, p.draw(st.sampled_from([dtype, "float32", "int64"]))))
    p.do(("setitem", "x"), index, value, observe=("x",))


def _index_put(p, dtype, shape):
    n = len(shape)
    k = p.draw(st.integers(1, max(n, 1)))
    indices = tuple(p.draw(_int_tensor(shape[i] if i < n else 1, 1)) for i in range(k))
    probe = p.fn("broadcast_tensors", *indices) if len(indices) > 1 else None
    ishape = tuple(probe[0].shape) if probe else tuple(resolve(indices[0]).shape)
    vshape = ishape + shape[k:]
    vshape = vshape[p.draw(st.integers(0, len(vshape))):]
    value = p.draw(tensor_literal(vshape, dtype))
    accumulate = p.draw(st.booleans(), "accumulate")
    p.method("x", "index_put_", indices, value, accumulate=accumulate, observe=("x",))
    p.fn("index_put", V("x"), indices, value, accumulate=accumulate)


@fuzz(examples=150)
def indexing(data):
    explore(data, _indexing, exact=True)


test_indexing, test_indexing_long = indexing


def _gathers(p):
    """The index-taking operators: index_select, gather, take, masked_select, masked_fill, nonzero, scatter_,
    index_fill_, argwhere, as functions, methods and (where they have one) with out=."""
    dtype, shape = _make(p)
    n, draw = len(shape), p.draw
    op = draw(st.sampled_from(["index_select", "gather", "take", "masked_select", "masked_fill", "nonzero",
                               "argwhere", "scatter_", "index_fill_", "take_along_dim"]), "op")
    dim = draw(st.integers(-max(n, 1), max(n, 1) - 1))
    size = shape[dim] if n else 1
    if op in ("index_select", "index_fill_"):
        index = draw(_int_tensor(size, 1))
        if op == "index_select":
            p.fn("index_select", V("x"), dim, index)
        else:
            p.method("x", "index_fill_", dim, index, draw(values_for(dtype)), observe=("x",))
    elif op in ("gather", "scatter_", "take_along_dim"):
        ishape = tuple(draw(st.integers(0, s)) for s in shape) if op != "take_along_dim" else \
            tuple(draw(st.sampled_from([1, s])) for s in shape)
        index = draw(_int_tensor_of_shape(ishape, size))
        if op == "gather":
            p.fn("gather", V("x"), dim, index)
        elif op == "take_along_dim":
            p.fn("take_along_dim", V("x"), index, dim)
        else:
            p.method("x", "scatter_", dim, index, draw(values_for(dtype)), observe=("x",))
    elif op == "take":
        p.fn("take", V("x"), draw(_int_tensor(max(_numel(shape), 1), 2)))
    elif op in ("masked_select", "masked_fill"):
        mask = draw(tensor_literal(shape[draw(st.integers(0, n)):], "bool"))
        if op == "masked_select":
            p.fn("masked_select", V("x"), mask)
        else:
            p.method("x", "masked_fill", mask, draw(values_for(dtype)))
    else:
        p.fn(op, V("x"))


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@st.composite
def _int_tensor_of_shape(draw, shape, size):
    good = st.integers(-size, size - 1) if size else st.just(0)
    flat = draw(st.lists(st.integers(0, 19).flatmap(lambda k: st.just(size) if k == 0 else good),
                         min_size=_numel(shape), max_size=_numel(shape)))
    return T(_nest(flat, shape), "int64")


@fuzz(examples=60)
def gathers(data):
    explore(data, _gathers, exact=True)


test_gathers, test_gathers_long = gathers
