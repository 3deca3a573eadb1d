"""Forward-mode AD (``torch.autograd.forward_ad``) against torch: tangents of compositions, views and in-place ops on
dual tensors, the layout rules of make_dual, its errors, custom Function ``jvp``, and gradcheck's forward-AD check."""

from __future__ import annotations

import pytest
import torch
import torch.autograd.forward_ad as th_fw

import glasstorch as gt
import glasstorch.autograd.forward_ad as gt_fw
from tests.oracle import assert_same, assert_same_error, from_torch

FW = {gt: gt_fw, torch: th_fw}
TOL = {"rtol": 1e-10, "atol": 1e-12}


def _inputs(shapes, seed):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(s, generator=g, dtype=torch.float64), torch.randn(s, generator=g, dtype=torch.float64))
            for s in shapes]


def _run(m, fn, pairs):
    """fn on dual inputs in library ``m``: the primal and tangent of each output (tangents read inside the level)."""
    fw = FW[m]
    with fw.dual_level():
        duals = [fw.make_dual(p, t) for p, t in pairs]
        out = fn(m, *duals)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [tuple(fw.unpack_dual(o)) for o in outs]


def check_jvp(fn, *shapes, seed=0, strides=True):
    th_pairs = _inputs(shapes, seed)
    gt_pairs = [(from_torch(p), from_torch(t)) for p, t in th_pairs]
    got, want = _run(gt, fn, gt_pairs), _run(torch, fn, th_pairs)
    assert len(got) == len(want)
    for (gp, gtan), (tp, ttan) in zip(got, want, strict=True):
        assert_same(gp, tp, check_strides=strides, **TOL)
        assert (gtan is None) == (ttan is None)
        if ttan is not None:
            assert_same(gtan, ttan, check_strides=strides, **TOL)


COMPOSITIONS = {
    "arith": (lambda m, x, y: (x * y + x / (y * y + 1) - 2 * x) ** 2, [(3, 4), (3, 4)]),
    "broadcast": (lambda m, x, y: x * y + y, [(3, 4), (4,)]),
    "unary": (lambda m, x: x.exp().sin() + x.tanh() * x.sigmoid() - (x * x + 1).log().sqrt(), [(5,)]),
    "activations": (lambda m, x: m.nn.functional.gelu(x) + m.relu(x) + m.nn.functional.silu(x)
                    + m.nn.functional.softplus(x) + m.nn.functional.leaky_relu(x, 0.1), [(2, 5)]),
    "matmul": (lambda m, a, b: (a @ b).tanh() @ b.t(), [(3, 4), (4, 2)]),
    "bmm_addmm": (lambda m, a, b, c: m.addmm(c, a, b, beta=0.5, alpha=2.0) + m.bmm(a[None], b[None])[0],
                  [(2, 3), (3, 4), (2, 4)]),
    "reductions": (lambda m, x: (x.sum(0), x.mean(1, keepdim=True), x.amax(1), x.prod(), x.var(0),
                                 x.logsumexp(1), x.norm()), [(3, 4)]),
    "softmax": (lambda m, x: (x.softmax(-1), x.log_softmax(0), m.nn.functional.softmax(x * 2, dim=1)), [(3, 4)]),
    "views": (lambda m, x: (x.t(), x[1], x[:, 1:3], x.view(12), x.unsqueeze(0).expand(2, 3, 4), x.permute(1, 0),
                            x.transpose(0, 1)[2:], x.diagonal(), x.reshape(2, 6), x.unbind(0)[1]), [(3, 4)]),
    "cat_stack": (lambda m, x, y: (m.cat([x, y, x], 0), m.stack([x, y], 1)), [(2, 3), (2, 3)]),
    "cat_partly_dual": (lambda m, x: m.cat([x, m.ones(2, 3, dtype=m.float64)], 1), [(2, 3)]),
    "layer_norm": (lambda m, x, w: m.nn.functional.layer_norm(x, (4,), w, None), [(3, 4), (4,)]),
    "layer_norm_2d_bias": (lambda m, x, w, b: m.nn.functional.layer_norm(x, (3, 4), w, b), [(2, 3, 4), (3, 4), (3, 4)]),
    "conv2d": (lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1), [(1, 2, 5, 5), (3, 2, 3, 3)]),
    "indexing": (lambda m, x: (x[m.tensor([2, 0])], x.gather(1, m.tensor([[0], [2], [1]])), x.clamp(-0.5, 0.5),
                               m.where(x > 0, x, x * 3)), [(3, 4)]),
    "losses": (lambda m, x, y: (m.nn.functional.mse_loss(x, y), m.nn.functional.cross_entropy(x, y.softmax(1))),
               [(3, 4), (3, 4)]),
    "scalar_ops": (lambda m, x: (x + 1, 2 - x, x * 3, x / 4, x ** 3, 1 / (x * x + 1), -x, abs(x)), [(4,)]),
    "dtype_cast": (lambda m, x: x.float().double() * 2, [(3,)]),
    "linear": (lambda m, x, w, b: m.nn.functional.linear(x, w, b), [(2, 3), (4, 3), (4,)]),
    "conv_bias": (lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, stride=2), [(1, 2, 6, 6), (3, 2, 3, 3), (3,)]),
    "batch_norm_train": (lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True), [(4, 3)]),
    "batch_norm_train_affine": (lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
                                [(4, 3, 5), (3,), (3,)]),
    "batch_norm_eval_affine": (lambda m, x, w, b: m.nn.functional.batch_norm(
        x, m.linspace(-1, 1, 3, dtype=m.float64), m.linspace(0.5, 2, 3, dtype=m.float64), w, b),
        [(4, 3, 2), (3,), (3,)]),
    "embedding": (lambda m, w: m.nn.functional.embedding(m.tensor([[0, 2], [1, 1]]), w), [(3, 4)]),
    "max_pool": (lambda m, x: m.nn.functional.max_pool2d(x, 2), [(1, 1, 4, 4)]),
    "sort_topk": (lambda m, x: (x.sort(1)[0], x.topk(2)[0], x.max(1)[0], x.cummax(0)[0]), [(3, 4)]),
    "binary_math": (lambda m, x, y: (x.abs() ** y, m.atan2(x, y), m.maximum(x, y)), [(3,), (3,)]),
    "inplace_chain": (lambda m, x, y: x.clone().addcmul_(y, y, value=0.5).div_(y.exp()).sigmoid_().clamp_(0.2, 0.8),
                      [(4,), (4,)]),
    "einsum": (lambda m, a, b: m.einsum("ij,jk->ik", a, b), [(2, 3), (3, 4)]),
}


