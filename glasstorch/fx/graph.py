"""FX graphs — PyTorch's ``torch/fx/graph.py``: the IR of the compile stack.

A :class:`Graph` is a doubly linked list of :class:`~glasstorch.fx.Node` objects in execution order.  Its
grammar (one node per line of ``str(graph)``, a straight-line program with no control flow)::

    graph      ::= "graph():" node* "return" arg
    node       ::= "%" name " : [num_users=" N "] = " op "[target=" target "]" call?
    call       ::= "(args = " "(" arg,* ")" ", kwargs = " "{" name ": " arg,* "}" ")"
    op         ::= placeholder | get_attr | call_function | call_method | call_module | output
    arg        ::= %node | constant | "(" arg,* ")" | "[" arg,* "]" | "{" str ": " arg,* "}" | slice

Nodes are created at the insert point (the end, unless ``inserting_before``/``inserting_after`` moved it),
named uniquely from their target (``add``, ``add_1`` ...), and erased only once nothing uses them.
``python_code`` turns the graph into the source of a ``forward`` function (see ``_codegen``).

Invariants: every node's inputs come before it (``lint`` checks it); names are unique within a graph.
"""

from __future__ import annotations

import copy
import inspect
import warnings

from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ._codegen import CodeGen, PythonCode, _is_magic, _Namespace, _snake_case
from .immutable_collections import immutable_dict
from .node import _LEGAL_OPS, Node, _typename, map_arg

__all__ = ["Graph", "PythonCode", "CodeGen"]


class _InsertPoint:
    """``with graph.inserting_before(n):`` — restores the previous insert point on exit."""

    def __init__(self, graph: Graph, new_insert) -> None:
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        self.graph._insert = self.orig_insert


class _node_list:  # noqa: N801 - PyTorch's name
    """A live view of a graph's nodes; iteration tolerates erasing the current node."""

    def __init__(self, graph: Graph, direction: str = "_next") -> None:
        self.graph = graph
        self.direction = direction

    def __len__(self) -> int:
        return self.graph._len

    def __iter__(self):
        root = self.graph._root
        cur = getattr(root, self.direction)
        while cur is not root:
            nxt = getattr(cur, self.direction)
            if not cur._erased:
                yield cur
            cur = nxt

    def __reversed__(self):
        return _node_list(self.graph, "_prev" if self.direction == "_next" else "_next")


