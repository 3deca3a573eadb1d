"""Pooling and resampling decompositions (CompositeImplicitAutograd) — PyTorch's ``Pooling.cpp``,
``AdaptiveAveragePooling.cpp``, ``ChannelShuffle.cpp`` and ``UpSample.cpp`` composites.

Invariant: nothing here touches tensor data; every computation is another operator call.
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
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
        return [_to_int64(input.sizes[i + 2] * scale_factors[i]) for i in range(n)]
    raise RuntimeError("Must specify exactly one of output_size and scale_factors")


def _to_int64(value):
    """``value`` truncated to an int64, as c10's checked Scalar conversion (an overflow is an error, not a wrap)."""
    if not -2.0 ** 63 <= value < 2.0 ** 63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(value)


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
upsample_bilinear2d_aa_vec = _vec("_upsample_bilinear2d_aa", 2, True)
upsample_trilinear3d_vec = _vec("upsample_trilinear3d", 3, True)
upsample_bicubic2d_vec = _vec("upsample_bicubic2d", 2, True)


# -- grid sampling ----------------------------------------------------------------------------------------------
def _grid_checks(input, grid, interpolation_mode, n):
    """PyTorch's ``check_grid_sampler_common`` and ``check_grid_sampler_{2d,3d}``, with their messages."""
    if input.sizes[:1] != grid.sizes[:1] or input.ndim < 1 or grid.ndim < 1:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {_fmt(input.sizes)} and grid with sizes {_fmt(grid.sizes)}")
    if grid.sizes[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but "
                           f"got grid with sizes {_fmt(grid.sizes)}")
    for i in range(2, input.ndim):
        if input.sizes[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                               f"has sizes {_fmt(input.sizes)} with dimension {i} being empty")
    if input.ndim != n + 2 or grid.ndim != n + 2:
        raise RuntimeError(f"grid_sampler(): expected {n + 2}D input and grid with same number of dimensions, but "
                           f"got input with sizes {_fmt(input.sizes)} and grid with sizes {_fmt(grid.sizes)}")
    if n == 3 and interpolation_mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:  # the CPU kernels' typed data access, after the shape checks
        raise RuntimeError(f"expected scalar type {_dt.name_of(input.dtype)} but found {_dt.name_of(grid.dtype)}")


def _add(a, b):
    return aten.add_Tensor(a, b, 1)


def _sub(a, b):
    return aten.sub_Tensor(a, b, 1)


def _adds(x, v):
    return aten.add_Scalar(x, v, 1)


def _subs(x, v):
    return aten.sub_Scalar(x, v, 1)


def _rsubs(x, v):
    """``v - x``."""
    return aten.rsub_Scalar(x, v, 1)


def _reflect(coord, twice_low, twice_high):
    """``reflect_coordinates``: fold ``coord`` into [twice_low/2, twice_high/2]."""
    if twice_low == twice_high:
        return aten.mul_Scalar(coord, 0)
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    c = aten.abs(_subs(coord, lo))
    extra = aten.fmod_Scalar(c, span)
    flips = aten.floor(aten.div_Scalar(c, span))
    even = aten.eq_Scalar(aten.remainder_Scalar(flips, 2), 0)
    return aten.where_self(even, _adds(extra, lo), _adds(_rsubs(extra, span), lo))


def _pad_coord(coord, size, padding_mode, align_corners):
    """``compute_coordinates``: border clips, reflection folds then clips, zeros leaves the coordinate."""
    if padding_mode == 2:
        coord = (_reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1))
    if padding_mode in (1, 2):
        coord = aten.clamp(coord, 0, size - 1)
    return coord


def _unnormalize(coord, size, align_corners, n):
    """Pixel coordinate of ``coord`` in [-1, 1]; the 3-D kernel rounds as ``((c + 1) / 2) * (size - 1)``."""
    if align_corners and n == 3:
        return aten.mul_Scalar(aten.div_Scalar(_adds(coord, 1), 2), size - 1)
    if align_corners:
        return aten.mul_Scalar(_adds(coord, 1), (size - 1) / 2)
    return aten.div_Scalar(_subs(aten.mul_Scalar(_adds(coord, 1), size), 1), 2)


