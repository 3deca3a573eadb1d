"""OpInfo entries for the tensor products and shape helpers of issue 20: tensordot, inner, kron, trace,
diagflat, block_diag, cartesian_prod, tril_indices/triu_indices and diff.

Each entry runs through test_ops.py (function, method, out= forms; values, dtypes, shapes; gradients and
gradcheck; error type and message), against torch.
"""

from __future__ import annotations

from opinfo import ALL, ALL_NUMERIC, DType, ErrorSample, OpInfo, Sample, T

ALL_FLOAT_INTS = ALL_NUMERIC


# -- tensordot / inner / kron / trace ------------------------------------------------------------------------
def tensordot_samples(dtype):
    yield Sample((T((2, 3, 4)), T((3, 4, 5), seed=1)), {"dims": 2}, name="dims=2")
    yield Sample((T((2, 3)), T((3, 4), seed=1)), {"dims": 1}, name="dims=1")
    yield Sample((T((2, 3)), T((4, 5), seed=1)), {"dims": 0}, name="outer dims=0")
    yield Sample((T((2, 3, 4)), T((4, 3, 5), seed=1)), {"dims": ([1, 2], [1, 0])}, name="pair of lists")
    yield Sample((T((2, 3, 4)), T((4, 3, 5), seed=1)), {"dims": ([-1], [0])}, name="negative dims")
    yield Sample((T((2, 1)), T((3, 4), seed=1)), {"dims": ([1], [0])}, name="size-1 broadcast first")
    yield Sample((T((2, 3)), T((1, 4), seed=1)), {"dims": ([1], [0])}, name="size-1 broadcast second")
    yield Sample((T((3, 4), layout="transposed"), T((3, 2), seed=1, layout="strided")), {"dims": ([0], [0])},
                 name="layouts")
    yield Sample((T((0, 3)), T((3, 2), seed=1)), {"dims": 1}, name="empty")


def tensordot_errors():
    return [ErrorSample((T((2, 3)), T((3, 4))), {"dims": ([1], [0, 1])}, name="lengths"),
            ErrorSample((T((2, 3)), T((3, 3))), {"dims": ([1, 1], [0, 1])}, name="repeated"),
            ErrorSample((T((2, 3)), T((4, 3))), {"dims": ([1], [0])}, name="sizes"),
            ErrorSample((T((2, 3)), T((3, 4))), {"dims": ([5], [0])}, name="range"),
            ErrorSample((T((2, 3)), T((3, 4), dtype="float64")), {"dims": 1}, name="dtypes"),
            ErrorSample((T((2, 3)), T((3, 4))), {"dims": -1}, name="negative count"),
            ErrorSample((T((2, 3)), T((3, 4))), {"dims": 3}, name="count too big"),
            ErrorSample((T((2, 3)), T((3, 4))), {"dims": "x"}, name="bad dims type"),
            ErrorSample((T((2, 3)), T((3, 4))), {"dims": 1, "out": T((0,), dtype="float64")}, name="out dtype")]


def inner_samples(dtype):
    yield Sample((T((2, 3)), T((4, 3), seed=1)), name="2d 2d")
    yield Sample((T((3,)), T((3,), seed=1)), name="vectors")
    yield Sample((T((2, 2, 3)), T((3,), seed=1)), name="3d 1d")
    yield Sample((T(()), T((2, 3), seed=1)), name="0-dim")
    yield Sample((T((2, 3), layout="transposed"), T((4, 3), seed=1, layout="strided")), name="layouts")


def inner_errors():
    return [ErrorSample((T((2, 3)), T((4, 2))), name="last dims"),
            ErrorSample((T((2, 3)), T((4, 3), dtype="float64")), name="dtypes")]


def kron_samples(dtype):
    yield Sample((T((2, 3)), T((4, 2), seed=1)), name="2d 2d")
    yield Sample((T((3,)), T((2, 2), seed=1)), name="1d 2d")
    yield Sample((T((2, 1, 3)), T((2,), seed=1)), name="3d 1d")
    yield Sample((T(()), T((2, 3), seed=1)), name="0-dim")
    yield Sample((T((2, 3), layout="transposed"), T((0, 2), seed=1)), name="empty")
    other = "float64" if dtype != "float64" else "int32"
    yield Sample((T((2, 2)), T((2,), seed=1, dtype=other)), name=f"mixed {other}")


def trace_samples(dtype):
    yield Sample((T((3, 3)),), name="square")
    yield Sample((T((2, 4)),), name="wide")
    yield Sample((T((5, 2), layout="transposed"),), name="tall transposed")
    yield Sample((T((0, 3)),), name="empty")


