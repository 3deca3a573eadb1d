"""``glasstorch.nn.functional`` — PyTorch's ``torch/nn/functional.py``.

Same Python signatures and defaults as PyTorch's.  Where PyTorch's function *is* a ``torch._C._nn``
binding (``gelu``, ``softplus``, ``logsigmoid``, ...), this module re-exports the generated binding of
the same operator (``glasstorch/_generated/functions.py``, ``python_module: nn`` in the YAML); the
Python wrappers (``relu(input, inplace=False)``, ``dropout``, ``batch_norm`` ...) repeat PyTorch's
Python-level checks and then call the ``glasstorch.*`` operator PyTorch's wrapper calls.

The module is organised in sections, one per owning family; add new functions to your own section.
"""

from __future__ import annotations

import warnings

from glasstorch._generated import functions as _gen

# ============================================================================================================
# Activations, softmax, normalization, dropout, embedding  (nn.yaml: NN part 1)
# ============================================================================================================

# torch._C._nn bindings, used as they are by torch.nn.functional
cosine_similarity = _gen.cosine_similarity  # aten::cosine_similarity (Distance.cpp's composite)
gelu = _gen.gelu
softplus = _gen.softplus
logsigmoid = _gen.log_sigmoid
elu_ = _gen.elu_
leaky_relu_ = _gen.leaky_relu_
hardtanh_ = _gen.hardtanh_
relu_ = _gen.relu_
selu_ = _gen.selu_
celu_ = _gen.celu_
threshold_ = _gen.threshold_


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
                  f"argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x_i) / sum_j exp(x_j)`` along ``dim`` (computed stably)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed as ``x - max - log(sum(exp(x - max)))``."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def relu(input, inplace=False):
    return _gen.relu_(input) if inplace else _gen.relu(input)


def relu6(input, inplace=False):
    return _gen.relu6_(input) if inplace else _gen.relu6(input)


def elu(input, alpha=1.0, inplace=False):
    return _gen.elu_(input, alpha) if inplace else _gen.elu(input, alpha)


def selu(input, inplace=False):
    return _gen.selu_(input) if inplace else _gen.selu(input)


