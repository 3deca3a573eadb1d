"""``torch._C``'s names for the ``__torch_function__`` switches, for scripts that spell them that way.

PyTorch's ``_C`` is its compiled extension; glasstorch has none, and this module holds only what subclass code
commonly reaches for there: ``_disabled_torch_function_impl`` (the ``__torch_function__`` that keeps a subclass
out of the protocol, as ``nn.Parameter`` uses it) and the context managers ``DisableTorchFunctionSubclass`` and
``DisableTorchFunction`` (implemented in ``glasstorch/_binding_support.py``, Note [Torch function state]), and
autograd's view-replay switch ``_set_view_replay_enabled``/``_is_view_replay_enabled`` (``autograd/grad_mode.py``;
the user API is ``torch.autograd._force_original_view_tracking``), and ``_functions``: the node classes
(``AccumulateGrad``, ``CopySlices``, ``MulBackward0`` …) and the small nodes of ``autograd/basic_ops.py``, and
``_autograd``: a few engine entry points (saved-tensor hooks state, version counters); ``is_grad_enabled`` and
``_current_graph_task_id``; ``_nn._parse_to``, ``nn.Module.to``'s argument parser.
"""

import types
import weakref

from ._binding_support import DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl
from ._core import thread_local_objects as _tls_objects
from ._generated import functions as _functions_bindings
from ._generated.functions import NN_FUNCTIONS
from .autograd import basic_ops as _basic_ops
from .autograd._generated import nodes as _generated_nodes
from .autograd.anomaly_mode import running as _running_node
from .autograd.engine import current_graph_task_id as _current_graph_task_id
from .autograd.grad_mode import (
    _is_multithreading_enabled,
    _set_multithreading_enabled,
    _set_view_replay_enabled,
    _unsafe_set_version_counter,
    is_grad_enabled,
)
from .autograd.grad_mode import is_view_replay_enabled as _is_view_replay_enabled
from .autograd.graph import AccumulateGrad, Node, SavedTensor, _saved_tensors_hooks_is_enabled
from .autograd.view_history import CopySlices
from .tensor import nn_parse_to

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass", "_disabled_torch_function_impl",
           "_set_view_replay_enabled", "_is_view_replay_enabled", "_functions", "_autograd", "is_grad_enabled",
           "_current_graph_task_id", "_is_multithreading_enabled", "_set_multithreading_enabled", "_WeakTensorRef",
           "_nn", "_stash_obj_in_tls", "_get_obj_in_tls", "_is_key_in_tls", "_remove_obj_from_tls",
           "_current_autograd_node"]

_stash_obj_in_tls = _tls_objects.stash
_get_obj_in_tls = _tls_objects.get
_is_key_in_tls = _tls_objects.contains
_remove_obj_from_tls = _tls_objects.remove


def _current_autograd_node():
    """The node whose backward is running on this thread, or None (``torch._C._current_autograd_node``)."""
    return _running_node.node


class _WeakTensorRef:
    """A weak reference to a tensor's data (``torch._C._WeakTensorRef``): ``expired()`` once the TensorImpl is
    gone (no tensor, view or saved value holds it)."""

    def __init__(self, tensor):
        self._ref = weakref.ref(tensor._impl)

    def expired(self) -> bool:
        return self._ref() is None


def _node_classes() -> dict:
    """The backward node classes by name, as ``torch._C._functions`` lists them (generated and hand-written)."""
    found = {n: c for n, c in vars(_generated_nodes).items() if isinstance(c, type) and issubclass(c, Node)}
    found.update(AccumulateGrad=AccumulateGrad, CopySlices=CopySlices, Error=_basic_ops.Error,
                 DelayedError=_basic_ops.DelayedError, UndefinedGrad=_basic_ops.UndefinedGrad,
                 UndefinedGradBackward=_basic_ops.UndefinedGradBackward)
    return found


_functions = types.ModuleType("torch._C._functions", "Autograd's node classes (PyTorch's torch._C._functions).")
vars(_functions).update(_node_classes())


_autograd = types.ModuleType("torch._C._autograd", "The autograd engine's Python entry points (torch._C._autograd).")
_autograd._saved_tensors_hooks_is_enabled = _saved_tensors_hooks_is_enabled
_autograd._unsafe_set_version_counter = _unsafe_set_version_counter
_autograd.SavedTensor = SavedTensor

_nn = types.ModuleType("torch._C._nn", "The operators declared with python_module: nn (torch._C._nn).")
vars(_nn).update({name: getattr(_functions_bindings, name) for name in NN_FUNCTIONS}, _parse_to=nn_parse_to)
