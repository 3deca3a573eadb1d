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

import pytest
import torch

import glasstorch as gt

sys.path.insert(0, str(Path(__file__).parent))

from opinfo import OpInfo, Sample, assert_close, assert_same_error, realize_all, run_both  # noqa: E402

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
