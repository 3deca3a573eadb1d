"""Reductions and selections against torch: the 64-dim limit, nonzero's out checks, kthvalue's overlap check, and
the reductions added for op_db (aminmax, histc, bincount, cov, ...)."""

from __future__ import annotations

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error, from_torch


def _both(fn, *tensors):
    """``fn`` run in glasstorch on copies of ``tensors`` and in torch on the originals."""
    return fn(gt, *[from_torch(t) for t in tensors]), fn(torch, *tensors)


def test_reduction_over_a_dim_of_65_dims_refused():
    x = torch.zeros([1] * 65)
    g = gt.empty([1] * 65)
    for fn in (lambda m, t: m.amax(t, -1), lambda m, t: m.amin(t, 64)):
        assert_same_error(lambda fn=fn: fn(gt, g), lambda fn=fn: fn(torch, x))


def test_nonzero_out_checks_and_complex32():
    x = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    g = from_torch(x)
    assert_same_error(lambda: gt.nonzero(g, out=(gt.empty(0, dtype=gt.int64),)),
                      lambda: torch.nonzero(x, out=(torch.empty(0, dtype=torch.long),)))
    assert_same_error(lambda: gt.nonzero(g, as_tuple=True, out=gt.empty(0, dtype=gt.int64)),
                      lambda: torch.nonzero(x, as_tuple=True, out=torch.empty(0, dtype=torch.long)))
    c = gt.tensor([1, 0, 2, 0]).to(gt.complex32)
    assert gt.nonzero(c).tolist() == [[0], [2]]


def test_kthvalue_refuses_an_output_over_its_input():
    t = torch.randn(10)
    g = from_torch(t)
    assert_same_error(lambda: gt.kthvalue(g, 5, out=(g, gt.empty((), dtype=gt.int64))),
                      lambda: torch.kthvalue(t, 5, out=(t, torch.empty((), dtype=torch.long))))


@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": -1, "keepdim": True}])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int16, torch.bool])
def test_aminmax_values(kwargs, dtype):
    x = torch.tensor([[3, 1, 2, 1], [0, 5, 5, 4]]).to(dtype)
    g, t = _both(lambda m, a: m.aminmax(a, **kwargs), x)
    assert_same(g.min, t.min)
    assert_same(g.max, t.max)


def test_aminmax_grad_shares_ties_and_checks():
    x = torch.tensor([[1.0, 1.0, 3.0, 3.0], [2.0, 0.5, 0.5, 2.0]], dtype=torch.float64)
    grads = []
    for m, a in ((gt, from_torch(x).requires_grad_()), (torch, x.clone().requires_grad_())):
        mn, mx = m.aminmax(a, dim=1)
        (mn * 2 + mx * 5).sum().backward()
        grads.append(a.grad)
    assert_same(*grads)
    empty = torch.empty(5, 0, 5)
    assert_same_error(lambda: gt.aminmax(from_torch(empty)), lambda: torch.aminmax(empty))
    assert_same_error(lambda: gt.aminmax(from_torch(empty), dim=1), lambda: torch.aminmax(empty, dim=1))


@pytest.mark.parametrize("invert", [False, True])
def test_isin_promotes_and_inverts(invert):
    a = torch.tensor([1, 2, 3, 4], dtype=torch.int8)
    b = torch.tensor([1.5, 2.0, float("nan")])
    assert_same(*_both(lambda m, x, y: m.isin(x, y, invert=invert), a, b))
    assert_same(*_both(lambda m, x: m.isin(x, 3, invert=invert), a))
    assert_same(*_both(lambda m, y: m.isin(2.0, y, invert=invert), b))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("bins,lo,hi", [(100, 0, 0), (7, -2, 2), (3, 1, 1), (10, -0.3, 0.9)])
def test_histc(dtype, bins, lo, hi):
    x = (torch.randn(2000, generator=torch.Generator().manual_seed(0)) * 2).to(dtype)
    assert_same(*_both(lambda m, a: m.histc(a, bins=bins, min=lo, max=hi), x))


