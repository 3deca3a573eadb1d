"""OpInfo entries: reductions and scans (glasstorch/_ops/native_functions/reduce.yaml).

Samples cover 0-dim, empty and non-contiguous (transposed, strided, expanded) inputs; dims given as one int,
a list, negative, empty and None; keepdim; the dtype= argument; and out= where PyTorch's Python binding has it
(``torch.sum(x, out=...)`` without dim is a TypeError in PyTorch too, so those samples skip out=).
"""

from __future__ import annotations

import dataclasses
import math

from opinfo import ALL, ALL_FLOAT, DType, ErrorSample, OpInfo, Sample, T

import glasstorch as gt

NAN, INF = math.nan, math.inf

# every reduction sees these inputs
_INPUTS = [
    ("0-dim", T(())), ("1-d", T((5,))), ("2-d", T((3, 4))), ("3-d", T((2, 3, 4))), ("empty", T((0,))),
    ("empty-3d", T((2, 0, 3))), ("transposed", T((3, 4), layout="transposed")),
    ("strided", T((3, 6), layout="strided")), ("expanded", T((3, 4), layout="expanded")),
]
_FLOATS = ("float32", "float64", "float16", "bfloat16")
_DTYPES = tuple(d for d in ALL if d != "int16")  # int16 adds nothing int8/int32 do not cover


def _spec(t: T, low, high) -> T:
    return dataclasses.replace(t, low=low, high=high)


def _dim_lists(ndim):
    """(dim, keepdim, name) for an ``int[1]?`` dim argument of a tensor with ``ndim`` dims."""
    if ndim == 0:
        return [(0, False, "dim 0"), (-1, True, "dim -1 keepdim"), ([0], False, "dims [0]")]
    out = [(0, False, "dim 0"), (-1, True, "dim -1 keepdim"), ([], False, "dims []"),
           ((-1, 0) if ndim > 1 else (0,), True, "dims (-1, 0) keepdim")]
    if ndim == 3:
        out.append(([2, 0], False, "dims [2, 0]"))
    return out


def _single_dims(ndim):
    """(dim, keepdim, name) for an ``int`` dim argument."""
    return [(0, False, "dim 0"), (-1, True, "dim -1 keepdim")] + ([(1, False, "dim 1")] if ndim > 1 else [])


def _nan_inputs(dtype):
    """Ties and NaN (floats): first index wins, NaN propagates."""
    if dtype in _FLOATS:
        yield "nan", T((2, 4), values=((1.0, NAN, 3.0, NAN), (2.0, 2.0, -INF, INF)))
    yield "ties", T((2, 3), values=((1, 3, 3), (2, 2, 0)))


# -- sample generators ---------------------------------------------------------------------------------------
def sum_samples(dtype, low=-5.0, high=5.0, nodim_out=False):
    for name, t in _INPUTS:
        t = _spec(t, low, high)
        yield Sample((t,), name=f"{name} all", skip_out=not nodim_out)
        for dim, keepdim, dname in _dim_lists(len(t.shape)):
            yield Sample((t, dim, keepdim), name=f"{name} {dname}")
    yield Sample((T((3, 4)), None), name="dim None")
    yield Sample((T((3, 4)),), {"dtype": DType("float64")}, name="all dtype=float64", skip_out=not nodim_out)
    yield Sample((T((2, 3, 4), layout="transposed"), [0, 2]), {"keepdim": True, "dtype": DType("float32")},
                 name="dtype=float32")


def mean_samples(dtype):
    yield from sum_samples(dtype, nodim_out=True)
    yield Sample((T((3, 4), dtype="int64"), 1), {"dtype": DType("float64")}, name="int input dtype=float64")
    yield Sample((T((3, 4), dtype="float16"),), {"dtype": DType("float32")}, name="half dtype=float32")


def prod_samples(dtype):
    for name, t in _INPUTS:
        t = _spec(t, -2.0, 2.0)
        yield Sample((t,), name=f"{name} all", skip_out=True)
        for dim, keepdim, dname in _single_dims(len(t.shape)):
            yield Sample((t, dim, keepdim), name=f"{name} {dname}")
    yield Sample((T((2, 3, 4), low=-2, high=2), 1), {"dtype": DType("float64")}, name="dtype=float64")
    yield Sample((T((4, 6), low=-2, high=2),), {"dtype": DType("int32")}, name="all dtype=int32", skip_out=True)


