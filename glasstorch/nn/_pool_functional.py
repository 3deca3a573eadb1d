"""The pooling and resampling part of ``torch.nn.functional`` (PyTorch's ``torch/nn/functional.py``), in its own
file and re-exported by ``glasstorch.nn.functional``: ``max_pool1d/3d`` (``return_indices``), ``avg_pool1d/3d``,
the adaptive pools, ``max_unpool1d/2d/3d``, ``local_response_norm``, pixel and channel shuffles.

Invariant: each function repeats PyTorch's Python-level checks and calls the operator PyTorch's wrapper calls.
"""

from __future__ import annotations

import warnings

from glasstorch import _functions
from glasstorch._generated import functions as _gen

from .modules.utils import _list_with_default, _pair, _single, _triple

pixel_shuffle = _gen.pixel_shuffle  # torch.nn.functional.pixel_shuffle is torch.pixel_shuffle
pixel_unshuffle = _gen.pixel_unshuffle
channel_shuffle = _gen.channel_shuffle
native_channel_shuffle = _gen.native_channel_shuffle
avg_pool1d = _gen.avg_pool1d
avg_pool3d = _gen.avg_pool3d
adaptive_avg_pool1d = _gen.adaptive_avg_pool1d


# -- max pools ------------------------------------------------------------------------------------------------
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """1-D max pooling returning (values, indices)."""
    return _gen.max_pool1d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                        ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-D max pooling; ``return_indices=True`` also returns the argmax indices."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _gen.max_pool1d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """3-D max pooling returning (values, flat indices into each input volume)."""
    return _gen.max_pool3d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                        ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling; ``return_indices=True`` also returns the argmax indices."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _gen.max_pool3d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


# -- adaptive pools -------------------------------------------------------------------------------------------
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _gen.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D adaptive max pooling; ``return_indices=True`` also returns the indices."""
    out = _gen.adaptive_max_pool1d(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _gen.adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D adaptive max pooling (``None`` keeps that input size)."""
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _gen.adaptive_max_pool3d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D adaptive max pooling (``None`` keeps that input size)."""
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling to a fixed ``output_size`` (``None`` keeps that input size)."""
    return _gen.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling (``None`` keeps that input size)."""
    return _gen.adaptive_avg_pool3d(input, _list_with_default(output_size, input.size()))


# -- max unpooling --------------------------------------------------------------------------------------------
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.size()
    n = len(kernel_size)
    default = [(input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not (lo < output_size[d] < hi):
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return output_size


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d``: values written back at their indices, zeros elsewhere."""
    kernel_size = _single(kernel_size)
    stride = _single(stride) if stride is not None else kernel_size
    padding = _single(padding)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    size = list(size) + [1] if isinstance(size, list) else tuple(size) + (1,)
    return _gen.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``."""
    kernel_size = _pair(kernel_size)
    stride = _pair(stride) if stride is not None else kernel_size
    padding = _pair(padding)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _gen.max_unpool2d(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool3d``."""
    kernel_size = _triple(kernel_size)
    stride = _triple(stride) if stride is not None else kernel_size
    padding = _triple(padding)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _gen.max_unpool3d(input, indices, size, stride, padding)


# -- interpolation --------------------------------------------------------------------------------------------
_INTERP_OPS = {  # (mode, input dim) -> the torch._C._nn operator F.interpolate calls
    ("nearest", 3): "upsample_nearest1d", ("nearest", 4): "upsample_nearest2d", ("nearest", 5): "upsample_nearest3d",
    ("nearest-exact", 3): "_upsample_nearest_exact1d", ("nearest-exact", 4): "_upsample_nearest_exact2d",
    ("nearest-exact", 5): "_upsample_nearest_exact3d", ("linear", 3): "upsample_linear1d",
    ("bilinear", 4): "upsample_bilinear2d", ("trilinear", 5): "upsample_trilinear3d",
    ("bicubic", 4): "upsample_bicubic2d",
}
_ANTIALIAS_OPS = {"bilinear": "_upsample_bilinear2d_aa", "bicubic": "_upsample_bicubic2d_aa"}
_WRONG_DIM = {(3, "bilinear"): "4D", (3, "trilinear"): "5D", (4, "linear"): "3D", (4, "trilinear"): "5D",
              (5, "linear"): "3D", (5, "bilinear"): "4D"}


def _interp_sizes(input, dim, size, scale_factor):
    """(output_size, scale_factors): exactly one is a list, as torch.nn.functional.interpolate checks."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if not isinstance(size, (list, tuple)):
            return [size] * dim, None
        if len(size) != dim:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                             f"format.")
        if not all(isinstance(x, int) for x in size):
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], "
                            f"but got size with types {[type(x) for x in size]}")
        return list(size), None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if not isinstance(scale_factor, (list, tuple)):
        return None, [scale_factor] * dim
    if len(scale_factor) != dim:
        raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input with "
                         f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                         f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                         f"(s1, s2, ...,sK) format.")
    return None, list(scale_factor)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample the spatial dims of (N, C, *spatial) ``input`` to ``size`` or by ``scale_factor``."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scale_factors = _interp_sizes(input, dim, size, scale_factor)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    nd = input.dim()
    if mode == "area" and nd in (3, 4, 5):
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 3](input, output_size)
    if antialias and mode in _ANTIALIAS_OPS:
        return getattr(_gen, _ANTIALIAS_OPS[mode])(input, output_size, align_corners, scale_factors)
    op = _INTERP_OPS.get((mode, nd))
    if op is not None:
        if mode in ("nearest", "nearest-exact"):
            return getattr(_gen, op)(input, output_size, scale_factors)
        return getattr(_gen, op)(input, output_size, align_corners, scale_factors)
    if (nd, mode) in _WRONG_DIM:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {_WRONG_DIM[(nd, mode)]} input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: "
                              f"nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact "
                              f"(got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of ``interpolate``."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode="nearest")``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode="bilinear", align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- local response normalization -----------------------------------------------------------------------------
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``x / (k + alpha * mean of x^2 over ``size`` neighbouring channels) ** beta``."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = _gen.pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = _gen.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = _gen.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = _gen.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# -- sliding blocks -------------------------------------------------------------------------------------------
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a batched image as columns: (N, C, H, W) -> (N, C * prod(kernel_size), L)."""
    return _gen.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum columns of sliding blocks back into an image: the adjoint of ``unfold``."""
    return _gen.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """``F.grid_sample``: PyTorch's argument checks, then ``grid_sampler``."""
    if mode not in GRID_SAMPLE_INTERPOLATION_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    modes, paddings = GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES
    return _gen.grid_sampler(input, grid, modes[mode], paddings[padding_mode], align_corners)


# -- fractional max pooling -----------------------------------------------------------------------------------
def _fractional_max_pool(n, input, kernel_size, output_size, output_ratio, _random_samples):
    """PyTorch's ``fractional_max_pool{2,3}d_with_indices``: sizes from the ratio, one sample per plane and dim."""
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    ntuple = _pair if n == 2 else _triple
    if output_size is None:
        if n == 2 and len(output_ratio) > 2:  # a lone float fails here, as in PyTorch
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = ntuple(output_ratio)
        output_size = [int(input.size(d - n) * ratio[d]) for d in range(n)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == n + 1 else input.size(0)
        _random_samples = _functions.rand(n_batch, input.size(-n - 1), n, dtype=input.dtype, device=input.device)
    op = _gen.fractional_max_pool2d if n == 2 else _gen.fractional_max_pool3d
    return op(input, ntuple(kernel_size), ntuple(output_size), _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """2-D fractional max pooling (Graham, 2014) over windows at random fractional strides.

    Example: ``F.fractional_max_pool2d(torch.randn(1, 3, 9, 9), 2, output_size=4).shape == (1, 3, 4, 4)``.
    """
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """3-D fractional max pooling; ``return_indices=True`` also returns the flat indices."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]