@pytest.mark.parametrize("name", list(COMPOSITIONS))
def test_tangents_match_torch(name):
    fn, shapes = COMPOSITIONS[name]
    check_jvp(fn, *shapes)


def test_complex_tangents():
    """Element-wise formulas conjugate around the backward formula for complex tensors, as PyTorch's shorthand."""
    out = {}
    for m in (gt, torch):
        fw = FW[m]
        with fw.dual_level():
            x = m.tensor([1 + 2j, -0.5 + 1j], dtype=m.complex128)
            d = fw.make_dual(x, m.tensor([0.5 - 1j, 2 + 0j], dtype=m.complex128))
            out[m] = fw.unpack_dual((d * d).exp() + d.sin() * d.conj() + d.sqrt() + d.sigmoid()).tangent
    assert_same(out[gt], out[torch], **TOL)


def test_fwd_grad_mode_switch():
    for m in (gt, torch):
        fw = FW[m]
        with fw.dual_level():
            d = fw.make_dual(m.randn(3), m.randn(3))
            with fw._set_fwd_grad_enabled(False):
                assert not fw._is_fwd_grad_enabled()
                assert fw.unpack_dual(d * 2).tangent is None
            assert fw._is_fwd_grad_enabled()
            assert fw.unpack_dual(d * 2).tangent is not None


def test_tangent_layout_follows_the_output():
    """An output laid out unlike the tangent its formula gives gets the tangent copied into its own layout."""
    check_jvp(lambda m, x, y: (y.t() * x, y.t() + 0 * x, x + y.t()), (2, 3), (3, 2))


def test_forward_over_reverse():
    """Backward formulas run on dual tensors too: the tangent of a gradient is a Hessian-vector product."""
    out = {}
    for m in (gt, torch):
        fw = FW[m]
        x = m.tensor([1.0, 2.0, -1.0], dtype=m.float64, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, m.tensor([1.0, 0.5, 2.0], dtype=m.float64))
            (g,) = m.autograd.grad((d ** 3).sin().sum(), x, create_graph=True)
            tangent = fw.unpack_dual(g).tangent
            assert type(tangent.grad_fn).__name__ == "ViewBackward0"
            out[m] = tangent.detach()
    assert_same(out[gt], out[torch], **TOL)


def test_tangent_computation_is_recorded():
    for m in (gt, torch):
        fw = FW[m]
        t = m.ones(3, dtype=m.float64, requires_grad=True)
        with fw.dual_level():
            tangent = fw.unpack_dual(fw.make_dual(m.ones(3, dtype=m.float64), t * 2).exp()).tangent
            assert type(tangent.grad_fn).__name__ == "MulBackward0"


