"""In-place rules, view creation and custom Function outputs under autograd, against torch: the version-counter
error naming the forward op, increment_version on inference tensors, in-place ops PyTorch declares without a
derivative, ``ctx._materialize_non_diff_grads`` and the integer outputs of the ``unique`` family."""

import pytest
import torch
from oracle import fresh_interpreter

import glasstorch as gt
from tests.oracle import assert_same_error, both


# -- torch.autograd.graph.increment_version ------------------------------------------------------------------
def test_increment_version_bumps_and_skips_inference_tensors():
    def run(m):
        a = m.rand(5, requires_grad=True)
        b = m.zeros(5, dtype=m.int32)
        m.autograd.graph.increment_version(a)
        m.autograd.graph.increment_version([b, b])
        with m.inference_mode():
            c = m.rand(5, requires_grad=True)
            m.autograd.graph.increment_version(c)
        m.autograd.graph.increment_version(c)  # outside the mode: an inference tensor has no counter to bump
        return a._version, b._version, c.is_inference()

    g, t = both(run)
    assert g == t


# -- the version-counter error names the forward op ----------------------------------------------------------
def _modified_saved_output(m, make):
    b = make(m)
    c = b * b
    with m.no_grad():
        b += 1
    c.backward(m.ones_like(c))


def _my_func(m):
    class MyFunc(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x

    return MyFunc.apply(m.ones(5, requires_grad=True))


@pytest.mark.parametrize("make", [
    lambda m: m.ones(5, requires_grad=True) + 1,  # AddBackward0: "of Add"
    lambda m: m.ones(3, 4, requires_grad=True).sum(dim=1),  # SumBackward1: "of Sum1"
    lambda m: m.ones(3, 4, requires_grad=True).sum(),  # SumBackward0: "of Sum"
    _my_func,  # MyFuncBackward: "of MyFunc"
], ids=["add", "sum_dim", "sum", "custom"])
def test_version_error_names_the_forward_op(make):
    assert_same_error(lambda: _modified_saved_output(gt, make), lambda: _modified_saved_output(torch, make))


# -- in-place ops declared without a derivative --------------------------------------------------------------
@pytest.mark.parametrize("name", ["acosh_", "asinh_", "atanh_"])
def test_inplace_inverse_hyperbolic_backward_not_implemented(name):
    def run(m):
        y = getattr(m, name)(m.full((2,), 1.5, requires_grad=True).clone())
        return y, type(y.grad_fn).__name__

    (g, g_name), (t, t_name) = both(run)
    assert g_name == t_name
    assert_same_error(lambda: g.sum().backward(), lambda: t.sum().backward())


# -- ctx._materialize_non_diff_grads ---------------------------------------------------------------------------
@pytest.mark.parametrize("materialize", [True, False])
def test_materialize_non_diff_grads(materialize):
    def run(m):
        seen = []

        class Func(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out1 = x.clone()
                ctx.mark_non_differentiable(out1)
                ctx._materialize_non_diff_grads = materialize
                return x.clone(), out1, x.long()

            @staticmethod
            def backward(ctx, g0, g1, g2):
                seen.extend(None if g is None else (g.tolist(), str(g.dtype)) for g in (g1, g2))
                return g0

        a = m.tensor(1.0, requires_grad=True)
        Func.apply(a)[0].backward()
        return seen, a.grad.item()

    g, t = both(run)
    assert g == t


# -- integer outputs of the unique family ----------------------------------------------------------------------
def _unique_calls(m, inp, sort, inverse, counts):
    return [
        m._unique(inp, sorted=sort, return_inverse=inverse),
        m._unique2(inp, sorted=sort, return_inverse=inverse, return_counts=counts),
        m._VF.unique_dim(inp, dim=0, sorted=sort, return_inverse=inverse, return_counts=counts),
        m.unique(inp, sorted=sort, return_inverse=inverse, return_counts=counts),
        m.unique_consecutive(inp, return_inverse=inverse, return_counts=counts, dim=0),
    ]


@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("inverse", [True, False])
@pytest.mark.parametrize("counts", [True, False])
def test_unique_family_only_values_require_grad(sort, inverse, counts):
    def run(m):
        inp = m.tensor([3.0, 1.0, 3.0, 2.0], requires_grad=True)
        out = []
        for res in _unique_calls(m, inp, sort, inverse, counts):
            res = res if isinstance(res, tuple) else (res,)
            out.append([(r.tolist(), str(r.dtype), r.requires_grad) for r in res])
        return out

    g, t = both(run)
    assert g == t


def test_private_unique_backward_not_implemented():
    def run(m):
        out = m._unique(m.tensor([3.0, 1.0], requires_grad=True))[0]
        return out, type(out.grad_fn).__name__

    (g, g_name), (t, t_name) = both(run)
    assert g_name == t_name
    assert_same_error(lambda: g.sum().backward(), lambda: t.sum().backward())


# -- Note [Views without autograd metadata]: a view taken before its base entered autograd ----------------------
def test_view_of_a_leaf_that_later_requires_grad_refuses_inplace():
    def run(m):
        a = m.randn(2, 3)
        b = a[:]
        b.add_(5)  # allowed: nothing requires grad yet
        a.requires_grad = True
        a.sum().backward()
        c = m.randn(2, 3)
        d = c[:]
        c.requires_grad = True
        return a.grad.tolist(), d.requires_grad, d.grad_fn is None, d.is_leaf, d

    (*g, g_view), (*t, t_view) = both(run)
    assert g == t
    assert_same_error(lambda: g_view.add_(5), lambda: t_view.add_(5))


def test_inplace_on_base_makes_earlier_views_require_grad():
    def run(m):
        r = m.tensor([2.0], dtype=m.float64, requires_grad=True)
        x = m.ones(5, dtype=m.float64)
        v = x.select(0, 1)
        before = (v.requires_grad, v.grad_fn is None)
        x.mul_(r)
        after = (v.requires_grad, type(v.grad_fn).__name__, type(v.grad_fn.next_functions[0][0]).__name__)
        (v * 3).backward()
        return before, after, r.grad.tolist()

    g, t = both(run)
    assert g == t


def test_inplace_on_base_view_gradcheck():
    def fn(r):
        x = gt.ones(5, dtype=gt.float64)
        v = x.select(0, 1)
        x.add_(r)
        return v

    r = gt.ones(1, dtype=gt.float64, requires_grad=True)
    assert gt.autograd.gradcheck(fn, [r])
    assert gt.autograd.gradgradcheck(fn, [r])


# -- views made or returned by a custom Function, and views of views made in no-grad/inference mode -------------
def _funcs(m):
    class ViewAsSelf(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return g

    class Narrow(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, pure):
            ctx._is_pure_view = pure
            return x.narrow(0, 0, 2)

        @staticmethod
        def backward(ctx, g):
            return m.cat([g, m.zeros(1, dtype=g.dtype)]), None

    class TwoViews(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, pure):
            ctx._is_pure_view = pure
            return x.narrow(0, 0, 2), x + y

        @staticmethod
        def backward(ctx, g0, g1):
            return m.cat([g0, m.zeros(1, dtype=g0.dtype)]) + g1, g1, None

    class ViewOfTemp(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, pure):
            ctx._is_pure_view = pure
            return x.clone().select(0, 0)

        @staticmethod
        def backward(ctx, g):
            return g.expand(3).clone(), None

    return ViewAsSelf, Narrow, TwoViews, ViewOfTemp


_VIEW_CASES = {
    # a view returned by a custom Function may not be written in place ...
    "custom_view_add": lambda m, F: F[1].apply(m.ones(3, requires_grad=True).clone(), False).add_(1),
    "custom_view_of_no_grad_input": lambda m, F: F[0].apply(m.rand(1, 2)).add_(m.rand(1, requires_grad=True)),
    "custom_view_copy": lambda m, F: F[0].apply(m.rand(1, 2)).copy_(m.rand(1, requires_grad=True)),
    # ... nor one of several differentiable outputs; a pure view needs one input and one output
    "multi_output": lambda m, F: F[2].apply(m.ones(3, requires_grad=True).clone(), m.ones(3), False)[0].add_(1),
    "pure_two_inputs": lambda m, F: F[2].apply(m.ones(3, requires_grad=True).clone(), m.ones(3), True),
    # a pure view of a temporary: its base is a leaf
    "pure_view_of_temp": lambda m, F: F[3].apply(m.ones(3, requires_grad=True).clone(), True).add_(1),
    "view_of_temp": lambda m, F: F[3].apply(m.ones(3, requires_grad=True).clone(), False).add_(1),
}


@pytest.mark.parametrize("case", list(_VIEW_CASES))
def test_custom_function_output_views_refuse_inplace(case):
    assert_same_error(lambda: _VIEW_CASES[case](gt, _funcs(gt)), lambda: _VIEW_CASES[case](torch, _funcs(torch)))


def test_pure_view_custom_function_is_rebased_like_a_view():
    def run(m):
        calls = []
        _, Narrow, _, _ = _funcs(m)
        a = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = Narrow.apply(a.clone(), True)
        out.mul_(3)  # a pure view: the write rebases the history of the Function's input, which is not called
        calls.append(type(out.grad_fn).__name__)
        out.sum().backward()
        return calls, a.grad.tolist()

    g, t = both(run)
    assert g == t


@pytest.mark.parametrize("grad_mode_view", [True, False])
@pytest.mark.parametrize("grad_mode_iview", [True, False])
def test_inplace_view_op_on_custom_function_view(grad_mode_view, grad_mode_iview):
    def run(m):
        ViewAsSelf = _funcs(m)[0]
        base = m.rand(2, 3, requires_grad=True).clone()
        with m.set_grad_enabled(grad_mode_view):
            inp = ViewAsSelf.apply(base)
        with m.set_grad_enabled(grad_mode_iview):
            inp.t_()
        inp.add_(1)

    assert_same_error(lambda: run(gt), lambda: run(torch))


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_view_of_a_view_made_in_no_grad_mode(mode):
    def run(m):
        x = m.zeros(1, 2)
        with getattr(m, mode)():
            y = x.view(1, 2)
        y.requires_grad_(True)
        z = y.squeeze(0)  # SqueezeBackward1: the message names "Squeeze1"
        z /= 2

    assert_same_error(lambda: run(gt), lambda: run(torch))


def test_mark_dirty_of_a_non_input():
    def run(m, make):
        class Func(m.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                out = make(inp)
                out.add_(1)
                ctx.mark_dirty(out)
                return out

            @staticmethod
            def backward(ctx, g):
                return g

        return Func.apply(m.ones(2, requires_grad=True).clone())

    def view_of_intermediate(x):
        return x.clone().view_as(x)

    assert_same_error(lambda: run(gt, view_of_intermediate), lambda: run(torch, view_of_intermediate))
    for m in (gt, torch):
        with pytest.warns(UserWarning, match="ctx.mark_dirty\\(\\) received a tensor that was not an input"):
            run(m, lambda x: 3 * x)


def test_dirty_view_saved_for_backward_does_not_leak():
    import weakref

    def run(m):
        class Test(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad

        def scope():
            x = m.tensor(1.0, requires_grad=True).clone()
            x = x.view_as(x)
            Test.apply(x)
            return weakref.ref(x)

        return scope()() is None

    g, t = both(run)
    assert g == t is True


def test_input_returned_as_is_keeps_its_subclass():
    def run(m):
        class Custom(m.Tensor):
            def __init__(self, data):
                super().__init__()
                self._data = data

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                args = tuple(a._data if isinstance(a, cls) else a for a in args)
                out = func(*args, **(kwargs or {}))
                return cls(out) if isinstance(out, m.Tensor) else out

        class Fn(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        base = m.randn(2, 3)
        x = Custom(base)
        y = Fn.apply(x)
        return type(x).__name__, type(y).__name__, y.shape == x.shape

    g, t = both(run)
    assert g == t


def test_tensor_constructor_of_a_tensor_is_an_alias():
    def run(m):
        t = m.randn(2, 3)
        r = m.randn(2, requires_grad=True)
        a = m.Tensor(t)
        return a is t, a._base is t, type(m.Tensor(r).grad_fn).__name__, m.FloatTensor(t)._base is t

    g, t = both(run)
    assert g == t


# -- views of inference tensors outside inference mode are not tracked (PyTorch's Note [View of inference tensor])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_view_of_inference_tensor_in_normal_mode_is_a_plain_tensor(requires_grad):
    def run(m):
        with m.inference_mode():
            c = m.ones(1, 2, 3, requires_grad=requires_grad)
            inner = c.view(-1)
        normal = m.ones(2, 3)
        with m.inference_mode():
            w = normal.view(-1)
        out = c.view(-1)
        parts = c.unbind(1)
        return ([m.is_inference(out), out.requires_grad, out._is_view(), out.is_leaf, out._base is None],
                [p._is_view() for p in parts], inner._is_view(), [w._is_view(), w._base is normal, m.is_inference(w)])

    g, t = both(run)
    assert g == t


# -- the unsafe splits: pieces that are no views to autograd, so writing one in place is allowed ----------------
@pytest.mark.parametrize("split", [
    lambda t: t.unsafe_split(1), lambda t: t.unsafe_split_with_sizes((1, 1, 1)), lambda t: t.unsafe_chunk(3),
], ids=["unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"])
def test_inplace_on_unsafe_split_pieces(split):
    def run(m):
        m.manual_seed(0)
        a = m.randn(3, 3, requires_grad=True)
        s1, s2, s3 = split(a + a)
        info = [type(s1.grad_fn).__name__, s1._base is None, s1._version, s2._version]
        s1.mul_(s2)
        info.append((s1._version, s2._version))
        s1.sum().backward()
        return info, a.grad.tolist()

    g, t = both(run)
    assert g == t


# -- set_ drops the cached AccumulateGrad, whose recorded shape would be stale --------------------------------------
def test_parameter_set_then_cat_backward():
    def run(m):
        p = m.nn.Parameter(m.arange(16, dtype=m.float64))
        grads = []
        for _ in range(2):
            with m.no_grad():
                p.set_(p[1:])
                p.grad = None
            out = m.cat((p, p * 2))  # the previous iteration's graph is still alive here
            out.sum().backward()
            grads.append((tuple(p.shape), p.grad.tolist()))
        return grads

    g, t = both(run)
    assert g == t


# -- torch.autograd.enforce_grad_layout_policy -------------------------------------------------------------------
def _layout_run(m, how):
    class ContiguousGrad(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad_output):
            return m.ones(2, 3, 4, 5)

    a = m.rand(2, 3, 4, 5).to(memory_format=m.channels_last).requires_grad_()
    if how == "default":
        ContiguousGrad.apply(a).backward()
    elif how == "context":
        with m.autograd.enforce_grad_layout_policy(False):
            ContiguousGrad.apply(a).backward()
    elif how == "call":
        try:
            m.autograd.enforce_grad_layout_policy(False)
            ContiguousGrad.apply(a).backward()
        finally:
            m.autograd.enforce_grad_layout_policy(True)
    else:
        @m.autograd.enforce_grad_layout_policy(False)
        def do_backward():
            ContiguousGrad.apply(a).backward()

        assert m._C._is_grad_layout_enforcement_enabled()  # decorating does not leak the flag
        do_backward()
    return a.grad.stride(), a.stride(), m._C._is_grad_layout_enforcement_enabled()


@pytest.mark.parametrize("how", ["default", "context", "call", "decorator"])
@fresh_interpreter  # whether AccumulateGrad may steal the gradient is read from reference counts
def test_enforce_grad_layout_policy(how):
    g, t = both(lambda m: _layout_run(m, how))
    assert g == t


def test_relaxed_layout_policy_still_copies_a_gradient_it_cannot_steal():
    def run(m):
        a = m.rand(2, 3, 4, 5).to(memory_format=m.channels_last).requires_grad_()
        g = m.ones(2, 3, 4, 5)
        with m.autograd.enforce_grad_layout_policy(False):
            a.backward(g)  # the caller still holds g: copied, into the leaf's layout
        return a.grad.stride(), a.grad is g
    g, t = both(run)
    assert g == t


# -- Tensor._view_func / _view_func_unsafe / _rev_view_func_unsafe ---------------------------------------------------
def _meta(t):
    return tuple(t.shape), t.stride(), t.storage_offset(), str(t.dtype).removeprefix("torch.")


def _replay_all(m, make, args, replay, unsafe):
    m.manual_seed(0)
    inp = make(m)
    with m.autograd._force_original_view_tracking(replay):
        outs = getattr(m, args[0])(inp, *args[1:]) if isinstance(args[0], str) else args[0](m, inp)
    outs = [outs] if isinstance(outs, m.Tensor) else outs
    res = []
    for out in outs:
        new_inp = inp.clone() * 2
        new_out = out._view_func_unsafe(new_inp) if unsafe else out._view_func(new_inp)
        entry = [out._base is inp, _meta(new_out), new_out.tolist() == (out * 2).tolist()]
        if replay:
            new_view = out.detach()
            back = out._rev_view_func_unsafe(new_view)
            entry += [_meta(back), back._is_view(), back._base is new_view]
        res.append(entry)
    return res


_VIEW_FUNC_CASES = {
    "as_strided": (lambda m: m.rand(2, 2), ("as_strided", (4,), (1,))),
    "chunk": (lambda m: m.rand(2, 4), ("chunk", 2, -1)),
    "diagonal": (lambda m: m.rand(4, 4), ("diagonal",)),
    "select": (lambda m: m.rand(2, 2), ("select", 0, 1)),
    "split_with_sizes": (lambda m: m.rand(2, 4), ("split_with_sizes", [1, 3], -1)),
    "squeeze_dims": (lambda m: m.rand(2, 1, 1, 4), ("squeeze", [1, 2])),
    "unbind": (lambda m: m.rand(1, 5), ("unbind",)),
    "view_as_complex": (lambda m: m.rand(2, 2), ("view_as_complex",)),
    "view_as_real": (lambda m: m.rand(2, 2, dtype=m.cfloat), ("view_as_real",)),
    "chain": (lambda m: m.randn(2, 3, 4), (lambda m, x: x.chunk(2, -1)[0].transpose(0, 1).unsqueeze(-1),)),
    "chain_dtype": (lambda m: m.randn(3, 2, dtype=m.cfloat), (lambda m, x: m.view_as_real(x[1:]).transpose(0, 1),)),
}


@pytest.mark.parametrize("case", list(_VIEW_FUNC_CASES))
@pytest.mark.parametrize("replay", [True, False])
@pytest.mark.parametrize("unsafe", [True, False])
def test_view_func_replays_a_view_on_a_new_base(case, replay, unsafe):
    make, args = _VIEW_FUNC_CASES[case]
    g, t = both(lambda m: _replay_all(m, make, args, replay, unsafe))
    assert g == t


def test_view_func_refusals():
    def run(m):
        x = m.rand(2, 2)
        v = x.t()
        with m.autograd._force_original_view_tracking(True):
            w = x.t()
        return x._view_func(x), x._view_func_unsafe(x), x._rev_view_func_unsafe(x), w._view_func(m.rand(3, 3)), v

    (*g, g_view), (*t, t_view) = both(run)
    assert g == t == [None] * 4
    assert_same_error(lambda: g_view._rev_view_func_unsafe(g_view.detach()),
                      lambda: t_view._rev_view_func_unsafe(t_view.detach()))


def test_view_func_with_modified_state():
    def run(m):
        with m.autograd._force_original_view_tracking(True):
            m.manual_seed(0)
            base = m.randn(3, 4, 5)
            view = base.select(1, 2)
            new_base = m.randn_like(base)
            moved = view._view_func(new_base, symint_visitor_fn=lambda x: x + 1)  # the saved index, not the dim
            again = view._view_func(new_base)  # the saved state is back
            sliced = base[:, 2:3, :].detach()
            inv = m.ops.aten.slice_inverse(sliced, base, 1, 2, 3, 1)
            new_sliced = m.ones_like(base)[:, 2:3, :].detach()
            swapped = inv._view_func(new_sliced, tensor_visitor_fn=lambda x: m.zeros(1, 2, 3))
            return [_meta(moved), moved.tolist() == new_base.select(1, 3).tolist(),
                    again.tolist() == new_base.select(1, 2).tolist(), _meta(swapped),
                    inv._view_func(sliced).tolist() == base.tolist(), type(inv.grad_fn).__name__]

    g, t = both(run)
    assert g == t


def test_slice_inverse_gradients():
    def run(m):
        b = m.arange(60.0).reshape(3, 4, 5).requires_grad_()
        s = b[:, 2:3, :].detach().requires_grad_()
        v = m.ops.aten.slice_inverse(s, b, 1, 2, 3, 1)
        (v * m.arange(60.0).reshape(3, 4, 5)).sum().backward()
        return v._base is s, s.grad.tolist(), b.grad.tolist()

    g, t = both(run)
    assert g == t


@pytest.mark.parametrize("jvp_err", [True, False])
def test_dirty_input_tangent_checks_after_the_marks_are_dropped(jvp_err):
    def run(m):
        class InplaceMul(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x.mul_(2))
                return x

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def jvp(ctx, x_t):
                return x_t if jvp_err else x_t.mul_(2)

        x = m.tensor(1.0).clone()
        with m.autograd.forward_ad.dual_level():
            dual = m.autograd.forward_ad.make_dual(x, m.ones_like(x))
            out = InplaceMul.apply(dual)
            return m.autograd.forward_ad.unpack_dual(out).tangent.item(), out is dual

    if jvp_err:
        assert_same_error(lambda: run(gt), lambda: run(torch))
    else:
        g, t = both(run)
        assert g == t