def prod_grad_samples(dtype):
    """Gradients: plain values, and zeros (one, two and all in a slice), where prod's backward cannot divide."""
    yield Sample((T((2, 3, 4), low=-2, high=2),), name="3-d all")
    yield Sample((T((3, 4), low=-2, high=2), 1), name="2-d dim 1")
    zeros = T((3, 4), values=((1.5, 0.0, -2.0, 3.0), (0.0, 2.0, 0.0, -1.0), (0.0, 0.0, 0.0, 0.0)))
    yield Sample((zeros,), name="zeros all")
    yield Sample((T((2, 3), values=((1.5, 0.0, -2.0), (3.0, 0.5, 2.0))),), name="one zero all")
    yield Sample((zeros, 1), name="zeros dim 1")
    yield Sample((zeros, 0, True), name="zeros dim 0 keepdim")
    yield Sample((T((4, 6), low=-2, high=2),), {"dtype": DType("int32")}, name="all dtype=int32")


def minmax_samples(dtype):
    for name, t in _INPUTS + list(_nan_inputs(dtype)):
        yield Sample((t,), name=f"{name} all")
        for dim, keepdim, dname in _single_dims(len(t.shape)):
            yield Sample((t, dim, keepdim), name=f"{name} {dname}")
    yield Sample((T((2, 3, 4), low=0, high=3), 2), {"keepdim": False}, name="small ints ties")


def binary_minmax_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), seed=1)), name="same shape")
    yield Sample((T((3, 4), layout="transposed"), T((4,), seed=1)), name="broadcast")
    yield Sample((T(()), T((2, 3), seed=1)), name="0-dim")
    if dtype in _FLOATS:
        yield Sample((T((4,), values=(NAN, 1.0, 2.0, -INF)), T((4,), values=(0.0, NAN, 3.0, INF))), name="nan")


def amax_samples(dtype):
    for name, t in _INPUTS + list(_nan_inputs(dtype)):
        yield Sample((t,), name=f"{name} default dims")
        for dim, keepdim, dname in _dim_lists(len(t.shape)):
            yield Sample((t, dim, keepdim), name=f"{name} {dname}")


def argmax_samples(dtype):
    for name, t in _INPUTS + list(_nan_inputs(dtype)):
        yield Sample((t,), name=f"{name} flat")
        yield Sample((t,), {"keepdim": True}, name=f"{name} flat keepdim")
        for dim, keepdim, dname in _single_dims(len(t.shape)):
            yield Sample((t, dim, keepdim), name=f"{name} {dname}")


def var_samples(dtype):
    for name, t in _INPUTS:
        yield Sample((t,), name=f"{name} all", skip_out=True)
        yield Sample((t, False), name=f"{name} all biased", skip_out=True)
        for dim, keepdim, dname in _dim_lists(len(t.shape)):
            yield Sample((t, dim, not keepdim, keepdim), name=f"{name} {dname} unbiased={not keepdim}")
            yield Sample((t, dim), {"correction": 0, "keepdim": not keepdim}, name=f"{name} {dname} correction=0")
    yield Sample((T((3, 4)),), {"dim": 1, "correction": 2}, name="correction=2")
    yield Sample((T((3, 4)),), {"dim": 0, "correction": 1.5}, name="correction=1.5")
    yield Sample((T((3, 4)),), {"dim": 0, "correction": 5}, name="correction > N")
    yield Sample((T((3, 4)),), {"correction": 0}, name="all correction=0")
    yield Sample((T((3, 4)), None), {"unbiased": False}, name="dim None unbiased=False")
    yield Sample((T((5, 3), values=((1e4 + 1, 2, 3),) * 5),), {"dim": 0}, name="constant columns")


