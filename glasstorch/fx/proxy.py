"""Proxies — PyTorch's ``torch/fx/proxy.py``: values that record what is done to them.

During symbolic tracing each input is a :class:`Proxy` wrapping a placeholder Node.  Every operation on a
Proxy appends a Node to the tracer's graph and returns a new Proxy:

* Python operators (``x + 1``, ``x[0]``, ``-x``, ``x @ w``) -> ``call_function`` on ``operator.*``;
* attribute access (``x.shape``) -> ``call_function`` on ``getattr``; a method call (``x.relu()``) ->
  ``call_method``;
* ``glasstorch.*`` functions -> ``call_function`` through the ``__torch_function__`` protocol
  (``glasstorch/overrides.py``: a binding that cannot parse a Proxy hands the call to
  :meth:`Proxy.__torch_function__`).

What cannot be recorded raises: a Proxy used as a condition (``if x.sum() > 0``) raises :class:`TraceError`
"symbolically traced variables cannot be used as inputs to control flow"; iterating one raises TraceError,
except for tuple unpacking (``B, T = x.shape``); ``len(proxy)`` raises RuntimeError.

Invariant: a Proxy never holds data; everything about the value lives in its Node.
"""

from __future__ import annotations

import collections
import copy
import dis
import enum
import inspect
import operator
import traceback
from bisect import bisect_left

from .._core.device import device
from .._core.dtype import dtype
from .._core.layout import layout, memory_format
from .._ops_namespace import OpOverload
from ..overrides import is_tensor_method_or_property
from ..tensor import Tensor
from ._codegen import magic_methods, reflectable_magic_methods
from .graph import Graph
from .node import Node, map_aggregate

__all__ = ["TracerBase", "GraphAppendingTracer", "TraceError", "Proxy", "Attribute", "ParameterProxy", "Scope",
           "ScopeContextManager"]


class TraceError(ValueError):
    """A value-dependent operation met a Proxy during symbolic tracing."""


class Scope:
    """The module path and type of the module whose ``forward`` is being traced."""

    def __init__(self, module_path: str, module_type) -> None:
        self.module_path = module_path
        self.module_type = module_type


class ScopeContextManager:
    """Set the tracer's scope for the duration of a module call, then restore it."""

    def __init__(self, scope: Scope, current_scope: Scope) -> None:
        self._prev = copy.copy(scope)
        scope.module_path = current_scope.module_path
        scope.module_type = current_scope.module_type
        self._scope = scope

    def __enter__(self) -> Scope:
        return self._scope

    def __exit__(self, *exc) -> None:
        self._scope.module_path = self._prev.module_path
        self._scope.module_type = self._prev.module_type


class TracerBase:
    """What a Proxy needs from its tracer: a graph, node creation and the hooks for untraceable uses."""

    graph: Graph
    record_stack_traces: bool = False
    check_mutable_operations: bool = False
    trace_asserts: bool = False
    proxy_buffer_attributes: bool = False
    traced_func_name: str = "forward"
    scope: Scope
    module_stack: collections.OrderedDict

    def create_node(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                    type_expr=None) -> Node:
        """Insert a node (override to check or rewrite what gets recorded)."""
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        if self.module_stack:
            node.meta["nn_module_stack"] = copy.copy(self.module_stack)
        if self.record_stack_traces and not node.stack_trace:
            node.stack_trace = _user_stack()
        return node

    def proxy(self, node: Node) -> Proxy:
        return Proxy(node, self)

    def create_proxy(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                     type_expr=None, proxy_factory_fn=None) -> Proxy:
        """Create a node from Python values (Proxies become their Nodes) and return its Proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return proxy_factory_fn(node) if proxy_factory_fn else self.proxy(node)

    def create_arg(self, a):
        """Lower a Python value met as an argument into something a Node can hold.

        Raises:
            NotImplementedError: ``argument of type: <type>`` for values a graph cannot hold.
        """
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple):
            if hasattr(a, "_fields"):
                return type(a)(*[self.create_arg(e) for e in a])
            return type(a)([self.create_arg(e) for e in a])
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            return self._create_arg_dict(a)
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if _is_base_value(a):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def _create_arg_dict(self, a: dict) -> dict:
        out = {}
        for k, v in a.items():
            if not isinstance(k, str):
                k = self.create_arg(k)
                map_aggregate(k, _no_nodes_in_keys)
            out[k] = self.create_arg(v)
        return out

    def to_bool(self, obj: Proxy) -> bool:
        """A Proxy used as a condition: unknown without a value, so this raises (a subclass may decide)."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: Proxy):
        """A Proxy iterated over: its length is unknown, so this raises (a subclass may decide)."""
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or "
                         "as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more "
                         "detailed explanation of what types of control flow can be traced, and check out the Proxy "
                         "docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj: Proxy) -> Proxy:
        """``**proxy``: records ``proxy.keys()``."""
        return Attribute(obj, "keys")()


