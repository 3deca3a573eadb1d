"""The conformance cases (OpInfo x dtype x check) and the checks: torch builds the samples, both libraries run them.

A case is one OpInfo, one dtype and one check: a forward variant (``function``, ``method``, ``inplace``, ``out``,
``operator``, an alias), ``grad`` (backward of the differentiable outputs with a random grad_output, compared with
torch's gradients), ``gradcheck`` (glasstorch's own gradcheck in float64) or ``errors`` (the OpInfo's
error_inputs: exception type and message regex).  Three modes (``MODES``):

* ``sampled`` (the default ``make test`` run): the first ``SAMPLES`` sample inputs, one dtype per family (float32,
  one integer, bool, one complex, where listed; a float other than float32 only when the op lists no float32),
  gradients in float32 and complex64;
* ``dtypes`` (``slow``; a few minutes): the same samples in every dtype the OpInfo lists, gradients in each;
* ``full`` (``slow``; an hour or more): every dtype, every reference input (which include the sample inputs),
  every error input, gradcheck on three samples.

Both libraries are seeded alike before each call (random ops draw from their generator), and torch is seeded
before it builds samples, so every run sees the same inputs.
"""

from __future__ import annotations

import functools
import itertools
import re
import warnings
from dataclasses import dataclass

import torch

import glasstorch as gt

from . import compare as cmp
from .convert import MissingName, to_gt, to_torch
from .resolve import UNINITIALISED, gt_dtypes, op_db, op_key, skip_reason, variants

THREADS = 1  # tests/conftest.py runs both libraries on one thread; the tables must be measured the same way


def pin_threads():
    """Both libraries on ``THREADS`` threads, as the suite runs them (thread splits change half-precision sums)."""
    torch.set_num_threads(THREADS)
    gt.set_num_threads(THREADS)


__all__ = ["Case", "Mode", "cases", "run_case", "SAMPLES", "MODES"]

SAMPLES = 3          # sample inputs per (OpInfo, dtype) in the sampled and dtypes modes
SEED = 0


@dataclass(frozen=True)
class Mode:
    every_dtype: bool     # every listed dtype, or one per family
    samples: int | None   # the first N sample inputs, or (None) every reference input
    errors: int | None    # the first N error inputs, or every one
    gradchecks: int       # float64 samples gradcheck runs on


MODES = {"sampled": Mode(False, SAMPLES, 4, 1), "dtypes": Mode(True, SAMPLES, 4, 1), "full": Mode(True, None, None, 3)}

_FLOATS = ("float32", "float64", "float16", "bfloat16")
_INTS = ("int64", "int32", "int16", "int8", "uint8")
_COMPLEX = ("complex64", "complex128", "complex32")


@dataclass(frozen=True)
class Case:
    op: str         # op_key of the OpInfo
    dtype: str      # dtype name, or "-" for the error inputs
    check: str      # a variant name, "grad", "gradcheck" or "errors"

    @property
    def key(self) -> str:
        return f"{self.op}|{self.dtype}|{self.check}"


def _dtype_names(op, mode: str) -> list[str]:
    listed = sorted(str(d).removeprefix("torch.") for d in op.supported_dtypes("cpu"))
    listed = [d for d in listed if d in gt_dtypes()]
    if MODES[mode].every_dtype:
        return listed
    picks = []
    for family in (_FLOATS, _INTS, ("bool",), _COMPLEX):
        picks += [d for d in family if d in listed][:1]
    return picks


def _backward_names(op) -> set[str]:
    if not op.supports_autograd:
        return set()
    return {str(d).removeprefix("torch.") for d in op.supported_backward_dtypes("cpu")}


@functools.cache
def cases(mode: str) -> tuple[Case, ...]:
    """Every case of ``mode``, in op_db order (skipped OpInfos have none)."""
    out = []
    for op in op_db():
        if skip_reason(op):
            continue
        key, backward = op_key(op), _backward_names(op)
        for d in _dtype_names(op, mode):
            out += [Case(key, d, v.name) for v in variants(op)]
            if d in backward and (MODES[mode].every_dtype or d in ("float32", "complex64")):
                out.append(Case(key, d, "grad"))
        if "float64" in backward:
            out.append(Case(key, "float64", "gradcheck"))
        if op.error_inputs_func is not None:
            out.append(Case(key, "-", "errors"))
    return tuple(out)


def _by_key():
    return {op_key(op): op for op in op_db()}


_OPS: dict = {}


def _op(key: str):
    if not _OPS:
        _OPS.update(_by_key())
    return _OPS[key]


_SAMPLE_CACHE: dict = {}


