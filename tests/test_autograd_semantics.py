"""Autograd semantics against real PyTorch: graph structure, gradients, accumulation, errors, hooks, modes.

Every case is a recipe over ``m`` (``glasstorch`` or ``torch``) run in both libraries; results are
compared as plain Python data (``tolist``), graph shapes as nested ``(name, children)`` tuples, and
errors by type and exact message.
"""

import threading
import warnings

import pytest
import torch
from oracle import assert_same_error, both

import glasstorch


def _same_error(recipe):
    assert_same_error(lambda: recipe(glasstorch), lambda: recipe(torch))


def _structure(fn, depth=0):
    """``(name, (children...))`` of a grad_fn, following next_functions (None kept as None)."""
    if fn is None:
        return None
    assert depth < 20
    return (fn.name(), tuple((_structure(child, depth + 1), nr) for child, nr in fn.next_functions))


def _vals(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return [_vals(v) for v in x]
    if hasattr(x, "tolist"):
        return (repr(x.dtype).removeprefix("torch."), list(x.shape), x.tolist())
    return x


def _same(recipe):
    got, want = both(recipe)
    assert _vals(got) == _vals(want)
    return got, want


def _close(recipe, tol=1e-6):
    got, want = both(recipe)
    g, w = _vals(got), _vals(want)
    _assert_close(g, w, tol)


def _assert_close(g, w, tol):
    if isinstance(w, tuple) and len(w) == 3 and isinstance(w[0], str):
        assert g[:2] == w[:2], (g, w)
        _assert_close(g[2], w[2], tol)
    elif isinstance(w, list) or isinstance(w, tuple):
        assert len(g) == len(w), (g, w)
        for a, b in zip(g, w, strict=True):
            _assert_close(a, b, tol)
    elif isinstance(w, float):
        assert abs(g - w) <= tol * (1 + abs(w)), (g, w)
    else:
        assert g == w, (g, w)


def _leaf(m, values, dtype=None):
    return m.tensor(values, dtype=dtype or m.float32, requires_grad=True)


# -- graph structure -----------------------------------------------------------------------------------------
GRAPHS = {
    "mul_sum": lambda m, x, y: (x * y).sum(),
    "mul_scalar": lambda m, x, y: x * 2,
    "exp_add_mean": lambda m, x, y: (x.exp() + y).mean(),
    "detached_operand": lambda m, x, y: x * y.detach(),
    "view_sin": lambda m, x, y: x.view(3, 1).sin(),
    "t_mm": lambda m, x, y: x.view(3, 1).t().mm(y.view(3, 1)),
    "reuse": lambda m, x, y: (x * x + x).sum(),
    "unbind": lambda m, x, y: x.unbind(0)[1] * y,
    "div_neg": lambda m, x, y: -(x / y),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_graph_structure(name):
    def recipe(m):
        x = _leaf(m, [1.0, 2.0, 3.0])
        y = _leaf(m, [4.0, 5.0, 6.0])
        out = GRAPHS[name](m, x, y)
        return out.requires_grad, out.is_leaf, _structure(out.grad_fn)

    got, want = both(recipe)
    assert got == want


def test_leaf_grad_fn_and_accumulator():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        y = x * 3
        acc = y.grad_fn.next_functions[0][0]
        return (x.grad_fn, x.is_leaf, y.is_leaf, acc.name(), type(acc).__name__, acc.variable is x,
                acc.next_functions, acc is (x + 1).grad_fn.next_functions[0][0],
                isinstance(y.grad_fn, m.autograd.graph.Node), y.grad_fn.metadata)

    got, want = both(recipe)
    assert got == want


# -- gradient values and accumulation ------------------------------------------------------------------------
GRADS = {
    "broadcast_mul": lambda m, x, y: (x.view(3, 1) * y).sum(),
    "chain": lambda m, x, y: (x.sin() * y.exp()).sum(),
    "pow_mean": lambda m, x, y: (x ** 3).mean() + (y ** 2).sum(),
    "div": lambda m, x, y: (x / y).sum(),
    "matmul": lambda m, x, y: x.view(3, 1).mm(y.view(1, 3)).tanh().sum(),
    "reuse": lambda m, x, y: (x * x * x + x).sum() * y.sum(),
    "softmax": lambda m, x, y: (x.softmax(0) * y).sum(),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad_values(name):
    def recipe(m):
        x = _leaf(m, [0.5, -1.0, 2.0])
        y = _leaf(m, [1.5, 0.25, -0.75])
        GRADS[name](m, x, y).backward()
        return x.grad, y.grad

    _close(recipe)


def test_accumulates_across_backward_calls():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0, 3.0])
        out = (x * x).sum()
        out.backward(retain_graph=True)
        first = x.grad.clone()
        out.backward()
        second = x.grad.clone()
        (x * 5).sum().backward()
        third = x.grad.clone()
        x.grad = None
        (x * 2).sum().backward()
        return first, second, third, x.grad

    _same(recipe)


def test_backward_with_gradient_and_inputs():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0, 3.0])
        y = _leaf(m, [4.0, 5.0, 6.0])
        out = x * y
        out.backward(m.tensor([1.0, 0.5, -1.0]), inputs=[y])
        return x.grad, y.grad

    _same(recipe)


