"""The autograd graph — PyTorch's ``torch/csrc/autograd/{node,edge,saved_variable}.h`` and ``accumulate_grad.h``.

A :class:`Node` is the backward of one forward operation.  ``next_edges[i]`` says where the gradient
for the op's i-th differentiable input goes: ``(node, input_nr)``, or None when that input needs no
gradient.  Leaves that require grad end in an :class:`AccumulateGrad` sink, created lazily per leaf
and held weakly by it.  Nodes take a ``sequence_nr`` from a thread-local counter at creation; the
engine runs ready nodes with the highest number first (AccumulateGrad has the largest).

A :class:`SavedTensor` remembers the version of what it saved and refuses to unpack a tensor that was
modified in place since, or after the graph was freed — with PyTorch's messages.

Gradients travel as TensorImpls.  Hooks and formulas see public Tensors through ``to_tensor`` (bound by
the tensor layer).

Invariant: a graph only points from outputs towards inputs, so freeing outputs frees the graph.
"""

from __future__ import annotations

import abc
import collections
import itertools
import re
import threading
import weakref
from typing import NamedTuple

from .._core import thread_state
from .._core.grad_state import state as _grad_state
from .._ops.aten import aten
from .._ops.layer_kernels import write_observers
from .._tensor.impl import INFERENCE_VERSION, AutogradMeta, TensorImpl
from .._tensor.views import type_string
from .anomaly_mode import is_anomaly_enabled

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "gradient_edge", "collect_next_edges", "set_history",
           "requires_grad", "current_grad_fn", "RemovableHandle", "saved_tensors_hooks", "to_tensor",
           "bind_tensor_class",
           "save_on_cpu", "disable_saved_tensors_hooks", "allow_mutation_on_saved_tensors",
           "UINT64_MAX", "GradientEdge", "make_saved_tensor",
           "get_gradient_edge", "increment_version", "register_multi_grad_hook",
           "saved_hooks_stack"]

UINT64_MAX = (1 << 64) - 1


class _SequenceCounter(threading.local):
    """Each thread numbers its nodes from 0 (PyTorch's thread-local sequence_nr)."""

    def __init__(self):
        self.next = itertools.count().__next__


_seq = _SequenceCounter()
to_tensor = None  # impl -> public Tensor, bound by the tensor layer (bind_tensor_class)


