"""Helpers shared by the fx tests: trace with both libraries and compare graphs and code.

Graph text and generated code are compared after one normalisation: PyTorch's ``torch._C._nn.<f>`` (its C
bindings of ``nn.functional``) is spelled ``torch.nn.functional.<f>`` in glasstorch, where those functions
live.  Everything else (``torch.`` prefixes included: glasstorch's generated code binds ``torch`` to
glasstorch) must match character for character.
"""

from __future__ import annotations

import torch
import torch.fx as tfx

import glasstorch
import glasstorch.fx as gfx


def normalize(text: str) -> str:
    return text.replace("torch._C._nn.", "torch.nn.functional.")


def trace_both(builder, concrete_args=None):
    """``(glasstorch GraphModule, torch GraphModule)`` for ``builder(lib)`` (a module or a function)."""
    gt_root, th_root = builder(glasstorch), builder(torch)
    return gfx.symbolic_trace(gt_root, concrete_args), tfx.symbolic_trace(th_root, concrete_args)


def node_summary(graph) -> list:
    """``(op, name, target, args, kwargs)`` per node, targets by printed name, Nodes as ``%name``."""
    out = []
    for n in graph.nodes:
        line = n.format_node()
        out.append((n.op, n.name, normalize(n._pretty_print_target(n.target)), normalize(line)))
    return out


def assert_same_graph(gm_gt, gm_th) -> None:
    assert node_summary(gm_gt.graph) == node_summary(gm_th.graph)
    assert str(gm_gt.graph) == normalize(str(gm_th.graph))


def assert_same_code(gm_gt, gm_th) -> None:
    assert gm_gt.code == normalize(gm_th.code)
