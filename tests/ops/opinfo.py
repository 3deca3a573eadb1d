"""The OpInfo harness: one entry per operator, sample inputs built identically in glasstorch and torch.

An :class:`OpInfo` names the public function (``"add"``, ``"nn.functional.softmax"``, ``"linalg.vector_norm"``),
the ``native_functions`` overloads it covers, and a ``samples(dtype)`` generator yielding
:class:`Sample` objects whose tensor arguments are :class:`T` specs (shape, dtype, value range,
layout).  ``realize(spec, lib)`` turns a spec into a tensor of either library from the *same* numpy
data, so both libraries see bit-identical inputs, including non-contiguous ones.

``test_ops.py`` runs, for every entry, sample and dtype: the function form, the method form, the
``out=`` form and the in-place form, comparing values (per-dtype tolerances), dtypes and shapes with
torch, and the error samples' exception type and message.

Writing an entry (see op_db_*.py):

    OpInfo("add", aten=("add.Tensor", "add_.Tensor", "add.out"), samples=binary_samples,
           dtypes=ALL_NUMERIC, method=True, inplace=True, out=True,
           errors=lambda: [ErrorSample((T((2,)), T((3,))), match_torch=True)])
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import zlib
from collections.abc import Callable, Iterable

import numpy as np
import torch

import glasstorch as gt

FLOATS = ("float32", "float64")
HALF = ("float16", "bfloat16")
INTS = ("int64", "int32", "int16", "int8", "uint8")
BOOL = ("bool",)
ALL_FLOAT = FLOATS + HALF
ALL_NUMERIC = ALL_FLOAT + INTS
ALL = ALL_NUMERIC + BOOL

# default tolerances (rtol, atol) per dtype
TOL = {"float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
       "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


@dataclasses.dataclass(frozen=True)
class T:
    """A tensor argument: shape, dtype (None = the sample's dtype), values in [low, high), layout.

    layout: "contiguous", "transposed" (last two dims swapped in memory), "strided" (every other
    element of a larger buffer), "expanded" (a size-1 dim broadcast), or "scalar0d" handled by shape ().
    """

    shape: tuple
    dtype: str | None = None
    low: float = -5.0
    high: float = 5.0
    layout: str = "contiguous"
    seed: int = 0
    requires_grad: bool = False
    values: list | tuple | None = None  # explicit values (nested lists) override the random ones


@dataclasses.dataclass
class Sample:
    args: tuple = ()
    kwargs: dict = dataclasses.field(default_factory=dict)
    name: str = ""
    rtol: float | None = None
    atol: float | None = None
    skip_inplace: bool = False
    skip_out: bool = False

    def __repr__(self):
        return self.name or f"Sample({_short(self.args)}, {self.kwargs})"


@dataclasses.dataclass
class ErrorSample:
    """Inputs for which torch raises; glasstorch must raise the same type with the same message."""

    args: tuple = ()
    kwargs: dict = dataclasses.field(default_factory=dict)
    name: str = ""
    form: str = "function"  # "function" | "method" | "inplace" | "out"
    check_message: bool = True


@dataclasses.dataclass
class OpInfo:
    name: str
    aten: tuple
    samples: Callable[[str], Iterable[Sample]]
    dtypes: tuple = ALL_NUMERIC
    method: bool = False
    inplace: bool = False
    out: bool = False
    function: bool = True
    errors: Callable[[], Iterable[ErrorSample]] | None = None
    rtol: float | None = None
    atol: float | None = None
    random: bool = False  # results are random: compare shape/dtype only
    method_name: str | None = None
    # gradients (test_op_grad / test_op_gradcheck): floating inputs require grad in both libraries
    grad: bool = True  # False: not differentiable, or the function form mutates its input
    grad_samples: Callable[[str], Iterable[Sample]] | None = None  # default: up to 3 picked from samples
    grad_rtol: float | None = None
    grad_atol: float | None = None
    gradcheck: bool = True  # False: the samples sit on points where the op is not differentiable

    @property
    def method_attr(self) -> str:
        return self.method_name or self.name.split(".")[-1]

    def lib_fn(self, lib):
        obj = lib
        for part in self.name.split("."):
            obj = getattr(obj, part)
        return obj


def _short(args):
    return ", ".join(f"T{a.shape}" if isinstance(a, T) else repr(a) for a in args)


# -- building inputs -----------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def _numpy_values(spec: T, dtype: str) -> np.ndarray:
    # a stable seed (Python's hash() of strings changes every process): failures must reproduce
    rng = np.random.default_rng(zlib.crc32(repr((spec.shape, spec.seed, spec.low, spec.high, dtype)).encode()))
    if dtype == "bool":
        arr = rng.random(spec.shape) < 0.5
    elif dtype in INTS:
        lo = 0 if dtype == "uint8" else int(spec.low)
        hi = max(int(spec.high), lo + 1)
        arr = rng.integers(lo, hi, spec.shape)
    else:
        arr = rng.uniform(spec.low, spec.high, spec.shape)
        if dtype.startswith("complex"):  # both parts drawn from [low, high)
            arr = arr + 1j * rng.uniform(spec.low, spec.high, spec.shape)
    return arr


class HarnessError(Exception):
    """Building a sample's inputs failed: a broken sample spec (or a broken ``lib.tensor``), never the operator's
    answer, so an error of this kind in both libraries is no agreement (run_both fails the test)."""


def realize(spec: T, lib, dtype: str):
    """Build the tensor ``spec`` in ``lib`` (glasstorch or torch) from shared numpy data.

    Any failure is re-raised as :class:`HarnessError`: an operator sample must not pass because both libraries
    failed to build the same input."""
    try:
        return _realize(spec, lib, dtype)
    except Exception as e:  # noqa: BLE001 - wrapped: construction errors are never an operator's answer
        raise HarnessError(f"building {spec} in {lib.__name__}: {type(e).__name__}: {e}") from e


def _realize(spec: T, lib, dtype: str):
    dt = spec.dtype or dtype
    # explicit values (nested lists: unhashable) bypass the cache; as tuples, 0.0 == -0.0 would share an entry
    base = np.array(spec.values, dtype=np.float64) if spec.values is not None else _numpy_values(spec, dt)
    t = lib.tensor(base.tolist() if base.ndim else base.item(), dtype=getattr(lib, dt)).reshape(base.shape)
    if spec.layout == "transposed" and t.dim() >= 2:
        t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
    elif spec.layout == "strided" and t.dim() >= 1:
        big = lib.zeros(*t.shape[:-1], t.shape[-1] * 2, dtype=t.dtype)
        big[..., ::2] = t
        t = big[..., ::2]
    elif spec.layout == "expanded" and t.dim() >= 1:
        t = t[..., :1].expand(t.shape) if t.shape[-1] else t
    if spec.requires_grad:
        t.requires_grad_(True)
    return t


def realize_all(obj, lib, dtype):
    if isinstance(obj, T):
        return realize(obj, lib, dtype)
    if isinstance(obj, tuple):
        return tuple(realize_all(o, lib, dtype) for o in obj)
    if isinstance(obj, list):
        return [realize_all(o, lib, dtype) for o in obj]
    if isinstance(obj, dict):
        return {k: realize_all(v, lib, dtype) for k, v in obj.items()}
    if isinstance(obj, DType):
        return getattr(lib, obj.name)
    return obj


def spec_leaves(obj, out=None) -> list:
    """Every tensor spec (``T``) inside nested args/kwargs, in order (appended to ``out``, which is returned)."""
    out = [] if out is None else out
    if isinstance(obj, T):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            spec_leaves(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            spec_leaves(o, out)
    return out


@dataclasses.dataclass(frozen=True)
class DType:
    """A dtype argument (``dtype=DType("float64")``), realised as ``lib.float64``."""

    name: str


# -- comparing results ---------------------------------------------------------------------------------
def to_numpy(t) -> np.ndarray:
    t = t.detach()
    if repr(t.dtype) == "torch.bfloat16":
        t = t.float()
    return np.asarray(t.tolist()) if t.dim() else np.asarray(t.item())


def assert_close(got, want, *, rtol=None, atol=None, dtype=None, where="result", check_values=True):
    """Recursively compare glasstorch results with torch's: type, dtype, shape, values."""
    if isinstance(want, torch.Tensor):
        assert isinstance(got, gt.Tensor), f"{where}: expected a Tensor, got {type(got).__name__}"
        assert repr(got.dtype) == repr(want.dtype), f"{where}: dtype {got.dtype} != torch {want.dtype}"
        assert tuple(got.shape) == tuple(want.shape), f"{where}: shape {tuple(got.shape)} != torch {tuple(want.shape)}"
        if not check_values:
            return
        name = repr(want.dtype).removeprefix("torch.")
        r, a = TOL.get(name, (0, 0))
        r, a = (rtol if rtol is not None else r), (atol if atol is not None else a)
        g, w = to_numpy(got), to_numpy(want)
        if g.dtype.kind in "fc" or w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=r, atol=a, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(g, w, err_msg=where)
    elif isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{where}: expected a sequence, got {type(got).__name__}"
        assert len(got) == len(want), f"{where}: {len(got)} results != torch {len(want)}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_close(g, w, rtol=rtol, atol=atol, where=f"{where}[{i}]", check_values=check_values)
        if hasattr(want, "_fields"):
            assert getattr(got, "_fields", None) == tuple(want._fields), f"{where}: field names differ"
    elif isinstance(want, float) and check_values:
        assert isinstance(got, (float, int)), f"{where}: expected float, got {type(got).__name__}"
        np.testing.assert_allclose(got, want, rtol=rtol or 1e-6, atol=atol or 1e-6, equal_nan=True, err_msg=where)
    elif isinstance(want, bool):
        assert type(got) is bool and got == want, f"{where}: {got!r} != torch {want!r}"
    elif check_values:
        assert got == want, f"{where}: {got!r} != torch {want!r}"


def run_both(fn_gt, fn_th):
    """Run both; return (gt_result, th_result) or raise AssertionError if only one raised."""
    th_err = gt_err = None
    try:
        want = fn_th()
    except Exception as e:  # noqa: BLE001 - any torch error is part of the oracle
        th_err, want = e, None
    try:
        got = fn_gt()
    except Exception as e:  # noqa: BLE001
        gt_err, got = e, None
    if th_err is not None or gt_err is not None:
        for err, lib in ((th_err, "torch"), (gt_err, "glasstorch")):
            if isinstance(err, HarnessError):
                raise AssertionError(f"harness error building the inputs for {lib}: {err}") from err
        if th_err is None:
            raise AssertionError(f"glasstorch raised {type(gt_err).__name__}: {gt_err}; torch returned normally") \
                from gt_err
        if gt_err is None:
            raise AssertionError(f"torch raised {type(th_err).__name__}: {th_err}; glasstorch returned {got!r}")
        return gt_err, th_err
    return got, want


def assert_same_error(gt_err, th_err, check_message=True):
    assert type(gt_err).__name__ == type(th_err).__name__, \
        f"error type {type(gt_err).__name__} ({gt_err}) != torch {type(th_err).__name__} ({th_err})"
    if check_message:
        assert str(gt_err) == str(th_err), f"message differs:\n glasstorch: {gt_err}\n torch:      {th_err}"


# -- sample helpers reused by many entries -----------------------------------------------------------------
SHAPES_UNARY = [(), (5,), (3, 4), (2, 3, 4), (0,), (2, 0, 3)]


def unary_samples(dtype, low=-5.0, high=5.0):
    for shape in SHAPES_UNARY:
        yield Sample((T(shape, low=low, high=high),), name=f"{shape}")
    yield Sample((T((3, 4), low=low, high=high, layout="transposed"),), name="transposed")
    yield Sample((T((3, 6), low=low, high=high, layout="strided"),), name="strided")


BINARY_SHAPES = [((), ()), ((5,), (5,)), ((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)),
                 ((3, 4), ()), ((), (3, 4)), ((0, 3), (3,))]


def binary_samples(dtype, low=-5.0, high=5.0, scalars=(2, -1.5, True)):
    for sa, sb in BINARY_SHAPES:
        yield Sample((T(sa, low=low, high=high), T(sb, low=low, high=high, seed=1)), name=f"{sa}x{sb}")
    yield Sample((T((3, 4), low=low, high=high, layout="transposed"), T((3, 4), low=low, high=high, seed=1)),
                 name="transposed")
    yield Sample((T((3, 6), low=low, high=high, layout="strided"), T((3, 6), low=low, high=high, seed=1,
                                                                      layout="transposed")), name="strided")
    for s in scalars:
        yield Sample((T((3, 4), low=low, high=high), s), name=f"scalar {s!r}")
    other = "float32" if dtype != "float32" else "int64"
    yield Sample((T((3, 4), low=low, high=high), T((3, 4), dtype=other, low=low, high=high, seed=2)),
                 name=f"mixed {other}", skip_inplace=True)


def product(*its):
    return itertools.product(*its)
