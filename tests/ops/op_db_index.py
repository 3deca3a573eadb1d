"""OpInfo entries: indexing operators (glasstorch/_ops/native_functions/index.yaml) — masks, gathers,
scatters, the index_* family, index/index_put and one_hot.

Index tensors carry explicit values (``T(..., dtype="int64", values=...)``) so every sample is in bounds
and plain scatters never write one element twice (PyTorch leaves the winner of duplicate writes
unspecified); reductions and accumulations use duplicates on purpose.  ``x[idx]`` / ``x[idx] = v``
themselves are tested in tests/test_indexing.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from opinfo import ALL, ErrorSample, OpInfo, Sample, T

import glasstorch.nn.functional  # noqa: F401  (until glasstorch/__init__ imports nn)

SMALL = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool")
NUMERIC_SMALL = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8")


@dataclasses.dataclass
class FnOpInfo(OpInfo):
    """An entry whose callable is ``fn(lib)`` instead of a dotted name under the library."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib) if self.fn is not None else super().lib_fn(lib)


def I(values, dtype="int64", layout="contiguous"):  # noqa: E743 - an index tensor spec
    import numpy as np
    shape = np.array(values).shape
    return T(shape, dtype=dtype, values=values, layout=layout)


def M(shape, seed=0, layout="contiguous"):
    """A random bool mask."""
    return T(shape, dtype="bool", seed=seed + 7, layout=layout)


# -- masks -----------------------------------------------------------------------------------------------------
def masked_fill_samples(dtype):
    value = {"bool": True, "uint8": 7}.get(dtype, -3 if dtype in ("int64", "int32") else 2.5)
    yield Sample((T((3, 4)), M((3, 4)), value), name="scalar")
    yield Sample((T((3, 4)), M((4,)), value), name="broadcast mask")
    yield Sample((T((4,)), M((3, 4)), value), name="broadcast self", skip_inplace=True)
    yield Sample((T(()), M(()), value), name="0-dim")
    yield Sample((T((0, 3)), M((0, 3)), value), name="empty")
    yield Sample((T((3, 4), layout="transposed"), M((3, 4), layout="transposed"), value), name="transposed")
    yield Sample((T((3, 6), layout="strided"), M((3, 6), layout="strided"), value), name="strided")
    yield Sample((T((3, 4)), M((3, 4)), T((), values=1)), name="tensor value")
    yield Sample((T((3, 4)), M((3, 4)), T((), dtype="float64", values=1.5)), name="float64 tensor value")
    yield Sample((T((3, 4)), M((3, 4)), 1), name="int value")
    yield Sample((T((3, 4)), M((3, 4)), False), name="bool value")


def masked_fill_errors():
    return [ErrorSample((T((3, 4)), T((3, 4), dtype="int64"), 1.0), name="int mask"),
            ErrorSample((T((3, 4)), T((3, 4), dtype="uint8"), 1.0), name="uint8 mask"),
            ErrorSample((T((3, 4)), M((3, 4)), T((1,))), name="1-d value"),
            ErrorSample((T((3, 4), dtype="uint8"), M((3, 4)), 300), name="overflow"),
            ErrorSample((T((3, 4)), M((3, 4)), 1j), name="complex"),
            ErrorSample((T((4,)), M((3, 4)), 1.0), form="inplace", name="broadcast self in place"),
            ErrorSample((T((3, 4)), M((2, 4)), 1.0), name="broadcast")]


def masked_select_samples(dtype):
    yield Sample((T((3, 4)), M((3, 4))), name="same shape")
    yield Sample((T((3, 4)), M((4,))), name="broadcast mask")
    yield Sample((T((4,)), M((3, 4))), name="broadcast self")
    yield Sample((T(()), M(())), name="0-dim")
    yield Sample((T((0, 4)), M((0, 4))), name="empty")
    yield Sample((T((3, 4), layout="transposed"), M((3, 4), layout="transposed")), name="transposed")


def masked_scatter_samples(dtype):
    yield Sample((T((3, 4)), M((3, 4)), T((12,), seed=1)), name="basic")
    yield Sample((T((3, 4)), M((4,)), T((3, 5), seed=1)), name="broadcast mask")
    yield Sample((T((4,)), M((3, 4)), T((20,), seed=1)), name="broadcast self", skip_inplace=True)
    yield Sample((T((3, 4), layout="transposed"), M((3, 4)), T((4, 3), layout="transposed", seed=1)),
                 name="transposed")
    yield Sample((T(()), M(()), T((2,), seed=1)), name="0-dim")


