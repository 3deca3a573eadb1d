"""Run every OpInfo entry against torch: function, method, out= and in-place forms, and error samples.

Gradients (the second half): ``test_op_grad`` compares input gradients with torch's on up to 3 samples per
entry (float32 and float64), ``test_op_grad_inplace`` the in-place forms on a non-leaf, ``test_op_double_grad``
second derivatives (create_graph) on one float64 sample, ``test_op_gradcheck`` runs glasstorch's own
finite-difference gradcheck, and ``test_node_names_match_torch`` checks the generated Node class names.

Also checks coverage: every operator declared in ``native_functions/*.yaml`` must be covered by an
entry's ``aten`` list (or be listed in ``NOT_DIRECTLY_TESTED`` with a reason).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

import glasstorch as gt

sys.path.insert(0, str(Path(__file__).parent))

from opinfo import ALL_FLOAT, OpInfo, Sample, T, assert_close, assert_same_error, realize_all, run_both, spec_leaves  # noqa: E402

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
NOT_DIRECTLY_TESTED: dict[str, str] = {
    "set_.source_Storage": "a storage argument is built per library: tests/test_tensor_api.py::test_tensor_set_*",
    "set_.source_Storage_storage_offset": "as set_.source_Storage",
    "_make_dual": "needs a forward-AD level: tests/test_forward_ad.py (make_dual)",
    "_fw_primal": "needs a dual tensor: tests/test_forward_ad.py (unpack_dual's primal)",
    "_unpack_dual": "needs a dual tensor: tests/test_forward_ad.py (unpack_dual)",
}
# linalg's out= overloads whose entries condition their inputs in a wrapper: compared against torch (the same call,
# out= written and returned) in tests/test_linalg_conformance.py::test_out_overloads
NOT_DIRECTLY_TESTED.update(dict.fromkeys((
    "linalg_cond.out", "linalg_cond.p_str_out", "linalg_eigvals.out", "linalg_ldl_factor.out",
    "linalg_matrix_rank.atol_rtol_float_out", "linalg_matrix_rank.atol_rtol_tensor_out", "linalg_matrix_rank.out",
    "linalg_matrix_rank.out_tol_tensor", "linalg_pinv.atol_rtol_float_out", "linalg_pinv.atol_rtol_tensor_out",
    "linalg_pinv.out", "linalg_pinv.out_rcond_tensor", "linalg_tensorinv.out", "linalg_tensorsolve.out"),
    "tests/test_linalg_conformance.py::test_out_overloads"))
# grid sampling (composites over gather): every mode, padding and align_corners, values, both gradients and the
# error texts against torch in tests/nn/test_grid_sample.py
NOT_DIRECTLY_TESTED.update(dict.fromkeys(("grid_sampler", "grid_sampler_2d", "grid_sampler_3d"),
                                         "tests/nn/test_grid_sample.py"))
# foreach maximum/minimum: values, tie gradients, in-place returns and node attributes against torch
NOT_DIRECTLY_TESTED.update(dict.fromkeys(
    [f"_foreach_{m}{ip}.{o}" for m in ("maximum", "minimum") for ip in ("", "_")
     for o in ("Scalar", "List", "ScalarList")],
    "tests/autograd/test_node_saved_attrs.py"))
# the random factories as operators: their streams bit for bit against torch's in tests/test_random_streams.py, and
# what a dispatch mode sees of them (and of backward's ones_like seed) in tests/autograd/test_mode_sees_factories.py
NOT_DIRECTLY_TESTED.update(dict.fromkeys((
    "rand", "rand.generator", "randn", "randn.generator", "randint", "randint.generator", "randint.low",
    "randint.low_generator", "randperm", "randperm.generator", "ones_like"),
    "tests/test_random_streams.py, tests/autograd/test_mode_sees_factories.py"))
# hash_tensor (values, out=, meta, errors) and bilinear through _trilinear (bit-exact half gradients) against torch
NOT_DIRECTLY_TESTED.update(dict.fromkeys(("hash_tensor", "hash_tensor.out"), "tests/ops/test_hash_tensor.py"))
NOT_DIRECTLY_TESTED.update(dict.fromkeys(("_trilinear", "bilinear"), "tests/ops/test_bilinear_trilinear.py"))
# fractional max pools (random windows from _random_samples), CTC loss and antialiased bilinear: values, indices,
# gradients, out= overloads and error texts against torch in their own files
NOT_DIRECTLY_TESTED.update(dict.fromkeys((
    "fractional_max_pool2d", "fractional_max_pool2d.output", "fractional_max_pool2d_backward",
    "fractional_max_pool2d_backward.grad_input", "fractional_max_pool3d", "fractional_max_pool3d.output",
    "fractional_max_pool3d_backward", "fractional_max_pool3d_backward.grad_input"),
    "tests/nn/test_fractional_max_pool.py"))
NOT_DIRECTLY_TESTED.update(dict.fromkeys((
    "ctc_loss.IntList", "ctc_loss.Tensor", "_ctc_loss", "_ctc_loss.Tensor", "_ctc_loss_backward",
    "_ctc_loss_backward.Tensor"), "tests/nn/test_ctc_loss.py"))
NOT_DIRECTLY_TESTED.update(dict.fromkeys((
    "_upsample_bilinear2d_aa", "_upsample_bilinear2d_aa.vec", "_upsample_bilinear2d_aa_backward"),
    "tests/nn/test_resample_aa.py"))
# the multi-layer recurrent loops and the fused LSTM cell (CUDA-only in torch, so no CPU oracle): outputs, states and
# every gradient against torch's nn.RNN/LSTM/GRU per configuration, and the fused cell against torch's pointwise
# LSTM maths with a gradcheck, in tests/nn/test_rnn.py
NOT_DIRECTLY_TESTED.update(dict.fromkeys((
    "lstm.input", "lstm.data", "gru.input", "gru.data", "rnn_tanh.input", "rnn_tanh.data", "rnn_relu.input",
    "rnn_relu.data", "_thnn_fused_lstm_cell", "_thnn_fused_lstm_cell_backward_impl"), "tests/nn/test_rnn.py"))
# The sparse-layout operators take or return sparse tensors, which the OpInfo comparison does not read: they are
# compared part by part (indices, values, flags, repr) and through autograd in tests/test_sparse.py and
# tests/test_autograd_sparse.py.
NOT_DIRECTLY_TESTED.update(dict.fromkeys((
    "_coalesce", "_coalesced_", "_indices", "_nnz", "_sparse_addmm", "_sparse_compressed_tensor_unsafe",
    "_sparse_coo_tensor_with_dims_and_tensors", "_sparse_mm", "_sparse_sparse_matmul", "_to_dense", "_to_sparse",
    "_to_sparse.sparse_dim", "_to_sparse_bsc", "_to_sparse_bsr", "_to_sparse_csc", "_to_sparse_csr", "_values",
    "ccol_indices", "coalesce", "col_indices", "crow_indices", "dense_dim", "indices", "is_coalesced", "row_indices",
    "sparse_dim", "sparse_mask", "to_dense", "to_sparse", "to_sparse.sparse_dim", "to_sparse_bsc", "to_sparse_bsr",
    "to_sparse_csc", "to_sparse_csr", "values",
), "sparse layouts: tests/test_sparse.py, tests/test_autograd_sparse.py"))


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
            _check(op, sample, f"{form} {sample!r}", lambda c=call: c(gt), lambda c=call: c(torch))
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
        same = all(a is b for a, b in zip(res, outs, strict=False)) if isinstance(outs, tuple) else res is outs
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


def test_harness_explicit_values_and_construction_errors():
    """Explicit nested values build the same tensor in both libraries (signed zeros and NaN kept), and an input
    that neither library can build fails the comparison instead of counting as the same error."""
    spec = T((2, 3), values=[[0.0, -0.0, float("nan")], [1.5, -2.0, 3.0]])
    a, b = realize_all((spec,), gt, "float64")[0], realize_all((spec,), torch, "float64")[0]
    assert_close(a, b)
    assert [str(x) for x in a.tolist()[0]] == ["0.0", "-0.0", "nan"]
    bad = T((2,), values=[-1.0, 300.0])  # out of range for uint8 in both libraries
    with pytest.raises(AssertionError, match="harness error"):
        run_both(lambda: realize_all(bad, gt, "uint8"), lambda: realize_all(bad, torch, "uint8"))


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
_NONDIFF = "is not differentiable with respect to argument"
# (entry, sample) pairs where torch's gradient is no oracle, with the reason
GRAD_SKIP = {("reflection_pad3d", "(1, 2, 3, 4) (-2, -2, 0, 0, 0, 0)"):
             "torch returns uninitialized memory as the gradient of a negative reflection padding"}
# (entry, sample) -> (rtol, atol) where float32 rounding dominates: x ~ 100 normalized in float32 leaves torch's own
# gradient ~1e-4 away from the float64 one, and ours as far on the other side
GRAD_TOL_OVERRIDE = {("native_layer_norm", "large mean"): (1e-3, 1e-3),
                     ("nn.functional.layer_norm", "large mean"): (1e-3, 1e-3)}
# torch's own backward fails on these (e.g. group_norm with bias but no weight): no oracle for that sample
_TORCH_GRAD_BUGS = ("tensor does not have a device",)


def _float_specs(sample: Sample, dtype: str) -> list:
    return [s for s in spec_leaves((sample.args, sample.kwargs), []) if (s.dtype or dtype) in ALL_FLOAT]


def _grad_usable(sample: Sample, dtype: str) -> bool:
    if any(w in sample.name.lower() for w in _SKIP_GRAD_NAMES):
        return False
    if sample.kwargs.get("inplace") or "out" in sample.kwargs:
        return False
    return bool(_float_specs(sample, dtype))


def _numel(spec: T) -> int:
    n = 1
    for s in spec.shape:
        n *= s
    return n


def grad_samples(op: OpInfo, dtype: str) -> list:
    """The samples the gradient tests use: ``op.grad_samples``, or up to 3 spread over the usable ones
    (non-empty ones first)."""
    if op.grad_samples is not None:
        return list(op.grad_samples(dtype))
    usable = [s for s in op.samples(dtype) if _grad_usable(s, dtype)]
    full = [s for s in usable if all(_numel(t) for t in spec_leaves((s.args, s.kwargs), []))]
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


def _run_grad(op: OpInfo, sample: Sample, dtype: str, lib, skip=frozenset()):
    """(which floating outputs require grad, the input gradients) for one library; the floating inputs
    whose position is in ``skip`` do not require grad."""
    args = realize_all(sample.args, lib, dtype)
    kwargs = realize_all(sample.kwargs, lib, dtype)
    inputs = [t for i, t in enumerate(_float_tensors((args, kwargs), lib, [])) if i not in skip]
    for t in inputs:
        t.requires_grad_(True)
    out = _call(op, lib, args, kwargs)
    flat = _float_tensors(out, lib, [])
    diff = [o for o in flat if o.requires_grad]
    if not diff or not inputs:
        return [o.requires_grad for o in flat], None
    g_outs = [_grad_output(o.shape, o.dtype, lib, seed) for seed, o in enumerate(diff)]
    return [o.requires_grad for o in flat], lib.autograd.grad(diff, inputs, g_outs, allow_unused=True)


def _torch_differentiable_inputs(op, sample, dtype, n):
    """The positions of the floating inputs torch refuses to differentiate ("not differentiable with respect
    to argument ..."), found by dropping inputs one at a time."""
    skip: set = set()
    while True:
        try:
            _run_grad(op, sample, dtype, torch, frozenset(skip))
            return frozenset(skip)
        except RuntimeError as e:
            if _NONDIFF not in str(e):
                return frozenset(skip)
            msg = str(e)
        for i in range(n):
            if i in skip:
                continue
            try:
                _run_grad(op, sample, dtype, torch, frozenset(skip | {i}))
                skip.add(i)
                break
            except RuntimeError as e:
                if str(e) != msg:
                    skip.add(i)
                    break
        else:
            return frozenset(skip)


@dataclasses.dataclass
class GradOpInfo(OpInfo):
    """A gradient-only entry (views and indexing forms with no OpInfo of their own): ``fn(lib)`` is the callable."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib) if self.fn is not None else super().lib_fn(lib)


def _grad_entry(name, *samples, fn=None, method=False):
    def make(dtype, samples=samples):
        return [Sample(tuple(args), dict(kwargs), name=f"{name} {i}") for i, (args, kwargs) in enumerate(samples)]
    return GradOpInfo(name, aten=(), samples=make, dtypes=GRAD_DTYPES, function=not method, method=method, fn=fn)


_IDX = T((4,), dtype="int64", low=-3, high=3, seed=3)
GRAD_OPS = [  # indexing forms (views and copies have their own entries in op_db_views.py)
    _grad_entry("getitem step", ((T((7, 4)),), {}), fn=lambda lib: lambda x: x[1:6:2, 1:]),
    _grad_entry("getitem int/None/ellipsis", ((T((3, 4, 5)),), {}), fn=lambda lib: lambda x: x[1, ..., None, 2:]),
    _grad_entry("getitem tensor index", ((T((5, 3)), _IDX), {}), ((T((4, 5)), _IDX), {}),
                fn=lambda lib: lambda x, i: x[:, i] if x.shape[0] == 4 else x[i]),
    _grad_entry("getitem bool mask", ((T((3, 4)), T((3, 4), dtype="bool", seed=4)), {}),
                fn=lambda lib: lambda x, m: x[m]),
]


def _grad_cases():
    for op in OP_DB + GRAD_OPS:
        if not op.grad or op.random or not any(d in GRAD_DTYPES for d in op.dtypes):
            continue
        if op.name.split(".")[-1].endswith("_"):
            continue  # the function form mutates its input: a leaf that requires grad cannot be modified
        for dtype in GRAD_DTYPES:
            if dtype in op.dtypes:
                yield pytest.param(op, dtype, id=f"{op.name}-{dtype}")


@pytest.mark.parametrize("op,dtype", list(_grad_cases()))
def test_op_grad(op: OpInfo, dtype: str):
    samples = grad_samples(op, dtype)
    if not samples:
        pytest.skip("no sample with a floating input")
    accepted = []  # PyTorch refuses requires_grad on a non-differentiable argument; glasstorch accepted it
    for sample in samples:
        if (op.name, sample.name) in GRAD_SKIP:
            continue
        rtol, atol = GRAD_TOL_OVERRIDE.get((op.name, sample.name), GRAD_TOL[dtype])
        where = f"{op.name} grad {sample!r}"
        skip = frozenset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                _run_grad(op, sample, dtype, torch)
            except Exception as e:  # noqa: BLE001 - the oracle's error decides what is compared
                if any(bug in str(e) for bug in _TORCH_GRAD_BUGS):
                    continue
                if _NONDIFF in str(e):
                    try:
                        _run_grad(op, sample, dtype, gt)
                        accepted.append(f"{where}: {e}")
                    except Exception:  # noqa: BLE001, S110 - rejected too: as it should
                        pass
                    skip = _torch_differentiable_inputs(op, sample, dtype, len(_float_specs(sample, dtype)))
            got, want = run_both(lambda s=sample, k=skip: _run_grad(op, s, dtype, gt, k),
                                 lambda s=sample, k=skip: _run_grad(op, s, dtype, torch, k))
        if isinstance(want, Exception):
            assert_same_error(got, want, check_message=False)
            continue
        assert got[0] == want[0], f"{where}: outputs requiring grad {got[0]} != torch {want[0]}"
        if want[1] is None:
            continue
        for i, (g, w) in enumerate(zip(got[1], want[1], strict=True)):
            if w is None:
                assert g is None, f"{where}: input {i} got a gradient, torch's is None"
                continue
            assert g is not None, f"{where}: input {i} got no gradient, torch's is {tuple(w.shape)}"
            if w._is_zerotensor():  # torch's efficient zeros (sgn, ...) have no storage to compare
                w = torch.zeros(w.shape, dtype=w.dtype)
            if (op.name, sample.name) in GRAD_TOL_OVERRIDE:
                assert_close(g, w, rtol=rtol, atol=atol, where=f"{where} d/d input {i}")
                continue
            assert_close(g, w, rtol=op.grad_rtol or sample.rtol or rtol, atol=op.grad_atol or sample.atol or atol,
                         where=f"{where} d/d input {i}")
    assert not accepted, "glasstorch lets a non-differentiable argument require grad:\n" + "\n".join(accepted)


def _run_grad_inplace(op: OpInfo, sample: Sample, dtype: str, lib, skip=frozenset()):
    """The in-place form on a non-leaf copy of ``self``: ``y = self * 1; y.op_(...)``; gradients as _run_grad."""
    args = realize_all(sample.args, lib, dtype)
    kwargs = realize_all(sample.kwargs, lib, dtype)
    inputs = [t for i, t in enumerate(_float_tensors((args, kwargs), lib, [])) if i not in skip]
    for t in inputs:
        t.requires_grad_(True)
    y = args[0] * 1
    out = getattr(y, op.method_attr + "_")(*args[1:], **kwargs)
    assert out is y
    if not y.requires_grad or not inputs:
        return [y.requires_grad], None
    g_out = _grad_output(y.shape, y.dtype, lib, 0)
    return [True], lib.autograd.grad([y], inputs, [g_out], allow_unused=True)


def _inplace_grad_cases():
    for p in _grad_cases():
        op, dtype = p.values
        if op.inplace and op.method:
            yield p


@pytest.mark.parametrize("op,dtype", list(_inplace_grad_cases()))
def test_op_grad_inplace(op: OpInfo, dtype: str):
    """In-place forms record the functional formula (on a non-leaf, with ``self`` saved before the write)."""
    rtol, atol = GRAD_TOL[dtype]
    for sample in grad_samples(op, dtype):
        if sample.skip_inplace or (op.name, sample.name) in GRAD_SKIP or not isinstance(sample.args[0], T):
            continue
        where = f"{op.name}_ grad {sample!r}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                skip = _torch_differentiable_inputs(op, sample, dtype, len(_float_specs(sample, dtype)))
            except Exception:  # noqa: BLE001 - the function form's business
                skip = frozenset()
            try:
                _run_grad_inplace(op, sample, dtype, torch, skip)
            except NotImplementedError as e:
                if "inplace version of" in str(e):
                    continue  # PyTorch has no formula for asinh_/acosh_/atanh_; glasstorch reuses the functional one
            except Exception:  # noqa: BLE001, S110 - compared below
                pass
            got, want = run_both(lambda s=sample, k=skip: _run_grad_inplace(op, s, dtype, gt, k),
                                 lambda s=sample, k=skip: _run_grad_inplace(op, s, dtype, torch, k))
        if isinstance(want, Exception):
            assert_same_error(got, want, check_message=False)
            continue
        assert got[0] == want[0], f"{where}: result requires grad {got[0]} != torch {want[0]}"
        if want[1] is None:
            continue
        for i, (g, w) in enumerate(zip(got[1], want[1], strict=True)):
            if w is None:
                assert g is None, f"{where}: input {i} got a gradient, torch's is None"
                continue
            assert g is not None, f"{where}: input {i} got no gradient, torch's is {tuple(w.shape)}"
            if w._is_zerotensor():
                w = torch.zeros(w.shape, dtype=w.dtype)
            assert_close(g, w, rtol=op.grad_rtol or sample.rtol or rtol, atol=op.grad_atol or sample.atol or atol,
                         where=f"{where} d/d input {i}")


def _run_double_grad(op: OpInfo, sample: Sample, lib, skip, which):
    """Second derivatives: d/d inputs of sum(v_i * g_i) over the first-order gradients g_i listed in ``which``
    (all that require grad when None); returns (which, the gradients)."""
    args = realize_all(sample.args, lib, "float64")
    kwargs = realize_all(sample.kwargs, lib, "float64")
    inputs = [t for i, t in enumerate(_float_tensors((args, kwargs), lib, [])) if i not in skip]
    for t in inputs:
        t.requires_grad_(True)
    diff = [o for o in _float_tensors(_call(op, lib, args, kwargs), lib, []) if o.requires_grad]
    if not diff:
        return which, None
    g_outs = [_grad_output(o.shape, o.dtype, lib, seed) for seed, o in enumerate(diff)]
    first = lib.autograd.grad(diff, inputs, g_outs, create_graph=True, allow_unused=True)
    if which is None:
        which = [i for i, g in enumerate(first) if g is not None and g.requires_grad]
    pairs = [(first[i], _grad_output(first[i].shape, first[i].dtype, lib, 100 + i)) for i in which
             if first[i] is not None and first[i].requires_grad]
    if not pairs:
        return which, [None] * len(inputs)
    return which, lib.autograd.grad([g for g, _ in pairs], inputs, [v for _, v in pairs], allow_unused=True)


@pytest.mark.parametrize("op", [pytest.param(p.values[0], id=p.id.removesuffix("-float64"))
                                for p in _grad_cases() if p.values[1] == "float64"])
def test_op_double_grad(op: OpInfo):
    """Double backward (create_graph=True, then a vector-Jacobian product of the gradients) against torch, on
    one sample per entry: the formulas are built from differentiable operators."""
    samples = [s for s in grad_samples(op, "float64") if (op.name, s.name) not in GRAD_SKIP][:1]
    for sample in samples:
        where = f"{op.name} double grad {sample!r}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                skip = _torch_differentiable_inputs(op, sample, "float64", len(_float_specs(sample, "float64")))
                which, want = _run_double_grad(op, sample, torch, skip, None)
            except Exception:  # noqa: BLE001 - torch cannot (not implemented there): nothing to compare
                continue
            if want is None or not which:
                continue
            _, got = _run_double_grad(op, sample, gt, skip, which)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            if w is not None and w._is_zerotensor():
                w = None
            if g is None or w is None:
                other = w if g is None else g
                assert other is None or not bool(other.detach().ne(0).any()), \
                    f"{where}: input {i}: second derivative {g} != torch {w}"
                continue
            assert_close(g, w, rtol=op.grad_rtol or 1e-7, atol=op.grad_atol or 1e-7, where=f"{where} input {i}")


def _gradcheck_cases():
    for op in OP_DB + GRAD_OPS:
        if op.grad and op.gradcheck and not op.random and "float64" in op.dtypes \
                and not op.name.split(".")[-1].endswith("_"):
            yield pytest.param(op, id=op.name)


# (entry, sample) pairs whose gradient is not the derivative on purpose
GRADCHECK_SKIP = {("embedding", "padding_idx, scale_grad_by_freq"): "scale_grad_by_freq scales the gradient"}


def _gradcheck_sample(sample: Sample) -> bool:
    """Small samples of plain random values (explicit values sit on ties and kinks on purpose)."""
    specs = _float_specs(sample, "float64")
    return sum(_numel(t) for t in specs) <= 64 and all(
        t.values is None and t.layout != "expanded" and (t.dtype or "float64") == "float64" for t in specs)


@pytest.mark.parametrize("op", list(_gradcheck_cases()))
def test_op_gradcheck(op: OpInfo):
    """glasstorch.autograd.gradcheck (finite differences against our backward) in float64, small samples."""
    gradcheck = getattr(gt.autograd, "gradcheck", None)
    if gradcheck is None:
        pytest.skip("glasstorch.autograd.gradcheck does not exist yet")
    checked = 0
    samples = [s for s in grad_samples(op, "float64")
               if _gradcheck_sample(s) and (op.name, s.name) not in GRADCHECK_SKIP]
    for sample in samples[:2]:
        try:
            skip = _torch_differentiable_inputs(op, sample, "float64", len(_float_specs(sample, "float64")))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, want = _run_grad(op, sample, "float64", torch, skip)
            if want is None or not all(w is None or bool(w.isfinite().all()) for w in want):
                continue  # no gradient, or one torch cannot compute (not implemented) or that is not finite
            args = realize_all(sample.args, gt, "float64")
            kwargs = realize_all(sample.kwargs, gt, "float64")
            inputs = [t for i, t in enumerate(_float_tensors((args, kwargs), gt, [])) if i not in skip]
            for t in inputs:
                t.requires_grad_(True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                probe = _float_tensors(_call(op, gt, args, kwargs), gt, [])
        except Exception:  # noqa: BLE001 - forward failures are test_op's business
            continue
        if not inputs or not any(o.requires_grad for o in probe):
            continue

        def fn(*xs, args=args, kwargs=kwargs, inputs=inputs):
            ids = {id(t): x for t, x in zip(inputs, xs, strict=True)}
            a, k = _substitute((args, kwargs), ids)
            outs = _float_tensors(_call(op, gt, a, k), gt, [])
            return tuple(o for o in outs if o.requires_grad)  # views of the inputs too: gradcheck copies them

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert gradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-5, rtol=1e-3), f"{op.name} {sample!r}"
        checked += 1
    if not checked:
        pytest.skip("no small differentiable sample")


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


def _torch_node_names() -> dict:
    """'op.overload' -> the Node class name PyTorch generates, from torch's packaged derivatives.yaml: the
    CamelCase op name ('_foo2d_forward' -> 'Foo2DBackward') numbered per name in file order."""
    import yaml

    path = Path(torch.__file__).parent.parent / "torchgen" / "packaged" / "autograd" / "derivatives.yaml"
    if not path.exists():
        pytest.skip("torch's derivatives.yaml is not installed")
    counts: dict = {}
    names = {}
    for entry in yaml.safe_load(path.read_text()):
        full = entry["name"].split("(")[0]
        body = entry.get("dispatch", {}).get("Default", entry)
        keys = [k for k, v in body.items() if k not in ("name", "output_differentiability", "dispatch")
                and not k.startswith("result") and str(v).strip() != "non_differentiable"]
        if not keys:
            continue
        prefix = ("".join(p.title() for p in full.split(".")[0].split("_")) + "Backward").replace(
            "ForwardBackward", "Backward")
        names[full] = f"{prefix}{counts.get(prefix, 0)}"
        counts[prefix] = counts.get(prefix, 0) + 1
    return names


def test_node_names_match_torch():
    """Every generated backward Node carries the class name PyTorch gives the same overload's node."""
    from gen_autograd import load_derivatives
    from model import load_native_functions

    want = _torch_node_names()
    wrong = [f"{e['f'].name}: {e['node']} (torch {want[e['f'].name]})"
             for e in load_derivatives(load_native_functions())
             if e["formulas"] and e["f"].name in want and want[e["f"].name] != e["node"]
             and e.get("key") in (None, "Default")]  # a per-key formula's node carries its key, as torch's
    assert not wrong, "node names differ from PyTorch's:\n" + "\n".join(wrong)
