"""The scheduler: orders the lowered nodes and fuses compute nodes into loop groups (``torch/_inductor/scheduler.py``).

A *group* is one outer loop ``for x0 in range(N)`` whose body runs each member's inner loop ``for r0 in
range(M_i)`` in turn: a reduction member reduces row ``x0``, a pointwise member writes its ``x0``-th block of
``M_i`` elements.  Pointwise chains are already inlined by lowering; the scheduler adds

* pointwise -> reduction and reduction -> pointwise fusion (softmax, layer_norm: statistics of row ``x0`` then
  the normalised row), and sibling fusion (reductions or pointwise nodes over the same rows),
* a group with ``N == 1`` is a sequence of whole loops (any dependency is satisfied), so every compute node
  between two extern calls can share one C function: one ctypes call per run of groups (a *kernel*),
* *column groups* (``Group.columns``): reductions over the outer dimension (bias and LayerNorm weight
  gradients: a ``(rows, C)`` tensor summed over its rows) read ``x0`` with unit stride and ``r0`` with a big
  one; they run with the loops interchanged (``for r0: for x0``, :mod:`.codegen_columns`) and several such
  reductions over the same ``M`` rows share one pass; nothing else joins them and they join nothing else.

Fusion rule (the invariant): a member may read a buffer written earlier in its own group only at the element
that member wrote in the same ``x0`` iteration (the index functions, as canonical :class:`~.ir.Affine`, are
equal); reductions read that way and not needed elsewhere stay in a C local instead of memory.
"""

from __future__ import annotations

from . import config, ir
from .ir import ComputeNode, ExternNode


class Member:
    __slots__ = ("node", "M", "local", "write", "reads")

    def __init__(self, node, M, write, reads):
        self.node, self.M, self.write, self.reads = node, M, write, reads
        self.local = False


class Group:
    __slots__ = ("N", "members", "columns", "M")

    def __init__(self, N, columns=False, M=None):
        self.N, self.columns = N, columns
        self.M = M  # a column group: the rows every member runs over
        self.members: list = []

    def buffers_written(self):
        return {m.node.buf.name: m for m in self.members}


class Kernel:
    """One generated C function: consecutive groups, called once from the wrapper."""

    __slots__ = ("groups", "name", "args", "source")

    def __init__(self, name):
        self.name, self.groups, self.args, self.source = name, [], [], ""


# -- per-node index analysis ----------------------------------------------------------------------------------
def loop_indices(node: ComputeNode, N: int):
    """``(M, out_idx, red_idx)`` of ``node`` run as ``N`` rows, or None when it does not split that way."""
    x0 = ir.var("x0") if N > 1 else ir.const(0)
    ir.RANGES["x0"] = N
    if node.is_reduction:
        if node.buf.numel() != N:
            return None
        M = 1
        for s in node.red_sizes:
            M *= s
        ir.RANGES["r0"] = M
        r0 = ir.var("r0") if M > 1 else ir.const(0)
        return M, ir.unflatten(x0, node.buf.sizes), ir.unflatten(r0, node.red_sizes)
    numel = node.buf.numel()
    if N == 0 or numel % N:
        return None
    M = numel // N
    ir.RANGES["r0"] = M
    r0 = ir.var("r0") if M > 1 else ir.const(0)
    return M, ir.unflatten(x0 * M + r0, node.buf.sizes), None


def analyse(node: ComputeNode, N: int):
    """Run ``node``'s body symbolically at ``N`` rows: ``(M, write index, [(buffer, index)])`` or None."""
    li = loop_indices(node, N)
    if li is None:
        return None
    M, out_idx, red_idx = li
    w = ir.KernelWriter()
    with ir.writing(w):
        if node.is_reduction:
            node.fn(out_idx, red_idx)
        else:
            node.fn(out_idx)
    return M, ir.flatten(out_idx, node.buf.strides), w.reads


def _r0_opaque(reads) -> bool:
    return any("r0" in idx.opaque_vars() for _, idx in reads)


def _start_n(node: ComputeNode, readers) -> int:
    """The row count a group starting with ``node`` uses: the rows of a reduction that reads it row by row
    (so the two fuse), else one flat loop when the indexing allows, else rows of its last dimension."""
    if node.is_reduction:
        return node.buf.numel()
    numel = node.buf.numel()
    for r in readers:
        if isinstance(r, ComputeNode) and r.is_reduction and r.buf.numel() > 1 and numel % r.buf.numel() == 0:
            group = Group(r.buf.numel())
            first = try_join(group, node)
            if first is not None and (first.M == 1 or not _r0_opaque(first.reads)):
                group.members.append(first)
                if try_join(group, r) is not None:
                    return group.N
    flat = analyse(node, 1)
    if flat is not None and not _r0_opaque(flat[2]):
        return 1
    last = node.buf.sizes[-1] if node.buf.sizes else 1
    return numel // last if last > 1 else 1