def bind_tensor_class(wrap) -> None:
    global to_tensor
    to_tensor = wrap


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook (``torch.utils.hooks``)."""

    _ids = itertools.count()

    def __init__(self, hooks_dict):
        try:
            self.hooks_dict_ref = weakref.ref(hooks_dict)
        except TypeError:  # a plain dict cannot be weakly referenced: hold it
            self.hooks_dict_ref = lambda d=hooks_dict: d
        self.id = next(RemovableHandle._ids)

    def remove(self):
        d = self.hooks_dict_ref()
        if d is not None:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _InputMetadata(NamedTuple):
    """One forward output as its node remembers it (``torch._C._autograd._InputMetadata``)."""

    shape: list  # a list, as PyTorch's binding gives it
    dtype: object
    device: object
    is_nested_tensor: bool = False
    is_cpp_nested_tensor: bool = False


class Node(abc.ABC):
    """The virtual base of every backward node (``torch.autograd.graph.Node``).

    The node classes do not inherit from it (``Node not in type(grad_fn).mro()``): ``isinstance`` and ``issubclass``
    answer through ``__subclasshook__``, for the engine's node classes and custom Functions' backward nodes, but
    not for a ``Function`` instance itself (it has the node's methods without being one).
    """

    @abc.abstractmethod
    def name(self) -> str:
        """The node's name, e.g. ``MulBackward0``."""

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple:
        """``(node, input_nr)`` per input of the forward op, ``(None, 0)`` where no gradient flows."""

    @property
    @abc.abstractmethod
    def metadata(self) -> dict:
        """A dict for the user's notes about this node."""

    @property
    @abc.abstractmethod
    def _input_metadata(self) -> tuple:
        """The shape, dtype and device each forward output had."""

    @abc.abstractmethod
    def _register_hook_dict(self, tensor) -> None:
        """Run the hooks of ``tensor._backward_hooks`` on the gradient of ``tensor`` (legacy)."""

    @abc.abstractmethod
    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after the node ran."""

    @abc.abstractmethod
    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before the node runs."""

    @classmethod
    def __subclasshook__(cls, subclass) -> bool:
        if cls is Node and getattr(subclass, "_is_graph_node", False):
            return True
        return NotImplemented


class NodeBase:
    """A backward function in the graph (PyTorch's C++ ``torch::autograd::Node``); the public face of every node
    class is the virtual base :class:`Node`."""

    __slots__ = ("next_edges", "sequence_nr", "input_meta", "__weakref__", "__dict__")

    # Rarely set: class-level defaults, so creating a node (every recorded op) stores three attributes only;
    # a node that gets hooks keeps them in its instance dict.
    _pre_hooks = None
    _post_hooks = None
    _tensor_pre_hooks = None  # output_nr -> {id: hook}
    _retains_grad_hooks = None  # output_nr -> hook
    _metadata = None
    _released = False
    # Note [Undefined gradients in, undefined out]: a node whose incoming gradients are all undefined gives
    # undefined gradients without running its formulas (PyTorch's generated nodes test ``any_grad_defined``).
    # Custom Functions (they materialize zeros for ``backward``) and Error nodes run anyway.
    _undefined_gives_undefined = True
    _is_graph_node = True  # a torch.autograd.graph.Node (a Function instance shares the methods, not the name)

    def __init__(self, sequence_nr=None):
        self.next_edges = ()
        self.sequence_nr = _seq.next() if sequence_nr is None else sequence_nr
        self.input_meta = []  # per forward output: (sizes, dtype, device)

    # -- what PyTorch shows ----------------------------------------------------------------------
    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self.sequence_nr

    def _set_sequence_nr(self, sequence_nr: int) -> None:
        """Reorder this node among the ready ones (the engine runs the highest number first)."""
        self.sequence_nr = sequence_nr

    @property
    def _input_metadata(self) -> tuple:
        """What each forward output looked like (the gradient it gets must match): shape, dtype, device."""
        return tuple(_InputMetadata(list(m[0]), m[1], m[2]) for m in self.input_meta if m is not None)

    @property
    def next_functions(self) -> tuple:
        return tuple((None, 0) if e is None else e for e in self.next_edges)

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def __call__(self, *grads):
        """Run the backward on one gradient (a Tensor or None) per forward output (PyTorch's
        ``THPCppFunction_call``): one gradient per input back, alone when there is one."""
        if len(grads) != len(self.input_meta):
            raise TypeError(f"expected {len(self.input_meta)} arguments, got {len(grads)} instead")
        impls = []
        for i, g in enumerate(grads):
            impl = None if g is None else getattr(g, "_impl", None)
            if g is not None and type(impl) is not TensorImpl:
                raise TypeError(f"argument {i} is not a Variable")
            impls.append(impl)
        if impls and self._undefined_gives_undefined and impls.count(None) == len(impls):
            outs = (None,) * len(self.next_edges)  # Note [Undefined gradients in, undefined out]
        else:
            outs = tuple(None if o is None else to_tensor(o) for o in self.apply(impls))
        return outs[0] if len(outs) == 1 else outs

    # -- hooks -----------------------------------------------------------------------------------
    def register_hook(self, fn) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after the node ran; may return replacement grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = {}
        h = RemovableHandle(self._post_hooks)
        self._post_hooks[h.id] = fn
        return h

    def register_prehook(self, fn) -> RemovableHandle:
        """``fn(grad_outputs)`` before the node runs; may return replacement grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = fn
        return h

    def _register_hook_dict(self, tensor) -> None:
        """Run the hooks in ``tensor._backward_hooks`` (read at backward time) on its gradient, as tensor pre-hooks
        of the output ``tensor`` is (PyTorch's ``PyFunctionTensorPreHook``)."""
        hooks = tensor._backward_hooks
        meta = tensor._impl.autograd

        def run_dict(grad):
            for hook in list(hooks.values()):
                res = hook(grad)
                if res is not None:
                    grad = res
            return grad

        self.add_tensor_pre_hook(0 if meta is None else meta.output_nr, run_dict)

    def add_tensor_pre_hook(self, output_nr: int, fn) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.setdefault(output_nr, {})
        h = RemovableHandle(hooks)
        hooks[h.id] = fn
        return h

    # -- the computation ----------------------------------------------------------------------------
    def apply(self, grads: list) -> list:
        """Gradients for ``next_edges`` from the gradients of the forward outputs (impls or None)."""
        raise NotImplementedError(f"{self.name()}.apply")

    def release_variables(self) -> None:
        """Free saved tensors after backward (unless the graph is retained)."""
        self._released = True
        for name in getattr(type(self), "_tensor_slots", ()):
            saved = getattr(self, name, None)
            if isinstance(saved, SavedTensor):
                saved.release()
            elif isinstance(saved, tuple):  # a saved Tensor?[] (or the outputs of a multi-output op)
                for s in saved:
                    if isinstance(s, SavedTensor):
                        s.release()

    def should_compute_output(self, i: int) -> bool:
        return i < len(self.next_edges) and self.next_edges[i] is not None


class AccumulateGrad(NodeBase):
    """The sink of a leaf: adds incoming gradients into ``leaf.grad`` (PyTorch's accumulation rules)."""

    # _tensor_pre_hooks: the leaf's hooks (set by grad_accumulator), a slot here so that a new accumulator, made
    # per leaf for every graph, needs no instance dict
    __slots__ = ("impl", "_tensor_pre_hooks")

    def __init__(self, impl: TensorImpl):
        self.next_edges = ()  # NodeBase.__init__'s stores, inline
        self.sequence_nr = UINT64_MAX
        self.input_meta = [(impl.sizes, grad_dtype(impl), impl.device)]
        self.impl = impl
        self._tensor_pre_hooks = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    @property
    def variable(self):
        return to_tensor(self.impl)

    def apply(self, grads):
        accumulate_grad(self.impl, grads[0])
        return []


accumulate_grad = None  # the accumulation rule, bound by the engine module (it needs ops)


def grad_dtype(impl: TensorImpl):
    """The dtype a leaf's incoming gradients are cast to (``Tensor.grad_dtype``): its own unless one was assigned,
    None for any."""
    meta = impl.autograd
    return meta.grad_dtype if meta is not None and meta.grad_dtype_set else impl.dtype


def set_grad_dtype(impl: TensorImpl, dtype) -> None:
    """Assign a leaf's ``grad_dtype`` (None: any); its live AccumulateGrad casts to it from now on."""
    meta = impl.autograd
    meta.grad_dtype, meta.grad_dtype_set = dtype, True
    ref = meta.grad_accumulator
    node = ref() if ref is not None else None
    if node is not None:
        node.input_meta = [(impl.sizes, dtype, impl.device)]


def grad_accumulator(impl: TensorImpl) -> AccumulateGrad:
    """The leaf's AccumulateGrad, created lazily and held weakly by the leaf."""
    meta = impl.autograd
    ref = meta.grad_accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(impl)
        # The leaf's tensor hooks live on the leaf (AutogradMeta.hooks), so an accumulator created
        # again after the previous one died still runs the hooks registered through it.
        if meta.hooks is None:
            meta.hooks = {}
        node._tensor_pre_hooks = meta.hooks
        meta.grad_accumulator = weakref.ref(node)
    return node


def requires_grad(impl) -> bool:
    """PyTorch's ``requires_grad()``: a leaf flag, a grad_fn, or (for a view) a base that requires grad."""
    if type(impl) is not TensorImpl:
        return False
    meta = impl.autograd
    if meta is None or not (meta.requires_grad or meta.grad_fn is not None):
        return impl.base is not None and requires_grad(impl.base)
    return True


def _adopt_view(impl: TensorImpl):
    """Note [Views without autograd metadata]: a view taken while its base had no history carries no metadata.  A
    grad_fn on the base since came from an in-place write, so the view gets metadata whose history is regenerated
    from the base's; None while the base has no grad_fn."""
    base = impl.base
    if base is None or base.autograd is None or base.autograd.grad_fn is None:
        return None
    meta = impl.autograd = AutogradMeta()
    meta.version_at_grad_fn = -1  # never matches: the caller regenerates the grad_fn
    return meta


def gradient_edge(impl: TensorImpl):
    """Where the gradient of ``impl`` goes: (grad_fn, output_nr), (AccumulateGrad, 0) or None."""
    meta = impl.autograd
    if meta is None and (meta := _adopt_view(impl)) is None:
        return None
    if impl.base is not None and meta.version_at_grad_fn != impl.version.version:
        refresh_view_grad_fn(impl)  # the base (or another view of it) was written in place since
    if meta.grad_fn is not None:
        return (meta.grad_fn, meta.output_nr)
    if meta.requires_grad:
        return (grad_accumulator(impl), 0)
    return None


def collect_next_edges(*impls) -> tuple:
    return tuple([gradient_edge(t) if type(t) is TensorImpl else None for t in impls])


def current_grad_fn(impl: TensorImpl):
    """``impl``'s grad_fn, regenerated first if ``impl`` is a view whose base changed in place."""
    meta = impl.autograd
    if meta is None and (meta := _adopt_view(impl)) is None:
        return None
    if impl.base is not None and meta.version_at_grad_fn != impl.version.version:
        refresh_view_grad_fn(impl)
    return meta.grad_fn


def _refresh_unbound(impl) -> None:
    raise AssertionError("autograd.view_history did not bind refresh_view_grad_fn")


refresh_view_grad_fn = _refresh_unbound  # a view's grad_fn after an in-place write (bound by view_history)


def set_history(out: TensorImpl, node: NodeBase, output_nr: int = 0, move_hooks: bool = True) -> None:
    """Make ``out`` an output of ``node`` (PyTorch's ``set_history``); ``move_hooks=False`` leaves a retained grad's
    hook on the old grad_fn (an in-place view op: PyTorch moves it only when it rebases history)."""
    meta = out.autograd
    if meta is None:
        meta = out.autograd = AutogradMeta()
    elif move_hooks and meta.retains_grad and meta.grad_fn is not None and meta.grad_fn is not node:
        _move_retains_grad(meta, node, output_nr)
    if out.base is not None:
        meta.version_at_grad_fn = out.version.version
    meta.grad_fn = node
    meta.output_nr = output_nr
    meta.requires_grad = False
    input_meta = node.input_meta
    if output_nr == len(input_meta):
        input_meta.append((out.sizes, out.dtype, out.device))
        return
    while len(input_meta) <= output_nr:
        input_meta.append(None)
    input_meta[output_nr] = (out.sizes, out.dtype, out.device)


def _move_retains_grad(meta, node: NodeBase, output_nr: int) -> None:
    """A tensor that retains its grad keeps doing so after an in-place op gave it a new grad_fn (the hook
    moves; its other hooks stay with the old grad_fn — PyTorch's ``update_tensor_hooks_on_new_gradfn``)."""
    old = meta.grad_fn
    hook = old._retains_grad_hooks.pop(meta.output_nr, None) if old._retains_grad_hooks else None
    if hook is not None:
        if node._retains_grad_hooks is None:
            node._retains_grad_hooks = {}
        node._retains_grad_hooks[output_nr] = hook


# -- saved tensors ---------------------------------------------------------------------------------------
_BACKWARD_TWICE = ("Trying to backward through the graph a second time (or directly access saved tensors after "
                   "they have already been freed). Saved intermediate values of the graph are freed when you call "
                   ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                   "graph a second time or if you need to access saved tensors after calling backward.")

_INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                    "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                    "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                    "`torch.inference_mode()`.")
_PACK_MODIFIES = ("A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                  "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
                  "open an issue if you need to perform in-place operations on the input to a pack hook.")

# .stack: the default (pack, unpack) pairs; .disabled: the message, or None
_hooks_state = thread_state.register(threading.local())


def saved_hooks_stack() -> list:
    """This thread's stack of default (pack, unpack) hooks, the list itself (created on first use)."""
    stack = getattr(_hooks_state, "stack", None)
    if stack is None:
        stack = _hooks_state.stack = []
    return stack


def _check_hooks_enabled() -> None:
    msg = getattr(_hooks_state, "disabled", None)
    if msg is not None:
        raise RuntimeError(msg)


_FROM_PYTHON = object()  # SavedTensor's default argument: only autograd makes them (with an impl, or None)


class SavedTensor:
    """A tensor saved for backward, with PyTorch's version check (``SavedVariable``; in Python
    ``torch._C._autograd.SavedTensor``, which user code may not construct)."""

    __slots__ = ("impl", "version", "packed", "unpack_hook", "grad_fn_ref", "output_nr", "is_output", "released",
                 "was_none", "had_grad_fn", "history")

    def __init__(self, impl=_FROM_PYTHON, is_output: bool = False):
        if impl is _FROM_PYTHON:
            raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")
        self.released = False
        self.was_none = impl is None
        self.packed = None
        self.history = None
        self.unpack_hook = None
        self.is_output = is_output
        if impl is None:
            self.impl = None
            return
        if impl.is_inference():
            raise RuntimeError(_INFERENCE_SAVED)
        self.version = impl.version.version
        meta = impl.autograd
        self.output_nr = 0 if meta is None else meta.output_nr
        self.had_grad_fn = meta is not None and meta.grad_fn is not None  # an input's history, checked at unpack
        # An output saved by its own node would form a cycle node -> saved -> output -> node: keep the
        # node weakly (PyTorch saves tensor_data() plus grad_fn for the same reason).
        self.grad_fn_ref = weakref.ref(meta.grad_fn) if is_output and meta is not None and meta.grad_fn else None
        hooks = getattr(_hooks_state, "stack", None)
        if hooks:
            self._pack_with(impl, *hooks[-1])
        elif is_output:
            self.impl = impl.view_impl(impl.sizes, impl.strides, impl.offset)  # the data, not the history
        else:
            self.impl = impl

    def _pack_with(self, impl, pack, unpack) -> None:
        self.history = _history_of(impl, self.is_output)
        prev = _grad_state.enabled
        _grad_state.enabled = False  # PyTorch runs pack hooks without recording
        try:
            self.packed = pack(to_tensor(impl))
        finally:
            _grad_state.enabled = prev
        if impl.version.version != self.version:
            raise RuntimeError(_PACK_MODIFIES)
        self.unpack_hook = unpack
        self.impl = None

    def register_hooks(self, *hooks) -> None:
        """Pack the saved tensor now with ``pack_hook``; backward unpacks it with ``unpack_hook``
        (``torch._C._autograd.SavedTensor.register_hooks(pack_hook, unpack_hook)``)."""
        if len(hooks) != 2 or not all(callable(h) for h in hooks):  # pybind11's overload error
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: collections.abc.Callable, "
                            "arg1: collections.abc.Callable) -> None\n\nInvoked with: "
                            + ", ".join(repr(x) for x in (self, *hooks)))
        pack_hook, unpack_hook = hooks
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: "
                               "only one pair of hooks is allowed at a time.")
        if self.released:
            raise RuntimeError("Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
                               "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
                               "retain_graph=True if you need to backward through the graph a second time or if you "
                               "need to access saved variables after calling backward.")
        if self.was_none:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        self._pack_with(self.impl, pack_hook, unpack_hook)

    def release(self):
        self.released = True
        self.impl = None
        self.packed = None
        self.unpack_hook = None  # the hooks go with the data (PyTorch's reset_data)

    @property
    def data(self):
        """What is kept: the object the pack hook returned, else the saved tensor (an output's without its history);
        None once freed."""
        if self.released or self.was_none:
            return None
        if self.unpack_hook is not None:
            return self.packed
        return to_tensor(self.impl)

    def unpack(self):
        """The saved tensor, as backward reads it (through the unpack hook, if any)."""
        impl = self.unpack_impl()
        return None if impl is None else to_tensor(impl)

    def unpack_impl(self, node_name: str = "", saved_for=None):
        """The saved TensorImpl for the formulas of ``node_name``; ``saved_for``: the node that saved an output."""
        if self.was_none:
            return None
        if self.released:
            raise RuntimeError(_BACKWARD_TWICE)
        if self.unpack_hook is not None:
            t = self.unpack_hook(self.packed)
            impl = getattr(t, "_impl", None)
            if type(impl) is not TensorImpl:
                raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                                f"{type(t).__name__}")
            return self._with_history(impl)
        impl = self.impl
        if impl.version.version != self.version:
            raise RuntimeError(_version_error(impl, self, node_name))
        if self.is_output:
            # A fresh tensor with the output's data and history each time (PyTorch's SavedVariable::unpack).
            out = impl.view_impl(impl.sizes, impl.strides, impl.offset)
            node = self.grad_fn_ref() if self.grad_fn_ref is not None else None
            if node is None and self.grad_fn_ref is not None:
                # Note [Saved output of an in-place op on a view]: the view's regenerated grad_fn, held only by
                # the view, is gone with it; as PyTorch's SavedVariable::unpack, the output then hangs off the node
                # that saved it (``saved_for``), whose next edges lead where the view's history did.
                node = saved_for
            if node is not None:
                out.autograd = AutogradMeta()
                out.autograd.grad_fn = node
                out.autograd.output_nr = self.output_nr
            return out
        if self.had_grad_fn and current_grad_fn(impl) is None:
            # A saved input is the tensor itself, its history read from it; detach_() took that away.
            raise RuntimeError("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
                               "This is not supported, please use out-of-place `.detach()` instead")
        return impl


    def _with_history(self, impl: TensorImpl) -> TensorImpl:
        """What an unpack hook returned, as a new tensor with the saved tensor's history (PyTorch's
        ``SavedVariable::unpack`` makes a variable of the data with the saved grad_fn, or as the same leaf)."""
        node, leaf_accumulator = self.history
        if node is None and leaf_accumulator is None and self.grad_fn_ref is None:
            return impl
        out = impl.view_impl(impl.sizes, impl.strides, impl.offset)
        meta = out.autograd = AutogradMeta()
        if node is None and self.grad_fn_ref is not None:
            node = self.grad_fn_ref()
        if node is not None:
            meta.grad_fn, meta.output_nr = node, self.output_nr
        else:
            meta.requires_grad = True
            meta.grad_accumulator = leaf_accumulator
        return out


