"""Single-operator graphs from the OpInfo database, run compiled and eagerly, and the comparison of the two.

Each OpInfo entry of ``tests/ops/op_db_*.py`` names a public function (or method) and yields samples whose tensor
arguments are specs; :func:`run_case` builds one sample's inputs twice from the same data, calls the operator
eagerly on one copy and through ``glasstorch.compile(fn, backend=...)`` on the other, where ``fn(*tensors)`` puts
the flattened tensor leaves back into the sample's argument structure (non-tensor arguments are constants of the
graph, as dynamo specialises them).  The oracle is eager glasstorch itself: the compile stack must not change
any number, dtype or shape, nor which inputs are mutated and how.

For differentiable floating samples the inputs require grad and the input gradients of both runs are compared
after ``autograd.grad`` with the same seeded random output gradients (a plain ``sum()`` would hide transposed or
broadcast mistakes in the backward graph).

Key invariant: each case starts from ``glasstorch._dynamo.reset()`` — the compiled lambdas share one code object,
and a stale cache entry of another operator must never answer.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import sys
import warnings
from pathlib import Path

import numpy as np

import glasstorch as gt

OPS_DIR = Path(__file__).resolve().parents[1] / "ops"
if str(OPS_DIR) not in sys.path:
    sys.path.insert(0, str(OPS_DIR))

from opinfo import INTS, TOL, OpInfo, Sample, T, realize_all, spec_leaves  # noqa: E402

GRAD_TOL = {"float32": (2e-5, 2e-5), "float64": (1e-7, 1e-7)}  # as test_ops' gradient tests
_SKIP_GRAD_NAMES = ("special", "nan", "inf")  # NaN/inf operands: gradients there are not the point
MAX_SAMPLES = 2


def load_op_db() -> list[OpInfo]:
    """Every entry of tests/ops/op_db_*.py, in file order (the same list test_ops.py runs)."""
    ops = []
    for mod in sorted(pkgutil.iter_modules([str(OPS_DIR)]), key=lambda m: m.name):
        if mod.name.startswith("op_db_"):
            ops += importlib.import_module(mod.name).OPS
    return ops


def is_single_op(op: OpInfo) -> bool:
    """False for the entries that are programs rather than one operator call: the property entries
    ("statistics: ...", "reproducible: ...", "in-place contract: ...", "meta: ...", "warns: ...") that read
    version counters, generators or warnings, and the "<op>.dtype cpu" entries that return the text of an
    exception caught around an operator with no CPU kernel (its meta kernel traces fine, so the error can only
    surface when the graph runs, outside the user's ``try``: not a single-op graph)."""
    return ": " not in op.name and not op.name.endswith(".dtype cpu")


KIND_DTYPES = {"float32": ("float32", "float64"), "int": (*INTS, "bool")}  # int64 first


def case_kinds(op: OpInfo) -> list[str]:
    """"float32" (float64 where the entry has no float32) and "int" (one integer dtype, int64 first), for the
    kinds the entry declares; the dtype actually used is the first of the kind whose samples run eagerly."""
    return [k for k, dts in KIND_DTYPES.items() if any(d in op.dtypes for d in dts)]


# -- the structure of one call -------------------------------------------------------------------------------
def _flatten(obj, leaves):
    """Replace every tensor in ``obj`` by its index in ``leaves`` (wrapped in _Slot)."""
    if isinstance(obj, gt.Tensor):
        leaves.append(obj)
        return _Slot(len(leaves) - 1)
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(_flatten(o, leaves) for o in obj)
    if isinstance(obj, list):
        return [_flatten(o, leaves) for o in obj]
    if isinstance(obj, dict):
        return {k: _flatten(v, leaves) for k, v in obj.items()}
    return obj


@dataclasses.dataclass(frozen=True)
class _Slot:
    index: int


def _fill(obj, tensors):
    if isinstance(obj, _Slot):
        return tensors[obj.index]
    if isinstance(obj, tuple):
        return tuple(_fill(o, tensors) for o in obj)
    if isinstance(obj, list):
        return [_fill(o, tensors) for o in obj]
    if isinstance(obj, dict):
        return {k: _fill(v, tensors) for k, v in obj.items()}
    return obj


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, (list, tuple)) else v


