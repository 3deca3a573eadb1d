"""Loop splitting (glasstorch/_inductor/loop_split.py): cat as one loop per input, div/mod as nested loops.

Each case is an aten body written once and run three ways: compiled by the inductor, eagerly as the FX graph,
and with real PyTorch's aten ops; all three must agree.  The generated C is checked for the shape of the
loops: no select (``?``) where a piece reads one input, nested ``r1``/``r2`` loops where a head-layout read
had ``/``/``%`` of the inner loop variable.
"""

import re

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch import _cbuild, fx
from glasstorch._inductor import compile_fx_inner

pytestmark = pytest.mark.skipif(not _cbuild.available(), reason="no C compiler")
A = gt.ops.aten
TA = torch.ops.aten


class _Emit:
    """``ns.cat.default(...)`` adds a call_function node to ``g`` (the body runs unchanged on torch.ops.aten)."""

    def __init__(self, g, name=None):
        self.g, self.name = g, name

    def __getattr__(self, attr):
        if self.name is None:
            return _Emit(self.g, attr)
        op = getattr(getattr(A, self.name), attr)
        return lambda *args, **kwargs: self.g.call_function(op, args, kwargs)


def run(body, inputs, exact=True):
    """Compile ``body`` over ``inputs``; compare with the eager graph (bitwise when ``exact``: only the loop
    order differs) and torch; return the C of the kernels."""
    g = fx.Graph()
    ph = [g.placeholder(f"arg{i}") for i in range(len(inputs))]
    out = body(_Emit(g), *ph)
    g.output(out if isinstance(out, tuple) else (out,))
    gm = fx.GraphModule(gt.nn.Module(), g)
    compiled = compile_fx_inner(gm, inputs)
    got, ref = compiled(*inputs), gm(*inputs)
    tref = body(TA, *[torch.from_numpy(np.array(x.numpy(), copy=True)) for x in inputs])
    tref = tref if isinstance(tref, tuple) else (tref,)
    assert not compiled.stats["fallbacks"], compiled.stats
    for a, b, t in zip(got, ref, tref, strict=True):
        assert a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape) == tuple(t.shape)
        assert tuple(a.stride()) == tuple(b.stride())
        if exact:
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)
    return compiled.c_source[compiled.c_source.index("void kernel"):]


def rand(*shape, dtype=gt.float32):
    return gt.randn(*shape, dtype=dtype)


def selects(src) -> bool:
    """Whether the C still has cat's select between inputs (``pos >= start ? ..``) or its index clamps."""
    return bool(re.search(r">= -?\d+ \?", src)) or ") < 0 ? 0 :" in src


def _head_to_rows(ns, x, B, T, C):
    """(B, H, T, D) -> (B, T, H*D): the attention output / qkv-grad layout change of the GPT."""
    return ns.reshape.default(ns.transpose.int(x, 1, 2), [B, T, C])


@pytest.mark.parametrize("widths", [(4, 5), (4, 5, 7), (3, 1, 8, 2, 16), (2, 3, 4, 5, 6, 7, 8, 9)])
def test_cat_last_dim_one_loop_per_input(widths):
    src = run(lambda ns, *xs: ns.cat.default(list(xs), -1), [rand(3, 4, w) for w in widths])
    assert not selects(src)
    assert src.count("for (int64_t r0") == len([w for w in widths if w > 1])


@pytest.mark.parametrize("dtype", [gt.float32, gt.float64])
def test_cat_middle_dim_branches_per_row(dtype):
    src = run(lambda ns, a, b, c: ns.cat.default([a, b, c], 1),
              [rand(2, 3, 4, dtype=dtype), rand(2, 5, 4, dtype=dtype), rand(2, 1, 4, dtype=dtype)])
    assert not selects(src)
    assert src.count("if (") == 2 and src.count("} else if (") == 1 and src.count("} else {") == 1


def test_cat_first_dim_and_flat_vectors():
    src = run(lambda ns, a, b, u, v: (ns.cat.default([a, b], 0), ns.cat.default([u, v], 0)),
              [rand(3, 6), rand(5, 6), rand(7), rand(9)])
    assert not selects(src)