def make_saved_tensor(tensor, is_output: bool, is_inplace_on_view: bool = False) -> SavedTensor:
    """Save ``tensor`` as a node would, packing it with the active saved-tensor hooks
    (``torch._C._autograd._make_saved_tensor``)."""
    return SavedTensor(tensor._impl, is_output=is_output)


def _history_of(impl: TensorImpl, is_output: bool) -> tuple:
    """(grad_fn, leaf accumulator ref) of a tensor packed by a hook: an input's grad_fn is held strongly (its data
    is gone), an output's stays the weak ``grad_fn_ref``; a leaf that requires grad gives its accumulator."""
    meta = impl.autograd
    if meta is None:
        return None, None
    if meta.grad_fn is not None:
        return (None if is_output else current_grad_fn(impl)), None
    if meta.requires_grad:
        return None, weakref.ref(grad_accumulator(impl))
    return None, None


def forward_op_name(node: Node) -> str:
    """The forward op a node stands for, as PyTorch's error messages print it: the node's name without "Backward",
    keeping a variant number other than 0 (``Exp`` for ExpBackward0, ``Sum1`` for SumBackward1, ``MyFunc`` for a
    custom Function's MyFuncBackward; ``torch::autograd::CopySlices`` as it is)."""
    return re.sub(r"Backward(0?)(\d*)$", r"\2", node.name())


