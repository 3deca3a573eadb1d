"""glasstorch.utils.checkpoint against torch.utils.checkpoint: a dropout MLP's gradients under the same seed."""
import warnings

import numpy as np
import pytest
import torch as rt
import torch.utils.checkpoint as rck

import glasstorch as gt
import glasstorch.utils.checkpoint as gck


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Dropout(0.5), lib.nn.Linear(8, 8),
                             lib.nn.Tanh(), lib.nn.Dropout(0.3), lib.nn.Linear(8, 3))


def _grads(lib, ck, mode, how):
    model = _mlp(lib)
    x = lib.tensor(np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4), requires_grad=True)
    lib.manual_seed(7)
    if how == "plain":
        out = model(x)
    elif how == "ckpt":
        out = ck.checkpoint(model, x, use_reentrant=mode)
    else:
        out = ck.checkpoint_sequential(model, 3, x, use_reentrant=mode)
    out.sum().backward()
    return [out.detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()]


@pytest.mark.parametrize("how", ["ckpt", "seq"])
@pytest.mark.parametrize("mode", [True, False])
def test_dropout_mlp_grads_match_plain_and_torch(mode, how):
    plain = _grads(gt, gck, mode, "plain")
    ours = _grads(gt, gck, mode, how)
    theirs = _grads(rt, rck, mode, how)
    for a, b, c in zip(ours, plain, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6)


def _warning(lib, ck, seq):
    x = lib.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if seq:
            ck.checkpoint_sequential([lambda t: t * 2], 1, x)
        else:
            ck.checkpoint(lambda t: t * 2, x)
    return [str(m.message) for m in w if "use_reentrant" in str(m.message)]


@pytest.mark.parametrize("seq", [False, True])
def test_missing_use_reentrant_warning(seq):
    assert _warning(gt, gck, seq) == _warning(rt, rck, seq)
    assert _warning(gt, gck, seq)


def _error(lib, ck, call):
    x = lib.ones(3, requires_grad=True)
    try:
        call(lib, ck, x)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("call", [
    lambda lib, ck, x: lib.autograd.grad(ck.checkpoint(lambda t: (t * t).sum(), x, use_reentrant=True), x),
    lambda lib, ck, x: ck.checkpoint(lambda t: t, x, use_reentrant=True, context_fn=lambda: None),
    lambda lib, ck, x: ck.checkpoint(lambda t, k: t, x, use_reentrant=True, k=1),
    lambda lib, ck, x: ck.checkpoint_sequential([lambda t: t], 1, x, use_reentrant=True, bogus=1),
])
def test_error_texts(call):
    ours = _error(gt, gck, call)
    assert ours is not None and ours == _error(rt, rck, call)


def test_non_reentrant_grad_and_kwargs():
    def run(lib, ck):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = ck.checkpoint(lambda t, scale: (t.sin() * t * scale).sum(), x, use_reentrant=False, scale=2.0)
        return lib.autograd.grad(y, x)[0].numpy()
    np.testing.assert_allclose(run(gt, gck), run(rt, rck), rtol=1e-6)


def _nondeterministic(lib, ck, check):
    calls = []

    def f(t):
        calls.append(1)
        return (t[: 4 - len(calls)] ** 2).sum()
    x = lib.ones(4, requires_grad=True)
    try:
        ck.checkpoint(f, x, use_reentrant=False, determinism_check=check).backward()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__
    return x.grad.tolist()


@pytest.mark.parametrize("check", ["default", "none"])
def test_determinism_check(check):
    assert _nondeterministic(gt, gck, check) == _nondeterministic(rt, rck, check)
