"""Pick the tensor library a GPT run uses: glasstorch (the default) or real PyTorch, for comparison.

Everything in this example is written once against PyTorch's public API and receives the library as a
module object, so ``--backend glasstorch`` and ``--backend torch`` run the very same lines. The key invariant:
nothing here switches backends silently — a missing piece of glasstorch surfaces as an error or a printed note
that names it.
"""

from __future__ import annotations

import importlib
import os

BACKENDS = ("glasstorch", "torch")

_BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def cap_blas_threads(n: int) -> None:
    """Cap the BLAS thread pools to ``n`` through the environment; effective only before numpy is imported.

    glasstorch computes with numpy, whose OpenBLAS reads these variables once when it loads, so scripts call
    this first thing (before importing any backend) to make ``--threads`` hold for both libraries.
    """
    for var in _BLAS_THREAD_VARS:
        os.environ[var] = str(n)


def load(name: str):
    """Import and return the backend module (``glasstorch`` or ``torch``)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}")
    return importlib.import_module(name)


def set_threads(torch, n: int) -> str | None:
    """``torch.set_num_threads(n)``; returns a note instead when the backend lacks it (a glasstorch gap)."""
    if hasattr(torch, "set_num_threads"):
        torch.set_num_threads(n)
        return None
    return (f"note: {torch.__name__}.set_num_threads is missing; the thread count is capped only through "
            f"{'/'.join(_BLAS_THREAD_VARS)}={n} (set before numpy loaded)")


def maybe_compile(torch, model, enabled: bool):
    """``torch.compile(model)`` when asked (glasstorch and PyTorch both have it); otherwise the model unchanged."""
    if not enabled:
        return model
    return torch.compile(model)