def test_histc_and_bincount_errors():
    x = torch.tensor([1.0, float("inf")])
    assert_same_error(lambda: gt.histc(from_torch(x)), lambda: torch.histc(x))
    assert_same_error(lambda: gt.histc(from_torch(x[:1]), min=3, max=1), lambda: torch.histc(x[:1], min=3, max=1))
    i = torch.tensor([1, -2])
    assert_same_error(lambda: gt.bincount(from_torch(i)), lambda: torch.bincount(i))
    assert_same_error(lambda: gt.bincount(from_torch(i.abs()), minlength=-1), lambda: torch.bincount(i.abs(),
                                                                                                     minlength=-1))


@pytest.mark.parametrize("weights", [None, torch.tensor([0.5, 1.0, 2.0, 4.0]), torch.tensor([1, 2, 3, 4])])
def test_bincount(weights):
    x = torch.tensor([0, 3, 3, 1])
    gw = None if weights is None else from_torch(weights)
    assert_same(gt.bincount(from_torch(x), gw, minlength=6), torch.bincount(x, weights, minlength=6))
    assert_same(gt.bincount(gt.tensor([], dtype=gt.int64)), torch.bincount(torch.tensor([], dtype=torch.long)))


def _grads(fn, *tensors):
    """Gradients of ``fn(lib, *inputs).sum()`` with respect to every input, in glasstorch and in torch."""
    out = []
    for m, conv in ((gt, from_torch), (torch, torch.Tensor.clone)):
        ins = [conv(t).requires_grad_() for t in tensors]
        r = fn(m, *ins)
        (r.real if r.is_complex() else r).sum().backward()
        out.append([i.grad for i in ins])
    return out


@pytest.mark.parametrize("kwargs", [{}, {"correction": 0}, {"fweights": torch.tensor([1, 3, 2, 1])},
                                    {"aweights": torch.tensor([0.5, 1.0, 2.0, 0.25])},
                                    {"fweights": torch.tensor([1, 3, 2, 1]),
                                     "aweights": torch.tensor([0.5, 1.0, 2.0, 4.0]), "correction": 2}])
