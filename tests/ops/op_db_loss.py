"""OpInfo entries: loss functions (glasstorch/_ops/native_functions/nn_loss.yaml), through
``torch.nn.functional``, ``torch.*``, ``torch._C._nn`` and, for the bindingless ``nll_loss_forward`` /
``nll_loss2d_forward``, ``torch.ops.aten``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np
from opinfo import FLOATS, HALF, ErrorSample, OpInfo, Sample, T

import glasstorch.nn.functional  # noqa: F401  (until glasstorch/__init__ imports nn)

LOSS_DTYPES = FLOATS + HALF
NAN = float("nan")


@dataclasses.dataclass
class LossOpInfo(OpInfo):
    """An entry whose callable is ``fn(lib)`` instead of a dotted name under the library."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib)


def _is_torch(lib) -> bool:
    return lib.__name__ == "torch"


def _C_nn(name):
    """``torch._C._nn.<name>``; glasstorch's generated binding of the same operator."""
    def get(lib):
        if _is_torch(lib):
            return getattr(lib._C._nn, name)
        from glasstorch._generated import functions
        return getattr(functions, name)
    return get


def _aten_pair(name):
    """``torch.ops.aten.<name>`` (+ its ``.output`` overload for ``out=``) vs glasstorch's generated binding."""
    def get(lib):
        if _is_torch(lib):
            packet = getattr(lib.ops.aten, name)

            def call(*args, out=None):
                if out is None:
                    return packet.default(*args)
                return packet.output(*args, output=out[0], total_weight=out[1])
            return call
        from glasstorch._generated import functions
        return getattr(functions, name)
    return get


# -- samples -----------------------------------------------------------------------------------------------
def _tgt(shape, n_classes, seed=0, values=None):
    return T(shape, dtype="int64", low=0, high=n_classes, seed=seed, values=values)


REDUCTIONS = ("none", "mean", "sum")


def cross_entropy_samples(dtype):
    x = T((4, 5), low=-3, high=3)
    t = _tgt((4,), 5, seed=1)
    w = T((5,), low=0.1, high=2, seed=2)
    ign = _tgt((4,), 5, values=(1, -100, 4, 2))
    for red in REDUCTIONS:
        yield Sample((x, t), {"reduction": red}, name=f"indices {red}")
        yield Sample((x, t, w), {"reduction": red}, name=f"weight {red}")
        yield Sample((x, ign), {"reduction": red}, name=f"ignore_index {red}")
        yield Sample((x, t), {"reduction": red, "label_smoothing": 0.2}, name=f"smoothing {red}")
        yield Sample((x, ign, w), {"reduction": red, "label_smoothing": 0.1}, name=f"smoothing+weight+ignore {red}")
        yield Sample((x, T((4, 5), low=0, high=1, seed=3)), {"reduction": red}, name=f"probs {red}")
        yield Sample((x, T((4, 5), low=0, high=1, seed=3), w), {"reduction": red, "label_smoothing": 0.3},
                     name=f"probs+weight+smoothing {red}")
        yield Sample((T((2, 3, 4, 2)), _tgt((2, 4, 2), 3, seed=4)), {"reduction": red}, name=f"4-d {red}")
        yield Sample((T((2, 3, 5)), _tgt((2, 5), 3, seed=5), T((3,), low=0.5, high=1, seed=6)),
                     {"reduction": red, "ignore_index": 1}, name=f"3-d weight ignore {red}")
    yield Sample((x, _tgt((4,), 5, values=(2, 2, 2, 2))), {"ignore_index": 2}, name="all ignored (nan)")
    yield Sample((T((5,)), _tgt((), 5, values=3)), name="unbatched")
    yield Sample((T((5,)), T((5,), low=0, high=1, seed=7)), name="unbatched probs")
    yield Sample((T((2, 3, 2, 2, 2)), _tgt((2, 2, 2, 2), 3)), {"reduction": "none"}, name="5-d")
    yield Sample((T((0, 5)), _tgt((0,), 5)), name="empty batch")
    yield Sample((x, t), {"size_average": False}, name="legacy size_average")
    yield Sample((x, t), {"reduce": False}, name="legacy reduce")
    yield Sample((T((4, 5), layout="transposed"), t), name="transposed input")


def cross_entropy_errors():
    x = T((3, 5))
    return [
        ErrorSample((x, _tgt((2,), 5)), name="batch size"),
        ErrorSample((x, _tgt((3,), 5, values=(1, 5, 0))), name="target out of bounds"),
        ErrorSample((x, _tgt((3,), 5, values=(1, -3, 0))), {"reduction": "none"}, name="negative target"),
        ErrorSample((x, T((3, 5), dtype="int64", low=0, high=2)), name="probs must be floating"),
        ErrorSample((x, T((3, 5))), {"ignore_index": 1}, name="probs ignore_index"),
        ErrorSample((x, _tgt((3,), 5)), {"label_smoothing": 1.5}, name="label_smoothing > 1"),
        ErrorSample((x, T((3, 5)), T((4,))), name="probs weight shape"),
        ErrorSample((x, _tgt((3,), 5), T((4,))), name="weight shape"),
        ErrorSample((T(()), _tgt((3,), 5)), name="0-d input"),
        ErrorSample((T((2, 3, 4)), _tgt((2, 5), 3)), name="3-d target size"),
        ErrorSample((x, T((3,), dtype="int32", low=0, high=5)), name="int32 target"),
        ErrorSample((x, _tgt((3,), 5)), {"reduction": "avg"}, name="bad reduction"),
    ]


