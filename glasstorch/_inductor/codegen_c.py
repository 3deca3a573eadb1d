"""C code generation for scheduled kernels (``torch/_inductor/codegen/cpp.py``).

A :class:`~.scheduler.Kernel` becomes one C function ``void kernelK(T* restrict buf.., int nt)``.  Each group
is an outer loop over ``x0`` (``#pragma omp parallel for num_threads(nt)`` when the work is large enough), each
member an inner loop over ``r0`` with unit-stride accesses that gcc vectorises; a group of one row instead
parallelises each member's own loop.  Float sums accumulate in double (``#pragma omp simd reduction``).
Consecutive members with the same inner length that do not read each other share one inner loop and one
writer (a value they both compute is computed once); a member whose body asks for it is cut into pieces or
nested loops (:mod:`.loop_split`); a group of column reductions swaps its loops (:mod:`.codegen_columns`).

Invariant: generated code is IEEE (no fast-math): every operation is the one the eager kernel performs, in the
same precision, so results agree to rounding.
"""

from __future__ import annotations

from .._core import dtype as _dt
from .._ops.kernels.cpu import ckernels_src as _ck_src
from . import codegen_columns, config, ir, loop_split
from .codegen_common import combine, init, note_reads, run_bodies, store
from .scheduler import Kernel, Member, loop_indices

HEADER = """#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <math.h>
#include <omp.h>
#define GT_MAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#define GT_MIN(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
""" + "\n".join(
    ["#if defined(__GLIBC__) && defined(__x86_64__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35)"]
    + [f"#pragma omp declare simd notinbranch\nextern {t} {n}({t}{', ' + t if n.startswith('pow') else ''});"
       for t, suffix in (("float", "f"), ("double", ""))
       for n in (f + suffix for f in ("exp", "log", "erf", "tanh", "log1p", "expm1", "sin", "cos", "exp2", "log2",
                                        "tan", "atan", "pow"))]
    + ["#endif", ""]) + _ck_src.MATH


class _Emitter:
    def __init__(self):
        self.lines: list = []
        self.depth = 1

    def emit(self, line):
        self.lines.append("    " * self.depth + line)

    def block(self, lines):
        for ln in lines:
            self.emit(ln)


def generate(kernel: Kernel, prof: list | None = None) -> str:
    """Fill ``kernel.args`` (buffers in call order) and return the C source of its function.

    With ``prof`` (a list) each group is timed into ``gt_prof[i]`` (declared by :func:`profile_source`) and
    its description appended to ``prof``: ``config.profile_kernels`` turns this on.
    """
    bufs: dict = {}
    written: set = set()
    em = _Emitter()
    for group in kernel.groups:
        if group.columns:  # reductions over the outer dimension: loops interchanged
            codegen_columns.emit_group(em, group, bufs, written, None if prof is None else len(prof))
            if prof is not None:
                prof.append(describe_group(kernel, group))
            continue
        locals_ = {m.node.buf.name: f"acc_{m.node.buf.name}" for m in group.members if m.local}
        em.emit("{")
        em.depth += 1
        if prof is not None:
            em.emit("double gt_t0 = omp_get_wtime();")
        par = group.N > 1 and group.N * max(m.M for m in group.members) >= config.parallel_threshold
        if group.N > 1:
            if par:
                em.emit("#pragma omp parallel for num_threads(nt) schedule(static)")
            em.emit(f"for (int64_t x0 = 0; x0 < {group.N}; x0++) {{")
            em.depth += 1
        for m in group.members:
            if m.local:
                em.emit(f"{ir.ctype(m.node.buf.dtype)} {locals_[m.node.buf.name]};")
        for run in _runs(group):
            if len(run) == 1 or not _merged(em, group, run, locals_, bufs, written):
                for m in run:
                    _member(em, group, m, locals_, bufs, written)
        if group.N > 1:
            em.depth -= 1
            em.emit("}")
        if prof is not None:
            em.emit(f"gt_prof[{len(prof)}] += omp_get_wtime() - gt_t0;")
            prof.append(describe_group(kernel, group))
        em.depth -= 1
        em.emit("}")
    kernel.args = list(bufs.values())
    params = []
    for b in kernel.args:
        const = "" if b.name in written else "const "
        # bool memory as uint8_t: gcc has no vector type for _Bool loads (values stay 0/1 either way)
        elem = "uint8_t" if b.dtype is _dt.bool else ir.ctype(b.dtype)
        params.append(f"{const}{elem}* restrict {b.name}")
    params.append("int nt")
    body = "\n".join(em.lines)
    return f"void {kernel.name}({', '.join(params)}) {{\n    (void)nt;\n{body}\n}}\n"


