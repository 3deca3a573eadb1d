"""OpInfo entries: statistics and counting reductions (glasstorch/_ops/native_functions/stats.yaml).

Samples cover 0-dim, empty and non-contiguous inputs, ties and NaN where the op treats them specially, and each
overload's Python form (Scalar/Tensor isin, histc's default range)."""

from __future__ import annotations

from opinfo import ALL, ALL_FLOAT, ALL_NUMERIC, FLOATS, INTS, ErrorSample, OpInfo, Sample, T

COMPLEX = ("complex64", "complex128")


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


def cov_samples(dtype):
    yield Sample((T((3, 5)),), name="2-d")
    yield Sample((T((6,)),), {"correction": 0}, name="1-d correction 0")
    yield Sample((T((2, 4), layout="transposed"),), {"fweights": T((4,), dtype="int64", low=0, high=4)},
                 name="fweights")
    yield Sample((T((2, 4)),), {"aweights": T((4,), dtype="float64", low=0.1, high=2), "correction": 2},
                 name="aweights")


def corrcoef_samples(dtype):
    yield Sample((T((3, 5)),), name="2-d")
    yield Sample((T((6,)),), name="1-d")


def dist_samples(dtype):
    for p in (2, 1, 3.5, float("inf")):
        yield Sample((T((3, 4)), T((4,))), {"p": p}, name=f"broadcast p={p}")
    yield Sample((T(()), T((2, 3), layout="transposed")), name="0-dim")


def renorm_samples(dtype):
    yield Sample((T((3, 4, 2)), 2, 1, 0.5), name="p=2 dim 1")
    yield Sample((T((4, 3), layout="transposed"), 1, -1, 2.0), name="p=1 transposed")
    yield Sample((T((2, 5)), float("inf"), 0, 0.5), name="p=inf")


def logcumsumexp_samples(dtype):
    yield Sample((T((3, 4)), 1), name="dim 1")
    yield Sample((T((3, 4), layout="transposed"), 0), name="transposed dim 0")
    yield Sample((T(()), 0), name="0-dim")
    yield Sample((T((0, 2)), 1), name="empty")


def index_reduce_samples(dtype):
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            yield Sample((T((4, 3)), 0, T((5,), dtype="int64", low=0, high=4), T((5, 3), low=-2, high=2), reduce),
                         {"include_self": include_self}, name=f"{reduce} include_self={include_self}")
        yield Sample((T((3, 4), layout="transposed"), 1, T((2,), dtype="int64", low=0, high=4), T((3, 2)), reduce),
                     name=f"{reduce} transposed dim 1")
        yield Sample((T(()), 0, T((1,), dtype="int64", low=0, high=1), T(()), reduce), name=f"{reduce} 0-dim")


def quantile_samples(dtype):
    for interpolation in ("linear", "lower", "higher", "midpoint", "nearest"):
        yield Sample((T((3, 4)), T((3,), low=0, high=1)), {"dim": 1, "interpolation": interpolation},
                     name=f"q tensor dim 1 {interpolation}")
        yield Sample((T((5,)), 0.3), {"interpolation": interpolation}, name=f"q scalar {interpolation}")
    yield Sample((T((2, 3), layout="transposed"), 0.5), {"dim": 0, "keepdim": True}, name="keepdim transposed")
    yield Sample((T(()), 0.25), name="0-dim")


def histogram_samples(dtype):
    yield Sample((T((30,)), 5), name="bin count")
    yield Sample((T((4, 6), layout="transposed"), 3), {"range": (-1.0, 1.0), "density": True}, name="range density")
    yield Sample((T((10,)), T((4,), values=(-3.0, -1.0, 0.5, 4.0))), {"weight": T((10,))}, name="edges weight")


def cdist_samples(dtype):
    for p in (0.0, 1.0, 2.0, 1.5, float("inf")):
        for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
            yield Sample((T((2, 4, 3)), T((5, 3))), {"p": p, "compute_mode": mode}, name=f"p={p} {mode}")
    yield Sample((T((0, 3)), T((4, 3))), name="empty")


