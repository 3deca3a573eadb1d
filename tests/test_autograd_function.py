"""Custom ``autograd.Function`` against real PyTorch: gradients, the ctx API, node naming, errors.

Each recipe defines the same Function with ``m`` (``glasstorch`` or ``torch``) and returns plain data;
errors are compared by type and exact message.
"""

import warnings

import pytest
import torch
from oracle import assert_same_error, both

import glasstorch


def _same_error(recipe):
    assert_same_error(lambda: recipe(glasstorch), lambda: recipe(torch))


def _vals(x):
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, (list, tuple)):
        return [_vals(v) for v in x]
    if hasattr(x, "tolist"):
        return (repr(x.dtype).removeprefix("torch."), list(x.shape), x.tolist(), x.requires_grad)
    return x


def _same(recipe):
    got, want = both(recipe)
    assert _vals(got) == _vals(want)
    return got, want


def _leaf(m, values, dtype=None):
    return m.tensor(values, dtype=dtype or m.float32, requires_grad=True)


def _structure(fn):
    if fn is None:
        return None
    return (fn.name(), tuple((_structure(c), nr) for c, nr in fn.next_functions))


def _mul_fn(m):
    """``x * y * k`` with a non-tensor ``k`` between the tensors; returns (product, x unchanged)."""

    class MyFn(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.save_for_backward(x, y)
            ctx.k = k
            ctx.seen = (m.is_grad_enabled(), ctx.needs_input_grad, type(ctx).__name__)
            return x * y * k, x

        @staticmethod
        def backward(ctx, g1, g2):
            x, y = ctx.saved_tensors
            ctx.bwd_seen = (g2.tolist(), m.is_grad_enabled())
            return g1 * y * ctx.k, None, g1 * x * ctx.k

    return MyFn


# -- gradients, ctx, node ------------------------------------------------------------------------------
def test_function_grads_ctx_and_node():
    def recipe(m):
        fn = _mul_fn(m)
        x = _leaf(m, [1.0, 2.0])
        y = m.tensor([3.0, 4.0])
        a, b = fn.apply(x, 2.0, y)
        node = a.grad_fn
        info = [node.name(), type(node).__name__, node is b.grad_fn, b is x, b._base is x, b._is_view(),
                _structure(node), node.needs_input_grad, node.k, node.seen, a.requires_grad, a.is_leaf]
        (a.sum() + b.sum()).backward()
        info += [node.bwd_seen, x.grad, y.grad]
        return info

    _same(recipe)


def test_function_under_no_grad_and_without_grad_inputs():
    def recipe(m):
        fn = _mul_fn(m)
        x = _leaf(m, [1.0, 2.0])
        y = m.tensor([3.0, 4.0])
        with m.no_grad():
            a, b = fn.apply(x, 2.0, y)
        res = [a.grad_fn, a.requires_grad, b is x, b.requires_grad, b._is_view(), b.tolist()]
        a, b = fn.apply(x.detach(), 2.0, y)
        res += [a.grad_fn, a.requires_grad, b.requires_grad, b._is_view()]
        return res

    _same(recipe)


def test_function_used_twice_accumulates():
    def recipe(m):
        class Square(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        x = _leaf(m, [1.0, -2.0, 3.0])
        out = Square.apply(x).sum() + Square.apply(x * 3).sum()
        out.backward()
        return x.grad

    _same(recipe)


def test_non_tensor_outputs_and_grads():
    def recipe(m):
        log = []

        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone(), 3, None

            @staticmethod
            def backward(ctx, *grads):
                log.append([None if g is None else g.tolist() for g in grads])
                return grads[0]

        x = _leaf(m, [1.0, 2.0])
        a, k, n = F.apply(x)
        a.sum().backward()
        return k, n, log, x.grad, a.grad_fn.name()

    _same(recipe)


def test_list_output_is_not_wrapped():
    def recipe(m):
        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return [x * 2, x * 3]

            @staticmethod
            def backward(ctx, g, h):
                return g

        out = F.apply(_leaf(m, [1.0]))
        return type(out).__name__, [t.requires_grad for t in out]

    _same(recipe)


def test_mark_non_differentiable_and_integer_outputs():
    def recipe(m):
        log = []

        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = m.tensor([0, 1])
                val = x * 2
                ctx.mark_non_differentiable(val)
                return x * 3, val, idx

            @staticmethod
            def backward(ctx, g, gv, gi):
                log.append(_vals([g, gv, gi]))
                return g * 3

        x = _leaf(m, [1.0, 2.0])
        a, val, idx = F.apply(x)
        a.sum().backward()
        return val.requires_grad, val.grad_fn, idx.requires_grad, log, x.grad

    _same(recipe)


def test_set_materialize_grads_false():
    def recipe(m):
        log = []

        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 3, x * 4

            @staticmethod
            def backward(ctx, g, h):
                log.append((g.tolist(), h))
                return g * 3

        x = _leaf(m, [1.0, 2.0])
        a, _ = F.apply(x)
        a.sum().backward()
        return log, x.grad

    _same(recipe)


def test_mark_dirty():
    def recipe(m):
        class Double(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = _leaf(m, [1.0, 2.0])
        z = x * 1
        w = Double.apply(z)
        res = [w is z, z.grad_fn.name(), z._version, z.tolist(), _structure(z.grad_fn)]
        (w * w).sum().backward()
        return res, x.grad

    _same(recipe)


def test_mark_dirty_on_leaf_raises():
    def recipe(m):
        class Double(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        Double.apply(_leaf(m, [1.0, 2.0]))

    _same_error(recipe)


def test_setup_context_style():
    def recipe(m):
        log = []

        class Scaled(m.autograd.Function):
            @staticmethod
            def forward(x, y, scale=2.0):
                return x * y * scale

            @staticmethod
            def setup_context(ctx, inputs, output):
                log.append((len(inputs), inputs[2], m.is_grad_enabled(), output.requires_grad))
                x, y, scale = inputs
                ctx.save_for_backward(x, y)
                ctx.scale = scale

            @staticmethod
            def backward(ctx, g):
                x, y = ctx.saved_tensors
                return g * y * ctx.scale, g * x * ctx.scale, None

        x = _leaf(m, [1.0, 2.0])
        y = _leaf(m, [3.0, 4.0])
        Scaled.apply(x, y).sum().backward()
        out = Scaled.apply(x, y=y, scale=3.0)
        return log, x.grad, y.grad, out, out.grad_fn.name(), out.grad_fn.needs_input_grad

    _same(recipe)


def test_keyword_arguments_to_apply():
    def recipe(m):
        seen = []

        class K(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y=1.0):
                seen.append(ctx.needs_input_grad)
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g, None

        x = _leaf(m, [1.0, 2.0])
        a = K.apply(x=x, y=2.0)
        b = K.apply(x, y=3.0)
        c = K.apply(x)
        return seen, a, b, c

    _same(recipe)


def test_vjp_instead_of_backward():
    def recipe(m):
        class V(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 5

        x = _leaf(m, [1.0, 2.0])
        V.apply(x).sum().backward()
        return x.grad

    _same(recipe)


def test_double_backward_through_function():
    def recipe(m):
        class Cube(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x * x * g

        x = _leaf(m, [1.5, -2.0], m.float64)
        (g,) = m.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        (g2,) = m.autograd.grad(g.sum(), x)
        return g, g2

    _same(recipe)


def test_hooks_on_function_node():
    def recipe(m):
        log = []
        fn = _mul_fn(m)
        x = _leaf(m, [1.0, 2.0])
        a, _ = fn.apply(x, 1.0, m.tensor([2.0, 2.0]))
        a.grad_fn.register_prehook(lambda gout: log.append(("pre", len(gout))))
        a.grad_fn.register_hook(lambda gin, gout: log.append(("post", [g is None for g in gin])))
        a.register_hook(lambda g: log.append(("tensor", g.tolist())))
        a.sum().backward()
        return log, x.grad

    _same(recipe)


def test_saved_tensors_hooks_apply_to_save_for_backward():
    def recipe(m):
        log = []

        class Sq(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        x = _leaf(m, [1.0, 3.0])
        with m.autograd.graph.saved_tensors_hooks(lambda t: log.append("pack") or t * 10,
                                                  lambda t: log.append("unpack") or t / 10):
            y = Sq.apply(x)
        y.sum().backward()
        return log, x.grad

    _same(recipe)


def test_saved_output_is_a_new_tensor_with_the_same_history():
    def recipe(m):
        class E(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                r = x.exp()
                ctx.save_for_backward(r)
                return r

            @staticmethod
            def backward(ctx, g):
                (r,) = ctx.saved_tensors
                return g * r

        x = _leaf(m, [0.0, 1.0])
        y = E.apply(x)
        (r,) = y.grad_fn.saved_tensors
        return r is y, r.grad_fn is y.grad_fn, r.requires_grad, r.tolist() == y.tolist()

    _same(recipe)


# -- once_differentiable -------------------------------------------------------------------------------------
def _once(m):
    class Sq(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @m.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            ctx.mode = m.is_grad_enabled()
            return 2 * x * g

    return Sq


def test_once_differentiable_first_order():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        y = _once(m).apply(x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        return g, g.grad_fn, y.grad_fn.mode

    _same(recipe)


def test_once_differentiable_node_and_double_backward_error():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        y = _once(m).apply(x)
        (g,) = m.autograd.grad(y, x, m.ones(2, requires_grad=True), create_graph=True)
        return g, g.is_leaf, g.grad_fn.name(), type(g.grad_fn).__name__, _structure(g.grad_fn)

    _same(recipe)

    def fail(m):
        x = _leaf(m, [1.0, 2.0])
        (g,) = m.autograd.grad(_once(m).apply(x), x, m.ones(2, requires_grad=True), create_graph=True)
        g.sum().backward()

    _same_error(fail)


# -- errors ---------------------------------------------------------------------------------------------
def _bad(m, grads, n_inputs=2):
    class Bad(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return grads(g)

    return Bad


@pytest.mark.parametrize("case", ["too_few", "too_many", "extra_nones_ok", "non_none_for_non_tensor",
                                  "not_a_tensor", "float_grad", "wrong_shape"])
def test_backward_return_errors(case):
    def recipe(m):
        x = _leaf(m, [1.0, 2.0, 3.0])
        table = {
            "too_few": (lambda g: g, x.detach()),
            "too_many": (lambda g: (g, g, g), x.detach()),
            "extra_nones_ok": (lambda g: (g, None, None, None), x.detach()),
            "non_none_for_non_tensor": (lambda g: (g, 3), 2),
            "not_a_tensor": (lambda g: (g, 3), x),
            "float_grad": (lambda g: (1.0, None), x),
            "wrong_shape": (lambda g: (m.ones(2), None), x),
        }
        grads, other = table[case]
        _bad(m, grads).apply(x, other).sum().backward()
        if case == "extra_nones_ok":
            raise RuntimeError(f"ok {x.grad.tolist()}")

    _same_error(recipe)


def test_backward_and_vjp_both_defined():
    def recipe(m):
        class VB(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def vjp(ctx, g):
                return g

        VB.apply(_leaf(m, [1.0])).sum().backward()

    _same_error(recipe)


@pytest.mark.parametrize("missing", ["forward", "backward"])
def test_missing_methods(missing):
    def recipe(m):
        if missing == "forward":
            class NoF(m.autograd.Function):
                pass

            NoF.apply(_leaf(m, [1.0]))

        class NoB(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        NoB.apply(_leaf(m, [1.0])).sum().backward()

    _same_error(recipe)


def test_save_for_backward_rejects_non_tensors():
    def recipe(m):
        class S(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(x, k)
                return x * k

        S.apply(_leaf(m, [1.0]), 3)

    _same_error(recipe)


def test_saved_tensors_after_backward():
    def recipe(m):
        fn = _mul_fn(m)
        a, _ = fn.apply(_leaf(m, [1.0, 2.0]), 2.0, m.tensor([3.0, 4.0]))
        a.sum().backward()
        return a.grad_fn.saved_tensors

    _same_error(recipe)


def test_backward_twice_through_function():
    def recipe(m):
        fn = _mul_fn(m)
        a, _ = fn.apply(_leaf(m, [1.0, 2.0]), 2.0, m.tensor([3.0, 4.0]))
        s = a.sum()
        s.backward()
        s.backward()

    _same_error(recipe)


@pytest.mark.parametrize("which", ["input", "leaf_input", "output"])
def test_saved_tensor_version_errors(which):
    def recipe(m):
        class Save(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                r = x.exp()
                ctx.save_for_backward(r if which == "output" else x)
                return r

            @staticmethod
            def backward(ctx, g):
                (t,) = ctx.saved_tensors
                return g * t

        x = _leaf(m, [1.0, 2.0])
        if which == "input":
            z = x * 1
            o = Save.apply(z)
            z.add_(1)
        elif which == "leaf_input":
            z = x.detach().clone().requires_grad_()
            o = Save.apply(z)
            with m.no_grad():
                z.add_(1)
        else:
            o = Save.apply(x)
            o.add_(1)
        o.sum().backward()

    _same_error(recipe)


def test_legacy_instance_call():
    def recipe(m):
        fn = _mul_fn(m)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            inst = fn()
        msgs = [(str(i.message).replace("glasstorch", "torch"), i.category.__name__) for i in w]
        try:
            inst(_leaf(m, [1.0]), 1.0, m.tensor([1.0]))
        except RuntimeError as e:
            return msgs, str(e)

    got, want = both(recipe)
    assert got == want


def test_anomaly_nan_in_custom_backward():
    def recipe(m):
        class N(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g * float("nan")

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with m.autograd.detect_anomaly():
                N.apply(_leaf(m, [1.0])).sum().backward()

    _same_error(recipe)


def test_outputs_that_alias_inputs():
    def recipe(m):
        class V(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.view(-1), x[0], x, x

            @staticmethod
            def backward(ctx, g, h, i, j):
                return g.view(2, 2) + i + j

        x = _leaf(m, [[1.0, 2.0], [3.0, 4.0]])
        a, b, c, d = V.apply(x)
        res = [(t._base is x, t._is_view(), t.grad_fn is a.grad_fn) for t in (a, b, c, d)] + [c is d, c is x]
        (a.sum() + c.sum() * 2 + d.sum()).backward()
        return res, x.grad

    _same(recipe)


def test_mark_dirty_without_history():
    def recipe(m):
        class D(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = _leaf(m, [1.0, 2.0])
        with m.no_grad():
            r = D.apply(x)
        res = [r is x, r.requires_grad, x._version, r.grad_fn]
        y = m.tensor([1.0, 2.0])
        r = D.apply(y)
        return res + [r is y, r.requires_grad, y._version, y]

    _same(recipe)


def test_mark_dirty_not_returned():
    def recipe(m):
        class D(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                x.mul_(2)
                ctx.mark_dirty(x)
                return y * 1

            @staticmethod
            def backward(ctx, g):
                return None, g

        D.apply(m.ones(2), _leaf(m, [1.0, 2.0]))

    _same_error(recipe)


def test_needs_input_grad_in_backward():
    def recipe(m):
        seen = []

        class N(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.needs_input_grad)
                return (g * 2 if ctx.needs_input_grad[0] else None), (g if ctx.needs_input_grad[1] else None)

        x = _leaf(m, [1.0, 2.0])
        N.apply(x, m.tensor([1.0, 1.0])).sum().backward()
        N.apply(m.tensor([1.0, 1.0]), x).sum().backward()
        return seen, x.grad

    _same(recipe)