def masked_scatter_errors():
    return [ErrorSample((T((3, 4)), T((3, 4), dtype="bool", values=((1,) * 4,) * 3), T((2,))), name="short"),
            ErrorSample((T((3, 4)), M((3, 4)), T((12,), dtype="int64")), name="dtype"),
            ErrorSample((T((3, 4)), T((3, 4), dtype="int64"), T((12,))), name="int mask")]


# -- gathers -----------------------------------------------------------------------------------------------------
def index_select_samples(dtype):
    yield Sample((T((3, 4)), 1, I((2, 0, 2))), name="dim 1")
    yield Sample((T((3, 4)), 0, I((2, 0), "int32")), name="dim 0 int32")
    yield Sample((T((3, 4)), -1, T((0,), dtype="int64")), name="empty index")
    yield Sample((T((3, 4)), 1, I(3)), name="0-dim index")
    yield Sample((T(()), 0, I((0,))), name="0-dim self")
    yield Sample((T((2, 3, 4)), 2, I((3, 3, 0, 1))), name="3-d")
    yield Sample((T((3, 4), layout="transposed"), 0, I((1, 0))), name="transposed")
    yield Sample((T((0, 4)), 1, I((1,))), name="empty self")


def index_select_errors():
    return [ErrorSample((T((3, 4)), 1, I((4,))), name="bounds"), ErrorSample((T((3,)), 0, I((-1,))), name="negative"),
            ErrorSample((T((3, 4)), 1, I((1,), "int16")), name="dtype"),
            ErrorSample((T((3, 4)), 1, I(((1,),))), name="2-d index"),
            ErrorSample((T(()), 0, I((0, 0))), name="scalar"), ErrorSample((T((3, 4)), 2, I((0,))), name="dim"),
            ErrorSample((T((2, 3, 4)), 0, I((2,))), name="bounds dim 0"),
            ErrorSample((T((2, 3, 4)), 1, I((-1,))), name="bounds dim 1")]


def gather_samples(dtype):
    yield Sample((T((3, 4)), 1, T((3, 2), dtype="int64", low=0, high=4)), name="dim 1")
    yield Sample((T((3, 4)), 0, T((2, 4), dtype="int32", low=0, high=3)), name="dim 0 int32")
    yield Sample((T((3, 4)), -1, T((2, 6), dtype="int64", low=0, high=4)), name="smaller rows, more cols")
    yield Sample((T(()), 0, I(0)), name="0-dim")
    yield Sample((T(()), 0, I((0, 0))), name="0-dim self 1-d index")
    yield Sample((T((3, 4), layout="transposed"), 1, T((3, 4), dtype="int64", low=0, high=4, layout="transposed")),
                 name="transposed")
    yield Sample((T((2, 3, 4)), 1, T((2, 3, 2), dtype="int64", low=0, high=3)), {"sparse_grad": False},
                 name="3-d")


def gather_errors():
    return [ErrorSample((T((3, 4)), 1, I(((0, 4),))), name="bounds"),
            ErrorSample((T((3, 4)), 1, I(((0, -1),))), name="negative"),
            ErrorSample((T((3, 4)), 1, I(((0,),) * 4)), name="size"),
            ErrorSample((T((3, 4)), 1, I((0,))), name="ndim"),
            ErrorSample((T((3, 4)), 1, I(((0,),), "int16")), name="dtype"),
            ErrorSample((T((3, 4)), 2, I(((0,),))), name="dim")]


def take_samples(dtype):
    yield Sample((T((3, 4)), I(((0, 11), (-1, 5)))), name="2-d index")
    yield Sample((T((3, 4), layout="transposed"), I((1, 4))), name="transposed")
    yield Sample((T(()), I((0, -1))), name="0-dim")
    yield Sample((T((3, 4)), T((0,), dtype="int64")), name="empty")


def take_errors():
    return [ErrorSample((T((3, 4)), I((12,))), name="bounds"), ErrorSample((T((3, 4)), I((-13,))), name="negative"),
            ErrorSample((T((3, 4)), I((1,), "int32")), name="dtype"), ErrorSample((T((0,)), I((0,))), name="empty")]


