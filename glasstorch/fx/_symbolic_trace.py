"""Symbolic tracing — PyTorch's ``torch/fx/_symbolic_trace.py``: run ``forward`` on Proxies, record a Graph.

``Tracer.trace(root)`` makes one placeholder per parameter of ``forward`` (or of the function), runs it with
Proxies while ``nn.Module.__call__``/``__getattr__`` and the leaf functions are patched (``_patching``), and
ends the graph with the returned value.  On the way:

* a call of a *leaf* module (``is_leaf_module``: glasstorch's own ``nn`` modules except ``Sequential``)
  becomes one ``call_module`` node; other modules are traced through;
* a Parameter read from a module becomes a ``get_attr`` node; a buffer or other Tensor used as an argument
  becomes ``get_attr`` of its name, or of a new ``_tensor_constant<N>`` attribute on the root;
* ``concrete_args`` fixes some inputs to constants (the graph asserts the value at run time).

Invariant: the traced graph computes what ``root`` computed on the values the Proxies stood for, for every
input that takes the same Python-level path (data-dependent control flow raises TraceError instead).
"""

from __future__ import annotations

import collections
import functools
import inspect
import math
import sys
import types

import glasstorch as _glasstorch

from .. import _functions as _hand_written
from .. import functional as _hand_written_functional
from .._ops_namespace import OpOverload, OpOverloadPacket
from ..nn import functional as _F
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from . import _patching
from . import graph_module as _graph_module
from ._effects import has_side_effect
from .graph import Graph
from .graph_module import GraphModule, _CodeOnlyModule, _exec_with_source
from .proxy import ParameterProxy, Scope, ScopeContextManager, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "PHBase", "is_fx_tracing"]

_HAS_VARSTUFF = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_is_fx_tracing_flag = False


def is_fx_tracing() -> bool:
    """Whether a symbolic trace is running."""
    return _is_fx_tracing_flag


class PHBase:
    """The placeholder marker for ``concrete_args`` (``fx.PH``): keep this input symbolic."""

    def __repr__(self) -> str:
        return "PH"


PH = PHBase()


@has_side_effect
def _assert(condition, message: str) -> None:
    """The check ``concrete_args`` adds for a specialised input (``torch._assert``)."""
    if not condition:
        raise AssertionError(message)


@has_side_effect
def _assert_is_none(value, msg: str) -> None:
    if value is not None:
        raise AssertionError(msg)


# -- which glasstorch functions are leaves -----------------------------------------------------------------------
# nn.functional functions written in Python whose PyTorch counterpart is a C builtin: recorded as called.
_AS_CALLED = frozenset({"avg_pool2d", "bilinear", "cosine_similarity", "hardshrink", "pairwise_distance", "prelu",
                        "softshrink"})
# Python functions PyTorch traces through (no __torch_function__ check): not leaves.
_TRACED_THROUGH = frozenset({"sigmoid", "tanh"})
# hand-written glasstorch.* functions over tensors: Python functions in PyTorch (keywords normalised) ...
_TOP_LEVEL_PYTHON = frozenset({"split", "unique", "unique_consecutive", "norm"})
# ... and C builtins in PyTorch (recorded as called)
_TOP_LEVEL_BUILTIN = frozenset({"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
                                "randint_like", "einsum", "nonzero", "bernoulli", "numel", "detach", "result_type",
                                "normal", "is_floating_point", "is_complex"})


@functools.lru_cache(maxsize=1)
def _torch_function_leaves() -> dict:
    """``id(fn) -> (normalizer or None, False)`` for the glasstorch functions PyTorch dispatches through
    ``__torch_function__`` (recorded as leaves, but not marked as ``wrap()``-ed)."""
    leaves: dict = {}
    for name, fn in vars(_F).items():
        if not isinstance(fn, types.FunctionType) or not fn.__module__.startswith("glasstorch.nn"):
            continue
        if name in _TRACED_THROUGH or name.startswith("_"):
            continue
        leaves[id(fn)] = (None if name in _AS_CALLED else _patching.keyword_normalizer(fn), False)
    for module in (_hand_written, _hand_written_functional):
        for name in _TOP_LEVEL_PYTHON | _TOP_LEVEL_BUILTIN:
            fn = getattr(module, name, None)
            if isinstance(fn, types.FunctionType):
                leaves[id(fn)] = (_patching.keyword_normalizer(fn) if name in _TOP_LEVEL_PYTHON else None, False)
    return leaves


