"""Neural-network decompositions (CompositeImplicitAutograd, plus a few CompositeExplicitAutograd kernels
that only call other operators) — PyTorch's composites in ``SoftMax.cpp``, ``Activation.cpp``,
``layer_norm.cpp``, ``Normalization.cpp``, ``group_norm.cpp`` and ``Dropout.cpp``.

The structure is PyTorch's, so a dispatch trace shows the same operators:

- ``softmax.int`` / ``log_softmax.int`` convert to ``dtype`` (when given) and call ``_softmax`` /
  ``_log_softmax(self, dim, half_to_float=False)``;
- ``layer_norm`` -> ``native_layer_norm(...)[0]``; ``batch_norm`` -> ``native_batch_norm(...)[0]`` after
  PyTorch's argument checks; ``group_norm`` -> ``native_group_norm(input, w, b, N, C, HxW, groups, eps)[0]``;
- ``rms_norm`` -> its checks, then ``_fused_rms_norm(...)[0]``, itself a composite on the CPU: ``_to_copy`` to the
  opmath type, ``pow``, ``mean.dim``, ``add_``, ``rsqrt``, ``mul`` (and ``mul`` by the weight), ``_to_copy`` back;
- ``dropout`` is the identity when not training or ``p == 0`` (it returns ``input`` itself), else
  ``native_dropout(input, p, train)[0]``;
- ``selu``, ``celu`` -> ``elu``; ``relu6`` -> ``hardtanh(0, 6)``; ``log_sigmoid`` -> ``log_sigmoid_forward``.

Invariant: nothing here touches tensor data; every computation is another operator call.
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..._core import shape as _shape
from ..._core.user_warning import warn as _user_warn
from ..._tensor.impl import TensorImpl, empty_contiguous, empty_impl, empty_strided_impl
from ..aten import aten
from ..kernels.cpu.activation import FLOATING, not_implemented, typemeta_name
from ..tensor_iterator import resize_out

__all__ = ["softmax_int", "softmax_int_out", "log_softmax_int", "log_softmax_int_out", "celu", "celu_", "selu",
           "selu_", "relu6", "relu6_", "log_sigmoid", "log_sigmoid_out", "layer_norm", "batch_norm",
           "batch_norm_legit_no_training", "group_norm", "rms_norm", "fused_rms_norm", "check_rms_norm_inputs",
           "instance_norm", "rrelu", "rrelu_", "dropout", "dropout_", "feature_dropout", "feature_dropout_",
           "alpha_dropout", "alpha_dropout_",
           "feature_alpha_dropout", "feature_alpha_dropout_", "safe_softmax", "native_dropout_backward",
           "batch_norm_with_update", "batch_norm_with_update_out", "native_batch_norm_out", "batch_norm_legit_out",
           "batch_norm_legit_no_stats_out"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _to_dtype(self: TensorImpl, dtype) -> TensorImpl:
    """``self.toType(dtype)``: ``self`` when already of that dtype, else a converted copy (``_to_copy``)."""
    if dtype is None or dtype is self.dtype:
        return self
    return aten._to_copy(self, dtype, None, None, None, False, None)


# -- softmax ------------------------------------------------------------------------------------------------
def softmax_int(self, dim, dtype):
    return aten._softmax(_to_dtype(self, dtype), dim, False)


def softmax_int_out(self, dim, dtype, out):
    return aten._softmax_out(_to_dtype(self, dtype), dim, False, out)


def safe_softmax(self, dim, dtype):
    """``_safe_softmax``: softmax, with 0 on the rows (along ``dim``) that are all ``-inf``."""
    out = aten.softmax_int(self, dim, dtype)
    empty_rows = aten.all_dim(aten.eq_Scalar(self, float("-inf")), dim, True)
    return aten.where_self(empty_rows, aten.scalar_tensor(0.0, out.dtype, None, out.device, None), out)


def native_dropout_backward(grad_output, mask, scale):
    """``grad_output * mask * scale`` (PyTorch's CPU kernel; an integral grad becomes float through the scale)."""
    return aten.mul_Scalar(aten.mul_Tensor(grad_output, mask), scale)


def log_softmax_int(self, dim, dtype):
    return aten._log_softmax(_to_dtype(self, dtype), dim, False)


def log_softmax_int_out(self, dim, dtype, out):
    return aten._log_softmax_out(_to_dtype(self, dtype), dim, False, out)


# -- activations --------------------------------------------------------------------------------------------
def _celu_inv_alpha(alpha) -> float:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / float(alpha)


def celu(self, alpha):
    """``celu(x, alpha) = elu(x, alpha, scale=1, input_scale=1/alpha)``."""
    return aten.elu(self, alpha, 1.0, _celu_inv_alpha(alpha))


def celu_(self, alpha):
    return aten.elu_(self, alpha, 1.0, _celu_inv_alpha(alpha))


def selu(self):
    return aten.elu(self, _SELU_ALPHA, _SELU_SCALE, 1)


def selu_(self):
    return aten.elu_(self, _SELU_ALPHA, _SELU_SCALE, 1)


def relu6(self):
    return aten.hardtanh(self, 0, 6)


def relu6_(self):
    return aten.hardtanh_(self, 0, 6)


def log_sigmoid(self):
    return aten.log_sigmoid_forward(self)[0]


def log_sigmoid_out(self, out):
    buffer = empty_contiguous((0,), self.dtype, self.device)
    return aten.log_sigmoid_forward_output(self, out, buffer)[0]


# -- normalization ------------------------------------------------------------------------------------------
def layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable):
    return aten.native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