# log_softmax of float16/bfloat16 may differ from PyTorch's by an ulp (its own kernel); weights double that
CE_HALF_TOL = {"float16": 4e-3, "bfloat16": 3.2e-2}


def cross_entropy_samples_tol(dtype):
    tol = CE_HALF_TOL.get(dtype)
    for s in cross_entropy_samples(dtype):
        if tol is not None:
            s.rtol = s.atol = tol
        yield s


def nll_samples(dtype):
    for s in cross_entropy_samples(dtype):
        if "probs" in s.name or "smoothing" in s.name:
            continue
        yield Sample(s.args, {k: v for k, v in s.kwargs.items() if k != "label_smoothing"}, name=s.name)
    yield Sample((T((4, 5)), T((4,), dtype="uint8", low=0, high=5)), name="uint8 target")


def nll_errors():
    return [e for e in cross_entropy_errors() if "probs" not in e.name and "smoothing" not in e.name]


def aten_nll_samples(dtype, *, spatial=False):
    """(self, target, weight, reduction, ignore_index) positional, every reduction."""
    if spatial:
        x, t = T((2, 3, 2, 3)), _tgt((2, 2, 3), 3, seed=1)
        ign = _tgt((2, 2, 3), 3, values=(((0, 1, 2), (2, -1, 0)), ((1, 1, 1), (-1, 2, 0))))
        w = T((3,), low=0.1, high=2, seed=2)
        extra = [Sample((T((0, 3, 2, 2)), _tgt((0, 2, 2), 3), None, 1, -100), name="empty mean"),
                 Sample((T((2, 3, 2, 2)), _tgt((2, 2, 2), 3), T((1, 3), seed=3), 1, -100), name="2-d weight"),
                 Sample((T((2, 3, 2, 2)), _tgt((2, 2, 2), 3), None, 5, -100), name="reduction 5")]
    else:
        x, t = T((6, 4)), _tgt((6,), 4, seed=1)
        ign = _tgt((6,), 4, values=(0, -1, 3, 3, -1, 1))
        w = T((4,), low=0.1, high=2, seed=2)
        extra = [Sample((T((4,)), _tgt((), 4, values=2), w, 1, -100), name="1-d input, 0-d target"),
                 Sample((T((4,)), _tgt((1,), 4, values=(3,)), None, 0, -100), name="1-d input, 1-d target"),
                 Sample((T((0, 4)), _tgt((0,), 4), None, 1, -100), name="empty mean"),
                 Sample((T((0, 4)), _tgt((0,), 4), None, 0, -100), name="empty none"),
                 Sample((T((40, 3)), _tgt((40,), 3), None, 2, -100), name="cascade sum (40 rows)"),
                 Sample((T((40, 3)), _tgt((40,), 3), T((3,), seed=4), 1, -100), name="cascade weighted mean"),
                 Sample((T((6, 4)), T((6,), dtype="uint8", low=0, high=4), None, 1, -100), name="uint8 target"),
                 Sample((T((6, 4)), _tgt((6,), 4), None, 5, -100), name="reduction 5")]
    for red in (0, 1, 2):
        yield Sample((x, t, None, red, -100), name=f"reduction {red}")
        yield Sample((x, t, w, red, -100), name=f"weight reduction {red}")
        yield Sample((x, ign, w, red, -1), name=f"ignore_index reduction {red}")
    yield from extra


def aten_nll_errors():
    return [
        ErrorSample((T((2, 3, 4)), _tgt((2,), 3), None, 1, -100), name="3-d input"),
        ErrorSample((T((3, 4)), _tgt((3, 1), 4), None, 1, -100), name="2-d target"),
        ErrorSample((T((3, 4)), _tgt((2,), 4), None, 1, -100), name="size mismatch"),
        ErrorSample((T((4,)), _tgt((2,), 4), None, 1, -100), name="1-d input, 2 targets"),
        ErrorSample((T((3, 4)), _tgt((), 4), None, 1, -100), name="0-d target"),
        ErrorSample((T((3, 4)), _tgt((3,), 4), T((5,)), 1, -100), name="weight size"),
        ErrorSample((T((3, 4)), _tgt((3,), 4), T((4,), dtype="float64"), 1, -100), name="weight dtype"),
        ErrorSample((T((3, 4)), T((3,), dtype="int32", low=0, high=4), None, 1, -100), name="int32 target"),
        ErrorSample((T((3, 4), dtype="int64"), _tgt((3,), 4), None, 1, -100), name="int input"),
        ErrorSample((T((3, 4)), _tgt((3,), 4, values=(0, 4, 1)), None, 0, -100), name="out of bounds"),
    ]