def _hashable(obj):
    """Specs with explicit values given as lists (``T(values=[...])``) get tuples: realize() caches by spec."""
    if isinstance(obj, T):
        return dataclasses.replace(obj, values=_tuples(obj.values)) if isinstance(obj.values, list) else obj
    if isinstance(obj, tuple):
        return tuple(_hashable(o) for o in obj)
    if isinstance(obj, list):
        return [_hashable(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _hashable(v) for k, v in obj.items()}
    return obj


class Call:
    """One sample's call: ``self(*tensors)`` runs the operator on the given tensor leaves."""

    def __init__(self, op: OpInfo, sample: Sample, dtype: str, *, requires_grad: bool):
        self.op = op
        args = realize_all(_hashable(sample.args), gt, dtype)
        kwargs = realize_all(_hashable(sample.kwargs), gt, dtype)
        self.tensors: list = []
        self.structure = _flatten((args, kwargs), self.tensors)
        self.grad_inputs = []
        if requires_grad:
            self.grad_inputs = [t for t in self.tensors if t.dtype.is_floating_point]
            for t in self.grad_inputs:
                t.requires_grad_(True)
        self.fn = op.lib_fn(gt) if op.function else None

    def __call__(self, *tensors):
        args, kwargs = _fill(self.structure, tensors)
        if self.fn is not None:
            return self.fn(*args, **kwargs)
        return getattr(args[0], self.op.method_attr)(*args[1:], **kwargs)


# -- running one sample -------------------------------------------------------------------------------------
@dataclasses.dataclass
class Result:
    out: object = None
    inputs_after: list = dataclasses.field(default_factory=list)  # detached copies after the call (mutations)
    grads: tuple | None = None
    error: BaseException | None = None


def _float_leaves(obj, out):
    if isinstance(obj, gt.Tensor):
        if obj.dtype.is_floating_point:
            out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _float_leaves(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _float_leaves(o, out)
    return out


def _grad_output(t, seed: int):
    arr = np.random.default_rng(seed).standard_normal(tuple(t.shape))
    return gt.tensor(arr.reshape(-1).tolist(), dtype=t.dtype).reshape(tuple(t.shape))


def run(op: OpInfo, sample: Sample, dtype: str, backend: str | None, *, requires_grad: bool) -> Result:
    """Run one sample eagerly (``backend=None``) or compiled; gradients when ``requires_grad``."""
    res = Result()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call = Call(op, sample, dtype, requires_grad=requires_grad)
            fn = call
            if backend is not None:
                gt._dynamo.reset()
                fn = gt.compile(lambda *tensors: call(*tensors), backend=backend)
            res.out = fn(*call.tensors)
            res.inputs_after = [t.detach().clone() for t in call.tensors]
            if requires_grad:
                diff = [o for o in _float_leaves(res.out, []) if o.requires_grad]
                if diff:
                    g_outs = [_grad_output(o, seed) for seed, o in enumerate(diff)]
                    res.grads = gt.autograd.grad(diff, call.grad_inputs, g_outs, allow_unused=True)
        except Exception as e:  # noqa: BLE001 - the caller compares errors
            res.error = e
    return res


def grad_usable(op: OpInfo, sample: Sample, dtype: str) -> bool:
    """Gradients are compared for differentiable entries on floating samples without NaN/inf or out=/inplace."""
    if not op.grad or op.random or dtype not in GRAD_TOL or op.name.split(".")[-1].endswith("_"):
        return False
    if any(w in sample.name.lower() for w in _SKIP_GRAD_NAMES):
        return False
    if sample.kwargs.get("inplace") or "out" in sample.kwargs:
        return False
    return any((s.dtype or dtype) in GRAD_TOL for s in spec_leaves((sample.args, sample.kwargs)))


def pick_samples(op: OpInfo, kind: str, limit: int = MAX_SAMPLES, skip: int = 0) -> tuple[str | None, list]:
    """(dtype, ``limit`` samples that run eagerly as (sample, eager result, with gradients?)) for the first
    dtype of ``kind`` the entry declares with a sample that runs, after skipping the first ``skip`` runnable
    ones; (None, []) when there is none.

    A sample whose eager run with gradients raises (a non-differentiable argument) is kept without gradients.
    """
    for dtype in KIND_DTYPES[kind]:
        if dtype in op.dtypes:
            picked = _pick(op, dtype, limit + skip)
            if picked:
                return dtype, picked[skip:]
    return None, []


def _pick(op: OpInfo, dtype: str, limit: int) -> list:
    picked = []
    for sample in op.samples(dtype):
        want_grad = grad_usable(op, sample, dtype)
        res = run(op, sample, dtype, None, requires_grad=want_grad)
        if res.error is not None and want_grad:
            want_grad = False
            res = run(op, sample, dtype, None, requires_grad=False)
        if res.error is None:
            picked.append((sample, res, want_grad))
            if len(picked) == limit:
                break
    return picked


# -- comparing ----------------------------------------------------------------------------------------------
def _numpy(t) -> np.ndarray:
    t = t.detach()
    try:
        return t.numpy()
    except Exception:  # noqa: BLE001 - bfloat16 and friends: through Python lists
        t = t.float() if t.dtype.is_floating_point else t
        return np.asarray(t.tolist())


def assert_same(got, want, *, rtol=None, atol=None, where="out", check_values=True):
    """Compiled result == eager result: types, structure, dtypes, shapes and (per-dtype tolerance) values."""
    if isinstance(want, gt.Tensor):
        assert isinstance(got, gt.Tensor), f"{where}: expected a Tensor, got {type(got).__name__}"
        assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != eager {want.dtype}"
        assert tuple(got.shape) == tuple(want.shape), f"{where}: shape {tuple(got.shape)} != eager {tuple(want.shape)}"
        if not check_values:
            return
        r, a = TOL.get(str(want.dtype).removeprefix("glasstorch.").removeprefix("torch."), (0, 0))
        r, a = (rtol if rtol is not None else r), (atol if atol is not None else a)
        g, w = _numpy(got), _numpy(want)
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=r, atol=a, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(g, w, err_msg=where)
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want), f"{where}: {type(got).__name__} != eager {type(want).__name__}"
        assert len(got) == len(want), f"{where}: {len(got)} results != eager {len(want)}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, rtol=rtol, atol=atol, where=f"{where}[{i}]", check_values=check_values)
    elif want is None:
        assert got is None, f"{where}: {got!r} != eager None"
    elif check_values:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != eager {want!r}"


def check_sample(op: OpInfo, sample: Sample, dtype: str, backend: str, eager: Result, with_grad: bool) -> None:
    """Compile and run ``sample``; assert it matches the eager result (outputs, mutated inputs, gradients)."""
    got = run(op, sample, dtype, backend, requires_grad=with_grad)
    where = f"{op.name} {sample!r} [{dtype}, {backend}]"
    if got.error is not None:
        raise AssertionError(f"{where}: compiled raised {type(got.error).__name__}: "
                             f"{str(got.error).splitlines()[0] if str(got.error) else ''}") from got.error
    rtol, atol = sample.rtol or op.rtol, sample.atol or op.atol
    assert_same(got.out, eager.out, rtol=rtol, atol=atol, where=f"{where} output", check_values=not op.random)
    for i, (g, w) in enumerate(zip(got.inputs_after, eager.inputs_after, strict=True)):
        assert_same(g, w, rtol=rtol, atol=atol, where=f"{where} input {i} after the call",
                    check_values=not op.random)
    if not with_grad:
        return
    assert (got.grads is None) == (eager.grads is None), f"{where}: gradients {got.grads} != eager {eager.grads}"
    if eager.grads is None:
        return
    g_rtol, g_atol = GRAD_TOL[dtype]
    for i, (g, w) in enumerate(zip(got.grads, eager.grads, strict=True)):
        if w is None:
            assert g is None or not bool((g != 0).any()), f"{where}: input {i} got a nonzero gradient, eager None"
            continue
        assert g is not None, f"{where}: input {i} got no gradient, eager's is {tuple(w.shape)}"
        assert_same(g, w, rtol=op.grad_rtol or rtol or g_rtol, atol=op.grad_atol or atol or g_atol,
                    where=f"{where} d/d input {i}")