def test_view_tangents_are_views_of_the_tangent():
    for m in (gt, torch):
        fw = FW[m]
        x, t = m.randn(3, 4), m.randn(3, 4)
        with fw.dual_level():
            d = fw.make_dual(x, t)
            assert fw.unpack_dual(d[0]).tangent._base is t
            assert fw.unpack_dual(d.t()).tangent.stride() == (1, 4)
            assert fw.unpack_dual(d.view(12)).tangent._base is t


def _inplace(m, x, y):
    z = x.clone()
    z.mul_(y)
    z.add_(1.0)
    z[0].sin_()
    z[:, 1] = y[:, 0]
    return z, z[1]


def test_inplace_on_duals():
    check_jvp(_inplace, (3, 4), (3, 4))


def test_inplace_updates_the_tangent_in_place():
    for m in (gt, torch):
        fw = FW[m]
        with fw.dual_level():
            t = m.randn(3, dtype=m.float64)
            d = fw.make_dual(m.randn(3, dtype=m.float64), t)
            before = t.clone()
            d.mul_(2)
            assert fw.unpack_dual(d).tangent is t
            assert m.equal(t, before * 2)


def _into_plain(m, x):
    """A plain tensor written with a dual (PyTorch's cases 4 and 5): the base and its views become dual."""
    foo = m.zeros(3, 4, dtype=m.float64)
    view = foo[1]
    view.copy_(x[0])
    bar = m.zeros(2, 4, dtype=m.float64)
    other = bar[0]
    bar.copy_(x[:2] * 3)
    return foo, view, other


def test_plain_tensor_written_with_a_dual():
    check_jvp(_into_plain, (3, 4))


def test_no_grad_does_not_stop_forward_ad():
    def fn(m, x):
        with m.no_grad():
            return x.exp() * 2
    check_jvp(fn, (4,))


