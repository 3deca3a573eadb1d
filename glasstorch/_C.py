"""``torch._C``'s names for the ``__torch_function__`` switches, for scripts that spell them that way.

PyTorch's ``_C`` is its compiled extension; glasstorch has none, and this module holds only what subclass code
commonly reaches for there: ``_disabled_torch_function_impl`` (the ``__torch_function__`` that keeps a subclass
out of the protocol, as ``nn.Parameter`` uses it) and the context managers ``DisableTorchFunctionSubclass`` and
``DisableTorchFunction`` (implemented in ``glasstorch/_binding_support.py``, Note [Torch function state]), and
autograd's view-replay switch ``_set_view_replay_enabled``/``_is_view_replay_enabled`` (``autograd/grad_mode.py``;
the user API is ``torch.autograd._force_original_view_tracking``).
"""

from ._binding_support import DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl
from .autograd.grad_mode import _set_view_replay_enabled
from .autograd.grad_mode import is_view_replay_enabled as _is_view_replay_enabled

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass", "_disabled_torch_function_impl",
           "_set_view_replay_enabled", "_is_view_replay_enabled"]