def take_along_dim_samples(dtype):
    yield Sample((T((3, 4)), T((3, 2), dtype="int64", low=0, high=4), 1), name="dim 1")
    yield Sample((T((3, 4)), T((1, 4), dtype="int64", low=0, high=3), 0), name="broadcast index")
    yield Sample((T((3, 1)), T((3, 5), dtype="int64", low=0, high=1), -1), name="broadcast self")
    yield Sample((T((3, 4)), I((11, 0, 5))), name="flat")


def take_along_dim_errors():
    return [ErrorSample((T((3, 4)), I((0,)), 0), name="ndim"), ErrorSample((T((3, 4)), I(((0,),), "int32"), 0),
                                                                          name="dtype"),
            ErrorSample((T((3, 4)), I(((0, 1),)), 0), name="broadcast")]


# -- scatters ----------------------------------------------------------------------------------------------------
IDX_D1 = ((0, 2, 3), (1, 0, 2))           # unique within each row: scatter along dim 1 of a (3, 4)
IDX_D0 = ((0, 2, 1, 0), (2, 1, 0, 1))     # unique within each column: scatter along dim 0 of a (3, 4)
DUP_D1 = ((0, 0, 3), (1, 1, 1))


def scatter_samples(dtype):
    yield Sample((T((3, 4)), 1, I(IDX_D1), T((2, 3), seed=1)), name="src dim 1")
    yield Sample((T((3, 4)), 0, I(IDX_D0, "int32"), T((3, 5), seed=1)), name="src dim 0 larger src")
    yield Sample((T((3, 4)), -1, I(IDX_D1), 1), name="value")
    yield Sample((T((3, 4)), 1, I(DUP_D1), T((2, 3), seed=1)), {"reduce": "add"}, name="reduce add")
    yield Sample((T((3, 4)), 1, I(DUP_D1), T((2, 3), seed=1, low=-2, high=2)), {"reduce": "multiply"},
                 name="reduce multiply")
    yield Sample((T((3, 4)), 1, I(DUP_D1), 2), {"reduce": "multiply"}, name="value reduce")
    yield Sample((T(()), 0, I(0), T((), seed=1)), name="0-dim")
    yield Sample((T((3, 4)), 1, T((0, 2), dtype="int64"), T((2, 3), seed=1)), name="empty index")
    yield Sample((T((3, 4), layout="transposed"), 1, I(IDX_D1), T((3, 4), layout="transposed", seed=1)),
                 name="transposed")


def scatter_errors():
    return [ErrorSample((T((3, 4)), 1, I(IDX_D1), T((2, 3), dtype="float64")), name="src dtype"),
            ErrorSample((T((3, 4)), 1, I(IDX_D1, "int16"), T((2, 3))), name="index dtype"),
            ErrorSample((T((3, 4)), 1, I(((4,),)), T((2, 3))), name="bounds"),
            ErrorSample((T((3, 4)), 1, I(((-1,),)), 1.0), name="negative"),
            ErrorSample((T((3, 4)), 1, I(IDX_D1), T((1, 1))), name="src small"),
            ErrorSample((T((3, 4)), 1, I(((0,),) * 4), 1.0), name="index big"),
            ErrorSample((T((3, 4)), 1, I((0,)), T((2, 3))), name="ndim"),
            ErrorSample((T((3, 4)), 1, I(IDX_D1), T((2, 3))), {"reduce": "mean"}, name="reduce"),
            ErrorSample((T((3, 4)), 1, I(IDX_D1), 1.0), {"reduce": "sum"}, name="value reduce"),
            ErrorSample((T((3, 4), dtype="uint8"), 1, I(IDX_D1), 300), name="value overflow")]


def scatter_add_samples(dtype):
    yield Sample((T((3, 4)), 1, I(DUP_D1), T((2, 3), seed=1)), name="duplicates")
    yield Sample((T((3, 4)), 0, I(IDX_D0, "int32"), T((3, 5), seed=1)), name="dim 0")
    yield Sample((T(()), 0, I((0, 0)), T((2,), seed=1)), name="0-dim self")
    yield Sample((T((3, 4), layout="transposed"), -1, I(DUP_D1), T((3, 4), layout="transposed", seed=1)),
                 name="transposed")


