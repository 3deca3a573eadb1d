"""The Autocast layer of the dispatcher — PyTorch's ``aten/src/ATen/autocast_mode.cpp``.

Each device type has an Autocast key (``AutocastCPU``, ``AutocastCUDA``, ``AutocastPrivateUse1``) above
Autograd.  Tensors carry it, but the thread-local *excluded* set holds it by default, so dispatch skips it;
``autocast`` removes it from the excluded set.  Most operators fall through the key (they run in whatever
dtypes their inputs have).  The operators in the policy tables below get a kernel that excludes the key for
nested calls, casts the eligible arguments by the op's policy and redispatches below the key — so the casts
happen above Autograd and are recorded in the graph (backward runs in the forward's dtypes):

* ``lower_precision_fp``: cast to the autocast dtype (bfloat16 on CPU, float16 on CUDA by default);
* ``fp32``: cast to float32;
* ``fp32_set_opt_dtype``: pass ``dtype=float32`` when the call gave no dtype (CUDA: sum, softmax, ...);
* ``promote``: cast to the widest floating dtype among the arguments (cat, stack, ...);
* ``banned``: raise (binary_cross_entropy on CUDA).

Eligible arguments are floating tensors on the autocast device that are not float64.  Casts of float32
leaves that require grad (parameters) to the lower-precision dtype are cached until the outermost autocast
region exits, so each weight is cast once per forward.

Which overloads have an Autocast kernel is PyTorch's (tests check the tables against torch's dispatcher);
the emulated accelerator (PrivateUse1) follows the CUDA tables.

Invariant: an op with no entry in a table never sees the Autocast key (fallthrough, masked out).
"""

from __future__ import annotations

import threading
import weakref

from .._core import thread_state
from .._core.dispatch_key import bit, tls
from .._core.dtype import bfloat16, float16, float32, float64, promote_types
from .._tensor.impl import TensorImpl
from .aten import aten
from .dispatcher import find_op, register_kernel

__all__ = ["is_enabled", "set_enabled", "get_dtype", "set_dtype", "is_cache_enabled", "set_cache_enabled",
           "increment_nesting", "decrement_nesting", "clear_cache", "AUTOCAST_KEY_FOR_DEVICE", "POLICIES"]

AUTOCAST_KEY_FOR_DEVICE = {"cpu": "AutocastCPU", "cuda": "AutocastCUDA", "emu": "AutocastPrivateUse1"}
_DEFAULT_DTYPE = {"cpu": bfloat16, "cuda": float16, "emu": float16}

_CUDA_POLICIES = {
    "lower_precision_fp": ("_convolution", "addbmm", "addmm", "addmv", "addr", "baddbmm", "bmm", "conv1d", "conv2d",
                           "conv3d", "conv_transpose1d", "conv_transpose2d.input", "conv_transpose3d.input",
                           "convolution", "einsum", "linear", "matmul", "mm", "mv", "scaled_dot_product_attention"),
    "fp32": ("acos", "asin", "cosh", "erfinv", "exp", "expm1", "group_norm", "huber_loss", "kl_div", "l1_loss",
             "layer_norm", "log", "log10", "log1p", "log2", "logsumexp", "mse_loss", "native_layer_norm", "nll_loss",
             "nll_loss2d", "pow.Scalar", "pow.Tensor_Scalar", "pow.Tensor_Tensor", "reciprocal", "rms_norm", "rsqrt",
             "sinh", "smooth_l1_loss", "softplus", "tan", "binary_cross_entropy_with_logits", "norm.Scalar",
             "norm.ScalarOpt_dim", "cosine_similarity", "cosine_embedding_loss", "hinge_embedding_loss",
             "margin_ranking_loss", "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss", "pdist",
             "multi_margin_loss", "multilabel_margin_loss", "dist", "renorm", "cdist",

             # the upsampling operators (not their .vec overloads), as torch's CUDA fp32 list
             "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "_upsample_nearest_exact1d",
             "_upsample_nearest_exact2d", "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d",
             "upsample_trilinear3d", "upsample_bicubic2d", "_upsample_bilinear2d_aa"),
    "fp32_set_opt_dtype": ("cumprod", "cumsum", "linalg_vector_norm", "log_softmax.int", "prod", "prod.dim_int",
                           "softmax.int", "sum", "sum.dim_IntList"),
    "promote": ("addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "grid_sampler", "index_put", "scatter_add",
                "tensordot", "vdot"),
    "banned": ("binary_cross_entropy",),
}
_CUDA_POLICIES["lower_precision_fp"] += ("linalg_multi_dot", "linalg_vecdot")
# the recurrent cells (native_functions/rnn.yaml), as torch's CUDA list
_CUDA_POLICIES["lower_precision_fp"] += ("_thnn_fused_lstm_cell", "gru_cell", "lstm_cell", "rnn_relu_cell",
                                         "rnn_tanh_cell")

