"""``make_fx``: trace a function into an aten-level FX graph — PyTorch's ``torch/fx/experimental/proxy_tensor.py``.

The tracer is a dispatch mode (:class:`ProxyTorchDispatchMode`) at the dispatcher's Python key, below Autograd
and below every ``CompositeImplicitAutograd`` decomposition, so what it records is exactly the operators that
would reach the backends: one ``call_function`` node per OpOverload call.  It keeps a map from each live
TensorImpl to the node that produced it; an operator's tensor arguments become those nodes, tensors it has
never seen (closed-over parameters and constants) become ``get_attr`` nodes of ``_param_constantN`` /
``_tensor_constantN`` attributes holding the real tensors, and every other argument is baked into the node as
a literal.  Multi-output operators get one ``operator.getitem`` node per element.  An in-place operator
returns its argument, which from then on maps to the in-place node.

With ``tracing_mode="fake"`` the inputs are first converted by one :class:`FakeTensorMode` that sits below the
tracer, so nothing is computed; with ``"real"`` the real kernels run.  Either way every tensor node carries
``meta["val"]`` (a FakeTensor snapshot of the value: shape, strides, dtype, device and storage aliasing) and
``meta["tensor_meta"]`` (a :class:`~glasstorch.fx.passes.shape_prop.TensorMetadata`).

Invariant: ``make_fx(f)(*args)(*flat_leaves(args))`` computes what ``f(*args)`` computed, with the same output
structure.
"""

from __future__ import annotations

import inspect
import operator

from ..._core.dispatch_key import AUTOGRAD_KEYS, tls
from ..._ops.dispatcher import Kernel
from ..._ops.schema import parse_default
from ..._ops_namespace import ops, to_impls, to_tensors
from ..._subclasses.fake_tensor import _BELOW_PYTHON_EXCLUDE, FakeTensor, FakeTensorMode, _new_fake
from ...nn.modules.module import Module
from ...nn.parameter import Parameter
from ...tensor import Tensor
from ...utils._python_dispatch import TorchDispatchMode
from ...utils._pytree import tree_flatten, tree_unflatten
from ..graph import Graph
from ..graph_module import GraphModule
from ..passes.shape_prop import _extract_tensor_metadata

__all__ = ["make_fx", "ProxyTorchDispatchMode", "tree_flatten", "tree_unflatten"]


def _plain(tree):
    """The output structure a graph returns: namedtuples become tuples (as PyTorch's make_fx graphs do)."""
    if isinstance(tree, (list, tuple)):
        items = [_plain(x) for x in tree]
        return tuple(items) if isinstance(tree, tuple) else items
    if isinstance(tree, dict):
        return {k: _plain(v) for k, v in tree.items()}
    return tree


class _BelowAutograd:
    """Calls made by a handler skip the layers the intercepted call already passed (Autograd, ADInplaceOrView,
    Autocast), as PyTorch's handlers run under ``AutoDispatchBelowADInplaceOrView``."""

    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = tls.excluded
        tls.excluded = self.prev | _BELOW_PYTHON_EXCLUDE

    def __exit__(self, *exc):
        tls.excluded = self.prev
        return False


_KWARG_DEFAULTS: dict = {}


def _kwarg_defaults(func) -> dict:
    """name -> default of ``func``'s keyword-only arguments (a node omits arguments left at their default)."""
    out = _KWARG_DEFAULTS.get(func.name)
    if out is None:
        out = {}
        for a in func._schema.arguments:
            if a.kwarg_only:
                out[a.name] = parse_default(a.default, a.type) if a.default is not None else None
        _KWARG_DEFAULTS[func.name] = out
    return out