def scatter_reduce_samples(dtype):
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            src = T((2, 3), seed=1, low=-2, high=2) if reduce == "prod" else T((2, 3), seed=1)
            yield Sample((T((3, 4)), 1, I(DUP_D1), src, reduce), {"include_self": include_self},
                         name=f"{reduce} {include_self}")
    yield Sample((T((3, 4)), 0, I(IDX_D0), T((2, 4), seed=1), "amax"), name="dim 0")


def scatter_reduce_errors():
    return [ErrorSample((T((3, 4)), 1, I(IDX_D1), T((2, 3)), "foo"), name="reduce"),
            ErrorSample((T((3, 4)), 1, I(IDX_D1), T((2, 3), dtype="float64"), "sum"), name="dtype")]


# -- index_add / index_copy / index_fill -------------------------------------------------------------------------
def index_add_samples(dtype):
    yield Sample((T((3, 4)), 1, I((0, 0, 3)), T((3, 3), seed=1)), name="duplicates")
    yield Sample((T((3, 4)), 0, I((2, 0), "int32"), T((2, 4), seed=1)), {"alpha": 2}, name="alpha int32")
    yield Sample((T(()), 0, I(0), T((), seed=1)), name="0-dim")
    yield Sample((T((3, 4)), 1, I(1), T((3, 1), seed=1)), name="0-dim index")
    yield Sample((T((3, 4), layout="transposed"), -1, I((3, 1)), T((3, 2), seed=1, layout="transposed")),
                 name="transposed")
    yield Sample((T((3, 4)), 1, T((0,), dtype="int64"), T((3, 0), seed=1)), name="empty")


def index_add_errors():
    return [ErrorSample((T((3, 4)), 1, I((0, 0, 4)), T((3, 3))), name="bounds"),
            ErrorSample((T((3, 4)), 1, I((0, -1)), T((3, 2))), name="negative"),
            ErrorSample((T((3, 4)), 1, I((0, 0)), T((3, 3))), name="count"),
            ErrorSample((T((3, 4)), 1, I((0, 0)), T((2, 2))), name="shape"),
            ErrorSample((T((3, 4)), 1, I(((0, 0),)), T((3, 2))), name="2-d index"),
            ErrorSample((T((3, 4)), 1, I((0, 0), "int16"), T((3, 2))), name="index dtype"),
            ErrorSample((T((3, 4)), 1, I((0, 0)), T((3, 2), dtype="float64")), name="dtype")]


def index_copy_samples(dtype):
    yield Sample((T((3, 4)), 1, I((3, 0, 1)), T((3, 3), seed=1)), name="dim 1")
    yield Sample((T((3, 4)), 0, I((2,)), T((1, 4), seed=1)), name="dim 0")
    yield Sample((T(()), 0, I(0), T((), seed=1)), name="0-dim")
    yield Sample((T((3, 4), layout="transposed"), -1, I((3, 1)), T((3, 2), seed=1, layout="transposed")),
                 name="transposed")


def index_copy_errors():
    return [ErrorSample((T((3, 4)), 1, I((0, 4)), T((3, 2))), name="bounds"),
            ErrorSample((T((3, 4)), 1, I((0, 1)), T((3, 3))), name="count"),
            ErrorSample((T((2, 3, 4)), 1, I((0, 1)), T((2, 2, 5))), name="slice shape"),
            ErrorSample((T((2, 3, 4)), 1, I((0, 1)), T((2, 2))), name="ndim"),
            ErrorSample((T((2, 3, 4)), 1, I((0, 1)), T(())), name="scalar source"),
            ErrorSample((T((3, 4)), 1, I((0, 1), "int32"), T((3, 2))), name="index dtype"),
            ErrorSample((T((3, 4)), 1, I((0, 1)), T((3, 2), dtype="float64")), name="dtype")]


def index_fill_samples(dtype):
    value = {"bool": True, "uint8": 7}.get(dtype, -3 if dtype in ("int64", "int32") else 2.5)
    yield Sample((T((3, 4)), 1, I((2, 0)), value), name="dim 1")
    yield Sample((T((3, 4)), 0, I((-1,)), value), name="negative index")
    yield Sample((T((3, 4)), 1, I((0,)), T((), values=1)), name="tensor value")
    yield Sample((T(()), 0, I(0), value), name="0-dim")
    yield Sample((T((3, 4), layout="transposed"), -1, I(3), value), name="transposed 0-dim index")


