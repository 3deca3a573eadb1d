"""The one registry of compile-stack log channels (PyTorch: ``torch/_logging/_registrations.py``).

Two kinds of channel, as in PyTorch:

- **components** (``dynamo``, ``aot``, ``inductor``, ``fx``): ordinary loggers whose level a setting raises
  or lowers (``dynamo`` -> INFO, ``+dynamo`` -> DEBUG, ``-dynamo`` -> ERROR);
- **artifacts** (``graph_breaks``, ``recompiles``, ``guards``, ``aot_graphs``, ``output_code``, ``schedule``
  ...): named outputs that are silent unless switched on by name.

Invariant: a name is declared here exactly once; every lookup of an unknown name raises with the list of
known ones.
"""

from __future__ import annotations

__all__ = ["ARTIFACTS", "COMPONENTS"]

#: component name -> the logger (and every logger below it) that the component's level applies to
COMPONENTS: dict[str, str] = {
    "dynamo": "glasstorch._dynamo",
    "aot": "glasstorch._functorch",
    "inductor": "glasstorch._inductor",
    "fx": "glasstorch.fx",
}

#: artifact name -> what it shows (all off by default)
ARTIFACTS: dict[str, str] = {
    "graph_breaks": "each graph break: reason and the user source line",
    "recompiles": "each recompilation: the guard that failed",
    "recompiles_verbose": "each recompilation: every failed guard of every cached entry",
    "guards": "the guards of each compiled entry",
    "graph_code": "the Python code of each graph dynamo captures",
    "graph": "the tabular form of each graph dynamo captures",
    "aot_graphs": "AOT autograd's forward and backward graphs",
    "aot_joint_graph": "AOT autograd's joint forward+backward graph",
    "output_code": "the code inductor generates (wrapper and C kernels)",
    "kernel_code": "each generated kernel's source",
    "schedule": "inductor's scheduling and fusion decisions",
    "fusion": "each fusion inductor considers and why it was taken or refused",
    "ir_pre_fusion": "inductor's loop-level IR before fusion",
    "ir_post_fusion": "inductor's loop-level IR after fusion",
    "perf_hints": "hints about lost performance (fallbacks, unfusable ops)",
}
