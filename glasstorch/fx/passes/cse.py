"""Common-subexpression elimination over FX graphs — in the spirit of PyTorch's
``torch/fx/passes/dialect/common/cse_pass.py``, extended to ``call_method`` nodes and to graphs that mutate.

Two nodes are the same expression when they have the same opcode, target and arguments (after earlier
merges); the later one is replaced by the earlier one and erased.  Merged are only nodes that are pure:

* ``call_function`` on glasstorch functions, OpOverloads, ``operator``/``math`` functions and ``getattr``;
  ``call_method`` on any method; ``get_attr`` of the same attribute (the same object);
* never random ops (``dropout``, ``rand*``, ``bernoulli`` ...), in-place or otherwise mutating calls
  (``add_``, ``out=``, ``inplace=True``, ``setitem``), ``call_module`` or user functions;
* only when every argument is hashable by value (Nodes by identity; numbers keep their type, so
  ``x + 1`` and ``x + 1.0`` stay apart).

A mutation (or a module call that may update its buffers) is a barrier: a write can change, through an
alias, any value computed before it, so nothing after it is merged with anything before it.

Invariant: the rewritten graph computes the same outputs and performs the same effects in the same order.
"""

from __future__ import annotations

import copy

from ..._core.device import device
from ..._core.dtype import dtype
from ..._core.layout import layout, memory_format
from ..._ops_namespace import OpOverload
from .._effects import is_mutating, is_random
from ..graph import Graph
from ..graph_module import GraphModule
from ..node import Node
from .infra.pass_base import PassBase, PassResult

__all__ = ["CSEPass", "eliminate_common_subexpressions"]

_PURE_MODULE_PREFIXES = ("glasstorch", "_operator", "math", "builtins")
_SCALARS = (bool, int, float, complex, str, type(None), type(...), dtype, device, layout, memory_format)


class _Unhashable(Exception):
    """An argument that cannot be compared by value."""


def _freeze(a):
    """A hashable, type-exact key for an argument structure."""
    if isinstance(a, Node):
        return a
    if type(a) in _SCALARS:
        return (type(a), a)
    if isinstance(a, (tuple, list)):
        return (type(a).__name__, tuple(_freeze(x) for x in a))
    if isinstance(a, dict):
        return ("dict", tuple((k, _freeze(v)) for k, v in a.items()))
    if isinstance(a, slice):
        return ("slice", _freeze(a.start), _freeze(a.stop), _freeze(a.step))
    raise _Unhashable


def _pure_target(node: Node) -> bool:
    if node.op == "call_method":
        return True
    target = node.target
    if isinstance(target, OpOverload):
        return True
    module = getattr(target, "__module__", None) or ""
    return module.startswith(_PURE_MODULE_PREFIXES)


def _module_may_write(node: Node) -> bool:
    """A module call that may change state others read: mutating, or training with buffers (BatchNorm)."""
    if is_mutating(node):
        return True
    owner = node.graph.owning_module
    try:
        mod = owner.get_submodule(node.target) if owner is not None else None
    except AttributeError:
        mod = None
    return mod is None or (mod.training and any(True for _ in mod.buffers()))


def eliminate_common_subexpressions(graph: Graph, banned_ops=frozenset()) -> bool:
    """Merge repeated pure expressions of ``graph`` in place; returns whether anything changed.

    Args:
        banned_ops: call targets never merged, in addition to the impure ones.

    Example:
        ``a = x.relu(); b = x.relu(); return a + b`` becomes ``a = x.relu(); return a + a``.
    """
    seen: dict = {}
    changed = False
    for node in list(graph.nodes):
        if node.op == "call_module":
            if _module_may_write(node):
                seen.clear()
            continue
        if node.op == "get_attr":  # the same attribute read twice is the same object
            key = ("get_attr", node.target)
        elif node.op not in ("call_function", "call_method"):
            continue
        elif is_mutating(node):
            seen.clear()
            continue
        elif is_random(node) or not _pure_target(node) or node.target in banned_ops:
            continue
        else:
            try:
                key = (node.op, node.target, _freeze(node.args), _freeze(node.kwargs))
                hash(key)
            except (_Unhashable, TypeError):
                continue
        earlier = seen.get(key)
        if earlier is None:
            seen[key] = node
            continue
        node.replace_all_uses_with(earlier)
        graph.erase_node(node)
        changed = True
    return changed


class CSEPass(PassBase):
    """CSE as a pass: returns a new GraphModule (the input is left alone) when something was merged.

    Args:
        banned_ops: call targets never merged, in addition to random and mutating ones.
    """

    def __init__(self, banned_ops=None) -> None:
        super().__init__()
        self.banned_ops = frozenset(banned_ops or ())

    def call(self, graph_module: GraphModule) -> PassResult:
        graph = copy.deepcopy(graph_module.graph)
        graph.owning_module = graph_module  # purity checks of module calls look at the real submodules
        if not eliminate_common_subexpressions(graph, self.banned_ops):
            return PassResult(graph_module, False)
        return PassResult(GraphModule(graph_module, graph, type(graph_module).__name__), True)
