"""Running a graph node by node — PyTorch's ``torch/fx/interpreter.py``.

:class:`Interpreter` executes a GraphModule's graph in Python, one overridable method per opcode::

    run() -> run_node(n) -> placeholder | get_attr | call_function | call_method | call_module | output

so an analysis (``ShapeProp``) or a rewrite can hook exactly the operations it cares about.
:class:`Transformer` runs the same walk on Proxies and so builds a new GraphModule (a graph-to-graph
rewrite written as an interpreter).

Invariant: with ``garbage_collect_values`` a value leaves ``env`` right after its last user ran; the result
equals calling the GraphModule itself.
"""

from __future__ import annotations

import inspect

from ._symbolic_trace import Tracer
from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_aggregate, map_arg
from .proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Execute ``module``'s graph node by node (``torch.fx.Interpreter``).

    Args:
        module: the module whose graph runs (and whose attributes/submodules it reads).
        garbage_collect_values: drop each value after its last use.
        graph: run this graph instead of ``module.graph``.

    Example:
        >>> import glasstorch as torch, glasstorch.fx as fx
        >>> gm = fx.symbolic_trace(lambda x: torch.sigmoid(x).neg())
        >>> class Swap(fx.Interpreter):
        ...     def call_method(self, target, args, kwargs):
        ...         return args[0].sigmoid() if target == "neg" else super().call_method(target, args, kwargs)
        >>> Swap(gm).run(torch.zeros(1))
        tensor([0.6225])
    """

    def __init__(self, module, garbage_collect_values: bool = True, graph: Graph | None = None) -> None:
        self.module = module
        self.submodules = dict(self.module.named_modules())
        self.graph = graph if graph is not None else self.module.graph
        self.env: dict = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if garbage_collect_values:
            last_use: dict = {}
            self.user_to_last_uses: dict = {}
            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    if n not in last_use:
                        last_use[n] = node
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env: dict | None = None, enable_io_processing: bool = True):
        """Run the graph on ``args`` and return its output.

        Args:
            initial_env: values for some nodes up front (those nodes are not run).
            enable_io_processing: pass inputs/outputs through the graph's codegen hooks.
        """
        self.env = initial_env if initial_env is not None else {}
        if enable_io_processing:
            args = self.graph.process_inputs(*args)
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    msg = f"{e.args[0]}\n\n{msg}" if e.args else str(msg)
                    msg += f"\nOriginal traceback:\n{node.stack_trace}"
                    e.args = (msg, *e.args[1:])
                    if isinstance(e, KeyError):
                        raise RuntimeError(*e.args) from e
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                out = self.env[node]
                return self.graph.process_outputs(out) if enable_io_processing else out
        return None

    def boxed_run(self, args_list: list):
        """Run with the arguments in a list that is cleared first (inputs can be freed early).

        Raises:
            RuntimeError: the list does not have one value per placeholder.
        """
        placeholders = [n for n in self.graph.nodes if n.op == "placeholder"]
        if len(args_list) != len(placeholders):
            detail = "extra arguments" if len(args_list) > len(placeholders) else "missing arguments"
            raise RuntimeError(f"Interpreter.boxed_run expected {len(placeholders)} arguments for placeholders but "
                               f"received {len(args_list)} ({detail})")
        env = dict(zip(placeholders, args_list, strict=True))
        args_list.clear()
        return self.run(initial_env=env)

    def run_node(self, n: Node):
        """Run one node: fetch its arguments from ``env`` and call the method named by its opcode."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # -- one method per opcode -----------------------------------------------------------------------------------
    def placeholder(self, target, args: tuple, kwargs: dict):
        """The next input (all the rest for ``*args``), else the default in ``args``.

        Raises:
            RuntimeError: no input left and no default.
        """
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one was not passed "
                               f"in!") from si

    def get_attr(self, target, args: tuple, kwargs: dict):
        """The attribute at dotted path ``target`` of the module."""
        return self.fetch_attr(target)

    def call_function(self, target, args: tuple, kwargs: dict):
        """``target(*args, **kwargs)``."""
        if isinstance(target, str):
            raise AssertionError("target should not be a string for call_function")
        return target(*args, **kwargs)

    def call_method(self, target, args: tuple, kwargs: dict):
        """``args[0].target(*args[1:], **kwargs)``."""
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target, args: tuple, kwargs: dict):
        """Call the submodule at ``target``."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args: tuple, kwargs: dict):
        """The returned value (``args[0]``)."""
        return args[0]

    # -- helpers --------------------------------------------------------------------------------------------------
    def fetch_attr(self, target: str):
        """Follow the dotted path ``target`` from the module.

        Raises:
            RuntimeError: ``Node referenced nonexistent target a.b``.
        """
        atoms = target.split(".")
        attr_itr = self.module
        for i, atom in enumerate(atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[:i + 1])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n: Node):
        """``n``'s args and kwargs with every Node replaced by its value in ``env``."""
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n: Node):
        """``args`` with every Node replaced by its value.

        Raises:
            RuntimeError: a Node has no value (the graph is not in topological order).
        """
        def load_arg(n_arg: Node):
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() to diagnose "
                                   f"such issues")
            return self.env[n_arg]
        return map_arg(args, load_arg)


class _TransformerTracer(Tracer):
    """Appends to a given graph; every module is a leaf (a Transformer rewrites one level)."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph
        self.tensor_attrs = {}

    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        return True


class Transformer(Interpreter):
    """An Interpreter over Proxies: ``transform()`` returns a new GraphModule (``torch.fx.Transformer``).

    Override ``call_function``/``call_method``/... to rewrite; the defaults copy each node.
    """

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.new_graph = Graph()
        self.new_graph.set_codegen(module.graph._codegen)
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target, args: tuple, kwargs: dict) -> Proxy:
        default = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args: tuple, kwargs: dict):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args: tuple, kwargs: dict):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self) -> GraphModule:
        """Run the rewrite and return the new GraphModule (sharing the original's attributes)."""
        result = super().run(enable_io_processing=False)
        if result is not None:
            new_output = self.new_graph.output(map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a))
            old_output = list(self.graph.nodes)[-1]
            new_output.meta.update(old_output.meta)
        return GraphModule(self.module, self.new_graph)
