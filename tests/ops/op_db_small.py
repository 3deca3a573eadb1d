"""OpInfo entries for the small operators of issue 20: the view-inverse scatters (slice/select/diagonal/
as_strided_scatter), the functional fill, frexp, ldexp, put, addr, _softmax_backward_data, _log_softmax_backward_data,
_safe_softmax, native_dropout_backward, _unsafe_masked_index(_put_accumulate), _chunk_cat, empty_permuted and the
samplers cauchy_, log_normal_, geometric_ and normal's tensor forms (their numbers equal torch's under one seed:
tests/test_small_ops.py).

Each entry runs through test_ops.py (function, method, in-place, out= forms; values, dtypes, shapes; gradients and
gradcheck; error type and message), against torch.
"""

from __future__ import annotations

from opinfo import ALL, ALL_FLOAT, INTS, DType, ErrorSample, OpInfo, Sample, T


def slice_scatter_samples(dtype):
    yield Sample((T((4, 6)), T((4, 2), seed=1)), {"dim": 1, "start": 1, "end": 5, "step": 2}, name="step 2")
    yield Sample((T((4, 6)), T((2, 6), seed=1)), {"start": 2}, name="dim 0 tail")
    yield Sample((T((4, 6), layout="transposed"), T((4, 3), seed=1)), {"dim": -1, "end": 3}, name="transposed")
    yield Sample((T((3,)), T((0,), seed=1)), {"start": 3}, name="empty slice")


def select_scatter_samples(dtype):
    yield Sample((T((4, 6)), T((6,), seed=1), 0, 2), name="dim 0")
    yield Sample((T((4, 6), layout="transposed"), T((4,), seed=1), 1, -1), name="transposed negative index")
    yield Sample((T((5,)), T((), seed=1), 0, 3), name="to 0-dim")


def diagonal_scatter_samples(dtype):
    yield Sample((T((4, 4)), T((4,), seed=1)), name="main")
    yield Sample((T((3, 5)), T((3,), seed=1), 1), name="offset 1")
    yield Sample((T((2, 3, 4)), T((3, 2), seed=1), -1, 0, 2), name="3d dims 0, 2")


def as_strided_scatter_samples(dtype):
    yield Sample((T((4, 5)), T((2, 2), seed=1), (2, 2), (1, 2), 1), name="offset")
    yield Sample((T((3, 3)), T((3,), seed=1), (3,), (4,)), name="the diagonal")


def scatter_size_errors():
    return [ErrorSample((T((3, 4)), T((3, 3))), {"dim": 1, "start": 0, "end": 2}, name="src size")]


def fill_samples(dtype):
    yield Sample((T((2, 3)), 2), name="number")
    yield Sample((T((2, 3), layout="transposed"), T((), seed=1)), name="0-dim tensor")
    yield Sample((T((0, 3)), 1), name="empty")


def fill_errors():
    return [ErrorSample((T((2, 3)), T((2,))), name="1-d value")]


def frexp_samples(dtype):
    yield Sample((T((3, 4), low=-1e3, high=1e3),), name="spread")
    yield Sample((T((2, 3), layout="transposed"),), name="transposed")
    yield Sample((T(()),), name="0-dim")


def frexp_errors():
    return [ErrorSample((T((2,), dtype="int64"),), name="integer"),
            ErrorSample((T((2,)),), {"out": (T((0,), dtype="float64"), T((0,), dtype="int32"))}, name="mantissa dtype"),
            ErrorSample((T((2,)),), {"out": (T((0,)), T((0,), dtype="int64"))}, name="exponent dtype")]


def ldexp_samples(dtype):
    # non-negative: PyTorch's backward multiplies by the integer pow(2, other), which is 0 for a negative exponent
    yield Sample((T((3, 4)), T((3, 4), dtype="int64", low=0, high=4, seed=1)), name="integer exponents")
    yield Sample((T((3, 4)), T((4,), low=-3, high=3, seed=1)), name="float exponents broadcast")
    yield Sample((T((2, 3), layout="transposed"), T((2, 3), dtype="float64", low=-2, high=2, seed=1)),
                 name="double exponents")