def test_cov_values_and_grad(kwargs):
    x = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    gkw = {k: from_torch(v) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
    assert_same(gt.cov(from_torch(x), **gkw), torch.cov(x, **kwargs), rtol=1e-12, atol=1e-12)
    (g_gt,), (g_th,) = _grads(lambda m, a: m.cov(a, **(gkw if m is gt else kwargs)), x)
    assert_same(g_gt, g_th, rtol=1e-10, atol=1e-12)


def test_cov_corrcoef_integers_complex_and_errors():
    i = torch.tensor([[1, 2, 4], [0, 5, 1]])
    assert_same(*_both(lambda m, a: m.cov(a), i), rtol=1e-6)
    c = torch.randn(2, 5, dtype=torch.complex128, generator=torch.Generator().manual_seed(2))
    assert_same(*_both(lambda m, a: m.corrcoef(a), c), rtol=1e-12, atol=1e-12)
    assert_same(*_both(lambda m, a: m.corrcoef(a), i.double()), rtol=1e-12, atol=1e-12)
    x = torch.randn(2, 3)
    for kw in ({"fweights": torch.tensor([1.0, 2.0, 3.0])}, {"aweights": torch.tensor([1.0, -2.0, 3.0])},
               {"aweights": torch.zeros(3)}, {"fweights": torch.tensor([1, 2])}):
        gkw = {k: from_torch(v) for k, v in kw.items()}
        assert_same_error(lambda gkw=gkw: gt.cov(from_torch(x), **gkw), lambda kw=kw: torch.cov(x, **kw))
    assert_same_error(lambda: gt.cov(gt.ones(2, 2, 2)), lambda: torch.cov(torch.ones(2, 2, 2)))


@pytest.mark.parametrize("p", [2, 1, 4, float("inf"), 0])
def test_dist_values_and_grad(p):
    a = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    b = torch.randn(4, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    assert_same(*_both(lambda m, x, y: m.dist(x, y, p), a, b), rtol=1e-12)
    if p == 0:
        return  # torch's norm_backward refuses p=0
    g_gt, g_th = _grads(lambda m, x, y: m.dist(x, y, p), a, b)
    for u, v in zip(g_gt, g_th, strict=True):
        assert_same(u, v, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.complex64])
@pytest.mark.parametrize("p,dim,maxnorm", [(2, 1, 0.5), (1, -1, 3.0), (float("inf"), 0, 0.5)])
def test_renorm(dtype, p, dim, maxnorm):
    x = torch.randn(3, 4, 2, generator=torch.Generator().manual_seed(5)).to(dtype)
    tol = {"rtol": 1e-3, "atol": 1e-3} if dtype is torch.float16 else {"rtol": 1e-6, "atol": 1e-6}
    assert_same(*_both(lambda m, a: m.renorm(a, p, dim, maxnorm), x), **tol)
    g, t = from_torch(x), x.clone()
    g.renorm_(p, dim, maxnorm)
    t.renorm_(p, dim, maxnorm)
    assert_same(g, t, **tol)
    if dtype is torch.float64:
        (g_gt,), (g_th,) = _grads(lambda m, a: m.renorm(a, p, dim, maxnorm) * m.arange(24.0).reshape(3, 4, 2), x)
        assert_same(g_gt, g_th, rtol=1e-10, atol=1e-12)


def test_renorm_errors():
    x = torch.randn(2, 2)
    for args in ((1j, 0, 1.0), (-1, 0, 1.0), (1, 0, -1.0)):
        assert_same_error(lambda args=args: gt.renorm(from_torch(x), *args), lambda args=args: torch.renorm(x, *args))
    assert_same_error(lambda: gt.renorm(gt.tensor(1.0), 1, 0, 1.0), lambda: torch.renorm(torch.tensor(1.0), 1, 0, 1.0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.complex128])
def test_logcumsumexp(dtype):
    x = torch.tensor([[0.5, -1e30, 3.0, float("-inf")], [float("inf"), 2.0, float("nan"), 1.0],
                      [-2.0, -2.0, 40.0, -3.0]]).to(dtype)
    tol = {"rtol": 1e-2, "atol": 1e-2} if dtype is torch.bfloat16 else {"rtol": 1e-6, "atol": 1e-6}
    for dim in (0, 1, -1):
        assert_same(*_both(lambda m, a, dim=dim: m.logcumsumexp(a, dim), x), **tol)


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
def test_logcumsumexp_grad(dtype):
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(6)).to(dtype)
    w = torch.randn(3, 5, generator=torch.Generator().manual_seed(7)).to(dtype)
    (g_gt,), (g_th,) = _grads(lambda m, a: m.logcumsumexp(a, 1) * (from_torch(w) if m is gt else w), x)
    assert_same(g_gt, g_th, rtol=1e-10, atol=1e-12)
    assert torch.autograd.gradcheck(lambda a: torch.logcumsumexp(a, 1), x.clone().requires_grad_())
    assert gt.autograd.gradgradcheck(lambda a: gt.logcumsumexp(a, 1), from_torch(x).requires_grad_())


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_values_and_grad(reduce, include_self):
    x = torch.tensor([[1.0, 0.0, 2.0], [3.0, 3.0, -1.0], [0.5, 2.0, 2.0], [4.0, 1.0, 0.0]], dtype=torch.float64)
    src = torch.tensor([[2.0, 0.0, 2.0], [3.0, 1.0, -1.0], [0.0, 2.0, 5.0]], dtype=torch.float64)
    idx = torch.tensor([1, 3, 1])
    assert_same(*_both(lambda m, a, s, i: m.index_reduce(a, 0, i, s, reduce, include_self=include_self), x, src, idx))
    g_gt, g_th = _grads(lambda m, a, s: a.index_reduce(0, from_torch(idx) if m is gt else idx, s, reduce,
                                                       include_self=include_self) * 1.5, x, src)
    for u, v in zip(g_gt, g_th, strict=True):
        assert_same(u, v, rtol=1e-12, atol=1e-12)


