"""In-place operations on views under autograd, against torch: CopySlices on the base, AsStridedBackward0 on
the views (also views taken before the write), gradients (first and second order), the error texts of
views that may not be written in place, and hooks that follow the new history."""

import numpy as np
import pytest
import torch

import glasstorch as gt

A = np.random.default_rng(0).standard_normal((3, 4))
B = np.random.default_rng(1).standard_normal((4,))
W = np.random.default_rng(2).standard_normal((3, 4))


def _run(mod, fn, *arrays):
    leaves = [mod.tensor(x, dtype=mod.float64, requires_grad=True) for x in arrays]
    out, info = fn(mod, *leaves)
    w = mod.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)), dtype=mod.float64)
    (out * w).sum().backward()
    return out, [None if t.grad is None else t.grad.numpy() for t in leaves], info


def _compare(fn, *arrays):
    t_out, t_grads, t_info = _run(torch, fn, *arrays)
    g_out, g_grads, g_info = _run(gt, fn, *arrays)
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    assert len(t_grads) == len(g_grads)
    for tg, gg in zip(t_grads, g_grads, strict=True):
        assert (tg is None) == (gg is None)
        if tg is not None:
            np.testing.assert_allclose(gg, tg, rtol=1e-12, atol=1e-14)
    assert g_info == t_info


def _names(t):
    fn = t.grad_fn
    return None if fn is None else (fn.name(), tuple(None if n is None else n.name() for n, _ in fn.next_functions))


def test_mul_on_a_row_view():
    def f(m, a):
        x = a.clone()
        v = x[0]
        v.mul_(2)
        return x, (_names(x), _names(v))
    _compare(f, A)


def test_setitem_into_a_leaf_that_does_not_require_grad():
    def f(m, b):
        y = m.zeros(2, 4, dtype=m.float64)
        y[0] = b
        return y, (_names(y), y.is_leaf, y.requires_grad)
    _compare(f, B)


def test_setitem_of_a_column_of_a_non_leaf():
    def f(m, a, b):
        x = a.clone()
        x[:, 1] = b[:3] * 2
        return x ** 2, _names(x)
    _compare(f, A, B)


def test_view_of_a_view_and_transposed_views():
    def f(m, a, b):
        x = a.clone()
        x[1:][0].add_(b)
        t = x.t()
        t[2].mul_(b[:3])
        return x, (_names(x), _names(t))
    _compare(f, A, B)


def test_view_taken_before_the_base_is_written_sees_the_new_value_and_history():
    def f(m, a):
        x = a.clone()
        v = x[0]
        x.mul_(3)
        return v * v, _names(v)
    _compare(f, A)


def test_sibling_view_taken_before_another_view_is_written():
    def f(m, a, b):
        x = a.clone()
        row = x[2]
        x[:, 0].mul_(b[:3])
        return row.exp(), (_names(row), _names(x))
    _compare(f, A, B)


def test_expanded_view_of_a_base_written_in_place():
    def f(m, a):
        x = a[:1].clone()
        e = x.expand(3, 4)
        x.add_(1)
        return e * 2, _names(e)
    _compare(f, A)


def test_in_place_ops_chain_on_one_view():
    def f(m, a, b):
        x = a.clone()
        v = x[:, 1:3]
        v.mul_(2).add_(b[:2]).sigmoid_()
        return x, _names(x)
    _compare(f, A, B)


def test_masked_fill_and_index_put_through_views():
    def f(m, a):
        x = a.clone()
        x[0][x[0] > 0] = 0.0
        x[1].masked_fill_(x[1] < 0, 1.5)
        return x, None
    _compare(f, A)


def test_retain_grad_on_the_base_follows_the_new_grad_fn():
    out = {}
    for m in (torch, gt):
        a = m.tensor(A, requires_grad=True)
        x = a * 1
        x.retain_grad()
        x[0].mul_(2)
        x.sum().backward()
        out[m.__name__] = (x.grad.numpy(), a.grad.numpy())
    np.testing.assert_allclose(out["glasstorch"][0], out["torch"][0])
    np.testing.assert_allclose(out["glasstorch"][1], out["torch"][1])


