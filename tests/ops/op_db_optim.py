"""OpInfo entries: the optimizer operators (glasstorch/_ops/native_functions/optim.yaml) — ``_fused_adam_``,
``_fused_adamw_`` (float and Tensor ``lr``), ``_foreach_norm``, ``_foreach_mul_`` and ``_foreach_add_``.

These ops write their list arguments in place and return nothing (the foreach ones return ``self`` in PyTorch's
binding), so each entry calls the op through a wrapper that returns every tensor it may have written: the
harness then compares those values with torch's. The fused steps are compared bit for bit in float32 and
float64 (glasstorch's C loop rounds as PyTorch's x86 kernel, Note [Adam rounding]); none of these entries is
differentiable here (PyTorch's ``_foreach_norm`` is, a known gap), so gradients are not checked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from opinfo import ALL_FLOAT, FLOATS, DType, ErrorSample, OpInfo, Sample, T


@dataclasses.dataclass
class LibOpInfo(OpInfo):
    """An entry whose callable is ``fn(lib)`` instead of a dotted name under the library."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib)


SHAPES = ((37,), (3, 5), (), (8, 16), (0,))
HYPER = dict(lr=0.01, beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
# a few ulps: bit-exact on the x86 machines measured (tests/optim checks that), yet not a promise elsewhere
TIGHT = {"float32": 3e-7, "float64": 1e-15}


def _returning_writes(name: str):
    """``lib.<name>(*lists, **kw)``, then every list it may write, as one tuple."""
    def get(lib):
        def call(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, **kw):
            getattr(lib, name)(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, **kw)
            return (*params, *exp_avgs, *exp_avg_sqs, *max_exp_avg_sqs, *grads)
        return call
    return get


def _adam_lists(amsgrad: bool, seed: int = 0, steps=(1.0, 3.0, 7.0, 2.0, 5.0)):
    p = [T(s, seed=seed + i) for i, s in enumerate(SHAPES)]
    g = [T(s, seed=seed + 10 + i, low=-2, high=2) for i, s in enumerate(SHAPES)]
    m = [T(s, seed=seed + 20 + i, low=-0.3, high=0.3) for i, s in enumerate(SHAPES)]
    v = [T(s, seed=seed + 30 + i, low=0, high=0.2) for i, s in enumerate(SHAPES)]
    x = [T(s, seed=seed + 40 + i, low=0, high=0.2) for i, s in enumerate(SHAPES)] if amsgrad else []
    st = [T((), dtype="float32", values=float(k)) for k in steps]
    return p, g, m, v, x, st


def _adam_samples(tensor_lr: bool):
    def samples(dtype):
        tol = TIGHT.get(dtype)
        configs = [
            ("default", {}),
            ("amsgrad", {"amsgrad": True}),
            ("weight decay", {"weight_decay": 0.1}),
            ("maximize amsgrad decay", {"maximize": True, "amsgrad": True, "weight_decay": 0.05}),
            ("beta1 < 0.5", {"beta1": 0.3, "beta2": 0.9, "eps": 1e-3}),
        ]
        for k, (name, extra) in enumerate(configs):
            kw = {**HYPER, **extra}
            if tensor_lr:
                kw["lr"] = T((), dtype="float64", values=kw["lr"])
            yield Sample(_adam_lists(kw["amsgrad"], seed=k), kw, name=name, rtol=tol, atol=tol)
        kw = {**HYPER, "grad_scale": T((), dtype="float32", values=4.0), "found_inf": T((), dtype="float32",
                                                                                      values=0.0)}
        yield Sample(_adam_lists(False, seed=7), kw, name="grad_scale", rtol=tol, atol=tol)
        kw = {**HYPER, "found_inf": T((), dtype="float32", values=1.0)}
        yield Sample(_adam_lists(False, seed=8), kw, name="found_inf skips", rtol=tol, atol=tol)
    return samples


def _adam_errors():
    one = [T((3,))]
    st = [T((), dtype="float32", values=1.0)]
    return [
        ErrorSample((one, one, one, one, [], []), HYPER, name="steps"),
        ErrorSample((one, [], one, one, [], st), HYPER, name="grads"),
        ErrorSample((one, one, one, one, one, st), HYPER, name="max_exp_avg_sqs not empty"),
        ErrorSample((one, one, one, one, [], st), {**HYPER, "amsgrad": True}, name="max_exp_avg_sqs missing"),
        ErrorSample((one, [T((3,), dtype="float64")], one, one, [], st), HYPER, name="grad dtype"),
        ErrorSample(([T((3,), dtype="int64")],) * 4 + ([], st), HYPER, name="int params"),
        ErrorSample((one, one, one, one, [], st), {**HYPER, "grad_scale": T((), dtype="float64")}, name="scale"),
        ErrorSample((one, one, one, one, [], st), {**HYPER, "lr": T((2,))}, name="lr numel"),
    ]


def _adam_entry(name: str, tensor_lr: bool) -> LibOpInfo:
    overload = f"{name}.tensor_lr" if tensor_lr else name
    return LibOpInfo(f"{name}{' tensor lr' if tensor_lr else ''}", aten=(overload,), fn=_returning_writes(name),
                     samples=_adam_samples(tensor_lr), dtypes=ALL_FLOAT, grad=False, gradcheck=False,
                     errors=None if tensor_lr else _adam_errors)


# -- foreach ---------------------------------------------------------------------------------------------------
def _norm_samples(dtype):
    lists = [T((3, 4), seed=1), T((5,), seed=2), T((), seed=3), T((4, 6), seed=4, layout="transposed")]
    for ord in (2, 1, 3.5, float("inf"), 0):  # noqa: A001 - PyTorch's argument name
        yield Sample((lists, ord), name=f"ord {ord}")
    yield Sample((lists,), name="default ord")
    yield Sample(([T((0,))], 2), name="empty")
    if dtype == "float32":
        yield Sample((lists, 2), {"dtype": DType("float64")}, name="dtype float64")


def _norm_errors():
    return [
        ErrorSample(([],), name="empty list"),
        ErrorSample(([T((0,))], float("inf")), name="inf of empty"),
        ErrorSample(([T((3,), dtype="int64")],), name="int"),
        ErrorSample(([T((3,), dtype="float64")], 2), {"dtype": DType("float32")}, name="narrowing dtype"),
    ]


def _inplace_list(name: str):
    def get(lib):
        def call(tensors, *args):
            getattr(lib, name)(tensors, *args)
            return tuple(tensors)
        return call
    return get


def _mul_samples(dtype):
    lists = [T((3, 4), seed=1), T((5,), seed=2), T((), seed=3), T((4, 6), seed=4, layout="transposed")]
    yield Sample((lists, T((), values=0.37)), name="0-dim other")
    yield Sample((lists, T((), dtype="float64", values=0.37)), name="float64 other")
    yield Sample(([T((2, 3), dtype="float32", seed=5), T((4,), seed=6)], T((), values=2.0)), name="mixed dtypes")


def _mul_errors():
    return [ErrorSample(([], T(())), name="empty"), ErrorSample(([T((3,))], T((2,))), name="1-dim other"),
            ErrorSample(([T((3,), dtype="int64")], T((), dtype="float32")), name="int self")]


def _add_samples(dtype):
    lists = [T((3, 4), seed=1), T((5,), seed=2), T((), seed=3), T((4, 6), seed=4, layout="strided")]
    yield Sample((lists, 1), name="int scalar")
    if dtype not in ("int64", "int32", "int16", "int8", "uint8"):
        yield Sample((lists, 0.25), name="float scalar")


def _add_errors():
    return [ErrorSample(([], 1), name="empty"), ErrorSample(([T((3,), dtype="int64")], 1.5), name="float on int")]


OPS = [
    _adam_entry("_fused_adam_", False),
    _adam_entry("_fused_adam_", True),
    _adam_entry("_fused_adamw_", False),
    _adam_entry("_fused_adamw_", True),
    OpInfo("_foreach_norm", aten=("_foreach_norm.Scalar",), samples=_norm_samples, dtypes=FLOATS, grad=False,
           gradcheck=False, errors=_norm_errors),
    LibOpInfo("_foreach_mul_", aten=("_foreach_mul_.Tensor",), fn=_inplace_list("_foreach_mul_"),
              samples=_mul_samples, dtypes=ALL_FLOAT, grad=False, gradcheck=False, errors=_mul_errors),
    LibOpInfo("_foreach_add_", aten=("_foreach_add_.Scalar",), fn=_inplace_list("_foreach_add_"),
              samples=_add_samples, dtypes=ALL_FLOAT + ("int64",), grad=False, gradcheck=False, errors=_add_errors),
]