def test_backward_through_a_dual():
    grads = []
    for m in (gt, torch):
        fw = FW[m]
        a = m.tensor([1.0, -2.0, 3.0], dtype=m.float64, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(a, m.ones(3, dtype=m.float64))
            out = (d * d).sum()
            assert type(out.grad_fn).__name__ == "SumBackward0"
            assert fw.unpack_dual(out).tangent.item() == pytest.approx(4.0)
            out.backward()
            grads.append(a.grad)
            assert type(d.grad_fn).__name__ == "ViewBackward0"
    assert_same(*grads)


def test_make_dual_layout_and_views():
    for m in (gt, torch):
        fw = FW[m]
        x = m.randn(3, 4)
        with fw.dual_level():
            t = m.randn(3, 4)
            d = fw.make_dual(x, t)
            assert d._base is x
            primal, tangent = fw.unpack_dual(d)
            assert tangent is t and primal._base is x and primal.is_leaf
            t2 = m.randn(4, 3).t()  # another layout: copied into the primal's
            tangent2 = fw.unpack_dual(fw.make_dual(x, t2)).tangent
            assert tangent2 is not t2 and tangent2.stride() == (4, 1)
            xs = m.randn(4, 3).t()
            assert fw.unpack_dual(fw.make_dual(xs, m.randn(3, 4))).tangent.stride() == (1, 3)
            off = m.randn(5)[1:4]
            assert fw.unpack_dual(fw.make_dual(off, m.randn(3))).tangent.storage_offset() == 1
            assert fw.unpack_dual(fw.make_dual(x, m.randn(3, 4, dtype=m.float64))).tangent.dtype == m.float64
            assert fw.unpack_dual(x).tangent is None
            assert fw.unpack_dual(d.detach()).tangent is None
            assert fw.unpack_dual(d.clone()).tangent is not None
            fresh = fw.make_dual(m.randn(3), m.randn(3))
            assert fw.unpack_dual((fresh * 1).detach_()).tangent is None
        assert fw.unpack_dual(d).tangent is None and fw.unpack_dual(d).primal is d
        with fw.dual_level():
            assert fw.unpack_dual(d).tangent is None  # the level's tangents went with it


def _error_cases(m):
    fw = FW[m]
    x = m.randn(3, 4)

    def inside(f):
        def run():
            with fw.dual_level():
                return f()
        return run
    return {
        "no level": lambda: fw.make_dual(x, x),
        "size": inside(lambda: fw.make_dual(x, m.randn(3))),
        "int primal": inside(lambda: fw.make_dual(m.ones(3, dtype=m.long), m.ones(3))),
        "int tangent": inside(lambda: fw.make_dual(x, m.ones(3, 4, dtype=m.long))),
        "bad level": inside(lambda: fw.make_dual(x, x, level=5)),
        "dual primal": inside(lambda: fw.make_dual(fw.make_dual(x, x), x)),
        "dual tangent": inside(lambda: fw.make_dual(x, fw.make_dual(x, x))),
        "nested": inside(lambda: fw.enter_dual_level()),
        "unpack level": inside(lambda: fw.unpack_dual(fw.make_dual(x, x), level=3)),
        "exit none": lambda: fw.exit_dual_level(),
        "exit wrong": inside(lambda: fw.exit_dual_level(level=1)),
        "no formula": inside(lambda: fw.make_dual(x, x).floor_divide(2)),
        "aten make_dual without level": lambda: m._make_dual(x, x, 0),
        "resize dual": inside(lambda: fw.make_dual(m.randn(3), m.randn(3)).resize_(3)),
        "aten make_dual bad level": inside(lambda: m._make_dual(x, x, 1)),
        "batch_norm dual running_mean": inside(lambda: m.nn.functional.batch_norm(
            fw.make_dual(x, x), fw.make_dual(x[0], x[0]), m.ones(4))),
        "batch_norm dual running_var": inside(lambda: m.ops.aten._native_batch_norm_legit_no_training(
            fw.make_dual(x, x), None, None, m.zeros(4), fw.make_dual(m.ones(4), m.ones(4)), 0.1, 1e-5)),
    }


def test_aten_dual_ops():
    for m in (gt, torch):
        fw = FW[m]
        x = m.ones(2)
        with fw.dual_level():
            d = m._make_dual(x, x * 3, 0)
            primal, tangent = m._unpack_dual(d, 0)
            assert type(m._unpack_dual(d, 0)).__name__ == "_unpack_dual"
            assert primal._base is x and m.equal(tangent, x * 3)
        assert m._unpack_dual(x, 0).tangent is None


@pytest.mark.parametrize("case", list(_error_cases(torch)))
def test_errors(case):
    assert_same_error(_error_cases(gt)[case], _error_cases(torch)[case])


def _functions(m):
    class Square(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x)
            ctx.k = k
            return x * x * k

        @staticmethod
        def jvp(ctx, x_t, k_t):
            (x,) = ctx.saved_tensors
            return 2 * ctx.k * x * x_t

        @staticmethod
        def backward(ctx, g):
            return g, None

    class NoJvp(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Square, NoJvp


def test_custom_function_jvp():
    check_jvp(lambda m, x: _functions(m)[0].apply(x.sin(), 3.0).exp(), (4,))


def test_custom_function_without_jvp():
    def run(m):
        fw = FW[m]
        with fw.dual_level():
            return _functions(m)[1].apply(fw.make_dual(m.randn(3), m.randn(3)))
    assert_same_error(lambda: run(gt), lambda: run(torch))


GRADCHECK = {
    "mul_exp": (lambda a, b: (a * b).exp(), [(3,), (3,)]),
    "mm_tanh": (lambda a, b: (a @ b).tanh(), [(2, 3), (3, 2)]),
    "softmax_sum": (lambda a: (a.softmax(0) * a).sum(1), [(3, 2)]),
    "view_cat": (lambda a, b: gt.cat([a.t(), b], 0)[1:], [(2, 3), (1, 2)]),
    "layer_norm": (lambda a: gt.nn.functional.layer_norm(a, (3,)), [(2, 3)]),
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck_forward_ad(name):
    fn, shapes = GRADCHECK[name]
    inputs = [from_torch(p).requires_grad_() for p, _ in _inputs(shapes, 1)]
    assert gt.autograd.gradcheck(fn, inputs, check_forward_ad=True, check_backward_ad=False)
    assert gt.autograd.gradcheck(fn, inputs, check_forward_ad=True)
    assert gt.autograd.gradcheck(fn, inputs, check_forward_ad=True, fast_mode=True)


def _raised_by(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the oracle's exception, whatever it is)
        return e
    raise AssertionError("expected an exception")


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
def test_gradcheck_forward_ad_catches_a_wrong_jvp(fast_mode):
    def make(m):
        class Wrong(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def jvp(ctx, t):
                return t * 3

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return Wrong.apply

    def run(m):
        x = m.tensor([0.5, -1.5], dtype=m.float64, requires_grad=True)
        return m.autograd.gradcheck(make(m), (x,), check_forward_ad=True, check_backward_ad=False,
                                    fast_mode=fast_mode)

    if not fast_mode:
        assert_same_error(lambda: run(gt), lambda: run(torch))
    else:  # PyTorch's fast-mode text prints the random projections; glasstorch reports the slow check's
        assert type(_raised_by(lambda: run(gt))).__name__ == type(_raised_by(lambda: run(torch))).__name__
