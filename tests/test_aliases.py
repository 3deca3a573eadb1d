"""PyTorch's alias operators against their canonical ops and against torch: for every alias pair, the
alias's function, method, in-place and out= forms give the canonical op's values, dtypes and gradient
in glasstorch, and torch's in torch (tests/ops/op_db_aliases.py runs the aliases' full OpInfo entries)."""

from __future__ import annotations

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error, from_torch, to_torch


def _x(low, high, shape=(3, 4), seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low


_UNIT = (-0.9, 0.9)
# alias, canonical, inputs (torch tensors or plain values), keyword arguments
PAIRS = [
    ("absolute", "abs", (_x(-3, 3),), {}),
    ("arccos", "acos", (_x(*_UNIT),), {}),
    ("arccosh", "acosh", (_x(1.1, 4),), {}),
    ("arcsin", "asin", (_x(*_UNIT),), {}),
    ("arcsinh", "asinh", (_x(-3, 3),), {}),
    ("arctan", "atan", (_x(-3, 3),), {}),
    ("arctan2", "atan2", (_x(-3, 3), _x(-3, 3, (4,), seed=1)), {}),
    ("arctanh", "atanh", (_x(*_UNIT),), {}),
    ("divide", "div", (_x(-3, 3), _x(0.5, 2, seed=1)), {}),
    ("divide", "div", (_x(-3, 3), _x(0.5, 2, seed=1)), {"rounding_mode": "trunc"}),
    ("divide", "div", (_x(-3, 3), _x(0.5, 2, seed=1)), {"rounding_mode": "floor"}),
    ("divide", "div", (_x(-3, 3), _x(0.5, 2, seed=1)), {"rounding_mode": None}),
    ("divide", "div", (_x(-3, 3), 1.5), {"rounding_mode": "floor"}),
    ("divide", "div", (_x(-3, 3), 2), {}),
    ("greater_equal", "ge", (_x(-1, 1), _x(-1, 1, (4,), seed=1)), {}),
    ("greater", "gt", (_x(-1, 1), 0.25), {}),
    ("less_equal", "le", (_x(-1, 1), _x(-1, 1, seed=1)), {}),
    ("less", "lt", (_x(-1, 1), -0.25), {}),
    ("not_equal", "ne", (_x(-1, 1).round(), _x(-1, 1, seed=1).round()), {}),
    ("negative", "neg", (_x(-3, 3),), {}),
    ("multiply", "mul", (_x(-3, 3), _x(-3, 3, (4,), seed=1)), {}),
    ("multiply", "mul", (_x(-3, 3), 2.5), {}),
    ("subtract", "sub", (_x(-3, 3), _x(-3, 3, seed=1)), {"alpha": 2}),
    ("subtract", "sub", (_x(-3, 3), 3), {}),
    ("fix", "trunc", (_x(-3, 3),), {}),
]
_NO_GRAD = {"greater_equal", "greater", "less_equal", "less", "not_equal", "fix"}


def _ids(p):
    return f"{p[0]}-{len(p[2])}-{'-'.join(f'{k}={v}' for k, v in p[3].items())}-{type(p[2][-1]).__name__}"


def _convert(args, requires_grad=False):
    gts = [from_torch(a).requires_grad_(requires_grad) if isinstance(a, torch.Tensor) else a for a in args]
    ths = [a.clone().requires_grad_(requires_grad) if isinstance(a, torch.Tensor) else a for a in args]
    return gts, ths


def _forms(lib, name, args, kwargs):
    """function, method, in-place (method and, where torch has it, function) and out= results."""
    x, rest = args[0], args[1:]
    res = {"function": getattr(lib, name)(*args, **kwargs), "method": getattr(x, name)(*rest, **kwargs)}
    out = lib.empty(0, dtype=res["function"].dtype)
    res["out"] = getattr(lib, name)(*args, **kwargs, out=out)
    assert res["out"] is out
    res["inplace"] = getattr(x.clone(), name + "_")(*rest, **kwargs)  # a comparison keeps self's dtype
    if hasattr(torch, name + "_"):  # torch.arccos_ exists, torch.divide_ does not
        res["inplace function"] = getattr(lib, name + "_")(x.clone(), *rest, **kwargs)
    return res


@pytest.mark.parametrize("alias,canonical,args,kwargs", PAIRS, ids=[_ids(p) for p in PAIRS])
def test_alias_matches_canonical_and_torch(alias, canonical, args, kwargs):
    gts, ths = _convert(args)
    got, want = _forms(gt, alias, gts, kwargs), _forms(torch, alias, ths, kwargs)
    got_canonical = _forms(gt, canonical, gts, kwargs)
    assert set(got) == set(want)
    for form in want:
        assert_same(got[form], want[form], rtol=1e-13, atol=1e-15, msg=f"{form}: ")
    for form in set(got) & set(got_canonical):
        assert_same(got[form], to_torch(got_canonical[form]), msg=f"{form} vs {canonical}: ")
    if alias in _NO_GRAD:
        return
    gts, ths = _convert(args, requires_grad=True)
    out_gt, out_th = getattr(gt, alias)(*gts, **kwargs), getattr(torch, alias)(*ths, **kwargs)
    canon_gt = getattr(gt, canonical)(*_convert(args, requires_grad=True)[0], **kwargs)
    assert type(out_gt.grad_fn).__name__ == type(out_th.grad_fn).__name__ == type(canon_gt.grad_fn).__name__
    seed = torch.randn(out_th.shape, dtype=out_th.dtype, generator=torch.Generator().manual_seed(3))
    tensors_gt = [a for a in gts if isinstance(a, gt.Tensor)]
    tensors_th = [a for a in ths if isinstance(a, torch.Tensor)]
    for a, b in zip(gt.autograd.grad(out_gt, tensors_gt, from_torch(seed)),
                    torch.autograd.grad(out_th, tensors_th, seed), strict=True):
        assert_same(a, b, check_strides=False, rtol=1e-13, atol=1e-15)



def test_row_stack_is_vstack():
    ths = [_x(-1, 1, (3,)), _x(-1, 1, (2, 3), seed=1)]
    for t in ths:
        t.requires_grad_(True)
    gts = [from_torch(t.detach()).requires_grad_(True) for t in ths]
    got, want = gt.row_stack(gts), torch.row_stack(ths)
    assert_same(got, want)
    assert_same(got, to_torch(gt.vstack(gts)))
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    out_gt, out_th = gt.empty(0, dtype=gt.float64), torch.empty(0, dtype=torch.float64)
    assert gt.row_stack([g.detach() for g in gts], out=out_gt) is out_gt
    assert_same(out_gt, torch.row_stack([t.detach() for t in ths], out=out_th))
    seed = torch.randn(want.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    for a, b in zip(gt.autograd.grad(got, gts, from_torch(seed)), torch.autograd.grad(want, ths, seed), strict=True):
        assert_same(a, b)


@pytest.mark.parametrize("alias,args", [("arccos", (_x(*_UNIT),)), ("arctan2", (_x(-3, 3), _x(0.5, 3, seed=1))),
                                        ("divide", (_x(-3, 3), _x(0.5, 2, seed=1))), ("absolute", (_x(0.5, 3),))],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_alias_gradcheck(alias, args):
    gts = [from_torch(a).requires_grad_(True) for a in args]
    assert gt.autograd.gradcheck(getattr(gt, alias), gts)
    assert gt.autograd.gradgradcheck(getattr(gt, alias), gts)


@pytest.mark.parametrize("name,args,kwargs", [
    ("divide", (_x(-1, 1), _x(1, 2)), {"rounding_mode": "round"}),
    ("negative", (torch.ones(2, dtype=torch.bool),), {}),
    ("subtract", (torch.ones(2, dtype=torch.bool), torch.ones(2, dtype=torch.bool)), {}),
    ("multiply", (_x(-1, 1, (2,)), _x(-1, 1, (3,))), {}),
    ("divide_", (torch.ones(2, dtype=torch.int64), 2), {}),
    ("arctan2_", (torch.ones(2), torch.ones(2, 3)), {}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_alias_errors_match_torch(name, args, kwargs):
    gts = [from_torch(a) if isinstance(a, torch.Tensor) else a for a in args]
    if name.endswith("_"):
        assert_same_error(lambda: getattr(gts[0], name)(*gts[1:], **kwargs),
                          lambda: getattr(args[0].clone(), name)(*args[1:], **kwargs))
    else:
        assert_same_error(lambda: getattr(gt, name)(*gts, **kwargs), lambda: getattr(torch, name)(*args, **kwargs))