def aten_nll2d_errors():
    return [
        ErrorSample((T((2, 3, 4)), _tgt((2, 4, 4), 3), None, 1, -100), name="3-d input"),
        ErrorSample((T((2, 3, 2, 2)), _tgt((2, 2), 3), None, 1, -100), name="2-d target"),
        ErrorSample((T((2, 3, 2, 2)), _tgt((2, 2, 3), 3), None, 1, -100), name="size mismatch"),
        ErrorSample((T((2, 3, 2, 2)), _tgt((2, 2, 2), 3), T((2,)), 1, -100), name="weight size"),
        ErrorSample((T((2, 3, 2, 2)), _tgt((2, 2, 2), 3), T((3,), dtype="float64"), 1, -100), name="weight dtype"),
        ErrorSample((T((2, 3, 2, 2)), T((2, 2, 2), dtype="uint8", low=0, high=3), None, 1, -100), name="uint8"),
        ErrorSample((T((2, 3, 2, 2), dtype="int64"), _tgt((2, 2, 2), 3), None, 1, -100), name="int input"),
        ErrorSample((T((1, 3, 1, 2)), _tgt((1, 1, 2), 3, values=(((0, 3),),)), None, 1, -100), name="bounds"),
    ]


def pointwise_loss_samples(extra_kwargs=()):
    def samples(dtype):
        x, y = T((3, 4)), T((3, 4), seed=1)
        for red in REDUCTIONS:
            yield Sample((x, y), {"reduction": red}, name=f"{red}")
            for kw in extra_kwargs:
                yield Sample((x, y), {"reduction": red, **kw}, name=f"{red} {kw}")
        yield Sample((T((3, 4), layout="transposed"), T((3, 4), layout="strided", seed=1)), name="layouts")
        yield Sample((T((3, 4)), T((4,), seed=1)), {"reduction": "none"}, name="broadcast target")
        yield Sample((T(()), T((), seed=1)), name="0-d")
        yield Sample((T((0, 3)), T((0, 3), seed=1)), name="empty mean (nan)")
        yield Sample((T((0, 3)), T((0, 3), seed=1)), {"reduction": "sum"}, name="empty sum")
        yield Sample((T((40, 3)), T((40, 3), seed=2)), name="larger mean")
        yield Sample((x, T((3, 4), dtype="float64" if dtype != "float64" else "float32", seed=1)),
                     {"reduction": "none"}, name="mixed dtypes")
    return samples


def legacy_samples(base):
    def samples(dtype):
        yield from base(dtype)
        x, y = T((3, 4)), T((3, 4), seed=1)
        yield Sample((x, y), {"size_average": False}, name="size_average=False")
        yield Sample((x, y), {"reduce": False}, name="reduce=False")
        yield Sample((x, y), {"size_average": True, "reduce": True}, name="size_average reduce")
    return samples


def weighted_samples(base):
    def samples(dtype):
        yield from base(dtype)
        for red in REDUCTIONS:
            yield Sample((T((3, 4)), T((3, 4), seed=1)), {"reduction": red, "weight": T((3, 4), low=0, high=2, seed=2)},
                         name=f"weight {red}")
    return samples


def pointwise_loss_errors(extra=()):
    def errors():
        return [ErrorSample((T((3, 4)), T((3, 5))), {"reduction": "none"}, name="broadcast"),
                ErrorSample((T((3, 4)), T((3, 4))), {"reduction": "foo"}, name="bad reduction"),
                ErrorSample((T((3, 4), dtype="int64"), T((3, 4), dtype="int64")), name="int64"),
                *extra]
    return errors


def aten_pointwise_samples(*extra):
    """(self, target, reduction, *extra) positional — also for ``out=``."""
    def samples(dtype):
        x, y = T((3, 4)), T((3, 4), seed=1)
        for red in (0, 1, 2):
            yield Sample((x, y, red) + extra, name=f"reduction {red}")
        yield Sample((T((3, 4)), T((4,), seed=1), 0) + extra, name="broadcast")
        yield Sample((T((3, 4)), T((3, 4), dtype="float64", seed=1), 1) + extra, name="mixed mean", skip_out=True)
        yield Sample((T((3, 4)), T((3, 4), dtype="float64", seed=1), 0) + extra, name="mixed none", skip_out=True)
    return samples


