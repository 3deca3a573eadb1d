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
