"""Legacy autograd Functions kept for old code — PyTorch's ``torch/autograd/_functions``: ``Resize`` (a view to new
sizes with the element count kept) and the deprecated ``Type`` (a dtype conversion)."""

from .tensor import Resize, Type

__all__ = ["Resize", "Type"]