class Graph:
    """A straight-line program of Nodes (``torch.fx.Graph``).

    Example:
        >>> import operator, glasstorch.fx as fx
        >>> g = fx.Graph()
        >>> x = g.placeholder("x")
        >>> g.output(g.call_function(operator.add, (x, 1)))
        output
        >>> print(g)
        graph():
            %x : [num_users=1] = placeholder[target=x]
            %add : [num_users=1] = call_function[target=operator.add](args = (%x, 1), kwargs = {})
            return add
    """

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None) -> None:
        self._root = Node(self, "", "root", "", (), {})
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()
        self._co_fields: dict = {}

    @property
    def owning_module(self):
        """The GraphModule this graph belongs to (None for a free graph)."""
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _node_list:
        """The nodes in order (``reversed(graph.nodes)`` walks backwards); erasing while iterating is safe."""
        return _node_list(self)

    def output_node(self) -> Node:
        """The ``output`` node (the last node)."""
        node = next(iter(reversed(self.nodes)))
        if node.op != "output":
            raise AssertionError(f"Expected output node, got op={node.op}")
        return node

    def find_nodes(self, *, op: str, target=None, sort: bool = True) -> list:
        """The nodes with opcode ``op`` (and ``target``, if given), in graph order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # -- building -------------------------------------------------------------------------------------------------
    def create_node(self, op: str, target, args=None, kwargs=None, name: str | None = None, type_expr=None) -> Node:
        """Create a Node and insert it at the insert point (see :meth:`inserting_before`)."""
        if not args:
            args = ()
        elif not isinstance(args, tuple):
            raise AssertionError(f"args must be a tuple, got {type(args)}")
        if not kwargs:
            kwargs = immutable_dict()
        elif not isinstance(kwargs, dict):
            raise AssertionError(f"kwargs must be a dict, got {type(kwargs)}")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        hooks = getattr(self._owning_module, "_create_node_hooks", None) if self._owning_module is not None else None
        for hook in hooks or ():
            hook(n)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name: str, type_expr=None, default_value=inspect.Signature.empty) -> Node:
        """An input of the function; ``default_value`` (if given) becomes ``args[0]``."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr=None) -> Node:
        """Fetch ``qualified_name`` (``"layer.weight"``) from the owning module."""
        owner = self._owning_module
        if owner is not None and not _get_attr_reference_exists(owner, qualified_name):
            warnings.warn("Attempted to insert a get_attr Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
                          "GraphModule.add_parameter to add the necessary Parameter, or nn.Module.register_buffer "
                          "to add the necessary buffer", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        """Call the submodule ``module_name`` with ``args``/``kwargs`` (no ``self``)."""
        owner = self._owning_module
        if owner is not None and _find_submodule(owner, module_name) is None:
            warnings.warn("Attempted to insert a call_module Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule", stacklevel=2)
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        """Call ``args[0].method_name(*args[1:], **kwargs)``."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None, name: str | None = None) -> Node:
        """Call ``the_function(*args, **kwargs)``."""
        return self.create_node("call_function", the_function, args, kwargs, name=name, type_expr=type_expr)

    def output(self, result, type_expr=None) -> Node:
        """The return statement: ``result`` may nest tuples, lists and dicts of Nodes."""
        return self.create_node(op="output", target="output", args=(result,), type_expr=type_expr)

    def node_copy(self, node: Node, arg_transform=lambda x: x) -> Node:
        """Copy ``node`` (from any graph) into this one; ``arg_transform`` maps its input Nodes to ours."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g: Graph, val_map: dict, return_output_node: bool = False):
        """Copy every node of ``g`` except its output into this graph, filling ``val_map`` (old -> new).

        Returns the value ``g`` returned, mapped to this graph (and the old output node when asked).
        """
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None) -> Graph:
        memo = memo if memo else {}
        g = Graph(tracer_cls=self._tracer_cls)
        out = g.graph_copy(self, val_map=memo, return_output_node=True)
        g._codegen = copy.deepcopy(self._codegen)
        if out is not None:
            value, old_output = out
            new_output = g.output(value, type_expr=getattr(old_output, "type", None))
            new_output.meta = copy.copy(old_output.meta)
        return g

    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """Insert new nodes before ``n`` (before everything when None); a context manager restores the point."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """Insert new nodes after ``n`` (at the start when None); a context manager restores the point."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase: Node) -> None:
        """Remove a node nothing uses any more.

        Raises:
            RuntimeError: the node still has users, or belongs to another graph.
        """
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in the "
                               f"graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node", stacklevel=2)
            return
        hooks = getattr(self._owning_module, "_erase_node_hooks", None) if self._owning_module is not None else None
        for hook in hooks or ():
            hook(to_erase)
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        # forget the inputs, so that they lose this user
        to_erase._update_args_kwargs(map_arg(to_erase._args, lambda n: None), map_arg(to_erase._kwargs, lambda n: None))

    def _target_to_str(self, target) -> str:
        if callable(target):
            op = getattr(target, "__name__", None) or target._name  # an OpOverloadPacket has only ``_name``
        else:
            if not isinstance(target, str):
                raise AssertionError(f"Expected target to be str, got {type(target)}")
            op = target[2:-2] if _is_magic(target) else target
        return _snake_case(op)

    # -- code ---------------------------------------------------------------------------------------------------
    def set_codegen(self, codegen: CodeGen) -> None:
        """Use another code generator (a different calling convention)."""
        self._codegen = codegen

    def process_inputs(self, *args):
        return self._codegen.process_inputs(*args)

    def process_outputs(self, out):
        return self._codegen.process_outputs(out)

    def python_code(self, root_module: str, *, verbose: bool = False, include_stride: bool = False,
                    include_device: bool = False) -> PythonCode:
        """The source of ``forward`` and its globals; ``root_module`` is the name of the owning module (``self``).

        ``verbose`` adds stack-trace comments and ``"f32[3, 4]"`` annotations from ``node.meta``.
        """
        namespace = _Namespace()
        saved = {}
        for node in self.nodes:  # node names live in the new namespace too, next to the globals
            saved[node] = node._repr_fn
            node._repr_fn = lambda n: namespace.create_name(n.name, n)
        try:
            return self._codegen._gen_python_code(self.nodes, root_module, namespace, verbose=verbose,
                                                  include_stride=include_stride, include_device=include_device)
        finally:
            for node, fn in saved.items():
                node._repr_fn = fn

    def __str__(self) -> str:
        # (PyTorch starts with an empty list, so placeholders stay lines of their own and "graph():" stays bare)
        placeholder_names: list = []
        lines = [node.format_node(placeholder_names) for node in self.nodes]
        s = f"graph({', '.join(placeholder_names)}):"
        for line in lines:
            if line:
                s += "\n    " + line
        return s

    def print_tabular(self) -> None:
        """Print one row per node (opcode, name, target, args, kwargs) in ``tabulate``'s plain layout."""
        rows = [[n.op, n.name, str(n.target), str(n.args), str(n.kwargs)] for n in self.nodes]
        print(_tabulate(rows, ["opcode", "name", "target", "args", "kwargs"]))

    # -- checks and clean-up ------------------------------------------------------------------------------------
    def lint(self) -> None:
        """Check ownership, topological order, unique names and (with an owning module) the targets.

        Raises:
            RuntimeError / ValueError: with PyTorch's messages.
        """
        seen_names: set = set()
        seen_values: set = set()
        for node in self.nodes:
            if node.op not in _LEGAL_OPS:
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                self._check_arg(arg, node, seen_values)
            seen_values.add(node)
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
        if self._owning_module is not None:
            for node in self.nodes:
                self._check_target(node)

    def _check_arg(self, arg: Node, n: Node, seen_values: set) -> None:
        context = f" of Node '{n}' " if n else " "
        if arg.graph is not self:
            raise RuntimeError(f"Argument '{arg}'{context}does not belong to this Graph, but was used as an argument! "
                               f"If you are copying nodes from another graph, make sure to use ``arg_transform`` on "
                               f"node_copy() to remap values\n{self}")
        if arg not in seen_values:
            raise RuntimeError(f"Argument '{arg}'{context}was used before it has been defined! Please check that "
                               f"Nodes in the graph are topologically ordered\n{self}")

    def _check_target(self, node: Node) -> None:
        if node.op == "call_function":
            if not callable(node.target):
                raise ValueError(f"Node {node} target {node.target} has type {_typename(node.target)} but a Callable "
                                 f"is expected")
        elif not isinstance(node.target, str):
            raise ValueError(f"Node {node} target {node.target} has type {_typename(node.target)} but a str is "
                             f"expected")
        if node.op not in ("get_attr", "call_module"):
            return
        atoms = node.target.split(".")
        m_itr = self._owning_module
        for i, atom in enumerate(atoms):
            new_m_itr = getattr(m_itr, atom, None)
            seen_qualname = ".".join(atoms[:i])
            if new_m_itr is None:
                raise RuntimeError(f"Node {node} target {node.target} references nonexistent attribute {atom} of "
                                   f"{seen_qualname}")
            if node.op == "call_module" and not isinstance(new_m_itr, Module):
                raise RuntimeError(f"Node {node} target {node.target} {atom} of {seen_qualname} does not reference "
                                   f"an nn.Module")
            m_itr = new_m_itr

    def eliminate_dead_code(self, is_impure_node=None) -> bool:
        """Remove nodes whose results nobody uses, except impure ones (``Node.is_impure``: inputs, the output,
        in-place and other mutating calls, random ops).  Returns whether the graph changed.

        Example:
            ``a = x + 1; return x * 2`` loses ``a``; ``x.add_(1)`` would stay.
        """
        self.lint()
        removed = False
        for node in reversed(self.nodes):  # users go first, so their inputs may become dead in turn
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                removed = True
        return removed


def _find_submodule(owner, path: str):
    try:
        return owner.get_submodule(path)
    except AttributeError:
        return None


def _get_attr_reference_exists(mod, qualified_name: str) -> bool:
    module_path, _, name = qualified_name.rpartition(".")
    submod = _find_submodule(mod, module_path)
    if submod is None:
        warnings.warn(f"Failed to fetch module {module_path}!", stacklevel=3)
        return False
    if not hasattr(submod, name):
        return False
    res = getattr(submod, name)
    return isinstance(res, (Module, Parameter)) or name in submod._buffers


def _tabulate(rows: list, headers: list) -> str:
    """``tabulate(rows, headers)``'s default ("simple") layout: left-aligned columns, dashed rule."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    fmt = "  ".join("{:<" + str(w) + "}" for w in widths)
    lines = [fmt.format(*headers).rstrip(), "  ".join("-" * w for w in widths)]
    lines += [fmt.format(*r).rstrip() for r in rows]
    return "\n".join(lines)