def celu(input, alpha=1.0, inplace=False):
    return _gen.celu_(input, alpha) if inplace else _gen.celu(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _gen.leaky_relu_(input, negative_slope) if inplace else _gen.leaky_relu(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _gen.hardtanh_(input, min_val, max_val) if inplace else _gen.hardtanh(input, min_val, max_val)


def hardsigmoid(input, inplace=False):
    return _gen.hardsigmoid_(input) if inplace else _gen.hardsigmoid(input)


def hardswish(input, inplace=False):
    return _gen.hardswish_(input) if inplace else _gen.hardswish(input)


def silu(input, inplace=False):
    return _gen.silu_(input) if inplace else _gen.silu(input)


def mish(input, inplace=False):
    return _gen.mish_(input) if inplace else _gen.mish(input)


def threshold(input, threshold, value, inplace=False):
    return _gen.threshold_(input, threshold, value) if inplace else _gen.threshold(input, threshold, value)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _gen.glu(input, dim)


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (when ``training``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _gen.dropout_(input, p, training) if inplace else _gen.dropout(input, p, training)


def _verify_batch_size(size) -> None:
    size_prods = size[0]
    for s in size[2:]:
        size_prods *= s
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _gen.layer_norm(input, normalized_shape, weight, bias, eps, True)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _gen.rms_norm(input, normalized_shape, weight, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Normalize each channel (dim 1); in training, by the batch statistics and updating the running ones."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _gen.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _gen.group_norm(input, num_groups, weight, bias, eps, True)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` looked up by the integer ``input``; ``max_norm`` first renormalizes those rows in place."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        _gen.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    return _gen.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# torch._C._nn bindings owned by other families, present once their operators are declared
for _name in ("one_hot", "pad"):
    if hasattr(_gen, _name):
        globals()[_name] = getattr(_gen, _name)
del _name


# ============================================================================================================
# Losses, convolution, pooling, attention  (nn_loss.yaml, conv.yaml: NN part 2)
# ============================================================================================================
import glasstorch as _torch  # noqa: E402  (the package is importing this module; attributes resolve at call time)

from . import _reduction as _Reduction  # noqa: E402


def _size_warning(input, target):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      f"This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      f"same size.", stacklevel=3)


def _broadcast_pair(input, target):
    """``torch.broadcast_tensors(input, target)``: both expanded to the broadcast shape."""
    return _torch.broadcast_tensors(input, target)


def _weighted_reduction(loss, weight, reduction, normalize_by_weight):
    """The Python-level weighted reduction of ``mse_loss``/``l1_loss``/``huber_loss`` (``weight=``)."""
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return _torch.sum(weighted)
    if reduction == "mean":
        return _torch.sum(weighted) / _torch.sum(weight) if normalize_by_weight else weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross entropy of logits ``input`` against class indices or class probabilities ``target``."""
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return _gen.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index,
                                   label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of log-probabilities ``input`` at the class indices ``target``."""
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    return _gen.nll_loss_nd(input, target, weight, _Reduction.get_enum(reduction), ignore_index)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error, optionally weighted element by element."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        return _weighted_reduction(_torch.pow(expanded_input - expanded_target, 2), weight, reduction, True)
    return _gen.mse_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error, optionally weighted element by element."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        return _weighted_reduction(_torch.abs(expanded_input - expanded_target), weight, reduction, True)
    return _gen.l1_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta``, absolute error above (``beta == 0`` is ``l1_loss``)."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _Reduction.legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if beta == 0.0:
        return _gen.l1_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction))
    return _gen.smooth_l1_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, ``delta``-scaled absolute error above; optionally weighted."""
    _size_warning(input, target)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if weight is None:
        return _gen.huber_loss(expanded_input, expanded_target, _Reduction.get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    unweighted = _gen.huber_loss(expanded_input, expanded_target, _Reduction.get_enum("none"), delta)
    return _weighted_reduction(unweighted, weight, reduction, False)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities ``input`` against ``target``."""
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = _Reduction.get_enum(reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        new_size = _torch.broadcast_shapes(target.size(), weight.size())
        weight = weight.expand(new_size)
    return _gen.binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of logits ``input`` (a fused, stable ``sigmoid`` + BCE), with ``pos_weight``."""
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = _Reduction.get_enum(reduction)
    if not (target.size() == input.size()):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return _torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence of log-probabilities ``input`` from ``target``."""
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        reduction_enum = _Reduction.get_enum("sum" if reduction == "batchmean" else reduction)
    reduced = _torch.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


conv1d = _gen.conv1d  # torch.nn.functional.conv1d is torch.conv1d
conv2d = _gen.conv2d


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """2-D max pooling returning (values, flat indices into each input plane)."""
    if stride is None:
        stride = []
    return _gen.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if stride is None:
        stride = []
    return _torch.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-D max pooling; ``return_indices=True`` also returns the argmax indices (PyTorch's boolean_dispatch)."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)
    return _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


avg_pool2d = _gen.avg_pool2d  # torch.nn.functional.avg_pool2d is torch._C._nn.avg_pool2d


scaled_dot_product_attention = _gen.scaled_dot_product_attention


# -- linear (aten::linear, the nn namespace of the generated bindings) --------------------------------------
linear = _gen.linear


# ============================================================================================================
# nn.Module support: functions the layers need (issue 5)
# ============================================================================================================


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)`` along ``dim``."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def softsign(input):
    """``x / (1 + |x|)``."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """``x - tanh(x)``."""
    return input - input.tanh()


def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0."""
    return input.masked_fill((input >= -lambd) & (input <= lambd), 0)


def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return input - input.clamp(-lambd, lambd)


def prelu(input, weight):
    """``x if x > 0 else weight * x``, one weight per channel (dim 1) or one shared."""
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {str(input.dtype).removeprefix('torch.')} and "
                           f"{str(weight.dtype).removeprefix('torch.')}")
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.size(1) if input.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if input.dim() >= 2 and weight.numel() != 1:
        weight = weight.reshape([1, weight.numel()] + [1] * (input.dim() - 2))
    return _torch.where(input > 0, input, weight * input)


def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]``."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
                           f"{list(input2.shape[:-1])}")
    if input1.size(-1) != weight.size(1):
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.size(-1)} but expected "
                           f"{weight.size(1)}")
    if input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.size(-1)} but expected "
                           f"{weight.size(2)}")
    out = _torch.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _torch.div(input, denom, out=out)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dim."""
    last = max(x1.dim(), x2.dim()) - 1
    return _torch.linalg.vector_norm(x1 - x2 + eps, p, dim=last, keepdim=keepdim)


# multi-head attention: its own file (nn/_mha.py), re-exported here as torch.nn.functional has it
from ._mha import (  # noqa: E402,F401
    _canonical_mask,
    _in_projection,
    _in_projection_packed,
    _mha_shape_check,
    _none_or_dtype,
    multi_head_attention_forward,
)

# pooling beyond 2-D and resampling: their own file (nn/_pool_functional.py)
from ._pool_functional import (  # noqa: E402,F401
    _list_with_default,
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool3d,
    channel_shuffle,
    fold,
    grid_sample,
    interpolate,
    local_response_norm,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
    native_channel_shuffle,
    pixel_shuffle,
    pixel_unshuffle,
    unfold,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