POLICIES = {
    "cpu": {
        "lower_precision_fp": ("addbmm", "addmm", "baddbmm", "bmm", "conv1d", "conv1d.padding", "conv2d",
                               "conv2d.padding", "conv3d", "conv3d.padding", "conv_transpose1d",
                               "conv_transpose2d.input", "conv_transpose3d.input", "linalg_vecdot", "linear", "matmul",
                               "mm",
                               "scaled_dot_product_attention"),
        "fp32": ("binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy_loss", "huber_loss",
                 "kl_div", "l1_loss", "linalg_svd", "linalg_svdvals", "mse_loss", "nll_loss", "nll_loss2d", "polar",
                 "prod", "prod.dim_int",
                 "reflection_pad1d", "reflection_pad2d", "replication_pad1d", "replication_pad2d",
                 "replication_pad3d", "smooth_l1_loss", "view_as_complex", "cosine_embedding_loss",
                 "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss", "soft_margin_loss",
                 "triplet_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
                 # the linear-algebra decompositions and solvers run in float32 on CPU, as in torch's fp32 list
                 "_lu_with_info", "cholesky", "cholesky_inverse", "cholesky_solve", "geqrf", "inverse",
                 "linalg_cholesky", "linalg_cholesky_ex", "linalg_cond", "linalg_cond.p_str", "linalg_eig",
                 "linalg_eigh", "linalg_eigvals", "linalg_eigvalsh", "linalg_householder_product", "linalg_inv",
                 "linalg_inv_ex", "linalg_lstsq", "linalg_matrix_rank", "linalg_matrix_rank.atol_rtol_float",
                 "linalg_matrix_rank.atol_rtol_tensor", "linalg_matrix_rank.tol_tensor", "linalg_qr",
                 "linalg_solve", "linalg_tensorinv", "linalg_tensorsolve", "lu_solve", "orgqr", "ormqr",
                 "pinverse", "qr", "svd", "trace", "triangular_solve",
                 # the spectral ops, as torch's CPU fp32 list
                 "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft",
                 "fft_rfft2", "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft", "fft_ihfft", "stft",
                 "stft.center",
                 # pooling and resampling, as torch's CPU fp32 list
                 "adaptive_avg_pool3d", "adaptive_max_pool3d", "avg_pool3d", "max_pool3d", "max_unpool2d",
                 "max_unpool3d", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
                 # the quantiles, as in torch's CPU fp32 list
                 "quantile", "quantile.scalar", "nanquantile", "nanquantile.scalar", "cdist",
                 "fractional_max_pool2d", "fractional_max_pool3d", "ctc_loss.IntList", "ctc_loss.Tensor"),
        "promote": ("cat", "stack", "index_copy"),
    },
    "cuda": _CUDA_POLICIES,
    "emu": _CUDA_POLICIES,
}

_BANNED_MESSAGE = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")


class _State(threading.local):
    def __init__(self):
        self.dtype = dict(_DEFAULT_DTYPE)
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}  # id(source impl) -> (weakref to source, cast impl)


_state = thread_state.register(_State())


# -- state (the torch.* autocast functions sit on these) ------------------------------------------------------
def _key_bit(device_type: str) -> int:
    key = AUTOCAST_KEY_FOR_DEVICE.get(device_type)
    if key is None:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return bit(key)


def is_enabled(device_type: str) -> bool:
    return not tls.excluded & _key_bit(device_type)


def set_enabled(device_type: str, enabled: bool) -> None:
    b = _key_bit(device_type)
    tls.excluded = tls.excluded & ~b if enabled else tls.excluded | b


