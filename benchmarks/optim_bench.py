"""The optimizer phase of the GPT training step, glasstorch vs PyTorch: clip_grad_norm_, AdamW step, LR step.

Each backend runs in its own child process at a fixed thread count. A child builds the examples/gpt run
(same code and config for both libraries, baby config by default), trains a few warm-up iterations so the
optimizer state exists, then, holding one set of gradients, times ``clip_grad_norm_``, ``optimizer.step()``,
``scheduler.step()`` and ``zero_grad(set_to_none=True)`` separately, ``--reps`` times each, and reports
medians in milliseconds of wall time and of the process's CPU time (``time.process_time``: on a shared, loaded
machine it leaves out the time the process waited for a core; with one thread it is the work done).
``--fused`` builds the AdamW with ``fused=True`` (PyTorch's CPU fused kernel vs glasstorch's ``_fused_adamw_``);
``--profile`` prints a cProfile of the glasstorch optimizer phase instead. Counterpart: none (a reading aid).

Usage: python benchmarks/optim_bench.py [--config baby] [--threads 1] [--reps 50] [--fused] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIGS = {
    "baby": dict(n_layer=4, n_head=4, n_embd=128, block_size=64, batch_size=12),
    "shakespeare-char": dict(n_layer=6, n_head=6, n_embd=384, block_size=256, batch_size=64),
}


def _build(backend: str, config: str, threads: int, fused: bool):
    sys.path.insert(0, str(REPO))
    from examples.gpt.backend import load, set_threads
    from examples.gpt.train import Run, build_parser

    torch = load(backend)
    set_threads(torch, threads)
    torch.manual_seed(1337)
    argv = ["--backend", backend, "--threads", str(threads), "--max-chars", "100000", "--iters", "100",
            "--no-progress"] + [f"--{k.replace('_', '-')}={v}" for k, v in CONFIGS[config].items()]
    run = Run(build_parser().parse_args(argv), torch)
    if fused:
        groups = [{k: v for k, v in g.items() if k != "fused"} for g in run.optimizer.param_groups]
        run.optimizer = torch.optim.AdamW(groups, fused=True)
        run.scheduler = torch.optim.lr_scheduler.LambdaLR(run.optimizer, lambda _: 1.0)
    for _ in range(2):
        run.train_step()
    _, loss = run.model(*run.batch("train"))
    run.optimizer.zero_grad(set_to_none=True)
    loss.backward()
    return torch, run


def _phases(torch, run):
    params = list(run.model.parameters())
    clip = run.args.grad_clip
    return {"clip_grad_norm_": lambda: torch.nn.utils.clip_grad_norm_(params, clip),
            "optimizer.step": run.optimizer.step,
            "scheduler.step": run.scheduler.step}


def child(spec: dict) -> dict:
    torch, run = _build(spec["backend"], spec["config"], spec["threads"], spec["fused"])
    phases = _phases(torch, run)
    times: dict[str, list[float]] = {k: [] for k in phases}
    cpu: dict[str, list[float]] = {k: [] for k in phases}
    times["total"], cpu["total"] = [], []
    for _ in range(spec["reps"]):
        total = total_cpu = 0.0
        for name, fn in phases.items():
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            times[name].append(dt)
            cpu[name].append(dc)
            total += dt
            total_cpu += dc
        times["total"].append(total)
        cpu["total"].append(total_cpu)
    grads = [p.grad for p in run.model.parameters()]
    t0 = time.perf_counter()
    run.optimizer.zero_grad(set_to_none=True)
    zero_ms = (time.perf_counter() - t0) * 1e3
    for p, g in zip(run.model.parameters(), grads, strict=True):
        p.grad = g
    return {"backend": spec["backend"], "ms": {k: statistics.median(v) * 1e3 for k, v in times.items()},
            "cpu_ms": {k: statistics.median(v) * 1e3 for k, v in cpu.items()}, "zero_grad_ms": zero_ms}


def profile(spec: dict) -> None:
    import cProfile
    import pstats

    torch, run = _build("glasstorch", spec["config"], spec["threads"], spec["fused"])
    phases = _phases(torch, run)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(spec["reps"]):
        for fn in phases.values():
            fn()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def _spawn(spec: dict) -> dict:
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(spec["threads"])
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"child failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="baby", choices=sorted(CONFIGS))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--fused", action="store_true")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--backends", default="glasstorch,torch")
    args = p.parse_args(argv)
    spec = {"config": args.config, "threads": args.threads, "reps": args.reps, "fused": args.fused}
    if args.profile:
        profile(spec)
        return
    print(f"optimizer phase, {args.config} config, {args.threads} thread(s), fused={args.fused}, "
          f"median of {args.reps} (ms)")
    for backend in args.backends.split(","):
        r = _spawn({**spec, "backend": backend})
        for kind in ("ms", "cpu_ms"):
            cells = ", ".join(f"{k} {v:.2f}" for k, v in r[kind].items())
            print(f"  {backend:10s} {'wall' if kind == 'ms' else 'cpu '} {cells}")
        print(f"  {backend:10s} zero_grad(set_to_none) {r['zero_grad_ms']:.3f} ms (one call)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print("RESULT " + json.dumps(child(json.loads(sys.argv[2]))))
    else:
        main()
