"""Forward-mode AD against torch: the forward grad mode switches, the printed tangent of a dual, out= variants
(refused once they ran), make_dual's layout checks (storage size, conj/neg bits, empty tensors) and a tensor
subclass's __torch_dispatch__ seeing make_dual as ``aten.alias`` of the primal."""

from __future__ import annotations

import itertools

import pytest
import torch
import torch.autograd.forward_ad as th_fw
from torch.utils._mode_utils import no_dispatch as th_no_dispatch

import glasstorch as gt
import glasstorch.autograd.forward_ad as gt_fw
from glasstorch.utils._mode_utils import no_dispatch as gt_no_dispatch
from tests.oracle import assert_same, assert_same_error

FW = {gt: gt_fw, torch: th_fw}
NO_DISPATCH = {gt: gt_no_dispatch, torch: th_no_dispatch}


def _modes(m):
    fw = FW[m]
    seen = [fw._is_fwd_grad_enabled()]
    try:
        m._C._set_fwd_grad_enabled(False)
        seen.append(fw._is_fwd_grad_enabled())
        with fw._set_fwd_grad_enabled(True):
            seen.append(m._C._is_fwd_grad_enabled())
        seen.append(fw._is_fwd_grad_enabled())
        with fw.dual_level():  # off: ops neither read nor give tangents
            x = fw.make_dual(m.ones(2), m.ones(2))
            seen.append(fw.unpack_dual(x * 2).tangent is None)
    finally:
        m._C._set_fwd_grad_enabled(True)
    seen.append(fw._is_fwd_grad_enabled())
    return seen


def test_set_fwd_grad_enabled():
    assert _modes(gt) == _modes(torch)


def _reprs(m):
    fw = FW[m]
    with fw.dual_level():
        a = m.arange(3.0)
        b = fw.make_dual(a, m.tensor([4.0, 5.0, 6.0]))
        c = fw.make_dual(m.arange(30.0).reshape(5, 6), m.ones(5, 6)) * 2
        p, t = fw.unpack_dual(b)
        return [repr(a), repr(b), str(c), repr(p), repr(t)]


def test_dual_prints_its_tangent():
    assert _reprs(gt) == _reprs(torch)


OUT_CALLS = {
    "add into dual": lambda m, d, p: m.add(p, p, out=d),
    "add of dual": lambda m, d, p: m.add(d, p, out=p),
    "mul": lambda m, d, p: m.mul(d, 2, out=p),
    "sum.IntList_out": lambda m, d, p: m.sum(d.view(1, 2), 0, out=p),
    "max.dim_max": lambda m, d, p: m.max(d.view(1, 2), 1, out=(m.empty(1), m.empty(1, dtype=m.int64))),
    "argmax (no formula)": lambda m, d, p: m.argmax(d, 0, out=m.empty((), dtype=m.int64)),
    "cat": lambda m, d, p: m.cat([d, p], out=m.empty(4)),
}


def _out_call(m, name):
    """The error of an out= call on a dual, and what the out holds after it (written before the refusal)."""
    fw = FW[m]
    with fw.dual_level():
        dual, plain = fw.make_dual(m.ones(2), m.ones(2)), m.zeros(2)
        try:
            OUT_CALLS[name](m, dual, plain)
        except NotImplementedError as e:
            return str(e), plain.tolist()
        return None, plain.tolist()


@pytest.mark.parametrize("name", OUT_CALLS)
def test_out_variant_refuses_tangents_after_running(name):
    got = _out_call(gt, name)
    assert got == _out_call(torch, name)
    assert got[0] is not None


@pytest.mark.parametrize("name", ["sum", "max", "sort"])
def test_out_overload_matched_by_arguments_refuses_requires_grad(name):
    call = {"sum": lambda m, x: m.sum(x, 0, out=m.empty(2)),
            "max": lambda m, x: m.max(x, 1, out=(m.empty(2), m.empty(2, dtype=m.int64))),
            "sort": lambda m, x: m.sort(x, out=(m.empty(2, 2), m.empty(2, 2, dtype=m.int64)))}[name]
    assert_same_error(lambda: call(gt, gt.ones(2, 2, requires_grad=True)),
                      lambda: call(torch, torch.ones(2, 2, requires_grad=True)))


def test_out_without_formula_accepts_requires_grad():
    for m in (gt, torch):
        x = m.ones(2, 2, requires_grad=True)
        assert m.argmax(x, 0, out=m.empty(2, dtype=m.int64)).tolist() == [0, 0]


