"""Split a joint forward+backward graph into a forward graph and a backward graph — PyTorch's
``torch/_functorch/partitioners.py``.

The joint graph (from :mod:`glasstorch._functorch.aot_autograd`) has placeholders ``primals_*`` then
``tangents_*`` and returns ``(*forward outputs, *gradients of the primals)``.  A partition chooses which
values the forward hands to the backward ("saved"):

* the forward graph: ``primals -> (*forward outputs, *saved)``;
* the backward graph: ``(*saved, *tangents) -> gradients`` (it recomputes whatever else it needs).

:func:`default_partition` saves every value of the forward graph the backward reads.

:func:`min_cut_rematerialization_partition` may instead recompute cheap ops in the backward.  Note [Min-cut
rule]: every tensor value the backward could get from the forward is a vertex split into ``in -> out`` with
capacity = its size in bytes (saving it costs that much memory); data edges ``producer.out -> user.in`` have
infinite capacity; the source feeds the primals and every op that must not be recomputed (anything that is
not pointwise, a view or ``getitem`` — matmuls, reductions, convolutions — every random op, and every value the
backward reads through a view into such an op, which the backward would have to write out anyway); each value
the backward reads feeds the sink.  A minimum cut is the cheapest set of saved values such that everything
else the backward needs is recomputable from them by pointwise/view ops.  Ties go to values later in the
graph (less recomputation): a value's capacity is lowered by a negligible amount per position in the graph.

Invariant: ``bw(*saved, *tangents)`` computes what the joint graph computes for the gradients, given
``fw(*primals)``'s saved values.
"""

from __future__ import annotations

import collections
import operator
import os
import re

import glasstorch
from glasstorch.fx import Graph, GraphModule
from glasstorch.fx.node import Node

__all__ = ["default_partition", "min_cut_rematerialization_partition", "is_recomputable", "saved_bytes"]

_INF = float("inf")
_RANDOM = re.compile(r"rand|bernoulli|dropout|normal|uniform|multinomial|exponential|poisson|random")
_pointwise_names: set | None = None


def _pointwise() -> set:
    """Operator base names tagged ``pointwise`` in native_functions/*.yaml (read once)."""
    global _pointwise_names
    if _pointwise_names is None:
        folder = os.path.join(os.path.dirname(glasstorch.__file__), "_ops", "native_functions")
        names, current = set(), None
        for fname in sorted(os.listdir(folder)):
            if not fname.endswith(".yaml"):
                continue
            with open(os.path.join(folder, fname)) as f:
                for line in f:
                    if line.startswith("- func:"):
                        current = line[7:].strip().split("(")[0].split(".")[0]
                    elif current and line.strip().startswith("tags:") and "pointwise" in line:
                        names.add(current)
        _pointwise_names = names | {"where", "clone", "_to_copy", "masked_fill", "lerp", "clamp", "gelu", "silu",
                                    "relu", "sigmoid", "tanh"}
    return _pointwise_names


def is_recomputable(node: Node) -> bool:
    """Whether the min-cut partition may recompute ``node`` in the backward (pointwise, view or getitem op)."""
    if node.op != "call_function" or node.meta.get("aot_keep_in_forward") or node.meta.get("aot_private_copy"):
        return False
    if node.target is operator.getitem:
        return True
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return False
    name = schema.name.split("::")[-1]
    if _RANDOM.search(name) or schema.is_mutable:
        return False
    return schema.is_view or name in _pointwise()


def _is_view(node) -> bool:
    """A view op's result (or an element of a list of views): saving it would keep its base alive anyway, so the
    min-cut saves the base and recomputes the view."""
    if node.op != "call_function":
        return False
    if node.target is operator.getitem:
        return _is_view(node.args[0])
    schema = getattr(node.target, "_schema", None)
    return schema is not None and schema.is_view


def _is_tensor(node) -> bool:
    return isinstance(node, Node) and isinstance(node.meta.get("val"), glasstorch.Tensor)


def _nbytes(node) -> int:
    v = node.meta["val"]
    return v.numel() * v.element_size()


def saved_bytes(fw_module: GraphModule, num_fwd_outputs: int) -> int:
    """Bytes the forward graph saves for the backward (its outputs after the first ``num_fwd_outputs``)."""
    outs = fw_module.graph.output_node().args[0][num_fwd_outputs:]
    return sum(_nbytes(n) for n in outs if _is_tensor(n))


