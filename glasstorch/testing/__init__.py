"""``torch.testing``: comparing results (``assert_close``) and making test inputs (``make_tensor``).

PyTorch counterpart: ``torch/testing/__init__.py``.  ``_internal`` holds what PyTorch keeps there for its own
tests and that user code reaches for (the TwoTensor wrapper subclass).
"""

from ._comparison import assert_allclose, assert_close  # noqa: F401
from ._creation import make_tensor  # noqa: F401

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