def norm_samples(dtype):
    for name, t in _INPUTS:
        yield Sample((t,), name=f"{name} default", skip_out=True)
        for p in (1, 3, INF, -INF, 0):
            yield Sample((t, p), name=f"{name} p={p}", skip_out=True)
        for dim, keepdim, dname in _dim_lists(len(t.shape)):
            yield Sample((t, INF if keepdim else 2, dim, keepdim), name=f"{name} {dname}")
    yield Sample((T((3, 4)), 0.5, (0, 1), False), name="p=0.5 dims")
    yield Sample((T((3, 4)), -1, 1, True), name="p=-1")
    yield Sample((T((2, 3, 4)), 2, [0, 2], False), {"dtype": DType("float64")}, name="dtype=float64")
    yield Sample((T((3, 4)), 1), {"dtype": DType("float64")}, name="all dtype=float64", skip_out=True)
    if dtype in _FLOATS:
        yield Sample((T((2, 4), values=((1.0, NAN, 3.0, 0.0), (2.0, 2.0, -INF, 1.0))), INF, 1), name="nan inf")


def vector_norm_samples(dtype):
    for name, t in _INPUTS:
        yield Sample((t,), name=f"{name} default")
        for ord in (1, 2.0, INF, -INF, 0, 3, -1.5):
            yield Sample((t, ord), name=f"{name} ord={ord}")
        for dim, keepdim, dname in _dim_lists(len(t.shape)):
            yield Sample((t, 1 if keepdim else 2, dim, keepdim), name=f"{name} {dname}")
        yield Sample((t,), {"dim": None, "keepdim": True}, name=f"{name} dim=None keepdim")
    yield Sample((T((3, 4)),), {"ord": 2, "dim": 1, "dtype": DType("float64")}, name="dtype=float64")


def logsumexp_samples(dtype):
    for name, t in _INPUTS:
        for dim, keepdim, dname in _dim_lists(len(t.shape)):
            yield Sample((t, dim, keepdim or dim == []), name=f"{name} {dname}")
    if dtype in _FLOATS:
        yield Sample((T((3, 2), values=((INF, 1.0), (-INF, -INF), (NAN, 0.0))), 1), name="infinities")
    yield Sample((T((3, 4), low=50, high=90), 1), name="large values")


def allany_samples(dtype):
    for name, t in _INPUTS + [("zeros", T((2, 3), values=((0, 0, 1), (0, 0, 0))))]:
        yield Sample((t,), name=f"{name} all")
        for dim, keepdim, dname in _single_dims(len(t.shape)):
            yield Sample((t, dim, keepdim), name=f"{name} {dname}")
        for dim, keepdim, dname in _dim_lists(len(t.shape)):
            if isinstance(dim, (list, tuple)):
                yield Sample((t,), {"dim": dim, "keepdim": keepdim}, name=f"{name} {dname}")
        yield Sample((t, None), name=f"{name} dim None")


def count_nonzero_samples(dtype):
    for name, t in _INPUTS + [("zeros", T((2, 3), values=((0, 0, 1), (0, 0, 0))))]:
        yield Sample((t,), name=f"{name} all")
        for dim, _, dname in _dim_lists(len(t.shape)):
            yield Sample((t, dim), name=f"{name} {dname}")


def cum_samples(dtype, low=-5.0, high=5.0):
    for name, t in _INPUTS:
        t = _spec(t, low, high)
        for dim, _, dname in _single_dims(len(t.shape)):
            yield Sample((t, dim), name=f"{name} {dname}")
    yield Sample((T((3, 4), low=low, high=high), 1), {"dtype": DType("float64")}, name="dtype=float64",
                 skip_inplace=True)
    yield Sample((T((3, 4), low=low, high=high), 0), {"dtype": DType("int32")}, name="dtype=int32",
                 skip_inplace=True)
    yield Sample((T((3, 4), dtype="float32", low=low, high=high), 0), {"dtype": DType("float16")},
                 name="float32 dtype=float16", skip_inplace=True)


def cumprod_samples(dtype):
    yield from cum_samples(dtype, -2.0, 2.0)


# -- errors (torch's exception type and message) -------------------------------------------------------------
def _out(dtype):
    return T((0,), dtype=dtype)