def _size(t: TensorImpl, d: int) -> int:
    return t.sizes[_shape.wrap_dim(d, t.ndim, wrap_scalar=False)]


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """PyTorch's ``_batch_norm_impl_index`` checks, then ``native_batch_norm``."""
    if input.numel() == 0:
        return aten.mul_Tensor(input, 1)  # a fresh empty result that does not alias the input
    num_features = _size(input, 1)
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            if t.numel() != num_features:
                raise RuntimeError(f"{name} should contain {num_features} elements not {t.numel()}")
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != num_features:
            raise RuntimeError(f"{name} should contain {num_features} elements not {t.numel()}")
    return aten.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def batch_norm_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    """``_native_batch_norm_legit_no_training``: evaluation-mode batch norm."""
    return aten._native_batch_norm_legit(input, weight, bias, running_mean, running_var, False, momentum, eps)


def batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps):
    """``_batch_norm_with_update``: training-mode batch norm that updates the running stats, plus the (empty, on
    CPU) reserve buffer of the cuDNN/MIOpen kernels."""
    out, mean, invstd = aten._native_batch_norm_legit(input, weight, bias, running_mean, running_var, True, momentum,
                                                      eps)
    return out, mean, invstd, empty_impl((0,), _dt.uint8, input.device)


def _write_outs(outs, results):
    """An out= overload of a batch-norm operator: each result copied into its (resized) out tensor."""
    for o, r in zip(outs, results, strict=True):
        resize_out(o, r.sizes)
        aten.copy_(o, r, False)
    return outs


def batch_norm_with_update_out(input, weight, bias, running_mean, running_var, momentum, eps, out, save_mean,
                               save_invstd, reserve):
    results = batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps)
    return _write_outs((out, save_mean, save_invstd, reserve), results)


def native_batch_norm_out(input, weight, bias, running_mean, running_var, training, momentum, eps, out, save_mean,
                          save_invstd):
    results = aten.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
    return _write_outs((out, save_mean, save_invstd), results)


def batch_norm_legit_out(input, weight, bias, running_mean, running_var, training, momentum, eps, out, save_mean,
                         save_invstd):
    results = aten._native_batch_norm_legit(input, weight, bias, running_mean, running_var, training, momentum, eps)
    return _write_outs((out, save_mean, save_invstd), results)


def batch_norm_legit_no_stats_out(input, weight, bias, training, momentum, eps, out, save_mean, save_invstd):
    results = aten._native_batch_norm_legit_no_stats(input, weight, bias, training, momentum, eps)
    return _write_outs((out, save_mean, save_invstd), results)


