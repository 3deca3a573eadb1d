"""The functional foreach operators — PyTorch's slow paths in ``ATen/native/ForeachOpsKernels.cpp``.

``_foreach_exp(tensors)`` is ``[exp(t) for t in tensors]``, one element op per entry (each with its own type
promotion and checks); the binary ``.Scalar`` and ``.List`` forms pair every entry with the scalar or with the
other list's entry.  Registered as CompositeExplicitAutograd, so autograd records one node for the whole list
(``derivatives/foreach.yaml``).

Invariant: the lists are checked as PyTorch's ``check_foreach_api_restrictions`` does before any entry is
computed (a non-empty list; two lists of one length).
"""

from __future__ import annotations

from ...aten import aten

__all__ = [
    "check_foreach_list", "check_foreach_lists",
    "foreach_abs_slow", "foreach_acos_slow", "foreach_asin_slow", "foreach_atan_slow", "foreach_ceil_slow",
    "foreach_cos_slow", "foreach_cosh_slow", "foreach_erf_slow", "foreach_erfc_slow", "foreach_exp_slow",
    "foreach_expm1_slow", "foreach_floor_slow", "foreach_frac_slow", "foreach_log_slow", "foreach_log10_slow",
    "foreach_log1p_slow", "foreach_log2_slow", "foreach_neg_slow", "foreach_reciprocal_slow", "foreach_round_slow",
    "foreach_rsqrt_slow", "foreach_sigmoid_slow", "foreach_sign_slow", "foreach_sin_slow", "foreach_sinh_slow",
    "foreach_sqrt_slow", "foreach_tan_slow", "foreach_tanh_slow", "foreach_trunc_slow",
    "foreach_add_scalar_slow", "foreach_sub_scalar_slow", "foreach_mul_scalar_slow", "foreach_div_scalar_slow",
    "foreach_add_list_slow", "foreach_sub_list_slow", "foreach_mul_list_slow", "foreach_div_list_slow",
    "check_foreach_scalars", "foreach_maximum_scalar_slow", "foreach_maximum_list_slow",
    "foreach_maximum_scalarlist_slow", "foreach_minimum_scalar_slow", "foreach_minimum_list_slow",
    "foreach_minimum_scalarlist_slow",
]


def check_foreach_list(tensors) -> None:
    if len(tensors) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")


def check_foreach_lists(tensors, others) -> None:
    check_foreach_list(tensors)
    if len(tensors) != len(others):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(tensors)} and "
                           f"{len(others)}")


def check_foreach_scalars(tensors, scalars) -> None:
    check_foreach_list(tensors)
    if len(tensors) != len(scalars):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")


def _unary(name: str):  # the op is looked up per call: the operators register after this module
    def kernel(self):
        check_foreach_list(self)
        op = getattr(aten, name)
        return [op(t) for t in self]
    return kernel


def _with_scalar(name: str, *extra):  # extra: the element op's alpha (add, sub)
    def kernel(self, scalar):
        check_foreach_list(self)
        op = getattr(aten, name)
        return [op(t, scalar, *extra) for t in self]
    return kernel


def _with_list(name: str):
    def kernel(self, other, *extra):  # extra: alpha, for add and sub
        check_foreach_lists(self, other)
        op = getattr(aten, name)
        return [op(t, o, *extra) for t, o in zip(self, other, strict=True)]
    return kernel


def _with_scalars(name: str):
    def kernel(self, scalars):
        check_foreach_scalars(self, scalars)
        op = getattr(aten, name)
        return [op(t, s) for t, s in zip(self, scalars, strict=True)]
    return kernel


foreach_abs_slow = _unary("abs")
foreach_acos_slow = _unary("acos")
foreach_asin_slow = _unary("asin")
foreach_atan_slow = _unary("atan")
foreach_ceil_slow = _unary("ceil")
foreach_cos_slow = _unary("cos")
foreach_cosh_slow = _unary("cosh")
foreach_erf_slow = _unary("erf")
foreach_erfc_slow = _unary("erfc")
foreach_exp_slow = _unary("exp")
foreach_expm1_slow = _unary("expm1")
foreach_floor_slow = _unary("floor")
foreach_frac_slow = _unary("frac")
foreach_log_slow = _unary("log")
foreach_log10_slow = _unary("log10")
foreach_log1p_slow = _unary("log1p")
foreach_log2_slow = _unary("log2")
foreach_neg_slow = _unary("neg")
foreach_reciprocal_slow = _unary("reciprocal")
foreach_round_slow = _unary("round")
foreach_rsqrt_slow = _unary("rsqrt")
foreach_sigmoid_slow = _unary("sigmoid")
foreach_sign_slow = _unary("sign")
foreach_sin_slow = _unary("sin")
foreach_sinh_slow = _unary("sinh")
foreach_sqrt_slow = _unary("sqrt")
foreach_tan_slow = _unary("tan")
foreach_tanh_slow = _unary("tanh")
foreach_trunc_slow = _unary("trunc")

foreach_add_scalar_slow = _with_scalar("add_Scalar", 1)
foreach_sub_scalar_slow = _with_scalar("sub_Scalar", 1)
foreach_mul_scalar_slow = _with_scalar("mul_Scalar")
foreach_div_scalar_slow = _with_scalar("div_Scalar")
foreach_add_list_slow = _with_list("add_Tensor")
foreach_sub_list_slow = _with_list("sub_Tensor")
foreach_mul_list_slow = _with_list("mul_Tensor")
foreach_div_list_slow = _with_list("div_Tensor")
foreach_maximum_scalar_slow = _with_scalar("clamp_min")
foreach_maximum_list_slow = _with_list("maximum")
foreach_maximum_scalarlist_slow = _with_scalars("clamp_min")
foreach_minimum_scalar_slow = _with_scalar("clamp_max")
foreach_minimum_list_slow = _with_list("minimum")
foreach_minimum_scalarlist_slow = _with_scalars("clamp_max")
