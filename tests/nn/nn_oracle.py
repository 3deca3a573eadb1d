"""Layer comparison against torch.nn with copied weights (shared by tests/nn).

``check_layer(make, inputs)`` builds the same module in both libraries (``make(m)`` with ``m`` glasstorch or
torch), copies torch's state (parameters and buffers, via numpy) into glasstorch's, and compares: state_dict
keys/shapes/dtypes, repr, forward outputs, the gradients of every float input and every parameter, and the
buffers after the call (running statistics).
"""

from __future__ import annotations

import numpy as np
import torch

import glasstorch

RNG = np.random.default_rng(0)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def pair(arr, requires_grad=None):
    """(glasstorch, torch) tensors with ``arr``'s values; float arrays require grad unless told otherwise."""
    arr = np.ascontiguousarray(arr)
    rg = arr.dtype.kind == "f" if requires_grad is None else requires_grad
    th = torch.from_numpy(arr.copy()).requires_grad_(rg)
    gt = glasstorch.from_numpy(arr.copy()).requires_grad_(rg)
    return gt, th


def to_np(t) -> np.ndarray:
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def copy_state(gt_mod, th_mod) -> None:
    """Copy every parameter and buffer of ``th_mod`` into ``gt_mod`` (after checking keys, shapes, dtypes)."""
    th_sd = th_mod.state_dict()
    gt_sd = gt_mod.state_dict(keep_vars=True)
    assert list(gt_sd) == list(th_sd), f"state_dict keys differ: {list(gt_sd)} vs {list(th_sd)}"
    for k, v in th_sd.items():
        g = gt_sd[k]
        assert tuple(g.shape) == tuple(v.shape), k
        assert repr(g.dtype) == repr(v.dtype), k
        with glasstorch.no_grad():
            g.copy_(glasstorch.from_numpy(v.detach().numpy().copy()))


def _tensors(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return [] if out is None else [out]


def assert_close(g, t, rtol, atol, what):
    assert tuple(g.shape) == tuple(t.shape), f"{what}: shape {tuple(g.shape)} vs {tuple(t.shape)}"
    assert repr(g.dtype) == repr(t.dtype), f"{what}: dtype {g.dtype} vs {t.dtype}"
    np.testing.assert_allclose(to_np(g), to_np(t), rtol=rtol, atol=atol, err_msg=what)


def check_layer(make, inputs, *, train=True, backward=True, rtol=1e-5, atol=1e-5, kwargs=None, check_repr=True):
    """Compare ``make(glasstorch)`` with ``make(torch)`` on numpy ``inputs``; returns the two modules."""
    th_mod, gt_mod = make(torch), make(glasstorch)
    copy_state(gt_mod, th_mod)
    if check_repr:
        assert repr(gt_mod) == repr(th_mod)
    th_mod.train(train)
    gt_mod.train(train)
    pairs = [pair(x) if isinstance(x, np.ndarray) else (x, x) for x in inputs]
    gts, ths = zip(*pairs, strict=True) if pairs else ((), ())
    kwargs = kwargs or {}
    gt_out, th_out = gt_mod(*gts, **kwargs(glasstorch) if callable(kwargs) else kwargs), \
        th_mod(*ths, **kwargs(torch) if callable(kwargs) else kwargs)
    gt_list, th_list = _tensors(gt_out), _tensors(th_out)
    assert len(gt_list) == len(th_list)
    for i, (g, t) in enumerate(zip(gt_list, th_list, strict=True)):
        assert_close(g, t, rtol, atol, f"output {i}")
    for (name, g), (_, t) in zip(gt_mod.named_buffers(), th_mod.named_buffers(), strict=True):
        assert_close(g, t, rtol, atol, f"buffer {name}")
    if backward:
        _check_backward(gt_mod, th_mod, gts, ths, gt_list, th_list, rtol, atol)
    return gt_mod, th_mod


def _check_backward(gt_mod, th_mod, gts, ths, gt_list, th_list, rtol, atol):
    outs = [(g, t) for g, t in zip(gt_list, th_list, strict=True) if t.requires_grad]
    if not outs:
        return
    grads = [randn(*t.shape).astype(t.detach().numpy().dtype) for _, t in outs]
    torch.autograd.backward([t for _, t in outs], [torch.from_numpy(g.copy()) for g in grads])
    glasstorch.autograd.backward([g for g, _ in outs], [glasstorch.from_numpy(g.copy()) for g in grads])
    for i, (g, t) in enumerate(zip(gts, ths, strict=True)):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert_close(g.grad, t.grad, rtol, atol, f"grad of input {i}")
    th_params = dict(th_mod.named_parameters())
    for name, p in gt_mod.named_parameters():
        t = th_params[name]
        if t.grad is None:
            assert p.grad is None, f"grad of {name}: torch has none"
        else:
            assert p.grad is not None, f"grad of {name}: glasstorch has none"
            assert_close(p.grad, t.grad, rtol, atol, f"grad of {name}")
