"""OpInfo entries: factories declared in glasstorch/_ops/native_functions/factories.yaml.

No tensor arguments: each sample is a Python scalar and the dtype under test as ``dtype=``, plus calls without
a dtype (the default dtype, whatever the scalar's type) and torch's errors (a value the dtype cannot hold, a
non-number, ``requires_grad`` on an integer dtype).
"""

from __future__ import annotations

from op_db_index import FnOpInfo
from opinfo import ALL, FLOATS, DType, ErrorSample, OpInfo, Sample, T


def _zeros_with_feature_meta_samples(dtype):
    """``aten._new_zeros_with_same_feature_meta``: other's layout (and storage size) per batch element of self."""
    yield Sample((T((5,)), T((2, 3, 4), dtype="float64")), name="other's dtype")
    yield Sample((T((3, 5)), T((2, 3, 4), layout="transposed")), {"self_num_batch_dims": 1}, name="transposed")
    yield Sample((T((3, 2, 5)), T((2, 6), layout="strided")), {"self_num_batch_dims": 2}, name="strided")
    yield Sample((T((2, 3)), T((1, 0, 2))), {"self_num_batch_dims": 2}, name="empty other")
    yield Sample((T((3, 0, 5)), T((5,))), {"self_num_batch_dims": 2}, name="empty batch")
    yield Sample((T((4,)), T(())), {"self_num_batch_dims": 1}, name="0-dim other")


def _scalar_tensor_samples(dtype):
    for s in (3, 2.5, True, -0.0, 1e-3, 1 + 0j):
        yield Sample((s,), {"dtype": DType(dtype)}, name=f"{s!r} dtype={dtype}")
    for s in (3, False, 2.5, 1 + 0j, -(2**40)):
        yield Sample((s,), name=f"{s!r} default dtype")
    if dtype in ("float32", "float64", "complex64"):
        yield Sample((1.5,), {"dtype": DType(dtype), "requires_grad": True}, name="requires_grad")


def _scalar_tensor_errors():
    return [ErrorSample((1 + 2j,), name="complex into the default dtype"),
            ErrorSample((300,), {"dtype": DType("uint8")}, name="out of uint8 range"),
            ErrorSample((1e300,), name="out of float range"),
            ErrorSample(("a",), name="not a number"),
            ErrorSample((), name="no value"),
            ErrorSample((3,), {"out": None}, name="no out= form"),
            ErrorSample((3,), {"dtype": DType("int64"), "requires_grad": True}, name="requires_grad int")]


def _zerotensor_samples(dtype):
    """``_efficientzerotensor``: zeros of a size (Note [ZeroTensor]); the zero-tensor bit itself is
    tests/test_zero_tensor.py's."""
    for size in ((2, 3), (0,), (), (4, 1, 2)):
        yield Sample((size,), {"dtype": DType(dtype)}, name=f"size {size}")
    yield Sample(((3,),), name="default dtype")


def _materialized_zerotensor(lib):
    """torch's zero tensor has no memory to read (tolist refuses it): compared through its clone, plain zeros."""
    return lambda *args, **kwargs: lib._efficientzerotensor(*args, **kwargs).clone()


def _is_zerotensor_samples(dtype):
    yield Sample((T((2, 3)),), name="an ordinary tensor")
    yield Sample((T(()),), name="0-dim")


OPS = [
    FnOpInfo("_efficientzerotensor", aten=("_efficientzerotensor",), fn=_materialized_zerotensor,
             samples=_zerotensor_samples, dtypes=ALL, grad=False,
             errors=lambda: [ErrorSample(((-1, 2),), name="negative size")]),
    OpInfo("_is_zerotensor", aten=("_is_zerotensor",), samples=_is_zerotensor_samples, dtypes=ALL, grad=False,
           method=True),
    OpInfo("scalar_tensor", aten=("scalar_tensor",), samples=_scalar_tensor_samples, dtypes=ALL, grad=False,
           errors=_scalar_tensor_errors),
    FnOpInfo("ops.aten._new_zeros_with_same_feature_meta", aten=("_new_zeros_with_same_feature_meta",),
             fn=lambda lib: lib.ops.aten._new_zeros_with_same_feature_meta, samples=_zeros_with_feature_meta_samples,
             dtypes=FLOATS, grad=False),
]
