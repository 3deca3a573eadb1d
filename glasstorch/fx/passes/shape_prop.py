"""Shape propagation — PyTorch's ``torch/fx/passes/shape_prop.py``.

``ShapeProp(gm).propagate(*example_inputs)`` runs the graph with an :class:`~glasstorch.fx.Interpreter` and
stores, on every node that produced Tensors, ``node.meta["tensor_meta"]``: a :class:`TensorMetadata` (or a
structure of them, mirroring the result) with shape, dtype, requires_grad, stride and memory format, plus
``node.meta["type"]``, the Python type of the result.

Invariant: propagation runs the real computation, so it returns what ``gm(*example_inputs)`` returns.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..._core.dtype import dtype as _dtype
from ..._core.layout import channels_last, channels_last_3d, contiguous_format
from ..._core.shape import Size
from ...tensor import Tensor
from ..interpreter import Interpreter
from ..node import Node, map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    """What ShapeProp records about one Tensor."""

    shape: Size
    dtype: _dtype
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _memory_format(t: Tensor):
    """The first layout ``t`` is contiguous in: contiguous_format, channels_last (4-d), channels_last_3d (5-d)."""
    if t.is_contiguous():
        return contiguous_format
    if t.dim() == 4 and t.is_contiguous(memory_format=channels_last):
        return channels_last
    if t.dim() == 5 and t.is_contiguous(memory_format=channels_last_3d):
        return channels_last_3d
    return None


def _extract_tensor_metadata(result: Tensor, include_contiguity: bool = True) -> TensorMetadata:
    memory_format = _memory_format(result) if include_contiguity else None
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(), memory_format, False, {})


class ShapeProp(Interpreter):
    """Run a GraphModule on example inputs and record each node's Tensor metadata (``torch.fx.passes.shape_prop``).

    Example:
        >>> import glasstorch as torch, glasstorch.fx as fx
        >>> from glasstorch.fx.passes.shape_prop import ShapeProp
        >>> gm = fx.symbolic_trace(torch.nn.Linear(4, 3))
        >>> _ = ShapeProp(gm).propagate(torch.randn(2, 4))
        >>> [tuple(n.meta["tensor_meta"].shape) for n in gm.graph.nodes]
        [(2, 4), (3, 4), (3,), (2, 3), (2, 3)]
    """

    def __init__(self, gm, fake_mode=None) -> None:
        if fake_mode is not None:
            raise NotImplementedError("ShapeProp with a fake_mode: glasstorch has no FakeTensorMode yet; pass real "
                                      "or meta-device example inputs instead")
        super().__init__(gm)
        self.fake_mode = None
        self.fake_module = None
        self.real_module = self.module

    def run_node(self, n: Node):
        try:
            result = super().run_node(n)
        except Exception as e:
            raise RuntimeError(f"ShapeProp error for: node={n.format_node()} with meta={n.meta}") from e
        found = False

        def extract(obj):
            nonlocal found
            if isinstance(obj, Tensor):
                found = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Run the module on ``args``, recording metadata; returns the module's output."""
        return super().run(*args)