def sum_errors():
    return [ErrorSample((T((3, 4)), [0, 0]), name="duplicate dims"),
            ErrorSample((T((3, 4)), [1, -1]), name="duplicate wrapped dims"),
            ErrorSample((T((3, 4)), 2), name="dim out of range"),
            ErrorSample((T(()), 1), name="0-dim dim 1"),
            ErrorSample((T(()), [0, -1]), name="0-dim duplicate"),
            ErrorSample((T((3, 4)), 0), {"dtype": DType("float64"), "out": _out("float32")}, name="out dtype")]


def mean_errors():
    return [ErrorSample((T((3, 4), dtype="int64"),), name="int input"),
            ErrorSample((T((3, 4), dtype="bool"), 0), name="bool input"),
            ErrorSample((T((3, 4)),), {"dtype": DType("int64")}, name="int dtype"),
            ErrorSample((T((3, 4), dtype="int32"), 0), {"out": _out("float32")}, name="int input float out"),
            ErrorSample((T((3, 4)), 0), {"out": _out("int64")}, name="int out"),
            ErrorSample((T((3, 4)), 0), {"dtype": DType("float64"), "out": _out("float32")}, name="out dtype"),
            ErrorSample((T((3, 4)), [0, 0]), name="duplicate dims")]


def minmax_errors(name):
    def errors():
        return [ErrorSample((T((0,)),), name="empty"),
                ErrorSample((T((2, 0)),), name="empty 2-d"),
                ErrorSample((T((2, 0)), 1), name="empty dim"),
                ErrorSample((T((0, 3)), -2), name="empty negative dim"),
                ErrorSample((T((3, 4)), 2), name="dim out of range"),
                ErrorSample((T(()), 1), name="0-dim dim 1"),
                ErrorSample((T((3, 4)), 0), {"out": (_out("float32"), _out("float32"))}, name="indices out dtype"),
                ErrorSample((T((3, 4)), 0), {"out": (_out("float64"), _out("int64"))}, name="values out dtype"),
                ErrorSample((T((3, 4)),), {"out": _out("int64")}, name="unary out cast"),
                ErrorSample((T((3,), dtype="complex64"), 0), name="complex dim")]
    return errors


def amax_errors():
    return [ErrorSample((T((0, 3)),), name="empty default dims"),
            ErrorSample((T((0, 3)), []), name="empty dims []"),
            ErrorSample((T((0, 3)), 0), name="empty dim"),
            ErrorSample((T((0, 3)), -2), name="empty negative dim"),
            ErrorSample((T((0, 3)), [1, 0]), name="empty second dim"),
            ErrorSample((T((0, 3)), [1, 1]), name="duplicate"),
            ErrorSample((T((3, 4)), [1, -1]), name="duplicate wrapped"),
            ErrorSample((T((0, 3)), 5), name="empty out of range"),
            ErrorSample((T((3, 4)), 0), {"out": _out("float64")}, name="out dtype")]


def argmax_errors():
    return [ErrorSample((T((0,)),), name="empty flat"),
            ErrorSample((T((0, 3)), 0), name="empty dim"),
            ErrorSample((T((0, 3)), -2), name="empty negative dim"),
            ErrorSample((T((3, 4)), 2), name="dim out of range"),
            ErrorSample((T((3,), dtype="bool"),), name="bool"),
            ErrorSample((T((0,), dtype="bool"),), name="empty bool"),
            ErrorSample((T((3,), dtype="complex64"),), name="complex"),
            ErrorSample((T((3, 4)), 0), {"out": _out("int32")}, name="out dtype")]


def var_errors():
    return [ErrorSample((T((3, 4), dtype="int64"),), name="int"),
            ErrorSample((T((3, 4), dtype="int64"), 0), name="int dim"),
            ErrorSample((T((3, 4)), [0, 0]), name="duplicate dims"),
            ErrorSample((T((3, 4)), 3), name="dim out of range"),
            ErrorSample((T((3, 4)), 0), {"out": _out("int64")}, name="out cast")]


def var_mean_errors(name):
    def errors():
        return [ErrorSample((T((3, 4), dtype="int64"),), name="int"),
                ErrorSample((T((3, 4)), [1, 1]), name="duplicate dims")]
    return errors


