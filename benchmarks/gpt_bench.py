"""GPT training side by side: glasstorch and PyTorch on the same model, config, seed and thread count.

One invocation measures every (config, threads, backend) cell; each run of a cell is its own child process so its
peak RSS is its own and its thread settings hold from the start (OpenBLAS reads them when numpy loads). A run
builds the examples/gpt training run (same code for both libraries), runs warm-up iterations, then times
iterations one by one.  A baby cell is run ``--rounds`` times (5), the backends taking turns in an order that
rotates each round, so that load from elsewhere on a shared machine falls on every backend alike; a cell reports:

- ms/iter: the median of the timed iterations of all its rounds (batch sampling, forward, backward, clipping,
  AdamW, LR step); the JSON keeps each round's median;
- vs torch: the median over rounds of (its round median / torch's round median of the same round), which cancels
  slow drifts of a shared machine's load better than a ratio of pooled medians;
- tokens/s: batch * block / median;
- the phase split (medians): forward (batch + model + loss), backward (zero_grad + autograd), optimizer
  (clip_grad_norm_ + AdamW + LambdaLR);
- GFLOP/s achieved, by nanoGPT's estimate (PaLM appendix B): flops/iter = (6 N + 12 L C T) * B T, with N the
  non-embedding parameter count (position table excluded, tied head counted once), L layers, C width, T block,
  B batch; the 12 L C T term is attention's QK^T and AV matmuls, forward + backward, at full (non-causal) size;
- that rate as a share of the machine's float32 GEMM ceiling at the same thread count: the best rate of numpy
  (glasstorch's matmul) and torch on a 1024^3 matmul, measured before and after the cells, at that thread count
  or fewer (a busy shared machine lowers what a moment shows, never what the machine can do);
- peak RSS of the child (``ru_maxrss``, the largest over rounds), imports and the corpus included;
- compile time, cold (first round, empty kernel cache) and warm (later rounds, the cache filled).

Configs: ``baby`` (4 layers, 4 heads, 128 wide, block 64, batch 12) at 1 and 2 threads; with ``--slow`` also
nanoGPT's shakespeare-char (6 x 6 x 384, block 256, batch 64) for a few iterations. Results go to
``benchmarks/results/gpt_bench.{json,md}``. Speed is measured here, never asserted in tests.

Usage: python benchmarks/gpt_bench.py [--slow] [--iters N] [--warmup N] [--rounds N] [--threads 1,2] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIGS = {
    "baby": dict(n_layer=4, n_head=4, n_embd=128, block_size=64, batch_size=12),
    "shakespeare-char": dict(n_layer=6, n_head=6, n_embd=384, block_size=256, batch_size=64),
}
BACKENDS = ("glasstorch", "glasstorch+compile", "torch")  # "+compile": the model under <lib>.compile
CORPUS_CHARS = 300_000  # the default stdlib corpus, capped: enough windows, little memory
GEMM_N = 1024


# -- children ----------------------------------------------------------------------------------------------
def _cap_threads(threads: int) -> None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)


def _peak_rss_mib() -> float:
    import resource

    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return kib / (1 << 20) if sys.platform == "darwin" else kib / 1024


def gemm_child(threads: int) -> dict:
    """float32 GEMM GFLOP/s of numpy and torch at ``threads`` (best of several runs)."""
    import numpy as np

    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((GEMM_N, GEMM_N), dtype=np.float32) for _ in range(2))
    out = {"numpy": _best_rate(lambda: a @ b)}
    import torch

    torch.set_num_threads(threads)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    out["torch"] = _best_rate(lambda: ta @ tb)
    return out


def _best_rate(fn, reps: int = 7) -> float:
    fn()
    best = min(_timed(fn) for _ in range(reps))
    return 2 * GEMM_N**3 / best / 1e9


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def train_child(backend: str, config: str, threads: int, warmup: int, iters: int, seed: int) -> dict:
    """Time ``iters`` training iterations of examples/gpt after ``warmup`` ones (see the module docstring)."""
    sys.path.insert(0, str(REPO))
    from examples.gpt.backend import load, set_threads
    from examples.gpt.train import Run, build_parser

    library, _, mode = backend.partition("+")
    torch = load(library)
    note = set_threads(torch, threads)
    torch.manual_seed(seed)
    c = CONFIGS[config]
    argv = ["--backend", library, "--threads", str(threads), "--seed", str(seed), "--max-chars", str(CORPUS_CHARS),
            "--iters", str(warmup + iters), "--no-progress"]
    argv += [f"--{k.replace('_', '-')}={v}" for k, v in c.items()] + (["--compile"] if mode == "compile" else [])
    run = Run(build_parser().parse_args(argv), torch)
    warm_steps = [_timed(run.train_step) for _ in range(warmup)]
    steps, phases = [], {"forward": [], "backward": [], "optimizer": []}
    for _ in range(iters):
        steps.append(_timed(run.train_step))
        for k, v in run.last_phases.items():
            phases[k].append(v)
    N, L, C, T, B = run.model.num_params(), c["n_layer"], c["n_embd"], c["block_size"], c["batch_size"]
    med = statistics.median(steps)
    flops = (6 * N + 12 * L * C * T) * B * T
    return {"backend": backend, "version": torch.__version__, "config": config, "threads": threads,
            "iters": iters, "warmup": warmup, "params_non_embedding": N, "ms_per_iter": med * 1e3,
            "ms_per_iter_min": min(steps) * 1e3, "tokens_per_s": B * T / med, "flops_per_iter": flops,
            "gflops": flops / med / 1e9, "phases_ms": {k: statistics.median(v) * 1e3 for k, v in phases.items()},
            "peak_rss_mib": _peak_rss_mib(), "threads_note": note,
            "steps_ms": [x * 1e3 for x in steps], "phases_all_ms": {k: [x * 1e3 for x in v] for k, v in phases.items()},
            # the first step pays for capture and code generation (cold or warm disk cache: see run_all)
            "first_step_s": warm_steps[0] if warm_steps else None,
            "compile_s": (warm_steps[0] - med) if warm_steps and mode == "compile" else None}


def _child_entry(spec: dict) -> None:
    _cap_threads(spec["threads"])  # before numpy or torch load in this fresh process
    result = gemm_child(spec["threads"]) if spec["kind"] == "gemm" else train_child(
        spec["backend"], spec["config"], spec["threads"], spec["warmup"], spec["iters"], spec["seed"])
    print("RESULT " + json.dumps(result))


def _spawn(spec: dict, timeout: float, env_extra: dict | None = None) -> dict:
    env = dict(os.environ, **(env_extra or {}))
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(spec["threads"])
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        return {"error": f"child exited {done.returncode}:\n{tail}", **spec}
    return json.loads(lines[-1][len("RESULT "):])


# -- driver ------------------------------------------------------------------------------------------------
def _machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}


def _load() -> float | None:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


def run_all(args) -> dict:
    cells = [(name, t) for t in args.threads for name in ("baby",)]
    if args.slow:
        cells.append(("shakespeare-char", max(args.threads)))
    report = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": _machine(),
              "load_avg_1min_start": _load(), "gemm_gflops": {}, "results": [], "rounds": args.rounds,
              "flops_formula": "(6*N + 12*n_layer*n_embd*block) * batch*block per iteration (nanoGPT/PaLM)"}
    thread_counts = sorted({t for _, t in cells})
    _measure_gemm(report, thread_counts, "start")
    for name, t in cells:
        warmup, iters = (args.slow_warmup, args.slow_iters) if name == "shakespeare-char" else (args.warmup, args.iters)
        rounds = 1 if name == "shakespeare-char" else args.rounds
        runs = {b: [] for b in args.backends}
        with tempfile.TemporaryDirectory(prefix="gt_compile_cache_") as cache:
            for k in range(rounds):
                # the backends take turns, and the order rotates each round: a burst of load from elsewhere on a
                # shared machine falls on all of them alike
                turn = k % len(args.backends)
                for backend in args.backends[turn:] + args.backends[:turn]:
                    spec = {"kind": "train", "backend": backend, "config": name, "threads": t, "warmup": warmup,
                            "iters": iters, "seed": args.seed}
                    if backend.startswith("glasstorch+compile"):
                        r = _compiled_run(spec, args.timeout, cache, cold=k == 0, single=rounds == 1)
                    else:
                        r = _spawn(spec, timeout=args.timeout)
                    runs[backend].append(r)
                    print(f"round {k + 1}/{rounds}: " + _one_line(r), flush=True)
        merged = {backend: _merge(runs[backend]) for backend in args.backends}
        for backend in args.backends:
            r = merged[backend]
            r["vs_torch_paired"] = _paired_ratio(runs[backend], runs.get("torch", []))
            report["results"].append(r)
            print(_one_line(r), flush=True)
    _measure_gemm(report, thread_counts, "end")
    for r in report["results"]:
        ceiling = report["gemm_gflops"][str(r["threads"])]["ceiling"]
        if "gflops" in r and ceiling:
            r["gemm_ceiling_share"] = r["gflops"] / ceiling
    report["load_avg_1min_end"] = _load()
    return report


def _compiled_run(spec: dict, timeout: float, cache: str, *, cold: bool, single: bool) -> dict:
    """One compiled run over the cell's kernel cache: the first round finds it empty (cold: capture, codegen and
    the C compiler), later rounds find it filled (warm: what a user sees on a rerun).  With a single round a short
    extra process measures the warm compile."""
    env = {"GLASSTORCH_CACHE_DIR": cache}
    r = _spawn(spec, timeout, env)
    if "error" not in r:
        r["compile_s_cold" if cold else "compile_s_warm"] = r.get("compile_s")
        if single:
            r["compile_s_warm"] = _spawn(dict(spec, warmup=1, iters=3), timeout, env).get("compile_s")
    return r


def _merge(runs: list[dict]) -> dict:
    """One cell from its rounds: medians over every timed iteration of every round (phases likewise), the largest
    peak RSS, the cold compile of the first round and the median warm compile of the others."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[0]
    steps = [x for r in ok for x in r["steps_ms"]]
    med = statistics.median(steps)
    first = ok[0]
    out = dict(first, rounds=len(ok), iters=len(steps), ms_per_iter=med, ms_per_iter_min=min(steps),
               round_medians_ms=[r["ms_per_iter"] for r in ok],
               tokens_per_s=first["tokens_per_s"] * first["ms_per_iter"] / med,
               gflops=first["flops_per_iter"] / med / 1e6, peak_rss_mib=max(r["peak_rss_mib"] for r in ok),
               phases_ms={k: statistics.median([x for r in ok for x in r["phases_all_ms"][k]])
                          for k in first["phases_all_ms"]})
    warm = [r["compile_s_warm"] for r in ok if r.get("compile_s_warm") is not None]
    out["compile_s_warm"] = statistics.median(warm) if warm else None
    del out["steps_ms"], out["phases_all_ms"]
    return out


