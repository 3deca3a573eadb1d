"""Pooling and resampling decompositions (CompositeImplicitAutograd) — PyTorch's ``Pooling.cpp``,
``AdaptiveAveragePooling.cpp``, ``ChannelShuffle.cpp`` and ``UpSample.cpp`` composites.

Invariant: nothing here touches tensor data; every computation is another operator call.
"""

from __future__ import annotations

from ..aten import aten
from ..kernels.cpu.conv import pooling_output_shape


def _check_dim_range(self, op, lo, hi):
    """ATen's ``checkDimRange`` on argument #1 'self'."""
    if not (lo <= self.ndim < hi):
        raise RuntimeError(f"Expected {lo} to {hi - 1} dimensions, but got {self.ndim}-dimensional tensor for argument "
                           f"#1 'self' (while checking arguments for {op})")


def _check1d(op, name, values):
    if len(values) != 1:
        raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(values)})")


def _max_pool1d_checks(self, kernel_size, stride, padding, dilation, ceil_mode):
    """PyTorch's ``check_max_pool1d``: its own messages, before any pooling."""
    op = "max_pool1d"
    if not (self.ndim in (2, 3) and all(v != 0 for v in self.sizes[self.ndim - 2 if self.ndim == 3 else 0:])):
        raise RuntimeError(f"{op}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
                           f"but got:{_fmt(self.sizes)}")
    if len(kernel_size) != 1:
        raise RuntimeError(f"{op}() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size "
                           f"{len(kernel_size)}")
    if len(stride) not in (0, 1):
        raise RuntimeError(f"{op}() stride must be None, an int, list of ints, or tuple of ints of size 1 but got "
                           f"size {len(stride)}")
    if len(padding) != 1:
        raise RuntimeError(f"{op}() padding must be an int, list of ints, or tuple of ints of size 1 but got size "
                           f"{len(padding)}")
    if len(dilation) != 1:
        raise RuntimeError(f"{op}() dilation must be an int, list of ints or tuple of ints of size 1 but got size "
                           f"{len(dilation)}")
    k, p, d = kernel_size[0], padding[0], dilation[0]
    s = stride[0] if stride else k
    if k <= 0:
        raise RuntimeError(f"{op}() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"{op}() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"{op}() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"{op}() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"{op}() dilation must be greater than zero, but got {d}")
    out = pooling_output_shape(self.sizes[-1], k, p, s, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"{op}() Invalid computed output size: {out}")


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool1d_with_indices``: ``max_pool2d_with_indices`` over (…, 1, L)."""
    kernel_size, stride, padding, dilation = list(kernel_size), list(stride) or list(kernel_size), list(padding), \
        list(dilation)
    _check_dim_range(self, "max_pool1d", 2, 4)
    for name, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding), ("dilation", dilation)):
        _check1d("max_pool1d", name, v)
    out, idx = aten.max_pool2d_with_indices(aten.unsqueeze(self, -2), [1, kernel_size[0]], [1, stride[0]],
                                            [0, padding[0]], [1, dilation[0]], ceil_mode)
    return aten.squeeze_dim(out, -2), aten.squeeze_dim(idx, -2)


def max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool1d``: PyTorch's ``check_max_pool1d``, then the values of ``max_pool1d_with_indices``."""
    _max_pool1d_checks(self, tuple(kernel_size), tuple(stride), tuple(padding), tuple(dilation), ceil_mode)
    return max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad):
    """``avg_pool1d``: ``avg_pool2d`` over (…, 1, L)."""
    kernel_size, padding = list(kernel_size), list(padding)
    stride = list(stride) or kernel_size
    _check_dim_range(self, "avg_pool1d", 2, 4)
    for name, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding)):
        _check1d("avg_pool1d", name, v)
    out = aten.avg_pool2d(aten.unsqueeze(self, -2), [1, kernel_size[0]], [1, stride[0]], [0, padding[0]], ceil_mode,
                          count_include_pad, None)
    return aten.squeeze_dim(out, -2)


