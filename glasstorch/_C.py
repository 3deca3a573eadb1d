"""``torch._C``'s names for the ``__torch_function__`` switches, for scripts that spell them that way.

PyTorch's ``_C`` is its compiled extension; glasstorch has none, and this module holds only what subclass code
commonly reaches for there: ``_disabled_torch_function_impl`` (the ``__torch_function__`` that keeps a subclass
out of the protocol, as ``nn.Parameter`` uses it) and the context managers ``DisableTorchFunctionSubclass`` and
``DisableTorchFunction``.  The implementations live in ``glasstorch/_binding_support.py``
(Note [Torch function state]).  ``_nn._parse_to`` is ``nn.Module.to``'s argument parser.
"""

import types

from ._binding_support import DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl
from .tensor import nn_parse_to

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass", "_disabled_torch_function_impl", "_nn"]

_nn = types.SimpleNamespace(_parse_to=nn_parse_to)
