"""Alias operators (CompositeImplicitAutograd): PyTorch's numpy-style and other alternative names.

Each alias is its own native function (``aten::arccos``, ``aten::divide.Tensor_mode``, ...) with the
canonical operator's schema under another name; its kernel redispatches the same arguments, in schema
order, to the canonical overload (``acos``, ``div.Tensor_mode``), so autograd, tracing and errors are
the canonical op's, as in PyTorch's ``UnaryOps.cpp``/``BinaryOps.cpp`` alias functions.
"""

from __future__ import annotations

from ..aten import aten

__all__ = ["absolute", "absolute_out", "absolute_", "arccos", "arccos_out", "arccos_", "arccosh", "arccosh_out",
           "arccosh_", "arcsin", "arcsin_out", "arcsin_", "arcsinh", "arcsinh_out", "arcsinh_", "arctan",
           "arctan_out", "arctan_", "arctan2", "arctan2_out", "arctan2_", "arctanh", "arctanh_out", "arctanh_",
           "divide_Tensor", "divide_Scalar", "divide_Tensor_mode", "divide_Scalar_mode", "divide_out",
           "divide_out_mode", "divide__Tensor", "divide__Tensor_mode", "divide__Scalar_mode", "divide__Scalar",
           "greater_equal_Tensor", "greater_equal_Scalar", "greater_equal_Scalar_out", "greater_equal_Tensor_out",
           "greater_equal__Scalar", "greater_equal__Tensor", "greater_Tensor", "greater_Scalar", "greater_Scalar_out",
           "greater_Tensor_out", "greater__Scalar", "greater__Tensor", "less_equal_Tensor", "less_equal_Scalar",
           "less_equal_Scalar_out", "less_equal_Tensor_out", "less_equal__Scalar", "less_equal__Tensor",
           "less_Tensor", "less_Scalar", "less_Scalar_out", "less_Tensor_out", "less__Scalar", "less__Tensor",
           "not_equal_Tensor", "not_equal_Scalar", "not_equal_Scalar_out", "not_equal_Tensor_out",
           "not_equal__Scalar", "not_equal__Tensor", "negative", "negative_out", "negative_", "multiply_Tensor",
           "multiply_Scalar", "multiply_out", "multiply__Tensor", "multiply__Scalar", "subtract_Tensor",
           "subtract_out", "subtract_Scalar", "subtract__Tensor", "subtract__Scalar", "fix", "fix_out", "fix_",
           "row_stack", "row_stack_out"]


def _alias(target: str):
    """The kernel of an alias of the overload ``target`` (an ``aten`` identifier, like ``div_Tensor_mode``)."""

    def kernel(*args):
        return getattr(aten, target)(*args)

    kernel.__name__ = kernel.__qualname__ = f"alias_of_{target}"
    return kernel


absolute = _alias("abs")
absolute_out = _alias("abs_out")
absolute_ = _alias("abs_")
arccos = _alias("acos")
arccos_out = _alias("acos_out")
arccos_ = _alias("acos_")
arccosh = _alias("acosh")
arccosh_out = _alias("acosh_out")
arccosh_ = _alias("acosh_")
arcsin = _alias("asin")
arcsin_out = _alias("asin_out")
arcsin_ = _alias("asin_")
arcsinh = _alias("asinh")
arcsinh_out = _alias("asinh_out")
arcsinh_ = _alias("asinh_")
arctan = _alias("atan")
arctan_out = _alias("atan_out")
arctan_ = _alias("atan_")
arctan2 = _alias("atan2")
arctan2_out = _alias("atan2_out")
arctan2_ = _alias("atan2_")
arctanh = _alias("atanh")
arctanh_out = _alias("atanh_out")
arctanh_ = _alias("atanh_")
divide_Tensor = _alias("div_Tensor")
divide_Scalar = _alias("div_Scalar")
divide_Tensor_mode = _alias("div_Tensor_mode")
divide_Scalar_mode = _alias("div_Scalar_mode")
divide_out = _alias("div_out")
divide_out_mode = _alias("div_out_mode")
divide__Tensor = _alias("div__Tensor")
divide__Tensor_mode = _alias("div__Tensor_mode")
divide__Scalar_mode = _alias("div__Scalar_mode")
divide__Scalar = _alias("div__Scalar")
greater_equal_Tensor = _alias("ge_Tensor")
greater_equal_Scalar = _alias("ge_Scalar")
greater_equal_Scalar_out = _alias("ge_Scalar_out")
greater_equal_Tensor_out = _alias("ge_Tensor_out")
greater_equal__Scalar = _alias("ge__Scalar")
greater_equal__Tensor = _alias("ge__Tensor")
greater_Tensor = _alias("gt_Tensor")
greater_Scalar = _alias("gt_Scalar")
greater_Scalar_out = _alias("gt_Scalar_out")
greater_Tensor_out = _alias("gt_Tensor_out")
greater__Scalar = _alias("gt__Scalar")
greater__Tensor = _alias("gt__Tensor")
less_equal_Tensor = _alias("le_Tensor")
less_equal_Scalar = _alias("le_Scalar")
less_equal_Scalar_out = _alias("le_Scalar_out")
less_equal_Tensor_out = _alias("le_Tensor_out")
less_equal__Scalar = _alias("le__Scalar")
less_equal__Tensor = _alias("le__Tensor")
less_Tensor = _alias("lt_Tensor")
less_Scalar = _alias("lt_Scalar")
less_Scalar_out = _alias("lt_Scalar_out")
less_Tensor_out = _alias("lt_Tensor_out")
less__Scalar = _alias("lt__Scalar")
less__Tensor = _alias("lt__Tensor")
not_equal_Tensor = _alias("ne_Tensor")
not_equal_Scalar = _alias("ne_Scalar")
not_equal_Scalar_out = _alias("ne_Scalar_out")
not_equal_Tensor_out = _alias("ne_Tensor_out")
not_equal__Scalar = _alias("ne__Scalar")
not_equal__Tensor = _alias("ne__Tensor")
negative = _alias("neg")
negative_out = _alias("neg_out")
negative_ = _alias("neg_")
multiply_Tensor = _alias("mul_Tensor")
multiply_Scalar = _alias("mul_Scalar")
multiply_out = _alias("mul_out")
multiply__Tensor = _alias("mul__Tensor")
multiply__Scalar = _alias("mul__Scalar")
subtract_Tensor = _alias("sub_Tensor")
subtract_out = _alias("sub_out")
subtract_Scalar = _alias("sub_Scalar")
subtract__Tensor = _alias("sub__Tensor")
subtract__Scalar = _alias("sub__Scalar")
fix = _alias("trunc")
fix_out = _alias("trunc_out")
fix_ = _alias("trunc_")
row_stack = _alias("vstack")
row_stack_out = _alias("vstack_out")
