"""Run every OpInfo entry against torch: function, method, out= and in-place forms, and error samples.

Also checks coverage: every operator declared in ``native_functions/*.yaml`` must be covered by an
entry's ``aten`` list (or be listed in ``NOT_DIRECTLY_TESTED`` with a reason).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import glasstorch as gt

sys.path.insert(0, str(Path(__file__).parent))

from opinfo import OpInfo, Sample, T, assert_close, assert_same_error, realize_all, run_both  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "codegen"))


def _load_db() -> list:
    ops = []
    for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if mod.name.startswith("op_db_"):
            ops += importlib.import_module(mod.name).OPS
    return ops


OP_DB: list[OpInfo] = _load_db()
# Declared overloads exercised through other entries' implementation, with the reason.
NOT_DIRECTLY_TESTED: dict[str, str] = {}


def _cases():
    for op in OP_DB:
        for dtype in op.dtypes:
            yield pytest.param(op, dtype, id=f"{op.name}-{dtype}")


def _call_forms(op: OpInfo, sample: Sample, dtype: str):
    """(form name, callable(lib) -> result) for each supported calling form."""
    forms = []
    if op.function:
        forms.append(("function", lambda lib: op.lib_fn(lib)(*realize_all(sample.args, lib, dtype),
                                                             **realize_all(sample.kwargs, lib, dtype))))
    if op.method:
        def method(lib):
            args = realize_all(sample.args, lib, dtype)
            return getattr(args[0], op.method_attr)(*args[1:], **realize_all(sample.kwargs, lib, dtype))
        forms.append(("method", method))
    return forms


@pytest.mark.parametrize("op,dtype", list(_cases()))
def test_op(op: OpInfo, dtype: str):
    n = 0
    for sample in op.samples(dtype):
        n += 1
        for form, call in _call_forms(op, sample, dtype):
            _check(op, sample, f"{form} {sample!r}", lambda: call(gt), lambda: call(torch))
        if op.out and not sample.skip_out:
            _check_out(op, sample, dtype)
        if op.inplace and not sample.skip_inplace:
            _check_inplace(op, sample, dtype)
    assert n, f"{op.name} produced no samples for {dtype}"


def _check(op, sample, where, fn_gt, fn_th):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = run_both(fn_gt, fn_th)
    if isinstance(want, Exception):
        assert_same_error(got, want)
        return
    assert_close(got, want, rtol=sample.rtol or op.rtol, atol=sample.atol or op.atol, where=f"{op.name} {where}",
                 check_values=not op.random)


def _check_out(op, sample, dtype):
    """``out=``: the result is written into (and returned as) the given tensor."""
    def run(lib):
        args = realize_all(sample.args, lib, dtype)
        kwargs = realize_all(sample.kwargs, lib, dtype)
        ref = op.lib_fn(lib)(*args, **kwargs)
        outs = tuple(r.new_empty(0) for r in ref) if isinstance(ref, tuple) else ref.new_empty(0)
        res = op.lib_fn(lib)(*args, **kwargs, out=outs)
        same = all(a is b for a, b in zip(res, outs)) if isinstance(outs, tuple) else res is outs
        return res, same
    got, want = run_both(lambda: run(gt), lambda: run(torch))
    if isinstance(want, Exception):
        assert_same_error(got, want)
        return
    assert got[1], f"{op.name} out= {sample!r}: the returned tensor is not the out tensor"
    assert_close(got[0], want[0], rtol=sample.rtol or op.rtol, atol=sample.atol or op.atol,
                 where=f"{op.name} out= {sample!r}", check_values=not op.random)


def _check_inplace(op, sample, dtype):
    """``x.op_(...)``: same values as torch (or the same error), result is ``x``, version bumped."""
    def run(lib):
        args = realize_all(sample.args, lib, dtype)
        x = args[0]
        v = x._version
        res = getattr(x, op.method_attr + "_")(*args[1:], **realize_all(sample.kwargs, lib, dtype))
        return res, res is x, x._version > v
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = run_both(lambda: run(gt), lambda: run(torch))
    if isinstance(want, Exception):
        assert_same_error(got, want)
        return
    assert got[1], f"{op.name}_ {sample!r}: in-place result is not self"
    assert got[2], f"{op.name}_ {sample!r}: version counter not bumped"
    assert_close(got[0], want[0], rtol=sample.rtol or op.rtol, atol=sample.atol or op.atol,
                 where=f"{op.name}_ {sample!r}", check_values=not op.random)


@pytest.mark.parametrize("op", [o for o in OP_DB if o.errors], ids=lambda o: o.name)
def test_op_errors(op: OpInfo):
    for es in op.errors():
        def call(lib, es=es):
            args = realize_all(es.args, lib, "float32")
            kwargs = realize_all(es.kwargs, lib, "float32")
            if es.form == "method":
                return getattr(args[0], op.method_attr)(*args[1:], **kwargs)
            if es.form == "inplace":
                return getattr(args[0], op.method_attr + "_")(*args[1:], **kwargs)
            return op.lib_fn(lib)(*args, **kwargs)
        got, want = run_both(lambda: call(gt), lambda: call(torch))
        assert isinstance(want, Exception), f"{op.name} {es.name}: torch did not raise"
        assert_same_error(got, want, es.check_message)


def test_every_declared_op_has_an_entry():
    from model import load_native_functions

    covered = {a for op in OP_DB for a in op.aten}
    declared = {f.name for f in load_native_functions()}
    missing = sorted(declared - covered - set(NOT_DIRECTLY_TESTED))
    assert not missing, f"operators without an OpInfo entry: {missing}"
    unknown = sorted(covered - declared)
    assert not unknown, f"OpInfo entries name undeclared overloads: {unknown}"


# -- gradients -----------------------------------------------------------------------------------------------
# Every differentiable entry: the floating tensor inputs require grad in both libraries (same values), the
# function form runs, every floating output that requires grad gets the same seeded random grad_output, and
# autograd.grad(..., allow_unused=True) must give torch's input gradients (None where torch gives None).
GRAD_DTYPES = ("float32", "float64")
GRAD_TOL = {"float32": (2e-5, 2e-5), "float64": (1e-7, 1e-7)}
MAX_GRAD_SAMPLES = 3
_SKIP_GRAD_NAMES = ("special", "nan", "inf")  # NaN/inf operands: gradients there are not the point


def _spec_leaves(obj, out):
    if isinstance(obj, T):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _spec_leaves(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _spec_leaves(o, out)
    return out


def _grad_usable(sample: Sample, dtype: str) -> bool:
    if any(w in sample.name.lower() for w in _SKIP_GRAD_NAMES):
        return False
    if sample.kwargs.get("inplace") or "out" in sample.kwargs:
        return False
    return any((s.dtype or dtype) in ("float32", "float64") for s in _spec_leaves((sample.args, sample.kwargs), []))


def _numel(spec: T) -> int:
    n = 1
    for s in spec.shape:
        n *= s
    return n


def grad_samples(op: OpInfo, dtype: str) -> list:
    """The samples the gradient tests use: ``op.grad_samples``, or up to 3 spread over the usable ones."""
    if op.grad_samples is not None:
        return list(op.grad_samples(dtype))
    usable = [s for s in op.samples(dtype) if _grad_usable(s, dtype)]
    full = [s for s in usable if all(_numel(t) for t in _spec_leaves((s.args, s.kwargs), []))]
    pool = full or usable
    picks = sorted({0, len(pool) // 2, len(pool) - 1}) if pool else []
    return [pool[i] for i in picks][:MAX_GRAD_SAMPLES]


def _float_tensors(obj, lib, out):
    if isinstance(obj, lib.Tensor):
        if obj.dtype.is_floating_point:
            out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _float_tensors(o, lib, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _float_tensors(o, lib, out)
    return out


def _grad_output(shape, dtype, lib, seed):
    arr = np.random.default_rng(seed).standard_normal(tuple(shape))
    return lib.tensor(arr.reshape(-1).tolist(), dtype=dtype).reshape(tuple(shape))


def _call(op: OpInfo, lib, args, kwargs):
    if op.function:
        return op.lib_fn(lib)(*args, **kwargs)
    return getattr(args[0], op.method_attr)(*args[1:], **kwargs)


def _run_grad(op: OpInfo, sample: Sample, dtype: str, lib):
    """(which outputs require grad, their grad_fn names, the input gradients) for one library."""
    args = realize_all(sample.args, lib, dtype)
    kwargs = realize_all(sample.kwargs, lib, dtype)
    inputs = _float_tensors((args, kwargs), lib, [])
    for t in inputs:
        t.requires_grad_(True)
    out = _call(op, lib, args, kwargs)
    flat = [o for o in _float_tensors(out, lib, [])]
    diff = [o for o in flat if o.requires_grad]
    names = [type(o.grad_fn).__name__ if o.grad_fn is not None else None for o in diff]
    if not diff:
        return [o.requires_grad for o in flat], names, None
    g_outs = [_grad_output(o.shape, o.dtype, lib, seed) for seed, o in enumerate(diff)]
    grads = lib.autograd.grad(diff, inputs, g_outs, allow_unused=True)
    return [o.requires_grad for o in flat], names, grads


def _grad_cases():
    for op in OP_DB:
        if not op.grad or op.random or not any(d in GRAD_DTYPES for d in op.dtypes):
            continue
        if op.name.endswith("_") or op.name.split(".")[-1].endswith("_"):
            continue  # the function form mutates its input: a leaf that requires grad cannot be modified
        for dtype in GRAD_DTYPES:
            if dtype in op.dtypes:
                yield pytest.param(op, dtype, id=f"{op.name}-{dtype}")


def _generated_node_ops() -> dict:
    """Generated Node class name -> the overload whose formula it runs."""
    from gen_autograd import load_derivatives
    from model import load_native_functions

    return {e["node"]: e["f"].name for e in load_derivatives(load_native_functions())}


_NODE_OPS: dict | None = None


@pytest.mark.parametrize("op,dtype", list(_grad_cases()))
def test_op_grad(op: OpInfo, dtype: str):
    global _NODE_OPS
    if _NODE_OPS is None:
        _NODE_OPS = _generated_node_ops()
    samples = grad_samples(op, dtype)
    if not samples:
        pytest.skip("no sample with a floating input")
    rtol, atol = GRAD_TOL[dtype]
    for sample in samples:
        where = f"{op.name} grad {sample!r}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, want = run_both(lambda s=sample: _run_grad(op, s, dtype, gt),
                                 lambda s=sample: _run_grad(op, s, dtype, torch))
        if isinstance(want, Exception):
            assert_same_error(got, want, check_message=False)
            continue
        assert got[0] == want[0], f"{where}: outputs requiring grad {got[0]} != torch {want[0]}"
        for g_name, t_name in zip(got[1], want[1], strict=False):
            if _NODE_OPS.get(g_name) in op.aten:  # our own formula ran: it must carry torch's node name
                assert g_name == t_name, f"{where}: grad_fn {g_name} != torch {t_name}"
        if want[2] is None:
            continue
        for i, (g, w) in enumerate(zip(got[2], want[2], strict=True)):
            if w is None:
                assert g is None, f"{where}: input {i} got a gradient, torch's is None"
                continue
            assert g is not None, f"{where}: input {i} got no gradient, torch's is {tuple(w.shape)}"
            assert_close(g, w, rtol=op.grad_rtol or sample.rtol or rtol, atol=op.grad_atol or sample.atol or atol,
                         where=f"{where} d/d input {i}")


def _gradcheck_cases():
    for op in OP_DB:
        if op.grad and op.gradcheck and not op.random and "float64" in op.dtypes and not op.name.endswith("_"):
            yield pytest.param(op, id=op.name)


@pytest.mark.parametrize("op", list(_gradcheck_cases()))
def test_op_gradcheck(op: OpInfo):
    """glasstorch.autograd.gradcheck (finite differences vs our backward) in float64 on small samples."""
    gradcheck = getattr(gt.autograd, "gradcheck", None)
    if gradcheck is None:
        pytest.skip("glasstorch.autograd.gradcheck does not exist yet")
    samples = [s for s in grad_samples(op, "float64")
               if sum(_numel(t) for t in _spec_leaves((s.args, s.kwargs), [])) <= 64][:2]
    if not samples:
        pytest.skip("no small sample with a floating input")
    for sample in samples:
        args = realize_all(sample.args, gt, "float64")
        kwargs = realize_all(sample.kwargs, gt, "float64")
        inputs = _float_tensors((args, kwargs), gt, [])
        if not inputs:
            continue
        for t in inputs:
            t.requires_grad_(True)
        probe = _float_tensors(_call(op, gt, args, kwargs), gt, [])
        if not any(o.requires_grad for o in probe):
            continue

        def fn(*xs, args=args, kwargs=kwargs, inputs=inputs):
            ids = {id(t): x for t, x in zip(inputs, xs, strict=True)}
            a, k = _substitute((args, kwargs), ids)
            outs = _float_tensors(_call(op, gt, a, k), gt, [])
            return tuple(o for o in outs if o.requires_grad)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert gradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-5, rtol=1e-3), f"{op.name} {sample!r}"


def _substitute(obj, ids):
    if id(obj) in ids:
        return ids[id(obj)]
    if isinstance(obj, tuple):
        return tuple(_substitute(o, ids) for o in obj)
    if isinstance(obj, list):
        return [_substitute(o, ids) for o in obj]
    if isinstance(obj, dict):
        return {k: _substitute(v, ids) for k, v in obj.items()}
    return obj