def test_double_backward_through_copy_slices():
    res = {}
    for m in (torch, gt):
        a = m.tensor(A, requires_grad=True)
        b = m.tensor(B, requires_grad=True)
        x = a.clone()
        x[1].mul_(b)
        (g,) = m.autograd.grad((x ** 3).sum(), b, create_graph=True)
        (g * g).sum().backward()
        res[m.__name__] = (g.detach().numpy(), a.grad.numpy(), b.grad.numpy())
    for got, want in zip(res["glasstorch"], res["torch"], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_gradcheck_of_a_function_writing_into_a_view():
    def f(a, b):
        x = a.clone()
        x[1:3, :].mul_(b)
        x[0].copy_(b * b)
        return x
    a = gt.tensor(A, requires_grad=True)
    b = gt.tensor(B, requires_grad=True)
    assert gt.autograd.gradcheck(f, (a, b))
    assert gt.autograd.gradgradcheck(f, (a, b))


def _error(m, fn):
    with pytest.raises(RuntimeError) as e:
        fn(m)
    return str(e.value)


@pytest.mark.parametrize("case", ["no_grad_view", "no_grad_view_plain_base", "unbind", "split", "chunk",
                                  "split_with_sizes", "unbind_plain_base", "indirect", "leaf_view"])
def test_views_that_may_not_be_written_in_place(case):
    def run(m):
        b = m.tensor(B[:3], requires_grad=True)
        if case == "no_grad_view":
            x = m.zeros(2, 3, requires_grad=True).clone()
            with m.no_grad():
                v = x[0]
            v.mul_(2)
        elif case == "no_grad_view_plain_base":
            x = m.zeros(2, 3)
            with m.no_grad():
                v = x[0]
            v.mul_(b)
        elif case in ("unbind", "split", "chunk", "split_with_sizes"):
            x = m.zeros(2, 3, requires_grad=True).clone()
            parts = {"unbind": lambda: x.unbind(), "split": lambda: x.split(1), "chunk": lambda: x.chunk(2),
                     "split_with_sizes": lambda: x.split([1, 1])}[case]()
            parts[0].mul_(2)
        elif case == "unbind_plain_base":
            x = m.zeros(2, 3)
            x.unbind()[0].mul_(b)
        elif case == "indirect":
            x = m.zeros(2, 3, requires_grad=True).clone()
            p = x.unbind()[0]
            x.mul_(2)
            p.exp()
        elif case == "leaf_view":
            x = m.zeros(2, 3, requires_grad=True)
            x[0].mul_(2)
    assert _error(gt, run) == _error(torch, run)


def test_views_created_and_written_in_no_grad_mode_are_fine():
    for m in (torch, gt):
        x = m.zeros(2, 3, requires_grad=True).clone()
        with m.no_grad():
            v = x[0]
            v.add_(1)
        assert x.grad_fn.name() == "CloneBackward0"


def test_tensor_split_views_may_be_written():
    def f(m, a):
        x = a.clone()
        x.tensor_split(2)[0].mul_(2)
        return x, _names(x)
    _compare(f, A)


def test_copy_backwards_converts_dtype_and_sums_broadcasts():
    def f(m, b):
        y = m.zeros(3, 4, dtype=m.float32)
        y.copy_(b)
        return y.double(), _names(y)
    _compare(f, B)


def _double_inplace(m):
    class Double(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Double


def test_custom_function_marking_a_view_dirty_rebases_the_base():
    def f(m, a):
        x = a.clone()
        _double_inplace(m).apply(x[1])
        return x, _names(x)
    _compare(f, A)


def test_custom_function_modifying_a_view_may_return_one_tensor_only():
    def run(m):
        class Two(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x.mul_(2), x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                return g1
        x = m.tensor(A, requires_grad=True).clone()
        Two.apply(x[0])
    assert _error(gt, run) == _error(torch, run)


@pytest.mark.parametrize("op", ["elu_", "relu_", "sigmoid_", "tanh_", "exp_"])
def test_double_backward_through_inplace_output_saved_on_a_dropped_view(op):
    # The in-place op saves its output (a view); once the view is gone, double backward still reaches the
    # input through the node that saved it (PyTorch's SavedVariable::unpack falls back to saved_for).
    def run(m):
        v = m.tensor([1.0, -1.0, 0.5, -2.0], dtype=m.float64, requires_grad=True)
        g = m.tensor([0.3, 0.7, -1.1, 2.0], dtype=m.float64, requires_grad=True)

        def f(root):
            x = root.clone()
            _apply_inplace(m, x.narrow(0, 1, 2), op)  # the view is dropped at once
            return x

        gx, = m.autograd.grad(f(v), v, g, create_graph=True)
        return [t.tolist() if t is not None else None for t in m.autograd.grad(gx[1:3].sum(), [v, g],
                                                                                allow_unused=True)]

    _close(run(gt), run(torch))
    v = gt.tensor([1.0, -1.0, 1.0, -1.0], dtype=gt.float64, requires_grad=True)
    assert gt.autograd.gradgradcheck(lambda r: _inplace_on_dropped_view(r, op), [v])


def _inplace_on_dropped_view(root, op):
    x = root.clone()
    _apply_inplace(gt, x.narrow(0, 1, 2), op)
    return x


def _apply_inplace(m, view, op):
    if op == "elu_":
        m.nn.functional.elu(view, inplace=True)
    else:
        getattr(view, op)()


def _close(a, b):
    for x, y in zip(a, b, strict=True):
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)
