"""gradcheck against torch.autograd.gradcheck: the forward-AD Jacobians (every differentiable input a detached
dual, complex inputs through their real and imaginary parts), reentrancy in fast mode, the shape/dtype checks on
perturbed outputs, and the deprecated get_numerical_jacobian / get_analytical_jacobian."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.autograd.forward_ad as th_fw

import glasstorch as gt
import glasstorch.autograd.forward_ad as gt_fw
from tests.oracle import assert_same, assert_same_error

FW = {gt: gt_fw, torch: th_fw}


def _gradcheck_module(m):
    import importlib

    return importlib.import_module(f"{m.__name__}.autograd.gradcheck")


def _inputs(m, dtypes):
    return [m.tensor([0.25, 0.75], dtype=getattr(m, d), requires_grad=True) for d in dtypes]


def _bad_fn(m):
    def fn(x, y):
        if FW[m]._current_level >= 0:  # scale y's tangent: forward mode disagrees with the numerical Jacobian
            p, t = FW[m].unpack_dual(y)
            y = FW[m].make_dual(p, t * 1.1)
        return x + y, y
    return fn


@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("complex128", "float64"), ("complex128", "complex128")])
@pytest.mark.parametrize("fast_mode", [True, False])
def test_forward_ad_check(dtypes, fast_mode):
    for m in (gt, torch):
        assert m.autograd.gradcheck(lambda x, y: (x + y, y), _inputs(m, dtypes), check_forward_ad=True,
                                    fast_mode=fast_mode)
    _same_first_line(dtypes, fast_mode)


def _same_first_line(dtypes, fast_mode):
    """The mismatch message names output and input as torch's does (the Jacobians' digits follow)."""
    def first(m):
        try:
            m.autograd.gradcheck(_bad_fn(m), _inputs(m, dtypes), check_forward_ad=True, fast_mode=fast_mode)
        except RuntimeError as e:
            return str(e).splitlines()[0]
        return None
    got = first(gt)
    assert got is not None and got == first(torch)


def _seen_requires_grad(m):
    seen = []

    class Fn(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            if FW[m]._current_level >= 0:
                seen.append((x.requires_grad, y.requires_grad))
            return x.clone(), y.clone()

        @staticmethod
        def jvp(ctx, x_t, y_t):
            return x_t, y_t

    m.autograd.gradcheck(Fn.apply, _inputs(m, ("float64", "float64")), check_forward_ad=True,
                         check_backward_ad=False, check_undefined_grad=False, check_batched_grad=False)
    return sorted(set(seen))


def test_forward_ad_inputs_do_not_require_grad():
    assert _seen_requires_grad(gt) == _seen_requires_grad(torch) == [(False, False)]


def _nondet(m, fast_mode, jitter, nondet_tol=0.0):
    class NonDet(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * (1 + m.rand_like(g) * jitter)

    x = m.ones(3, 3, dtype=m.float64, requires_grad=True)
    return m.autograd.gradcheck(NonDet.apply, x, nondet_tol=nondet_tol, check_batched_grad=False,
                                fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [True, False])
def test_backward_not_reentrant(fast_mode):
    assert_same_error(lambda: _nondet(gt, fast_mode, 1e-6), lambda: _nondet(torch, fast_mode, 1e-6))
    assert _nondet(gt, fast_mode, 1e-6, 1e-5) and _nondet(torch, fast_mode, 1e-6, 1e-5)


@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("change", ["shape", "dtype"])
def test_outputs_must_keep_shape_and_dtype_when_perturbed(change, fast_mode):
    def run(m):
        def fn(x):
            if m.all(x >= 1):
                return m.cat([x, x]) if change == "shape" else x.to(m.float32)
            return x
        return m.autograd.gradcheck(fn, (m.ones(1, dtype=m.float64, requires_grad=True),), fast_mode=fast_mode)
    assert_same_error(lambda: run(gt), lambda: run(torch))


def _jacobians(m):
    gc = _gradcheck_module(m)
    a = m.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=m.float64, requires_grad=True)
    b = m.tensor([[0.5, 0.6], [0.7, 0.8]], dtype=m.float64, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        num = gc.get_numerical_jacobian(lambda ins: (2 * ins[0] + ins[1], ins[0]), (a, b), eps=1e-6)
        ana, reentrant, sizes_ok, types_ok = gc.get_analytical_jacobian((a, b), 2 * a + b)
    texts = [(w.category.__name__, str(w.message)) for w in caught]
    return list(num), list(ana), (reentrant, sizes_ok, types_ok), texts


def test_deprecated_jacobian_helpers():
    got, want = _jacobians(gt), _jacobians(torch)
    for g, t in zip(got[0] + got[1], want[0] + want[1], strict=True):
        assert_same(g, t, rtol=1e-6, atol=1e-8)
    assert got[2:] == want[2:]
    for m in (gt, torch):
        gc = _gradcheck_module(m)
        x = m.ones(2, dtype=m.float64, requires_grad=True)
        with pytest.raises(ValueError, match="Expected grad_out to be 1.0"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gc.get_analytical_jacobian((x,), x * 2, grad_out=2.0)


def _first_line(m, fn, inputs, **kw):
    try:
        return m.autograd.gradcheck(fn, inputs, **kw)
    except RuntimeError as e:
        return str(e).splitlines()[0]


@pytest.mark.parametrize("op", ["cat", "stack"])
@pytest.mark.parametrize("complex_first", [False, True])
def test_real_and_complex_inputs_forward_ad(op, complex_first):
    def run(m):
        c = m.tensor([[0.1 + 0.2j, 0.3 - 0.1j], [0.2, -0.5j]], dtype=m.complex128, requires_grad=True)
        r = m.tensor([[0.5, -0.4], [0.25, 0.75]], dtype=m.float64, requires_grad=True)
        fn = (lambda a, b: getattr(m, op)((a, b), -1))
        return _first_line(m, fn, [c, r] if complex_first else [r, c], check_forward_ad=True)
    assert run(gt) is True and run(torch) is True


def _pow_complex_exponent(m, base):
    e = m.tensor([0.3 + 0.2j, -0.5 + 0.1j], dtype=m.complex128, requires_grad=True)
    b = -m.ones(2, dtype=m.float64) if base == "tensor" else base
    y = m.pow(b, e)
    (g,) = m.autograd.grad(y, e, m.tensor([1 + 0j, 1j], dtype=m.complex128))
    return y, g, _first_line(m, lambda x: m.pow(b, x), (e,))


@pytest.mark.parametrize("base", ["tensor", -1, 2.5, 0])
def test_pow_real_base_complex_exponent_gradients(base):
    got, want = _pow_complex_exponent(gt, base), _pow_complex_exponent(torch, base)
    assert_same(got[0], want[0], rtol=1e-12, atol=1e-14)
    assert_same(got[1], want[1], rtol=1e-12, atol=1e-14)
    assert got[2] == want[2]  # True, or (base 0: NaN gradients) the same mismatch, not "not reentrant"


def _to_complex(m):
    x = m.tensor([[0.3, -0.2], [0.1, 0.5]], dtype=m.float64, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x.to(m.complex128).sum().abs().backward()
    return x.grad, [str(w.message) for w in caught]


def test_real_to_complex_copy_backward_does_not_warn():
    (g, gw), (t, tw) = _to_complex(gt), _to_complex(torch)
    assert_same(g, t)
    assert gw == tw == []