def _samples(op, dtype: torch.dtype, requires_grad: bool, mode: str) -> list:
    """torch's samples for one (OpInfo, dtype), seeded; the last few are cached (cases of one op run together)."""
    key = (op_key(op), dtype, requires_grad, mode)
    if key not in _SAMPLE_CACHE:
        if len(_SAMPLE_CACHE) > 4:
            _SAMPLE_CACHE.clear()
        torch.default_generator.manual_seed(SEED)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            n = MODES[mode].samples
            if n is None:
                found = _take(op.reference_inputs("cpu", dtype, requires_grad=requires_grad), None)
            else:
                found = _take(op.sample_inputs("cpu", dtype, requires_grad=requires_grad), n)
        _SAMPLE_CACHE[key] = found
    return _SAMPLE_CACHE[key]


def _take(samples, n: int | None) -> list:
    """The first ``n`` samples (all for None), up to the first one torch's own generator fails to build (some
    reference generators make integer tensors that require grad; torch's tests never ask them for gradients)."""
    found = []
    try:
        for s in itertools.islice(samples, n):
            found.append(s)
    except (ValueError, RuntimeError):
        pass
    return found


def _seeded(fn):
    torch.default_generator.manual_seed(SEED)
    gt.manual_seed(SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except MissingName:
            raise
        except Exception as e:  # noqa: BLE001 - the exception is the result being compared
            return None, e


def _gt_callable(fn):
    try:
        return to_gt(fn)
    except MissingName as e:
        raise cmp.MissingOp(str(e)) from None


def _is_missing(e: BaseException) -> bool:
    return isinstance(e, MissingName) or (isinstance(e, AttributeError) and "has no attribute" in str(e))


def _raised(e: BaseException, where: str):
    """glasstorch raised ``e`` where torch returned: a missing op if it is a missing name, else ``Raises``."""
    if _is_missing(e):
        return cmp.MissingOp(f"{where}: {cmp.describe_error(e)}")
    return cmp.Raises(f"{where}: {cmp.describe_error(e)}")


def _clone(t):
    """A copy of a torch sample with each tensor's geometry kept and no autograd history (for in-place, out=)."""
    if isinstance(t, torch.Tensor) and t.is_conj():
        return _clone(t.conj()).conj()  # the storage holds the conjugates; the copy keeps the bit
    if isinstance(t, torch.Tensor):
        storage = t.detach().untyped_storage()
        return torch.empty(0, dtype=t.dtype).set_(storage.clone(), t.storage_offset(), t.shape, t.stride())
    if isinstance(t, (list, tuple)) and not hasattr(t, "_fields"):
        return type(t)(_clone(x) for x in t)
    if isinstance(t, dict):
        return {k: _clone(x) for k, x in t.items()}
    return t


def _empty_like_result(r):
    if isinstance(r, torch.Tensor):
        return torch.empty(0, dtype=r.dtype)
    if isinstance(r, (list, tuple)) and r and all(isinstance(x, torch.Tensor) for x in r):
        return tuple(torch.empty(0, dtype=x.dtype) for x in r)
    return None


def _call(fn, s, out=None):
    kwargs = dict(s.kwargs) if out is None else {**s.kwargs, "out": out}
    return fn(s.input, *s.args, **kwargs)


@dataclass
class _Sample:  # a sample's three parts, converted (duck-types SampleInput for _call)
    input: object
    args: tuple
    kwargs: dict


def _to_gt_sample(s) -> _Sample:
    try:
        inp, args, kwargs = to_gt((s.input, tuple(s.args), dict(s.kwargs)))
    except MissingName as e:
        raise cmp.MissingOp(f"input conversion: {e}") from None
    return _Sample(inp, args, kwargs)


def _identity_ok(result, expected) -> bool:
    if isinstance(expected, tuple):
        return isinstance(result, (tuple, list)) and len(result) == len(expected) and all(
            a is b for a, b in zip(result, expected, strict=True))
    return result is expected


def _storages(s) -> frozenset:
    """The data pointers of a torch sample's tensors: a result over one of them is a view of an input."""
    return frozenset(t.untyped_storage().data_ptr() for t in _tensors((s.input, list(s.args), dict(s.kwargs)))
                     if t.device.type != "meta")


def _forward_sample(op, variant, s, tol, where: str) -> None:
    fn_gt = _gt_callable(variant.fn)
    if variant.mode == "out":
        th_plain, err = _seeded(lambda: _call(op.op, s))
        out_th = None if err is not None else _empty_like_result(th_plain)
        if out_th is None:
            return  # torch's own out= test skips results that are not tensors
        out_gt = to_gt(out_th)
        g = _to_gt_sample(_Sample(_clone(s.input), _clone(tuple(s.args)), _clone(dict(s.kwargs))))
        th, th_err = _seeded(lambda: _call(variant.fn, s, out_th))
        res, gt_err = _seeded(lambda: _call(fn_gt, g, out_gt))
        expected_gt, expected_th, src = out_gt, out_th, s
    else:
        src = _Sample(_clone(s.input), _clone(tuple(s.args)), _clone(dict(s.kwargs))) \
            if variant.mode == "inplace" else s
        g = _to_gt_sample(src)
        th, th_err = _seeded(lambda: _call(variant.fn, src))
        res, gt_err = _seeded(lambda: _call(fn_gt, g))
        expected_gt, expected_th = g.input, src.input
    if th_err is not None:
        return cmp.compare_errors(gt_err, th_err, where)
    if gt_err is not None:
        raise _raised(gt_err, where)
    if variant.mode != "call" and _identity_ok(th, expected_th) and not _identity_ok(res, expected_gt):
        raise cmp.AliasMismatch(f"{where}: the result is not the tensor written ({variant.mode})")
    got, th = cmp.fix_gauge(op_key(op), to_torch(res), th)
    cmp.compare(got, th, tol, where, _storages(src), values=op_key(op) not in UNINITIALISED)


def _forward(op, case: Case, mode: str) -> None:
    variant = next(v for v in variants(op) if v.name == case.check)
    dtype = getattr(torch, case.dtype)
    tol = cmp.tolerance(op, dtype)
    for i, s in enumerate(_samples(op, dtype, False, mode)):
        if variant.mode == "inplace" and s.broadcasts_input:
            continue  # an in-place op cannot broadcast its input: torch's tests skip these samples too
        if not variant.kwargs_ok and s.kwargs:
            continue
        _forward_sample(op, variant, s, tol, f"sample {i}")


def _leaves(tree) -> list:
    flat, _ = torch.utils._pytree.tree_flatten(tree)
    return [x for x in flat if isinstance(x, torch.Tensor) and x.requires_grad]


def _tensors(tree) -> list:
    flat, _ = torch.utils._pytree.tree_flatten(tree)
    return [x for x in flat if isinstance(x, torch.Tensor)]


def _gt_tensors(tree) -> list:
    flat = []

    def walk(v):
        if isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, gt.Tensor):
            flat.append(v)

    walk(tree)
    return flat