def test_backward_multiple_roots():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        a, b = x * 2, x.exp()
        m.autograd.backward([a.sum(), b], [None, m.tensor([1.0, -1.0])])
        return x.grad

    _close(recipe)


def test_retain_grad_and_non_leaf_grad():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        y = x * 3
        y.retain_grad()
        z = y.exp()
        z.register_hook(lambda g: g * 2)
        y.register_hook(lambda g: g + 1)  # runs before the retain_grad hook: .grad sees it
        z.sum().backward()
        return y.retains_grad, x.retains_grad, y.grad, x.grad

    _close(recipe, 1e-5)


def test_non_leaf_grad_warning():
    def recipe(m):
        y = _leaf(m, [1.0]) * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            g = y.grad
        # torch's C++ warning ends with "(Triggered internally at <build path>)": not part of the text
        return g, [str(x.message).split(" (Triggered internally")[0] for x in w], [x.category.__name__ for x in w]

    _same(recipe)


def test_retain_graph_allows_second_backward():
    def recipe(m):
        x = _leaf(m, [2.0])
        y = x.exp() * x
        y.backward(retain_graph=True)
        y.backward(retain_graph=True)
        y.backward()
        return x.grad

    _close(recipe)


# -- errors -------------------------------------------------------------------------------------------------
def test_error_backward_twice():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        y = (x.exp() * x).sum()
        y.backward()
        y.backward()

    _same_error(recipe)


def test_error_saved_tensor_after_free():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        y = x.exp()
        y.sum().backward()
        return y.grad_fn._saved_result

    _same_error(recipe)


@pytest.mark.parametrize("case", ["no_grad_fn", "second_root"])
def test_error_root_does_not_require_grad(case):
    def recipe(m):
        x = _leaf(m, [1.0])
        if case == "no_grad_fn":
            m.tensor([1.0]).sum().backward()
        m.autograd.backward([(x * 2).sum(), m.tensor(1.0)])

    _same_error(recipe)


def test_error_implicit_grad_non_scalar():
    _same_error(lambda m: (_leaf(m, [1.0, 2.0]) * 2).backward())


def test_error_grad_shape_mismatch():
    _same_error(lambda m: (_leaf(m, [1.0, 2.0]) * 2).backward(m.ones(3)))


@pytest.mark.parametrize("which", ["exp_result", "mul_input", "sigmoid_chain"])
def test_error_inplace_version(which):
    def recipe(m):
        x = _leaf(m, [1.0, 2.0, 3.0])
        if which == "exp_result":
            y = x.exp()
            y.add_(1)
            y.sum().backward()
        elif which == "mul_input":
            a = x * 1
            y = a * a
            a.mul_(2)
            y.sum().backward()
        else:
            a = x.sigmoid()  # saves its output: the error names the node that made it
            b = a.exp()
            a.sub_(1)
            b.sum().backward()

    _same_error(recipe)


def test_error_leaf_inplace():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        x.add_(1)

    _same_error(recipe)


def test_leaf_inplace_allowed_under_no_grad():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        with m.no_grad():
            x.mul_(2)
        (x * x).sum().backward()
        return x, x.grad, x._version

    _same(recipe)


@pytest.mark.parametrize("case", ["requires_grad_int", "non_leaf_flag", "hook_no_grad", "post_acc_non_leaf",
                                  "retain_grad_no_grad"])
def test_error_messages_misc(case):
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        if case == "requires_grad_int":
            m.tensor([1, 2]).requires_grad_()
        elif case == "non_leaf_flag":
            (x * 2).requires_grad_(False)
        elif case == "hook_no_grad":
            m.tensor([1.0]).register_hook(lambda g: g)
        elif case == "post_acc_non_leaf":
            (x * 2).register_post_accumulate_grad_hook(lambda t: None)
        else:
            m.tensor([1.0]).retain_grad()

    _same_error(recipe)


# -- autograd.grad -----------------------------------------------------------------------------------------
def test_grad_returns_and_leaves_grad_alone():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        y = _leaf(m, [3.0, 4.0])
        gx, gy = m.autograd.grad((x * y).sum(), [x, y])
        return gx, gy, x.grad, y.grad

    _same(recipe)