class ProxyTorchDispatchMode(TorchDispatchMode):
    """Record every operator reaching the Python key into ``self.graph`` (``ProxyTorchDispatchMode``).

    Args:
        decomposition_table: OpOverload -> function; such an op is not recorded, its decomposition runs
            under the tracer instead, so its pieces are.
        fake_mode: the FakeTensorMode that snapshots values for ``meta["val"]``.
    """

    def __init__(self, decomposition_table=None, fake_mode=None):
        self.graph = Graph()
        self.decomposition_table = decomposition_table or {}
        self.fake_mode = fake_mode if fake_mode is not None else FakeTensorMode()
        self.tensor_nodes: dict = {}  # TensorImpl -> (the tensor, its current node); tensors are kept alive
        self.constants: dict = {}  # attribute name -> real tensor
        self.by_storage: dict = {}  # id(storage) -> [(impl, node)] in tracking order (storages kept alive above)
        self._n_tensor_constants = 0
        self._n_param_constants = 0

    # -- the graph's values --------------------------------------------------------------------------------
    def track(self, t: Tensor, node) -> None:
        """From now on ``t`` is the value of ``node``; fill the node's ``val`` and ``tensor_meta``."""
        self.tensor_nodes[t._impl] = (t, node)
        self.by_storage.setdefault(id(t._impl.storage), []).append((t._impl, node))
        node.meta["val"] = self.snapshot(t)
        node.meta["tensor_meta"] = _extract_tensor_metadata(t)

    def snapshot(self, t: Tensor) -> FakeTensor:
        """A detached fake with ``t``'s geometry now (fakes of one storage share a fake storage)."""
        impl = t._impl
        if isinstance(t, FakeTensor):
            mode, storage = t.fake_mode, impl.storage
        else:
            mode, storage = self.fake_mode, self.fake_mode.fake_tensor_converter.fake_storage(impl.storage)
        return _new_fake(mode, storage, impl.sizes, impl.strides, impl.offset, impl.dtype, impl.device)

    def node_of(self, t: Tensor):
        """The node whose value ``t`` is: tracked, an untracked alias of a tracked tensor (``detach()``, a saved
        output unpacked in backward: recorded as ``aten.detach``), or a new constant."""
        impl = t._impl
        entry = self.tensor_nodes.get(impl)
        if entry is not None:
            return entry[1]
        source = self._alias_source(impl)
        if source is not None:
            node = self.graph.call_function(ops.aten.detach.default, (source,), name="detach")
            self.track(t, node)
            return node
        return self._constant(t)

    def _alias_source(self, impl):
        for other, node in reversed(self.by_storage.get(id(impl.storage), ())):
            if (other.sizes == impl.sizes and other.strides == impl.strides and other.offset == impl.offset
                    and other.dtype is impl.dtype):
                return node
        return None

    def _constant(self, t: Tensor):
        if isinstance(t, FakeTensor):
            raise RuntimeError(f"make_fx: a FakeTensor of shape {tuple(t.shape)} is neither an input nor the result of "
                               f"a traced operator, so it cannot become a constant of the graph (it has no data)")
        if isinstance(t, Parameter):
            name = f"_param_constant{self._n_param_constants}"
            self._n_param_constants += 1
        else:
            name = f"_tensor_constant{self._n_tensor_constants}"
            self._n_tensor_constants += 1
        self.constants[name] = t
        node = self.graph.get_attr(name)
        self.track(t, node)
        return node

    def to_node_args(self, value):
        if isinstance(value, Tensor):
            return self.node_of(value)
        if isinstance(value, (list, tuple)):
            return type(value)(self.to_node_args(v) for v in value)
        return value

    # -- dispatch ----------------------------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        func = _canonical(func)
        decomp = self.decomposition_table.get(func)
        if decomp is not None:
            with self, _BelowAutograd():
                out = decomp(*args, **kwargs)
            if out is not NotImplemented:
                return out
        if func.name == "aten::lift_fresh":  # a factory's fresh tensor: a constant, copied on every run
            func = ops.aten.lift_fresh_copy.default
            node_args = (self._constant(args[0]),)
        else:
            node_args = self.to_node_args(args)
        defaults = _kwarg_defaults(func)
        node_kwargs = {k: self.to_node_args(v) for k, v in kwargs.items()
                       if not _same(v, defaults.get(k, _MISSING))}
        with _BelowAutograd():
            out = func(*args, **kwargs)
        if not _has_tensor(out) and not func._schema.is_mutable:
            return out  # a pure query (``_fused_sdp_choice``): Python consumed its value, the graph needs no node
        node = self.graph.call_function(func, node_args, node_kwargs, name=func.__name__.split(".")[0])
        self._track_output(out, node)
        return out

    def _track_output(self, out, node):
        if isinstance(out, Tensor):
            self.track(out, node)
            return
        if not isinstance(out, (list, tuple)):
            return
        node.meta["val"] = type(out)(self.snapshot(o) if isinstance(o, Tensor) else o for o in out)
        for i, o in enumerate(out):
            if isinstance(o, Tensor):
                self.track(o, self.graph.call_function(operator.getitem, (node, i)))


_MISSING = object()


def _has_tensor(value) -> bool:
    if isinstance(value, Tensor):
        return True
    return isinstance(value, (list, tuple)) and any(_has_tensor(v) for v in value)
_CANONICAL: dict = {}


def _canonical(func):
    """The OpOverload object of ``glasstorch.ops`` for ``func`` (generated code names it by that path)."""
    out = _CANONICAL.get(func.name)
    if out is None:
        ns, _, rest = func.name.partition("::")
        base, _, overload = rest.partition(".")
        out = _CANONICAL[func.name] = getattr(getattr(getattr(ops, ns), base), overload or "default")
    return out


def _same(value, default) -> bool:
    if default is _MISSING:
        return False
    return value is default or (type(value) is type(default) and value == default)


# aten::detach, which graphs record for Tensor.detach(), is declared with the Python dispatch layer (Note [detach]).


