"""OpInfo entries: statistics and counting reductions (glasstorch/_ops/native_functions/stats.yaml).

Samples cover 0-dim, empty and non-contiguous inputs, ties and NaN where the op treats them specially, and each
overload's Python form (Scalar/Tensor isin, histc's default range)."""

from __future__ import annotations

from opinfo import ALL, ALL_FLOAT, INTS, ErrorSample, OpInfo, Sample, T


def aminmax_samples(dtype):
    for name, t in (("0-dim", T(())), ("2-d", T((3, 4))), ("transposed", T((3, 4), layout="transposed")),
                    ("ties", T((2, 3), values=((1, 3, 3), (2, 2, 0))))):
        yield Sample((t,), name=f"{name} all")
        yield Sample((t,), {"dim": -1, "keepdim": True}, name=f"{name} dim -1 keepdim")
        yield Sample((t,), {"dim": 0}, name=f"{name} dim 0")


def aminmax_errors():
    return [ErrorSample((T((2, 0)),), name="empty"), ErrorSample((T((2, 0)),), {"dim": 1}, name="empty dim")]


def isin_samples(dtype):
    yield Sample((T((4, 5), low=-3, high=3), T((6,), low=-3, high=3)), name="tensor tensor")
    yield Sample((T((4, 5), low=-3, high=3), T((6,), low=-3, high=3)), {"invert": True}, name="invert")
    yield Sample((T((0,)), T((3,))), name="empty elements")
    yield Sample((T((3, 4), layout="transposed", low=-2, high=2), 1), name="tensor scalar")
    yield Sample((1, T((5,), low=-2, high=2)), name="scalar tensor")


def histc_samples(dtype):
    yield Sample((T((50,)),), name="default range")
    yield Sample((T((6, 7), layout="transposed"),), {"bins": 4, "min": -1, "max": 2}, name="range")
    yield Sample((T(()),), {"bins": 3}, name="0-dim single point")
    yield Sample((T((0,)),), {"bins": 2}, name="empty")


def bincount_samples(dtype):
    yield Sample((T((20,), low=0, high=9),), name="counts")
    yield Sample((T((20,), low=0, high=9),), {"minlength": 12}, name="minlength")
    yield Sample((T((6,), low=0, high=4), T((6,), dtype="float32")), name="float32 weights")
    yield Sample((T((6,), low=0, high=4), T((6,), dtype="int64")), name="int weights")
    yield Sample((T((0,), low=0, high=4),), {"minlength": 3}, name="empty")


OPS = [
    OpInfo("aminmax", aten=("aminmax", "aminmax.out"), samples=aminmax_samples, dtypes=ALL, method=True,
           errors=aminmax_errors),
    OpInfo("isin", aten=("isin.Tensor_Tensor", "isin.Tensor_Tensor_out", "isin.Tensor_Scalar",
                         "isin.Tensor_Scalar_out", "isin.Scalar_Tensor", "isin.Scalar_Tensor_out"),
           samples=isin_samples, dtypes=tuple(d for d in ALL if d != "bool"), out=True, grad=False),
    OpInfo("histc", aten=("histc", "histc.out"), samples=histc_samples, dtypes=ALL_FLOAT, method=True, out=True,
           grad=False),
    OpInfo("bincount", aten=("bincount",), samples=bincount_samples, dtypes=INTS, method=True, grad=False),
]
