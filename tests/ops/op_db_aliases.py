"""OpInfo entries for PyTorch's alias operators (absolute, arccos, divide, greater_equal, multiply, fix,
row_stack, ...): each alias reuses its canonical operator's entry (samples, errors, forms, gradients)
under the alias's own name and overloads, on a few dtypes, so test_ops.py runs the alias itself against
torch's alias. tests/test_aliases.py checks that each alias and its canonical op agree.
"""

from __future__ import annotations

import dataclasses

import op_db_pointwise
import op_db_shape

# alias -> canonical, as aten declares them
ALIASES = {"absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
           "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "divide": "div", "greater_equal": "ge",
           "greater": "gt", "less_equal": "le", "less": "lt", "not_equal": "ne", "negative": "neg",
           "multiply": "mul", "subtract": "sub", "fix": "trunc", "row_stack": "vstack"}
# torch declares no Scalar out= overloads for these aliases (a number still reaches the Tensor out= overload)
_NO_ALIAS = {"div.Scalar_out", "div.Scalar_mode_out", "mul.Scalar_out", "sub.Scalar_out"}
_DTYPES = ("float32", "float64", "int64", "bool")


def _renamed(overload: str, canonical: str, alias: str) -> str:
    base, _, rest = overload.partition(".")
    return alias + base[len(canonical):] + (f".{rest}" if rest else "")


def _alias_entry(canonical_op, alias):
    canonical = canonical_op.name
    aten = tuple(_renamed(a, canonical, alias) for a in canonical_op.aten if a not in _NO_ALIAS)
    dtypes = tuple(d for d in canonical_op.dtypes if d in _DTYPES)
    return dataclasses.replace(canonical_op, name=alias, aten=aten, dtypes=dtypes)


_BY_NAME = {op.name: op for op in op_db_pointwise.OPS + op_db_shape.OPS}
OPS = [_alias_entry(_BY_NAME[canonical], alias) for alias, canonical in ALIASES.items()]
