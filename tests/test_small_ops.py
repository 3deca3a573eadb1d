"""Small operators brought to torch's op_db (issue 20, family small): each behaviour against real torch."""

from __future__ import annotations

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error, both


@pytest.mark.parametrize("name,args", [("arange", (5,)), ("arange", (1, 7, 2)), ("eye", (3,)), ("eye", (2, 4)),
                                       ("linspace", (0, 1, 5)), ("logspace", (0, 2, 4)),
                                       ("logspace", (0, 2, 4, 2.0))])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_range_factories_write_and_return_out(name, args, dtype):
    def run(m):
        out = m.empty(2, dtype=getattr(m, dtype))
        return getattr(m, name)(*args, out=out), out
    (res_gt, out_gt), (res_th, out_th) = both(run)
    assert res_gt is out_gt and res_th is out_th
    assert_same(res_gt, res_th, rtol=1e-6, atol=0)  # logspace's float32 powers may differ in the last bit


def test_range_factory_out_dtype_mismatch():
    assert_same_error(lambda: gt.arange(3, dtype=gt.int64, out=gt.empty(0)),
                      lambda: torch.arange(3, dtype=torch.int64, out=torch.empty(0)))


@pytest.mark.parametrize("name", ["linspace", "logspace"])
def test_space_float_steps_is_the_parsers_error(name):
    assert_same_error(lambda: getattr(gt, name)(0, 10, 1.5), lambda: getattr(torch, name)(0, 10, 1.5))


def test_gather_out_of_another_dtype():
    def run(m):
        return m.gather(m.ones(2, 2), 1, m.tensor([[0, 1], [1, 0]]), out=m.empty(2, 2, dtype=m.float64))
    assert_same_error(lambda: run(gt), lambda: run(torch))


@pytest.mark.parametrize("name", ["scatter", "scatter_add"])
def test_scatter_src_of_other_rank(name):
    def run(m):
        return getattr(m, name)(m.zeros(3, 5), 0, m.tensor([[0, 1], [1, 2]]), m.ones(2, 5, 2))
    assert_same_error(lambda: run(gt), lambda: run(torch))


@pytest.mark.parametrize("dtype", ["int8", "bool", "float32"])
def test_sum_to_size_of_an_empty_shape_is_the_full_sum(dtype):
    g, t = both(lambda m: m.ones((), dtype=getattr(m, dtype)).sum_to_size(()))
    assert_same(g, t)
    g, t = both(lambda m: m.ones(2, 3, dtype=getattr(m, dtype)).sum_to_size(2, 3))
    assert_same(g, t)


def _grads(m, fn, *inputs):
    xs = [x.clone().requires_grad_() for x in inputs]
    r = fn(m, *xs)
    return r, m.autograd.grad(r, xs, m.arange(r.numel(), dtype=r.dtype).reshape(r.shape))


@pytest.mark.parametrize("name,src,args", [
    ("slice_scatter", (4, 2), (1, 1, 5, 2)), ("select_scatter", (4,), (1, -1)),
    ("diagonal_scatter", (4,), (1, 0, 1)), ("as_strided_scatter", (2, 2), ((2, 2), (1, 2), 1))])
def test_view_scatters_values_strides_and_gradients(name, src, args):
    def run(m):
        base = m.arange(24.0).reshape(6, 4).t()[:, 1:]  # a non-contiguous view with an offset
        if name == "as_strided_scatter":
            base = m.arange(20.0).reshape(4, 5)
        return getattr(m, name)(base, m.ones(src) * 7, *args), base
    (g, gb), (t, tb) = both(run)
    assert_same(g, t)  # the strides and offset of self are kept (clone_preserve_strides)
    fn = lambda m, x, s: getattr(m, name)(x, s, *args)  # noqa: E731
    (_, gg), (_, tg) = both(lambda m: _grads(m, fn, run(m)[1].contiguous(), m.ones(src)))
    for a, b in zip(gg, tg, strict=True):
        assert_same(a, b, check_strides=False)


def test_scatter_src_of_the_wrong_size():
    assert_same_error(lambda: gt.slice_scatter(gt.zeros(3, 4), gt.ones(3, 3), 1, 0, 2),
                      lambda: torch.slice_scatter(torch.zeros(3, 4), torch.ones(3, 3), 1, 0, 2))


