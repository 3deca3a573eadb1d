"""``glasstorch.nn.functional`` — PyTorch's ``torch/nn/functional.py``.

Same Python signatures and defaults as PyTorch's.  Where PyTorch's function *is* a ``torch._C._nn``
binding (``gelu``, ``softplus``, ``logsigmoid``, ...), this module re-exports the generated binding of
the same operator (``glasstorch/_generated/functions.py``, ``python_module: nn`` in the YAML); the
Python wrappers (``relu(input, inplace=False)``, ``dropout``, ``batch_norm`` ...) repeat PyTorch's
Python-level checks and then call the ``glasstorch.*`` operator PyTorch's wrapper calls.

The module is organised in sections, one per owning family; add new functions to your own section.
"""

from __future__ import annotations

import math
import warnings

import numpy as _np

from glasstorch._generated import functions as _gen

# ============================================================================================================
# Activations, softmax, normalization, dropout, embedding  (nn.yaml: NN part 1)
# ============================================================================================================

# torch._C._nn bindings, used as they are by torch.nn.functional
cosine_similarity = _gen.cosine_similarity  # aten::cosine_similarity (Distance.cpp's composite)
pairwise_distance = _gen.pairwise_distance  # aten::pairwise_distance, likewise
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
hardshrink = _gen.hardshrink
softshrink = _gen.softshrink


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


def _threshold(input, threshold, value, inplace=False):
    return _gen.threshold_(input, threshold, value) if inplace else _gen.threshold(input, threshold, value)


threshold = _threshold  # torch's F.threshold is its _threshold under a docstring


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: a slope drawn from U(lower, upper) per non-positive element in training."""
    if inplace:
        return _gen.rrelu_(input, lower, upper, training)
    return _gen.rrelu(input, lower, upper, training)


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


def _check_dropout_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input, p, training, inplace):
    return _gen.feature_dropout_(input, p, training) if inplace else _gen.feature_dropout(input, p, training)


def _channel_dropout(name, input, p, training, inplace, dims, batched_dim):
    """dropout1d/2d/3d: one draw per channel through ``feature_dropout``; an unbatched input gets a batch dim of 1
    (2-D's 3-D inputs are taken as batched 1-D, as in torch)."""
    _check_dropout_p(p)
    ndim = input.dim()
    if ndim not in dims:
        warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an error "
                      f"in a future release. To retain the behavior and silence this warning, please use dropout "
                      f"instead. Note that {name} exists to provide channel-wise dropout on inputs with "
                      f"{dims[0] - 1} spatial dimensions, a channel dimension, and an optional batch dimension "
                      f"(i.e. {dims[0]}D or {dims[1]}D inputs).", stacklevel=3)
    if batched_dim is None or ndim == batched_dim:
        return _feature_dropout(input, p, training, inplace)
    input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, L)`` or ``(C, L)`` input with probability ``p``."""
    _check_dropout_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           f"dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           f"channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout("dropout1d", input, p, training, inplace, (2, 3), 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, H, W)`` input with probability ``p``."""
    if input.dim() == 3 and 0.0 <= p <= 1.0:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This "
                      "behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _channel_dropout("dropout2d", input, p, training, inplace, (3, 4), None)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with probability ``p``."""
    return _channel_dropout("dropout3d", input, p, training, inplace, (4, 5), 5)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's zero mean and unit variance (dropped elements take SELU's saturation value)."""
    _check_dropout_p(p)
    return _gen.alpha_dropout_(input, p, training) if inplace else _gen.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    _check_dropout_p(p)
    if inplace:
        return _gen.feature_alpha_dropout_(input, p, training)
    return _gen.feature_alpha_dropout(input, p, training)


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


def _verify_spatial_size(size) -> None:
    if math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Normalize each (sample, channel) plane by its own statistics (or by the running ones)."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _gen.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                              _torch.backends.cudnn.enabled)


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


def _bag_layout(input, offsets, include_last_offset):
    """(bag of each index position, number of bags) from 1-D ``input`` and its ``offsets``."""
    starts = offsets.detach().cpu().numpy().astype("int64")
    n = input.numel()
    bags = len(starts) - 1 if include_last_offset else len(starts)
    if bags > 0:
        if starts[0] != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {int(starts[0])}")
        if starts[bags - 1] > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n}, but got offsets[-1] of "
                               f"{int(starts[bags - 1])}")
    bag_of = _np.searchsorted(starts[:bags], _np.arange(n), side="right") - 1
    if include_last_offset and bags >= 0 and len(starts):
        bag_of = _np.where(_np.arange(n) < starts[-1], bag_of, -1)
    return bag_of, max(bags, 0)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embedding rows (bags given by ``offsets`` or the rows of a 2-D input)."""
    if weight.dtype == _torch.long and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = _torch.arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with _torch.no_grad():
            _gen.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  f"GitHub.")
    return _embedding_bag_reduce(input, weight, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                                 sparse)


