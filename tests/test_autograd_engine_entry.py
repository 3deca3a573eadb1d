"""What Python code reaches the engine through, against torch: ``Variable._execution_engine.queue_callback``
(callbacks run after the graph, a callback may queue another, reentrant backwards keep their own; refused
outside backward), ``torch._C._autograd``'s version-counter and saved-tensor-hooks entry points,
``torch.autograd._unsafe_preserve_version_counter`` and ``torch._C.is_grad_enabled``."""

import torch

import glasstorch as gt
from tests.oracle import assert_same_error


def _callbacks(mod):
    order = []
    engine = mod.autograd.Variable._execution_engine

    class Inner(mod.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            engine.queue_callback(lambda: order.append("inner callback"))
            order.append("inner backward")
            return g

    class Outer(mod.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            engine.queue_callback(lambda: (order.append("outer callback"),
                                           engine.queue_callback(lambda: order.append("chained"))))
            t = g.detach().requires_grad_()
            with mod.enable_grad():
                Inner.apply(t).sum().backward()  # a reentrant backward with its own callbacks
            order.append("outer backward")
            return g

    x = mod.ones(2, requires_grad=True)
    Outer.apply(x).sum().backward()
    return order


def test_queue_callback_order_and_reentrancy():
    assert _callbacks(gt) == _callbacks(torch)


def test_queue_callback_outside_backward():
    assert_same_error(lambda: gt.autograd.Variable._execution_engine.queue_callback(lambda: None),
                      lambda: torch.autograd.Variable._execution_engine.queue_callback(lambda: None))


def _versions(mod):
    x = mod.ones(2, requires_grad=True).clone()
    x.add_(1)
    x.add_(2)
    seen = [x._version]
    with mod.autograd._unsafe_preserve_version_counter(x):
        x.mul_(2)
        seen.append(x._version)
    seen.append(x._version)
    mod._C._autograd._unsafe_set_version_counter((x,), (0,))
    seen.append(x._version)
    return seen


def test_version_counter_entry_points():
    assert _versions(gt) == _versions(torch)
    for versions in ((-1,), (1, 2)):
        assert_same_error(lambda v=versions: gt._C._autograd._unsafe_set_version_counter((gt.ones(1),), v),
                          lambda v=versions: torch._C._autograd._unsafe_set_version_counter((torch.ones(1),), v))


def _hooks_state(mod):
    seen = [mod._C._autograd._saved_tensors_hooks_is_enabled()]
    with mod.autograd.graph.disable_saved_tensors_hooks("no"):
        seen.append(mod._C._autograd._saved_tensors_hooks_is_enabled())
    seen.append(mod._C._autograd._saved_tensors_hooks_is_enabled())
    with mod.no_grad():
        seen.append(mod._C.is_grad_enabled())
    seen.append(mod._C._current_graph_task_id())
    return seen


def test_hooks_state_and_grad_mode():
    assert _hooks_state(gt) == _hooks_state(torch)


def test_out_refuses_an_out_tensor_that_requires_grad():
    def make(mod, where):
        def run():
            a = mod.ones(2, 2, requires_grad=where == "input")
            x = mod.zeros(2, 2, requires_grad=where == "out")
            mod.mul(a, a, out=x)
        return run
    for where in ("input", "out"):
        assert_same_error(make(gt, where), make(torch, where))

    def in_no_grad(mod):
        x = mod.zeros(2, requires_grad=True)
        with mod.no_grad():
            mod.mul(mod.ones(2), 3, out=x)
        return x.detach().numpy().tolist()
    assert in_no_grad(gt) == in_no_grad(torch)


def test_post_accumulate_grad_hook_must_return_none():
    def make(mod):
        def run():
            t = mod.ones(2, requires_grad=True)
            t.register_post_accumulate_grad_hook(lambda p: p.grad)
            t.sum().backward()
        return run
    assert_same_error(make(gt), make(torch))


def test_set_grad_enabled_as_decorator_leaves_the_mode_alone():
    def run(mod):
        seen = []
        with mod.enable_grad():
            @mod.set_grad_enabled(False)
            def inner(x):
                return x.sin()
            seen.append(mod.is_grad_enabled())
            obj = mod.set_grad_enabled(False)
            seen.append(mod.is_grad_enabled())
            wrapped = obj(lambda x: x.sin())
            seen.append(mod.is_grad_enabled())
            x = mod.zeros(1, requires_grad=True)
            seen += [inner(x).requires_grad, wrapped(x).requires_grad, mod.is_grad_enabled()]
        return seen
    assert run(gt) == run(torch)


def test_autograd_attributes_refuse_deletion():
    for name in ("data", "requires_grad", "_grad_fn", "_backward_hooks"):
        assert_same_error(lambda n=name: delattr(gt.ones(2, requires_grad=True), n),
                          lambda n=name: delattr(torch.ones(2, requires_grad=True), n))
    x, y = gt.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    assert ((x * 2)._grad_fn.name(), x._grad_fn) == ((y * 2)._grad_fn.name(), y._grad_fn)


def test_apply_refuses_a_keyword_that_repeats_a_positional():
    def make(mod, call):
        class Fn(mod.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y

            @staticmethod
            def backward(ctx, g):
                return g, g

        x = mod.ones(1)
        return lambda: call(Fn, x)
    for call in (lambda f, x: f.apply(x, x, y=x), lambda f, x: f.apply(x, bad=x), lambda f, x: f.apply(x, bad=x, y=x)):
        assert_same_error(make(gt, call), make(torch, call))


def _threads_and_refs(mod):
    seen = [mod._C._is_multithreading_enabled()]
    with mod.autograd.set_multithreading_enabled(False):
        seen.append(mod._C._is_multithreading_enabled())
    seen.append(mod._C._is_multithreading_enabled())
    t = mod.rand(2, requires_grad=True)
    out = t.exp()  # exp saves its result: the graph keeps that impl alive
    ref = mod._C._WeakTensorRef(out)
    del out
    seen.append(ref.expired())
    t = mod.rand(2)
    ref = mod._C._WeakTensorRef(t)
    del t
    seen.append(ref.expired())
    return seen


def test_multithreading_switch_and_weak_tensor_ref():
    assert _threads_and_refs(gt) == _threads_and_refs(torch)


def _dirtying_identity(mod):
    """A custom Function that adds 1 to its input in place, marks it dirty and returns it."""
    class Func(mod.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            inp.add_(1)
            ctx.mark_dirty(inp)
            return inp

        @staticmethod
        def backward(ctx, g):
            return g
    return Func


def test_custom_function_dirtying_a_view_of_a_leaf():
    def make(mod):
        Func = _dirtying_identity(mod)
        a = mod.tensor([1.0, 2.0], requires_grad=True)
        return lambda: Func.apply(a.view_as(a))
    assert_same_error(make(gt), make(torch))


def test_saved_input_detached_in_place():
    def make(mod, op):
        def run():
            a = mod.tensor(1.0, requires_grad=True).clone()
            b = op(a)
            a.detach_()
            b.backward()
            return True
        return run
    assert_same_error(make(gt, lambda a: a.sin()), make(torch, lambda a: a.sin()))
    assert make(gt, lambda a: a.exp())() and make(torch, lambda a: a.exp())()  # a saved output is fine


def test_custom_function_dirtying_a_multi_output_view_says_so_first():
    def make(mod):
        Func = _dirtying_identity(mod)
        a = mod.tensor([1.0, 2.0], requires_grad=True)
        b, _ = a.split_with_sizes([1, 1], dim=0)
        return lambda: Func.apply(b)
    assert_same_error(make(gt), make(torch))


def test_backward_hooks_attribute_reads_and_sets():
    def run(mod):
        t = mod.ones(2)
        seen = [t._backward_hooks]
        t._backward_hooks = {}
        return seen + [t._backward_hooks]
    assert run(gt) == run(torch)


def test_current_graph_task_keep_graph_follows_retain_graph_as_torch():
    """``torch._C._autograd._get_current_graph_task_keep_graph`` inside a custom backward, and outside one."""
    def run(m):
        seen = []

        class Fn(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                seen.append(m._C._autograd._get_current_graph_task_keep_graph())
                return g

        out = Fn.apply(m.rand(3, requires_grad=True))
        out.sum().backward(retain_graph=True)
        out.sum().backward(retain_graph=False)
        return seen, m._C._autograd._get_current_graph_task_keep_graph()

    assert run(gt) == run(torch) == ([True, False], True)