def describe_group(kernel: Kernel, group) -> str:
    """One line naming a group: its kernel, row count and members with the FX nodes they came from."""
    parts = []
    for m in group.members:
        origin = m.node.buf.origin or "output"
        parts.append(f"{m.node.buf.name}[M={m.M}{',local' if m.local else ''}]<-{origin}")
    return f"{kernel.name} N={group.N}: " + "; ".join(parts)


def profile_source(n: int) -> str:
    """The counters the timed groups add to, and the function the wrapper reads them with."""
    return (f"double gt_prof[{max(n, 1)}];\n"
            "double* gt_prof_counters(void) { return gt_prof; }\n")


def _member(em, group, m: Member, locals_, bufs, written):
    node = m.node
    M, out_idx, red_idx = loop_indices(node, group.N)
    w = ir.KernelWriter(locals_)
    w.splits = []  # index ranges a cat body selects between (loop_split cuts the loop there)
    with ir.writing(w):
        v = node.fn(out_idx, red_idx) if node.is_reduction else node.fn(out_idx)
        windex = ir.flatten(out_idx, node.buf.strides).render()
    note_reads(w, locals_, bufs)
    name = node.buf.name
    if not m.local:
        bufs.setdefault(name, node.buf)
        written.add(name)
    big = group.N == 1 and M >= config.parallel_threshold
    if node.is_reduction:
        _reduction(em, node, m, M, w, v, windex, locals_, big)
    elif not loop_split.emit_pointwise(em, node, group.N, M, w, locals_, bufs):
        _pointwise(em, node, M, w, v, windex, big)


def _runs(group) -> list:
    """Consecutive members that may share one inner loop: the same ``M > 1``, sums/means or plain pointwise, none
    reading what an earlier one of the run writes, and no whole-row parallel loop (a group of one row)."""
    runs, cur, wrote = [], [], set()
    for m in group.members:
        node = m.node
        ok = m.M > 1 and (not node.is_reduction or node.rtype in ("sum", "mean")) and not (
            group.N == 1 and m.M >= config.parallel_threshold)
        reads = {buf.name for buf, _ in m.reads}
        if cur and ok and m.M == cur[0].M and not (reads & wrote):
            cur.append(m)
            wrote.add(node.buf.name)
            continue
        if cur:
            runs.append(cur)
        cur, wrote = ([m], {node.buf.name}) if ok else ([], set())
        if not ok:
            runs.append([m])
    if cur:
        runs.append(cur)
    return runs