def test_index_reduce_integer_mean_floors_and_errors():
    x = torch.tensor([5, -7, 3], dtype=torch.int32)
    src = torch.tensor([2, 2], dtype=torch.int32)
    idx = torch.tensor([1, 1])
    assert_same(*_both(lambda m, a, s, i: m.index_reduce(a, 0, i, s, "mean"), x, src, idx))
    assert_same_error(lambda: gt.index_reduce(from_torch(x), 0, from_torch(idx), from_torch(src), "sum"),
                      lambda: torch.index_reduce(x, 0, idx, src, "sum"))
    assert_same_error(lambda: gt.index_reduce(from_torch(x), 0, from_torch(idx + 5), from_torch(src), "amax"),
                      lambda: torch.index_reduce(x, 0, idx + 5, src, "amax"))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (1, False), (0, True)])
def test_quantile(name, interpolation, dim, keepdim):
    x = torch.tensor([[1.0, float("nan"), 2.0, 7.0], [3.0, -1.0, 0.5, 0.25], [float("nan")] * 4],
                     dtype=torch.float64)
    q = torch.tensor([0.0, 0.3, 0.5, 1.0], dtype=torch.float64)
    for qq in (q, 0.4):
        fn = (lambda m, a, qq=qq: getattr(m, name)(a, from_torch(qq) if m is gt and not isinstance(qq, float) else qq,
                                                 dim, keepdim, interpolation=interpolation))
        assert_same(*_both(fn, x))
    finite = torch.tensor([[1.0, 4.0, 2.0, 7.0], [3.0, -1.0, 0.5, 0.25]], dtype=torch.float64)
    (g_gt,), (g_th,) = _grads(lambda m, a: getattr(m, name)(a, from_torch(q) if m is gt else q, dim, keepdim,
                                                            interpolation=interpolation) * 2.0, finite)
    assert_same(g_gt, g_th)


def test_quantile_errors():
    x = torch.randn(3)
    for q, kw in ((1.5, {}), (torch.tensor([1.5]), {}), (0.5, {"interpolation": "x"}), (torch.tensor([[0.5]]), {}),
                  (torch.tensor([0.5], dtype=torch.float64), {})):
        gq = from_torch(q) if isinstance(q, torch.Tensor) else q
        assert_same_error(lambda gq=gq, kw=kw: gt.quantile(from_torch(x), gq, **kw),
                          lambda q=q, kw=kw: torch.quantile(x, q, **kw))
    assert_same_error(lambda: gt.quantile(gt.ones(0), 0.5), lambda: torch.quantile(torch.ones(0), 0.5))
    assert_same_error(lambda: gt.quantile(from_torch(x), 0.5, out=gt.empty(0, dtype=gt.float64)),
                      lambda: torch.quantile(x, 0.5, out=torch.empty(0, dtype=torch.float64)))