def _grad_sample(op, s, tol, where: str) -> None:
    th_leaves = _leaves((s.input, list(s.args), dict(s.kwargs)))
    if not th_leaves:
        return
    g = _to_gt_sample(s)
    gt_leaves = [x for x in _gt_tensors((g.input, list(g.args), g.kwargs)) if x.requires_grad]
    process_th = s.output_process_fn_grad
    out_th, err = _seeded(lambda: _tensors(process_th(_call(op.op, s))))
    if err is not None:
        return  # torch's own forward refuses this sample with grad: nothing to compare
    picked = [i for i, o in enumerate(out_th) if o.requires_grad and (o.is_floating_point() or o.is_complex())]
    if not picked:
        return
    torch.default_generator.manual_seed(SEED + 1)
    grad_outs = [torch.randn_like(out_th[i]) for i in picked]
    th_grads, err = _seeded(lambda: torch.autograd.grad([out_th[i] for i in picked], th_leaves, grad_outs,
                                                         allow_unused=True))
    if err is not None:
        return  # torch's own backward refuses this sample (a dtype it lists but cannot reduce in)
    fn_gt, process_gt = _gt_callable(op.op), _gt_callable(process_th)
    out_gt, gt_err = _seeded(lambda: _gt_tensors(process_gt(_call(fn_gt, g))))
    if gt_err is not None:
        raise _raised(gt_err, where + " forward")
    if len(out_gt) != len(out_th) or any(not out_gt[i].requires_grad for i in picked):
        raise cmp.GradientMismatch(f"{where}: differentiable outputs {picked} of {len(out_th)}; glasstorch has "
                                   f"{[i for i, o in enumerate(out_gt) if o.requires_grad]} of {len(out_gt)}")
    try:
        gt_grads = gt.autograd.grad([out_gt[i] for i in picked], gt_leaves, to_gt(grad_outs), allow_unused=True)
    except Exception as e:  # noqa: BLE001 - a backward that raises is the miss being reported
        raise cmp.GradientMismatch(f"{where} backward: {cmp.describe_error(e)}") from None
    for j, (a, b) in enumerate(zip(gt_grads, th_grads, strict=True)):
        if (a is None) != (b is None):
            raise cmp.GradientMismatch(f"{where}: grad of input {j} is {'None' if a is None else 'a tensor'}; "
                                       f"torch's is {'None' if b is None else 'a tensor'}")
        if b is not None:
            try:
                cmp.compare(to_torch(a), b, tol, f"{where} grad of input {j}")
            except cmp.Miss as e:
                raise cmp.GradientMismatch(str(e)) from None


