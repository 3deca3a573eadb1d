"""The autograd graph's objects as Python sees them, against real torch: ``torch.autograd.graph.Node`` as a virtual
base, a node's ``_input_metadata`` and ``_set_sequence_nr``, the node methods of a ``Function`` instance, the engine's
introspection (``_current_autograd_node``, ``_current_graph_task_execution_order``, ``_will_engine_execute_node``),
the cached-tensor registry, and which hooks run for a node that ``autograd.grad`` or ``backward(inputs=)`` captures.

Each case is a recipe over ``m`` (``glasstorch`` or ``torch``) run in both libraries; results are compared as plain
Python data, errors by type and exact message.
"""

import warnings
from collections import OrderedDict

import torch
from test_autograd_checks import _same, _same_error

import glasstorch


def _identity_fn(m):
    class Id(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    return Id


# -- Node: a virtual base ----------------------------------------------------------------------------------------
def test_node_is_a_virtual_base():
    def f(m):
        node = m.autograd.graph.Node
        a = m.rand(3, requires_grad=True)
        b = a.exp()
        acc = m._C._functions.AccumulateGrad
        out = _identity_fn(m).apply(a)
        return (isinstance(b.grad_fn, node), issubclass(type(b.grad_fn), node), node in type(b.grad_fn).mro(),
                isinstance(acc, node), issubclass(acc, node), isinstance(b.grad_fn.next_functions[0][0], node),
                issubclass(m._C._functions.DelayedError, node), isinstance(None, node), isinstance(1, node),
                isinstance(node, node), issubclass(node, node),
                issubclass(m.autograd.function.BackwardCFunction, node), isinstance(out.grad_fn, node),
                node in type(out.grad_fn).mro(), issubclass(_identity_fn(m), node))
    _same(f)


def test_function_instance_has_node_methods_but_is_no_node():
    def f(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            fn = _identity_fn(m)()
        t = m.ones(1, requires_grad=True)
        t._backward_hooks = {}
        fn._register_hook_dict(t)
        fn.register_hook(lambda gi, go: None)
        fn._set_sequence_nr(2)
        return (isinstance(fn, m.autograd.graph.Node), fn.next_functions, fn._sequence_nr(), fn._input_metadata,
                fn.metadata)
    _same(f)


def test_register_hook_dict_runs_the_tensors_hooks_at_backward():
    def f(m):
        a = m.ones(2, requires_grad=True)
        b = a * 2
        b._backward_hooks = OrderedDict()
        b.grad_fn._register_hook_dict(b)
        b._backward_hooks[0] = lambda g: g * 3  # registered after: the dict is read when backward runs
        b._backward_hooks[1] = lambda g: None
        b.sum().backward()
        return a.grad
    _same(f)


def test_input_metadata():
    def f(m):
        x = m.rand(2, requires_grad=True)
        z = x * m.rand(2)
        var, _ = m.var_mean(m.rand(3, 4, requires_grad=True), dim=0)
        out = _identity_fn(m).apply(m.randn(3, 3, requires_grad=True))
        metas = [z.grad_fn._input_metadata[0], *var.grad_fn._input_metadata, out.grad_fn._input_metadata[0]]
        return [(tuple(md.shape), type(md.shape).__name__, md.dtype, str(md.device), md.is_nested_tensor,
                 md.is_cpp_nested_tensor) for md in metas]
    _same(f)


def test_set_sequence_nr_reorders_ready_nodes():
    def f(m):
        x, y, z = (m.randn(4, requires_grad=True) for _ in range(3))
        a, b = x + y, y + z
        c = a + b
        for node, nr in ((a.grad_fn, 100), (b.grad_fn, 99), (c.grad_fn, 98)):
            node._set_sequence_nr(nr)
        order = []
        for name, t in (("a", a), ("b", b), ("c", c)):
            t.register_hook(lambda g, name=name: order.append(name))
        c.sum().backward()
        return order, [n._sequence_nr() for n in (a.grad_fn, b.grad_fn, c.grad_fn)], y.grad
    _same(f)


# -- the engine's introspection ------------------------------------------------------------------------------------
def test_current_autograd_node_in_hooks_and_unpack_hooks():
    def f(m):
        seen = []

        def name():
            node = m._C._current_autograd_node()
            return None if node is None else node.name()

        def unpack(t):
            seen.append(("unpack", name()))
            return t

        a = m.rand(3, requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            b = (a * a).sum()
        b.grad_fn.register_prehook(lambda g: seen.append(("prehook", name())))
        a.register_hook(lambda g: seen.append(("leaf hook", name())))
        seen.append(("before", name()))
        b.backward()
        seen.append(("after", name()))
        return seen
    _same(f)


def test_post_hook_registered_during_unpack_hook_runs():
    def f(m):
        seen = []

        def post(gi, go):
            seen.append([g is None for g in go])  # the node's inputs are not kept for a hook it did not have
            return tuple(g / 2 for g in gi)

        def unpack(t):
            m._C._current_autograd_node().register_hook(post)
            return t

        a = m.rand(3, 3, requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            var, mean = m.var_mean(a, dim=0)
            (var + mean).sum().backward()
        return a.grad, seen
    _same(f)


def _execution_order(m, build, inputs=None):
    got = []

    def hook(_):
        got.append([n.name() for n in m._C._current_graph_task_execution_order()])

    roots, leaves = build(m)
    roots[-1].register_hook(hook)
    with m.autograd.set_multithreading_enabled(False):
        if inputs is None:
            m.autograd.backward(roots)
        else:
            m.autograd.grad(roots, inputs(leaves))
    return got


def test_current_graph_task_execution_order():
    def chain(m):
        t = m.tensor(1.0, requires_grad=True).clone().sin().exp()
        return [t], []

    def shared_leaf(m):  # the leaf's accumulator waits for both of its inputs
        a = m.tensor(1.0, requires_grad=True)
        return [a.sin() * a.cos()], [a]

    def roots(m):
        a = m.tensor(1.0, requires_grad=True)
        b = a * 2
        return [b.sin(), b.cos(), b.cos()], [a]

    def subgraph(m):
        a, b = m.tensor(1.0, requires_grad=True), m.tensor(2.0, requires_grad=True)
        return [(a * b).sin()], [a, b]

    _same(lambda m: _execution_order(m, chain))
    _same(lambda m: _execution_order(m, shared_leaf))
    _same(lambda m: _execution_order(m, roots, lambda leaves: leaves))
    _same(lambda m: _execution_order(m, subgraph, lambda leaves: leaves[:1]))


def test_current_graph_task_execution_order_errors():
    _same_error(lambda m: m._C._current_graph_task_execution_order())

    def multithreaded(m):
        t = m.tensor(1.0, requires_grad=True).exp()
        t.register_hook(lambda g: m._C._current_graph_task_execution_order())
        with m.autograd.set_multithreading_enabled(True):
            t.backward()
    _same_error(multithreaded)


def test_will_engine_execute_node():
    def f(m):
        a, a2 = m.randn(2, 3, requires_grad=True), m.randn(2, 3, requires_grad=True)
        b = a * a2
        b.cos()
        c = _identity_fn(m).apply(b)
        acc = b.grad_fn.next_functions
        nodes = [acc[0][0], acc[1][0], b.grad_fn, c.grad_fn]
        seen = []
        c.register_hook(lambda g: seen.append([m._C._will_engine_execute_node(n) for n in nodes]))
        out = c.sum()
        m.autograd.backward(out, inputs=(a, b), retain_graph=True)
        m.autograd.backward(out, retain_graph=True)
        return seen
    _same(f)


def test_will_engine_execute_node_errors():
    _same_error(lambda m: m._C._will_engine_execute_node(m.ones(1)))
    _same_error(lambda m: m._C._will_engine_execute_node(m.ones(1, requires_grad=True).exp().grad_fn))

    def leaf_in_grad(m):
        a = m.ones(2, requires_grad=True)
        b = a * 2
        acc = b.grad_fn.next_functions[0][0]
        b.register_hook(lambda g: m._C._will_engine_execute_node(acc))
        m.autograd.grad(b.sum(), (a,))
    _same_error(leaf_in_grad)


def test_cached_tensor_registry():
    def f(m):
        x = m.rand(4)
        m._C._set_cached_tensors_enabled(True)
        try:
            m._C._add_cached_tensor(x)
            m._C._add_cached_tensor(x)
            cached = m._C._is_cached_tensor(x)
            m._C._remove_cached_tensor(x)
            return cached, m._C._is_cached_tensor(x)
        finally:
            m._C._set_cached_tensors_enabled(False)
    _same(f)


# -- hooks of captured nodes ---------------------------------------------------------------------------------------
def _hook_counts(m, run):
    a = m.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    log = []
    a.register_hook(lambda g: log.append("tensor a"))
    b.register_hook(lambda g: log.append("tensor b") or g * 10)
    acc = b.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda g: log.append("pre acc"))
    acc.register_hook(lambda gi, go: log.append("post acc"))
    b.grad_fn.register_prehook(lambda g: log.append("pre b"))
    b.grad_fn.register_hook(lambda gi, go: log.append("post b"))
    result = run(m, a, b, c)
    return log, result, a.grad, b.retains_grad


def test_hooks_of_nodes_grad_captures():
    _same(lambda m: _hook_counts(m, lambda m, a, b, c: m.autograd.grad(c, (b,), retain_graph=True)))
    # b's node runs for a: its hooks run in its turn and the captured gradient is the one before them
    _same(lambda m: _hook_counts(m, lambda m, a, b, c: m.autograd.grad(c, (a, b), retain_graph=True)))


def test_hooks_and_retained_grad_of_backward_inputs():
    _same(lambda m: _hook_counts(m, lambda m, a, b, c: c.backward(inputs=(a, b), retain_graph=True)))

    def non_leaf_only(m, a, b, c):
        c.backward(inputs=(b,))
        return b.grad
    _same(lambda m: _hook_counts(m, non_leaf_only))


def test_backward_inputs_that_do_not_require_grad():
    _same_error(lambda m: (m.ones(1, requires_grad=True) * 2).backward(inputs=[m.ones(1)]))


# -- SavedTensor -------------------------------------------------------------------------------------------------
def test_saved_tensor_data_and_unpack_hook():
    def f(m):
        def unpack(t):
            return t

        a = m.tensor(2.0, requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            b = a**2
        c = b.exp()
        d = c**2
        pow_sv, exp_sv, pow2_sv = b.grad_fn._raw_saved_self, c.grad_fn._raw_saved_result, d.grad_fn._raw_saved_self
        facts = [pow_sv.data is a, pow_sv.unpack_hook is unpack, exp_sv.data is c, exp_sv.data.grad_fn,
                 exp_sv.unpack_hook, pow2_sv.data is c, pow2_sv.unpack_hook, type(pow2_sv).__name__]
        d.backward()
        return facts, pow2_sv.data, isinstance(pow2_sv, m._C._autograd.SavedTensor)
    _same(f)


def test_saved_tensor_is_not_constructible():
    _same_error(lambda m: m.autograd.SavedTensor())


def test_make_saved_tensor_packs_with_the_active_hooks():
    def f(m):
        counts = [0, 0]

        def pack(x):
            counts[0] += 1
            return x * 2

        def unpack(x):
            counts[1] += 1
            return x

        a = m.randn(5, requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            saved = m._C._autograd._make_saved_tensor(a, is_output=False)
            first = list(counts)
            one, two = saved.unpack(), saved.unpack()
        return first, counts, one, two, one.grad_fn, one.requires_grad
    _same(f)


def test_unpack_hook_must_return_a_tensor():
    for result in (1, None):
        def f(m, result=result):
            y = (a := m.randn(5, requires_grad=True)) * a
            y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: result)
            return y.grad_fn._saved_self
        _same_error(f)


def test_saved_tensor_hooks_entered_or_left_inside_backward_are_undone():
    def f(m):
        inner = m.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: (inner.__exit__(), x)[1])
        outer = m.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x)
        for _ in range(3):
            with outer:
                inner.__enter__()
                m.randn(3, requires_grad=True).sin().sum().backward()
        for _ in range(3):
            inner.__exit__()
        y = m.tensor(0.0, requires_grad=True).exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda x: x, lambda x: x)  # raises if hooks were left set
        return y.grad_fn._saved_result
    _same(f)


# -- GradientEdge ----------------------------------------------------------------------------------------------------
def _edge_fn(m, x, reduce=True):
    tmp = x * 2 + 1  # exact arithmetic: the gradients compare bit for bit
    if reduce:
        tmp = tmp.sum()
    out = (tmp * tmp).clone().mul(3).sum()
    return out, m.autograd.graph.get_gradient_edge(tmp)


def test_grad_and_backward_from_gradient_edges():
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        out, edge = _edge_fn(m, x)
        (edge_grad,) = m.autograd.grad(out, (edge,))
        (x_grad,) = m.autograd.grad(edge, (x,), grad_outputs=(edge_grad,))
        implicit = m.autograd.grad(_edge_fn(m, x)[1], (x,))
        out, edge = _edge_fn(m, x)
        m.autograd.backward(edge, retain_graph=True)
        via_backward = x.grad.clone()
        x.grad = None
        m.autograd.backward((edge, _edge_fn(m, x)[0]))
        return edge_grad, x_grad, implicit, via_backward, x.grad
    _same(f)


def test_gradient_edge_output_errors():
    def x(m):
        return m.tensor([1.0, 2.0], requires_grad=True)
    _same_error(lambda m: m.autograd.grad(_edge_fn(m, x(m), reduce=False)[1], (x(m),)))
    _same_error(lambda m: m.autograd.grad(_edge_fn(m, x(m))[1], (x(m),), grad_outputs=m.tensor([1.0, 2.0, 3.0])))
    _same_error(lambda m: m.autograd.grad(_edge_fn(m, x(m))[1], (x(m),), grad_outputs=m.ones((), dtype=m.complex64)))
    _same_error(lambda m: m.autograd.backward(_edge_fn(m, x(m))[1], grad_tensors=m.tensor([1.0, 2.0, 3.0])))


def test_tensor_output_complex_grad_mismatch():
    _same_error(lambda m: m.autograd.grad(m.ones(2, requires_grad=True) * 2, m.ones(1, requires_grad=True),
                                          grad_outputs=m.ones(2, dtype=m.complex64)))


def test_gradient_edge_keeps_its_graph():
    def f(m):
        leaf = m.ones(1, requires_grad=True)
        inp = leaf.clone()
        grads = []
        for out in (inp.clone(), _identity_fn(m).apply(inp)):
            edge = m.autograd.graph.get_gradient_edge(out)
            m.autograd.backward(edge)
            del out  # the edge holds the node, and the node its graph
            m.autograd.backward(edge)
            grads.append(leaf.grad.clone())
        return grads
    _same(f)


def test_set_forgets_the_grad_accumulator():
    def f(m):
        x = m.rand(2, requires_grad=True)
        edge = m.autograd.graph.get_gradient_edge(x)
        out = x.clone()
        with m.no_grad():
            x.set_(m.rand_like(x))
        return m.autograd.graph.get_gradient_edge(x).node is edge.node, m.autograd.grad(out.sum(), edge)
    _same(f)

    def through_the_tensor(m):
        x = m.rand(2, requires_grad=True)
        out = x.clone()
        with m.no_grad():
            x.set_(m.rand_like(x))
        m.autograd.grad(out.sum(), x)
    _same_error(through_the_tensor)


# -- calling a grad_fn ---------------------------------------------------------------------------------------------
def test_calling_a_grad_fn():
    def f(m):
        x = m.ones(1, requires_grad=True)
        y = x**2
        z = x * m.ones(1, requires_grad=True)
        a, _ = m.ones(4, requires_grad=True).split(2)
        return (y.grad_fn(x.detach()), y.grad_fn(x.detach()).requires_grad, z.grad_fn(x.detach()), z.grad_fn(None),
                a.grad_fn(x.detach().expand(2), None))
    _same(f)


def test_calling_a_grad_fn_with_bad_arguments():
    def node(m):
        return (m.ones(1, requires_grad=True) ** 2).grad_fn
    _same_error(lambda m: node(m)(m.ones(1), m.ones(1)))
    _same_error(lambda m: node(m)())
    _same_error(lambda m: node(m)(1))
    _same_error(lambda m: _identity_fn(m).apply(m.ones(1, requires_grad=True)).grad_fn(m.ones(1)))


def test_raw_saved_none_in_a_tensor_list():
    def f(m):
        a = m.ones(2, 2, requires_grad=True)
        out = a[:, m.tensor([0, 1])]
        raw = out.grad_fn._raw_saved_indices
        raw[1].register_hooks(lambda x: x, lambda x: x)
        return [type(r).__name__ for r in raw], out.grad_fn._saved_indices
    _same(f)

    def none_hooks(m):
        out = m.ones(2, 2, requires_grad=True)[:, m.tensor([0, 1])]
        out.grad_fn._raw_saved_indices[0].register_hooks(lambda x: x, lambda x: x)
    _same_error(none_hooks)


def test_register_hooks_after_free_even_with_hooks_set_before():
    def f(m):
        a = m.ones(2, 2, requires_grad=True)
        out = a * a
        out.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
        out.sum().backward()
        out.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    _same_error(f)


# -- backward()/grad() and tensor subclasses; backward(create_graph=True) ------------------------------------------
def _logging_subclass(m, log):
    class Logged(m.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func in (m.autograd.backward, m.autograd.grad):
                log.append((func.__name__, sorted(kwargs)))
            return super().__torch_function__(func, types, args, kwargs or {})

    return Logged


def test_backward_and_grad_defer_to_torch_function():
    def f(m):
        log = []
        x = m.ones(3, requires_grad=True)
        y = (x * 2).as_subclass(_logging_subclass(m, log))
        m.autograd.backward(y, m.ones(3), retain_graph=True)
        (g,) = m.autograd.grad(y.sum(), x)
        plain = m.autograd.grad((x * 3).sum(), x)  # no subclass: no call
        return log, x.grad, g, plain
    _same(f)


def test_backward_with_create_graph_warns():
    def f(m):
        x = m.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            (x * 2).sum().backward(create_graph=True)
            m.autograd.grad((x * 2).sum(), x, create_graph=True)
        return [(type(x.message).__name__, str(x.message).split(" (Triggered internally")[0]) for x in w
                if "create_graph" in str(x.message)]
    prev, gprev = torch.is_warn_always_enabled(), glasstorch.is_warn_always_enabled()
    torch.set_warn_always(True)  # both warn once per process otherwise
    glasstorch.set_warn_always(True)
    try:
        _same(f)
    finally:
        torch.set_warn_always(prev)
        glasstorch.set_warn_always(gprev)