# -- graph surgery ---------------------------------------------------------------------------------------------
class _Joint:
    """The joint graph classified: primals, tangents, forward outputs, gradients, tangent-dependent nodes."""

    def __init__(self, joint_module: GraphModule, num_fwd_outputs: int):
        self.module = joint_module
        nodes = list(joint_module.graph.nodes)
        self.order = {n: i for i, n in enumerate(nodes)}
        placeholders = [n for n in nodes if n.op == "placeholder"]
        self.primals = [n for n in placeholders if not n.name.startswith("tangents")]
        self.tangents = [n for n in placeholders if n.name.startswith("tangents")]
        outs = list(joint_module.graph.output_node().args[0])
        self.fw_outs = outs[:num_fwd_outputs]
        self.grads = outs[num_fwd_outputs:]
        self.backward_only = set()  # nodes that depend on a tangent
        for n in nodes:
            if n in self.tangents or any(i in self.backward_only for i in n.all_input_nodes):
                self.backward_only.add(n)
        self.writers = _writers(nodes)

    def ancestors(self, roots, stop=()) -> set:
        """Nodes needed to compute ``roots`` (not walking past ``stop``); a value written in place (a private
        copy, Note [Private copies] in functionalize.py) needs the ops that write it."""
        seen, todo = set(), [r for r in roots if isinstance(r, Node)]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            if n not in stop:
                todo.extend(n.all_input_nodes)
                todo.extend(self.writers.get(n, ()))
        return seen


def _writers(nodes) -> dict:
    """value node -> the in-place calls that write it."""
    out: dict = {}
    for n in nodes:
        schema = getattr(n.target, "_schema", None) if n.op == "call_function" else None
        if schema is None or not schema.is_mutable:
            continue
        for i, a in enumerate(schema.arguments):
            if not a.is_write:
                continue
            value = n.args[i] if i < len(n.args) else n.kwargs.get(a.name)
            for v in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(v, Node):
                    out.setdefault(v, []).append(n)
    return out


def _extract(joint: _Joint, inputs: list, outputs: list, name: str) -> GraphModule:
    """A GraphModule computing ``outputs`` from ``inputs`` with the joint graph's nodes (in its order)."""
    graph = Graph()
    env = {}
    for node in inputs:
        env[node] = graph.placeholder(node.name)
        env[node].meta = dict(node.meta)
    needed = joint.ancestors(outputs, stop=set(inputs))
    for node in joint.module.graph.nodes:
        if node in env or node not in needed:
            continue
        if node.op == "placeholder":
            raise RuntimeError(f"partition: the {name} graph needs {node.name}, which is not one of its inputs")
        env[node] = graph.node_copy(node, lambda n: env[n])
    graph.output(tuple(env[o] if isinstance(o, Node) else o for o in outputs))
    graph.eliminate_dead_code()
    gm = GraphModule(joint.module, graph, class_name=name)
    return gm


def _with_getitems(joint: _Joint, fw_nodes: set) -> set:
    """Forward nodes plus the getitem elements of forward tuple-valued nodes (a tuple cannot be saved)."""
    out = set(fw_nodes)
    for n in fw_nodes:
        for user in n.users:
            if user.target is operator.getitem and user not in joint.backward_only:
                out.add(user)
    return out


def _finish(joint: _Joint, saved: list, num_fwd_outputs: int):
    """Build (fw, bw) modules from the saved values; unused tangents are dropped from the backward."""
    saved = sorted(set(saved), key=joint.order.__getitem__)
    bw_needed = joint.ancestors(joint.grads, stop=set(saved) | set(joint.tangents))
    tangents = [t for t in joint.tangents if t in bw_needed]
    saved = [s for s in saved if s in bw_needed]
    fw = _extract(joint, joint.primals, list(joint.fw_outs) + saved, "GraphModule")
    bw = _extract(joint, saved + tangents, list(joint.grads), "GraphModule")
    fw.meta["num_fwd_outputs"] = num_fwd_outputs
    fw.meta["num_saved"] = len(saved)
    bw.meta["num_saved"] = len(saved)
    bw.meta["tangent_indices"] = [joint.tangents.index(t) for t in tangents]
    return fw, bw


def _saved_from(joint: _Joint, fw_nodes: set) -> list:
    """Forward values read by a backward node."""
    bw_needed = joint.ancestors(joint.grads, stop=fw_nodes | set(joint.tangents))
    saved = []
    for n in fw_nodes:
        if any(u in bw_needed and u not in fw_nodes for u in n.users) and n.op != "get_attr":
            saved.append(n)
    return saved


def default_partition(joint_module: GraphModule, _joint_inputs=None, *, num_fwd_outputs: int):
    """Forward graph = what the forward outputs need; it saves every value of it that the backward reads.

    Args:
        joint_module: the joint graph (placeholders ``primals_*`` then ``tangents_*``).
        _joint_inputs: the joint graph's example inputs (unused; kept for PyTorch's signature).
        num_fwd_outputs: how many of the joint outputs are forward outputs.

    Returns:
        ``(fw_module, bw_module)``.

    Example:
        >>> fw, bw = default_partition(joint, None, num_fwd_outputs=1)  # doctest: +SKIP
    """
    joint = _Joint(joint_module, num_fwd_outputs)
    fw_nodes = joint.ancestors(joint.fw_outs) | set(joint.primals)
    fw_nodes = _with_getitems(joint, fw_nodes)
    saved = _saved_from(joint, fw_nodes)
    if any(not _is_tensor(s) for s in saved):
        raise RuntimeError(f"partition: cannot save non-tensor values {[s.name for s in saved if not _is_tensor(s)]}")
    return _finish(joint, saved, num_fwd_outputs)


