"""Where a compiled GPT training step spends its time: every C loop group, BLAS call and fallback, ranked.

Compiles the examples/gpt model (the ``baby`` config of gpt_bench.py by default) with
``glasstorch._inductor.config.profile_kernels`` on, which times each generated loop group in C
(``omp_get_wtime``) and each wrapper step in Python, runs some training steps, and prints per graph (forward,
backward) the steps and groups by total time per iteration, plus the Python share (wrapper total minus the
steps it timed) and the eager part of the step (optimizer, autograd engine) by difference.

Usage: python benchmarks/compile_profile.py [--iters N] [--threads T] [--top K] [--config baby]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--config", default="baby")
    p.add_argument("--dump", help="folder to write each graph's C kernels and wrapper into")
    p.add_argument("--overhead", type=int, default=0, help="list the N kernel calls with the most time outside "
                   "their loop groups")
    args = p.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "benchmarks"))
    from gpt_bench import CONFIGS

    from examples.gpt.backend import load, set_threads
    from examples.gpt.train import Run, build_parser

    torch = load("glasstorch")
    set_threads(torch, args.threads)
    import importlib

    from glasstorch._inductor import config

    cfx = importlib.import_module("glasstorch._inductor.compile_fx")

    config.profile_kernels = True
    graphs = []
    inner = cfx.compile_fx_inner

    def collecting(gm, example_inputs, **kw):
        out = inner(gm, example_inputs, **kw)
        graphs.append(out)
        return out
    cfx.compile_fx_inner = collecting
    torch.manual_seed(0)
    c = CONFIGS[args.config]
    argv = ["--backend", "glasstorch", "--threads", str(args.threads), "--max-chars", "300000", "--compile",
            "--iters", str(args.warmup + args.iters), "--no-progress"]
    argv += [f"--{k.replace('_', '-')}={v}" for k, v in c.items()]
    run = Run(build_parser().parse_args(argv), torch)
    for _ in range(args.warmup):
        run.train_step()
    for g in graphs:
        if g.profiler is not None:
            g.profiler.reset()
    phases = {"forward": 0.0, "backward": 0.0, "optimizer": 0.0}
    t0 = time.perf_counter()
    for _ in range(args.iters):
        run.train_step()
        for k, v in run.last_phases.items():
            phases[k] += v
    total = (time.perf_counter() - t0) / args.iters * 1e3
    print(f"{args.config} x{args.threads}: {total:.1f} ms/iter; phases (ms) " +
          ", ".join(f"{k} {v / args.iters * 1e3:.1f}" for k, v in phases.items()))
    for gi, g in enumerate(graphs):
        if g.profiler is None:
            continue
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            Path(args.dump, f"graph{gi}.c").write_text(g.c_source)
            Path(args.dump, f"graph{gi}_wrapper.py").write_text(g.wrapper_source)
        rows = g.profiler.rows()
        steps = [(t, lab) for t, lab in rows if not lab.startswith("  group")]
        groups = [(t, lab) for t, lab in rows if lab.startswith("  group")]
        st = sum(t for t, _ in steps) / args.iters * 1e3
        blas = sum(t for t, lab in steps if lab.startswith("extern mm") or lab.startswith("extern bmm"))
        fb = sum(t for t, lab in steps if lab.startswith("extern fallback"))
        ck = sum(t for t, lab in steps if lab.startswith("kernel"))
        gt = sum(t for t, _ in groups)
        n = args.iters * 1e-3
        print(f"\ngraph {gi} ({g.stats.get('kernels')} C calls, {g.stats.get('nodes')} nodes): timed steps "
              f"{st:.1f} ms/iter = BLAS {blas / n:.1f} + C {ck / n:.1f} (groups {gt / n:.1f}, ctypes call "
              f"{(ck - gt) / n:.1f}) + fallbacks {fb / n:.1f}")
        for t, lab in sorted(rows, key=lambda r: -r[0])[:args.top]:
            print(f"  {t / n:7.2f} ms  {lab[:200]}")
        if args.overhead:
            in_groups: dict = {}
            for t, lab in groups:
                k = lab.split()[1]
                in_groups[k] = in_groups.get(k, 0.0) + t
            diffs = sorted(((t - in_groups.get(lab.split()[0], 0.0), lab) for t, lab in steps
                            if lab.startswith("kernel")), reverse=True)
            print("  outside the loop groups (allocation, pointers, the ctypes call):")
            for t, lab in diffs[:args.overhead]:
                print(f"  {t / n:7.3f} ms  {lab}")


if __name__ == "__main__":
    main()
