"""C for column groups: reductions over the outer dimension with the loops interchanged.

PyTorch counterpart: the *outer reduction* of ATen's CPU reduction loops (``is_outer_reduction`` in
``aten/src/ATen/native/cpu/Reduce.h``: vectorised across outputs, the reduced dimension in the outer loop).

A column group (:class:`~.scheduler.Group` with ``columns``) holds reductions of ``N`` outputs over ``M`` rows
whose input is stored row by row: output ``x0`` reads ``g[C*r0 + x0]`` (bias and LayerNorm weight gradients).
In row order each output would walk its column with stride ``C``; here the outputs are cut into blocks of
columns (one per thread when the work is large enough, each small enough that its accumulators stay in L1),
and a block runs::

    acc_m[x] = init                                   one accumulator array per member (double for float sums)
    for r0 in M:  for x0 in block (omp simd):  acc_m[x0] = combine(acc_m[x0], value_m(x0, r0))
    out_m[x0] = acc_m[x0]                             (mean: acc / M)

so every read is unit stride and vectorises, members share the loads of the rows they have in common, and
terms that depend on ``r0`` only (LayerNorm's ``rstd[r0]``) are loop invariants of the inner loop.

Invariant: each output is still combined over ``r0 = 0, 1, ..., M-1`` in order, in the accumulator type, with
the same operations as the row-order loop (IEEE, no fast-math); only the order of the loops changes.
"""

from __future__ import annotations

from . import config, ir
from .codegen_common import combine, init, run_bodies, store
from .scheduler import Group

# bytes of accumulators one block keeps (a share of a 32 KiB L1 data cache; the rows stream past it)
ACC_BYTES = 16384


def block_cap(group: Group) -> int:
    """The most columns one block holds: a multiple of 16 with all members' accumulators within ACC_BYTES."""
    per_col = sum(m.node.acc_dtype.itemsize for m in group.members)
    cap = max(16, ACC_BYTES // per_col // 16 * 16)
    return min(cap, (group.N + 15) // 16 * 16)


def emit_group(em, group: Group, bufs: dict, written: set, prof_slot=None):
    """Print ``group`` into ``em`` (a codegen_c emitter); add its buffers to ``bufs``/``written``.

    Accumulators start, combine and store by :mod:`.codegen_common`'s rules, as in the row-order loops;
    ``prof_slot`` is the ``gt_prof`` counter to add the group's time to, or None.
    """
    N, M = group.N, group.M
    body, results = _bodies(group, bufs, written)
    cap = block_cap(group)
    par = N * M >= config.parallel_threshold
    em.emit("{")
    em.depth += 1
    if prof_slot is not None:
        em.emit("double gt_t0 = omp_get_wtime();")
    em.emit(f"int64_t gt_nb = {-(-N // cap)};")
    if par:
        em.emit("if (gt_nb < nt) gt_nb = nt;")
    em.emit(f"const int64_t gt_xb = (({N} + gt_nb - 1) / gt_nb + 15) / 16 * 16;")
    if par:
        em.emit("#pragma omp parallel for num_threads(nt) schedule(static)")
    em.emit(f"for (int64_t gt_x = 0; gt_x < {N}; gt_x += gt_xb) {{")
    em.depth += 1
    em.emit(f"const int64_t gt_xe = gt_x + gt_xb < {N} ? gt_x + gt_xb : {N};")
    _block(em, group, M, cap, body, results)
    em.depth -= 1
    em.emit("}")
    if prof_slot is not None:
        em.emit(f"gt_prof[{prof_slot}] += omp_get_wtime() - gt_t0;")
    em.depth -= 1
    em.emit("}")


def _bodies(group: Group, bufs: dict, written: set):
    """All members' bodies run under one writer (shared loads); ``[(member, value, write index)]``."""
    w, results = run_bodies(group.members, group.N)
    for buf, _ in w.reads:
        bufs.setdefault(buf.name, buf)
    for m, _, _ in results:
        bufs.setdefault(m.node.buf.name, m.node.buf)
        written.add(m.node.buf.name)
    return w.lines, results


def _acc(m) -> str:
    return f"acc_{m.node.buf.name}[x0 - gt_x]"


def _block(em, group, M, cap, body, results):
    """One block of columns ``[gt_x, gt_xe)``: accumulators, the pass over the rows, the stores."""
    for m, _, _ in results:
        node = m.node
        em.emit(f"{ir.ctype(node.acc_dtype)} acc_{node.buf.name}[{cap}] __attribute__((aligned(64)));")
    em.emit("#pragma omp simd")
    em.emit("for (int64_t x0 = gt_x; x0 < gt_xe; x0++) {")
    for m, _, _ in results:
        em.emit(f"    {_acc(m)} = {init(m.node.rtype, m.node.acc_dtype)};")
    em.emit("}")
    em.emit(f"for (int64_t r0 = 0; r0 < {M}; r0++) {{")
    em.depth += 1
    em.emit("#pragma omp simd")
    em.emit("for (int64_t x0 = gt_x; x0 < gt_xe; x0++) {")
    em.depth += 1
    em.block(body)
    for m, v, _ in results:
        em.emit(combine(m.node.rtype, m.node.acc_dtype, _acc(m), v.name))
    em.depth -= 1
    em.emit("}")
    em.depth -= 1
    em.emit("}")
    em.emit("for (int64_t x0 = gt_x; x0 < gt_xe; x0++) {")
    for m, _, windex in results:
        em.emit("    " + store(m.node, _acc(m), M, f"{m.node.buf.name}[{windex}]"))
    em.emit("}")