def min_cut_rematerialization_partition(joint_module: GraphModule, _joint_inputs=None, *, num_fwd_outputs: int,
                                        compiler: str = "inductor"):
    """Save the cheapest set of values from which the backward recomputes the rest (Note [Min-cut rule]).

    Args:
        joint_module: the joint graph (placeholders ``primals_*`` then ``tangents_*``).
        _joint_inputs: the joint graph's example inputs (unused; kept for PyTorch's signature).
        num_fwd_outputs: how many of the joint outputs are forward outputs.
        compiler: accepted for PyTorch's signature; the rule does not depend on it.

    Returns:
        ``(fw_module, bw_module)``.

    Example:
        >>> fw, bw = min_cut_rematerialization_partition(joint, None, num_fwd_outputs=1)  # doctest: +SKIP
    """
    joint = _Joint(joint_module, num_fwd_outputs)
    saved = _min_cut(joint)
    if saved is None:  # something the backward needs cannot be saved or recomputed: save as the default does
        return default_partition(joint_module, _joint_inputs, num_fwd_outputs=num_fwd_outputs)
    return _finish(joint, saved, num_fwd_outputs)


def _min_cut(joint: _Joint):
    """The saved values of a minimum cut, or None when the flow is unbounded.

    The network holds the values the forward outputs need (the only ones the forward computes) that the
    backward also needs; everything else the backward needs is backward work and reads from the network.
    """
    required_fw = _with_getitems(joint, joint.ancestors(joint.fw_outs) | set(joint.primals))
    bw_needed = joint.ancestors(joint.grads, stop=set(joint.tangents))
    candidates = {n for n in bw_needed if n in required_fw and n.op != "get_attr"}
    if not candidates:
        return []
    net = _FlowNetwork()
    n_nodes = len(joint.order)
    for n in candidates:
        cap = _INF
        if _is_tensor(n) and not n.meta.get("aot_never_save") and not _is_view(n):
            cap = _nbytes(n) * (1.0 - 1e-9 * joint.order[n] / n_nodes) if _nbytes(n) else 1e-12
        net.add((n, "in"), (n, "out"), cap)
        if n.op == "placeholder" or not is_recomputable(n) or (
                not _is_view(n) and _materialized_in_backward(n, candidates, bw_needed)):
            net.add("source", (n, "in"), _INF)
        for user in n.users:
            if user in candidates:
                net.add((n, "out"), (user, "in"), _INF)
            elif user in bw_needed:
                net.add((n, "out"), "sink", _INF)
    flow = net.max_flow("source", "sink")
    if flow == _INF:
        return None
    reachable = net.reachable("source")
    return [n for n in candidates if (n, "in") in reachable and (n, "out") not in reachable]


def _materialized_in_backward(node, candidates, bw_needed) -> bool:
    """Whether the backward reads ``node`` (directly or through views) with an op that cannot fuse it (a matmul,
    a reduction ...): recomputing it there costs a full pass of its own, while the forward writes it anyway, so it
    is saved instead (PyTorch's partitioner bans such recomputation too)."""
    for user in node.users:
        if user not in bw_needed:
            continue
        if _is_view(user):
            if _materialized_in_backward(user, candidates, bw_needed):
                return True
        elif user not in candidates and not is_recomputable(user):
            return True
    return False


class _FlowNetwork:
    """A directed graph with capacities and Edmonds-Karp maximum flow (BFS augmenting paths)."""

    def __init__(self):
        self.cap = collections.defaultdict(dict)

    def add(self, u, v, c):
        self.cap[u][v] = self.cap[u].get(v, 0) + c
        self.cap[v].setdefault(u, 0)

    def _path(self, s, t):
        parent = {s: None}
        queue = collections.deque([s])
        while queue:
            u = queue.popleft()
            for v, c in self.cap[u].items():
                if c > 0 and v not in parent:
                    parent[v] = u
                    if v == t:
                        return parent
                    queue.append(v)
        return None

    def max_flow(self, s, t) -> float:
        total = 0.0
        while (parent := self._path(s, t)) is not None:
            bottleneck, v = _INF, t
            while parent[v] is not None:
                bottleneck = min(bottleneck, self.cap[parent[v]][v])
                v = parent[v]
            if bottleneck == _INF:
                return _INF
            v = t
            while parent[v] is not None:
                u = parent[v]
                self.cap[u][v] -= bottleneck
                self.cap[v][u] += bottleneck
                v = u
            total += bottleneck
        return total

    def reachable(self, s) -> set:
        seen, todo = {s}, [s]
        while todo:
            u = todo.pop()
            for v, c in self.cap[u].items():
                if c > 0 and v not in seen:
                    seen.add(v)
                    todo.append(v)
        return seen