def ldexp_errors():
    return [ErrorSample((T((2,), dtype="int64"), T((2,))), {"out": T((2,), dtype="int64")}, name="integer out")]


def put_samples(dtype):
    idx = T((3,), dtype="int64", values=[0, -1, 4])
    yield Sample((T((2, 3)), idx, T((3,), seed=1)), name="negative index")
    yield Sample((T((2, 3), layout="transposed"), T((2, 2), dtype="int64", values=[[1, 1], [5, 0]]),
                  T((2, 2), seed=1), True), name="accumulate duplicates, transposed")
    yield Sample((T((4,)), T((0,), dtype="int64"), T((0,), seed=1)), name="nothing to put")


def put_errors():
    return [ErrorSample((T((2, 3)), T((1,), dtype="int64", values=[6]), T((1,))), name="out of range"),
            ErrorSample((T((2, 3)), T((2,), dtype="int64", values=[0, 1]), T((1,))), name="numel"),
            ErrorSample((T((2, 3)), T((1,), dtype="int32", values=[0]), T((1,))), name="index dtype")]


def addr_samples(dtype):
    yield Sample((T((3, 4)), T((3,), seed=1), T((4,), seed=2)), name="plain")
    yield Sample((T((4,)), T((3,), seed=1), T((4,), seed=2)), {"beta": 2, "alpha": 3}, name="broadcast self")
    yield Sample((T((3, 4), layout="transposed"), T((3,), seed=1), T((4,), seed=2)), {"beta": 0},
                 name="beta 0", skip_inplace=True)


def addr_errors():
    return [ErrorSample((T((2, 2)), T((2, 1)), T((2,))), name="2-d vec1"),
            ErrorSample((T((2, 2), dtype="int64"), T((2,), dtype="int64"), T((2,), dtype="int64")), {"beta": 0.5},
                        name="float beta on ints")]


def softmax_backward_data_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), low=0, high=1, seed=1), 1, DType(dtype)), name="dim 1")
    yield Sample((T((2, 3, 2), layout="transposed"), T((2, 3, 2), low=0, high=1, seed=1), 0, DType(dtype)),
                 name="dim 0 transposed")


def safe_softmax_samples(dtype):
    rows = [[float("-inf"), float("-inf"), float("-inf")], [1.0, float("-inf"), 2.0]]
    yield Sample((T((2, 3), values=rows), 1), name="an all -inf row")
    yield Sample((T((3, 4)), 0), name="dim 0")


def dropout_backward_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), dtype="bool", seed=1), 2.0), name="scale 2")
    yield Sample((T((5,)), T((5,), dtype="bool", seed=2), 1.25), name="1-d")


def masked_index_samples(dtype):
    mask = T((3,), dtype="bool", values=[True, False, True])
    yield Sample((T((4, 5)), mask, [T((3,), dtype="int64", values=[0, 9, 3])], 2), name="out-of-range masked off")
    yield Sample((T((4, 5)), T((2, 1), dtype="bool", values=[[True], [False]]),
                  [None, T((2, 3), dtype="int64", values=[[0, 1, 4], [-7, 2, 2]])], -1), name="None first, broadcast")


def masked_index_put_samples(dtype):
    mask = T((3,), dtype="bool", values=[True, False, True])
    yield Sample((T((4, 5)), mask, [T((3,), dtype="int64", values=[0, 9, 0])], T((3, 5), seed=1)),
                 name="duplicates accumulate")


def chunk_cat_samples(dtype):
    yield Sample(([T((2, 3)), T((2, 5), seed=1)], 1, 2), name="dim 1 padded")
    yield Sample(([T((4, 3)), T((6,), seed=1)], 0, 3), name="dim 0, ndims differ")
    yield Sample(([T((2, 3, 4), layout="transposed")], -1, 4), name="one tensor, dim -1")


