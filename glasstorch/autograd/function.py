"""Custom autograd Functions — PyTorch's ``torch/autograd/function.py`` over ``python_function.cpp``.

A subclass of :class:`Function` declares a static ``forward`` (either ``forward(ctx, *args)``, or
``forward(*args)`` plus ``setup_context(ctx, inputs, output)``) and a static ``backward(ctx, *grads)``.
``MyFn.apply(*args)``:

1. builds the context, which *is* the backward node: an instance of ``MyFnBackward`` (a
   :class:`BackwardCFunction`, created with the class by :class:`FunctionMeta`);
2. runs forward (and setup_context) with grad mode off;
3. if grad mode is on and a tensor input requires grad, points the node's edges at the tensor inputs'
   gradient edges and makes the differentiable outputs its outputs: an input returned unchanged comes
   back as a view of it, a ``mark_dirty`` input is rebased onto the node, ``mark_non_differentiable``
   and integer outputs get no history;
4. saves what ``save_for_backward`` named as version-checked :class:`SavedTensor` s.

In backward the engine calls the node with one gradient per forward output (undefined ones become
zeros unless ``set_materialize_grads(False)``); the user's backward returns one gradient per forward
argument, None for non-tensors.

Invariant: the node's ``next_edges`` has one entry per *tensor* argument, in order.
"""

from __future__ import annotations

import functools
import inspect
import warnings

from .._core.grad_state import forward_levels
from .._ops.factories import full_impl
from .._tensor.impl import AutogradMeta, CreationMeta, TensorImpl
from . import graph as _graph
from .anomaly_mode import is_anomaly_enabled, record_forward_stack
from .basic_ops import Error
from .forward_grad import fw_grad, fw_view_base, set_fw_grad
from .grad_mode import state as _grad_state
from .graph import NodeBase, SavedTensor, collect_next_edges, requires_grad, set_history
from .node_support import check_inplace
from .view_history import rebase_history

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "FunctionMeta", "InplaceFunction", "once_differentiable"]

_ACCESSED_ONCE = ("saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on the "
                  "autograd.Function. Either access saved_tensors only once, or set "
                  "clear_saved_tensors_on_access=False.")
# Note [Cleared on access]: a Function class with ``clear_saved_tensors_on_access = True`` gives up its saved
# tensors the first time ``ctx.saved_tensors`` is read (in forward, before backward, or in backward), so a backward
# that deletes its locals frees them before the node ends; a second read raises, and ``_raw_saved_tensors`` is then
# empty, as in PyTorch's THPFunction_saved_tensors.
_LEGACY_CALL = ("Legacy autograd function with non-static forward method is deprecated. Please use new-style "
                "autograd function with static forward method. (Example: "
                "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")


def _impl_of(x):
    """The TensorImpl behind a public Tensor, or None for anything else."""
    impl = getattr(x, "_impl", None)
    return impl if type(impl) is TensorImpl else None


class _NoGrad:
    """Grad mode off for a block, without the decorator machinery (the hot path of ``apply``)."""

    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = _grad_state.enabled
        _grad_state.enabled = False

    def __exit__(self, *exc):
        _grad_state.enabled = self.prev


class FunctionCtx:
    """What ``forward``/``setup_context`` may record for ``backward`` (``torch.autograd.function.FunctionCtx``)."""

    def save_for_backward(self, *tensors):
        """Save tensors (or None) for backward; read them back with ``ctx.saved_tensors``."""
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Save tensors for a ``jvp`` (forward-mode AD)."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Declare inputs modified in place by forward (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Declare outputs that get no gradient (``requires_grad=False``)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool):
        """Whether undefined output gradients reach backward as zeros (default) or as None."""
        self.materialize_grads = bool(value)


