"""The per-call fast paths stay exactly PyTorch's semantics (speed itself lives in benchmarks/).

- generated bindings: Tensor subclasses that leave ``__torch_function__`` alone take the fast path and
  get the same results as through the full parser; a subclass that overrides it does not;
- TensorIterator: the in-place shape check comes before dtype checks (PyTorch's order), the fast set-up
  also serves kernels that require one dtype;
- kernels keep numpy's floating-point errors silent without touching the caller's numpy error state;
- the engine's node statistics (``profile_nodes``) count what ran.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch import _binding_support as bs
from glasstorch._generated import functions as gfun
from glasstorch._generated import methods as gmeth
from glasstorch.autograd import engine


class _Plain(gt.Tensor):
    pass


class _Disabled(gt.Tensor):
    __torch_function__ = bs._disabled_torch_function_impl


class _Overrides(gt.Tensor):
    calls: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(func.__name__)
        return super().__torch_function__(func, types, args, kwargs)


class _NoParse:
    """Stands in for a binding's parser: the test fails if the call leaves the fast path."""

    def __init__(self, real):
        self.real = real
        self.calls = 0

    def parse(self, args, kwargs):
        self.calls += 1
        return self.real.parse(args, kwargs)


@pytest.fixture
def count_parses(monkeypatch):
    def install(module, name):
        spy = _NoParse(getattr(module, name))
        monkeypatch.setattr(module, name, spy)
        return spy
    return install


def test_subclass_table():
    # a plain subclass inherits Tensor's default __torch_function__ (results come back as the subclass): only the
    # disabled impl (nn.Parameter's) keeps a subclass on the fast paths
    assert bs._TS[_Disabled] and bs._TS[gt.nn.Parameter]
    assert not bs._TS[_Plain] and not bs._TS[_Overrides]
    assert not bs._TS[np.float64] and not bs._TS[list]
    assert bs.plain_tensor_subclass(gt.Tensor) and not bs.plain_tensor_subclass(int)


@pytest.mark.parametrize("cls", [_Disabled])
def test_disabled_subclass_takes_fast_path(cls, count_parses):
    add_fn, mul_m = count_parses(gfun, "_sig_add"), count_parses(gmeth, "_sig_mul")
    a, b = cls([1.0, 2.0]), cls([3.0, 4.0])
    assert type(a) is cls
    r1, r2, r3 = gt.add(a, b), gt.add(a, 2.5), a.mul(b)
    assert add_fn.calls == 0 and mul_m.calls == 0
    ta, tb = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    assert r1.tolist() == torch.add(ta, tb).tolist() and r2.tolist() == torch.add(ta, 2.5).tolist()
    assert r3.tolist() == ta.mul(tb).tolist()


def test_fast_and_slow_paths_agree_for_subclasses(count_parses):
    spy = count_parses(gfun, "_sig_add")
    a, b = _Disabled([1.0, 2.0]), gt.tensor([3.0, 4.0])
    fast = gt.add(a, b)
    slow = gt.add(a, b, alpha=1)  # a keyword: the full parser
    assert spy.calls == 1
    assert type(fast) is type(slow) and fast.tolist() == slow.tolist() and fast.dtype == slow.dtype


def test_overriding_subclass_takes_the_parser(count_parses):
    spy = count_parses(gfun, "_sig_add")
    _Overrides.calls.clear()
    r = gt.add(_Overrides([1.0]), gt.tensor([2.0]))
    # the parser meets the subclass and hands the call over; the default impl then parses it as a plain call
    assert spy.calls == 2 and _Overrides.calls == ["add"]
    assert type(r) is _Overrides and r.tolist() == [3.0]


def test_parameter_like_subclass_with_grad():
    w = _Disabled([1.0, 2.0]).requires_grad_()
    (w * w).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0]


# -- TensorIterator ------------------------------------------------------------------------------------------
INPLACE_BROADCAST = {
    "add_": lambda m, s, o: s.add_(o),
    "sub_": lambda m, s, o: s.sub_(o),
    "mul_": lambda m, s, o: s.mul_(o),
    "pow_": lambda m, s, o: s.pow_(o),
    "clamp_": lambda m, s, o: s.clamp_(o, o),
    "addcmul_": lambda m, s, o: s.addcmul_(o, o),
    "div_floor": lambda m, s, o: s.div_(o, rounding_mode="floor"),
    "eq_": lambda m, s, o: s.eq_(o),
}