def test_grad_allow_unused_and_materialize():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        z = _leaf(m, [5.0, 6.0, 7.0])
        out = (x * 2).sum()
        a = m.autograd.grad(out, [x, z], allow_unused=True, retain_graph=True)
        b = m.autograd.grad(out, [x, z], materialize_grads=True)
        return a, b

    _same(recipe)


@pytest.mark.parametrize("case", ["unused", "no_requires_grad", "empty", "materialize_not_allowed"])
def test_grad_errors(case):
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        z = _leaf(m, [1.0])
        out = (x * 2).sum()
        if case == "unused":
            m.autograd.grad(out, [x, z])
        elif case == "no_requires_grad":
            m.autograd.grad(out, [x.detach()])
        elif case == "empty":
            m.autograd.grad(out, [])
        else:
            m.autograd.grad(out, [x], allow_unused=False, materialize_grads=True)

    _same_error(recipe)


def test_grad_of_intermediate():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        h = x.exp()
        out = (h * h).sum()
        return m.autograd.grad(out, h)

    _close(recipe)


# -- higher order ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["cube", "sin", "exp_mul", "tanh"])
def test_double_backward(fn):
    def recipe(m):
        x = _leaf(m, [0.5, -1.25, 2.0], m.float64)
        f = {"cube": lambda t: t ** 3, "sin": lambda t: t.sin(), "exp_mul": lambda t: t.exp() * t,
             "tanh": lambda t: t.tanh()}[fn]
        (g,) = m.autograd.grad(f(x).sum(), x, create_graph=True)
        (g2,) = m.autograd.grad(g.sum(), x, create_graph=True)
        (g3,) = m.autograd.grad(g2.sum(), x)
        return g, g2, g3, g.requires_grad, _structure(g.grad_fn) is not None

    _close(recipe, 1e-12)


def test_backward_create_graph_into_grad():
    def recipe(m):
        x = _leaf(m, [1.5, -0.5], m.float64)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        first = (g.requires_grad, g.tolist())
        x.grad = None
        g.sum().backward()
        return first, x.grad

    _close(recipe, 1e-12)


# -- hooks -----------------------------------------------------------------------------------------------
def test_tensor_hooks_order_and_replacement():
    def recipe(m):
        log = []
        x = _leaf(m, [1.0, 2.0])
        x.register_hook(lambda g: log.append(("x1", g.tolist(), x.grad)) or g * 10)
        x.register_hook(lambda g: log.append(("x2", g.tolist())))
        h = x.register_hook(lambda g: log.append(("removed",)))
        h.remove()
        y = x * 3
        y.register_hook(lambda g: log.append(("y", g.tolist())) or g + 1)
        y.sum().backward()
        return log, x.grad

    _same(recipe)


def test_hook_execution_order_follows_engine_priority():
    def recipe(m):
        log = []
        x = _leaf(m, [1.0, 2.0])
        a = x * 2
        b = a.exp()
        c = a.sin()
        d = x.cos()
        for name, t in (("a", a), ("b", b), ("c", c), ("d", d), ("x", x)):
            t.register_hook(lambda g, name=name: log.append(name))
        (b + c + d).sum().backward()
        return log

    _same(recipe)


def test_node_pre_and_post_hooks():
    def recipe(m):
        log = []
        x = _leaf(m, [1.0, 2.0])
        y = x * 3
        fn = y.grad_fn
        fn.register_prehook(lambda gout: log.append(("pre", [g.tolist() for g in gout])) or (gout[0] * 2,))
        fn.register_hook(lambda gin, gout: log.append(("post", [None if g is None else g.tolist() for g in gin],
                                                          [g.tolist() for g in gout])))
        y.sum().backward()
        return log, x.grad

    _same(recipe)


def test_post_hook_replaces_grad_inputs():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        y = x.exp()
        y.grad_fn.register_hook(lambda gin, gout: (gin[0] * 0 + 7,))
        y.sum().backward()
        return x.grad

    _same(recipe)


def test_post_accumulate_grad_hook():
    def recipe(m):
        log = []
        x = _leaf(m, [1.0, 2.0])
        x.register_hook(lambda g: log.append(("pre", x.grad)))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", t is x, t.grad.tolist())))
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        return log

    _same(recipe)


def test_saved_tensors_hooks():
    def recipe(m):
        log = []

        def pack(t):
            log.append(("pack", t.tolist()))
            return t * 1

        def unpack(t):
            log.append(("unpack", t.tolist()))
            return t

        x = _leaf(m, [1.0, 2.0])
        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x * x
            z = y.exp()
        z.sum().backward()
        return log, x.grad

    _close(recipe, 1e-6)