def bce_samples(dtype):
    x, y = T((3, 4), low=0.02, high=0.98), T((3, 4), low=0, high=1, seed=1)
    w = T((3, 4), low=0, high=2, seed=2)
    for red in REDUCTIONS:
        yield Sample((x, y), {"reduction": red}, name=red)
        yield Sample((x, y, w), {"reduction": red}, name=f"weight {red}")
        yield Sample((x, y, T((4,), low=0, high=2, seed=3)), {"reduction": red}, name=f"broadcast weight {red}")
    yield Sample((T((4,), values=(0.0, 1.0, 0.5, 1.0)), T((4,), values=(1.0, 0.0, 0.5, 1.0))),
                 {"reduction": "none"}, name="log clamped at -100")
    yield Sample((x, y), {"size_average": False}, name="legacy")
    yield Sample((T((0,), low=0.1, high=0.9), T((0,))), name="empty")


def bce_errors():
    return [
        ErrorSample((T((3, 4), low=0.1, high=0.9), T((4,), low=0, high=1)), name="size"),
        ErrorSample((T((3,), values=(0.5, 1.5, 0.1)), T((3,), low=0, high=1)), name="input range"),
        ErrorSample((T((3,), values=(0.5, 0.5, 0.1)), T((3,), values=(0.0, -1.0, 1.0))), name="target range"),
        ErrorSample((T((3,), values=(0.5, NAN, 0.1)), T((3,), low=0, high=1)), name="nan input"),
        ErrorSample((T((3,), low=0.1, high=0.9), T((3,), low=0, high=1, dtype="float64")), name="dtype"),
        ErrorSample((T((3,), low=0.1, high=0.9), T((3,), low=0, high=1), T((2, 3))), name="weight grows"),
        ErrorSample((T((3,), dtype="int64", low=0, high=1), T((3,), dtype="int64", low=0, high=1)), name="int64"),
    ]


def aten_bce_samples(dtype):
    x, y = T((3, 4), low=0.02, high=0.98), T((3, 4), low=0, high=1, seed=1)
    for red in (0, 1, 2):  # out= with reduction none: PyTorch leaves a wrongly sized ``out`` unresized (a bug)
        yield Sample((x, y, None, red), name=f"reduction {red}", skip_out=red == 0)
        yield Sample((x, y, T((3, 4), low=0, high=2, seed=2), red), name=f"weight {red}", skip_out=red == 0)
    yield Sample((x, y, T((4,), dtype="float64", low=0, high=2, seed=2), 1), name="float64 weight")
    yield Sample((x, y, None, 5), name="reduction 5")


def bce_logits_samples(dtype):
    x, y = T((3, 4), low=-4, high=4), T((3, 4), low=0, high=1, seed=1)
    w = T((3, 4), low=0, high=2, seed=2)
    pw = T((4,), low=0.5, high=3, seed=3)
    for red in REDUCTIONS:
        yield Sample((x, y), {"reduction": red}, name=red)
        yield Sample((x, y, w), {"reduction": red}, name=f"weight {red}")
        yield Sample((x, y), {"reduction": red, "pos_weight": pw}, name=f"pos_weight {red}")
        yield Sample((x, y, T((4,), seed=4)), {"reduction": red, "pos_weight": pw}, name=f"both {red}")
    yield Sample((T((5,), values=(-100.0, -20.0, 0.0, 20.0, 100.0)), T((5,), low=0, high=1)), {"reduction": "none"},
                 name="extreme logits")
    yield Sample((x, y), {"reduce": False}, name="legacy")


def bce_logits_errors():
    return [
        ErrorSample((T((3, 4)), T((4,))), name="size"),
        ErrorSample((T((3, 4)), T((3, 4)), T((3,))), name="weight broadcast"),
        ErrorSample((T((3, 4)), T((3, 4)), T((2, 3, 4))), name="weight grows"),
        ErrorSample((T((3, 4)), T((3, 4))), {"pos_weight": T((3,))}, name="pos_weight broadcast"),
        ErrorSample((T((3, 4)), T((3, 4), dtype="int64", low=0, high=2)), name="int target"),
        ErrorSample((T((3, 4), dtype="int64"), T((3, 4))), name="int input"),
        ErrorSample((T((3, 4)), T((3, 4), dtype="bool")), name="bool target"),
    ]


def aten_bce_logits_samples(dtype):
    x, y = T((3, 4), low=-4, high=4), T((3, 4), low=0, high=1, seed=1)
    for red in (0, 1, 2, 5):
        yield Sample((x, y, T((3, 4), seed=2), T((4,), low=0.5, high=2, seed=3), red), name=f"reduction {red}")
    yield Sample((T((4,), low=-4, high=4), y, None, None, 0), name="input broadcast")
    yield Sample((x, T((3, 4), dtype="float64", seed=1), None, T((4,), dtype="float64", seed=3), 0),
                 name="float64 target and pos_weight", rtol=1e-6, atol=1e-6)  # float32 log_sigmoid (libm ulps)


