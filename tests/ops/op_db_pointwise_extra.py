"""OpInfo entries for issue 20's small pointwise ops: isposinf, isneginf and logaddexp2.

Each entry runs through test_ops.py (function, method, out= forms; values, dtypes, shapes; error type and
message), against torch.
"""

from __future__ import annotations

from op_db_pointwise import FLOAT_OP, _binary, _unary
from opinfo import ALL, ErrorSample, OpInfo, T


def _inf_errors():
    return [ErrorSample((T((2,), dtype="complex64"),), name="complex"),
            ErrorSample((T((2,)),), {"out": T((2,))}, name="float out")]


OPS = [
    OpInfo(name, aten=(name, f"{name}.out"), samples=_unary(), dtypes=ALL, method=True, out=True, grad=False,
           errors=_inf_errors)
    for name in ("isposinf", "isneginf")
] + [
    OpInfo("logaddexp2", aten=("logaddexp2", "logaddexp2.out"), samples=_binary(scalars=()), dtypes=FLOAT_OP,
           method=True, out=True,
           errors=lambda: [ErrorSample((T((2,), dtype="complex64"), T((2,), dtype="complex64")), name="complex"),
                           ErrorSample((T((2,)), T((3,))), name="broadcast")]),
]