def chunk_cat_errors():
    return [ErrorSample(([T((2, 3)), T((4,))], -1, 3), name="negative dim, ndims differ"),
            ErrorSample(([T((2, 3)), T((4,))], 1, 3), name="dim past a tensor"),
            ErrorSample(([T((2, 3)), T((3, 3))], 1, 3), name="leading sizes"),
            ErrorSample(([T((2,)), T((3,))], 0, -1), name="num_chunks"),
            ErrorSample(([T((2,)), T((3,), dtype="float64")], 0, 2), name="dtypes")]


def empty_permuted_samples(dtype):
    yield Sample(((2, 3, 1, 5), (0, 2, 3, 1)), {"dtype": DType(dtype)}, name="channels last")
    yield Sample(((2, 0, 4), (2, 0, 1)), {"dtype": DType(dtype)}, name="empty")


def empty_permuted_errors():
    return [ErrorSample(((2,), (0, 1))), ErrorSample(((2,), (3,)), name="range"),
            ErrorSample(((2, 3), (0, 0)), name="duplicate")]


def sampler_samples(*arg_sets):
    def samples(dtype):
        for args in arg_sets:
            yield Sample((T((3, 4)), *args), name=f"{args}")
            yield Sample((T((3, 4), layout="transposed"), *args), name=f"transposed {args}")
    return samples


def cauchy_errors():
    return [ErrorSample((T((3,)), 0.0, 0.0), form="method", name="sigma 0"),
            ErrorSample((T((3,), dtype="int64"),), form="method", name="int")]


def log_normal_errors():
    return [ErrorSample((T((3,)), 0.0, 0.0), form="method", name="std 0"),
            ErrorSample((T((3,), dtype="int64"),), form="method", name="int")]


def geometric_errors():
    return [ErrorSample((T((3,)), -1.0), form="method", name="p < 0"),
            ErrorSample((T((3,)), 1.0), form="method", name="p 1"),
            ErrorSample((T((3,), dtype="bool"), 0.5), form="method", name="bool")]


def normal_samples(dtype):
    yield Sample((T((3, 4)), T((3, 4), low=0.1, high=2, seed=1)), name="tensor, tensor")
    yield Sample((T((2, 3)), 0.5), name="tensor, float")
    yield Sample((1.5, T((4,), low=0.1, high=2, seed=1)), name="float, tensor")


def batch_norm_with_update_samples(dtype):
    yield Sample((T((4, 3, 5)), T((3,), seed=1), T((3,), seed=2), T((3,), seed=3), T((3,), low=0.5, high=2, seed=4),
                  0.1, 1e-5), name="with affine")
    yield Sample((T((2, 3)), None, None, T((3,), seed=3), T((3,), low=0.5, high=2, seed=4), 0.3, 1e-3),
                 name="no affine, 2-d")


