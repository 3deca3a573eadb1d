"""Shared helpers for the optim/amp tests: the same parameters and gradient sequence in both libraries.

``make_params(lib)`` builds float64 leaves from fixed numpy values; ``grad_sequence()`` gives the gradients
fed at each step (fixed numpy values, so both libraries see bit-identical inputs); ``compare_tensor`` and
``compare_state_dicts`` check glasstorch results against torch's.
"""

from __future__ import annotations

import numpy as np
import torch
from oracle import assert_same

import glasstorch as gt

SHAPES = [(3, 4), (5,), ()]
_RNG = np.random.default_rng(1234)
INIT = [_RNG.standard_normal(s) for s in SHAPES]
GRADS = [[_RNG.standard_normal(s) * (1.0 + 0.5 * k) for s in SHAPES] for k in range(16)]


def lib_dtype(lib, name: str):
    return getattr(lib, name)


def make_params(lib, dtype: str = "float64", param_cls=None):
    """Leaf tensors with requires_grad=True (optionally wrapped in ``param_cls``, e.g. nn.Parameter)."""
    out = []
    for arr in INIT:
        t = lib.tensor(arr.tolist(), dtype=lib_dtype(lib, dtype))
        out.append(param_cls(t) if param_cls is not None else t.requires_grad_())
    return out


def set_grads(lib, params, step: int, skip=(), dtype: str | None = None) -> None:
    """Give each param the fixed gradient of ``step`` (params whose index is in ``skip`` get None)."""
    for i, p in enumerate(params):
        if i in skip:
            p.grad = None
            continue
        dt = lib_dtype(lib, dtype) if dtype else p.dtype
        p.grad = lib.tensor(GRADS[step % len(GRADS)][i].tolist(), dtype=dt)


def compare_tensor(g, t, msg: str = "", exact: bool = False, rtol: float = 1e-13) -> None:
    if exact:
        assert_same(g.detach(), t.detach(), msg=msg)
    else:
        assert_same(g.detach(), t.detach(), rtol=rtol, atol=rtol * 1e-2, msg=msg)


def compare_values(g, t, path: str = "", rtol: float = 1e-13) -> None:
    """Recursively compare a state/param-group value: tensors by value and dtype, the rest by ==."""
    if isinstance(t, torch.Tensor):
        assert isinstance(g, gt.Tensor), f"{path}: {type(g)} vs tensor"
        compare_tensor(g, t, msg=f"{path}: ", rtol=rtol)
    elif isinstance(t, dict):
        assert list(g.keys()) == list(t.keys()), f"{path}: keys {list(g.keys())} vs {list(t.keys())}"
        for k in t:
            compare_values(g[k], t[k], f"{path}.{k}", rtol)
    elif isinstance(t, (list, tuple)):
        assert type(g) is type(t) and len(g) == len(t), f"{path}: {g!r} vs {t!r}"
        for i, (a, b) in enumerate(zip(g, t, strict=True)):
            compare_values(a, b, f"{path}[{i}]", rtol)
    else:
        assert g == t or (g != g and t != t), f"{path}: {g!r} vs {t!r}"


def compare_state_dicts(sd_g, sd_t, rtol: float = 1e-13) -> None:
    assert list(sd_g.keys()) == list(sd_t.keys())
    compare_values(sd_g["param_groups"], sd_t["param_groups"], "param_groups", rtol)
    compare_values(sd_g["state"], sd_t["state"], "state", rtol)


def torch_to_gt_tree(value):
    """A torch state dict with every tensor replaced by an equal glasstorch tensor."""
    if isinstance(value, torch.Tensor):
        return gt.tensor(value.tolist(), dtype=getattr(gt, str(value.dtype).removeprefix("torch.")))
    if isinstance(value, dict):
        return {k: torch_to_gt_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(torch_to_gt_tree(v) for v in value)
    return value