@pytest.mark.parametrize("name", sorted(INPLACE_BROADCAST))
def test_inplace_shape_error_comes_before_dtype_errors(name):
    """An int64 ``self`` of shape [2] with a float operand of shape [3, 2]: PyTorch reports the shape."""
    msgs = []
    for m in (gt, torch):
        with pytest.raises(RuntimeError) as e:
            INPLACE_BROADCAST[name](m, m.ones(2, dtype=m.int64), m.ones(3, 2))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] == "output with shape [2] doesn't match the broadcast shape [3, 2]"


def test_same_dtype_kernels_use_the_fast_setup_and_still_check():
    for dtype in ("int32", "float64", "float32"):
        g = gt.relu(gt.arange(-3, 3, dtype=getattr(gt, dtype)))
        t = torch.relu(torch.arange(-3, 3, dtype=getattr(torch, dtype)))
        assert g.tolist() == t.tolist() and repr(g.dtype) == repr(t.dtype) and g.stride() == t.stride()
    for m in (gt, torch):
        with pytest.raises(RuntimeError, match="Found dtype Long but expected Float"):
            m.neg(m.ones(2), out=m.zeros(2, dtype=m.int64))


# -- numpy's floating-point errors --------------------------------------------------------------------------
def test_kernels_are_quiet_and_leave_numpy_state_alone():
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            div = gt.tensor([1.0, -1.0, 0.0]) / gt.tensor([0.0, 0.0, 0.0])
            big = gt.tensor([3e38]) * 10
            log = gt.log(gt.tensor([-1.0]))
            with pytest.raises(FloatingPointError):
                np.divide(np.ones(1), np.zeros(1))  # the caller's own state still applies around our kernels
    assert np.geterr() == before
    t_div = torch.tensor([1.0, -1.0, 0.0]) / torch.tensor([0.0, 0.0, 0.0])
    assert str(div.tolist()) == str(t_div.tolist())
    assert big.tolist() == [float("inf")] and np.isnan(log.tolist()[0])


def test_numpy_state_restored_when_a_kernel_raises():
    before = np.geterr()
    for m in (gt, torch):
        with pytest.raises(NotImplementedError, match="\"floor_vml_cpu\" not implemented for 'Bool'"):
            m.floor(m.tensor([True]))
    assert np.geterr() == before


# -- the engine's statistics --------------------------------------------------------------------------------
def test_profile_nodes_counts_every_node():
    x = gt.ones(3, requires_grad=True)
    loss = (x * 2).sin().sum()
    with engine.profile_nodes() as stats:
        loss.backward()
    # GraphRoot, SumBackward0, SinBackward0, MulBackward1, AccumulateGrad
    assert stats.nodes == 5
    assert 0 < stats.apply_s <= stats.backward_s
    x.grad = None
    (x * 2).sum().backward()  # outside the block nothing is counted
    assert stats.nodes == 5


# -- Python numbers for Tensor arguments (should_allow_numbers_as_tensors) ----------------------------------
def test_numbers_as_tensors_is_pytorchs_list():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "codegen"))
    gen = importlib.import_module("gen")
    for name in gen.NUMBERS_AS_TENSORS:
        assert torch._C._should_allow_numbers_as_tensors(name), name
    for name in ("remainder", "xlogy", "bitwise_and", "rsub", "__and__", "__lshift__", "pow", "atan2"):
        assert not torch._C._should_allow_numbers_as_tensors(name) and name not in gen.NUMBERS_AS_TENSORS


NUMBER_CALLS = [
    "m.rsub(2, t)", "m.rsub(t, 2)", "m.rsub(t, 2.5, alpha=2)", "m.remainder(2, t)", "t.remainder(2)",
    "m.xlogy(2, t)", "t.xlogy(3)", "m.bitwise_and(2, ti)", "ti.bitwise_or(True)", "ti.__and__(3)",
    "ti.__lshift__(1)", "m.bitwise_left_shift(2, ti)", "2 - t", "True - ti", "2 & ti", "ti ^ 2", "2 % t",
    "m.add(2, t)", "m.mul(2.5, ti)", "m.div(ti, 2)", "m.floor_divide(7, ti)", "m.true_divide(ti, True)",
]


