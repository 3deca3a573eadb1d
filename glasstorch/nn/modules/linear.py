"""Linear layers — PyTorch's ``torch/nn/modules/linear.py``: Identity, Linear, Bilinear.

``Linear`` holds ``weight`` (out_features, in_features) and ``bias`` (out_features,) and computes
``x @ weight.T + bias`` through ``F.linear``.  Its default init is ``kaiming_uniform_(a=sqrt(5))``, which is
U(-1/sqrt(in_features), 1/sqrt(in_features)); the bias uses the same bound.

Invariant: parameters are created uninitialised (``torch.empty``) and filled by ``reset_parameters`` only.
"""

from __future__ import annotations

import math

from ..._functions import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear", "Bilinear"]


class Identity(Module):
    """Returns its input unchanged; any constructor arguments are ignored (``nn.Identity``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Identity(54, unused="x")(torch.ones(2)).shape
        torch.Size([2])
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x A^T + b`` (``nn.Linear``).

    Args:
        in_features: size of each input sample's last dim.
        out_features: size of each output sample's last dim.
        bias: whether to learn an additive bias (default True).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.Linear(20, 30)(torch.randn(128, 20)).shape
        torch.Size([128, 30])
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight ~ kaiming_uniform_(a=sqrt(5)); bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear that quantization tooling leaves alone (MultiheadAttention's ``out_proj``)."""


class Bilinear(Module):
    """``y = x1^T A x2 + b`` (``nn.Bilinear``); weight is (out_features, in1_features, in2_features).

    Example:
        >>> import glasstorch as torch
        >>> m = torch.nn.Bilinear(20, 30, 40)
        >>> m(torch.randn(128, 20), torch.randn(128, 30)).shape
        torch.Size([128, 40])
    """

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight and bias ~ U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
