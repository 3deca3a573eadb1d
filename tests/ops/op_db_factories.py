"""OpInfo entries: factories declared in glasstorch/_ops/native_functions/factories.yaml.

No tensor arguments: each sample is a Python scalar and the dtype under test as ``dtype=``, plus calls without
a dtype (the default dtype, whatever the scalar's type) and torch's errors (a value the dtype cannot hold, a
non-number, ``requires_grad`` on an integer dtype).
"""

from __future__ import annotations

from opinfo import ALL, DType, ErrorSample, OpInfo, Sample


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


OPS = [
    OpInfo("scalar_tensor", aten=("scalar_tensor",), samples=_scalar_tensor_samples, dtypes=ALL, grad=False,
           errors=_scalar_tensor_errors),
]