def _paired_ratio(runs: list[dict], torch_runs: list[dict]) -> float | None:
    """The median over rounds of this backend's round median / torch's round median in the same round: the two
    ran minutes apart at most, so a slow drift in the machine's load cancels, which a ratio of pooled medians
    does not (a round that met a busy period drags the pooled median of one backend only)."""
    pairs = [a["ms_per_iter"] / b["ms_per_iter"] for a, b in zip(runs, torch_runs, strict=False)
             if "error" not in a and "error" not in b]
    return statistics.median(pairs) if pairs else None


def _measure_gemm(report: dict, thread_counts: list[int], when: str) -> None:
    """GEMM rates at each thread count, before and after the cells (the load of a shared machine varies).

    The ceiling at t threads is the best rate seen at any count <= t, at either time: more threads cannot lower
    what the machine can do, only what a busy moment lets it show.
    """
    best = 0.0
    for t in thread_counts:
        g = _spawn({"kind": "gemm", "threads": t}, timeout=600)
        entry = report["gemm_gflops"].setdefault(str(t), {"ceiling": 0.0})
        entry[when] = g
        best = max(best, entry["ceiling"], g.get("numpy", 0), g.get("torch", 0))
        entry["ceiling"] = best
        print(f"GEMM GFLOP/s at {t} thread(s), {when}: {g}; ceiling so far {best:.1f}", flush=True)


