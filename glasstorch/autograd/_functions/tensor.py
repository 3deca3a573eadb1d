"""``Resize`` and ``Type``: two ``autograd.Function``s from PyTorch's early API that scripts still name."""

from __future__ import annotations

import math
import warnings

from ..function import Function


class Type(Function):
    """Deprecated dtype conversion whose backward converts the gradient back to the input's type."""

    @staticmethod
    def forward(ctx, i, dest_type):
        warnings.warn("`torch.autograd._functions.Type` is deprecated as of PyTorch 2.1, please use "
                      "`torch.tensor.to(dtype=dtype)` instead.", FutureWarning, stacklevel=2)
        ctx.input_type = i.type()
        return i.type(dest_type)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.type(ctx.input_type), None


class Resize(Function):
    """Reshape to ``sizes`` keeping the number of elements; the gradient takes the input's shape back."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        ctx.sizes = sizes
        ctx.numel = math.prod(sizes)
        if tensor.numel() != ctx.numel:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({ctx.numel} elements in total), but the given "
                f"tensor has a size of {'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). autograd's "
                f"resize can only change the shape of a given tensor, while preserving the number of elements. ")
        ctx.input_sizes = tensor.size()
        if tensor.is_contiguous():
            return tensor.new(tensor).contiguous().view(*sizes)
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output.numel() != ctx.numel:
            raise AssertionError(f"Expected grad_output to have {ctx.numel} elements, but got {grad_output.numel()}")
        return grad_output.contiguous().view(ctx.input_sizes), None
