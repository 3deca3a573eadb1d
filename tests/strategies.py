"""Hypothesis strategies for tensor geometry tests, library-agnostic.

A *recipe* describes how to build a (possibly non-contiguous) tensor so that glasstorch and torch build
it the same way: ``build(m, recipe)`` with ``m`` = ``glasstorch`` or ``torch``.  A recipe is
``(numel, base, steps)``: ``arange(numel, float32)``, then ``base`` (``("view", shape)`` or
``("as_strided", (size, stride, offset))``), then each step ``(method, args)`` in turn, where ``method``
is a Tensor method name or ``"getitem"``.

Strategies:

* ``sizes(max_size)`` / ``shapes(min_dims, max_dims, max_size)`` -- sizes 0-5, shapes of 0-4 dims by default
* ``strided_recipes(...)``                  -- recipes chaining permutes, transposes, step slices, selects,
                                               expands over a contiguous or as_strided base
* ``view_shapes(numel)``                    -- shapes with exactly ``numel`` elements (factorisations, maybe -1)
* ``basic_indices(shape)``                  -- ints / slices / None / Ellipsis tuples valid for ``shape``
* ``permutations(ndim)``                    -- dim orders, sometimes with negative dims
* ``strided_geometries(...)``               -- ``(size, stride)`` pairs for ``as_strided``
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

__all__ = [
    "sizes", "shapes", "strided_recipes", "view_shapes", "basic_indices", "permutations", "strided_geometries", "build",
    "recipe_shape", "extent",
]


def sizes(max_size=5, min_size=0):
    """One dim's size; 0 is drawn less often than a plain ``integers`` would (empty tensors stay a minority)."""
    return st.integers(max(min_size, 1), max_size) | st.integers(min_size, max_size)


def shapes(min_dims=0, max_dims=4, max_size=5, min_size=0):
    return st.lists(sizes(max_size, min_size), min_size=min_dims, max_size=max_dims).map(tuple)


def extent(size, stride, offset=0) -> int:
    """Elements a storage needs for this geometry (just ``offset`` when the geometry has no element)."""
    if 0 in size:
        return offset
    return offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))


def build(m, recipe):
    """The tensor ``recipe`` describes, built with library ``m`` (``glasstorch`` or ``torch``)."""
    numel, (kind, args), steps = recipe
    x = m.arange(numel, dtype=m.float32)
    x = x.view(args) if kind == "view" else x.as_strided(*args)
    for method, step_args in steps:
        x = x[step_args] if method == "getitem" else getattr(x, method)(*step_args)
    return x


def recipe_shape(recipe) -> tuple:
    """The shape ``build(m, recipe)`` produces, computed without building anything."""
    _, (kind, args), steps = recipe
    shape = tuple(args) if kind == "view" else tuple(args[0])
    for method, step_args in steps:
        shape = _STEP_SHAPE[method](shape, step_args)
    return shape


def _slice_shape(shape, idx):
    d = len(idx) - 1
    return shape[:d] + (len(range(shape[d])[idx[d]]),) + shape[d + 1:]


_STEP_SHAPE = {
    "permute": lambda shape, a: tuple(shape[d] for d in a[0]),
    "transpose": lambda shape, a: _swap(shape, *a),
    "getitem": _slice_shape,
    "select": lambda shape, a: shape[:a[0]] + shape[a[0] + 1:],
    "expand": lambda shape, a: tuple(a),
    "unsqueeze": lambda shape, a: shape[:a[0]] + (1,) + shape[a[0]:],
}


def _swap(shape, d0, d1):
    s = list(shape)
    s[d0], s[d1] = s[d1], s[d0]
    return tuple(s)


@st.composite
def _base(draw, max_dims, max_size):
    shape = draw(shapes(0, max_dims, max_size))
    if draw(st.booleans()):
        return math.prod(shape), ("view", shape)
    stride = tuple(draw(st.integers(0, 7)) for _ in shape)
    offset = draw(st.integers(0, 5))
    numel = extent(shape, stride, offset) + draw(st.integers(0, 3))
    return numel, ("as_strided", (shape, stride, offset))