@pytest.mark.parametrize("kwargs", [{}, {"range": (-1.0, 2.0)}, {"density": True}, {"weight": True}])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_histogram_bin_count(kwargs, dtype):
    x = torch.randn(4, 50, generator=torch.Generator().manual_seed(8)).to(dtype)
    kw = dict(kwargs)
    if kw.get("weight"):
        kw["weight"] = torch.rand(4, 50, generator=torch.Generator().manual_seed(9)).to(dtype)
    gkw = {k: from_torch(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
    g = gt.histogram(from_torch(x), 7, **gkw)
    t = torch.histogram(x, 7, **kw)
    assert_same(g.hist, t.hist, rtol=1e-6, atol=1e-6)
    assert_same(g.bin_edges, t.bin_edges)


def test_histogram_edges_and_histogramdd():
    x = torch.randn(30, 2, generator=torch.Generator().manual_seed(10), dtype=torch.float64)
    edges = torch.tensor([-2.0, -0.5, 0.0, 0.3, 2.0], dtype=torch.float64)
    for density in (False, True):
        g = gt.histogram(from_torch(x), from_torch(edges), density=density)
        t = torch.histogram(x, edges, density=density)
        assert_same(g.hist, t.hist, rtol=1e-12)
    for bins in (3, [2, 4]):
        g, t = gt.histogramdd(from_torch(x), bins, density=True), torch.histogramdd(x, bins, density=True)
        assert_same(g.hist, t.hist, rtol=1e-12)
        for u, v in zip(g.bin_edges, t.bin_edges, strict=True):
            assert_same(u, v)
    g = gt.histogramdd(from_torch(x), [from_torch(edges), from_torch(edges[1:])])
    assert_same(g.hist, torch.histogramdd(x, [edges, edges[1:]]).hist)
    assert_same_error(lambda: gt.histogramdd(from_torch(x), [1, 1, 1]), lambda: torch.histogramdd(x, [1, 1, 1]))
    assert_same_error(lambda: gt.histogram(from_torch(x), 2, range=(1.0, 0.0)),
                      lambda: torch.histogram(x, 2, range=(1.0, 0.0)))


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist",
                                  "use_mm_for_euclid_dist_if_necessary"])
def test_cdist_values_and_grad(p, mode):
    a = torch.randn(2, 4, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(11))
    b = torch.randn(5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(12))
    assert_same(*_both(lambda m, x, y: m.cdist(x, y, p, compute_mode=mode), a, b), rtol=1e-10, atol=1e-10)
    if p == 0.0:
        return
    g_gt, g_th = _grads(lambda m, x, y: m.cdist(x, y, p, compute_mode=mode), a, b)
    for u, v in zip(g_gt, g_th, strict=True):
        assert_same(u, v, rtol=1e-8, atol=1e-10)


def test_cdist_errors():
    a, b = torch.randn(2, 3), torch.randn(2, 4)
    assert_same_error(lambda: gt.cdist(from_torch(a), from_torch(b)), lambda: torch.cdist(a, b))
    assert_same_error(lambda: gt.cdist(from_torch(a), from_torch(a), -1.0), lambda: torch.cdist(a, a, -1.0))
    assert_same_error(lambda: gt.cdist(from_torch(a[0]), from_torch(a)), lambda: torch.cdist(a[0], a))
    assert_same_error(lambda: gt.cdist(from_torch(a), from_torch(a), compute_mode="x"),
                      lambda: torch.cdist(a, a, compute_mode="x"))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "max", "min"])
@pytest.mark.parametrize("initial", [None, 2.0])
@pytest.mark.parametrize("by", ["lengths", "offsets"])
def test_segment_reduce_values_and_grad(reduce, initial, by):
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0, 2.0, 5.0], [0.0, 0.0, -1.0, 4.0, 4.0, 1.5]], dtype=torch.float64)
    lengths = torch.tensor([[0, 1, 3, 2], [2, 0, 1, 3]])
    seg = {"lengths": lengths} if by == "lengths" else {
        "offsets": torch.cat([torch.zeros(2, 1, dtype=torch.long), lengths.cumsum(-1)], -1)}
    gseg = {k: from_torch(v) for k, v in seg.items()}
    g_out = gt.segment_reduce(from_torch(x), reduce, axis=1, initial=initial, **gseg)
    t_out = torch.segment_reduce(x, reduce, axis=1, initial=initial, **seg)
    assert_same(g_out, t_out)
    w = torch.tensor([[1.0, -2.0, 3.0, 0.5], [-1.0, 2.0, 1.0, -3.0]], dtype=torch.float64)
    g_gt, g_th = _grads(lambda m, a: (m.segment_reduce(a, reduce, axis=1, initial=initial,
                                                      **(gseg if m is gt else seg)).nan_to_num(0.0)
                                      * (from_torch(w) if m is gt else w)), x)
    assert_same(g_gt[0], g_th[0])