def norm_errors():
    return [ErrorSample((T((0,)), INF), name="empty inf"),
            ErrorSample((T((3, 4)), 2, 0), {"out": _out("float64")}, name="out dtype"),
            ErrorSample((T((3, 4), dtype="float64"), 2), {"dtype": DType("float32")}, name="narrowing")]


def vector_norm_errors():
    return [ErrorSample((T((3, 4), dtype="int64"),), name="int"),
            ErrorSample((T((0, 3)), INF), name="empty inf"),
            ErrorSample((T((0, 3)), -1), name="empty negative"),
            ErrorSample((T((0, 3)), INF, 0), name="empty dim"),
            ErrorSample((T((0, 3)), -INF, -2), name="empty negative dim"),
            ErrorSample((T((3, 4)), 2), {"dtype": DType("int64")}, name="int dtype"),
            ErrorSample((T((3, 4)), 2), {"dtype": DType("complex64")}, name="complex dtype"),
            ErrorSample((T((3, 4), dtype="float64"), 2), {"dtype": DType("float16")}, name="narrowing"),
            ErrorSample((T((3, 4)), 2, 0), {"out": _out("float64")}, name="out dtype"),
            ErrorSample((T((3, 4)), 2, [0, 0]), name="duplicate dims")]


def logsumexp_errors():
    return [ErrorSample((T((3, 4)), []), name="dims [] without keepdim"),
            ErrorSample((T((4,)), ()), name="1-d dims ()"),
            ErrorSample((T((3, 4)), [0, 0]), name="duplicate"),
            ErrorSample((T((3, 4)), 0), {"out": _out("int64")}, name="int out")]


def allany_errors():
    return [ErrorSample((T((3, 4)),), {"out": _out("float32")}, name="float out"),
            ErrorSample((T((3, 4)), 0), {"out": _out("int64")}, name="int out"),
            ErrorSample((T((3, 4)), [0, 0]), name="duplicate"),
            ErrorSample((T((3, 4)), 2), name="out of range")]


def count_nonzero_errors():
    return [ErrorSample((T((3, 4)), [0, 0]), name="duplicate"),
            ErrorSample((T((3, 4)), 3), name="out of range"),
            ErrorSample((T((3, 4)), [0, 1, 2]), name="list out of range")]


def cum_errors():
    return [ErrorSample((T((3, 4)), 2), name="out of range"),
            ErrorSample((T(()), 1), name="0-dim dim 1"),
            ErrorSample((T((3,), dtype="int64"), 0), {"dtype": DType("float16"), "out": _out("float32")},
                        name="out dtype"),
            ErrorSample((T((3,), dtype="bool"), 0), {"dtype": DType("bool")}, name="bool"),
            ErrorSample((T((3,), dtype="bool"), 0), form="inplace", name="bool in place")]


@dataclasses.dataclass
class _LinalgOpInfo(OpInfo):
    """``torch.linalg.*``: glasstorch's generated binding until ``glasstorch.linalg`` exists (shared fix)."""

    def lib_fn(self, lib):
        if lib is gt and not hasattr(gt, "linalg"):
            from glasstorch._generated import functions
            return getattr(functions, self.name.replace(".", "_"))
        return super().lib_fn(lib)