class BackwardCFunction(NodeBase, FunctionCtx):
    """The node (and ctx) of one ``Function.apply`` call; subclassed per Function as ``<Name>Backward``."""

    _forward_cls = None
    _undefined_gives_undefined = False  # backward sees zeros (or None without materialize_grads)

    def __init__(self):
        NodeBase.__init__(self)
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self._materialize_non_diff_grads = True  # False: a non-differentiable output's missing grad stays None
        self._non_diff_outputs = frozenset()
        self.needs_input_grad = ()
        self._is_tensor_input = ()
        self._output_info = []  # per forward output: (sizes, dtype, device) of a tensor, else None
        self._saved = None  # the SavedTensors, once forward has finished (executable calls only)
        self._saved_cleared = False  # read once under clear_saved_tensors_on_access

    __repr__ = object.__repr__  # a Python class in PyTorch: "<module.MyFnBackward object at 0x...>"

    def __call__(self, *args):  # PyTorch's PyNode has no Python call (``apply`` runs the user's backward)
        raise TypeError(f"'{type(self).__name__}' object is not callable")

    # -- saved tensors ------------------------------------------------------------------------------
    @property
    def saved_tensors(self) -> tuple:
        if self.__dict__.get("_in_jvp"):  # inside jvp: what forward gave save_for_forward, as PyTorch's
            return tuple(self.__dict__.get("saved_for_forward", ()))
        clear = getattr(self._forward_cls, "clear_saved_tensors_on_access", False)
        if clear:
            if self._saved_cleared:
                raise RuntimeError(_ACCESSED_ONCE)
            self._saved_cleared = True
        if self._saved is None:
            return tuple(self.to_save)
        name = self.name()
        out = tuple(None if (impl := s.unpack_impl(name)) is None else _graph.to_tensor(impl) for s in self._saved)
        if clear:  # the node lets go: the caller's locals are then the only references (Note [Cleared on access])
            self._saved = []
        return out

    @property
    def _raw_saved_tensors(self) -> tuple:
        """The SavedTensor objects themselves (hooks may be registered on them before backward)."""
        if self._released:
            raise RuntimeError(_graph._BACKWARD_TWICE)
        return tuple(self._saved or ())

    @property
    def saved_variables(self) -> tuple:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def release_variables(self) -> None:
        self._released = True
        if self._saved:
            for s in self._saved:
                s.release()

    # -- backward --------------------------------------------------------------------------------------
    def _user_backward(self):
        cls = self._forward_cls
        backward_fn, vjp_fn = cls.backward, cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                               "should only implement one of them.")
        return vjp_fn if vjp_fn is not Function.vjp else backward_fn

    def apply(self, grads, *more):
        """Engine entry: gradients (impls) of the forward outputs -> gradients of the tensor inputs.

        Called with public Tensors instead (``grad_fn.apply(g1, g2)``), it runs the user's backward directly, as
        PyTorch's ``BackwardCFunction.apply`` does (a ``boxed_grads_call`` Function gets them as one list).
        """
        if more or not (isinstance(grads, list) and all(g is None or type(g) is TensorImpl for g in grads)):
            args = (grads, *more)
            if getattr(self._forward_cls, "boxed_grads_call", False):
                args = (list(args),)
            return self._user_backward()(self, *args)
        n_out = max(len(self._output_info), len(grads))
        args = []
        for i in range(n_out):
            g = grads[i] if i < len(grads) else None
            info = self._output_info[i] if i < len(self._output_info) else None
            if g is None and info is not None and self.materialize_grads and (
                    self._materialize_non_diff_grads or i not in self._non_diff_outputs):
                g = full_impl(info[0], 0, info[1], info[2])
            args.append(None if g is None else _graph.to_tensor(g))
        if getattr(self._forward_cls, "boxed_grads_call", False):  # backward(ctx, grads): one list it may empty
            result = self._user_backward()(self, args)
        else:
            result = self._user_backward()(self, *args)
        return self._check_grads(result)

    def _check_grads(self, result) -> list:
        if not isinstance(result, tuple):
            result = (result,)
        n_in = len(self._is_tensor_input)
        if len(result) != n_in:
            if len(result) > n_in and all(r is None for r in result[n_in:]):
                result = result[:n_in]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                                   f"{n_in}, got {len(result)})")
        out = []
        for i, (g, is_tensor) in enumerate(zip(result, self._is_tensor_input, strict=False)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                       f"{i + 1}, but the corresponding forward input was not a Variable")
                continue
            if g is None:
                out.append(None)
                continue
            impl = _impl_of(g)
            if impl is None:
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            out.append(impl)
        return out


