"""Loop splitting of pointwise members: pieces for ``cat`` and nested loops for div/mod indexing.

PyTorch counterpart: the loop transformations of ``torch/_inductor/codegen/cpp.py`` (``LoopLevel.split_with_tiling``,
``IterationRanges`` with ``ModularIndexing``/``FloorDiv`` simplification) and the ``masked`` loads of ``cat``
lowered to ``ConcatKernel`` pieces.  Here a member's inner loop over ``r0`` is re-emitted, with the body run
again symbolically, in one of two ways:

* **pieces** - a body that selects between inputs by an index (``cat``) records a *split request*
  ``(index, cuts)`` through :func:`request`.  When the index is ``r0 + c`` the loop is cut into one loop per
  interval ``[a, b)`` of ``r0`` between cut points, each with exact bounds: the body of a piece then sees
  the index inside one input's range and loads that input only (no select, no clamp).  When the index
  depends on the row ``x0`` only, the row is *versioned*: ``if (index <= hi0) {..} else {..}``, each branch
  run with the fact ``lo <= index <= hi`` (:func:`known_bounds`) so again one input is read.
* **nested loops** - an index with ``FloorDiv``/``Mod`` of ``r0`` by ``k`` (a view that reorders dimensions,
  such as the head layout ``(B, H, T, D)`` read in ``(B, T, H, D)`` order) is affine in ``r1, r2`` when
  ``r0 = k*r1 + r2`` and ``k`` divides the loop length: two loops, the inner one contiguous and vectorised.

Invariant: only the order of the loop iterations changes; every element is computed by the same operations
on the same values (a piece reads exactly the input the select would have picked), so results are bitwise
those of the single loop.
"""

from __future__ import annotations

import math

from . import config, ir
from .codegen_common import note_reads

MIN_INNER = 4  # no nested loops with an inner loop shorter than this (loop overhead beats the gain)


# -- called from loop bodies (lowering) ---------------------------------------------------------------------
def _writer():
    return ir._writers[-1] if ir._writers else None


def request(index, cuts) -> None:
    """Record that the body selects between inputs by ``index`` with boundaries ``cuts`` (``0, .., total``)."""
    w = _writer()
    reqs = getattr(w, "splits", None)
    if reqs is not None:
        reqs.append((index, tuple(cuts)))


def known_bounds(index):
    """``(lo, hi)`` of ``index``: its bounds over the loop ranges, narrowed by the facts of a versioned branch."""
    lo, hi = index.bounds()
    fact = getattr(_writer(), "facts", None)
    if fact and fact[0] == index:
        lo = fact[1] if lo is None else max(lo, fact[1])
        hi = fact[2] if hi is None else min(hi, fact[2])
    return lo, hi


# -- the plan of one member ---------------------------------------------------------------------------------
class _Run:
    """The body of ``node`` run over ``r0 in [a, a + L)`` (split as ``k*r1 + r2`` when ``k``), under ``facts``."""

    __slots__ = ("a", "L", "k", "facts", "w", "v", "write", "write_c")

    def __init__(self, node, base, a, L, k, facts, locals_):
        self.a, self.L, self.k, self.facts = a, L, k, facts
        if k:
            ir.RANGES["r1"], ir.RANGES["r2"] = L // k, k
            r = ir.var("r1") * k + ir.var("r2")
        else:
            ir.RANGES["r0"] = L
            r = ir.var("r0") if L > 1 else ir.const(0)
        idx = ir.unflatten(base + r + a, node.buf.sizes)
        self.w = ir.KernelWriter(locals_)
        self.w.splits, self.w.facts = [], facts
        with ir.writing(self.w):
            self.v = node.fn(idx)
            self.write = ir.flatten(idx, node.buf.strides)
            self.write_c = self.write.render()

    def opaque(self, var: str) -> int:
        """How many accesses index through a div/mod (or indirect load) of ``var``."""
        n = sum(var in idx.opaque_vars() for _, idx in self.w.reads)
        return n + (var in self.write.opaque_vars())


def emit_pointwise(em, node, N: int, M: int, w, locals_, bufs) -> bool:
    """Emit ``node``'s inner loop split into pieces / nested loops; False when the plain loop is as good.

    ``w`` is the writer of the body already run over the whole row: without split requests or a div/mod of
    ``r0`` in its accesses there is nothing to do (and the body is not run again).
    """
    if M <= 1 or not (w.splits or any("r0" in idx.opaque_vars() for _, idx in w.reads)):
        return False
    base = ir.var("x0") * M if N > 1 else ir.const(0)
    runs = []
    _cut(node, base, _Run(node, base, 0, M, 0, None, locals_), locals_, runs)
    ir.RANGES["r0"] = M
    if len(runs) == 1 and not runs[0].k and not runs[0].facts:
        return False
    for run in runs:
        note_reads(run.w, locals_, bufs)
    _emit_runs(em, node, N, runs)
    return True