def trace_errors():
    return [ErrorSample((T((2, 3, 3)),), name="3d"), ErrorSample((T((3,)),), name="1d"),
            ErrorSample((T((2, 2), dtype="bool"),), name="bool")]


# -- diagflat / block_diag / cartesian_prod / tril_indices / triu_indices / diff ----------------------------
def diagflat_samples(dtype):
    yield Sample((T((3,)),), name="1d")
    yield Sample((T((2, 3)),), {"offset": 1}, name="2d offset 1")
    yield Sample((T((2, 2), layout="transposed"),), {"offset": -2}, name="transposed offset -2")
    yield Sample((T(()),), name="0-dim")
    yield Sample((T((0,)),), {"offset": 1}, name="empty")


def block_diag_samples(dtype):
    yield Sample((T((2, 2)), T((3,), seed=1), T((), seed=2)), name="2d 1d 0d")
    yield Sample((T((2, 3), layout="transposed"), T((1, 2), seed=1)), name="transposed")
    yield Sample((T((2, 0)), T((0, 3), seed=1), T((1, 1), seed=2)), name="empty blocks")
    other = "float64" if dtype != "float64" else "int32"
    yield Sample((T((2, 2)), T((2,), seed=1, dtype=other)), name=f"mixed {other}")
    yield Sample((T((2, 2), dtype="int64"), T((), seed=1)), name="0-dim promotes")
    yield Sample((T((1, 2)),), name="single")


def block_diag_errors():
    return [ErrorSample((T((2, 2)), T((2, 2, 2))), name="3d")]


def cartesian_prod_samples(dtype):
    yield Sample((T((3,)), T((2,), seed=1)), name="two")
    yield Sample((T((2,)), T((3,), seed=1, layout="strided"), T((2,), seed=2)), name="three strided")
    yield Sample((T((2,)), T((0,), seed=1)), name="empty")


def cartesian_prod_errors():
    return [ErrorSample((T((3, 2)),), name="2d"), ErrorSample((T((3,)), T((2,), dtype="float64")), name="dtypes"),
            ErrorSample((), name="none")]


def triangle_indices_samples(dtype):
    for args in ((3, 4), (3, 4, 1), (4, 3, -1), (5, 5, 10), (3, 3, -10), (0, 3), (1, 1)):
        yield Sample(args, name=f"{args}")
    yield Sample((4, 2, 1), {"dtype": DType("int32")}, name="int32")


def triangle_indices_errors():
    return [ErrorSample((-1, 3), name="negative row"), ErrorSample((3, -2), name="negative col"),
            ErrorSample((3, 3), {"dtype": DType("float32")}, name="float"),
            ErrorSample((3, 3), {"dtype": DType("int16")}, name="int16"),
            ErrorSample((3, 3), {"dtype": DType("bool")}, name="bool")]


def diff_samples(dtype):
    yield Sample((T((4, 5)),), name="default")
    yield Sample((T((4, 5)),), {"n": 2, "dim": 0}, name="n=2 dim=0")
    yield Sample((T((3, 4)), 1, 0, T((2, 4), seed=1), T((1, 4), seed=2)), name="prepend append")
    yield Sample((T((3, 4), layout="transposed"),), {"append": T((3, 2), seed=1)}, name="transposed append")
    yield Sample((T((5,)),), {"n": 7}, name="n past the length")
    yield Sample((T((2, 3)),), {"n": 0}, name="n=0")
    yield Sample((T((6,), layout="strided"),), {"n": 3}, name="strided n=3")
    other = "float64" if dtype != "float64" else "int32"
    yield Sample((T((3, 2)),), {"dim": 0, "prepend": T((1, 2), seed=1, dtype=other)}, name=f"prepend {other}")


def diff_errors():
    return [ErrorSample((T(()),), name="0-dim"), ErrorSample((T((2, 3)), -1), name="negative n"),
            ErrorSample((T((2, 3)), 1, 0, T((3,))), name="prepend ndim"),
            ErrorSample((T((2, 3)), 1, 0, T((1, 4))), name="prepend shape"),
            ErrorSample((T((2, 3)), 1, 1, None, T((3, 4))), name="append shape"),
            ErrorSample((T((2, 3)), 1, 5), name="dim range"),
            ErrorSample((T((2, 3)),), {"out": T((0,), dtype="int64")}, name="out cast")]