def group_norm(input, num_groups, weight, bias, eps, cudnn_enabled):
    n, c = _size(input, 0), _size(input, 1)
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {_fmt(input.sizes)} and num_groups={num_groups}")
    # PyTorch prints the weight's shape in both messages ([0] when there is no weight)
    wshape = _fmt(weight.sizes) if weight is not None else "[0]"
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and not (t.ndim == 1 and t.numel() == c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, but "
                               f"got {name} of shape {wshape} and input of shape {_fmt(input.sizes)}")
    hxw = _shape.prod(input.sizes[2:])
    return aten.native_group_norm(input, weight, bias, n, c, hxw, num_groups, eps)[0]


def check_rms_norm_inputs(x: TensorImpl, normalized_shape, weight) -> None:
    """PyTorch's ``_check_rms_norm_inputs``."""
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k < 1:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {_fmt(normalized_shape)}")
    if weight is not None and weight.sizes != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{_fmt(weight.sizes)} and normalized_shape = {_fmt(normalized_shape)}")
    if x.ndim < k or x.sizes[x.ndim - k:] != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={_fmt(normalized_shape)}, expected input with shape "
                           f"[*{', '.join(str(s) for s in normalized_shape)}], but got input of size{_fmt(x.sizes)}")


def _rms_norm_composite(input, normalized_shape, weight, eps):
    """``(y, rstd)``: in the opmath type (float32 for the half types), ``rstd = rsqrt(mean(x**2) + eps)`` over the
    trailing dims and ``y = x * rstd * weight``, converted back to the input dtype once at the end."""
    if not (input.dtype in FLOATING or input.dtype.is_complex):
        raise not_implemented("rms_norm", input.dtype)
    dims = [input.ndim - i - 1 for i in range(len(normalized_shape))]
    opmath = _dt.float32 if input.dtype in (_dt.float16, _dt.bfloat16) else input.dtype
    if eps is None:
        eps = _dt.finfo(opmath.to_real()).eps
    upcast = _to_dtype(input, opmath)
    rstd = aten.rsqrt(aten.add__Scalar(aten.mean_dim(aten.pow_Tensor_Scalar(upcast, 2), dims, True, None), eps, 1))
    result = aten.mul_Tensor(upcast, rstd)
    if weight is not None:
        result = aten.mul_Tensor(result, weight)
    return _to_dtype(result, input.dtype), rstd


def fused_rms_norm(input, normalized_shape, weight, eps):
    """``_fused_rms_norm``: ``(output, rstd)``; like PyTorch's CPU version it checks no shapes."""
    return _rms_norm_composite(input, normalized_shape, weight, eps)


_warned = set()  # TORCH_WARN_ONCE: once per process


def rms_norm(input, normalized_shape, weight, eps):
    """The checks, then ``_fused_rms_norm`` — or, when the weight's dtype differs from the input's, the same
    composite called directly after a warning (once per process), as PyTorch does."""
    check_rms_norm_inputs(input, normalized_shape, weight)
    if weight is not None and weight.dtype is not input.dtype:
        if "rms_norm" not in _warned:
            _warned.add("rms_norm")
            _user_warn(f"Mismatch dtype between input and weight: input dtype = {typemeta_name(input.dtype)}, "
                       f"weight dtype = {typemeta_name(weight.dtype)}, Cannot dispatch to fused implementation.")
        return _rms_norm_composite(input, normalized_shape, weight, eps)[0]
    return aten._fused_rms_norm(input, normalized_shape, weight, eps)[0]


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """PyTorch's ``instance_norm``: ``batch_norm`` of the input viewed as one sample of ``N * C`` channels (weights
    and running statistics repeated ``N`` times); the running statistics then take the mean over the batch."""
    if not (use_input_stats or (running_mean is not None and running_var is not None)):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    n, c = input.sizes[0], input.sizes[1]

    def repeat(t):
        return None if t is None else aten.repeat(t, [n])

    mean_n, var_n = repeat(running_mean), repeat(running_var)
    flat = aten.view(aten.clone(input, None) if not input.is_contiguous() else input,
                     [1, n * c, *input.sizes[2:]])
    out = aten.batch_norm(flat, repeat(weight), repeat(bias), mean_n, var_n, use_input_stats, momentum, eps,
                          cudnn_enabled)
    for stat, stat_n in ((running_mean, mean_n), (running_var, var_n)):
        if stat is not None:
            aten.copy_(aten.alias(stat), aten.mean_dim(aten.view(stat_n, [n, c]), [0], False, None), False)
    return aten.view(out, list(input.sizes))