# -- grad modes --------------------------------------------------------------------------------------------
def test_grad_modes_context_managers():
    def recipe(m):
        x = _leaf(m, [1.0])
        res = []
        with m.no_grad():
            res.append((m.is_grad_enabled(), (x * 2).requires_grad))
            with m.enable_grad():
                res.append((m.is_grad_enabled(), (x * 2).requires_grad))
            with m.set_grad_enabled(True):
                res.append((x * 2).requires_grad)
        with m.set_grad_enabled(False):
            res.append((x * 2).requires_grad)
        res.append(m.is_grad_enabled())
        m.set_grad_enabled(False)
        res.append(((x * 2).requires_grad, m.is_grad_enabled()))
        m.set_grad_enabled(True)
        with m.inference_mode():
            y = x * 2
            res.append((m.is_inference_mode_enabled(), m.is_grad_enabled(), y.requires_grad))
        res.append((m.is_inference_mode_enabled(), m.is_grad_enabled()))
        with m.inference_mode(False):
            res.append((x * 2).requires_grad)
        return res

    _same(recipe)


def test_grad_modes_as_decorators():
    def recipe(m):
        x = _leaf(m, [1.0])

        @m.no_grad()
        def f(t):
            return t * 2

        @m.enable_grad()
        def g(t):
            return t * 2

        @m.inference_mode()
        def h(t):
            return t * 2

        @m.no_grad()
        def gen(t):
            yield (t * 2).requires_grad
            yield (t * 3).requires_grad

        res = [f(x).requires_grad, list(gen(x)), h(x).requires_grad, m.is_grad_enabled()]
        with m.no_grad():
            res.append(g(x).requires_grad)
        return res

    _same(recipe)


def test_no_grad_decorator_without_parentheses():
    def recipe(m):
        @m.no_grad
        def f(t):
            return t * 2

        return f(_leaf(m, [1.0])).requires_grad

    _same(recipe)


def test_grad_mode_is_thread_local():
    def recipe(m):
        seen = []

        def worker():
            seen.append(m.is_grad_enabled())
            with m.no_grad():
                seen.append(m.is_grad_enabled())

        with m.no_grad():
            t = threading.Thread(target=worker)
            t.start()
            t.join()
            seen.append(m.is_grad_enabled())
        seen.append(m.is_grad_enabled())
        return seen

    _same(recipe)


# -- anomaly mode -----------------------------------------------------------------------------------------
def test_detect_anomaly_nan_message():
    def recipe(m):
        x = _leaf(m, [0.0, 1.0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with m.autograd.detect_anomaly():
                y = x / x
                y.sum().backward()

    _same_error(recipe)


def test_detect_anomaly_inplace_hint():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with m.autograd.detect_anomaly():
                y = x.exp()
                y.mul_(2)
                y.sum().backward()

    _same_error(recipe)


# -- torch.autograd.graph utilities ------------------------------------------------------------------------
def test_register_multi_grad_hook_all():
    def recipe(m):
        log = []
        a = _leaf(m, [1.0, 2.0])
        b = _leaf(m, [3.0, 4.0])
        c = a * b
        d = a * b
        m.autograd.graph.register_multi_grad_hook(
            (a, b, c, d), lambda grads: log.append([None if g is None else g.tolist() for g in grads]))
        c.sum().backward(retain_graph=True)
        c.sum().backward(inputs=(a,), retain_graph=True)
        return log

    _same(recipe)


def test_register_multi_grad_hook_with_autograd_grad():
    def recipe(m):
        log = []
        a = _leaf(m, [1.0, 2.0])
        c = a * 2
        d = c * 3
        m.autograd.graph.register_multi_grad_hook((c, d), lambda grads: log.append(_vals(grads)))
        m.autograd.grad((c + d).sum(), [a])
        m.autograd.graph.register_multi_grad_hook((a, c), lambda grads: log.append("unreached"))
        try:
            m.autograd.grad((c + d).sum(), [a])
        except RuntimeError as e:
            log.append(str(e))
        return log

    _same(recipe)


def test_register_multi_grad_hook_any_and_remove():
    def recipe(m):
        log = []
        a = _leaf(m, [1.0, 2.0])
        b = _leaf(m, [3.0, 4.0])
        c = a * b
        h = m.autograd.graph.register_multi_grad_hook((a, b, c), lambda g: log.append(g.tolist()), mode="any")
        (c * 2).sum().backward(retain_graph=True)
        h.remove()
        (c * 2).sum().backward()
        return log

    _same(recipe)


def test_graph_utilities():
    def recipe(m):
        x = _leaf(m, [1.0, 2.0])
        y = x * 2
        e = m.autograd.graph.get_gradient_edge(y)
        v0 = x._version
        m.autograd.graph.increment_version(x)
        return (e.node is y.grad_fn, e.output_nr, tuple(e) == (y.grad_fn, 0),
                m.autograd.graph.get_gradient_edge(x).node.name(), x._version - v0)

    _same(recipe)
