"""``train.py --profile``: where one training step's time goes, layer by layer of glasstorch.

Method (printed with the report): one warm-up step runs first so lazy set-up is not counted; then cProfile
records one full step (batch, forward, backward, clipping, AdamW, LR step). Each profiled function's *self*
time (``tottime``, excluding its callees) is assigned to a layer by the path of the file that defines it —
``glasstorch/_ops/dispatcher.py`` is the dispatcher, ``glasstorch/autograd/*`` autograd bookkeeping,
``glasstorch/_ops/kernels/*`` and numpy's own code the kernels, ``_device/allocator.py`` + ``_tensor/storage.py``
allocation, and so on (see ``LAYERS``). A C builtin has no file: numpy's builtins count as kernels, every other
builtin (``isinstance``, ``dict.get`` …) is split among its callers' layers in proportion to the time each caller
spent in it (pstats keeps that per caller). Self times add up to the profiled total, so the shares sum to 100%.
cProfile slows Python-heavy code more than BLAS calls, so the split overstates the Python layers somewhat; the
unprofiled phase timings printed first are the honest wall-clock numbers.
Counterpart: none in PyTorch (its profiler sees C++ kernels); this is a reading aid for a Python engine.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import time
from collections import defaultdict

# (layer, path fragments): the first layer whose fragment occurs in a function's file path wins.
LAYERS = (
    ("dispatcher", ("glasstorch/_ops/dispatcher.py", "glasstorch/_core/dispatch_key.py",
                    "glasstorch/_ops/fallbacks.py", "glasstorch/_ops/layer_kernels.py",
                    "glasstorch/_ops/_generated/", "glasstorch/_ops/aten.py")),
    ("bindings + arg parsing", ("glasstorch/_generated/", "glasstorch/_ops/python_arg_parser.py",
                                "glasstorch/_binding_support.py", "glasstorch/tensor.py",
                                "glasstorch/_tensor_operators.py", "glasstorch/_functions.py",
                                "glasstorch/functional.py")),
    ("autograd", ("glasstorch/autograd/",)),
    ("tensor iterator (broadcast, dtype, out)", ("glasstorch/_ops/tensor_iterator.py", "glasstorch/_ops/overlap.py",
                                                 "glasstorch/_core/dtype.py", "glasstorch/_core/shape.py")),
    ("kernels", ("glasstorch/_ops/kernels/", "glasstorch/_ops/decompositions/", "glasstorch/_ops/indexing.py",
                 "glasstorch/_ops/factories.py", "/numpy/", "/ml_dtypes/")),
    ("allocation", ("glasstorch/_device/allocator.py", "glasstorch/_tensor/storage.py")),
    ("tensor metadata + views", ("glasstorch/_tensor/", "glasstorch/_core/")),
    ("nn modules", ("glasstorch/nn/",)),
    ("optimizer + lr scheduler", ("glasstorch/optim/",)),
    ("example code (examples/gpt)", ("examples/gpt/",)),
    ("other glasstorch", ("glasstorch/",)),
    ("PyTorch (with --backend torch)", ("/torch/",)),
)
OTHER = "python runtime / other"
NUMPY_BUILTIN_MARKERS = ("numpy", "ndarray", "ufunc", "_multiarray")


def layer_of(filename: str) -> str | None:
    """The layer for a source file, or None for a C builtin (``~``) that must be attributed via its callers."""
    if filename == "~":
        return None
    path = filename.replace(os.sep, "/")
    for layer, fragments in LAYERS:
        if any(f in path for f in fragments):
            return layer
    return OTHER


def attribute(stats: dict) -> dict[str, float]:
    """Self time per layer from a ``pstats.Stats(...).stats`` mapping (see the module docstring)."""
    totals: dict[str, float] = defaultdict(float)
    for (filename, _line, name), (_cc, _nc, tottime, _ct, callers) in stats.items():
        layer = layer_of(filename)
        if layer is None and any(m in name for m in NUMPY_BUILTIN_MARKERS):
            layer = "kernels"
        elif layer is None and "torch." in name:
            layer = "PyTorch (with --backend torch)"
        if layer is not None:
            totals[layer] += tottime
            continue
        shared = sum(c[2] for c in callers.values())
        if shared <= 0:
            totals[OTHER] += tottime
            continue
        for caller, c in callers.items():
            totals[layer_of(caller[0]) or OTHER] += tottime * c[2] / shared
    return dict(totals)


def _phase_times(run, steps: int = 3) -> dict[str, float]:
    acc = defaultdict(float)
    for _ in range(steps):
        run.train_step()
        for k, v in run.last_phases.items():
            acc[k] += v / steps
    return dict(acc)


def profile_training_step(run, top: int = 15) -> dict[str, float]:
    """Print the phase timings and the by-layer split of one profiled step; return the split (seconds)."""
    run.train_step()  # warm-up: first-call caches, lazy optimizer state
    phases = _phase_times(run)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    run.train_step()
    prof.disable()
    wall = time.perf_counter() - t0
    st = pstats.Stats(prof)
    totals = attribute(st.stats)
    _print_report(phases, totals, wall, st, top)
    return totals


def _print_report(phases, totals, wall, st, top) -> None:
    print(__doc__.split("\n\n")[1].replace("\n", " ").replace("Method (printed with the report): ", "Method: "))
    step = sum(phases.values())
    print(f"\nunprofiled step (mean of 3): {step * 1e3:.1f} ms = "
          + ", ".join(f"{k} {v * 1e3:.1f} ms ({v / step:.0%})" for k, v in phases.items()))
    profiled = sum(totals.values())
    print(f"profiled step: {wall * 1e3:.1f} ms wall, {profiled * 1e3:.1f} ms attributed self time\n")
    print(f"{'layer':44s} {'ms':>9s} {'share':>7s}")
    for layer, t in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"{layer:44s} {t * 1e3:9.1f} {t / profiled:7.1%}")
    print(f"\ntop {top} functions by self time:")
    rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:top]
    for (filename, line, name), (_cc, nc, tt, _ct, _callers) in rows:
        where = name if filename == "~" else f"{_short(filename)}:{line} {name}"
        print(f"  {tt * 1e3:8.2f} ms {nc:7d} calls  {where}")


def _short(filename: str) -> str:
    path = filename.replace(os.sep, "/")
    for anchor in ("glasstorch/", "examples/", "numpy/", "torch/"):
        i = path.rfind("/" + anchor)
        if i >= 0:
            return path[i + 1:]
    return os.path.basename(path)
