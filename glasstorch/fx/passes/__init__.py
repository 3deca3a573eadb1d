"""Graph passes over FX GraphModules (``torch.fx.passes``): shape propagation, CSE, dead-code elimination.

Dead-code elimination itself is ``Graph.eliminate_dead_code``; :func:`dead_code_elimination` runs it on a
GraphModule and recompiles.
"""

from . import cse, infra, shape_prop  # noqa: F401
from .cse import CSEPass, eliminate_common_subexpressions  # noqa: F401
from .shape_prop import ShapeProp, TensorMetadata  # noqa: F401


def dead_code_elimination(gm) -> bool:
    """Remove unused pure nodes from ``gm.graph`` and recompile ``gm``; returns whether anything changed."""
    changed = gm.graph.eliminate_dead_code()
    if changed:
        gm.recompile()
    return changed