OPS = [
    OpInfo("slice_scatter", aten=("slice_scatter", "slice_scatter.out"), samples=slice_scatter_samples, dtypes=ALL,
           method=True, out=True, errors=scatter_size_errors),
    OpInfo("select_scatter", aten=("select_scatter",), samples=select_scatter_samples,
           dtypes=ALL, method=True),
    OpInfo("diagonal_scatter", aten=("diagonal_scatter",), samples=diagonal_scatter_samples,
           dtypes=ALL, method=True),
    # gradcheck=False: PyTorch's backward gives self the scattered positions of grad (not the others), which is no
    # derivative; glasstorch returns the same gradients (test_op_grad compares them)
    OpInfo("as_strided_scatter", aten=("as_strided_scatter",), samples=as_strided_scatter_samples, dtypes=ALL,
           method=True, gradcheck=False),
    OpInfo("fill", aten=("fill.Scalar", "fill.Tensor"), samples=fill_samples, dtypes=ALL, errors=fill_errors),
    OpInfo("frexp", aten=("frexp.Tensor", "frexp.Tensor_out"), samples=frexp_samples, dtypes=ALL_FLOAT, method=True,
           out=True, errors=frexp_errors, gradcheck=False),
    OpInfo("ldexp", aten=("ldexp.Tensor", "ldexp_", "ldexp.out"), samples=ldexp_samples, dtypes=ALL_FLOAT,
           method=True, inplace=True, out=True, errors=ldexp_errors, grad_rtol=1e-5),
    OpInfo("put", aten=("put", "put_"), samples=put_samples, dtypes=ALL, method=True, inplace=True,
           errors=put_errors),
    OpInfo("addr", aten=("addr", "addr_", "addr.out"), samples=addr_samples, dtypes=ALL, method=True, inplace=True,
           out=True, errors=addr_errors),
    OpInfo("_softmax_backward_data", aten=("_softmax_backward_data",), samples=softmax_backward_data_samples,
           dtypes=ALL_FLOAT, rtol=1e-3, atol=1e-3),
    OpInfo("_log_softmax_backward_data", aten=("_log_softmax_backward_data",),
           samples=softmax_backward_data_samples, dtypes=ALL_FLOAT),
    # rtol: bfloat16 softmax results may differ from torch's by one unit in the last place
    OpInfo("_safe_softmax", aten=("_safe_softmax",), samples=safe_softmax_samples, dtypes=ALL_FLOAT, rtol=8e-3,
           atol=1e-3),
    OpInfo("ops.aten.native_dropout_backward", aten=("native_dropout_backward",), samples=dropout_backward_samples,
           dtypes=ALL_FLOAT),
    OpInfo("_unsafe_masked_index", aten=("_unsafe_masked_index",), samples=masked_index_samples, dtypes=ALL),
    OpInfo("_unsafe_masked_index_put_accumulate", aten=("_unsafe_masked_index_put_accumulate",),
           samples=masked_index_put_samples, dtypes=ALL),
    OpInfo("_chunk_cat", aten=("_chunk_cat", "_chunk_cat.out"), samples=chunk_cat_samples, dtypes=ALL, out=True,
           grad=False, errors=chunk_cat_errors),
    OpInfo("empty_permuted", aten=("empty_permuted",), samples=empty_permuted_samples, dtypes=ALL, random=True,
           grad=False, errors=empty_permuted_errors),
    OpInfo("cauchy_", aten=("cauchy_",), function=False, method=True, random=True, dtypes=ALL_FLOAT,
           samples=sampler_samples((), (1.0, 0.5)), errors=cauchy_errors),
    OpInfo("log_normal_", aten=("log_normal_",), function=False, method=True, random=True, dtypes=ALL_FLOAT,
           samples=sampler_samples((), (0.0, 0.25)), errors=log_normal_errors),
    OpInfo("geometric_", aten=("geometric_",), function=False, method=True, random=True, dtypes=ALL_FLOAT + INTS,
           samples=sampler_samples((0.3,)), errors=geometric_errors),
    OpInfo("normal", aten=("normal.Tensor_Tensor", "normal.Tensor_Tensor_out", "normal.Tensor_float",
                           "normal.Tensor_float_out", "normal.float_Tensor", "normal.float_Tensor_out"),
           samples=normal_samples, dtypes=ALL_FLOAT, random=True, out=True, gradcheck=False),
    OpInfo("ops.aten._batch_norm_with_update", aten=("_batch_norm_with_update", "_batch_norm_with_update.out"),
           samples=batch_norm_with_update_samples, dtypes=("float32", "float64"), rtol=1e-5, atol=1e-5,
           # PyTorch's backward of this operator refuses weight=None ("Expected a proper Tensor but got None")
           grad_samples=lambda dt: list(batch_norm_with_update_samples(dt))[:1]),
]
