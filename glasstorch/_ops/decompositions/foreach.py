"""The in-place foreach operators as decompositions — PyTorch's ``foreach_tensor_*_slow_`` loops.

``_foreach_exp_(tensors)`` runs ``exp_`` on each entry through the dispatcher, so under autograd each entry
records the element op's own node (``ExpBackward0``, ``AddBackward0`` ...), as PyTorch's in-place foreach
derivatives do; the lists are checked before any entry is written.

Invariant: nothing is returned (the schemas return ``()``); every entry is written in place.
"""

from __future__ import annotations

from ..aten import aten
from ..kernels.composite.foreach import check_foreach_list, check_foreach_lists, check_foreach_scalars

__all__ = [
    "foreach_abs_", "foreach_acos_", "foreach_asin_", "foreach_atan_", "foreach_ceil_", "foreach_cos_",
    "foreach_cosh_", "foreach_erf_", "foreach_erfc_", "foreach_exp_", "foreach_expm1_", "foreach_floor_",
    "foreach_frac_", "foreach_log_", "foreach_log10_", "foreach_log1p_", "foreach_log2_", "foreach_neg_",
    "foreach_reciprocal_", "foreach_round_", "foreach_rsqrt_", "foreach_sigmoid_", "foreach_sign_", "foreach_sin_",
    "foreach_sinh_", "foreach_sqrt_", "foreach_tan_", "foreach_tanh_", "foreach_trunc_",
    "foreach_sub_scalar_", "foreach_mul_scalar_", "foreach_div_scalar_",
    "foreach_add_list_", "foreach_sub_list_", "foreach_mul_list_", "foreach_div_list_",
    "foreach_maximum_scalar_", "foreach_maximum_list_", "foreach_maximum_scalarlist_", "foreach_minimum_scalar_",
    "foreach_minimum_list_", "foreach_minimum_scalarlist_",
]


def _unary(name: str):  # the op is looked up per call: the operators register after this module
    def decomposition(self) -> None:
        check_foreach_list(self)
        op = getattr(aten, name)
        for t in self:
            op(t)
    return decomposition


def _with_scalar(name: str, *extra):  # extra: the element op's alpha (add, sub)
    def decomposition(self, scalar) -> None:
        check_foreach_list(self)
        op = getattr(aten, name)
        for t in self:
            op(t, scalar, *extra)
    return decomposition


def _with_list(name: str):
    def decomposition(self, other, *extra) -> None:  # extra: alpha, for add and sub
        check_foreach_lists(self, other)
        op = getattr(aten, name)
        for t, o in zip(self, other, strict=True):
            op(t, o, *extra)
    return decomposition


def _with_scalars(name: str):
    def decomposition(self, scalars) -> None:
        check_foreach_scalars(self, scalars)
        op = getattr(aten, name)
        for t, s in zip(self, scalars, strict=True):
            op(t, s)
    return decomposition


foreach_abs_ = _unary("abs_")
foreach_acos_ = _unary("acos_")
foreach_asin_ = _unary("asin_")
foreach_atan_ = _unary("atan_")
foreach_ceil_ = _unary("ceil_")
foreach_cos_ = _unary("cos_")
foreach_cosh_ = _unary("cosh_")
foreach_erf_ = _unary("erf_")
foreach_erfc_ = _unary("erfc_")
foreach_exp_ = _unary("exp_")
foreach_expm1_ = _unary("expm1_")
foreach_floor_ = _unary("floor_")
foreach_frac_ = _unary("frac_")
foreach_log_ = _unary("log_")
foreach_log10_ = _unary("log10_")
foreach_log1p_ = _unary("log1p_")
foreach_log2_ = _unary("log2_")
foreach_neg_ = _unary("neg_")
foreach_reciprocal_ = _unary("reciprocal_")
foreach_round_ = _unary("round_")
foreach_rsqrt_ = _unary("rsqrt_")
foreach_sigmoid_ = _unary("sigmoid_")
foreach_sign_ = _unary("sign_")
foreach_sin_ = _unary("sin_")
foreach_sinh_ = _unary("sinh_")
foreach_sqrt_ = _unary("sqrt_")
foreach_tan_ = _unary("tan_")
foreach_tanh_ = _unary("tanh_")
foreach_trunc_ = _unary("trunc_")

foreach_sub_scalar_ = _with_scalar("sub__Scalar", 1)
foreach_mul_scalar_ = _with_scalar("mul__Scalar")
foreach_div_scalar_ = _with_scalar("div__Scalar")
foreach_add_list_ = _with_list("add__Tensor")
foreach_sub_list_ = _with_list("sub__Tensor")
foreach_mul_list_ = _with_list("mul__Tensor")
foreach_div_list_ = _with_list("div__Tensor")
foreach_maximum_scalar_ = _with_scalar("clamp_min_")
foreach_maximum_list_ = _with_list("clamp_min__Tensor")
foreach_maximum_scalarlist_ = _with_scalars("clamp_min_")
foreach_minimum_scalar_ = _with_scalar("clamp_max_")
foreach_minimum_list_ = _with_list("clamp_max__Tensor")
foreach_minimum_scalarlist_ = _with_scalars("clamp_max_")