def _embedding_bag_reduce(input, weight, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                          sparse=False):
    """The bags' reduction in ``weight``'s opmath type: padding rows excluded, empty bags 0, max taking each
    feature's first largest row (its gradient goes there). ``sparse``: the weight's gradient is a COO tensor with a
    row per looked-up index, padding left out, as PyTorch's _embedding_bag_sparse_backward gives."""
    num, dim = weight.shape
    if padding_idx is not None and padding_idx < 0:
        padding_idx += num
    bag_of, bags = _bag_layout(input, offsets, include_last_offset)
    idx = input.detach().cpu().numpy().astype("int64")
    keep = (bag_of >= 0) & (idx != (-1 if padding_idx is None else padding_idx))
    low = weight.dtype in (_torch.float16, _torch.bfloat16)
    rows = _gen.embedding(weight, input, -1 if padding_idx is None else padding_idx, False, sparse)
    rows = rows.float() if low else rows
    out_dtype = rows.dtype
    pos = _np.nonzero(keep)[0]
    if mode == "max":
        vals = rows.detach().cpu().numpy()
        best = _np.zeros((bags, dim), "int64")
        filled = _np.zeros(bags, bool)
        for b in _np.unique(bag_of[pos]):  # per bag: one vector argmax over its rows
            members = pos[bag_of[pos] == b]
            best[b] = members[_np.argmax(vals[members], axis=0)]
            filled[b] = True
        gathered = rows.gather(0, _torch.from_numpy(best)) if rows.shape[0] else _torch.zeros(bags, dim)
        out = gathered * _torch.from_numpy(filled[:, None]).to(out_dtype)
    else:
        picked = rows[_torch.from_numpy(pos)]
        if per_sample_weights is not None:
            psw = per_sample_weights[_torch.from_numpy(pos)]
            picked = picked * (psw.float() if low else psw).unsqueeze(1)
        out = _torch.zeros(bags, dim, dtype=out_dtype).index_add(0, _torch.from_numpy(bag_of[pos]), picked)
        if mode == "mean":
            counts = _np.bincount(bag_of[pos], minlength=bags).astype("float64")
            out = out / _torch.from_numpy(_np.maximum(counts, 1.0)[:, None]).to(out_dtype)
    return out.to(weight.dtype) if low else out


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


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target)``; a ``linear_weight`` of shape
    ``(C, d1, ..., in_features)`` gives a K-dimensional loss over ``(N, C, d1, ...)`` logits."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    classes, extra = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *extra):
        raise RuntimeError(f"expected linear_bias shape {(classes, *extra)}, got {tuple(linear_bias.shape)}")
    if extra and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, classes, *extra)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if extra:
        linear_weight = linear_weight.reshape((math.prod(extra, start=classes), in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(extra, start=classes))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


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


def _legacy_enum(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_enum(size_average, reduce)
    return _Reduction.get_enum(reduction)


def _legacy_string(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


def _reduce_by_name(loss, reduction, message):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(message)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``1 - cos(x1, x2)`` for ``target == 1``, ``max(0, cos(x1, x2) - margin)`` for ``target == -1``."""
    return _torch.cosine_embedding_loss(input1, input2, target, margin,
                                        _legacy_enum(size_average, reduce, reduction))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``x`` for ``target == 1``, ``max(0, margin - x)`` for ``target == -1``."""
    return _torch.hinge_embedding_loss(input, target, margin, _legacy_enum(size_average, reduce, reduction))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    reduction_enum = _legacy_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _torch.margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-y * x))`` (two-class logistic loss)."""
    return _gen.soft_margin_loss(input, target, _legacy_enum(size_average, reduce, reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist Temporal Classification loss of ``log_probs`` (T, N, C) against unaligned ``targets``.

    Example: ``F.ctc_loss(torch.randn(6, 2, 4).log_softmax(2), torch.tensor([[1, 2], [3, 3]]), [6, 6], [2, 2])``.
    """
    return _torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _Reduction.get_enum(reduction),
                           zero_infinity)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Negative log likelihood of ``target`` under a Poisson of rate ``exp(input)`` (or ``input``)."""
    reduction = _legacy_string(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _torch.poisson_nll_loss(input, target, log_input, full, eps, _Reduction.get_enum(reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 * (log(var) + (input - target)**2 / var)`` (+ ``0.5 * log(2 pi)`` when ``full``); ``var`` is clamped
    to ``eps`` outside autograd."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _torch.ones_like(input)
    elif _torch.any(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():  # one variance per sample, the last dim's
            var = _torch.unsqueeze(var, -1)
        elif not (input.ndim == var.ndim
                  and sum(v for i, v in zip(input.size(), var.size(), strict=True) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _torch.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (_torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _reduce_by_name(loss, reduction, reduction + " is not valid")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Per-class binary logistic loss averaged over the classes (last dim)."""
    reduction = _legacy_string(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    return _reduce_by_name(loss, reduction, reduction + " is not valid")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Multi-class hinge loss: ``sum_{i != y} max(0, margin - x[y] + x[i])^p / C`` per sample."""
    reduction_enum = _legacy_enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _gen.multi_margin_loss(input, target, p, margin, weight, reduction_enum)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss between each target class (the indices before the first -1) and every other class."""
    return _gen.multilabel_margin_loss(input, target, _legacy_enum(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the ``p``-norm distance."""
    reduction_enum = _legacy_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _torch.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_enum)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """The triplet loss under any ``distance_function`` (``pairwise_distance`` by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if not dims[0] == dims[1] == dims[2]:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           f"inputs")
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = _torch.minimum(dist_neg, distance(positive, negative))
    return _reduce_by_name(_torch.clamp_min(margin + dist_pos - dist_neg, 0), reduction, "")


conv1d = _gen.conv1d  # torch.nn.functional.conv1d is torch.conv1d
conv2d = _gen.conv2d
conv3d = _gen.conv3d
pdist = _gen.pdist  # torch.nn.functional.pdist is torch.pdist
conv_transpose1d = _gen.conv_transpose1d
conv_transpose2d = _gen.conv_transpose2d
conv_transpose3d = _gen.conv_transpose3d


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


bilinear = _torch.bilinear  # the operator itself, as torch.nn.functional.bilinear is


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _torch.div(input, denom, out=out)


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
    GRID_SAMPLE_INTERPOLATION_MODES,
    GRID_SAMPLE_PADDING_MODES,
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
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
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