def index_fill_errors():
    return [ErrorSample((T((3, 4)), 1, I((4,)), 1.0), name="bounds"),
            ErrorSample((T((3, 4)), 1, I((0,), "int32"), 1.0), name="dtype"),
            ErrorSample((T((3, 4)), 1, I(((0,),)), 1.0), name="2-d"),
            ErrorSample((T((3, 4)), 1, I((0,)), T((1,))), name="1-d value"),
            ErrorSample((T((3, 4), dtype="uint8"), 1, I((0,)), 300), name="overflow")]


# -- index_put ---------------------------------------------------------------------------------------------------
def index_put_samples(dtype):
    yield Sample((T((3, 4)), (I((0, 2)), I((3, 1))), T((2,), seed=1)), name="two indices")
    yield Sample((T((3, 4)), (I((2, 0)),), T((4,), seed=1)), name="row broadcast")
    yield Sample((T((3, 4)), (I((0, 0, 2)), I((1, 1, 3))), T((3,), seed=1)), {"accumulate": True},
                 name="accumulate duplicates")
    yield Sample((T((3, 4)), (M((3, 4)),), T((), seed=1)), name="mask scalar value")
    yield Sample((T((3, 4)), (T((3, 4), dtype="bool", values=((1, 0, 1, 0),) * 3),), T((6,), seed=1)),
                 name="mask values")
    yield Sample((T((3, 4)), (T((3,), dtype="bool", values=(1, 0, 1)),), T((2, 4), seed=1)), {"accumulate": True},
                 name="mask accumulate")
    yield Sample((T((2, 3, 4)), (I((1, 0)), I((0, 2), "int32")), T((2, 4), seed=1)), name="int32")
    yield Sample((T((3, 4), layout="transposed"), (I(((0,), (2,))), I((3, 0))), T((2, 2), seed=1)),
                 name="broadcast indices")


def index_put_errors():
    return [ErrorSample((T((3, 4)), (I((0,)), I((0,)), I((0,))), T(())), name="too many"),
            ErrorSample((T((3, 4)), (I((3,)),), T(())), name="bounds"),
            ErrorSample((T((3, 4)), (I((0, 1)),), T((2,))), name="shape"),
            ErrorSample((T((3, 4)), (I((0, 1)),), T((4,), dtype="float64")), name="dtype"),
            ErrorSample((T((3, 4)), (I((0,), "int16"),), T(())), name="index dtype"),
            ErrorSample((T((3, 4)), (I((0, 1)), I((0, 1, 2))), T(())), name="broadcast"),
            ErrorSample((T((3, 4)), (T((4,), dtype="bool"),), T(())), name="mask shape")]


def index_samples(dtype):
    yield Sample((T((3, 4)), [None, I((3, 0, 3))]), name="dim 1")
    yield Sample((T((3, 4)), [I(((0,), (2,))), I((1, 3))]), name="broadcast")
    yield Sample((T((2, 3, 4)), [I((1, 0)), None, I((3, 0))]), name="separated")
    yield Sample((T((3, 4)), [M((3, 4))]), name="mask")
    yield Sample((T((3, 4), layout="transposed"), [I((2, 1), "int32")]), name="transposed int32")


def one_hot_samples(dtype):
    yield Sample((I((0, 2, 1)),), name="inferred")
    yield Sample((I(((0, 2), (1, 1))), 4), name="num_classes")
    yield Sample((I(2),), name="0-dim")
    yield Sample((T((0,), dtype="int64"), 3), name="empty")


def one_hot_errors():
    return [ErrorSample((I((0, 2)), 2), name="small"), ErrorSample((I((0, -1)),), name="negative"),
            ErrorSample((T((2,)),), name="float"), ErrorSample((I((0,), "int32"),), name="int32"),
            ErrorSample((T((0,), dtype="int64"),), name="empty")]