def test_functional_fill_and_its_gradients():
    (g, gg), (t, tg) = both(lambda m: _grads(m, lambda m, x, v: m.fill(x, v), m.ones(2, 3).t(), m.tensor(2.0)))
    assert_same(g, t)
    for a, b in zip(gg, tg, strict=True):
        assert_same(a, b)
    assert_same(*both(lambda m: m.fill(m.ones(2, dtype=m.int32), 5)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_frexp_and_ldexp(dtype):
    def run(m):
        x = m.tensor([0.0, 1.0, -3.5, 6e-5, 1e-30, float("inf"), float("nan")], dtype=getattr(m, dtype))
        man, ex = m.frexp(x)
        return man, ex, m.ldexp(man, ex), m.ldexp(x, m.tensor([2.0])), x.ldexp(m.tensor([-20]))
    for a, b in zip(*both(run), strict=True):
        assert_same(a, b)


def test_ldexp_gradients_and_out_errors():
    fn = lambda m, x, e: m.ldexp(x, e)  # noqa: E731
    (g, gg), (t, tg) = both(lambda m: _grads(m, fn, m.tensor([1.5, -2.0]), m.tensor([1.0, 3.0])))
    for a, b in zip((g, *gg), (t, *tg), strict=True):
        assert_same(a, b, rtol=1e-6, atol=0)
    assert_same_error(lambda: gt.ones(2, dtype=gt.int64).ldexp_(gt.ones(2)),
                      lambda: torch.ones(2, dtype=torch.int64).ldexp_(torch.ones(2)))
    assert_same_error(lambda: gt.frexp(gt.ones(2), out=(gt.empty(0, dtype=gt.float64), gt.empty(0, dtype=gt.int32))),
                      lambda: torch.frexp(torch.ones(2), out=(torch.empty(0, dtype=torch.float64),
                                                              torch.empty(0, dtype=torch.int32))))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
def test_unravel_index(dtype):
    for shape in [(2, 4), 8, (3, 1, 2)]:
        g, t = both(lambda m, shape=shape: m.unravel_index(m.tensor([5, 7, 0], dtype=getattr(m, dtype)), shape))
        for a, b in zip(g, t, strict=True):
            assert_same(a, b)


@pytest.mark.parametrize("args", [("float", (2,)), ("int", (2.0,)), ("int", (-2,)), ("int", "ab")])
def test_unravel_index_errors(args):
    kind, shape = args
    assert_same_error(lambda: gt.unravel_index(gt.tensor([1.0] if kind == "float" else [1]), shape),
                      lambda: torch.unravel_index(torch.tensor([1.0] if kind == "float" else [1]), shape))


@pytest.mark.parametrize("size,layout", [((2, 3, 1, 5), (0, 2, 3, 1)), ((2, 0, 4), (2, 0, 1)), ((), ())])
def test_empty_permuted_strides(size, layout):
    g, t = both(lambda m: m.empty_permuted(size, layout))
    assert g.shape == t.shape and g.stride() == t.stride() and repr(g.dtype) == repr(t.dtype)


@pytest.mark.parametrize("call", [lambda t: t.cauchy_(), lambda t: t.cauchy_(1.0, 0.5), lambda t: t.log_normal_(),
                                  lambda t: t.log_normal_(0.0, 0.25), lambda t: t.geometric_(0.3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_samplers_draw_torchs_numbers(call, dtype):
    def run(m):
        m.manual_seed(7)
        return call(m.zeros(5, 7, dtype=getattr(m, dtype)).t())
    assert_same(*both(run))


def test_geometric_on_integers_draws_torchs_numbers():
    def run(m):
        m.manual_seed(3)
        return m.zeros(20, dtype=m.int32).geometric_(0.6, generator=m.Generator().manual_seed(5))
    assert_same(*both(run))


@pytest.mark.parametrize("kwargs", [{}, {"spacing": 2.0}, {"edge_order": 2}, {"dim": 1},
                                    {"spacing": [0.5], "dim": [-1]}, {"spacing": "coords", "edge_order": 1},
                                    {"spacing": "coords", "edge_order": 2}])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_gradient(kwargs, dtype):
    def run(m):
        x = (m.arange(20.0).reshape(4, 5) ** 2).to(getattr(m, dtype))
        kw = dict(kwargs)
        if kw.get("spacing") == "coords":
            kw["spacing"] = (m.tensor([0.0, 1.0, 3.0, 4.5]), m.tensor([0.0, 0.5, 1.0, 2.0, 4.0]))
        return m.gradient(x, **kw)
    for a, b in zip(*both(run), strict=True):
        assert_same(a, b, check_strides=False, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kwargs", [{"spacing": [0.1], "dim": (1, 0)}, {"edge_order": 3}, {"dim": (1, 1)},
                                    {"spacing": [1.0, 2.0, 3.0]}, {"dtype": "uint8"}])
def test_gradient_errors(kwargs):
    def run(m):
        kw = dict(kwargs)
        dt = getattr(m, kw.pop("dtype", "float32"))
        return m.gradient(m.ones(3, 3, dtype=dt), **kw)
    assert_same_error(lambda: run(gt), lambda: run(torch))


@pytest.mark.parametrize("kind", ["tt", "tf", "ft"])
def test_normal_tensor_forms_numbers_gradients_and_out(kind):
    def run(m):
        mean = m.arange(6.0).reshape(2, 3).requires_grad_()
        std = (m.arange(6.0).reshape(2, 3) / 4 + 0.1).requires_grad_()
        args = {"tt": (mean, std), "tf": (mean, 0.5), "ft": (1.5, std)}[kind]
        m.manual_seed(11)
        r = m.normal(*args)
        grads = m.autograd.grad(r.sum(), [a for a in args if isinstance(a, m.Tensor)])
        m.manual_seed(11)
        out = m.empty(2, 3)
        written = m.normal(*[a.detach() if isinstance(a, m.Tensor) else a for a in args], out=out)
        return r.detach(), grads, written is out, out
    (r, gg, same, out), (tr, tg, tsame, tout) = both(run)
    assert_same(r, tr)
    assert_same(out, tout)
    assert same and tsame
    for a, b in zip(gg, tg, strict=True):
        assert_same(a, b)


def test_normal_number_std_out_is_not_resized():
    assert_same_error(lambda: gt.normal(gt.ones(4, 3), 2.7, out=gt.empty(0)),
                      lambda: torch.normal(torch.ones(4, 3), 2.7, out=torch.empty(0)))
