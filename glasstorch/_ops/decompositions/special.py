"""``torch.special`` aliases and ``ndtr`` (CompositeImplicitAutograd) — PyTorch's ``special_*`` composites in
``UnaryOps.cpp``, ``BinaryOps.cpp``, ``ReduceOps.cpp`` and ``SoftMax.cpp``.

``special_erf(x)`` is ``erf(x)``, ``special_gammaln`` is ``lgamma``, ``special_expit`` is ``sigmoid`` and so on:
each alias calls its primitive through the dispatcher with the same positional arguments, so autograd records
the primitive's node (``ErfBackward0``) and tracing sees the primitive.  ``special_ndtr`` is a formula over
``erf``: ``(1 + erf(x / sqrt(2))) / 2``.
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._tensor.impl import TensorImpl
from ..aten import aten
from ..tensor_iterator import resize_out

__all__ = [
    "special_expm1", "special_expm1_out", "special_exp2", "special_exp2_out", "special_psi", "special_psi_out",
    "special_digamma", "special_digamma_out", "special_gammaln", "special_gammaln_out", "special_erf",
    "special_erf_out", "special_erfc", "special_erfc_out", "special_erfinv", "special_erfinv_out", "special_i0",
    "special_i0_out", "special_expit", "special_expit_out", "special_sinc", "special_sinc_out", "special_log1p",
    "special_log1p_out", "special_polygamma", "special_polygamma_out", "special_multigammaln",
    "special_multigammaln_out", "special_logit", "special_logit_out", "special_round", "special_round_out",
    "special_logsumexp", "special_logsumexp_out", "special_gammainc", "special_gammainc_out", "special_gammaincc",
    "special_gammaincc_out", "special_xlogy", "special_xlogy_out", "special_xlogy_self_scalar",
    "special_xlogy_self_scalar_out", "special_xlogy_other_scalar", "special_xlogy_other_scalar_out",
    "special_log_softmax", "special_softmax", "special_ndtr", "special_ndtr_out",
]


def _alias(target: str):
    """A kernel that runs ``aten.<target>`` on its arguments as given (schema order, defaults filled)."""
    def kernel(*args):
        return getattr(aten, target)(*args)
    kernel.__qualname__ = kernel.__name__ = f"alias_of_{target}"
    return kernel


special_expm1 = _alias("expm1")
special_expm1_out = _alias("expm1_out")
special_exp2 = _alias("exp2")
special_exp2_out = _alias("exp2_out")
special_psi = _alias("digamma")
special_psi_out = _alias("digamma_out")
special_digamma = _alias("digamma")
special_digamma_out = _alias("digamma_out")
special_gammaln = _alias("lgamma")
special_gammaln_out = _alias("lgamma_out")
special_erf = _alias("erf")
special_erf_out = _alias("erf_out")
special_erfc = _alias("erfc")
special_erfc_out = _alias("erfc_out")
special_erfinv = _alias("erfinv")
special_erfinv_out = _alias("erfinv_out")
special_i0 = _alias("i0")
special_i0_out = _alias("i0_out")
special_expit = _alias("sigmoid")
special_expit_out = _alias("sigmoid_out")
special_sinc = _alias("sinc")
special_sinc_out = _alias("sinc_out")
special_log1p = _alias("log1p")
special_log1p_out = _alias("log1p_out")
special_polygamma = _alias("polygamma")
special_polygamma_out = _alias("polygamma_out")
special_multigammaln = _alias("mvlgamma")
special_multigammaln_out = _alias("mvlgamma_out")
special_logit = _alias("logit")
special_logit_out = _alias("logit_out")
special_round = _alias("round_decimals")
special_round_out = _alias("round_decimals_out")
special_logsumexp = _alias("logsumexp")
special_logsumexp_out = _alias("logsumexp_out")
special_gammainc = _alias("igamma")
special_gammainc_out = _alias("igamma_out")
special_gammaincc = _alias("igammac")
special_gammaincc_out = _alias("igammac_out")
special_xlogy = _alias("xlogy_Tensor")
special_xlogy_out = _alias("xlogy_OutTensor")
special_xlogy_self_scalar = _alias("xlogy_Scalar_Self")
special_xlogy_self_scalar_out = _alias("xlogy_OutScalar_Self")
special_xlogy_other_scalar = _alias("xlogy_Scalar_Other")
special_xlogy_other_scalar_out = _alias("xlogy_OutScalar_Other")
special_log_softmax = _alias("log_softmax_int")
special_softmax = _alias("softmax_int")

_SQRT1_2 = 0.707106781186547524400844362104849039  # M_SQRT1_2


def special_ndtr(self: TensorImpl) -> TensorImpl:
    """The standard normal CDF, ``(1 + erf(x * sqrt(1/2))) * 0.5``."""
    return aten.mul_Scalar(aten.add_Scalar(aten.erf(aten.mul_Scalar(self, _SQRT1_2)), 1, 1), 0.5)


def special_ndtr_out(self: TensorImpl, out: TensorImpl) -> TensorImpl:
    """The functional result copied into ``out`` (which it must cast to safely), as PyTorch's ``special_ndtr_out``."""
    if self.device != out.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{out.device} and {self.device}!")
    res = special_ndtr(self)
    if not _dt.can_cast(res.dtype, out.dtype):
        raise RuntimeError(f"result type {_dt.name_of(res.dtype)} can't be cast to the desired output type "
                           f"{_dt.name_of(out.dtype)}")
    resize_out(out, res.sizes)
    return aten.copy_(out, res, False)