def kl_div_samples(dtype):
    x, y = T((3, 4), low=-3, high=0), T((3, 4), low=0, high=1, seed=1)
    for red in ("none", "mean", "sum", "batchmean"):
        yield Sample((x, y), {"reduction": red}, name=red)
        yield Sample((x, T((3, 4), low=-3, high=0, seed=1)), {"reduction": red, "log_target": True},
                     name=f"log_target {red}")
    yield Sample((x, T((3, 4), values=((0.0, 0.5, 1.0, 0.0),) * 3)), {"reduction": "none"}, name="zero target")
    yield Sample((T(()), T((), low=0, high=1)), {"reduction": "batchmean"}, name="0-d batchmean")
    yield Sample((x, y), {"size_average": False}, name="legacy")


def kl_div_errors():
    return [ErrorSample((T((3,), dtype="int64"), T((3,))), name="integral"),
            ErrorSample((T((3,)), T((3,))), {"reduction": "avg"}, name="bad reduction")]


def aten_kl_div_samples(dtype):
    x, y = T((3, 4), low=-3, high=0), T((3, 4), low=0, high=1, seed=1)
    for red in (0, 1, 2):
        for log_target in (False, True):
            yield Sample((x, y, red), {"log_target": log_target}, name=f"reduction {red} log_target={log_target}")


def cosine_similarity_samples(dtype):
    x1, x2 = T((4, 5)), T((4, 5), seed=1)
    yield Sample((x1, x2), name="default dim 1")
    yield Sample((x1, x2), {"dim": 0, "eps": 1e-3}, name="dim 0, eps")
    yield Sample((T((2, 3)), T((1, 1), seed=1)), name="broadcast")
    yield Sample((T((2, 3, 4)), T((4,), seed=1)), {"dim": -1}, name="broadcast last dim")
    yield Sample((x1, T((4, 5), values=((0.0,) * 5,) * 4)), name="zero norm clamped")
    yield Sample((T((6,), layout="strided"), T((6,), seed=1)), {"dim": 0}, name="strided")
    yield Sample((T((3,), dtype="int8", low=1, high=4), T((3,), seed=1)), {"dim": 0}, name="int8 with float")


def cosine_similarity_errors():
    return [ErrorSample((T((3,), dtype="int64"), T((3,), dtype="int64")), {"dim": 0}, name="integral"),
            ErrorSample((T((3, 2)), T((4, 2))), {"dim": 0}, name="broadcast")]


def pairwise_distance_samples(dtype):
    x1, x2 = T((4, 5)), T((4, 5), seed=1)
    yield Sample((x1, x2), name="default p=2")
    yield Sample((x1, x2), {"p": 1.0, "keepdim": True}, name="p=1 keepdim")
    yield Sample((x1, x2), {"p": 0.5, "eps": 1e-3}, name="p=0.5 eps")
    yield Sample((T((2, 3, 4)), T((4,), seed=1)), {"p": float("inf")}, name="broadcast, inf norm")
    yield Sample((T(()), T((), seed=1)), name="0-dim")
    yield Sample((T((3,), dtype="int64", low=-3, high=4), T((3,), dtype="int64", low=-3, high=4, seed=1)),
                 name="integral: the eps makes it float")


def _aten_backward(name):
    """``torch.ops.aten.<name>`` for a bindingless NLL backward (``out=``: its ``grad_input``)."""
    def get(lib):
        def call(*args, out=None):
            packet = getattr(lib.ops.aten, name)
            return packet(*args) if out is None else packet.grad_input(*args, grad_input=out)
        return call
    return get


def nll_backward_samples(dtype, *, spatial=False):
    """(grad_output, self, target, weight, reduction, ignore_index, total_weight) from the forward's samples."""
    tw = T((), low=0.5, high=3.0, seed=5)
    for s in aten_nll_samples(dtype, spatial=spatial):
        x, t, w, red, ign = s.args
        if red not in (0, 1, 2) or (w is not None and len(w.shape) != 1):
            continue
        batched = len(x.shape) > 1
        g_shape = (x.shape[0], *x.shape[2:]) if red == 0 and batched else ()
        yield Sample((T(g_shape, seed=6), x, t, w, red, ign, tw), name=s.name)
    if not spatial:
        yield Sample((T((), seed=6), T((4, 3), layout="transposed"), _tgt((4,), 3), None, 1, -100, tw),
                     name="transposed input")