@pytest.mark.parametrize("expr", NUMBER_CALLS)
def test_python_numbers_bind_like_torch(expr):
    res = []
    for m in (gt, torch):
        env = {"m": m, "t": m.tensor([1.5, 2.0]), "ti": m.tensor([1, 2])}
        try:
            v = eval(expr, env)  # noqa: S307 - fixed test expressions
            res.append((repr(v.dtype), v.tolist()))
        except (TypeError, RuntimeError) as e:
            res.append((type(e).__name__, str(e).splitlines()[0]))
    assert res[0] == res[1]


# -- dense scalar operands (large relu/clamp) ------------------------------------------------------------------
@pytest.mark.parametrize("n", [7, 70000])
@pytest.mark.parametrize("call", ["relu()", "relu_()", "clamp(min=0.)", "clamp(max=0.)", "clamp(max=-0.)",
                                  "clamp(min=-0.5, max=0.5)", "clamp(min=0.5, max=-0.5)", "clamp_(min=0.)"])
def test_relu_and_clamp_keep_signed_zero_and_nan(n, call):
    def run(m):
        x = m.linspace(-1.0, 1.0, n)
        x[0], x[1], x[2] = -0.0, float("nan"), 0.0
        r = eval(f"x.{call}")  # noqa: S307 - fixed test expressions
        return np.signbit(np.array(r.tolist())), np.nan_to_num(np.array(r.tolist()), nan=7.0)
    (gs, gv), (ts, tv) = run(gt), run(torch)
    assert (gs == ts).all() and (gv == tv).all()