OPS = [
    OpInfo("sum", aten=("sum", "sum.dim_IntList", "sum.IntList_out", "sum.out"), samples=sum_samples, dtypes=ALL,
           method=True, out=True, errors=sum_errors),
    OpInfo("mean", aten=("mean", "mean.dim", "mean.out", "mean.dtype_out"), samples=mean_samples, dtypes=_DTYPES,
           method=True, out=True, errors=mean_errors),
    OpInfo("prod", aten=("prod", "prod.dim_int", "prod.int_out", "prod.out"), samples=prod_samples, dtypes=_DTYPES,
           method=True, out=True, errors=lambda: [ErrorSample((T((3, 4)), 2), name="out of range")],
           grad_samples=prod_grad_samples),
    OpInfo("max", aten=("max", "max.dim", "max.unary_out", "max.dim_max"), samples=minmax_samples, dtypes=_DTYPES,
           method=True, out=True, errors=minmax_errors("max")),
    OpInfo("min", aten=("min", "min.dim", "min.unary_out", "min.dim_min"), samples=minmax_samples, dtypes=_DTYPES,
           method=True, out=True, errors=minmax_errors("min")),
    OpInfo("max", aten=("max.other", "max.out"), samples=binary_minmax_samples, dtypes=_DTYPES, method=True, out=True),
    OpInfo("min", aten=("min.other", "min.out"), samples=binary_minmax_samples, dtypes=_DTYPES, method=True, out=True),
    OpInfo("amax", aten=("amax", "amax.out"), samples=amax_samples, dtypes=_DTYPES, method=True, out=True,
           errors=amax_errors),
    OpInfo("amin", aten=("amin", "amin.out"), samples=amax_samples, dtypes=_DTYPES, method=True, out=True,
           errors=amax_errors),
    OpInfo("argmax", aten=("argmax", "argmax.out"), samples=argmax_samples, dtypes=_DTYPES, method=True, out=True,
           errors=argmax_errors),
    OpInfo("argmin", aten=("argmin", "argmin.out"), samples=argmax_samples, dtypes=_DTYPES, method=True, out=True,
           errors=argmax_errors),
    OpInfo("var", aten=("var", "var.dim", "var.correction", "var.out", "var.correction_out"), samples=var_samples,
           dtypes=ALL_FLOAT, method=True, out=True, errors=var_errors),
    OpInfo("std", aten=("std", "std.dim", "std.correction", "std.out", "std.correction_out"), samples=var_samples,
           dtypes=ALL_FLOAT, method=True, out=True, errors=var_errors),
    OpInfo("var_mean", aten=("var_mean", "var_mean.dim", "var_mean.correction", "var_mean.correction_out"),
           samples=var_samples, dtypes=ALL_FLOAT, errors=var_mean_errors("var_mean")),
    OpInfo("std_mean", aten=("std_mean", "std_mean.dim", "std_mean.correction", "std_mean.correction_out"),
           samples=var_samples, dtypes=ALL_FLOAT, errors=var_mean_errors("std_mean")),
    OpInfo("norm", aten=("norm.Scalar", "norm.ScalarOpt_dtype", "norm.ScalarOpt_dim", "norm.ScalarOpt_dim_dtype",
                         "norm.out", "norm.dtype_out", "norm.Scalar_out", "norm.ScalarOpt_dtype_out"),
           samples=norm_samples, dtypes=ALL_FLOAT, method=True, out=True, errors=norm_errors),
    _LinalgOpInfo("linalg.vector_norm", aten=("linalg_vector_norm", "linalg_vector_norm.out"),
                  samples=vector_norm_samples, dtypes=ALL_FLOAT, out=True, errors=vector_norm_errors),
    OpInfo("logsumexp", aten=("logsumexp", "logsumexp.out"), samples=logsumexp_samples, dtypes=_DTYPES, method=True,
           out=True, errors=logsumexp_errors),
    OpInfo("all", aten=("all", "all.dim", "all.dims", "all.all_out", "all.out", "all.dims_out"),
           samples=allany_samples, dtypes=_DTYPES, method=True, out=True, errors=allany_errors),
    OpInfo("any", aten=("any", "any.dim", "any.dims", "any.all_out", "any.out", "any.dims_out"),
           samples=allany_samples, dtypes=_DTYPES, method=True, out=True, errors=allany_errors),
    OpInfo("count_nonzero", aten=("count_nonzero", "count_nonzero.dim_IntList", "count_nonzero.out",
                                  "count_nonzero.dim_IntList_out"),
           samples=count_nonzero_samples, dtypes=_DTYPES, method=True, errors=count_nonzero_errors),
    OpInfo("cumsum", aten=("cumsum", "cumsum_", "cumsum.out"), samples=cum_samples, dtypes=ALL, method=True,
           inplace=True, out=True, errors=cum_errors),
    OpInfo("cumprod", aten=("cumprod", "cumprod_", "cumprod.out"), samples=cumprod_samples, dtypes=_DTYPES,
           method=True, inplace=True, out=True, errors=cum_errors),
]