class FunctionMeta(type):
    """Creates ``<Name>Backward``, the node class of every Function subclass (PyTorch's ``FunctionMeta``)."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = __name__
        backward_cls.__qualname__ = name + "Backward"
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


def _setup_context_defined(cls) -> bool:
    return cls.setup_context is not Function.setup_context


def _kwargs_to_args(forward, args, kwargs) -> tuple:
    """Keyword arguments naming positional parameters of ``forward(ctx, ...)`` become positional (in order)."""
    if not kwargs:
        return args
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [p.name for p in list(inspect.signature(forward).parameters.values())[1:] if p.kind in kinds]
    out = list(args)
    rest = dict(kwargs)
    for name in names[:len(args)]:
        if name in rest:
            raise TypeError(f"forward() got multiple values for argument '{name}'")
    for name in names[len(args):]:
        if name not in rest:
            break
        out.append(rest.pop(name))
    if rest:
        raise TypeError(f"forward() got an unexpected keyword argument '{next(iter(rest))}'")
    return tuple(out)


def _bind_default_args(func, args, kwargs) -> tuple:
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise ValueError("This function doesn't support keyword only arguments")
    return bound.args


class Function(NodeBase, FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom differentiable operations (``torch.autograd.Function``).

    An instance (deprecated) has a node's methods, as PyTorch's ``_C._FunctionBase`` gives them, but is not a
    ``torch.autograd.graph.Node``."""

    generate_vmap_rule = False
    clear_saved_tensors_on_access = False  # True: ctx.saved_tensors may be read once (Note [Cleared on access])
    _is_graph_node = False

    def __init__(self, *args, **kwargs):
        NodeBase.__init__(self)
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(_LEGACY_CALL)

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap "
                                  "staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward and, when gradients are wanted, record a ``<Name>Backward`` node for the outputs."""
        with_setup = _setup_context_defined(cls)
        args = _bind_default_args(cls.forward, args, kwargs) if with_setup else _kwargs_to_args(cls.forward, args,
                                                                                                 kwargs)
        ctx = cls._backward_cls()
        impls = [_impl_of(a) for a in args]
        ctx._is_tensor_input = tuple(i is not None for i in impls)
        ctx.needs_input_grad = tuple(i is not None and requires_grad(i) for i in impls)
        tensor_impls = [i for i in impls if i is not None]
        executable = _grad_state.enabled and any(ctx.needs_input_grad)
        if executable:
            ctx.next_edges = collect_next_edges(*tensor_impls)
        tangents = [fw_grad(i) for i in impls] if forward_levels.level >= 0 else None
        fw_mode, _grad_state.fw_grad_mode = _grad_state.fw_grad_mode, False  # forward sees no tangents
        try:
            with _NoGrad():
                if with_setup:
                    output = cls.forward(*args)
                    cls.setup_context(ctx, args, output)
                else:
                    output = cls.forward(ctx, *args)
        finally:
            _grad_state.fw_grad_mode = fw_mode
        dirty, non_diff = _marked(ctx)
        result = _wrap_outputs(ctx, tensor_impls, output, executable, dirty, non_diff)
        if tangents is not None and any(t is not None for t in tangents):
            _forward_mode_ad(cls, ctx, impls, tangents, output, result, dirty, non_diff)
        if executable:
            _save_variables(ctx, result)
            if is_anomaly_enabled():
                record_forward_stack(ctx)
        else:
            ctx.to_save = ()
        return result

    @staticmethod
    def _compiled_autograd_key(ctx):
        return (ctx._autograd_function_id,)