def _version_error(impl, saved, node_name) -> str:
    shape = ", ".join(str(s) for s in impl.sizes)
    meta = impl.autograd
    # A saved output names the node that produced it; a saved input its current grad_fn.  PyTorch 2.13
    # prints the forward op's name (forward_op_name: "output 0 of Exp", "of Sum1", "of MyFunc").
    # A saved view's grad_fn is read as the tensor's own (PyTorch's data_.grad_fn()): regenerated as AsStrided
    # when its base moved, and refused (CreationMeta) for the views that may not be regenerated.
    node = saved.grad_fn_ref() if saved.grad_fn_ref is not None else None
    output_nr = saved.output_nr
    if node is None and meta is not None and current_grad_fn(impl) is not None:
        node, output_nr = meta.grad_fn, meta.output_nr
    fn = forward_op_name(node) if node is not None else None
    which = f", which is output {output_nr} of {fn}," if fn else ""
    hint = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. The "
            "variable in question was changed in there or anywhere later. Good luck!") if is_anomaly_enabled() else (
        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return (f"one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[{type_string(impl)} [{shape}]]{which} is at version {impl.version.version}; expected version "
            f"{saved.version} instead. {hint}")


class saved_tensors_hooks:
    """Pack/unpack hooks for tensors saved for backward (``torch.autograd.graph.saved_tensors_hooks``)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _check_hooks_enabled()
        saved_hooks_stack().append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _hooks_state.stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Keep tensors saved for backward on the CPU; backward moves each back to its device
    (``torch.autograd.graph.save_on_cpu``).  ``pin_memory`` asks for a non-blocking copy back; this build has no
    pinned host memory, so the copy is an ordinary one (the values are the same)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack(tensor):
            return tensor.device, tensor.cpu()

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Make entering saved-tensor hooks raise ``RuntimeError(error_message)`` meanwhile
    (``torch.autograd.graph.disable_saved_tensors_hooks``); the previous setting comes back on exit."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self):
        if getattr(_hooks_state, "stack", None):  # hooks already active: as PyTorch, refuse with the message
            raise RuntimeError(self.error_message)
        self.prev = getattr(_hooks_state, "disabled", None)
        _hooks_state.disabled = self.error_message

    def __exit__(self, *exc):
        _hooks_state.disabled = self.prev

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self.__class__(self.error_message):
                return fn(*args, **kwargs)
        return wrapper


def _saved_tensors_hooks_is_enabled() -> bool:
    """False inside ``disable_saved_tensors_hooks`` (``torch._C._autograd._saved_tensors_hooks_is_enabled``)."""
    return getattr(_hooks_state, "disabled", None) is None


class _Handle:
    """What a saved tensor packs to inside ``allow_mutation_on_saved_tensors``: a key to its value."""


def _storage_id(t) -> tuple:
    return (t.data_ptr(), t._version)


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block (PyTorch's, field for field): ``original`` and
    ``cloned`` map a handle to the saved tensor or to its clone taken before a write; ``tid_to_weakhandle`` finds
    a saved tensor's handle; ``sid_to_tid`` the saved tensors over one storage at one version.  The handles are
    held by the saved tensors only, so entries leave with the graph."""

    def __init__(self) -> None:
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = collections.defaultdict(set)

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, tensor) -> _Handle:
        tid = (id(tensor), *_storage_id(tensor))
        self.sid_to_tid[_storage_id(tensor)].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:  # the same tensor at the same version may be saved several times: one handle
            handle = self.tid_to_weakhandle[tid] = _Handle()
            self.original[handle] = tensor
        return handle

    def unpack(self, handle: _Handle):
        if getattr(_mutation_state, "active", False) and handle in self.cloned:
            return self.cloned[handle]
        if not getattr(_mutation_state, "active", False) or handle not in self.original:
            raise AssertionError("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                                 "in which the graph was originally recorded.")
        return self.original[handle]

    def before_write(self, impl: TensorImpl) -> None:
        """Clone every saved tensor over ``impl``'s storage at its current version, once, before the write."""
        tids = self.sid_to_tid.get((impl.data_ptr(), impl.version.version))
        for tid in tids or ():
            handle = self.tid_to_weakhandle.get(tid)  # None: saved once, but that graph is gone
            if handle is None or handle in self.cloned:
                continue
            original = self.original.pop(handle)
            self.cloned[handle] = to_tensor(aten.clone(original._impl, None))


_mutation_state = threading.local()


class allow_mutation_on_saved_tensors:
    """Tensors saved for backward inside this block may be modified in place: each is cloned just before the
    first write that would change it, and backward uses the clone (``torch.autograd.graph``'s context
    manager).  Backward must run inside the block; the context's state is cleared on exit."""

    def __enter__(self) -> _AllowMutationOnSavedContext:
        if getattr(_mutation_state, "active", False):
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        ctx = self.ctx = _AllowMutationOnSavedContext()
        self.hooks = saved_tensors_hooks(ctx.pack, ctx.unpack)
        self.hooks.__enter__()
        write_observers.append(ctx.before_write)
        _mutation_state.active = True
        return ctx

    def __exit__(self, *exc):
        _mutation_state.active = False
        write_observers.remove(self.ctx.before_write)
        self.hooks.__exit__(*exc)
        self.ctx.clear()


# -- graph utilities of torch.autograd.graph -----------------------------------------------------------------
class GradientEdge(NamedTuple):
    """Where the gradient of a tensor enters the graph (``torch.autograd.graph.GradientEdge``)."""

    node: object
    output_nr: int
    ownership_token: object = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge of ``tensor``'s gradient: its grad_fn and output number, or its grad accumulator."""
    impl = tensor._impl
    if not requires_grad(impl):
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    node, nr = gradient_edge(impl)
    return GradientEdge(node, nr)


def increment_version(tensor) -> None:
    """Bump the version counter(s) as an in-place write would (``torch.autograd.graph.increment_version``); an
    inference tensor has no counter to bump and is skipped, as PyTorch's ``_increment_version`` skips it."""
    for t in (tensor,) if not isinstance(tensor, (list, tuple)) else tensor:
        if t._impl.version is not INFERENCE_VERSION:
            t._impl.version.bump()


class _MultiHandle:
    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all"):
    """One hook over several tensors (``torch.autograd.graph.register_multi_grad_hook``).

    ``mode="all"``: ``fn(grads)`` once per backward, after the gradients of every tensor that backward
    will reach were computed (None for the others).  ``mode="any"``: ``fn(grad)`` with the first one.
    """
    from . import engine as _engine

    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    lock = threading.Lock()
    if mode == "all":
        nodes = [gradient_edge(t._impl)[0] for t in tensors]  # held: a leaf's accumulator stays the same
        state: dict = {}  # graph task id -> [calls so far, expected calls, grads]

        def make(idx):
            def hook(grad):
                task = _engine.current_graph_task_id()
                if task == -1:
                    raise AssertionError("expected this hook to be called inside a backward call")
                with lock:
                    entry = state.get(task)
                    if entry is None:
                        expected = sum(map(_engine.will_execute_node, nodes))
                        entry = state[task] = [0, expected, [None] * len(nodes)]
                    entry[0] += 1
                    entry[2][idx] = grad
                    done = entry[0] == entry[1]
                    if done:
                        del state[task]
                if done:
                    fn(entry[2])
            return hook

        return _MultiHandle(tuple(t.register_hook(make(i)) for i, t in enumerate(tensors)))
    ran: set = set()

    def any_hook(grad):
        task = _engine.current_graph_task_id()
        if task == -1:
            raise AssertionError("expected this hook to be called inside a backward call")
        with lock:
            if task in ran:
                return
            ran.add(task)
        fn(grad)

    return _MultiHandle(tuple(t.register_hook(any_hook) for t in tensors if t.requires_grad))