def _storage_numel(m):
    fw = FW[m]
    primal = m.arange(5.0)[:4].detach()
    tangent = m.arange(4.0)
    with fw.dual_level():
        dual = fw.make_dual(primal, tangent)
        _, unpacked = fw.unpack_dual(dual)
        unpacked *= 2
        return (unpacked is tangent, tangent.tolist(), len(unpacked.untyped_storage()),
                fw.unpack_dual(dual.as_strided((5,), (1,), 0)).tangent.tolist())


def test_make_dual_copies_a_tangent_of_another_storage_size():
    assert _storage_numel(gt) == _storage_numel(torch)


KEYS = {"plain": lambda x: x, "conj": lambda x: x.conj(), "neg": lambda x: x._neg_view()}


def _math_bits(m, pk, tk):
    fw = FW[m]
    x = KEYS[pk](m.arange(1.0, 7.0, dtype=m.float64).reshape(2, 3).to(m.complex128) * (1 + 2j))
    t = KEYS[tk](m.arange(1.0, 7.0, dtype=m.float64).reshape(2, 3).to(m.complex128) * (3 - 1j))
    with fw.dual_level():
        dual = fw.make_dual(x, t)
        kept = fw.unpack_dual(dual).tangent
        real, imag = fw.unpack_dual(m.real(dual)).tangent, fw.unpack_dual(m.imag(dual)).tangent
        return kept is t, kept.is_conj(), kept.is_neg(), kept, real, imag


@pytest.mark.parametrize("pk, tk", list(itertools.product(KEYS, KEYS)))
def test_make_dual_lays_the_tangent_out_with_the_primal_math_bits(pk, tk):
    got, want = _math_bits(gt, pk, tk), _math_bits(torch, pk, tk)
    assert got[:3] == want[:3]
    for g, w in zip(got[3:], want[3:], strict=True):
        assert_same(g, w, check_strides=False)


def _zero_numel(m):
    fw = FW[m]
    a = m.tensor([1.0]).as_strided((0,), (1,), 1)
    b = m.tensor([1.0]).as_strided((0,), (1,), 2)
    with fw.dual_level():
        kept = fw.unpack_dual(fw.make_dual(a, b)).tangent is b
    a = m.tensor([1.0]).as_strided((1,), (2,), 0)
    b = m.tensor([1.0]).as_strided((1,), (1,), 0)
    with fw.dual_level():
        d = fw.make_dual(a, b)
        return kept, fw.unpack_dual(d).tangent is b, tuple(d[1:].shape)


def test_make_dual_ignores_offsets_and_strides_of_empty_or_size_one_dims():
    assert _zero_numel(gt) == _zero_numel(torch)


def _subclass(m, on_call):
    """A tensor subclass whose ``__torch_dispatch__`` calls ``on_call(func)``, then runs ``func`` undispatched."""

    class Sub(m.Tensor):
        def __new__(cls, data):
            return m.Tensor._make_subclass(cls, data)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            on_call(func)
            with NO_DISPATCH[m]():
                return func(*args, **(kwargs or {}))

    return Sub


def _dispatch_seen(m):
    seen = []
    s = _subclass(m, lambda func: seen.append((str(func), func.overloadpacket == m.ops.aten.alias)))(m.tensor(1.0))
    fw = FW[m]
    with fw.dual_level():
        seen.clear()
        d = fw.make_dual(s, m.tensor(2.0))
        seen_here = [f for f in seen if "alias" in f[0] or "make_dual" in f[0]]
        return seen_here, type(d).__name__, fw.unpack_dual(d).tangent.item()


def test_make_dual_of_a_subclass_dispatches_alias():
    assert _dispatch_seen(gt) == _dispatch_seen(torch)


def _reentrant(m):
    seen = []

    def on_call(func):
        with m.overrides.enable_reentrant_dispatch():
            seen.append(m.rand(1, requires_grad=True).exp().grad_fn is not None)
        seen.append(m.rand(1, requires_grad=True).exp().grad_fn is not None)

    _subclass(m, on_call)(m.tensor(1.0)).add_(1)  # an in-place op: its handler runs below autograd
    return seen


def test_enable_reentrant_dispatch_records_autograd_again():
    assert _reentrant(gt) == _reentrant(torch) == [True, False]
