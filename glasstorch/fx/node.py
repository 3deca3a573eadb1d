"""FX nodes — PyTorch's ``torch/fx/node.py``: one operation of a :class:`~glasstorch.fx.Graph`.

A Node is ``name = op[target](*args, **kwargs)``, with ``op`` one of six opcodes:

    placeholder    a function input; target = the parameter name ("*args" for varargs), args = (default,) or ()
    get_attr       a parameter/buffer/attribute of the owning module; target = its dotted path
    call_function  target = a Python callable (``operator.add``, ``glasstorch.relu``, an OpOverload)
    call_method    target = a method name, called on args[0]
    call_module    target = a submodule's dotted path, called with args/kwargs
    output         the single return; args[0] = the returned value (any nesting of tuples/lists/dicts)

``args``/``kwargs`` may nest tuples, lists, dicts and slices that contain other Nodes.  Nodes form a
doubly linked list per graph (a sentinel ``root`` node closes the ring).

Invariants: ``n in m.users`` exactly when ``m`` appears in ``n.args``/``n.kwargs`` (``_update_args_kwargs``
keeps both sides in step); lists and dicts inside arguments are stored immutable, so nobody edits them
behind the bookkeeping's back.
"""

from __future__ import annotations

import builtins
import inspect
import sys
import types

from ..nn.modules.utils import typename as _typename
from ._effects import _side_effectful_functions, has_side_effect, node_is_impure  # noqa: F401
from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect", "Argument", "Target"]

Target = object  # a callable or a str
Argument = object  # None, a base value, a Node, or a tuple/list/dict/slice of Arguments

_LEGAL_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")