class _DecomposeImplicit:
    """While tracing, run the table's decomposition instead of the built-in one for ``CompositeImplicitAutograd``
    ops in ``decomposition_table`` (they decompose above the Python key, so the tracer never sees them): a kernel
    at each Autograd key for the duration of the trace (PyTorch uses its Python dispatcher for this)."""

    def __init__(self, table):
        self.installed = []
        for func, fn in (table or {}).items():
            handle = func._handle
            cia = handle.kernels.get("CompositeImplicitAutograd")
            if cia and not any(handle.kernels.get(k) for k in AUTOGRAD_KEYS):
                self.installed.append((handle, Kernel(_table_kernel(fn, cia[-1]), label=f"make_fx:{func}")))

    def __enter__(self):
        for handle, kernel in self.installed:
            for key in AUTOGRAD_KEYS:
                handle.register(key, kernel)
        return self

    def __exit__(self, *exc):
        for handle, kernel in self.installed:
            for key in AUTOGRAD_KEYS:
                handle.deregister(key, kernel)
        return False


def _table_kernel(fn, builtin):
    def kernel(*args, **kwargs):
        out = fn(*to_tensors(args), **{k: to_tensors(v) for k, v in kwargs.items()})
        if out is NotImplemented:  # the decomposition declines: the op's own CompositeImplicitAutograd kernel
            return builtin.fn(*args, **kwargs)
        return to_impls(out)
    return kernel


# -- make_fx -------------------------------------------------------------------------------------------------
def _placeholder_names(f, args) -> list:
    """PyTorch's names: ``<param>_<k>`` per leaf of each named parameter, ``arg<i>_<k>`` otherwise."""
    params = []
    if not isinstance(f, Module):
        try:
            params = [p for p in inspect.signature(f).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = []
    names = []
    for i, a in enumerate(args):
        base = params[i].name if i < len(params) else f"arg{i}"
        n = len(tree_flatten(a)[0])
        names += [f"{base}_{k + 1}" for k in range(n)]
    return names


def make_fx(f, decomposition_table=None, tracing_mode: str = "real", _allow_non_fake_inputs: bool = False,
            *, pre_dispatch: bool = False, record_module_stack: bool = False, _allow_fake_constant: bool = False,
            _error_on_data_dependent_ops: bool = True):
    """Trace ``f`` into an aten-level :class:`~glasstorch.fx.GraphModule` (``torch.fx.experimental.proxy_tensor``).

    Args:
        f: the function (or module) to trace.
        decomposition_table: OpOverload -> python function run in place of that op (its pieces are recorded;
            for a ``CompositeImplicitAutograd`` op it replaces the built-in decomposition; returning
            ``NotImplemented`` declines).
        tracing_mode: ``"real"`` runs the real kernels on the given inputs; ``"fake"`` converts the inputs to
            FakeTensors first and computes nothing.

    Returns:
        A function taking ``f``'s arguments (nested lists/tuples/dicts allowed) and returning the GraphModule,
        whose ``forward`` takes one argument per leaf of those arguments and returns ``f``'s output structure.

    Raises:
        ValueError: for a tracing mode other than ``"real"`` or ``"fake"``.

    Example:
        >>> import glasstorch as torch
        >>> gm = make_fx(lambda x: torch.relu(x) + 1)(torch.randn(3))
        >>> [n.name for n in gm.graph.nodes]
        ['x_1', 'relu', 'add', 'output']
    """
    if tracing_mode not in ("real", "fake"):
        raise AssertionError(f"Unexpected tracing type: {tracing_mode}" if tracing_mode != "symbolic" else
                             "tracing_mode='symbolic' (dynamic shapes) is not supported; use 'real' or 'fake'")

    def wrapped(*args):
        return _trace(f, args, decomposition_table, tracing_mode)
    return wrapped


def _trace(f, args, decomposition_table, tracing_mode) -> GraphModule:
    leaves, spec = tree_flatten(list(args))
    fake_mode = None
    if tracing_mode == "fake":  # inputs that are fakes already bring their mode (PyTorch's detect_fake_mode)
        fake_mode = next((x.fake_mode for x in leaves if isinstance(x, FakeTensor)), None) or FakeTensorMode()
    if fake_mode is not None:
        leaves = [fake_mode.from_tensor(x) if isinstance(x, Tensor) else x for x in leaves]
    tracer = ProxyTorchDispatchMode(decomposition_table, fake_mode)
    for name, leaf in zip(_placeholder_names(f, args), leaves, strict=True):
        node = tracer.graph.placeholder(name)
        if isinstance(leaf, Tensor):
            tracer.track(leaf, node)
    inputs = tree_unflatten(leaves, spec)
    with _DecomposeImplicit(decomposition_table):
        if fake_mode is not None:
            with fake_mode, tracer:
                out = f(*inputs)
        else:
            with tracer:
                out = f(*inputs)
    out_leaves, out_spec = tree_flatten(out)
    out_nodes = [tracer.node_of(x) if isinstance(x, Tensor) else x for x in out_leaves]
    tracer.graph.output(_plain(tree_unflatten(out_nodes, out_spec)))
    return GraphModule(dict(tracer.constants), tracer.graph)