def nll_backward_errors(spatial=False):
    x, t = (T((2, 3, 2, 2)), _tgt((2, 2, 2), 3)) if spatial else (T((3, 4)), _tgt((3,), 4))
    g, tw = T(()), T((), low=1, high=2)
    bad = (((0, 1), (2, 7)), ((1, 0), (0, 2))) if spatial else (0, 7, 1)  # class 7: out of bounds
    out = [ErrorSample((T((3,)), x, t, None, 1, -100, tw), name="grad not single"),
           ErrorSample((g, x, t, None, 1, -100, T((2,))), name="total_weight"),
           ErrorSample((g, x, t, T((7,)), 1, -100, tw), name="weight"),
           ErrorSample((g, x, _tgt(t.shape, 9, values=bad), None, 1, -100, tw), name="bounds"),
           ErrorSample((g, x, T(t.shape, dtype="int32", low=0, high=3), None, 1, -100, tw), name="int32 target"),
           ErrorSample((T((), dtype="float64"), x, t, None, 1, -100, tw), name="grad dtype"),
           ErrorSample((g, T(x.shape, dtype="int64"), t, None, 1, -100, tw), name="int input"),
           ErrorSample((g, x, _tgt((1, *t.shape[1:]), 3), None, 1, -100, tw), name="batch mismatch")]
    if spatial:
        out += [ErrorSample((T((2, 2, 3)), x, t, None, 0, -100, tw), name="none grad size"),
                ErrorSample((g, T((3, 2, 2)), t, None, 1, -100, tw), name="3-d input"),
                ErrorSample((g, x, _tgt((2, 2), 3), None, 1, -100, tw), name="2-d target")]
    else:
        out += [ErrorSample((T((2,)), x, t, None, 0, -100, tw), name="none grad size"),
                ErrorSample((g, T((2, 3, 4)), t, None, 1, -100, tw), name="3-d input"),
                ErrorSample((g, x, _tgt((3, 1), 4), None, 1, -100, tw), name="2-d target")]
    return out



def _pm_one(shape):
    """A target of +-1 values (and a 0: the losses treat values other than +-1 specially)."""
    n = math.prod(shape)
    return T(shape, values=np.resize([1.0, -1.0, 1.0, 0.0, -1.0, -1.0], n).reshape(shape).tolist())


def embedding_loss_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), seed=1), _pm_one((3,)), 0.0, 1), name="2-d")
    yield Sample((T((4,)), T((4,), seed=1), T((), values=-1.0), 0.2, 2), name="1-d margin")
    yield Sample((T((3, 4)), T((3, 4), seed=1), _pm_one((3,)), 0.5, 0), name="none")


def hinge_samples(dtype):
    yield Sample((T((3, 4)), _pm_one((3, 4)), 1.0, 1), name="mean")
    yield Sample((T((5,)), _pm_one((5,)), 0.5, 2), name="sum margin")


def ranking_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), seed=1), _pm_one((3, 4)), 0.0, 1), name="mean")
    yield Sample((T((5,)), T((5,), seed=1), _pm_one((5,)), 0.3, 0), name="none")


def poisson_samples(dtype):
    t = T((3, 4), low=0.0, high=4.0, seed=2)
    yield Sample((T((3, 4)), t, True, False, 1e-8, 1), name="log input")
    yield Sample((T((3, 4), low=0.1, high=3.0), t, False, True, 1e-8, 2), name="full")


def triplet_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), seed=1), T((3, 4), seed=2), 1.0, 2.0, 1e-6, False, 1), name="mean")
    yield Sample((T((3, 4)), T((3, 4), seed=1), T((3, 4), seed=2), 0.5, 1.0, 1e-6, True, 0), name="p=1 swap")


def soft_margin_samples(dtype):
    yield Sample((T((3, 4)), _pm_one((3, 4)), 1), name="mean")
    yield Sample((T((5,)), _pm_one((5,)), 0), name="none")



def pdist_samples(dtype):
    for p in (2.0, 1.0, 0.0, 0.5, 3.0, float("inf")):
        yield Sample((T((5, 3)), p), name=f"p={p}")
    yield Sample((T((1, 3)),), name="one row")
    yield Sample((T((4, 3), layout="transposed"),), name="transposed")


def pdist_backward_samples(dtype):
    x = T((4, 3))
    yield Sample((T((6,), seed=1), x, 2.0, T((6,), seed=2, low=0.5, high=2.0)), name="p=2")
    yield Sample((T((6,), seed=1), x, 1.5, T((6,), seed=2, low=0.5, high=2.0)), name="p=1.5")



def multi_margin_samples(dtype):
    x, t = T((4, 5)), T((4,), dtype="int64", low=0, high=5)
    yield Sample((x, t, 1, 1.0, None, 1), name="mean")
    yield Sample((x, t, 2, 0.5, T((5,), seed=3, low=0.1, high=2.0), 2), name="p=2 weight sum")
    yield Sample((T((5,)), T((), dtype="int64", low=0, high=5), 1, 1.0, None, 0), name="1-d none")


def multilabel_margin_samples(dtype):
    t = T((3, 4), dtype="int64", values=[[0, 2, -1, 1], [3, -1, 0, 0], [1, 1, 2, -1]])
    yield Sample((T((3, 4)), t, 1), name="mean")
    yield Sample((T((3, 4)), t, 0), name="none")
    yield Sample((T((4,)), T((4,), dtype="int64", values=[3, 0, -1, 2]), 2), name="1-d sum")