# -- gcd / lcm / nextafter / signbit -------------------------------------------------------------------------
INTS = ("int64", "int32", "int16", "int8", "uint8")


def gcd_samples(dtype):
    low = 0 if dtype == "uint8" else -30
    yield Sample((T((3, 4), low=low, high=30), T((3, 4), low=low, high=30, seed=1)), name="same shape")
    yield Sample((T((2, 3, 4), low=low, high=30, layout="transposed"), T((4,), low=low, high=30, seed=1)),
                 name="broadcast")
    yield Sample((T((3,), values=[0, 0, 7]), T((3,), values=[0, 5, 0])), name="zeros")
    yield Sample((T((), low=1, high=9), T((3,), low=1, high=9, seed=1)), name="0-dim")
    if dtype != "int8":
        yield Sample((T((3,), low=1, high=9), T((3,), low=1, high=9, seed=1, dtype="int8")), name="mixed int8")


def integer_only_errors():
    return [ErrorSample((T((2,)), T((2,))), name="float"),
            ErrorSample((T((2,), dtype="bool"), T((2,), dtype="bool")), name="bool"),
            ErrorSample((T((2,), dtype="int64"), 2), name="number other"),
            ErrorSample((T((2,), dtype="int64"), T((3,), dtype="int64")), name="broadcast")]


def nextafter_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), seed=1)), name="same shape")
    yield Sample((T((2, 3), layout="transposed"), T((3,), seed=1)), name="broadcast")
    yield Sample((T((4,), values=[0.0, -0.0, 1.0, float("inf")]), T((4,), values=[1.0, -1.0, 1.0, 0.0])),
                 name="zeros, equal, inf")
    yield Sample((T((2,), values=[float("nan"), 1.0]), T((2,), values=[1.0, float("nan")])), name="nan")
    other = "float64" if dtype != "float64" else "float32"
    yield Sample((T((3,)), T((3,), seed=1, dtype=other)), name=f"mixed {other}")


def nextafter_errors():
    return [ErrorSample((T((2,), dtype="int64"), T((2,), dtype="int64")), name="int"),
            ErrorSample((T((2,)), 1.0), name="number other")]


def signbit_samples(dtype):
    yield Sample((T((3, 4)),), name="random")
    yield Sample((T((2, 3), layout="transposed"),), name="transposed")
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        yield Sample((T((5,), values=[0.0, -0.0, float("nan"), -float("inf"), float("inf")]),), name="signed zeros")
    yield Sample((T(()),), name="0-dim")


def signbit_errors():
    return [ErrorSample((T((2,), dtype="complex64"),), name="complex"),
            ErrorSample((T((2,)),), {"out": T((0,), dtype="float32")}, name="float out")]


# -- float_power --------------------------------------------------------------------------------------------
def float_power_samples(dtype):
    yield Sample((T((3, 4), low=0.5, high=3), T((3, 4), low=-2, high=2, seed=1)), name="tensor tensor")
    yield Sample((T((2, 3, 4), low=0.5, high=3, layout="transposed"), T((4,), low=-2, high=2, seed=1)),
                 name="broadcast")
    yield Sample((T((3,), low=0.5, high=3), 2), name="int exponent")
    yield Sample((T((3,), low=0.5, high=3), -0.5), name="float exponent")
    yield Sample((T((3,), low=0.5, high=3), 1j), name="complex exponent", skip_out=True)
    yield Sample((2.5, T((3,), low=-2, high=2)), name="scalar base", skip_inplace=True)
    yield Sample((T((3,), low=-3, high=3), T((3,), dtype="complex64", seed=1)), name="complex tensor",
                 skip_out=True, skip_inplace=True)


def float_power_errors():
    return [ErrorSample((T((2,)), T((2,))), {"out": T((0,), dtype="float32")}, name="float out"),
            ErrorSample((T((2,), dtype="float64"), 1j), {"out": T((0,), dtype="float64")}, name="complex needs"),
            ErrorSample((T((2,), dtype="float32"), 2), form="inplace", name="float32 base in place"),
            ErrorSample((T((2,)), T((3,))), name="broadcast")]


# -- nansum / nanmean -------------------------------------------------------------------------------------
_NAN_VALUES = [[1.0, float("nan"), 3.0], [float("nan"), float("nan"), 2.0]]


