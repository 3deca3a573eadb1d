"""``torch._C``'s names for the ``__torch_function__`` switches, for scripts that spell them that way.

PyTorch's ``_C`` is its compiled extension; glasstorch has none, and this module holds only what subclass code
commonly reaches for there: ``_disabled_torch_function_impl`` (the ``__torch_function__`` that keeps a subclass
out of the protocol, as ``nn.Parameter`` uses it) and the context managers ``DisableTorchFunctionSubclass`` and
``DisableTorchFunction`` (implemented in ``glasstorch/_core/torch_function.py``, Note [Torch function state]),
``TensorBase`` (the base class of Tensor), and
autograd's view-replay switch ``_set_view_replay_enabled``/``_is_view_replay_enabled`` and forward grad mode's
``_set_fwd_grad_enabled``/``_is_fwd_grad_enabled`` (``autograd/grad_mode.py``;
the user API is ``torch.autograd._force_original_view_tracking``), and ``_functions``: the node classes
(``AccumulateGrad``, ``CopySlices``, ``MulBackward0`` …) and the small nodes of ``autograd/basic_ops.py``, and
``_autograd``: a few engine entry points (saved-tensor hooks state, version counters); ``is_grad_enabled`` and
``_current_graph_task_id``, the engine's ``_current_autograd_node``, ``_current_graph_task_execution_order`` and
``_will_engine_execute_node``; the cached-tensor registry (``_add_cached_tensor`` …); ``_nn._parse_to``,
``nn.Module.to``'s argument parser; the gradient layout switch
``_set_grad_layout_enforcement_enabled``/``_is_grad_layout_enforcement_enabled``; ``has_lapack`` (the linalg
kernels call LAPACK, ``_ops/kernels/cpu/lapack.py``).
"""

import types
import weakref

from ._core import thread_local_objects as _tls_objects
from ._core.torch_function import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    TensorBase,
    _disabled_torch_function_impl,
)
from ._generated import functions as _functions_bindings
from ._generated.functions import NN_FUNCTIONS
from ._ops import cached_tensor_utils as _cached
from ._ops.cached_tensor_utils import set_cached_tensors_enabled as _set_cached_tensors_enabled
from .autograd import basic_ops as _basic_ops
from .autograd._generated import nodes as _generated_nodes
from .autograd.engine import current_execution_order as _current_graph_task_execution_order
from .autograd.engine import current_graph_task_id as _current_graph_task_id
from .autograd.engine import current_graph_task_keep_graph as _current_graph_task_keep_graph
from .autograd.engine import current_node as _current_autograd_node
from .autograd.engine import will_execute_node as _will_engine_execute_node
from .autograd.grad_mode import (
    _is_fwd_grad_enabled,
    _is_grad_layout_enforcement_enabled,
    _is_multithreading_enabled,
    _set_fwd_grad_enabled,
    _set_grad_layout_enforcement_enabled,
    _set_multithreading_enabled,
    _set_view_replay_enabled,
    _unsafe_set_version_counter,
    is_grad_enabled,
)
from .autograd.grad_mode import is_view_replay_enabled as _is_view_replay_enabled
from .autograd.graph import AccumulateGrad, NodeBase, SavedTensor, _saved_tensors_hooks_is_enabled, make_saved_tensor
from .autograd.view_history import CopySlices
from .tensor import nn_parse_to
from .utils._python_dispatch import _RestorePythonTLSSnapshot

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass", "TensorBase", "_disabled_torch_function_impl",
           "_set_view_replay_enabled", "_is_view_replay_enabled", "_functions", "_autograd", "is_grad_enabled",
           "_current_graph_task_id", "_is_multithreading_enabled", "_set_multithreading_enabled", "_WeakTensorRef",
           "_nn", "_set_fwd_grad_enabled", "_is_fwd_grad_enabled", "_RestorePythonTLSSnapshot",
           "_current_autograd_node", "_current_graph_task_execution_order", "_will_engine_execute_node",
           "_set_cached_tensors_enabled", "_add_cached_tensor", "_remove_cached_tensor", "_is_cached_tensor",
           "_set_grad_layout_enforcement_enabled", "_is_grad_layout_enforcement_enabled",
           "_stash_obj_in_tls", "_get_obj_in_tls", "_is_key_in_tls", "_remove_obj_from_tls", "has_lapack"]

has_lapack = True  # torch._C.has_lapack: linalg's decompositions run LAPACK routines (_ops/kernels/cpu/lapack.py)

_stash_obj_in_tls = _tls_objects.stash
_get_obj_in_tls = _tls_objects.get
_is_key_in_tls = _tls_objects.contains
_remove_obj_from_tls = _tls_objects.remove


class _WeakTensorRef:
    """A weak reference to a tensor's data (``torch._C._WeakTensorRef``): ``expired()`` once the TensorImpl is
    gone (no tensor, view or saved value holds it)."""

    def __init__(self, tensor):
        self._ref = weakref.ref(tensor._impl)

    def expired(self) -> bool:
        return self._ref() is None


def _add_cached_tensor(tensor) -> None:
    """Mark ``tensor`` as cached (CUDA-graph pools; ``_ops/cached_tensor_utils.py``)."""
    _cached.add_cached_tensor(tensor._impl)


def _remove_cached_tensor(tensor) -> None:
    _cached.remove_cached_tensor(tensor._impl)


def _is_cached_tensor(tensor) -> bool:
    return _cached.is_cached_tensor(tensor._impl)


def _node_classes() -> dict:
    """The backward node classes by name, as ``torch._C._functions`` lists them (generated and hand-written)."""
    found = {n: c for n, c in vars(_generated_nodes).items() if isinstance(c, type) and issubclass(c, NodeBase)}
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
_autograd._make_saved_tensor = make_saved_tensor
_autograd._get_current_graph_task_keep_graph = _current_graph_task_keep_graph

_nn = types.ModuleType("torch._C._nn", "The operators declared with python_module: nn (torch._C._nn).")
vars(_nn).update({name: getattr(_functions_bindings, name) for name in NN_FUNCTIONS}, _parse_to=nn_parse_to)
