"""What every loop emitter of the inductor shares: accumulator rules and running member bodies.

Used by :mod:`.codegen_c` (row-order groups, merged loops) and :mod:`.codegen_columns` (column groups), so a
reduction starts, combines and stores the same way whichever loop nest it is emitted in.
"""

from __future__ import annotations

from .._core import dtype as _dt
from . import ir
from .scheduler import loop_indices


def init(rtype, dtype) -> str:
    """The C start value of an accumulator."""
    if rtype in ("sum", "mean"):
        return "0"
    if rtype == "prod":
        return "1"
    big = rtype == "min"
    if dtype.is_floating_point:
        return "INFINITY" if big else "-INFINITY"
    if dtype is _dt.bool:
        return "1" if big else "0"
    bits = dtype.itemsize * 8
    return f"INT{bits}_MAX" if big else f"INT{bits}_MIN"


def combine(rtype, dtype, acc, v) -> str:
    """The C statement folding value ``v`` into accumulator ``acc``."""
    if rtype in ("sum", "mean"):
        return f"{acc} += {v};"
    if rtype == "prod":
        return f"{acc} *= {v};"
    macro = "GT_MAX" if rtype == "max" else "GT_MIN"
    if not dtype.is_floating_point:
        op = ">" if rtype == "max" else "<"
        return f"{acc} = ({v} {op} {acc}) ? {v} : {acc};"
    return f"{acc} = {macro}({acc}, {v});"


def store(node, acc: str, M: int, target: str) -> str:
    """The C statement writing a finished accumulator (a mean divides by ``M``) in the output's type."""
    result = f"({acc} / {M})" if node.rtype == "mean" else acc
    return f"{target} = ({ir.ctype(node.buf.dtype)}){result};"


def note_reads(w, locals_, bufs: dict) -> None:
    """Add the buffers ``w``'s body read (not the C locals standing for fused reductions) to ``bufs``."""
    for buf, _ in w.reads:
        if buf.name not in locals_:
            bufs.setdefault(buf.name, buf)


def run_bodies(members, N: int, locals_=None):
    """Run the bodies of ``members`` (rows of ``N``) under one writer, so loads and values they share are
    emitted once: ``(writer, [(member, value, C write index)])``."""
    w = ir.KernelWriter(locals_)
    w.splits = []  # cat bodies record where they would cut the loop (loop_split)
    parts = []
    with ir.writing(w):
        for m in members:
            node = m.node
            _, out_idx, red_idx = loop_indices(node, N)
            v = node.fn(out_idx, red_idx) if node.is_reduction else node.fn(out_idx)
            parts.append((m, v, ir.flatten(out_idx, node.buf.strides).render()))
    return w, parts