def _merged(em, group, run, locals_, bufs, written) -> bool:
    """Emit ``run`` as one loop: the bodies share one writer, so a value two members compute (softmax's
    ``exp(x - max)`` for its sum and its output, GELU's input for its two outputs) is computed once.  False
    (nothing emitted) when a body wants its loop cut (``loop_split``)."""
    w, parts = run_bodies(run, group.N, locals_)
    if w.splits or any("r0" in idx.opaque_vars() for _, idx in w.reads):
        return False
    note_reads(w, locals_, bufs)
    accs = []
    for m, _, _ in parts:
        if not m.local:
            bufs.setdefault(m.node.buf.name, m.node.buf)
            written.add(m.node.buf.name)
        if m.node.is_reduction:
            accs.append(f"acc{len(accs)}")
    em.emit("{")
    em.depth += 1
    for m, name in zip((p[0] for p in parts if p[0].node.is_reduction), accs, strict=True):
        em.emit(f"{ir.ctype(m.node.acc_dtype)} {name} = {init(m.node.rtype, m.node.acc_dtype)};")
    clauses = "".join(f" reduction(+:{a})" for a in accs)
    _loop_head(em, run[0].M, f"#pragma omp simd{clauses}")
    em.block(w.lines)
    it = iter(accs)
    for m, v, windex in parts:
        if m.node.is_reduction:
            em.emit(combine(m.node.rtype, m.node.acc_dtype, next(it), v.name))
        else:
            em.emit(f"{m.node.buf.name}[{windex}] = {v.name};")
    em.depth -= 1
    em.emit("}")
    it = iter(accs)
    for m, _, windex in parts:
        if m.node.is_reduction:
            target = locals_[m.node.buf.name] if m.local else f"{m.node.buf.name}[{windex}]"
            em.emit(store(m.node, next(it), m.M, target))
    em.depth -= 1
    em.emit("}")
    return True


def _loop_head(em, M, pragma=None):
    if M > 1:
        if pragma:
            em.emit(pragma)
        em.emit(f"for (int64_t r0 = 0; r0 < {M}; r0++) {{")
    else:
        em.emit("{")
    em.depth += 1


def _pointwise(em, node, M, w, v, windex, big):
    # libmvec's vector tanhf/logf/... (declared in HEADER) and the inline gt_expf/gt_erff let these loops vectorise
    _loop_head(em, M, "#pragma omp parallel for simd num_threads(nt) schedule(static)" if big else
               "#pragma omp simd")
    em.block(w.lines)
    em.emit(f"{node.buf.name}[{windex}] = {v.name};")
    em.depth -= 1
    em.emit("}")


def _reduction(em, node, m, M, w, v, windex, locals_, big):
    acc_t = ir.ctype(node.acc_dtype)
    em.emit("{")
    em.depth += 1
    em.emit(f"{acc_t} acc = {init(node.rtype, node.acc_dtype)};")
    clauses = None
    nan_flag = node.rtype in ("max", "min") and node.acc_dtype.is_floating_point
    if node.rtype in ("sum", "mean"):
        clauses = "reduction(+:acc)"
    elif node.rtype in ("max", "min") and node.acc_dtype is not _dt.bool:
        # max/min as plain selects the compiler vectorises; NaN is tracked on the side (torch propagates it)
        clauses = f"reduction({node.rtype}:acc)" + (" reduction(|:nan)" if nan_flag else "")
    if nan_flag:
        em.emit("int nan = 0;")
    pragma = None
    if clauses is not None:
        pragma = (f"#pragma omp parallel for num_threads(nt) {clauses}" if big else f"#pragma omp simd {clauses}")
    _loop_head(em, M, pragma)
    em.block(w.lines)
    if clauses is not None and node.rtype in ("max", "min"):
        op = ">" if node.rtype == "max" else "<"
        em.emit(f"acc = ({v.name} {op} acc) ? {v.name} : acc;")
        if nan_flag:
            em.emit(f"nan |= ({v.name} != {v.name});")
    else:
        em.emit(combine(node.rtype, node.acc_dtype, "acc", v.name))
    em.depth -= 1
    em.emit("}")
    if nan_flag:
        em.emit(f"if (nan) acc = {'NAN' if node.acc_dtype is _dt.float32 else '(double)NAN'};")
    target = locals_[node.buf.name] if m.local else f"{node.buf.name}[{windex}]"
    em.emit(store(node, "acc", M, target))
    em.depth -= 1
    em.emit("}")