def adaptive_avg_pool1d(self, output_size):
    """``adaptive_avg_pool1d``: ``adaptive_avg_pool2d`` over (…, 1, L) to (1, output_size)."""
    _check_dim_range(self, "adaptive_avg_pool1d", 2, 4)
    _check1d("adaptive_avg_pool1d", "output_size", list(output_size))
    return aten.squeeze_dim(aten.adaptive_avg_pool2d(aten.unsqueeze(self, -2), [1, output_size[0]]), -2)


def adaptive_max_pool1d(self, output_size):
    """``adaptive_max_pool1d``: ``adaptive_max_pool2d`` over (…, 1, L)."""
    _check_dim_range(self, "adaptive_max_pool1d", 2, 4)
    _check1d("adaptive_max_pool1d", "output_size", list(output_size))
    out, idx = aten.adaptive_max_pool2d(aten.unsqueeze(self, -2), [1, output_size[0]])
    return aten.squeeze_dim(out, -2), aten.squeeze_dim(idx, -2)


def max_pool3d(self, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool3d``: the values of ``max_pool3d_with_indices``."""
    return aten.max_pool3d_with_indices(self, list(kernel_size), list(stride), list(padding), list(dilation),
                                        ceil_mode)[0]


def adaptive_avg_pool3d(self, output_size):
    """``adaptive_avg_pool3d``: a ``mean`` over D, H, W for a 1x1x1 output, else ``_adaptive_avg_pool3d``."""
    output_size = tuple(output_size)
    if len(output_size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if not all(v >= 0 for v in output_size):
        raise RuntimeError(f"adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]},{output_size[2]}}}")
    if output_size == (1, 1, 1):
        return aten.mean_dim(self, [-1, -2, -3], True, None)
    return aten._adaptive_avg_pool3d(self, list(output_size))


# -- upsampling .vec overloads: PyTorch's UpSample.cpp ``compute_output_size`` + ``get_scale_value`` -------------
def _upsample_output_size(input, output_size, scale_factors, n):
    if output_size is not None:
        if scale_factors is not None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        if len(output_size) != n:
            raise RuntimeError(f"Expected output_size to have {n} elements, but got {len(output_size)}")
        return list(output_size)
    if scale_factors is not None:
        if len(scale_factors) != n:
            raise RuntimeError(f"Expected scale_factors to have {n} elements, but got {len(scale_factors)}")
        return [int(input.sizes[i + 2] * scale_factors[i]) for i in range(n)]
    raise RuntimeError("Must specify exactly one of output_size and scale_factors")


def _vec(name, n, align):
    """The ``.vec`` overload of ``name``: output size from the scale factors, which then travel as scales."""
    def vec(input, output_size, *rest):
        align_corners, scale_factors = rest if align else (None, rest[0])
        size = _upsample_output_size(input, output_size, scale_factors, n)
        scales = list(scale_factors) if scale_factors is not None else [None] * n
        head = (align_corners,) if align else ()
        return getattr(aten, name)(input, size, *head, *scales)
    vec.__name__ = f"{name.lstrip('_')}_vec"
    vec.__doc__ = f"``{name}.vec``."
    return vec


upsample_nearest1d_vec = _vec("upsample_nearest1d", 1, False)
upsample_nearest2d_vec = _vec("upsample_nearest2d", 2, False)
upsample_nearest3d_vec = _vec("upsample_nearest3d", 3, False)
upsample_nearest_exact1d_vec = _vec("_upsample_nearest_exact1d", 1, False)
upsample_nearest_exact2d_vec = _vec("_upsample_nearest_exact2d", 2, False)
upsample_nearest_exact3d_vec = _vec("_upsample_nearest_exact3d", 3, False)
upsample_linear1d_vec = _vec("upsample_linear1d", 1, True)
upsample_bilinear2d_vec = _vec("upsample_bilinear2d", 2, True)
upsample_trilinear3d_vec = _vec("upsample_trilinear3d", 3, True)
upsample_bicubic2d_vec = _vec("upsample_bicubic2d", 2, True)