def _step(e, var: str):
    """How far index ``e`` usually moves when ``var`` grows by one (a Mod/FloorDiv wraps now and then:
    ignored), or None when it cannot tell (an indirect load that depends on ``var``)."""
    total = 0
    for t, c in e.terms.items():
        if isinstance(t, str):
            d = 1 if t == var else 0
        elif isinstance(t, (ir.Mod, ir.FloorDiv)):
            inner = _step(t.e, var)
            if inner is None:
                return None
            d = (inner if abs(inner) < t.k else None) if isinstance(t, ir.Mod) else \
                (0 if abs(inner) < t.k else inner // t.k)
        elif isinstance(t, ir.Clamp):
            d = _step(t.e, var)
        else:  # Load
            d = None if var in t.free() else 0
        if d is None:
            return None
        total += c * d
    return total


def _column_reads(reads) -> bool:
    """Whether a reduction reading ``reads`` suits the interchanged loops: every read moves by 0 or 1 element
    from one output to the next (adjacent columns) and some read walks the reduced rows with a stride."""
    strided = False
    for _, idx in reads:
        dx = _step(idx, "x0")
        if dx not in (0, 1):
            return False
        if dx == 1 and _step(idx, "r0") not in (0, 1):
            strided = True
    return strided


def is_column(node, N: int, M: int, reads) -> bool:
    """A reduction of ``N > 1`` outputs over ``M > 1`` rows that runs faster as a column group."""
    return config.column_reductions and node.is_reduction and N > 1 and M > 1 and _column_reads(reads)


def _join_columns(group: Group, node):
    """A member of a column group: a column reduction over the group's rows that reads no result of the group
    (a column result exists only after the whole pass over the rows)."""
    res = analyse(node, group.N)
    if res is None or res[0] != group.M or len(group.members) >= config.max_column_members:
        return None
    M, write, reads = res
    if not is_column(node, group.N, M, reads):
        return None
    written = group.buffers_written()
    if any(buf.name in written for buf, _ in reads):
        return None
    return Member(node, M, write, reads)


def try_join(group: Group, node: ComputeNode):
    """A Member for ``node`` in ``group`` if the fusion rule allows it, else None."""
    if group.columns:
        return _join_columns(group, node)
    res = analyse(node, group.N)
    if res is None:
        return None
    M, write, reads = res
    if is_column(node, group.N, M, reads):
        return None  # it opens a column group of its own
    if group.N > 1:
        written = group.buffers_written()
        for buf, idx in reads:
            m = written.get(buf.name)
            if m is None:
                continue
            if not m.node.is_reduction and m.M != M:
                return None
            if idx != m.write:
                return None
    if not node.is_reduction and group.members and M > 1 and _r0_opaque(reads):
        return None  # div/mod in the inner loop: better in a group of its own with rows of its last dim
    return Member(node, M, write, reads)


# -- the schedule -----------------------------------------------------------------------------------------
def schedule(nodes: list, log=None) -> list:
    """Order and group ``nodes``; returns a list of :class:`Kernel` and :class:`ExternNode` steps."""
    producer = {n.buf.name: n for n in nodes if isinstance(n, ComputeNode)}
    for n in nodes:
        if isinstance(n, ExternNode):
            for o in n.outs:
                producer[o.name] = n
    deps, readers = {}, {n: [] for n in nodes}
    for n in nodes:
        bufs = _read_buffers(n)
        deps[n] = {producer[b] for b in bufs if b in producer and producer[b] is not n}
        for d in deps[n]:
            readers[d].append(n)
    remaining = list(nodes)
    done: set = set()
    steps: list = []
    group = None
    while remaining:
        ready = [n for n in remaining if deps[n] <= done]
        pick, member = None, None
        if group is not None:
            for n in ready[:config.fusion_window]:
                if isinstance(n, ComputeNode):
                    member = try_join(group, n)
                    if member is not None:
                        pick = n
                        break
        if pick is None:
            group = None
            pick = next((n for n in ready if isinstance(n, ExternNode)), None) if config.externs_first else None
            pick = pick or ready[0]
            if isinstance(pick, ExternNode):
                steps.append(pick)
            else:
                group = _start_group(pick, readers[pick])
                member = try_join(group, pick)
                if member is None:
                    group = Group(1)
                    member = try_join(group, pick)
                _group_step(steps).groups.append(group)
        if member is not None:
            group.members.append(member)
            if log is not None:
                kind = "column group" if group.columns else "group"
                log.append(f"{pick.buf.name}: joins {kind} N={group.N} (member {len(group.members)}, M={member.M})")
        elif log is not None:
            log.append(f"{pick}: extern call")
        remaining.remove(pick)
        done.add(pick)
    _mark_locals(steps, readers)
    return steps


def _start_group(node: ComputeNode, readers) -> Group:
    N = _start_n(node, readers)
    res = analyse(node, N) if node.is_reduction else None
    if res is not None and is_column(node, N, res[0], res[2]):
        return Group(N, columns=True, M=res[0])
    return Group(N)


def _group_step(steps) -> Kernel:
    if steps and isinstance(steps[-1], Kernel) and len(steps[-1].groups) < config.max_groups_per_kernel:
        return steps[-1]
    k = Kernel(f"kernel{sum(isinstance(s, Kernel) for s in steps)}")
    steps.append(k)
    return k


def _read_buffers(n) -> set:
    if isinstance(n, ExternNode):
        return {v.buf.name for v in n.inputs}
    res = analyse(n, 1)
    if res is None:  # a reduction: analyse at its own row count
        res = analyse(n, n.buf.numel())
    return {b.name for b, _ in res[2]}


def _mark_locals(steps, readers):
    for step in steps:
        if not isinstance(step, Kernel):
            continue
        for group in step.groups:
            if group.columns:
                continue
            names = {m.node for m in group.members}
            for m in group.members:
                node = m.node
                if node.is_reduction and not node.buf.is_output and readers[node] and \
                        all(r in names for r in readers[node]) and (group.N > 1 or node.buf.numel() == 1):
                    m.local = True


def summary(steps) -> dict:
    """Counts for logs and tests: kernels (C calls), groups (loop nests), fused members, externs."""
    kernels = [s for s in steps if isinstance(s, Kernel)]
    groups = [g for k in kernels for g in k.groups]
    return {"kernels": len(kernels), "groups": len(groups), "nodes": sum(len(g.members) for g in groups),
            "fused_groups": sum(len(g.members) > 1 for g in groups),
            "column_groups": sum(g.columns for g in groups),
            "externs": sum(isinstance(s, ExternNode) for s in steps)}