OPS = [
    OpInfo("nn.functional.cross_entropy", aten=("cross_entropy_loss",), samples=cross_entropy_samples_tol,
           dtypes=LOSS_DTYPES, errors=cross_entropy_errors),
    OpInfo("nn.functional.nll_loss", aten=("nll_loss_nd",), samples=nll_samples, dtypes=LOSS_DTYPES,
           errors=nll_errors),
    LossOpInfo("_C._nn.nll_loss", aten=("nll_loss", "nll_loss.out"), fn=_C_nn("nll_loss"), out=True,
               samples=lambda dt: aten_nll_samples(dt), dtypes=LOSS_DTYPES, errors=aten_nll_errors),
    LossOpInfo("_C._nn.nll_loss2d", aten=("nll_loss2d", "nll_loss2d.out"), fn=_C_nn("nll_loss2d"), out=True,
               samples=lambda dt: aten_nll_samples(dt, spatial=True), dtypes=LOSS_DTYPES, errors=aten_nll2d_errors),
    LossOpInfo("ops.aten.nll_loss_forward", aten=("nll_loss_forward", "nll_loss_forward.output"),
               fn=_aten_pair("nll_loss_forward"), out=True, samples=lambda dt: aten_nll_samples(dt),
               dtypes=LOSS_DTYPES, errors=aten_nll_errors),
    LossOpInfo("ops.aten.nll_loss2d_forward", aten=("nll_loss2d_forward", "nll_loss2d_forward.output"),
               fn=_aten_pair("nll_loss2d_forward"), out=True, samples=lambda dt: aten_nll_samples(dt, spatial=True),
               dtypes=LOSS_DTYPES, errors=aten_nll2d_errors),
    # gradcheck=False: the formula for grad_output (torch's too) is nll_loss of the gradient, which recomputes the
    # total weight; with the samples' arbitrary total_weight input that is not the derivative (torch's values are
    # compared by test_op_grad)
    LossOpInfo("ops.aten.nll_loss_backward", aten=("nll_loss_backward", "nll_loss_backward.grad_input"),
               fn=_aten_backward("nll_loss_backward"), out=True, samples=nll_backward_samples, dtypes=LOSS_DTYPES,
               errors=nll_backward_errors, gradcheck=False),
    LossOpInfo("ops.aten.nll_loss2d_backward", aten=("nll_loss2d_backward", "nll_loss2d_backward.grad_input"),
               fn=_aten_backward("nll_loss2d_backward"), out=True,
               samples=lambda dt: nll_backward_samples(dt, spatial=True), dtypes=LOSS_DTYPES,
               errors=lambda: nll_backward_errors(spatial=True), gradcheck=False),
    OpInfo("nn.functional.mse_loss", aten=(), samples=weighted_samples(legacy_samples(pointwise_loss_samples())),
           dtypes=LOSS_DTYPES, errors=pointwise_loss_errors()),
    LossOpInfo("_C._nn.mse_loss", aten=("mse_loss", "mse_loss.out"), fn=_C_nn("mse_loss"), out=True,
               samples=aten_pointwise_samples(), dtypes=LOSS_DTYPES,
               errors=lambda: [ErrorSample((T((3,)), T((3,)), 5), name="bad reduction")]),
    OpInfo("nn.functional.l1_loss", aten=("l1_loss",), samples=weighted_samples(legacy_samples(
        pointwise_loss_samples())), dtypes=LOSS_DTYPES,
           errors=lambda: [ErrorSample((T((3, 4)), T((3, 5))), name="broadcast"),
                           ErrorSample((T((3,), dtype="bool"), T((3,), dtype="bool")), name="bool"),
                           ErrorSample((T((3,), dtype="int64"), T((3,), dtype="int64")), name="int mean")]),
    OpInfo("nn.functional.smooth_l1_loss", aten=(), samples=legacy_samples(pointwise_loss_samples(
        ({"beta": 0.5}, {"beta": 0.0}, {"beta": 3.0}))), dtypes=LOSS_DTYPES,
           errors=pointwise_loss_errors([ErrorSample((T((3,)), T((3,))), {"beta": -1.0}, name="negative beta")])),
    LossOpInfo("_C._nn.smooth_l1_loss", aten=("smooth_l1_loss", "smooth_l1_loss.out"), fn=_C_nn("smooth_l1_loss"),
               out=True, samples=aten_pointwise_samples(0.7), dtypes=LOSS_DTYPES),
    OpInfo("nn.functional.huber_loss", aten=(), samples=weighted_samples(pointwise_loss_samples(
        ({"delta": 0.5}, {"delta": 2.5}))), dtypes=LOSS_DTYPES,
           errors=pointwise_loss_errors([ErrorSample((T((3,)), T((3,))), {"delta": 0.0}, name="zero delta"),
                                         ErrorSample((T((3,)), T((3,))), {"weight": T((4,))}, name="weight size")])),
    LossOpInfo("_C._nn.huber_loss", aten=("huber_loss", "huber_loss.out"), fn=_C_nn("huber_loss"), out=True,
               samples=aten_pointwise_samples(1.5), dtypes=LOSS_DTYPES,
               errors=lambda: [ErrorSample((T((3,), dtype="int64"), T((3,)), 1, 1.0), name="int input")]),
    OpInfo("nn.functional.binary_cross_entropy", aten=(), samples=bce_samples, dtypes=LOSS_DTYPES,
           errors=bce_errors),
    LossOpInfo("_C._nn.binary_cross_entropy", aten=("binary_cross_entropy", "binary_cross_entropy.out"),
               fn=_C_nn("binary_cross_entropy"), out=True, samples=aten_bce_samples, dtypes=LOSS_DTYPES),
    OpInfo("nn.functional.binary_cross_entropy_with_logits", aten=(), samples=bce_logits_samples,
           dtypes=LOSS_DTYPES, errors=bce_logits_errors),
    OpInfo("binary_cross_entropy_with_logits", aten=("binary_cross_entropy_with_logits",),
           samples=aten_bce_logits_samples, dtypes=LOSS_DTYPES),
    OpInfo("nn.functional.kl_div", aten=(), samples=kl_div_samples, dtypes=LOSS_DTYPES, errors=kl_div_errors),
    OpInfo("kl_div", aten=("kl_div",), samples=aten_kl_div_samples, dtypes=LOSS_DTYPES),
    OpInfo("pdist", aten=("pdist", "_pdist_forward"), samples=pdist_samples, dtypes=FLOATS,
           errors=lambda: [ErrorSample((T((3,)),), name="1-d"), ErrorSample((T((3, 2)), -1.0), name="negative p"),
                           ErrorSample((T((3, 2), dtype="int64"),), name="int64"),
                           ErrorSample((T((3, 2), dtype="bfloat16"),), name="bfloat16")]),
    LossOpInfo("ops.aten._pdist_backward", aten=("_pdist_backward",), fn=_aten_backward("_pdist_backward"),
               samples=pdist_backward_samples, dtypes=FLOATS, grad=False),
    LossOpInfo("_C._nn.multi_margin_loss", aten=("multi_margin_loss",), fn=_C_nn("multi_margin_loss"),
               samples=multi_margin_samples, dtypes=FLOATS,
               # torch refuses a weight that requires grad; the composition here would differentiate it
               grad_samples=lambda dt: (s for s in multi_margin_samples(dt) if "weight" not in s.name),
               errors=lambda: [ErrorSample((T((3, 4)), T((2,), dtype="int64")), name="target size"),
                               ErrorSample((T((3, 4)), T((3,), dtype="int64", low=4, high=5)), name="target range"),
                               ErrorSample((T((2, 3, 4)), T((2,), dtype="int64")), name="3-d input")]),
    LossOpInfo("_C._nn.multilabel_margin_loss", aten=("multilabel_margin_loss",),
               fn=_C_nn("multilabel_margin_loss"), samples=multilabel_margin_samples, dtypes=FLOATS,
               errors=lambda: [ErrorSample((T((3, 4)), T((2, 4), dtype="int64")), name="target size"),
                               ErrorSample((T((3, 4)), T((3, 4), dtype="int64", low=4, high=6)), name="range")]),
    OpInfo("cosine_embedding_loss", aten=("cosine_embedding_loss",), samples=embedding_loss_samples,
           dtypes=LOSS_DTYPES, errors=lambda: [ErrorSample((T((3, 4)), T((3, 4)), T((3, 1))), name="2-d target"),
                                               ErrorSample((T((4,)), T((4,)), T((3,))), name="1-d inputs")]),
    OpInfo("hinge_embedding_loss", aten=("hinge_embedding_loss",), samples=hinge_samples, dtypes=LOSS_DTYPES),
    OpInfo("margin_ranking_loss", aten=("margin_ranking_loss",), samples=ranking_samples, dtypes=LOSS_DTYPES),
    OpInfo("poisson_nll_loss", aten=("poisson_nll_loss",), samples=poisson_samples, dtypes=LOSS_DTYPES),
    OpInfo("triplet_margin_loss", aten=("triplet_margin_loss",), samples=triplet_samples, dtypes=LOSS_DTYPES,
           errors=lambda: [ErrorSample((T((3, 4)), T((4,)), T((3, 4))), name="dims")]),
    LossOpInfo("_C._nn.soft_margin_loss", aten=("soft_margin_loss",), fn=_C_nn("soft_margin_loss"),
               samples=soft_margin_samples, dtypes=LOSS_DTYPES),
    OpInfo("cosine_similarity", aten=("cosine_similarity",), samples=cosine_similarity_samples, dtypes=LOSS_DTYPES,
           errors=cosine_similarity_errors),
    OpInfo("nn.functional.cosine_similarity", aten=(), samples=cosine_similarity_samples, dtypes=LOSS_DTYPES),
    OpInfo("pairwise_distance", aten=("pairwise_distance",), samples=pairwise_distance_samples, dtypes=LOSS_DTYPES),
    OpInfo("nn.functional.pairwise_distance", aten=(), samples=pairwise_distance_samples, dtypes=LOSS_DTYPES),
]