def test_cat_large_flat_vectors_parallel_pieces():
    src = run(lambda ns, u, v: ns.mul.Tensor(ns.cat.default([u, v], 0), 2.0), [rand(40000), rand(30000)])
    assert not selects(src) and src.count("parallel for simd") == 1  # the 40000 piece; 30000 is below threshold


def test_cat_of_head_layout_views_nested_loops():
    B, H, T, D = 2, 4, 8, 16

    def body(ns, q, k, v):
        return ns.cat.default([_head_to_rows(ns, x, B, T, H * D) for x in (q, k, v)], 2)
    src = run(body, [rand(B, H, T, D) for _ in range(3)])
    assert not selects(src) and "r0" not in src
    assert src.count(f"for (int64_t r2 = 0; r2 < {D}; r2++)") == 3
    assert not re.search(r"r[12]\)? [/%]", src)  # the inner index is affine


def test_sum_of_cats_fused_with_following_op():
    """The GPT's qkv gradient: a sum of three cats of row-major and head-layout pieces, then an epilogue."""
    B, H, T, D = 2, 2, 4, 8
    C = H * D

    def body(ns, a, b, c, p, q, r):
        x = ns.cat.default([a, _head_to_rows(ns, p, B, T, C), b], 2)
        y = ns.cat.default([ns.mul.Tensor(_head_to_rows(ns, q, B, T, C), 0.5), c, b], 2)
        z = ns.cat.default([c, a, _head_to_rows(ns, r, B, T, C)], 2)
        return ns.relu.default(ns.add.Tensor(ns.add.Tensor(x, y), z))
    src = run(body, [rand(B, T, C) for _ in range(3)] + [rand(B, H, T, D) for _ in range(3)])
    assert not selects(src)
    assert src.count("for (int64_t r1") == 3


def test_cat_promotes_dtypes_and_broadcast_inputs():
    def body(ns, a, i, s):
        return ns.cat.default([a, ns.expand.default(s, [3, 4]), i], 1)
    src = run(body, [rand(3, 2), gt.arange(15).reshape(3, 5), rand(3, 1)])
    assert not selects(src)


def test_cat_inside_reduction_keeps_select():
    src = run(lambda ns, a, b: ns.sum.dim_IntList(ns.cat.default([a, b], 1), [1]), [rand(4, 3), rand(4, 6)],
              exact=False)  # sums accumulate in double: not bitwise eager's float sum
    assert selects(src)  # reductions keep one loop: the select stays


def test_permuted_read_without_cat_becomes_nested_loops():
    B, H, T, D = 2, 3, 8, 8
    src = run(lambda ns, x: ns.add.Tensor(_head_to_rows(ns, x, B, T, H * D), 1.0), [rand(B, H, T, D)])
    assert "for (int64_t r2" in src and not re.search(r"r[12]\)? [/%]", src)


def test_period_not_dividing_the_loop_keeps_one_loop():
    # (2, 8) transposed and flattened reads x[r0 % 2][r0 / 2]: an inner loop of 2 is not worth a nest
    src = run(lambda ns, x: ns.neg.default(ns.reshape.default(ns.transpose.int(x, 0, 1), [16])), [rand(2, 8)])
    assert "r1" not in src and "% 2" in src
    # (5, 3) transposed: period 5 divides 15, so r0 = 5*r1 + r2 and the read is x[r2][r1] without div/mod
    src = run(lambda ns, x: ns.neg.default(ns.reshape.default(ns.transpose.int(x, 0, 1), [15])), [rand(5, 3)])
    assert "for (int64_t r2 = 0; r2 < 5; r2++)" in src and "%" not in src


def test_cats_with_different_cut_points_sliced_and_nested():
    def body(ns, a, b, c, d):
        x = ns.add.Tensor(ns.cat.default([a, b], 1), ns.cat.default([c, d], 1))  # cuts at 4 and 5
        y = ns.slice.Tensor(ns.cat.default([ns.cat.default([a, c], 1), b], 1), 1, 3, 13)  # index r0 + 3
        return x, ns.mul.Tensor(y, 3.0)
    src = run(body, [rand(6, 4), rand(6, 6), rand(6, 5), rand(6, 5)])
    assert not selects(src)
    # x: [0, 4) [4] [5, 10); y: [0] [1, 6) [6, 10) - the one-element pieces are plain blocks
    assert src.count("for (int64_t r0") == 4