def segment_reduce_samples(dtype):
    for reduce in ("sum", "prod", "mean", "max", "min"):
        yield Sample((T((6, 2)), reduce), {"lengths": T((3,), dtype="int64", values=(2, 0, 4))}, name=f"{reduce}")
        yield Sample((T((2, 5)), reduce), {"offsets": T((2, 3), dtype="int64", values=((0, 2, 5), (0, 0, 5))),
                                           "axis": 1, "initial": 1.5}, name=f"{reduce} offsets initial")


OPS = [
    OpInfo("aminmax", aten=("aminmax", "aminmax.out"), samples=aminmax_samples, dtypes=ALL, method=True,
           errors=aminmax_errors),
    OpInfo("isin", aten=("isin.Tensor_Tensor", "isin.Tensor_Tensor_out", "isin.Tensor_Scalar",
                         "isin.Tensor_Scalar_out", "isin.Scalar_Tensor", "isin.Scalar_Tensor_out"),
           samples=isin_samples, dtypes=tuple(d for d in ALL if d != "bool"), out=True, grad=False),
    OpInfo("histc", aten=("histc", "histc.out"), samples=histc_samples, dtypes=ALL_FLOAT, method=True, out=True,
           grad=False),
    OpInfo("bincount", aten=("bincount",), samples=bincount_samples, dtypes=INTS, method=True, grad=False),
    OpInfo("cov", aten=("cov",), samples=cov_samples, dtypes=FLOATS + COMPLEX, method=True,
           errors=lambda: [ErrorSample((T((2, 2, 2)),), name="3-d")]),
    OpInfo("corrcoef", aten=("corrcoef",), samples=corrcoef_samples, dtypes=FLOATS + COMPLEX, method=True),
    OpInfo("dist", aten=("dist",), samples=dist_samples, dtypes=ALL_FLOAT, method=True, rtol=1e-2, atol=1e-2),
    OpInfo("renorm", aten=("renorm", "renorm_", "renorm.out"), samples=renorm_samples, dtypes=ALL_FLOAT + COMPLEX,
           method=True, inplace=True, out=True, rtol=1e-2, atol=1e-2,
           errors=lambda: [ErrorSample((T(()), 1, 0, 1.0), name="0-dim"), ErrorSample((T((2, 2)), -1, 0, 1.0),
                                                                                       name="p<=0")]),
    OpInfo("logcumsumexp", aten=("logcumsumexp", "logcumsumexp.out"), samples=logcumsumexp_samples,
           dtypes=ALL_FLOAT + COMPLEX, method=True, out=True),
    OpInfo("index_reduce", aten=("index_reduce", "index_reduce_", "index_reduce.out"), samples=index_reduce_samples,
           dtypes=ALL_NUMERIC, method=True, inplace=True, out=True, gradcheck=False,
           errors=lambda: [ErrorSample((T((3,)), 0, T((1,), dtype="int64", low=0, high=1), T((1,)), "sum"),
                                       name="bad reduce")]),
    OpInfo("quantile", aten=("quantile", "quantile.out", "quantile.scalar", "quantile.scalar_out"),
           samples=quantile_samples, dtypes=FLOATS, method=True, out=True,
           errors=lambda: [ErrorSample((T((3,)), 1.5), name="q out of range"),
                           ErrorSample((T((0,)), 0.5), name="empty input")]),
    OpInfo("nanquantile", aten=("nanquantile", "nanquantile.out", "nanquantile.scalar", "nanquantile.scalar_out"),
           samples=quantile_samples, dtypes=FLOATS, method=True, out=True),
    OpInfo("histogram", aten=("histogram.bins_tensor", "histogram.bins_tensor_out", "histogram.bin_ct",
                              "histogram.bin_ct_out", "_histogramdd_bin_edges", "_histogramdd_from_bin_cts",
                              "_histogramdd_from_bin_tensors"),
           samples=histogram_samples, dtypes=FLOATS, method=True, grad=False),
    OpInfo("cdist", aten=("cdist", "_cdist_forward", "_euclidean_dist"), samples=cdist_samples, dtypes=FLOATS,
           gradcheck=False),
    OpInfo("segment_reduce", aten=("segment_reduce", "_segment_reduce_backward"), samples=segment_reduce_samples,
           dtypes=ALL_FLOAT, gradcheck=False),
]