def _cut(node, base, run, locals_, runs, depth=0) -> None:
    """Append to ``runs`` the runs of ``run``'s range cut where its body asks (``r0 + c`` requests); a piece
    whose body asks again (a cat of a cat) is cut again."""
    cuts = _r0_cuts(run.w.splits, run.L)
    if len(cuts) == 2 or depth == 8:
        runs.extend(_versions(node, base, run, locals_))
        return
    for s, e in zip(cuts, cuts[1:], strict=False):
        _cut(node, base, _Run(node, base, run.a + s, e - s, 0, None, locals_), locals_, runs, depth + 1)


def _r0_cuts(splits, L) -> list:
    """``[0, .., L]``: where the loop over ``r0`` is cut so that each ``r0 + c`` request sees one input."""
    points = {0, L}
    for index, cuts in splits:
        if index.terms.keys() == {"r0"} and index.coeff("r0") == 1:
            points.update(s - index.const for s in cuts[1:-1] if 0 < s - index.const < L)
    return sorted(points)


def _versions(node, base, run, locals_) -> list:
    """The runs of a piece: ``run`` itself, or one per branch on a row-only cat index."""
    index, cuts = _row_request(run.w.splits)
    if index is None:
        return [_nested(node, base, run, locals_)]
    lo, hi = index.bounds()
    edges = [lo] + [c for c in cuts[1:-1] if lo < c <= hi] + [hi + 1]
    out = []
    for s, e in zip(edges, edges[1:], strict=False):
        branch = _Run(node, base, run.a, run.L, 0, (index, s, e - 1), locals_)
        out.append(_nested(node, base, branch, locals_))
    return out


def _row_request(splits):
    """The first request whose index depends on the row ``x0`` only (a branch per row decides it)."""
    for index, cuts in splits:
        if index.free() == {"x0"}:
            lo, hi = index.bounds()
            if lo is not None:
                return index, cuts
    return None, None


def _nested(node, base, run, locals_):
    """``run`` re-run as two nested loops when that removes the div/mod of ``r0`` from the inner loop."""
    have = run.opaque("r0")
    if not have or run.L < 2 * MIN_INNER:
        return run
    ks = set()
    for _, idx in run.w.reads:
        _divisors(idx, ks)
    _divisors(run.write, ks)
    best = None
    for k in sorted(ks):
        if k < MIN_INNER or k >= run.L or run.L % k:
            continue
        cand = _Run(node, base, run.a, run.L, k, run.facts, locals_)
        score = (cand.opaque("r2"), cand.opaque("r1"))
        if score[0] < have and (best is None or score < best[0]):
            best = (score, cand)
    ir.RANGES["r0"] = run.L
    return run if best is None else best[1]


def _divisors(index, out: set) -> None:
    """The periods ``k / gcd(k, c)`` of every ``FloorDiv``/``Mod`` by ``k`` of an expression ``c*r0 + ..``."""
    for t in index.terms:
        if isinstance(t, (ir.FloorDiv, ir.Mod)):
            c = t.e.coeff("r0")
            if c:
                out.add(t.k // math.gcd(t.k, abs(c)))
            _divisors(t.e, out)
        elif isinstance(t, ir.Clamp):
            _divisors(t.e, out)
        elif isinstance(t, ir.Load):
            _divisors(t.index, out)


# -- emission -----------------------------------------------------------------------------------------------
def _emit_runs(em, node, N, runs) -> None:
    i = 0
    while i < len(runs):
        run = runs[i]
        if run.facts is None:
            _emit_loops(em, node, N, run)
            i += 1
            continue
        j = i
        while j < len(runs) and runs[j].facts is not None and runs[j].a == run.a:
            j += 1
        _emit_branches(em, node, N, runs[i:j])
        i = j


def _emit_branches(em, node, N, runs) -> None:
    """``if (index <= hi0) {..} else if (index <= hi1) {..} else {..}`` over the row-versioned runs."""
    index = runs[0].facts[0].render()
    for n, run in enumerate(runs):
        if n == 0:
            em.emit(f"if (({index}) <= {run.facts[2]}) {{")
        elif n < len(runs) - 1:
            em.emit(f"}} else if (({index}) <= {run.facts[2]}) {{")
        else:
            em.emit("} else {")
        em.depth += 1
        _emit_loops(em, node, N, run)
        em.depth -= 1
    em.emit("}")


def _emit_loops(em, node, N, run) -> None:
    par = N == 1 and run.L >= config.parallel_threshold
    if run.k:
        if par:
            em.emit("#pragma omp parallel for num_threads(nt) schedule(static)")
        em.emit(f"for (int64_t r1 = 0; r1 < {run.L // run.k}; r1++) {{")
        em.depth += 1
        em.emit("#pragma omp simd")
        em.emit(f"for (int64_t r2 = 0; r2 < {run.k}; r2++) {{")
        em.depth += 1
    elif run.L > 1:
        em.emit("#pragma omp parallel for simd num_threads(nt) schedule(static)" if par else "#pragma omp simd")
        em.emit(f"for (int64_t r0 = 0; r0 < {run.L}; r0++) {{")
        em.depth += 1
    else:
        em.emit("{")
        em.depth += 1
    em.block(run.w.lines)
    em.emit(f"{node.buf.name}[{run.write_c}] = {run.v.name};")
    for _ in range(2 if run.k else 1):
        em.depth -= 1
        em.emit("}")
