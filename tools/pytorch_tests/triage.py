"""Which glasstorch failures of tests torch passes need a feature another open issue adds.

A failure is excluded from the measurement when ``PER_TEST`` names it with a written reason; when the test is
generated for a dtype glasstorch lacks (issue 20's dtypes: the variant has no such test, or runs it with a
placeholder); or when its first error line matches one of ``PATTERNS`` (a module or attribute that issue 20, 21,
22, 24 or 25 adds). Everything else counts. The patterns name features, never tests; a per-test entry says why
the failure is that issue's.
"""

from __future__ import annotations

import re

import glasstorch

ISSUES = {
    20: "op_db: linalg, fft, special, missing dtypes, random streams",
    21: "nn/optim: recurrent layers, transformer, conv3d/transposed, pooling, losses, checkpoint, schedulers",
    22: "torch.testing, jit, onnx, distributions, compiler, _pytree, fx rewriting, multiprocessing",
    24: "profiler, autograd graph drawing",
    25: "compile: bytecode capture, dynamic shapes",
}

# Issue 20's dtypes, as far as glasstorch still lacks them (the list shrinks as they land).
_ISSUE20_DTYPES = ("uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
                   "complex32", "chalf",
                   # the sub-byte dtypes torch 2.13 has too (the previous measurement counted them as issue 20)
                   *(f"{kind}{bits}" for kind in ("uint", "int") for bits in range(1, 8)))
_MISSING_DTYPES = "|".join(d for d in _ISSUE20_DTYPES if not hasattr(glasstorch, d)) or "no-missing-dtype"
_NN21 = (r"RNN\w*|LSTM\w*|GRU\w*|Transformer\w*|Conv3d|ConvTranspose\w*|LazyConv\w*|MaxPool[13]d|AvgPool[13]d|"
         r"Adaptive\w*Pool\w*|FractionalMaxPool\w*|LPPool\w*|MaxUnpool\w*|Upsample\w*|PixelShuffle|PixelUnshuffle|"
         r"ChannelShuffle|EmbeddingBag|InstanceNorm\w*|LocalResponseNorm|Bilinear|AdaptiveLogSoftmaxWithLoss|RReLU|"
         r"CELU|GLU|Softmin|Softmax2d|Threshold|Hardshrink|Softshrink|Tanhshrink|Fold|Unfold|\w+Pad[123]d|CTCLoss|CrossMapLRN2d|"
         r"\w*MarginLoss|HingeEmbeddingLoss|\w*Margin\w*Loss|CosineEmbeddingLoss|PoissonNLLLoss|GaussianNLLLoss|"
         r"KLDivLoss|LBFGS|NAdam|RAdam|Adamax|Adadelta|ASGD|Rprop|SparseAdam|Adafactor|\w+LR|ReduceLROnPlateau|"
         r"interpolate|upsample\w*|grid_sample|affine_grid|fold|unfold|ctc_loss|embedding_bag|pixel_(un)?shuffle|"
         r"adaptive_\w*pool\w*|max_pool[13]d|avg_pool[13]d|conv3d|conv_transpose\w*|lstm\w*|gru\w*|rnn_\w+|"
         r"instance_norm|local_response_norm|bilinear|rrelu\w*|celu\w*|glu|hardshrink|softshrink|tanhshrink|"
         r"margin_ranking_loss|hinge_embedding_loss|multilabel_\w+|multi_margin_loss|triplet_\w+|"
         r"cosine_embedding_loss|poisson_nll_loss|gaussian_nll_loss|kl_div|pad_sequence|pack_\w+|pad_packed_\w+|"
         r"weight_norm|spectral_norm|parametrize|parametrizations|prune|stateless|clip_grad_value_|"
         r"parameters_to_vector|vector_to_parameters|skip_init|checkpoint|swa_utils|lr_scheduler")

# Issue 20's operator families (its list: reductions and scans, shape ops, "the rest").
_OPS20 = (r"atleast_\dd|block_diag|cartesian_prod|combinations|diagflat|diff|gradient|[hvd]split|kron|tensordot|"
          r"inner|tril_indices|triu_indices|unravel_index|ravel|put|index_reduce|unsafe_split|unsafe_chunk|"
          r"float_power|frexp|ldexp|nextafter|gcd|lcm|heaviside|isin|signbit|cdist|pdist|cov|corrcoef|trapezoid|"
          r"median|nanmedian|mode|quantile|nanquantile|nansum|nanmean|cummax|cummin|logcumsumexp|aminmax|histc|"
          r"histogram|histogramdd|bincount|masked")

PATTERNS: list[tuple[int, re.Pattern]] = [(issue, re.compile(p)) for issue, p in [
    (20, rf"glasstorch lacks torch\.(nn\.functional\.)?({_OPS20})\b"),
    (21, r"glasstorch lacks torch\.(native_)?channel_shuffle\b"),
    (20, rf"has no attribute '({_OPS20})'"),
    (21, r"glasstorch lacks torch\.nn\.(functional\.\w+_loss|\w+Loss)\b"),
    (20, r"glasstorch lacks torch\.(linalg|fft|special)\b"),
    (20, rf"has no attribute '({_MISSING_DTYPES})'"),
    (20, rf"glasstorch lacks torch\.({_MISSING_DTYPES})\b"),
    (20, r"has no attribute '(linalg|fft|special)'"),
    (21, rf"has no attribute '({_NN21})'"),
    (21, rf"glasstorch lacks torch\.(nn|optim|utils)\.[\w.]*\b({_NN21})\b"),
    (21, r"glasstorch lacks torch\.utils\.checkpoint"),
    (22, r"glasstorch lacks torch\.(testing|jit|onnx|distributions|compiler|fx|multiprocessing)\b"),
    (22, r"glasstorch lacks torch\.utils\.(_pytree|tensorboard)\b"),
    (22, r"has no attribute '(jit|onnx|distributions|compiler|share_memory_|is_shared|_pytree)'"),
    (22, r"module 'glasstorch(\.\w+)*' has no attribute 'testing'"),
    (24, r"glasstorch lacks torch\.(profiler|autograd\.profiler|autograd\.profiler_util)\b"),
    (24, r"has no attribute 'profiler'"),
    (25, r"glasstorch lacks torch\.(_dynamo|compile)\b"),
]]

# A test id ("Class::test") of a file whose failure needs another issue, with the reason. Filled from measured
# runs: each entry was read, not guessed.
PER_TEST: dict[str, dict[str, tuple[int, str]]] = {
    "test_serialization": {},
}

_DTYPE_IN_NAME = re.compile(rf"_({_MISSING_DTYPES})(_|$)")

NOT_COLLECTED = "not collected in the glasstorch run"


def classify(file: str, test: str, message: str) -> int | None:
    """The issue whose feature glasstorch's failure of ``test`` (in ``file``) needs, or None if it counts."""
    entry = PER_TEST.get(file, {}).get(test)
    if entry is not None:
        return entry[0]
    if _DTYPE_IN_NAME.search(test):
        return 20  # a test generated for a dtype glasstorch lacks (absent from its run, or run with a placeholder)
    for issue, pattern in PATTERNS:
        if pattern.search(message):
            return issue
    return None