def _gather_points(flat, idx, sizes, out_spatial):
    """Values of ``flat`` (N, C, prod(sizes)) at integer points ``idx`` (one float tensor per dim, each of shape
    (N, *out)); points outside the input read 0."""
    inside = None
    lin = None
    for c, s in zip(idx, sizes, strict=True):
        ok = aten.logical_and(aten.ge_Scalar(c, 0), aten.le_Scalar(c, s - 1))
        inside = ok if inside is None else aten.logical_and(inside, ok)
        ci = aten._to_copy(aten.clamp(c, 0, s - 1), _dt.int64, None, None, None, False, None)
        lin = ci if lin is None else _add(aten.mul_Scalar(lin, s), ci)
    n, ch = flat.sizes[0], flat.sizes[1]
    points = math.prod(out_spatial)
    lin = aten.expand(aten.unsqueeze(aten.reshape(lin, [n, points]), 1), [n, ch, points], False)
    vals = aten.reshape(aten.gather(flat, 2, lin, False), [n, ch, *out_spatial])
    return aten.where_ScalarOther(aten.unsqueeze(inside, 1), vals, 0)


def _cubic_coeffs(t):
    """Keys' cubic convolution weights (A = -0.75) of the four taps around fraction ``t``."""
    a = -0.75

    def near(x):  # |x| <= 1
        return _adds(aten.mul_Tensor(aten.mul_Tensor(_subs(aten.mul_Scalar(x, a + 2), a + 3), x),
                                               x), 1)

    def far(x):  # 1 < |x| < 2
        inner = _adds(aten.mul_Tensor(_subs(aten.mul_Scalar(x, a), 5 * a), x), 8 * a)
        return _subs(aten.mul_Tensor(inner, x), 4 * a)

    one_minus = _rsubs(t, 1)
    return [far(_adds(t, 1)), near(t), near(one_minus), far(_adds(one_minus, 1))]


def _grid_sample(input, grid, interpolation_mode, padding_mode, align_corners, n):
    _grid_checks(input, grid, interpolation_mode, n)
    sizes = list(input.sizes[2:])
    out_spatial = list(grid.sizes[1:-1])
    nb, ch = input.sizes[0], input.sizes[1]
    flat = aten.reshape(input, [nb, ch, math.prod(sizes)])  # spelled out: -1 is ambiguous with 0 channels
    # the grid's last axis holds (x, y[, z]): x indexes the last input dim
    coords = [aten.select_int(grid, -1, n - 1 - d) for d in range(n)]
    raw = [_unnormalize(c, s, align_corners, n) for c, s in zip(coords, sizes, strict=True)]
    if interpolation_mode == 2:  # bicubic: the taps are padded, not the coordinate
        base = [aten.floor(c) for c in raw]
        ws = [_cubic_coeffs(_sub(c, b)) for c, b in zip(raw, base, strict=True)]
        out = None
        for i in range(4):  # separable, as PyTorch: along x within each row, then across the rows
            row = None
            for j in range(4):
                pts = [_pad_coord(_adds(base[0], i - 1), sizes[0], padding_mode, align_corners),
                       _pad_coord(_adds(base[1], j - 1), sizes[1], padding_mode, align_corners)]
                term = aten.mul_Tensor(_gather_points(flat, pts, sizes, out_spatial), aten.unsqueeze(ws[1][j], 1))
                row = term if row is None else _add(row, term)
            term = aten.mul_Tensor(row, aten.unsqueeze(ws[0][i], 1))
            out = term if out is None else _add(out, term)
        return out
    pos = [_pad_coord(c, s, padding_mode, align_corners) for c, s in zip(raw, sizes, strict=True)]
    if interpolation_mode == 1:
        near = [aten.round(p) for p in pos]
        out = _gather_points(flat, near, sizes, out_spatial)
        # keep the grid in the graph: PyTorch's backward gives it a zero gradient, not none
        zero = aten.unsqueeze(aten.abs(aten.mul_Scalar(near[0], 0)), 1)
        return aten.where_self(aten.eq_Tensor(zero, zero), out, zero)
    lo = [aten.floor(p) for p in pos]
    out = None
    order = range(n) if n == 2 else range(n - 1, -1, -1)  # the weight products' order in each kernel
    for corner in range(1 << n):
        pts, w = [None] * n, None
        for d in order:
            hi = (corner >> (n - 1 - d)) & 1
            pt = _adds(lo[d], 1) if hi else lo[d]
            wd = _sub(pos[d], lo[d]) if hi else _sub(_adds(lo[d], 1), pos[d])
            pts[d] = pt
            w = wd if w is None else aten.mul_Tensor(w, wd)
        term = aten.mul_Tensor(_gather_points(flat, pts, sizes, out_spatial), aten.unsqueeze(w, 1))
        out = term if out is None else _add(out, term)
    return out


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sample(input, grid, interpolation_mode, padding_mode, align_corners, 2)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sample(input, grid, interpolation_mode, padding_mode, align_corners, 3)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler``: the 2-D or 3-D sampler by the input's rank."""
    if input.ndim == 5:
        return grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners)
    return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
