"""Convolution backward decomposition — PyTorch's ``convolution_backward`` (``Convolution.cpp``).

``convolution_backward(grad_output, input, weight, bias_sizes, ..., output_mask)`` gives (d input, d weight,
d bias), each only where ``output_mask`` asks for it (None elsewhere: PyTorch's undefined tensor): d input is a
convolution of the output gradient with the weight, transposed when the forward was not; d weight a convolution
of the input with the output gradient, batch and channel dimensions swapped; d bias a sum over all but the
channel dimension.

Every step goes through ``aten``, so the backward is itself differentiable (double backward, forward AD over it).

Invariant: no data is touched here.
"""

from __future__ import annotations

from ..aten import aten
from ..factories import full_impl

__all__ = ["convolution_backward"]


def _expand(values, n) -> list:
    values = list(values)
    return values * n if len(values) == 1 else values


def _weight_grad(inp, gout, stride, padding, dilation, groups, ksize):
    """d weight of a (non-transposed) convolution: a convolution of the input with the output gradient."""
    n, g = inp.sizes[0], groups
    cg = inp.sizes[1] // g
    og = gout.sizes[1] // g
    sp, osp = list(inp.sizes[2:]), list(gout.sizes[2:])
    nd = len(sp)
    x = aten.reshape(aten.permute(aten.reshape(inp, [n, g, cg, *sp]), [2, 1, 0, *range(3, 3 + nd)]),
                     [cg, g * n, *sp])
    w = aten.reshape(aten.movedim_int(aten.reshape(gout, [n, g, og, *osp]), 0, 2), [g * og, n, *osp])
    out = aten.convolution(x, w, None, list(dilation), list(padding), list(stride), False, [0] * nd, g)
    for d in range(nd):
        out = aten.narrow(out, 2 + d, 0, ksize[d])
    return aten.transpose_int(out, 0, 1)


def _input_grad(grad, inp, weight, stride, padding, dilation, transposed, groups, ksize):
    nd = len(ksize)
    if transposed:  # an output_padding of at least the stride (allowed below the dilation) adds rows to drop
        out = aten.convolution(grad, weight, None, stride, padding, dilation, False, [0] * nd, groups)
        for d in range(nd):
            if out.sizes[2 + d] != inp.sizes[2 + d]:
                out = aten.narrow(out, 2 + d, 0, inp.sizes[2 + d])
        return out
    natural = [(grad.sizes[2 + d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (ksize[d] - 1) + 1
               for d in range(nd)]
    extra = [inp.sizes[2 + d] - natural[d] for d in range(nd)]
    return aten.convolution(grad, weight, None, stride, padding, dilation, True, extra, groups)


def _zeros_like(t):
    return full_impl(t.sizes, 0, t.dtype, t.device)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,  # noqa: A002
                         output_padding, groups, output_mask):
    nd = weight.ndim - 2
    stride, padding, dilation = _expand(stride, nd), _expand(padding, nd), _expand(dilation, nd)
    ksize = tuple(weight.sizes[2:])
    dbias = None
    if output_mask[2]:
        dbias = aten.sum_dim_IntList(grad_output, [0, *range(2, grad_output.ndim)], False, None)
    empty = input.numel() == 0 or grad_output.numel() == 0
    dinput = dweight = None
    if output_mask[0]:
        dinput = _zeros_like(input) if empty else _input_grad(grad_output, input, weight, stride, padding,
                                                              dilation, transposed, groups, ksize)
    if output_mask[1]:
        if empty:
            dweight = _zeros_like(weight)
        elif transposed:
            dweight = _weight_grad(grad_output, input, stride, padding, dilation, groups, ksize)
        else:
            dweight = _weight_grad(input, grad_output, stride, padding, dilation, groups, ksize)
    return dinput, dweight, dbias