# -- argument traversal ---------------------------------------------------------------------------------------
def map_aggregate(a, fn):
    """Apply ``fn`` to every leaf of ``a`` (through tuples, lists, dicts and slices), keeping the structure.

    Lists come back as ``immutable_list`` and dicts as ``immutable_dict``; a named tuple keeps its type.
    """
    if isinstance(a, tuple):
        t = tuple(map_aggregate(elem, fn) for elem in a)
        return type(a)(*t) if hasattr(a, "_fields") else t
    if isinstance(a, list):
        return immutable_list(map_aggregate(elem, fn) for elem in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Apply ``fn`` to every Node inside ``a`` (other leaves stay as they are), keeping the structure."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _collect_nodes(a, out: dict) -> None:
    """The Nodes inside ``a``, in order of appearance, as dict keys."""
    if isinstance(a, Node):
        out.setdefault(a)
    elif isinstance(a, (tuple, list)):
        for x in a:
            _collect_nodes(x, out)
    elif isinstance(a, dict):
        for x in a.values():
            _collect_nodes(x, out)
    elif isinstance(a, slice):
        _collect_nodes(a.start, out)
        _collect_nodes(a.stop, out)
        _collect_nodes(a.step, out)


# -- names of targets ------------------------------------------------------------------------------------------
# The public homes of glasstorch callables, tried in order: ``glasstorch.add`` rather than the generated module.
_PUBLIC_HOMES = ("glasstorch", "glasstorch.nn.functional", "glasstorch.linalg", "glasstorch.special",
                 "glasstorch.fft", "glasstorch.autograd")


def _torch_path(module: str) -> str:
    """``glasstorch.nn.functional`` -> ``torch.nn.functional``: generated code binds ``torch`` to glasstorch."""
    return "torch" + module[len("glasstorch"):]


def _resolves(path: str, obj) -> bool:
    """Whether ``torch.a.b`` (``torch`` = the glasstorch package) leads to ``obj`` by attribute access."""
    cur = sys.modules.get("glasstorch")
    for atom in path.split(".")[1:]:
        cur = getattr(cur, atom, None)
        if cur is None:
            return False
    return cur is obj


def _is_op_overload(obj) -> bool:
    return type(obj).__name__ == "OpOverload" and hasattr(obj, "_schema")


def _get_qualified_name(func) -> str:
    """The dotted name code uses for ``func``: ``getattr``, ``operator.add``, ``torch.relu``,
    ``torch.ops.aten.add.Tensor`` (``torch`` being glasstorch in generated code)."""
    if _is_op_overload(func):
        return "torch.ops." + repr(func)
    if type(func).__name__ == "OpOverloadPacket":
        return f"torch.ops.{func._ns}.{func._name}"
    name = func.__name__
    if getattr(builtins, name, None) is func:
        return name
    tensor_cls = getattr(sys.modules.get("glasstorch"), "Tensor", None)
    if tensor_cls is not None and getattr(tensor_cls, name, None) is func:
        return f"torch.Tensor.{name}"
    if name == "<lambda>":
        try:
            name = inspect.getsource(func).split("=")[0].strip()
        except Exception as e:  # noqa: BLE001 - any failure to read the source means the same thing
            raise RuntimeError("Unable to represent lambda") from e
    module = getattr(func, "__module__", None)
    if module is None:
        raise RuntimeError(f"cannot find module for {func}")
    if module.startswith("glasstorch"):
        own = f"{_torch_path(module)}.{name}"
        if "._" not in module and _resolves(own, func):  # a public module of its own: torch.functional.einsum
            return own
        for home in _PUBLIC_HOMES:
            mod = sys.modules.get(home)
            if mod is not None and getattr(mod, name, None) is func:
                return f"{_torch_path(home)}.{name}"
        return f"{_torch_path(module)}.{name}"
    return f"{module}.{name}"


def _type_repr(obj) -> str:
    """A short repr for type annotations: ``int``, ``glasstorch.tensor.Tensor``."""
    if isinstance(obj, type) and not isinstance(obj, types.GenericAlias):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        if obj.__module__.startswith("glasstorch"):  # glasstorch.tensor.Tensor -> torch.Tensor
            for home in _PUBLIC_HOMES:
                if getattr(sys.modules.get(home), obj.__qualname__, None) is obj:
                    return f"{_torch_path(home)}.{obj.__qualname__}"
        return f"{obj.__module__}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if isinstance(obj, types.FunctionType):
        return obj.__name__
    return repr(obj)


def _format_arg(arg) -> str:
    """Arguments as ``Graph.__str__`` shows them: Nodes as ``%name``, strings bare."""
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, tuple):
        return "(" + ", ".join(_format_arg(a) for a in arg) + ("," if len(arg) == 1 else "") + ")"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """One operation in a Graph (see the module docstring for the six opcodes).

    Create nodes through the Graph (``graph.call_function(operator.add, (x, 1))``); assigning ``args`` or
    ``kwargs`` keeps every ``users`` dict up to date.

    Example:
        >>> import operator, glasstorch.fx as fx
        >>> g = fx.Graph()
        >>> x = g.placeholder("x")
        >>> y = g.call_function(operator.add, (x, 1))
        >>> y.args, list(x.users)
        ((x, 1), [add])
    """

    __slots__ = ("graph", "name", "op", "target", "_args", "_kwargs", "_input_nodes", "users", "type", "_prev",
                 "_next", "_erased", "_repr_fn", "meta", "__weakref__")

    def __init__(self, graph, name: str, op: str, target, args: tuple, kwargs: dict, return_type=None) -> None:
        if op == "call_function":
            if not callable(target):
                raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                                 f"{_typename(target)} but a Callable is expected")
        else:
            if op not in _LEGAL_OPS:
                raise AssertionError(f"op '{op}' is not in _legal_ops")
            if not isinstance(target, str):
                raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                                 f"{_typename(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict = {}
        self.users: dict = {}
        self.type = return_type
        self._prev = self._next = self
        self._erased = False
        self._repr_fn = None
        self.meta: dict = {}
        self._args, self._kwargs = (), immutable_dict()
        self._update_args_kwargs(args, kwargs)

    # -- the linked list ----------------------------------------------------------------------------------------
    @property
    def next(self) -> Node:
        """The next Node in the graph's order."""
        return self._next

    @property
    def prev(self) -> Node:
        """The previous Node in the graph's order."""
        return self._prev

    def prepend(self, x: Node) -> None:
        """Move ``x`` to just before this node (``x`` must belong to the same graph)."""
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if self is x:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: Node) -> None:
        """Move ``x`` to just after this node (``self.next.prepend(x)``)."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        # the node keeps its own links, so an iterator standing on it (just erased) can still move on
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    # -- arguments ----------------------------------------------------------------------------------------------
    @property
    def args(self) -> tuple:
        """The positional arguments; assigning a new tuple updates the users of old and new inputs."""
        return self._args

    @args.setter
    def args(self, a: tuple) -> None:
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict:
        """The keyword arguments; assigning a new dict updates the users of old and new inputs."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k: dict) -> None:
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list:
        """The Nodes this node reads, in order of first appearance in ``args`` then ``kwargs``."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args, new_kwargs) -> None:
        self._args = map_aggregate(tuple(new_args), lambda x: x)
        self._kwargs = map_aggregate(dict(new_kwargs), lambda x: x)
        for old in self._input_nodes:
            old.users.pop(self, None)
        inputs: dict = {}
        _collect_nodes(self._args, inputs)
        _collect_nodes(self._kwargs, inputs)
        self._input_nodes = inputs
        for n in inputs:
            n.users.setdefault(self)

    def update_arg(self, idx: int, arg) -> None:
        """Set ``args[idx] = arg``."""
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg) -> None:
        """Insert ``arg`` into ``args`` before position ``idx``."""
        if not 0 <= idx <= len(self._args):
            raise AssertionError(f"insert_args index must be between 0 and len(self.args), got {idx}")
        self.args = self._args[:idx] + (arg,) + self._args[idx:]

    def update_kwarg(self, key: str, arg) -> None:
        """Set ``kwargs[key] = arg``."""
        self.kwargs = {**self._kwargs, key: arg}

    @property
    def stack_trace(self):
        """The Python stack recorded while tracing (``meta["stack_trace"]``), or None."""
        return self.meta.get("stack_trace", None)

    @stack_trace.setter
    def stack_trace(self, trace) -> None:
        self.meta["stack_trace"] = trace

    # -- rewriting ----------------------------------------------------------------------------------------------
    def replace_all_uses_with(self, replace_with: Node, delete_user_cb=None, *, propagate_meta: bool = False) -> list:
        """Make every user read ``replace_with`` instead of this node; returns the users that changed.

        ``delete_user_cb(user)`` returning False keeps that user on this node.
        """
        if propagate_meta:
            if len(replace_with.meta) != 0:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, propagate_meta=True), but "
                                     "replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if delete_user_cb is not None and not delete_user_cb(user):
                continue
            changed.append(user)
            user._replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Read ``new_input`` wherever this node read ``old_input``."""
        self._replace_input_with(old_input, new_input)

    def _replace_input_with(self, old: Node, new: Node) -> None:
        def swap(n):
            return new if n is old else n
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def _rename(self, candidate: str) -> None:
        if candidate == self.name:
            return
        self.name = self.graph._graph_namespace.create_name(candidate, None)
        self.graph._graph_namespace._rename_object(self, self.name)

    def is_impure(self, impure_random: bool = True) -> bool:
        """Whether DCE must keep this node although nothing uses it: inputs, the output, in-place and
        other mutating calls, calls registered with :func:`has_side_effect` and (``impure_random``) random ops."""
        return node_is_impure(self, impure_random)

    # -- printing -----------------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        if self._repr_fn is not None:
            return self._repr_fn(self)
        return self.name

    @staticmethod
    def _pretty_print_target(target) -> str:
        """``builtins.getattr``, ``operator.add``, else the qualified name (``torch.relu``)."""
        if isinstance(target, str):
            return target
        name = getattr(target, "__name__", None)
        module = getattr(target, "__module__", None)
        if name is not None and module == "builtins":
            return f"builtins.{name}"
        if name is not None and module == "_operator":
            return f"operator.{name}"
        return _get_qualified_name(target)

    def format_node(self, placeholder_names: list | None = None, maybe_return_typename: list | None = None):
        """One line of ``Graph.__str__``: ``%add : [num_users=1] = call_function[target=operator.add](...)``.

        Inside ``Graph.__str__`` (``placeholder_names`` given) placeholders add their name to the list and
        return None.
        """
        if self.op == "placeholder":
            arg_str = self.target + (f": {_type_repr(self.type)}" if self.type else "")
            if placeholder_names:
                placeholder_names.append(arg_str)
                return None
            typename = f"{_type_repr(self.type)} " if self.type else ""
            default = "(default=" + str(self._args[0]) + ")" if self._args else ""
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self.target}]{default}")
        if self.op == "get_attr":
            typename = f"{_type_repr(self.type)} " if self.type is not None else ""
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self._pretty_print_target(self.target)}]")
        if self.op == "output":
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self._args[0]}"
        typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                f"{self.op}[target={self._pretty_print_target(self.target)}]("
                f"args = {_format_arg(self._args)}, kwargs = {_format_arg(self._kwargs)})")