@st.composite
def _step(draw, shape, max_dims):
    n = len(shape)
    kinds = ["expand_new"] if n < max_dims else []
    if n >= 1:
        kinds += ["permute", "slice", "unsqueeze_expand"] if n < max_dims else ["permute", "slice"]
        kinds += ["select"] if any(shape) else []
    if n >= 2:
        kinds.append("transpose")
    if not kinds:
        return None
    kind = draw(st.sampled_from(kinds))
    if kind == "permute":
        return "permute", (tuple(draw(st.permutations(range(n)))),)
    if kind == "transpose":
        return "transpose", (draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)))
    if kind == "slice":
        d = draw(st.integers(0, n - 1))
        return "getitem", (slice(None),) * d + (draw(_slices(shape[d])),)
    if kind == "select":
        d = draw(st.sampled_from([d for d in range(n) if shape[d]]))
        return "select", (d, draw(st.integers(0, shape[d] - 1)))
    if kind == "unsqueeze_expand":
        return "unsqueeze", (draw(st.integers(0, n)),)
    return "expand", (draw(sizes(3)),) + shape


@st.composite
def strided_recipes(draw, max_dims=4, max_size=5, max_steps=4):
    """A recipe for a tensor of 0..max_dims dims, usually non-contiguous (see module doc)."""
    numel, base = draw(_base(max_dims, max_size))
    shape = tuple(base[1]) if base[0] == "view" else tuple(base[1][0])
    steps = []
    for _ in range(draw(st.integers(0, max_steps))):
        step = draw(_step(shape, max_dims))
        if step is None:
            break
        shape = _STEP_SHAPE[step[0]](shape, step[1])
        steps.append(step)
        if step[0] == "unsqueeze":  # follow with an expand of the new size-1 dim
            d = step[1][0]
            new = shape[:d] + (draw(sizes(4)),) + shape[d + 1:]
            steps.append(("expand", new))
            shape = new
    return numel, base, tuple(steps)


def _bound(size):
    return st.none() | st.integers(-size - 2, size + 2)


@st.composite
def _slices(draw, size, max_step=3):
    return slice(draw(_bound(size)), draw(_bound(size)), draw(st.none() | st.integers(1, max_step)))


def _prime_factors(n):
    factors, p = [], 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors


@st.composite
def view_shapes(draw, numel):
    """Shapes with ``numel`` elements: a factorisation with 1s, maybe one dim replaced by ``-1``."""
    if numel == 0:
        out = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
        out[draw(st.integers(0, len(out) - 1))] = 0
        return tuple(out)
    factors = _prime_factors(numel)
    out = [1] * draw(st.integers(1 if factors else 0, 4))
    for f in factors:
        out[draw(st.integers(0, len(out) - 1))] *= f
    if out and draw(st.booleans()):
        out[draw(st.integers(0, len(out) - 1))] = -1
    return tuple(out)


@st.composite
def basic_indices(draw, shape, allow_ellipsis=True):
    """A basic index for ``shape``: ints in range (maybe negative), slices, None and at most one Ellipsis.

    Returns a tuple, or a bare item when the tuple would have one element (half the time).
    """
    n = len(shape)
    ellipsis = allow_ellipsis and draw(st.booleans())
    front = draw(st.integers(0, n))
    back = draw(st.integers(0, n - front)) if ellipsis else 0
    dims = list(range(front)) + list(range(n - back, n))
    items = [draw(_dim_index(shape[d])) for d in dims]
    if ellipsis:
        items.insert(front, Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


def _dim_index(size):
    ints = st.integers(-size, size - 1) if size else st.nothing()
    return ints | _slices(size)


def permutations(ndim):
    """A permutation of ``range(ndim)``, each dim written as ``d`` or ``d - ndim`` at random."""
    return st.permutations(range(ndim)).flatmap(
        lambda p: st.tuples(*[st.sampled_from([d, d - ndim]) for d in p]) if p else st.just(()))


def strided_geometries(max_dims=3, max_size=3, max_stride=6):
    """``(size, stride)`` for ``as_strided``: any non-negative strides, overlapping or not."""
    return shapes(0, max_dims, max_size).flatmap(
        lambda s: st.tuples(st.just(s), st.tuples(*[st.integers(0, max_stride) for _ in s])))
