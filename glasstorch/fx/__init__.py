"""``glasstorch.fx`` — PyTorch's ``torch.fx``: a Python-level graph IR, symbolic tracing and code generation.

``symbolic_trace(module_or_fn)`` runs the code on :class:`Proxy` values and records every operation as a
:class:`Node` of a :class:`Graph`; :class:`GraphModule` turns a Graph back into an ``nn.Module`` whose
``forward`` is generated Python (``gm.code``).  :class:`Interpreter`/:class:`Transformer` walk a graph node by
node; ``glasstorch.fx.passes`` holds shape propagation and common-subexpression elimination.  The IR grammar
is in ``graph.py``; the six opcodes in ``node.py``.

Invariant: ``GraphModule(root, graph)(*inputs)`` computes what the traced code computed, and ``gm.code`` is
the exact source of that ``forward``.
"""

from . import passes  # noqa: F401
from ._effects import has_side_effect
from ._symbolic_trace import PH, Tracer, is_fx_tracing, symbolic_trace, wrap
from .graph import CodeGen, Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, map_aggregate, map_arg
from .proxy import Proxy, TraceError

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Transformer", "Node",
           "Proxy", "TraceError", "map_arg", "map_aggregate", "has_side_effect", "PH", "CodeGen", "is_fx_tracing"]