def rrelu(self, lower, upper, training, generator):
    noise = empty_strided_impl(self.sizes, _shape.strides_for_format(self.sizes, self.strides, None), self.dtype,
                               self.device)
    return aten.rrelu_with_noise_functional(self, noise, lower, upper, training, generator)[0]


def rrelu_(self, lower, upper, training, generator):
    # The functional op saves its input for backward; a clone keeps that saved value apart from ``self``, which
    # the copy overwrites (PyTorch's rrelu_with_noise_ saves its result instead; the gradient is the same).
    return aten.copy_(self, rrelu(aten.clone(self, None), lower, upper, training, generator), False)


# -- dropout ------------------------------------------------------------------------------------------------
def _check_p(p) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")


_ALPHA_DROPOUT = 1.7580993408473766  # alpha dropout's saturation value, -selu(-inf) = SELU scale * alpha


def _dropout_impl(input, p, train, feature, alpha, inplace):
    """PyTorch's ``_dropout_impl``: the noise (one draw per element, or per ``(N, C)`` feature map for the feature
    variants) is ``empty(...).bernoulli_(1 - p)``, scaled by ``1 / (1 - p)``; the alpha variants instead keep the
    SELU statistics, ``x * a * noise + b`` with ``b = (noise - 1) * alpha * a + alpha * a * p``, each step in the
    input's dtype as PyTorch takes them (the fused ``native_dropout`` is for accelerators)."""
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    mul = aten.mul__Tensor if inplace else aten.mul_Tensor
    if p == 1:  # PyTorch multiplies by a zero of the input's dtype (integers included)
        return mul(input, False if input.dtype is _dt.bool else 0)
    if feature:
        if len(input.sizes) < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        noise = empty_contiguous(tuple(input.sizes[:2]) + (1,) * (len(input.sizes) - 2), input.dtype, input.device)
    else:
        noise = empty_strided_impl(input.sizes, _shape.strides_for_format(input.sizes, input.strides, None),
                                   input.dtype, input.device)
    aten.bernoulli__float(noise, 1 - p, None)
    if not alpha:
        return mul(input, aten.div__Scalar(noise, 1 - p))
    a = 1.0 / math.sqrt((_ALPHA_DROPOUT * _ALPHA_DROPOUT * p + 1) * (1 - p))
    b = aten.add__Scalar(aten.mul__Scalar(aten.add_Scalar(noise, -1, 1), _ALPHA_DROPOUT * a), _ALPHA_DROPOUT * a * p, 1)
    aten.mul__Scalar(noise, a)
    return aten.add__Tensor(mul(input, noise), b, 1)


def dropout(input, p, train):
    return _dropout_impl(input, p, train, False, False, False)


def dropout_(self, p, train):
    return _dropout_impl(self, p, train, False, False, True)


def feature_dropout(input, p, train):
    return _dropout_impl(input, p, train, True, False, False)


def feature_dropout_(self, p, train):
    return _dropout_impl(self, p, train, True, False, True)


def alpha_dropout(input, p, train):
    return _dropout_impl(input, p, train, False, True, False)


def alpha_dropout_(self, p, train):
    return _dropout_impl(self, p, train, False, True, True)


def feature_alpha_dropout(input, p, train):
    return _dropout_impl(input, p, train, True, True, False)


def feature_alpha_dropout_(self, p, train):
    return _dropout_impl(self, p, train, True, True, True)
