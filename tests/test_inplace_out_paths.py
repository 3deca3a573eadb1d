"""In-place and ``out=`` calls on their fast paths behave as on the general ones, and as torch does.

The paths under test (speed lives in benchmarks/): the generated bindings' ``out=`` fast path and the in-place
operator functions behind ``+=`` (``methods._add__operator``), the ADInplaceOrView kernel (version bump, the
autograd/ADInplaceOrView exclusion for nested calls), and TensorIterator's given-output fast path
(``fast_operands``: in place and ``out=`` with one shape, dtype, device and contiguous operands), with the
kernels that call it directly (``pointwise.binary`` and add/sub).  Checked against torch: values, dtypes,
result identity, version counters, overlap / broadcast / cast errors, the ``out=`` resize warning, gradients;
against the pre-recorded text: the dispatch trace.
"""

from __future__ import annotations

import io
import warnings

import pytest
import torch
from oracle import assert_same, assert_same_error

import glasstorch as gt
from glasstorch._core import dispatch_key as dk
from glasstorch._core.device import device as gt_device
from glasstorch._ops import dispatcher
from glasstorch._ops.layer_kernels import inplace_kernel
from glasstorch._ops.tensor_iterator import fast_operands


def _env(m):
    return {"m": m, "a": m.arange(1.0, 5.0), "b": m.full((4,), 2.0), "c": m.zeros(4), "ai": m.arange(1, 5),
            "ab": m.tensor([True, False, True, False]), "ah": m.arange(1.0, 5.0).half(),
            "abf": m.arange(1.0, 5.0).bfloat16(), "a0": m.tensor(3.0), "b0": m.tensor(2.0), "e": m.ones(0),
            "ad": m.arange(1.0, 5.0).double(), "cd": m.zeros(4, dtype=m.float64), "ci": m.zeros(4, dtype=m.int64),
            "al": m.arange(1, 5).long(), "m2": m.arange(6.0).reshape(2, 3), "w": m.zeros(3, 2).t()}


def _run(expr, m):
    """Run the in-place ``expr`` (a method call or an augmented assignment) on a fresh environment of library
    ``m``: the result, how much the written tensor's version moved, and whether the result is that tensor."""
    env = _env(m)
    target = expr.split(".", 1)[0].split()[0]  # "a.mul_(b)" and "a += b" both write ``a``
    orig = env[target]
    before = orig._version
    augmented = any(op in expr for op in ("+=", "-=", "*=", "/="))
    exec(f"{expr}\nr = {target}" if augmented else f"r = {expr}", env)  # noqa: S102 - fixed test expressions
    r = env["r"]
    return r, orig._version - before, r is orig


# -- values, dtypes, versions and identity against torch --------------------------------------------------------
INPLACE = [
    "a.mul_(b)", "a.add_(b)", "a.add_(b, alpha=2)", "a.sub_(b, alpha=0.5)", "a.div_(b)", "a.mul_(2.5)",
    "a.add_(a)", "a.mul_(a)", "ai.add_(3)", "ai.mul_(ai)", "ai.sub_(ai, alpha=2)", "ab.add_(ab)", "ab.mul_(True)",
    "ab.add_(ab, alpha=2)",
    "ah.mul_(1.1)", "ah.add_(ah, alpha=0.3)", "abf.add_(abf)", "abf.mul_(abf)", "a0.mul_(b0)", "e.add_(e)",
    "ad.mul_(ad)", "a.add_(ai)", "a.mul_(ad)", "a.mul_(b0)", "m2.mul_(m2)", "w.add_(1)", "a.add_(b[::1])",
    "a += b", "a -= 2", "a *= b", "a /= b", "ai += ai", "ai *= 3", "a += 1.5", "ab += ab",
]


@pytest.mark.parametrize("expr", INPLACE)
def test_inplace_matches_torch(expr):
    (g, gv, gsame), (t, tv, tsame) = _run(expr, gt), _run(expr, torch)
    assert_same(g, t)
    assert (gv, gsame) == (tv, tsame) == (1, True)


OUT = [
    "m.add(a, b, out=c)", "m.mul(a, b, out=c)", "m.sub(a, b, out=c)", "m.div(a, b, out=c)", "m.mul(a, 2.0, out=c)",
    "m.add(a, b, alpha=3, out=c)", "m.add(a, b, out=a)", "m.mul(a, b, out=b)", "m.add(a, b, out=cd)",
    "m.add(ai, ai, out=ci)", "m.add(ai, ai, out=c)", "m.mul(ai, 2, out=ci)", "m.add(2, 3, out=c0)",
    "m.add(2**62, 2**62, out=c0)", "m.add(a0, 1, out=c0)", "m.sqrt(a, out=c)", "m.neg(a, out=c)",
    "m.add(a, b[:1], out=c)", "m.add(a, b, out=c[::1])", "m.mul(ah, ah, out=ch)", "m.add(ad, 1, out=cd)",
]