class InplaceFunction(Function):
    """A Function with an ``inplace`` flag (``torch.autograd.function.InplaceFunction``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


def _view_as_self(out):
    """An input returned as-is comes back as ``out.view_as(out)``, made without recording (PyTorch's
    ``_view_as_self_with_no_grad``) through the public method, so that a subclass's ``__torch_function__`` runs
    and the result keeps its class."""
    fw_mode, _grad_state.fw_grad_mode = _grad_state.fw_grad_mode, False
    try:
        with _NoGrad():
            return out.view_as(out)
    finally:
        _grad_state.fw_grad_mode = fw_mode


_VIEW_DIRTY_MULTI = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more "
    "than one Tensor. This is not supported by the current autograd engine. You should either make sure the input "
    "is not a view (using .clone() for example) or make your Function only return one Tensor (potentially "
    "splitting it into two Functions: one doing the inplace that returns a single Tensor and a second one that "
    "does the other operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")
_DIRTY_NOT_INPUT = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been "
                    "mutated should be passed to ctx.mark_dirty().")
_PURE_VIEW = ("Pure view custom Function can only have one input Tensor and one output Tensor. Open an issue if you "
              "need to support more.")


def _set_creation(impl: TensorImpl, creation) -> None:
    """Mark how an output view was created (PyTorch's ``set_creation_meta``), giving it metadata if it had none."""
    meta = impl.autograd
    if meta is None:
        meta = impl.autograd = AutogradMeta()
        meta.version_at_grad_fn = impl.version.version
    meta.creation_meta = creation


def _rebase_dirty(ctx, impl: TensorImpl, i: int, is_input: bool, n_outputs: int) -> None:
    """A differentiable output marked dirty: the in-place write's checks, then ``ctx`` becomes its history."""
    meta = impl.autograd
    if meta is not None and meta.requires_grad and meta.grad_fn is None and impl.base is None:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    if not is_input:
        if impl.base is not None:  # a view of an intermediate
            raise RuntimeError(_DIRTY_NOT_INPUT)
        warnings.warn(_DIRTY_NOT_INPUT, stacklevel=4)
    if impl.base is None:
        set_history(impl, ctx, i)
        return
    if n_outputs > 1:
        raise RuntimeError(_VIEW_DIRTY_MULTI)
    check_inplace(impl)
    rebase_history(impl, ctx)  # the base's history becomes CopySlices(ctx)


def _marked(ctx) -> tuple:
    """The ids of the impls forward marked dirty and non-differentiable.  PyTorch drops the marked tensors from the
    ctx here: they would keep the tensors alive as long as the graph (a saved dirty view would leak)."""
    dirty = {id(i) for t in (ctx.dirty_tensors or ()) if (i := _impl_of(t)) is not None}
    non_diff = {id(i) for t in (ctx.non_differentiable or ()) if (i := _impl_of(t)) is not None}
    ctx.dirty_tensors = ctx.non_differentiable = None
    return dirty, non_diff


def _wrap_outputs(ctx, input_impls, output, executable, dirty, non_diff):
    """PyTorch's ``_wrap_outputs``: give the outputs their history (or none) and remember their metadata.  An
    output view (also an input returned as-is) may not be modified in place later (``IN_CUSTOM_FUNCTION``), unless
    the Function declared itself a pure view (``ctx._is_pure_view``); views among several differentiable outputs
    are ``MULTI_OUTPUT_NODE``."""
    is_tuple = isinstance(output, tuple)
    outputs = output if is_tuple else (output,)
    pure_view = bool(getattr(ctx, "_is_pure_view", False))
    if pure_view and (len(input_impls) != 1 or len(outputs) != 1):
        raise RuntimeError(_PURE_VIEW)
    inputs = {id(i) for i in input_impls}
    wrapped = []
    info = []
    non_diff_outputs = set()
    returned = set()
    for i, out in enumerate(outputs):
        impl = _impl_of(out)
        if impl is None:
            wrapped.append(out)
            info.append(None)
            continue
        returned.add(id(impl))
        is_input = id(impl) in inputs
        is_modified = id(impl) in dirty
        if is_modified:
            impl.version.bump()  # marking dirty counts as a write, with or without history
        differentiable = executable and id(impl) not in non_diff and (
            impl.dtype.is_floating_point or impl.dtype.is_complex)
        pub = None
        if not differentiable:
            non_diff_outputs.add(i)
            if not requires_grad(impl):
                if is_input and not is_modified:
                    pub = _view_as_self(out)
                    impl = _impl_of(pub)
            elif is_input:
                impl = impl.view_impl(impl.sizes, impl.strides, impl.offset)  # a detached alias
            elif impl.base is None:  # detach_(); a view of an input keeps requiring grad, as under no_grad
                impl.autograd.requires_grad = False
                impl.autograd.grad_fn = None
        elif is_modified:
            _rebase_dirty(ctx, impl, i, is_input, len(outputs))
        elif is_input:
            pub = _view_as_self(out)
            impl = _impl_of(pub)
            set_history(impl, ctx, i)
        else:
            set_history(impl, ctx, i)
        if not (is_input and is_modified) and impl.base is not None:
            _set_creation(impl, None if pure_view else CreationMeta.IN_CUSTOM_FUNCTION)
        info.append((impl.sizes, impl.dtype, impl.device))
        wrapped.append(pub if pub is not None else _graph.to_tensor(impl) if impl is not _impl_of(out) else out)
    if len(outputs) - len(non_diff_outputs) - info.count(None) > 1:
        for w in wrapped:
            if (impl := _impl_of(w)) is not None and impl.base is not None:
                _set_creation(impl, CreationMeta.MULTI_OUTPUT_NODE)
    if not dirty <= returned:
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. "
                           "The inputs that are modified inplace must all be outputs of the Function.")
    while len(ctx.input_meta) < len(outputs):
        ctx.input_meta.append(None)
    ctx._output_info = info
    ctx._non_diff_outputs = frozenset(non_diff_outputs)
    return tuple(wrapped) if is_tuple else wrapped[0]


