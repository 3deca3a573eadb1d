"""Side-by-side benchmarks: glasstorch and PyTorch in one process, same inputs, same thread count.

Each case is a pair of zero-argument callables built from the same recipe in both libraries; we
report the median time per call and the ratio glasstorch / PyTorch.  Results go to
``benchmarks/results/latest.json`` and ``latest.md``.  Speed is measured here, never asserted in tests.

Usage: python benchmarks/run.py [--filter SUBSTRING] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import torch

import glasstorch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cases import CASES  # noqa: E402


def _time_per_call(fn, budget=0.2, repeat=5):
    """Median seconds per call over ``repeat`` rounds, each long enough to dominate timer noise."""
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt > budget / repeat or n > 1 << 22:
            break
        n *= 2
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        rounds.append((time.perf_counter() - t0) / n)
    return statistics.median(rounds)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--filter", default="")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    rows = []
    for name, make in CASES.items():
        if args.filter not in name:
            continue
        g_fn, t_fn = make(glasstorch), make(torch)
        g, t = _time_per_call(g_fn, repeat=args.repeat), _time_per_call(t_fn, repeat=args.repeat)
        rows.append({"case": name, "glasstorch_us": g * 1e6, "torch_us": t * 1e6, "ratio": g / t})
        print(f"{name:<40} glasstorch {g * 1e6:10.2f} us   torch {t * 1e6:10.2f} us   ratio {g / t:6.2f}x",
              flush=True)
    meta = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": platform.machine(),
            "processor": platform.processor(), "python": platform.python_version(), "torch": torch.__version__,
            "glasstorch": glasstorch.__version__, "threads": args.threads}
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    lines = [f"Benchmarks of {meta['date']} on {meta['machine']} ({meta['threads']} thread), torch {meta['torch']}",
             "", "| case | glasstorch (us) | torch (us) | ratio |", "|---|---:|---:|---:|"]
    lines += [f"| {r['case']} | {r['glasstorch_us']:.2f} | {r['torch_us']:.2f} | {r['ratio']:.2f}x |" for r in rows]
    (out / "latest.md").write_text("\n".join(lines) + "\n")
    print(f"\nwrote {out / 'latest.json'} and {out / 'latest.md'}")


if __name__ == "__main__":
    main()
