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