def _jvp_inputs(ctx, impls, tangents) -> list:
    """The tangents ``jvp`` sees: None for non-tensors; a differentiable input without a tangent gets zeros
    unless ``set_materialize_grads(False)``."""
    out = []
    for impl, t in zip(impls, tangents, strict=True):
        if t is None and impl is not None and ctx.materialize_grads and (
                impl.dtype.is_floating_point or impl.dtype.is_complex):
            t = full_impl(impl.sizes, 0, impl.dtype, impl.device)
        out.append(None if t is None else _graph.to_tensor(t))
    return out


def _forward_mode_ad(cls, ctx, impls, tangents, raw, result, dirty, non_diff) -> None:
    """PyTorch's ``_process_forward_mode_AD``: the outputs' tangents from the user's ``jvp`` (one tangent or None
    per forward input), with forward grad mode off while it runs."""
    versions = [None if t is None else t.version.version for t in tangents]
    ctx._in_jvp, fw_mode, _grad_state.fw_grad_mode = True, _grad_state.fw_grad_mode, False
    try:
        grads = cls.jvp(ctx, *_jvp_inputs(ctx, impls, tangents))
    finally:
        ctx._in_jvp, _grad_state.fw_grad_mode = False, fw_mode
    grads = grads if isinstance(grads, tuple) else (grads,)
    outs, raws = (result, raw) if isinstance(result, tuple) else ((result,), (raw,))
    if len(grads) != len(outs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected {len(outs)} "
                           f"but got {len(grads)})")
    bases = {}  # PyTorch's inputs_bases: each tensor input's forward-view base (or itself) -> its position
    for k, x in enumerate(impls):
        if x is not None:
            bases[id(fw_view_base(x) or x)] = k
    for i, (out, raw_out, g) in enumerate(zip(outs, raws, grads, strict=True)):
        impl, raw_impl = _impl_of(out), _impl_of(raw_out)
        if impl is None or id(raw_impl) in non_diff or not (impl.dtype.is_floating_point or impl.dtype.is_complex):
            if g is not None:
                raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the corresponding "
                                   "forward output is not a differentiable Tensor.You should return None at that "
                                   "position instead.")
            continue
        if g is None:
            continue
        if id(raw_impl) in dirty:
            _dirty_tangent(impl, g._impl, impls, tangents, versions)
            continue
        out_base = fw_view_base(impl)
        k = bases.get(id(out_base)) if out_base is not None else None
        if k is not None:
            if tangents[k] is None:  # a view of an input without a tangent: set as an in-place op would
                set_fw_grad(impl, g._impl, 0, True)
                return  # PyTorch's loop stops here too
            _check_view_tangent(g._impl, tangents[k])
        set_fw_grad(impl, g._impl, 0, False)