def get_dtype(device_type: str):
    _key_bit(device_type)
    return _state.dtype[device_type]


def set_dtype(device_type: str, dtype) -> None:
    _key_bit(device_type)
    _state.dtype[device_type] = dtype


def is_cache_enabled() -> bool:
    return _state.cache_enabled


def set_cache_enabled(enabled: bool) -> None:
    _state.cache_enabled = bool(enabled)


def increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


def clear_cache() -> None:
    _state.cache.clear()


# -- casting ---------------------------------------------------------------------------------------------------
def _eligible(a, device_type: str) -> bool:
    return (type(a) is TensorImpl and a.dtype.is_floating_point and a.dtype is not float64
            and a.device.type == device_type)


def _cast_one(a: TensorImpl, to, device_type: str) -> TensorImpl:
    meta = a.autograd
    cacheable = (_state.cache_enabled and to is _state.dtype[device_type] and a.dtype is float32 and a.base is None
                 and meta is not None and meta.requires_grad and meta.grad_fn is None)
    if cacheable:
        hit = _state.cache.get(id(a))
        if hit is not None and hit[0]() is a:
            return hit[1]
    out = aten._to_copy(a, to, None, None, None, False, None)
    if cacheable:
        _state.cache[id(a)] = (weakref.ref(a), out)
    return out


def _cast(value, to, device_type: str):
    if type(value) is TensorImpl:
        return _cast_one(value, to, device_type) if _eligible(value, device_type) and value.dtype is not to else value
    if isinstance(value, (list, tuple)) and any(type(v) is TensorImpl for v in value):
        return type(value)(_cast(v, to, device_type) for v in value)
    return value


def _widest(args, device_type: str):
    widest = None
    for a in args:
        for t in (a if isinstance(a, (list, tuple)) else (a,)):
            if _eligible(t, device_type):
                widest = t.dtype if widest is None else promote_types(widest, t.dtype)
    return widest


# -- the kernels -----------------------------------------------------------------------------------------------
def _kernel(op, device_type: str, policy: str):
    key_bit = _key_bit(device_type)
    dtype_index = next((i for i, a in enumerate(op.schema.arguments) if a.name == "dtype"), None)

    def kernel(ks, *args, **kwargs):
        if policy == "banned":
            raise RuntimeError(_BANNED_MESSAGE)
        prev = tls.excluded
        tls.excluded = prev | key_bit  # nested calls must not come back through this layer
        try:
            if policy == "fp32_set_opt_dtype":
                args = _with_fp32_dtype(args, kwargs, dtype_index, device_type)
            else:
                to = (_state.dtype[device_type] if policy == "lower_precision_fp" else
                      float32 if policy == "fp32" else _widest(list(args) + list(kwargs.values()), device_type))
                if to is not None:
                    args = tuple(_cast(a, to, device_type) for a in args)
                    kwargs = {k: _cast(v, to, device_type) for k, v in kwargs.items()}
            return op.redispatch(ks, *args, **kwargs)
        finally:
            tls.excluded = prev
    kernel.__qualname__ = f"Autocast{device_type.upper()}::{op.name}({policy})"
    return kernel


def _with_fp32_dtype(args, kwargs, dtype_index, device_type):
    """PyTorch's fp32_set_opt_dtype: an eligible first tensor and no dtype given → dtype=float32."""
    first = next((a for a in args if type(a) is TensorImpl), None)
    if first is None or not _eligible(first, device_type) or dtype_index is None:
        return args
    if "dtype" in kwargs:
        if kwargs["dtype"] is None:
            kwargs["dtype"] = float32
        return args
    if dtype_index < len(args) and args[dtype_index] is None:
        args = args[:dtype_index] + (float32,) + args[dtype_index + 1:]
    return args


def _register_all() -> None:
    for device_type, table in POLICIES.items():
        key = AUTOCAST_KEY_FOR_DEVICE[device_type]
        for policy, names in table.items():
            for name in names:
                op = find_op(f"aten::{name}")
                if op is not None:  # an op glasstorch does not declare has nothing to intercept
                    register_kernel(op.name, key, _kernel(op, device_type, policy), with_keyset=True,
                                    label=f"autocast_{policy}")


_register_all()