OPS = [
    OpInfo("masked_fill", aten=("masked_fill.Scalar", "masked_fill.Tensor", "masked_fill_.Scalar",
                                "masked_fill_.Tensor"), samples=masked_fill_samples, dtypes=ALL, method=True,
           inplace=True, errors=masked_fill_errors),
    OpInfo("masked_select", aten=("masked_select", "masked_select.out"), samples=masked_select_samples, dtypes=SMALL,
           method=True, out=True, errors=lambda: [ErrorSample((T((3, 4)), T((3, 4), dtype="int64")), name="int mask"),
                                                  ErrorSample((T((3, 4)), M((2, 4))), name="broadcast")]),
    OpInfo("masked_scatter", aten=("masked_scatter", "masked_scatter_"), samples=masked_scatter_samples, dtypes=SMALL,
           method=True, inplace=True, errors=masked_scatter_errors),
    OpInfo("index_select", aten=("index_select", "index_select.out"), samples=index_select_samples, dtypes=ALL,
           method=True, out=True, errors=index_select_errors),
    OpInfo("gather", aten=("gather", "gather.out"), samples=gather_samples, dtypes=ALL, method=True, out=True,
           errors=gather_errors),
    OpInfo("take", aten=("take", "take.out"), samples=take_samples, dtypes=SMALL, method=True, out=True,
           errors=take_errors),
    OpInfo("take_along_dim", aten=("take_along_dim", "take_along_dim.out"), samples=take_along_dim_samples,
           dtypes=SMALL, method=True, out=True, errors=take_along_dim_errors),
    OpInfo("scatter", aten=("scatter.src", "scatter_.src", "scatter.src_out", "scatter.value", "scatter_.value",
                            "scatter.value_out", "scatter.reduce", "scatter_.reduce", "scatter.reduce_out",
                            "scatter.value_reduce", "scatter_.value_reduce", "scatter.value_reduce_out"),
           samples=scatter_samples, dtypes=NUMERIC_SMALL, method=True, inplace=True, out=True, errors=scatter_errors),
    OpInfo("scatter_add", aten=("scatter_add", "scatter_add_", "scatter_add.out"), samples=scatter_add_samples,
           dtypes=NUMERIC_SMALL, method=True, inplace=True, out=True,
           errors=lambda: [ErrorSample((T((3, 4)), 1, I(IDX_D1), T((2, 3), dtype="int64")), name="dtype"),
                           ErrorSample((T((3, 4)), 1, I(IDX_D1, "int16"), T((2, 3))), name="index dtype")]),
    OpInfo("scatter_reduce", aten=("scatter_reduce.two", "scatter_reduce_.two", "scatter_reduce.two_out"),
           samples=scatter_reduce_samples, dtypes=NUMERIC_SMALL, method=True, inplace=True, out=True,
           errors=scatter_reduce_errors),
    OpInfo("index_add", aten=("index_add", "index_add_", "index_add.out"), samples=index_add_samples,
           dtypes=NUMERIC_SMALL, method=True, inplace=True, out=True, errors=index_add_errors),
    OpInfo("index_copy", aten=("index_copy", "index_copy_", "index_copy.out"), samples=index_copy_samples,
           dtypes=SMALL, method=True, inplace=True, out=True, errors=index_copy_errors),
    OpInfo("index_fill", aten=("index_fill.int_Scalar", "index_fill.int_Tensor", "index_fill_.int_Scalar",
                               "index_fill_.int_Tensor"), samples=index_fill_samples, dtypes=SMALL, method=True,
           inplace=True, errors=index_fill_errors),
    OpInfo("index_put", aten=("index_put", "index_put_"), samples=index_put_samples, dtypes=SMALL, method=True,
           inplace=True, errors=index_put_errors),
    FnOpInfo("_index_put_impl_", aten=("_index_put_impl_",), samples=index_put_samples, dtypes=("float32", "int64")),
    FnOpInfo("ops.aten.index.Tensor", aten=("index.Tensor",), fn=lambda lib: lib.ops.aten.index.Tensor,
             samples=index_samples, dtypes=SMALL),
    FnOpInfo("ops.aten.index.Tensor_out", aten=("index.Tensor_out",), fn=lambda lib: lib.ops.aten.index.Tensor_out,
             samples=lambda dtype: (Sample(s.args, {"out": T((0,))}, name=s.name) for s in index_samples(dtype)),
             dtypes=("float32",)),
    OpInfo("nn.functional.one_hot", aten=("one_hot",), samples=one_hot_samples, dtypes=("int64",),
           errors=one_hot_errors),
]
