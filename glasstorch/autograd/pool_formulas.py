"""Backward formulas of pooling and resampling — PyTorch's ``max_pool_double_backward`` and the pooling,
shuffle and upsample entries of ``derivatives.yaml`` (``FunctionsManual.cpp``), over public Tensors; the
generated nodes import these next to ``formulas.py``.  The backward kernels themselves are operators
(``avg_pool2d_backward``, ``max_pool2d_with_indices_backward`` ...), reached through ``ops.aten`` as PyTorch's
formulas call ``at::``.

Invariant: only differentiable operators, so double backward works.
"""

from __future__ import annotations

from . import formulas as _formulas

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "max_pool_double_backward",
           "max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward", "adaptive_max_pool2d_backward",
           "adaptive_max_pool3d_backward", "avg_pool2d", "avg_pool3d", "avg_pool2d_backward", "avg_pool3d_backward",
           "adaptive_avg_pool2d_backward", "adaptive_avg_pool3d_backward", "adaptive_avg_pool_nd",
           "fractional_max_pool2d_backward", "fractional_max_pool3d_backward"]

# the upsample operators and their backward kernels, called as formulas by their own names
_UPSAMPLE = ("upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "_upsample_nearest_exact1d",
             "_upsample_nearest_exact2d", "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d",
             "upsample_trilinear3d", "upsample_bicubic2d")
__all__ += ["im2col", "col2im", "upsample_bilinear2d_aa", "upsample_bilinear2d_aa_backward"]
__all__ += [n + suffix for n in _UPSAMPLE for suffix in ("", "_backward")]


def _aten():
    return _formulas._T.ops.aten


def pixel_shuffle(x, r):
    return _formulas._T.pixel_shuffle(x, r)


def pixel_unshuffle(x, r):
    return _formulas._T.pixel_unshuffle(x, r)


def channel_shuffle(x, groups):
    return _formulas._T.channel_shuffle(x, groups)


def max_pool_double_backward(grad, indices, dim):
    """The grad of a max pool's backward (or of a max unpool) w.r.t. its grad: ``grad`` read at ``indices``."""
    if indices.dim() < dim:
        raise RuntimeError(f"max_pool_double_backward: expected indices with at least {dim} dimensions")
    return grad.flatten(-dim).gather(-1, indices.flatten(-dim)).view(indices.shape)


def max_pool2d_with_indices_backward(grad, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return _aten().max_pool2d_with_indices_backward(grad, self, list(kernel_size), list(stride), list(padding),
                                                    list(dilation), ceil_mode, indices)


def max_pool3d_with_indices_backward(grad, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return _aten().max_pool3d_with_indices_backward(grad, self, list(kernel_size), list(stride), list(padding),
                                                    list(dilation), ceil_mode, indices)


def adaptive_max_pool2d_backward(grad, self, indices):
    return _aten().adaptive_max_pool2d_backward(grad, self, indices)


def fractional_max_pool2d_backward(grad, self, kernel_size, output_size, indices):
    return _aten().fractional_max_pool2d_backward(grad, self, list(kernel_size), list(output_size), indices)


def fractional_max_pool3d_backward(grad, self, kernel_size, output_size, indices):
    return _aten().fractional_max_pool3d_backward(grad, self, list(kernel_size), list(output_size), indices)


def adaptive_max_pool3d_backward(grad, self, indices):
    return _aten().adaptive_max_pool3d_backward(grad, self, indices)


def avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return _aten().avg_pool2d(x, list(kernel_size), list(stride), list(padding), ceil_mode, count_include_pad,
                              divisor_override)


def avg_pool3d(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return _aten().avg_pool3d(x, list(kernel_size), list(stride), list(padding), ceil_mode, count_include_pad,
                              divisor_override)


def avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return _aten().avg_pool2d_backward(grad, self, list(kernel_size), list(stride), list(padding), ceil_mode,
                                       count_include_pad, divisor_override)


def avg_pool3d_backward(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return _aten().avg_pool3d_backward(grad, self, list(kernel_size), list(stride), list(padding), ceil_mode,
                                       count_include_pad, divisor_override)


def adaptive_avg_pool2d_backward(grad, self):
    return _aten()._adaptive_avg_pool2d_backward(grad, self)


def adaptive_avg_pool3d_backward(grad, self):
    return _aten()._adaptive_avg_pool3d_backward(grad, self)


def adaptive_avg_pool_nd(grad, grad_output, n):
    """The grad of an adaptive average pool's backward w.r.t. its grad: the pool again, to its output size."""
    size = list(grad_output.shape[-n:])
    return _aten()._adaptive_avg_pool2d(grad, size) if n == 2 else _aten()._adaptive_avg_pool3d(grad, size)


def _aten_op(name):
    def call(*args):  # the base overload: a lone float must not read as ``.vec``'s scale_factors
        return getattr(_aten(), name).default(*(list(a) if isinstance(a, tuple) else a for a in args))
    call.__name__ = name
    return call


im2col = _aten_op("im2col")
col2im = _aten_op("col2im")
upsample_bilinear2d_aa = _aten_op("_upsample_bilinear2d_aa")
upsample_bilinear2d_aa_backward = _aten_op("_upsample_bilinear2d_aa_backward")

for _name in _UPSAMPLE:
    globals()[_name] = _aten_op(_name)
    globals()[_name + "_backward"] = _aten_op(_name + "_backward")
del _name
