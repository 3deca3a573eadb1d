"""OpInfo entries: pointwise math (glasstorch/_ops/native_functions/pointwise.yaml)."""

from __future__ import annotations

from opinfo import ALL_FLOAT, ALL_NUMERIC, ErrorSample, OpInfo, T, binary_samples, unary_samples

OPS = [
    OpInfo("add", aten=("add.Tensor", "add_.Tensor", "add.out"), samples=binary_samples, dtypes=ALL_NUMERIC,
           method=True, inplace=True, out=True,
           errors=lambda: [ErrorSample((T((2,)), T((3,))), name="broadcast"),
                           ErrorSample((T((2,), dtype="int64"), 1.5), form="inplace", name="cast")]),
    OpInfo("mul", aten=("mul.Tensor", "mul_.Tensor", "mul.out"), samples=binary_samples, dtypes=ALL_NUMERIC,
           method=True, inplace=True, out=True),
    OpInfo("sin", aten=("sin", "sin_", "sin.out"), samples=unary_samples, dtypes=ALL_FLOAT + ("int64",),
           method=True, inplace=True, out=True),
]