# float16 * 1j would be complex32, which glasstorch's numpy kernels do not compute
SCALAR_PROMOTION = [(d, v) for d in ("bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                                     "complex64") for v in (True, 3, -2, 2.5, 1j) if (d, v) != ("float16", 1j)]


@pytest.mark.parametrize("dtype,value", SCALAR_PROMOTION)
@pytest.mark.parametrize("shape", [(3,), (), (2, 1)])
def test_fast_setup_scalar_promotion(dtype, value, shape):
    def run(m):
        x = m.ones(shape, dtype=getattr(m, dtype))
        try:
            r = m.mul(x, value)
        except RuntimeError as e:
            return str(e)
        return repr(r.dtype), r.shape, r.stride()
    assert run(gt) == run(torch)


def test_fast_setup_size_one_dims_with_odd_strides():
    for m in (gt, torch):
        x = m.arange(4.0).view(4, 1).as_strided((4, 1), (1, 7))
        assert x.is_contiguous()
    g, t = (m.arange(4.0).view(4, 1).as_strided((4, 1), (1, 7)) * 2.0 for m in (gt, torch))
    assert g.stride() == t.stride() and g.tolist() == t.tolist()


INPLACE_SAME_SHAPE = [
    "x.add_(y)", "x.add_(x)", "x.mul_(2)", "x.sub_(y, alpha=2)", "x.div_(y)", "x.add_(1.5)", "xi.add_(3)",
    "xi.add_(1.5)", "xi.div_(yi)", "xi.mul_(yi)", "x.clamp_(min=0.5)", "x.neg_()", "xb.add_(True)", "xb.mul_(2)",
    "x.add_(yi)", "x.sqrt_()", "xi.sqrt_()", "x[:3].add_(x[1:4])", "x[1:4].add_(x[1:4])", "x.pow_(2)",
]


@pytest.mark.parametrize("expr", INPLACE_SAME_SHAPE)
def test_inplace_fast_setup_matches_torch(expr):
    def run(m):
        env = {"x": m.arange(1.0, 7.0), "y": m.arange(2.0, 8.0), "xi": m.arange(1, 7), "yi": m.arange(2, 8),
               "xb": m.tensor([True, False] * 3)}
        try:
            r = eval(expr, env)  # noqa: S307 - fixed test expressions
        except RuntimeError as e:
            return str(e)
        return repr(r.dtype), r.tolist(), env["x"].tolist(), env["xi"].tolist(), env["x"]._version
    assert run(gt) == run(torch)


def test_nn_parameter_takes_fast_path(count_parses):
    spy = count_parses(gmeth, "_sig_mul")
    p = gt.nn.Parameter(gt.tensor([1.0, 2.0]))
    out = p.mul(p)
    assert spy.calls == 0 and type(out) is gt.Tensor and out.tolist() == [1.0, 4.0]
    out.sum().backward()
    assert p.grad.tolist() == [2.0, 4.0]


# Note [Broadcast fast path]: row-major operands of different shapes; each case's result (dtype, shape, strides,
# values, or the error text) must be torch's, including the layouts that must leave the fast path.
BROADCAST_CASES = [
    "x + b", "b + x", "x * c", "x - r", "c + r", "x + s0", "s0 + x", "xi / bi", "xi + bi", "xi < bi", "x < b",
    "torch.where(m, x, b)", "x + x4", "x4 + b", "x + b64", "x + bi", "x + e", "x + bad", "x + bt",
    "x + odd", "odd + r", "torch.maximum(x, b)", "xi.div(bi, rounding_mode='floor')", "torch.atan2(x, c)",
    "x + b.expand(3, 4)", "x.t() + c",
]


@pytest.mark.parametrize("expr", BROADCAST_CASES)
def test_broadcast_fast_path_matches_torch(expr):
    def run(m):
        env = {"torch": m, "x": m.arange(12.0).view(3, 4), "b": m.arange(4.0), "c": m.arange(3.0).view(3, 1),
               "r": m.arange(4.0).view(1, 4), "s0": m.tensor(2.5), "xi": m.arange(12).view(3, 4) + 1,
               "bi": m.arange(1, 5), "m": m.arange(12).view(3, 4) % 2 == 0,
               "x4": m.arange(24.0).view(2, 1, 3, 4)[:, :, :1, :], "b64": m.arange(4.0, dtype=m.float64),
               "e": m.ones(0, 4), "bad": m.ones(5), "bt": m.arange(12.0).view(4, 3).t()[:1],
               "odd": m.arange(3.0).view(3, 1).as_strided((3, 1), (1, 9))}
        try:
            r = eval(expr, env)  # noqa: S307 - fixed test expressions
        except RuntimeError as e:
            return str(e)
        return repr(r.dtype), tuple(r.shape), r.stride(), r.tolist()
    ours, theirs = run(gt), run(torch)
    if expr in TRANSCENDENTAL_CASES:  # float32 libm vs SLEEF: an ulp apart (atan2(9, 2) on AVX-512 torch)
        np.testing.assert_allclose(ours[3], theirs[3], rtol=2.0**-23, atol=0)
        ours, theirs = ours[:3], theirs[:3]
    assert ours == theirs


# pointwise.py's contract for float32 transcendental functions: within an ulp or two of torch's SLEEF kernels,
# whose results differ between vector ISAs; layout, dtype and shape stay exact.
TRANSCENDENTAL_CASES = {"torch.atan2(x, c)"}


def test_broadcast_fast_path_records_autograd():
    gx, tx = (m.arange(6.0).view(2, 3).requires_grad_() for m in (gt, torch))
    gb, tb = (m.arange(3.0).requires_grad_() for m in (gt, torch))
    ((gx * gb) + gb).sum().backward()
    ((tx * tb) + tb).sum().backward()
    assert gx.grad.tolist() == tx.grad.tolist() and gb.grad.tolist() == tb.grad.tolist()


CLONE_CASES = [
    ("arange(12.0).view(3, 4)", {}), ("arange(12).view(3, 4)", {}), ("arange(12.0).view(3, 4).t()", {}),
    ("arange(3.0).view(3, 1).as_strided((3, 1), (1, 9))", {}), ("ones(0, 3)", {}), ("tensor(2.5)", {}),
    ("arange(24.0).view(1, 2, 3, 4)", {"memory_format": "channels_last"}),
    ("arange(24.0).view(1, 2, 3, 4)", {"memory_format": "contiguous_format"}),
    ("arange(24.0).view(2, 3, 4)[:, 1]", {}), ("tensor([True, False])", {}),
]


@pytest.mark.parametrize("make,kw", CLONE_CASES)
def test_clone_matches_torch(make, kw):
    def run(m):
        x = eval("m." + make, {"m": m})  # noqa: S307 - fixed test expressions
        c = x.clone(**{k: getattr(m, v) for k, v in kw.items()})
        assert c.data_ptr() != x.data_ptr() or x.numel() == 0
        c.zero_()  # the copy owns its memory
        return repr(c.dtype), tuple(c.shape), c.stride(), x.tolist()
    assert run(gt) == run(torch)


def test_clone_keeps_autograd_and_is_independent():
    x = gt.arange(4.0, requires_grad=True)
    c = x.clone()
    assert c.grad_fn is not None and type(c.grad_fn).__name__ == "CloneBackward0"
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0] * 4
    y = gt.arange(4.0)
    z = y.clone()
    z.add_(1)
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0]
