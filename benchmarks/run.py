"""Side-by-side benchmarks: glasstorch and PyTorch in one process, same inputs, same thread count.

Each case is a pair of zero-argument callables built from the same recipe in both libraries; we
report the median time per call and the median ratio glasstorch / PyTorch over rounds in which the two
alternate.  Results go to ``benchmarks/results/latest.json`` and ``latest.md``.  Speed is measured here,
never asserted in tests.

Usage: python benchmarks/run.py [--filter SUBSTRING[,SUBSTRING...]] [--repeat N] [--threads N] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

# numpy's OpenBLAS (glasstorch's matmul) must use the thread count torch gets, or a matmul compares one torch
# thread with every core's worth of OpenBLAS threads (fighting each other on a shared machine).  OpenBLAS
# reads the variable once, when numpy loads, so it is set before anything imports numpy.
_THREADS = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv[:-1] else "1"
os.environ["OPENBLAS_NUM_THREADS"] = _THREADS

import torch  # noqa: E402

import glasstorch  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from autograd_cases import AUTOGRAD_CASES, engine_profile  # noqa: E402
from cases import CASES  # noqa: E402

# One thread: the CPU time of this process, which time slices given to other processes on a shared machine
# do not inflate.  Several threads: wall time (CPU time would add the threads up).
_clock = time.process_time


def _calibrate(fn, budget):
    """Calls per round so that one round lasts about ``budget`` seconds."""
    fn()
    n = 1
    while True:
        t0 = _clock()
        for _ in range(n):
            fn()
        if _clock() - t0 > budget or n > 1 << 22:
            return n
        n *= 2


def _round(fn, n):
    fn()  # a round's first call may meet fresh inputs (see _time_pair); it is not timed
    t0 = _clock()
    for _ in range(n):
        fn()
    return (_clock() - t0) / n


def _time_pair(make, budget=0.2, repeat=5):
    """Median seconds per call of each, the median of the per-round ratios, and the ratio of the best rounds.

    The two libraries alternate round by round, so a burst of load from elsewhere on a shared machine
    hits both sides of a ratio alike.  Each round builds its inputs afresh (``make`` again): where a
    memory-bound case's buffers land (the heap's history, so which pages and cache sets they use) moves its
    time by up to a third on this kind of machine, and one placement held for a whole case would bias one
    side; new inputs per round sample placements for both.  The best round of each (timeit's advice: slower
    rounds are other processes' interference, not the code) gives the steadier ratio on a noisy machine; both
    are reported."""
    g_fn, t_fn = make(glasstorch), make(torch)
    ng, nt = _calibrate(g_fn, budget / repeat), _calibrate(t_fn, budget / repeat)
    gs, ts = [], []
    for i in range(repeat):
        if i:
            g_fn, t_fn = make(glasstorch), make(torch)
        gs.append(_round(g_fn, ng))
        ts.append(_round(t_fn, nt))
    ratio = statistics.median(g / t for g, t in zip(gs, ts, strict=True))
    return statistics.median(gs), statistics.median(ts), ratio, min(gs) / min(ts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--filter", default="")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=HERE / "results", help="folder for latest.json / latest.md")
    args = ap.parse_args(argv)
    global _clock
    _clock = time.process_time if args.threads == 1 else time.perf_counter
    torch.set_num_threads(args.threads)
    glasstorch.set_num_threads(args.threads)  # glasstorch's compiled loops use the same thread budget
    rows = []
    for name, make in {**CASES, **AUTOGRAD_CASES}.items():
        if not any(f in name for f in args.filter.split(",")):
            continue
        g, t, ratio, best = _time_pair(make, repeat=args.repeat)
        row = {"case": name, "glasstorch_us": g * 1e6, "torch_us": t * 1e6, "ratio": ratio, "best_ratio": best}
        line = (f"{name:<52} glasstorch {g * 1e6:10.2f} us   torch {t * 1e6:10.2f} us   ratio {ratio:6.2f}x"
                f"   best {best:5.2f}x")
        prof = engine_profile(make) if name in AUTOGRAD_CASES else None
        if prof is not None:
            row["engine"] = prof
            line += (f"   [{prof['nodes_per_backward']:.0f} nodes: {prof['backward_us_per_node']:.1f} us/node, "
                     f"engine {prof['engine_us_per_node']:.1f} us/node]")
        rows.append(row)
        print(line, flush=True)
    meta = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": platform.machine(),
            "processor": platform.processor(), "python": platform.python_version(), "torch": torch.__version__,
            "glasstorch": glasstorch.__version__, "threads": args.threads, "clock": _clock.__name__}
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    lines = [f"Benchmarks of {meta['date']} on {meta['machine']} ({meta['threads']} thread, {meta['clock']}), "
             f"torch {meta['torch']}"
             f"; {args.repeat} alternating rounds per case: medians, the median of the per-round ratios, and the "
             "ratio of each side's best round",
             "", "| case | glasstorch (us) | torch (us) | ratio | best-round ratio |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {r['case']} | {r['glasstorch_us']:.2f} | {r['torch_us']:.2f} | {r['ratio']:.2f}x | "
              f"{r['best_ratio']:.2f}x |" for r in rows]
    engine_rows = [r for r in rows if "engine" in r]
    if engine_rows:
        lines += ["", "Autograd engine, per backward (glasstorch): nodes run, wall time per node, and the engine's "
                  "own share per node (everything but the nodes' apply).", "",
                  "| case | nodes | us/node | engine us/node |", "|---|---:|---:|---:|"]
        lines += [f"| {r['case']} | {r['engine']['nodes_per_backward']:.0f} | "
                  f"{r['engine']['backward_us_per_node']:.1f} | {r['engine']['engine_us_per_node']:.1f} |"
                  for r in engine_rows]
    (out / "latest.md").write_text("\n".join(lines) + "\n")
    print(f"\nwrote {out / 'latest.json'} and {out / 'latest.md'}")


if __name__ == "__main__":
    main()
