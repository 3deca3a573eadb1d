"""``Function.clear_saved_tensors_on_access`` against torch: the first read of ``ctx.saved_tensors`` hands the
tensors over (the node keeps no reference), a second read raises torch's RuntimeError, wherever it happens
(forward, before backward, inside backward), and ``_raw_saved_tensors`` is empty afterwards."""

import weakref

import torch

import glasstorch as gt
from tests.oracle import assert_same_error


def _fn(mod, reads_in_backward=1, log=None):
    class Fn(mod.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, grad_output):
            for _ in range(reads_in_backward):
                (x,) = ctx.saved_tensors
                ref = weakref.ref(x)
                del x
                if log is not None:
                    log.append(ref() is None)
            return grad_output
    return Fn


def test_class_attribute_defaults_to_false():
    assert gt.autograd.Function.clear_saved_tensors_on_access is torch.autograd.Function.clear_saved_tensors_on_access
    assert gt.autograd.Function.clear_saved_tensors_on_access is False


def test_backward_holds_the_only_reference():
    logs = []
    for mod in (gt, torch):
        log = []
        y = _fn(mod, log=log).apply(mod.randn(3, requires_grad=True).clone())
        y.sum().backward()
        logs.append(log)
    assert logs[0] == logs[1] == [True]


def test_second_read_in_backward_raises():
    def run(mod):
        def go():
            y = _fn(mod, reads_in_backward=2).apply(mod.randn(3, requires_grad=True))
            y.sum().backward()
        return go
    assert_same_error(run(gt), run(torch))


def _read_before_backward(mod):
    y = _fn(mod).apply(mod.randn(3, requires_grad=True).clone())
    first = len(y.grad_fn.saved_tensors)
    raw = y.grad_fn._raw_saved_tensors
    return y, first, raw


def test_read_before_backward_then_backward_raises():
    (gy, g_first, g_raw), (ty, t_first, t_raw) = _read_before_backward(gt), _read_before_backward(torch)
    assert (g_first, len(g_raw)) == (t_first, len(t_raw)) == (1, 0)
    assert_same_error(lambda: gy.grad_fn.saved_tensors, lambda: ty.grad_fn.saved_tensors)
    assert_same_error(lambda: gy.sum().backward(), lambda: ty.sum().backward())


def test_raw_saved_tensors_empty_after_backward_read():
    lens = []
    for mod in (gt, torch):
        y = _fn(mod).apply(mod.randn(3, requires_grad=True).clone())
        before = len(y.grad_fn._raw_saved_tensors)
        y.sum().backward(retain_graph=True)
        lens.append((before, len(y.grad_fn._raw_saved_tensors)))
    assert lens[0] == lens[1] == (1, 0)