class Tracer(TracerBase):
    """Records a Graph by running a module or function on Proxies (``torch.fx.Tracer``).

    Subclass it to change which modules are leaves (:meth:`is_leaf_module`), how values become node
    arguments (:meth:`create_arg`) or what a module call records (:meth:`call_module`).

    Args:
        autowrap_modules: modules whose public functions are leaves (default ``(math,)``).
        autowrap_functions: more leaf functions.
        param_shapes_constant: parameter shape queries answer with real sizes instead of nodes.
    """

    def __init__(self, autowrap_modules: tuple = (math,), autowrap_functions: tuple = (),
                 param_shapes_constant: bool = False) -> None:
        super().__init__()
        self._autowrap_leaves: dict = dict(_torch_function_leaves())
        for m in autowrap_modules:
            for name, value in vars(m).items():
                if not name.startswith("_") and callable(value):
                    self._autowrap_leaves.setdefault(id(value), (None, True))
        for f in autowrap_functions:
            self._autowrap_leaves.setdefault(id(f), (None, True))
        # where leaf functions are patched besides the traced code's own globals
        self._autowrap_search: list = [*autowrap_modules, _F, _glasstorch]
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict | None = None
        self.root_module_name = ""
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.num_calls: dict = {}
        self.node_name_to_scope: dict = {}
        self.tensor_attrs: dict = {}

    _qualname_counter: dict = collections.defaultdict(int)

    def get_fresh_qualname(self, prefix: str) -> str:
        """``prefix<N>`` for the first N that is not an attribute of the root yet."""
        qualname = f"{prefix}0"
        if not hasattr(self.root, qualname):
            self._qualname_counter[prefix] = 0
            return qualname
        i = self._qualname_counter[prefix]
        while True:
            qualname = f"{prefix}{i}"
            i += 1
            if not hasattr(self.root, qualname):
                break
        self._qualname_counter[prefix] = i
        return qualname

    def create_arg(self, a):
        """Parameters, buffers and submodules of the root become ``get_attr`` nodes; any other Tensor is stored
        on the root as ``_tensor_constant<N>``; everything else as in :class:`TracerBase`.

        Raises:
            NameError: a Parameter that does not belong to the root.
        """
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Tensor):
            for n, b in self.root.named_buffers():
                if a is b:
                    return self.create_node("get_attr", n, (), {})
        elif isinstance(a, Module):
            for n, m in self.root.named_modules():
                if a is m:
                    return self.create_node("get_attr", n, (), {})
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return self.create_node("call_function", type(a), tuple(self.create_arg(e) for e in a), {})
        if isinstance(a, Tensor):
            entry = self.tensor_attrs.get(id(a))
            if entry is None:
                entry = (a, self.get_fresh_qualname("_tensor_constant"))
                self.tensor_attrs[id(a)] = entry
                setattr(self.root, entry[1], a)
            return self.create_node("get_attr", entry[1], (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """glasstorch's own ``nn`` modules (except ``Sequential``) are leaves; user modules are traced through."""
        return m.__module__.startswith("glasstorch.nn") and not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        """The dotted path of ``mod`` inside the root.

        Raises:
            NameError: ``mod`` is not a submodule of the root.
        """
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m: Module, forward, args: tuple, kwargs: dict):
        """A leaf module call becomes ``call_module``; any other module is traced through."""
        path = self.path_of_module(m)
        with ScopeContextManager(self.scope, Scope(path, type(m))) as scope:
            num_calls = self.num_calls.get(path, 0)
            key = f"{scope.module_path}@{num_calls}" if num_calls > 0 else scope.module_path
            self.module_stack[key] = (path, scope.module_type)
            self.num_calls[path] = num_calls + 1
            if not self.is_leaf_module(m, path):
                ret = forward(*args, **kwargs)
            else:
                ret = self.create_proxy("call_module", path, args, kwargs)
            self.module_stack.popitem(last=True)
        return ret

    def getattr(self, attr: str, attr_val, parameter_proxy_cache: dict):
        """A module attribute read during tracing: a Parameter of the root becomes a (cached) ``get_attr`` Proxy."""
        if isinstance(attr_val, Parameter):
            proxy = self._attr_proxy(attr_val, self.root.named_parameters(), parameter_proxy_cache)
            if proxy is not None:
                return proxy
        if self.proxy_buffer_attributes and isinstance(attr_val, Tensor):
            proxy = self._attr_proxy(attr_val, self.root.named_buffers(), parameter_proxy_cache)
            if proxy is not None:
                return proxy
        return attr_val

    def _attr_proxy(self, attr_val, named, cache: dict):
        for n, p in named:
            if attr_val is p:
                if n not in cache:
                    factory = (lambda node, n=n: ParameterProxy(self, node, n, attr_val)) \
                        if self.param_shapes_constant else None
                    cache[n] = self.create_proxy("get_attr", n, (), {}, proxy_factory_fn=factory)
                return cache[n]
        return None

    # -- the root's inputs ----------------------------------------------------------------------------------------
    def create_args_for_root(self, root_fn, is_module: bool, concrete_args=None):
        """Placeholders for the parameters of ``root_fn`` (``*args``/``**kwargs`` included).

        Raises:
            RuntimeError: a tuple of ``concrete_args`` of the wrong length.
        """
        fn = inspect.unwrap(root_fn)
        co = fn.__code__
        total_args = co.co_argcount + co.co_kwonlyargcount
        names_iter = iter(co.co_varnames)
        args: list = []
        skip = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip = 1
            next(names_iter)
            args.append(self.root)
        sig = inspect.signature(fn)
        arg_names = [next(names_iter) for _ in range(skip, total_args)]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(f"Tracing expected {len(arg_names)} arguments but got {len(concrete_args)} "
                                   f"concrete arguments")
            concrete_args = dict(zip(arg_names, concrete_args, strict=True))
        args.extend(self._proxy_placeholder(name, concrete_args, sig, fn) for name in arg_names)
        if co.co_kwonlyargcount > 0 or co.co_flags & _HAS_VARSTUFF:
            if co.co_flags & inspect.CO_VARARGS:
                args.append(self._proxy_placeholder("*" + next(names_iter), concrete_args, sig, fn))
            if co.co_flags & inspect.CO_VARKEYWORDS:
                args.append(self._proxy_placeholder("**" + next(names_iter), concrete_args, sig, fn))
            root_fn = _patch_function(root_fn, len(args))
        return root_fn, args

    def _proxy_placeholder(self, name: str, concrete_args, sig, fn):
        if concrete_args is not None and name in concrete_args:
            return self._specialized_placeholder(name, concrete_args[name], sig)
        if name[0] == "*":
            default = ()
        else:
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
        return self.create_proxy("placeholder", name, default, {}, type_expr=fn.__annotations__.get(name, None))

    def _specialized_placeholder(self, name: str, value, sig):
        """A placeholder for a ``concrete_args`` input plus the run-time check that it keeps its value."""
        param = sig.parameters[name]
        default = () if param.default is inspect.Parameter.empty else (param.default,)
        out = self.create_proxy("placeholder", f"{name}_1", default, {})
        if isinstance(value, PHBase):
            return out
        if value is None:
            msg = f"{name} has been specialized to have value None but got another value"
            self.create_proxy("call_function", _assert_is_none, (out, msg), {})
        elif type(value) in (bool, int, float, complex, str):
            msg = f"{name} has been specialized to have value {value} but got another value"
            self.create_proxy("call_function", _assert, (out == value, msg), {})
        return value

    # -- the trace ------------------------------------------------------------------------------------------------
    def trace(self, root, concrete_args=None) -> Graph:
        """Trace ``root`` (a Module or a function) and return the Graph (``self.root`` is the module it refers to).

        Raises:
            TraceError: the code branches or loops on a traced value.
        """
        global _is_fx_tracing_flag
        old_flag, _is_fx_tracing_flag = _is_fx_tracing_flag, True
        try:
            if isinstance(root, Module):
                self.root = root
                fn = getattr(type(root), self.traced_func_name)
                self.root_module_name = root._get_name()
                self.submodule_paths = {mod: name for name, mod in root.named_modules()}
            else:
                self.root = Module()
                fn = root
            self.graph = Graph(tracer_cls=type(self))
            if hasattr(fn, "__code__"):
                code = fn.__code__
                self.graph._co_fields = {"co_name": code.co_name, "co_filename": code.co_filename,
                                         "co_firstlineno": code.co_firstlineno}
            self.tensor_attrs = {}
            self._collect_tensor_attrs(self.root, [])
            fn_globals = fn.__globals__
            fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
            self._run(fn, fn_globals, args)
            self.submodule_paths = None
        finally:
            _is_fx_tracing_flag = old_flag
        return self.graph

    def _collect_tensor_attrs(self, m: Module, prefix: list) -> None:
        """Tensors stored as plain attributes keep their own names as ``get_attr`` targets."""
        for k, v in m.__dict__.items():
            if isinstance(v, Tensor):
                self.tensor_attrs[id(v)] = (v, ".".join([*prefix, k]))
        for k, child in m.named_children():
            self._collect_tensor_attrs(child, [*prefix, k])

    def _run(self, fn, fn_globals: dict, args: list) -> None:
        cache: dict = {}
        orig_getattr, orig_call = Module.__getattr__, Module.__call__
        tracer = self

        def module_getattr_wrapper(mod, attr):
            return tracer.getattr(attr, orig_getattr(mod, attr), cache)

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return orig_call(mod, *args, **kwargs)
            _patching.autowrap_check(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}),
                                     tracer._autowrap_leaves)
            return tracer.call_module(mod, forward, args, kwargs)

        with _patching._Patcher() as patcher:
            patcher.patch_method(Module, "__getattr__", module_getattr_wrapper)
            patcher.patch_method(Module, "__call__", module_call_wrapper)
            for op_cls in (OpOverload, OpOverloadPacket):  # glasstorch.ops.aten.add.Tensor(proxy, ...)
                patcher.patch_method(op_cls, "__call__", _patching.recording_call(op_cls.__call__))
            _patching.patch_wrapped_functions(patcher)
            _patching.autowrap_check(patcher, fn_globals, self._autowrap_leaves)
            for module in self._autowrap_search:
                _patching.autowrap_check(patcher, vars(module), self._autowrap_leaves)
            result = fn(*args)
            ann = inspect.get_annotations(inspect.unwrap(fn))
            self.create_node("output", "output", (self.create_arg(result),), {}, type_expr=ann.get("return", None))


