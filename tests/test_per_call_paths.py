"""The per-call fast paths of a small op give what the general paths give (speed lives in benchmarks/).

- output allocation: ``empty_contiguous_numpy`` builds the numpy view ``TensorImpl.as_numpy`` would build
  (strides, shape, memory) and caches it; results of the elementwise fast set-up match torch's geometry;
- TensorIterator: the one-pass fast set-up (tensors and Python numbers) agrees with torch, and inputs it
  must refuse (mixed dtypes, shapes, layouts) still reach the general path;
- recording: ``record.edges`` / ``record.output`` do the common cases of ``gradient_edge`` / ``set_history``
  inline: leaves, non-leaves and views as inputs, the dtype check, anomaly mode's forward traceback;
- binary operators: the generated ``_<name>_operator`` functions behave as the methods behind them, and
  return NotImplemented for operands the number protocol refuses;
- dispatch reads each thread's own include/exclude sets (autocast in one thread leaves the others alone).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch
from oracle import assert_same

import glasstorch as gt
from glasstorch._core import dtype as _dt
from glasstorch._core.device import CPU
from glasstorch._generated import methods as gmeth
from glasstorch._tensor.impl import TensorImpl, empty_contiguous_numpy
from glasstorch.autograd.graph import NodeBase, collect_next_edges
from glasstorch.autograd.node_support import record


# -- output allocation ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("sizes", [(1,), (), (2, 3), (2, 1, 3), (0, 3), (3, 0, 1), (1, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bool", "complex64", "int8", "bfloat16"])
def test_fresh_output_view_is_as_numpys(sizes, dtype):
    dt = getattr(_dt, dtype)
    impl, arr = empty_contiguous_numpy(sizes, dt, CPU)
    assert impl.as_numpy() is arr and impl.is_contiguous()
    general = TensorImpl(impl.storage, impl.sizes, impl.strides, 0, dt, CPU)  # as_numpy's own construction
    ref = general.as_numpy()
    assert arr.shape == ref.shape == sizes and arr.dtype == ref.dtype and arr.strides == ref.strides
    if arr.size:
        assert np.shares_memory(arr, impl.storage._data)
        arr.reshape(-1).view(np.uint8)[...] = 7
        assert (ref.reshape(-1).view(np.uint8) == 7).all()


@pytest.mark.parametrize("shape", [(1,), (), (2, 1, 3), (0, 4), (3, 1)])
def test_elementwise_outputs_match_torch(shape):
    results = []
    for m in (gt, torch):
        a, b = m.ones(shape), m.full(shape, 2.0)
        results.append((a + b, m.add(a, b), a * 3, m.sub(a, b, alpha=2)))
    for g, t in zip(*results, strict=True):
        assert_same(g, t)


# -- TensorIterator's one-pass fast set-up --------------------------------------------------------------------
FAST_SETUP = [
    "x + y", "m.add(x, 2.5)", "m.add(2, x)", "xi + 2.5", "xi * 3", "xb + True", "xb * 2", "m.lerp(x, y, 0.5)",
    "m.addcmul(x, y, y, value=2)", "m.where(x > 2, x, 2.5)", "m.add(x, y, alpha=2)", "x + 1j",
    # not for the fast set-up: mixed dtypes, broadcast, strides, a 0-dim tensor among 1-d ones
    "x + xi", "x + x[:1]", "x[::2] + y[::2]", "x.view(2, 3).t() + 1", "x + m.tensor(2.0)", "xi / xi",
]


@pytest.mark.parametrize("expr", FAST_SETUP)
def test_fast_setup_agrees_with_torch(expr):
    results = []
    for m in (gt, torch):
        env = {"m": m, "x": m.arange(1.0, 7.0), "y": m.arange(2.0, 8.0), "xi": m.arange(1, 7),
               "xb": m.tensor([True, False] * 3)}
        results.append(eval(expr, env))  # noqa: S307 - fixed test expressions
    assert_same(*results)


# -- recording ------------------------------------------------------------------------------------------------
def _edges_summary(m, make):
    """``next_functions`` of a recorded add, as (node name, output_nr), for inputs made by ``make``."""
    a, b = make(m)
    out = a + b
    return [(None if fn is None else fn.name(), nr) for fn, nr in out.grad_fn.next_functions]


INPUTS = {
    "two leaves": lambda m: (m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)),
    "leaf and constant": lambda m: (m.ones(2, requires_grad=True), m.ones(2)),
    "non-leaf": lambda m: (m.ones(2, requires_grad=True) * 2, m.ones(2, requires_grad=True)),
    "view of a leaf": lambda m: (m.ones(4, requires_grad=True)[1:3], m.ones(2)),
    "view of a non-leaf": lambda m: ((m.ones(4, requires_grad=True) * 3)[::2], m.ones(2)),
    "same leaf twice": lambda m: (lambda x: (x, x))(m.ones(2, requires_grad=True)),
    "view whose base changed": lambda m: _view_then_base_written(m),
}


def _view_then_base_written(m):
    base = m.ones(4, requires_grad=True) * 1
    view = base[1:3]
    base.mul_(2)
    return view, m.ones(2)


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_record_edges_match_torch(name):
    assert _edges_summary(gt, INPUTS[name]) == _edges_summary(torch, INPUTS[name])


def test_record_edges_is_collect_next_edges():
    x = gt.ones(3, requires_grad=True)
    y = x * 2
    v = y[1:]
    y.mul_(3)  # the base written after the view was made: the view's grad_fn must be regenerated first
    impls = [x._impl, y._impl, v._impl, gt.ones(2)._impl, 2.5, None, gt.ones(4, requires_grad=True)[:2]._impl]
    edges = record.edges(*impls)  # first: it does the regeneration
    assert edges == collect_next_edges(*impls) and edges[2][0].name() != "SliceBackward0"


def test_leaf_accumulator_is_shared_while_alive_and_keeps_hooks():
    x = gt.ones(2, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    a, b = x * 2, x + 1
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]
    assert a.grad_fn.next_functions[0][0].variable is x
    del a, b
    (x + x).sum().backward()  # a new accumulator, the leaf's hook still runs
    assert seen == [[2.0, 2.0]] and x.grad.tolist() == [2.0, 2.0]


def test_record_output_sets_what_set_history_sets():
    def run(m):
        x = m.ones(2, requires_grad=True)
        y = x.sin()
        facts = (y.requires_grad, y.is_leaf, y.grad_fn.name())
        y.retain_grad()
        y.mul_(2)  # in place on an output that retains its grad (history_inplace moves the retains-grad hook)
        y.sum().backward()
        return facts, y.grad_fn.name(), y.grad.tolist(), np.round(x.grad.tolist(), 5).tolist()
    assert run(gt) == run(torch)


def test_record_output_dtype_check():
    node = NodeBase()
    out = TensorImpl(gt.ones(2, dtype=gt.int64)._impl.storage, (2,), (1,), 0, _dt.int64, CPU)
    with pytest.raises(RuntimeError, match="^Autograd not support dtype: Long$"):
        record.output(out, node)
    assert out.autograd is None and node.input_meta == []
    record.output(None, node)  # not a tensor: nothing to record, as record.history
    assert node.input_meta == []


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_record_output_under_anomaly_mode_keeps_the_forward_stack():
    x = gt.ones(2, requires_grad=True)
    with gt.autograd.detect_anomaly(check_nan=False):
        y = x.exp()  # the line the traceback must end on
    stack = y.grad_fn.metadata["traceback_"]
    # as record.history did: the stack ends in the generated kernel, the recording helpers left out
    assert "y = x.exp()" in "".join(stack) and "_autograd_exp" in stack[-1] and "node_support" not in "".join(stack)


# -- binary operators -------------------------------------------------------------------------------------------
class _Overrides(gt.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with gt._C.DisableTorchFunctionSubclass():  # else func would hand the call back here, forever
            return func(*args, **(kwargs or {}))


OPERATORS = ["x + y", "x - 2", "2 * x", "x / y", "x // 2", "x % y", "x ** 2", "xm @ xm", "x == y", "x != 2.0",
             "x < y", "x <= 1", "x > y", "x >= 2", "xi & 3", "xi | xi", "xi ^ True", "xi << 1", "xi >> 1",
             "x + np.float32(2)", "x + 2**70", "x == None", "x + 'a'", "x * [1]", "xi & 2.5"]


@pytest.mark.parametrize("expr", OPERATORS)
def test_operators_match_torch(expr):
    results = []
    for m in (gt, torch):
        env = {"np": np, "x": m.arange(1.0, 5.0), "y": m.full((4,), 2.0), "xi": m.arange(4),
               "xm": m.ones(2, 2)}
        try:
            r = eval(expr, env)  # noqa: S307 - fixed test expressions
            results.append(r.tolist() if hasattr(r, "tolist") else r)
        except (TypeError, RuntimeError, OverflowError) as e:
            results.append((type(e).__name__, str(e).splitlines()[0]))
    assert results[0] == results[1]


def test_operator_functions_are_the_installed_operators():
    assert gt.Tensor.__add__ is gmeth._add_operator and gt.Tensor.__radd__ is gmeth._add_operator
    assert gt.Tensor.__eq__ is gmeth._eq_operator
    x = gt.ones(2)
    assert gmeth._add_operator(x, object()) is NotImplemented
    assert gmeth._add_operator(x, "a") is NotImplemented


def test_operator_with_an_overriding_subclass_operand_takes_the_method():
    x, s = gt.ones(2), _Overrides([1.0, 2.0])
    assert (x + s).tolist() == [2.0, 3.0] and (s + x).tolist() == [2.0, 3.0]
    assert type(x + s) is gt.Tensor  # the override ran the plain call


# -- dispatch reads each thread's own sets ---------------------------------------------------------------------
def test_thread_local_sets_are_per_thread():
    """Autocast (an include/exclude change) in one thread leaves another thread's dispatch alone, both ways."""
    a = gt.ones(2, 2)
    seen = {}

    def other_thread():  # default sets here, while the main thread is in autocast
        seen["dtype"] = (a @ a).dtype

    with gt.autocast("cpu"):
        assert (a @ a).dtype == gt.bfloat16
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
    assert seen["dtype"] == gt.float32
    entered, release = threading.Event(), threading.Event()

    def autocast_thread():  # another thread in autocast: the main thread keeps its own (default) sets
        with gt.autocast("cpu"):
            seen["inner"] = (a @ a).dtype
            entered.set()
            release.wait(10)

    t = threading.Thread(target=autocast_thread)
    t.start()
    entered.wait(10)
    own = (a @ a).dtype
    release.set()
    t.join()
    assert own == gt.float32 and seen["inner"] == gt.bfloat16
