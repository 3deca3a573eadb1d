"""Tensor subclasses of the compile stack — PyTorch's ``torch/_subclasses``: :class:`FakeTensor` and its mode.

Invariant: importing this package registers nothing; FakeTensors exist only when a FakeTensorMode makes them.
"""

from .fake_tensor import (
    DataDependentOutputException,
    DynamicOutputShapeException,
    FakeTensor,
    FakeTensorMode,
    UnsupportedFakeTensorException,
    UnsupportedOperatorException,
)

__all__ = ["FakeTensor", "FakeTensorMode", "DataDependentOutputException", "DynamicOutputShapeException",
           "UnsupportedFakeTensorException", "UnsupportedOperatorException"]