def _patch_function(fn, nargs: int):
    """``fn`` with ``*args``/``**kwargs`` (and keyword-only parameters) turned into plain positional ones."""
    co = fn.__code__
    new_code = co.replace(co_argcount=nargs, co_posonlyargcount=0, co_kwonlyargcount=0,
                          co_flags=co.co_flags & ~_HAS_VARSTUFF)
    return types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def wrap(fn_or_name):
    """Make a module-level function a leaf of symbolic tracing: its calls become ``call_function`` nodes.

    Call it at module scope, with the function or its name (also usable as a decorator).

    Raises:
        RuntimeError: neither a callable nor a string.
        NotImplementedError: not called at the top level of a module.

    Example:
        >>> import glasstorch.fx as fx
        >>> def my_len(x):  # would fail on a Proxy
        ...     return len(x)
        >>> _ = fx.wrap("my_len")  # (at module scope)
    """
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    fn_name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    caller = sys._getframe(1)
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _patching._wrapped_fns_to_patch[(id(caller.f_globals), fn_name)] = caller.f_globals
    return fn_or_name


def symbolic_trace(root, concrete_args: dict | None = None) -> GraphModule:
    """Trace a Module or function into a :class:`GraphModule` (``torch.fx.symbolic_trace``).

    Args:
        root: an ``nn.Module`` or a Python function.
        concrete_args: inputs to fix to constants (``{"flag": False}``), ``fx.PH`` keeps one symbolic.

    Returns:
        A GraphModule whose ``forward`` is the generated code and whose ``graph`` is the recorded Graph.

    Raises:
        TraceError: "symbolically traced variables cannot be used as inputs to control flow" and friends.

    Example:
        >>> import glasstorch as torch, glasstorch.fx as fx
        >>> gm = fx.symbolic_trace(lambda x: torch.relu(x) * 2)
        >>> [n.op for n in gm.graph.nodes]
        ['placeholder', 'call_function', 'call_function', 'output']
    """
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


def reduce_graph_module(body: dict, import_block: str) -> Module:
    """Rebuild a pickled GraphModule: run its code, then trace the code back into a Graph (every module a leaf)."""
    scope: dict = {}
    _exec_with_source(import_block + body["_code"], scope)
    _CodeOnlyModule.forward = scope["forward"]
    com = _CodeOnlyModule(body)
    graph = _KeepModules().trace(com)
    gm = GraphModule(com, graph, class_name=body.get("_graphmodule_cls_name", "GraphModule"))
    for k, v in body.items():
        if not hasattr(gm, k):
            setattr(gm, k, v)
    return gm


class _KeepModules(Tracer):
    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        return True


_graph_module._reducer.append(reduce_graph_module)