def _check_view_tangent(g, input_tangent) -> None:
    """An output that is a view of an input (or the input as is) needs a tangent that is a view of the same base
    as that input's tangent."""
    g_base = fw_view_base(g)
    if g_base is None:
        raise RuntimeError("A custom Function's forward is returning a view (or an input as-is) but the jvp is not "
                           "returning a view.")
    in_base = fw_view_base(input_tangent)
    if in_base is not None:
        if in_base is not g_base:
            raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the "
                               "same base as the given grad input.")
    elif input_tangent is not g_base:
        raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the given "
                           "grad input.")


def _dirty_tangent(impl, g, impls, tangents, versions) -> None:
    """An input modified in place: its tangent must have been modified in place too and returned as is."""
    k = next(k for k, x in enumerate(impls) if x is impl)
    if tangents[k] is None:
        set_fw_grad(impl, g, 0, True)
        return
    if g.version.version == versions[k]:
        raise RuntimeError("An inplace custom Function is not modifying the forward mode gradients inplace. If the "
                           "forward is modifying an input inplace, then the jvp function must modify the "
                           "corresponding gradient inplace.")
    if g is not tangents[k]:
        raise RuntimeError("An inplace custom Function is not returning the forward mode gradients as-is. If the "
                           "forward is modifying an input inplace, then the jvp function must modify the gradient "
                           "inplace and return it as-is.")


def _save_variables(ctx, result) -> None:
    outs = result if isinstance(result, tuple) else (result,)
    out_ids = {id(i) for o in outs if (i := _impl_of(o)) is not None}
    saved = []
    for i, t in enumerate(ctx.to_save or ()):
        if t is None:
            saved.append(SavedTensor(None))
            continue
        impl = _impl_of(t)
        if impl is None:
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                            f"{type(t).__name__}")
        saved.append(SavedTensor(impl, is_output=id(impl) in out_ids))
    ctx._saved = saved
    ctx.to_save = ()


# -- once_differentiable -----------------------------------------------------------------------------------
_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


def _delayed_error(msg: str, values: tuple) -> tuple:
    """Outputs equal to ``values`` whose gradient raises ``msg`` (PyTorch's ``DelayedError``)."""
    node = Error(msg)
    fakes = []
    for v in values:
        impl = _impl_of(v)
        if impl is None:
            fakes.append(None)
            continue
        fake = impl.view_impl(impl.sizes, impl.strides, impl.offset)
        fake.autograd = AutogradMeta(requires_grad=True)
        fakes.append(fake)
    node.next_edges = collect_next_edges(*fakes)
    out = []
    for i, fake in enumerate(fakes):
        if fake is None:
            out.append(None)
            continue
        res = fake.view_impl(fake.sizes, fake.strides, fake.offset)
        set_history(res, node, i)
        out.append(_graph.to_tensor(res))
    return tuple(out)


def once_differentiable(fn):
    """Decorate a ``backward`` that is not itself differentiable: double backward through it raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _NoGrad():
            outputs = fn(ctx, *args)
        if not _grad_state.enabled:
            return outputs
        if not any((impl := _impl_of(a)) is not None and requires_grad(impl) for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        res = _delayed_error(_TWICE, (outputs,) if single else outputs)
        return res[0] if single else res

    return wrapper