def _grad(op, case: Case, mode: str) -> None:
    dtype = getattr(torch, case.dtype)
    tol = cmp.tolerance(op, dtype)
    for i, s in enumerate(_samples(op, dtype, True, mode)):
        _grad_sample(op, s, tol, f"sample {i}")


def _gradcheck_fn(wrapper, fn, process, s, leaves):
    """The function gradcheck differentiates: the sample with ``leaves`` swapped for gradcheck's inputs."""

    def run(*xs):
        swap = {id(a): b for a, b in zip(leaves, xs, strict=True)}
        inp, args, kwargs = _replace((s.input, list(s.args), dict(s.kwargs)), swap)
        return process(wrapper(fn, inp, *args, **kwargs))

    return run


def _torch_gradcheck_passes(op, s, leaves) -> bool:
    fn = _gradcheck_fn(op.gradcheck_wrapper, op.op, s.output_process_fn_grad, s, leaves)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.autograd.gradcheck(fn, tuple(leaves), nondet_tol=op.gradcheck_nondet_tol,
                                            check_undefined_grad=False, fast_mode=True)
    except Exception:  # noqa: BLE001 - torch's own gradcheck failing makes the sample incomparable
        return False


def _gradcheck(op, case: Case, mode: str) -> None:
    """glasstorch's gradcheck on the first float64 samples whose gradcheck passes in torch."""
    wrapper, fn_gt = _gt_callable(op.gradcheck_wrapper), _gt_callable(op.op)
    for i, s in enumerate(_samples(op, torch.float64, True, mode)[:MODES[mode].gradchecks]):
        th_leaves = _leaves((s.input, list(s.args), dict(s.kwargs)))
        if not th_leaves or not _torch_gradcheck_passes(op, s, th_leaves):
            continue
        g = _to_gt_sample(s)
        leaves = [x for x in _gt_tensors((g.input, list(g.args), g.kwargs)) if x.requires_grad]
        fn = _gradcheck_fn(wrapper, fn_gt, _gt_callable(s.output_process_fn_grad), g, leaves)
        try:
            _seeded_raising(lambda fn=fn, leaves=leaves: gt.autograd.gradcheck(
                fn, tuple(leaves), nondet_tol=op.gradcheck_nondet_tol, check_undefined_grad=False, fast_mode=True))
        except Exception as e:  # noqa: BLE001 - gradcheck's own report is the miss
            if _is_missing(e):
                raise _raised(e, f"sample {i}") from None
            raise cmp.GradcheckFailure(f"sample {i}: {cmp.describe_error(e)}") from None


def _seeded_raising(fn):
    result, err = _seeded(fn)
    if err is not None:
        raise err
    return result


def _replace(v, swap: dict):
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return type(v)(_replace(x, swap) for x in v)
    if isinstance(v, dict):
        return {k: _replace(x, swap) for k, x in v.items()}
    return swap.get(id(v), v)


def _outcome(fn) -> BaseException | None:
    """What an error input's call raised; returning NotImplemented counts as raising, as in torch's test_errors
    (a reflected operator such as ``Tensor.__rsub__(2, 3)`` declines instead of raising)."""
    res, err = _seeded(fn)
    if err is None and res is NotImplemented:
        return AssertionError("the call returned NotImplemented")
    return err


def _errors(op, case: Case, mode: str) -> None:
    torch.default_generator.manual_seed(SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = list(op.error_inputs("cpu"))
    found = found[:MODES[mode].errors]
    fn_gt = _gt_callable(op.op)
    for i, e in enumerate(found):
        where = f"error input {i} ({e.error_type.__name__}: {e.error_regex!r})"
        th_err = _outcome(lambda e=e: _call(op.op, e.sample_input))
        if th_err is None:
            continue  # torch itself returns here (its test_errors marks the OpInfo expectedFailure): nothing to match
        g = _to_gt_sample(e.sample_input)
        err = _outcome(lambda g=g: _call(fn_gt, g))
        if err is None:
            raise cmp.ErrorText(f"{where}: glasstorch did not raise")
        if type(err).__name__ == type(th_err).__name__ and str(err) == str(th_err):
            continue  # torch's own exception, word for word (an AttributeError here is not a missing name)
        if _is_missing(err):
            raise _raised(err, where)
        names = {c.__name__ for c in type(err).__mro__}
        if e.error_type.__name__ not in names or re.search(e.error_regex, str(err)) is None:
            raise cmp.ErrorText(f"{where}: glasstorch raised {cmp.describe_error(err)}")


def run_case(case: Case, mode: str) -> None:
    """Run one case; return when glasstorch agrees with torch, raise a ``compare.Miss`` when it does not."""
    op = _op(case.op)
    check = {"grad": _grad, "gradcheck": _gradcheck, "errors": _errors}.get(case.check, _forward)
    check(op, case, mode)
