"""View replay (``torch.autograd._force_original_view_tracking``), against torch: the switch as a call, a
context manager and a decorator; with it on, a view written in place (or whose base was) gets the view ops'
own ``grad_fn`` chain back instead of AsStridedBackward0, chains with gaps are covered by as_strided, and the
gradients (first and second order) are torch's."""

import numpy as np
import pytest
import torch

import glasstorch as gt

A = np.random.default_rng(0).standard_normal((3, 4))
W = np.random.default_rng(1).standard_normal((3, 4))


def _chain(t):
    """The names along a grad_fn's first edges, down to the leaf."""
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(fn.name())
        nxt = [n for n, _ in fn.next_functions if n is not None]
        fn = nxt[0] if nxt else None
    return names


def _run(mod, fn, replay, create_graph=False):
    a = mod.tensor(A, dtype=mod.float64, requires_grad=True)
    with mod.autograd._force_original_view_tracking(replay):
        base, view = fn(mod, a)
        info = (_chain(base), _chain(view), mod.autograd.is_view_replay_enabled())
        loss = (base * mod.tensor(W, dtype=mod.float64)).sum() + (view * view).sum()
        (g,) = mod.autograd.grad(loss, a, create_graph=create_graph)
        gg = None
        if create_graph:
            (gg,) = mod.autograd.grad(g.sum(), a)
    return info, g.detach().numpy(), None if gg is None else gg.numpy()


def _write_view(m, a):
    x = a.clone()
    v = x[1:].t()
    v.mul_(2)
    return x, v


def _write_base(m, a):
    x = a.clone()
    v = x[:, 1:3].unsqueeze(0).transpose(1, 2)
    x.mul_(3)
    return x, v


def _write_view_of_expand_chain(m, a):
    x = a.clone()
    v = x.view(12).narrow(0, 2, 6).view(2, 3)
    v.add_(v.detach() * 0 + 1)
    w = x.select(1, 2)
    return x, w


def _gap_in_chain(m, a):
    x = a.clone()
    with m.autograd._force_original_view_tracking(False):
        v = x[1:]
    with m.autograd._force_original_view_tracking(True):
        w = v.t()
    w.mul_(3)
    return x, w


def _gap_after_chain(m, a):
    x = a.clone()
    with m.autograd._force_original_view_tracking(True):
        v = x[1:]
    with m.autograd._force_original_view_tracking(False):
        w = v.t()
    w.mul_(3)
    return x, w


@pytest.mark.parametrize("replay", [False, True])
@pytest.mark.parametrize("fn", [_write_view, _write_base, _write_view_of_expand_chain, _gap_in_chain,
                                _gap_after_chain])
def test_regenerated_grad_fn_and_gradients(fn, replay):
    t_info, t_g, t_gg = _run(torch, fn, replay, create_graph=True)
    g_info, g_g, g_gg = _run(gt, fn, replay, create_graph=True)
    assert g_info == t_info
    np.testing.assert_allclose(g_g, t_g, rtol=1e-12)
    np.testing.assert_allclose(g_gg, t_gg, rtol=1e-12)


def _switch_states(mod):
    seen = [mod.autograd.is_view_replay_enabled()]
    ctx = mod.autograd._force_original_view_tracking(True)  # constructing it sets the mode at once
    seen.append(mod.autograd.is_view_replay_enabled())
    with ctx:
        seen.append(mod.autograd.is_view_replay_enabled())
    seen.append(mod.autograd.is_view_replay_enabled())

    @mod.autograd._force_original_view_tracking(True)
    def inside():
        return mod.autograd.is_view_replay_enabled()
    seen += [mod.autograd.is_view_replay_enabled(), inside(), mod.autograd.is_view_replay_enabled()]
    mod.autograd._force_original_view_tracking(True)
    seen.append(mod._C._is_view_replay_enabled())
    mod._C._set_view_replay_enabled(False)
    seen.append(mod.autograd.is_view_replay_enabled())
    return seen


def test_switch_as_call_context_and_decorator():
    assert _switch_states(gt) == _switch_states(torch)


def test_multi_output_view_error_under_replay():
    def f(mod):
        x = mod.tensor(A, requires_grad=True).clone()
        with mod.autograd._force_original_view_tracking(True):
            w = x.unbind(0)[1][1:]
            x.mul_(2)
            try:
                _ = w.grad_fn
            except RuntimeError as e:
                return str(e)
        return None
    assert f(gt) == f(torch)