def nan_reduction_samples(dtype):
    floating = dtype in ("float16", "bfloat16", "float32", "float64")
    if floating:
        yield Sample((T((2, 3), values=_NAN_VALUES),), name="with nan all")
        yield Sample((T((2, 3), values=_NAN_VALUES), 1), name="with nan dim=1")
        yield Sample((T((2, 3), values=_NAN_VALUES), (0, 1), True), name="with nan dims keepdim")
        yield Sample((T((2, 3), values=_NAN_VALUES),), {"dtype": DType("float64")}, name="with nan dtype=float64")
    yield Sample((T((3, 4)),), name="all")
    yield Sample((T((3, 4), layout="transposed"), 0), name="transposed dim=0")
    yield Sample((T((2, 3, 4)), [-1, 0], True), name="dims keepdim")
    yield Sample((T(()),), name="0-dim")
    yield Sample((T((0, 3)), 1), name="empty")


def nansum_errors():
    return [ErrorSample((T((2,), dtype="complex64"),), name="complex"),
            ErrorSample((T((2, 3)), 5), name="dim range"),
            ErrorSample((T((2, 3)),), {"out": T((0,), dtype="int64")}, name="int out")]


def nanmean_errors():
    return [ErrorSample((T((2,), dtype="int64"),), name="int"),
            ErrorSample((T((2, 3)), 5), name="dim range"),
            ErrorSample((T((2, 3)),), {"out": T((0,), dtype="int64")}, name="int out")]


OPS = [
    OpInfo("tensordot", aten=("tensordot", "tensordot.out"), samples=tensordot_samples, dtypes=ALL_FLOAT_INTS,
           out=True, errors=tensordot_errors),
    OpInfo("inner", aten=("inner", "inner.out"), samples=inner_samples, dtypes=ALL_FLOAT_INTS, method=True,
           out=True, errors=inner_errors),
    OpInfo("kron", aten=("kron", "kron.out"), samples=kron_samples, dtypes=ALL, method=True, out=True),
    OpInfo("trace", aten=("trace", "trace.out"), samples=trace_samples, dtypes=ALL_FLOAT_INTS, method=True,
           errors=trace_errors),
    OpInfo("diagflat", aten=("diagflat",), samples=diagflat_samples, dtypes=ALL, method=True),
    OpInfo("block_diag", aten=("block_diag",), samples=block_diag_samples, dtypes=ALL, errors=block_diag_errors),
    OpInfo("cartesian_prod", aten=("cartesian_prod",), samples=cartesian_prod_samples, dtypes=ALL,
           errors=cartesian_prod_errors),
    OpInfo("tril_indices", aten=("tril_indices",), samples=triangle_indices_samples, dtypes=("int64",), grad=False,
           errors=triangle_indices_errors),
    OpInfo("triu_indices", aten=("triu_indices",), samples=triangle_indices_samples, dtypes=("int64",), grad=False,
           errors=triangle_indices_errors),
    OpInfo("diff", aten=("diff", "diff.out"), samples=diff_samples, dtypes=ALL, method=True, out=True,
           errors=diff_errors),
    OpInfo("gcd", aten=("gcd", "gcd_", "gcd.out"), samples=gcd_samples, dtypes=INTS, method=True, inplace=True,
           out=True, errors=integer_only_errors),
    OpInfo("lcm", aten=("lcm", "lcm_", "lcm.out"), samples=gcd_samples, dtypes=INTS, method=True, inplace=True,
           out=True, errors=integer_only_errors),
    OpInfo("nextafter", aten=("nextafter", "nextafter_", "nextafter.out"), samples=nextafter_samples,
           dtypes=("float32", "float64", "float16", "bfloat16"), method=True, inplace=True, out=True, gradcheck=False,
           errors=nextafter_errors),
    OpInfo("signbit", aten=("signbit", "signbit.out"), samples=signbit_samples, dtypes=ALL, method=True, out=True,
           errors=signbit_errors),
    OpInfo("float_power", aten=("float_power.Tensor_Tensor", "float_power.Scalar", "float_power.Tensor_Scalar",
                                "float_power_.Tensor", "float_power_.Scalar", "float_power.Tensor_Tensor_out",
                                "float_power.Scalar_out", "float_power.Tensor_Scalar_out"),
           samples=float_power_samples, dtypes=ALL, method=True, inplace=True, out=True, errors=float_power_errors),
    OpInfo("nansum", aten=("nansum", "nansum.out"), samples=nan_reduction_samples, dtypes=ALL, method=True,
           out=True, errors=nansum_errors),
    OpInfo("nanmean", aten=("nanmean", "nanmean.out"), samples=nan_reduction_samples,
           dtypes=("float32", "float64", "float16", "bfloat16"), method=True, out=True, errors=nanmean_errors),
]