def _one_line(r: dict) -> str:
    if "error" in r:
        return f"{r['config']} x{r['threads']} {r['backend']}: FAILED {r['error']}"
    return (f"{r['config']} x{r['threads']} {r['backend']}: {r['ms_per_iter']:.1f} ms/iter, "
            f"{r['tokens_per_s']:,.0f} tok/s, {r['gflops']:.2f} GFLOP/s, RSS {r['peak_rss_mib']:.0f} MiB")


def markdown(report: dict) -> str:
    m = report["machine"]
    lines = [f"GPT training benchmark of {report['date']} on {m['cpu']} ({m['cores']} cores), Python {m['python']}; "
             f"1-min load average {report['load_avg_1min_start']} at start, {report['load_avg_1min_end']} at end; "
             f"{report.get('rounds', 1)} rounds per baby cell, the backends taking turns (medians over all rounds; "
             "'vs torch' is the median over rounds of the ratio within a round).",
             f"GFLOP/s = {report['flops_formula']} / median iteration time; ceiling = best float32 "
             f"{GEMM_N}^3 GEMM of numpy/torch at that thread count or fewer, before and after the cells: "
             + ", ".join(f"{t} thr {g['ceiling']:.1f} GFLOP/s" for t, g in report["gemm_gflops"].items()) + ".",
             "",
             "| config | thr | backend | ms/iter | tokens/s | GFLOP/s | % GEMM ceiling | fwd / bwd / opt ms | "
             "peak RSS MiB | vs torch | vs glasstorch eager | compile s cold / warm |",
             "|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    def ms_of(backend):
        return {(r["config"], r["threads"]): r["ms_per_iter"] for r in report["results"]
                if r.get("backend") == backend and "ms_per_iter" in r}

    torch_ms, eager_ms = ms_of("torch"), ms_of("glasstorch")
    for r in report["results"]:
        if "error" in r:
            lines.append(f"| {r['config']} | {r['threads']} | {r['backend']} | failed | | | | | | | | |")
            continue
        p = r["phases_ms"]
        ref = torch_ms.get((r["config"], r["threads"]))
        paired = r.get("vs_torch_paired")
        ratio = f"{paired:.2f}x" if paired is not None else f"{r['ms_per_iter'] / ref:.2f}x" if ref else ""
        eager = eager_ms.get((r["config"], r["threads"]))
        vs_eager = f"{r['ms_per_iter'] / eager:.2f}x" if eager and "+" in r["backend"] else ""
        cold, warm = r.get("compile_s_cold"), r.get("compile_s_warm")
        comp = f"{cold:.1f} / {warm:.1f}" if cold is not None and warm is not None else ""
        lines.append(f"| {r['config']} | {r['threads']} | {r['backend']} | {r['ms_per_iter']:.1f} | "
                     f"{r['tokens_per_s']:,.0f} | {r['gflops']:.2f} | {100 * r.get('gemm_ceiling_share', 0):.1f}% | "
                     f"{p['forward']:.0f} / {p['backward']:.0f} / {p['optimizer']:.0f} | "
                     f"{r['peak_rss_mib']:.0f} | {ratio} | {vs_eager} | {comp} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description="GPT training: glasstorch vs PyTorch, side by side")
    p.add_argument("--slow", action="store_true", help="also nanoGPT's shakespeare-char config (6x6x384, slow)")
    p.add_argument("--threads", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2])
    p.add_argument("--backends", type=lambda s: s.split(","), default=list(BACKENDS))
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--rounds", type=int, default=5, help="runs per baby cell, the backends taking turns")
    p.add_argument("--slow-warmup", type=int, default=1)
    p.add_argument("--slow-iters", type=int, default=3)
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--timeout", type=float, default=1800, help="seconds per child process")
    p.add_argument("--out", default=str(REPO / "benchmarks" / "results"))
    args = p.parse_args(argv)
    report = run_all(args)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "gpt_bench.json"), "w") as f:
        json.dump(report, f, indent=2)
    md = markdown(report)
    with open(os.path.join(args.out, "gpt_bench.md"), "w") as f:
        f.write(md)
    print(md)
    return report


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        _child_entry(json.loads(sys.argv[2]))
    else:
        main()