def test_segment_reduce_errors():
    x = torch.ones(5)
    for kw in ({"lengths": torch.tensor([1, 1])}, {"lengths": torch.tensor([1, -1, 5])}, {}):
        gkw = {k: from_torch(v) for k, v in kw.items()}
        assert_same_error(lambda gkw=gkw: gt.segment_reduce(from_torch(x), "sum", **gkw),
                          lambda kw=kw: torch.segment_reduce(x, "sum", **kw))


@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8, torch.float32, torch.float16])
@pytest.mark.parametrize("shape,dim", [((5, 5, 5), 1), ((3, 100), -1), ((7,), 0)])
def test_kthvalue_ties_pick_torchs_index(dtype, shape, dim):
    x = torch.randint(0, 4, shape, generator=torch.Generator().manual_seed(13)).to(dtype)
    if dtype.is_floating_point:
        x.view(-1)[::7] = float("nan")
    for k in (1, 2, shape[dim]):
        g, t = gt.kthvalue(from_torch(x), k, dim), torch.kthvalue(x, k, dim)
        assert_same(g.values, t.values)
        assert_same(g.indices, t.indices)


def test_renorm_reduced_precision_grad_and_gradgrad():
    x = torch.randn(3, 4, 2, generator=torch.Generator().manual_seed(14)).to(torch.bfloat16)
    w = torch.randn(3, 4, 2, generator=torch.Generator().manual_seed(15)).to(torch.bfloat16)
    (g_gt,), (g_th,) = _grads(lambda m, a: m.renorm(a, 2, 1, 0.5) * (from_torch(w) if m is gt else w), x)
    assert_same(g_gt, g_th, rtol=1e-2, atol=1e-5)
    x64 = from_torch(x.double()).requires_grad_()
    assert gt.autograd.gradgradcheck(lambda a: gt.renorm(a, 2, 1, 0.5), x64)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int32])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_many_duplicates_round_as_torch(dtype, reduce):
    gen = torch.Generator().manual_seed(16)
    x = (torch.randn(20, 6, generator=gen) * 3).to(dtype)
    src = (torch.rand(200, 6, generator=gen) + 0.5).to(dtype) if dtype.is_floating_point else \
        torch.randint(-3, 4, (200, 6), generator=gen).to(dtype)
    idx = torch.randint(0, 20, (200,), generator=gen)
    assert_same(*_both(lambda m, a, s, i: a.index_reduce(0, i, s, reduce), x, src, idx))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_rows_in_c_with_nan_and_repeats(dtype, reduce, include_self):
    """Contiguous float rows fold in C (scatter_rows): NaNs on either side, repeated targets, exact values; a
    dim-1 reduction (strided slices) takes numpy and must agree too."""
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(30, 70, generator=gen, dtype=dtype)
    src = torch.randn(90, 70, generator=gen, dtype=dtype)
    x[2, :5] = float("nan")
    src[7, 3:9] = float("nan")
    src[8, 10:12] = 0.0
    idx = torch.randint(0, 30, (90,), generator=gen)
    idx[:4] = 2
    fn = lambda m, a, s, i: a.index_reduce(0, i, s, reduce, include_self=include_self)  # noqa: E731
    assert_same(*_both(fn, x, src, idx))
    fn1 = lambda m, a, s, i: a.index_reduce(1, i, s, reduce, include_self=include_self)  # noqa: E731
    assert_same(*_both(fn1, x.T.contiguous(), src.T.contiguous(), idx))