def _no_nodes_in_keys(x):
    if isinstance(x, Node):
        raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {x}")
    return x


# values a Node argument may hold as they are (PyTorch's ``base_types``)
_BASE_TYPES = (str, int, float, bool, complex, dtype, Tensor, device, memory_format, layout, OpOverload, type(None),
               type(...), enum.Enum)


def _is_base_value(a) -> bool:
    return isinstance(a, _BASE_TYPES)


def _user_stack() -> str:
    """The stack of the user code being traced (frames outside glasstorch), PyTorch's stack-trace format."""
    frames = [f for f in traceback.extract_stack()[:-1] if "/glasstorch/" not in f.filename.replace("\\", "/")]
    return "".join(traceback.format_list(frames)).strip()


class GraphAppendingTracer(TracerBase):
    """A tracer that appends to an existing graph (for Proxies made around existing nodes)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope: dict = {}


class Proxy:
    """A stand-in for a value during symbolic tracing; operations on it become Nodes of the tracer's graph.

    Example:
        >>> import glasstorch.fx as fx
        >>> gm = fx.symbolic_trace(lambda x: x.relu() + 1)
        >>> print(gm.code.strip())
        def forward(self, x):
            relu = x.relu();  x = None
            add = relu + 1;  relu = None
            return add
    """

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        if k.startswith("__") and k.endswith("__"):  # copy/pickle probe dunders; they are not tensor attributes
            raise AttributeError(k)
        return Attribute(self, k)

    def __getstate__(self) -> dict:
        return self.__dict__

    def __setstate__(self, d: dict) -> None:
        self.__dict__ = d

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        insts = list(dis.get_instructions(frame.f_code))
        inst = insts[bisect_left(insts, frame.f_lasti, key=lambda x: x.offset)]
        if inst.opname == "UNPACK_SEQUENCE":  # a, b = proxy: the count is in the bytecode
            return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __abs__(self) -> Proxy:
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def keys(self) -> Proxy:
        return self.tracer.keys(self)

    def __len__(self) -> int:
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None) -> Proxy:
        """A glasstorch function or Tensor method called with Proxies: record it."""
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers: dict = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None
            return a

        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while trying to trace operations "
                               f"{orig_method}")
        tracer = next(iter(tracers))
        if is_tensor_method_or_property(orig_method):
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs,
                                   name=tracer.graph._target_to_str(orig_method.__name__))


class Attribute(Proxy):
    """``proxy.attr``: a ``getattr`` node, created only if the attribute is used as a value, not called."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self) -> Node:
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


class ParameterProxy(Proxy):
    """A parameter's Proxy whose shape queries answer from the real parameter (``param_shapes_constant``)."""

    def __init__(self, tracer: TracerBase, node: Node, name: str, param) -> None:
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self) -> str:
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self):
        return self.param.size()

    def dim(self) -> int:
        return self.param.dim()

    @property
    def ndim(self) -> int:
        return self.param.ndim

    def numel(self) -> int:
        return self.param.numel()

    def nelement(self) -> int:
        return self.param.nelement()


def _define_magic(method: str) -> None:
    def impl(*args, **kwargs):
        return args[0].tracer.create_proxy("call_function", getattr(operator, method), args, kwargs)
    impl.__name__ = method
    setattr(Proxy, f"__{method.strip('_')}__", impl)


# ``tensor <op> proxy``: the Tensor operator declines a Proxy and Python calls the Proxy's reflected method.
# PyTorch records these as the Tensor's method (``__torch_function__`` sees ``Tensor.sub``), so do we.
_TENSOR_LHS_METHODS = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "div": "div",
                       "floordiv": "__floordiv__", "mod": "remainder", "pow": "pow", "matmul": "matmul",
                       "and_": "__and__", "or_": "__or__", "xor": "__xor__", "lshift": "__lshift__",
                       "rshift": "__rshift__"}


def _define_reflectable(method: str) -> None:
    name = f"__r{method.strip('_')}__"

    def impl(self, rhs):
        if isinstance(rhs, Tensor) and method in _TENSOR_LHS_METHODS:
            return self.tracer.create_proxy("call_method", _TENSOR_LHS_METHODS[method], (rhs, self), {})
        return self.tracer.create_proxy("call_function", getattr(operator, method), (rhs, self), {})
    impl.__name__ = name
    impl.__qualname__ = name
    setattr(Proxy, name, impl)


# set after the class exists, so that defining __eq__ does not drop Proxy's identity hash
for _method in magic_methods:
    _define_magic(_method)
for _method in reflectable_magic_methods:
    _define_reflectable(_method)
del _method