@pytest.mark.parametrize("expr", OUT)
def test_out_matches_torch(expr):
    results = []
    for m in (gt, torch):
        env = _env(m)
        env["c0"], env["ch"] = m.zeros(()), m.zeros(4, dtype=m.float16)
        name = expr.split("out=")[1].split(")")[0].split("[")[0]
        before = env[name]._version
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a matching out is never resized, so never warns
            r = eval(expr, env)  # noqa: S307 - fixed test expressions
        results.append((r, env[name]._version - before, r is env[name] or "[" in expr))
    (g, gv, gsame), (t, tv, tsame) = results
    assert_same(g, t)
    assert (gv, gsame) == (tv, tsame)


def test_out_on_an_equal_but_distinct_device_object():
    a = gt.ones(3, device=gt_device("cpu"))
    c = gt.zeros(3, device=gt_device("cpu"))
    assert gt.add(a, gt.ones(3), out=c) is c and c.tolist() == [2.0, 2.0, 2.0]


def test_out_non_contiguous_takes_the_general_path():
    for m in (gt, torch):
        c = m.zeros(8)
        m.add(m.ones(4), m.full((4,), 2.0), out=c[::2])
        assert c.tolist() == [3.0, 0.0] * 4


# -- errors ----------------------------------------------------------------------------------------------------
ERRORS = [
    "ai.mul_(2.5)", "ai.div_(ai)", "ai.add_(a)", "a.mul_(m.ones(2, 4))", "m.ones(1).add_(b)",
    "m.ones(1).expand(4).add_(1)", "a[1:].add_(a[:-1])", "ab.sub_(ab)", "ai.add_(ai, alpha=0.5)",
    "m.add(a, b, out=ci)", "m.add(a[1:], b[1:], out=a[:-1])",
    "m.mul(ai, 2.5, out=ci)", "m.add(a, b, out=m.ones(1).expand(4))", "m.exp(ai, out=ci)",
    "m.add(a, b, out=[c])", "m.add(a, b, out=3)",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors_match_torch(expr):
    def run(m):
        return lambda: eval(expr, _env(m))  # noqa: S307 - fixed test expressions
    assert_same_error(run(gt), run(torch))


def test_failed_inplace_call_bumps_nothing_and_restores_the_exclusion():
    a, prev = gt.arange(1, 5), dk.tls.excluded
    with pytest.raises(RuntimeError):
        a.mul_(2.5)
    assert a._version == 0 and dk.tls.excluded == prev
    x = gt.ones(2, requires_grad=True)
    (x * 2).sum().backward()  # autograd still records after the failed call
    assert x.grad.tolist() == [2.0, 2.0]


def test_out_resize_warns_as_torch():
    msgs = []
    for m in (gt, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            c = m.zeros(2)
            r = m.add(m.ones(4), m.ones(4), out=c)
            m.mul(m.ones(3), 2.0, out=m.zeros(0))  # zero elements: resized silently
        assert r is c and c.shape == (4,) and c.tolist() == [2.0] * 4
        msgs.append([str(x.message).split(" (Triggered internally")[0] for x in w
                     if issubclass(x.category, UserWarning)])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1


def test_out_with_grad_raises_as_torch():
    def run(m):
        x = m.ones(2, requires_grad=True)
        return lambda: m.add(x, x, out=m.zeros(2))
    assert_same_error(run(gt), run(torch))
    with gt.no_grad():
        x = gt.ones(2, requires_grad=True)
        assert gt.add(x, x, out=gt.zeros(2)).tolist() == [2.0, 2.0]


# -- gradients through in-place fast paths -----------------------------------------------------------------------
def _grads(m):
    x = m.arange(1.0, 4.0, requires_grad=True)
    y = m.full((3,), 0.5, requires_grad=True)
    z = x * 1
    z.mul_(y)
    z.add_(y, alpha=2)
    z -= x
    z *= 3
    z.div_(y)
    z.sum().backward()
    return z, x.grad, y.grad, z.grad_fn.name(), z._version


def test_inplace_grads_match_torch():
    g, t = _grads(gt), _grads(torch)
    for a, b in zip(g[:3], t[:3], strict=True):
        assert_same(a.detach(), b.detach(), rtol=1e-6, atol=1e-6)
    assert g[3:] == t[3:]


def test_inplace_version_errors_match_torch():
    def modified(m):
        x = m.ones(2, requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)
        return lambda: y.sum().backward()

    def leaf(m):
        x = m.ones(2, requires_grad=True)
        return lambda: x.add_(1)
    assert_same_error(modified(gt), modified(torch))
    assert_same_error(leaf(gt), leaf(torch))


# -- the layers: augmented operators, nested exclusion, trace --------------------------------------------------
def test_augmented_operator_calls_the_binding_not_a_subclass_method():
    seen = {}
    for m in (gt, torch):
        class Sub(m.Tensor):
            def add_(self, other, _name=m.__name__):  # torch's ``+=`` is its C binding: this is not called
                seen[_name] = True
                return self
        s = Sub([1.0, 1.0])
        s += 1
        assert s.tolist() == [2.0, 2.0] and type(s) is Sub
    assert seen == {}
    from glasstorch._generated import methods as gmeth
    assert gt.Tensor.__iadd__ is gmeth._add__operator and gmeth._add__operator(gt.ones(1), "x") is NotImplemented


def test_nested_inplace_calls_bump_once_and_see_the_exclusion():
    op = dispatcher.register_op("gt_test_inplace::twice_(Tensor(a!) self) -> Tensor(a!)")
    mul_ = dispatcher.get_op("aten::mul_.Scalar")
    seen = []

    def cpu(self):
        seen.append(dk.tls.excluded & dk.bit("ADInplaceOrView") and dk.tls.excluded & dk.bit("AutogradCPU"))
        mul_.call(self, 2)
        return mul_.call(self, 2)
    try:
        dispatcher.register_kernel(op.name, "CPU", cpu)
        dispatcher.register_kernel(op.name, "ADInplaceOrView", inplace_kernel(op, (0,)), with_keyset=True)
        a = gt.ones(3)
        assert op.call(a._impl) is a._impl
        assert a.tolist() == [4.0] * 3 and a._version == 1 and seen == [dk.bit("AutogradCPU")]
        assert not dk.tls.excluded & dk.bit("ADInplaceOrView")
    finally:
        dispatcher.deregister_op(op.name)


TRACE = [
    "[call] op=[aten::mul_.Tensor], key=[AutogradCPU] kernel=[autograd::aten::mul_.Tensor]",
    "  [redispatch] op=[aten::mul_.Tensor], key=[ADInplaceOrView] kernel=[ADInplaceOrView::aten::mul_.Tensor]",
    "    [redispatch] op=[aten::mul_.Tensor], key=[CPU] kernel=[_mul__Tensor_structured]",
    "[call] op=[aten::add_.Tensor], key=[AutogradCPU] kernel=[autograd::aten::add_.Tensor]",
    "  [redispatch] op=[aten::add_.Tensor], key=[ADInplaceOrView] kernel=[ADInplaceOrView::aten::add_.Tensor]",
    "    [redispatch] op=[aten::add_.Tensor], key=[CPU] kernel=[_add__Tensor_structured]",
    "[call] op=[aten::add.out], key=[AutogradCPU] kernel=[autograd::aten::add.out]",
    "  [redispatch] op=[aten::add.out], key=[ADInplaceOrView] kernel=[ADInplaceOrView::aten::add.out]",
    "    [redispatch] op=[aten::add.out], key=[CPU] kernel=[add_out]",
]


def test_trace_of_inplace_and_out_calls():
    a, b, c = gt.ones(2), gt.ones(2), gt.zeros(2)
    s = io.StringIO()
    with dispatcher.show_dispatch_trace(s):
        a.mul_(b)
        a += b
        gt.add(a, b, out=c)
    assert s.getvalue().splitlines() == TRACE
    assert c.tolist() == [3.0, 3.0] and a._version == 2 and c._version == 1


# -- fast_operands: what it refuses ------------------------------------------------------------------------------
def test_fast_operands_refuses_what_would_promote_or_reshape():
    f32, f64 = gt.ones(3)._impl, gt.ones(3, dtype=gt.float64)._impl
    i64 = gt.ones(3, dtype=gt.int64)._impl
    assert fast_operands(f32, (f32, f32)) is not None
    assert fast_operands(f32, (2, 3)) is None  # numbers alone promote among themselves
    assert fast_operands(f32, (f32, f64)) is None and fast_operands(f32, (f32, gt.ones(1)._impl)) is None
    assert fast_operands(i64, (i64, 2.5)) is None and fast_operands(i64, (i64, 2.5), promote=False) is not None
    assert fast_operands(i64, (i64, i64), int_to_float=True) is None
    assert fast_operands(gt.ones(6)._impl, (gt.ones(6)[::2]._impl,)) is None  # shapes differ
    assert fast_operands(gt.zeros(3, 2).t()._impl, (gt.ones(2, 3)._impl,)) is None  # out not contiguous
    assert fast_operands(gt.ones(3, device="meta")._impl, (gt.ones(3, device="meta")._impl,)) is None
    wrapped = gt.tensor(2.0)._impl
    wrapped.is_wrapped_number = True
    assert fast_operands(gt.zeros(())._impl, (wrapped,)) is None
