"""The loss-curve PNG of a GPT run, drawn with matplotlib when it is importable.

matplotlib is optional (it is not a dependency of glasstorch): without it the function returns a note saying the
plot was skipped, and training is unaffected. Key invariant: this module never raises for a missing plotting
library and never imports matplotlib at module import time.
"""

from __future__ import annotations

import importlib.util
import os


def plot_losses(history: dict, path: str) -> str:
    """Write train (per step) and val (per evaluation) losses to ``path``; return a one-line message."""
    if importlib.util.find_spec("matplotlib") is None:
        return "note: matplotlib is not installed, so the loss-curve PNG is skipped (pip install matplotlib)"
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    if history["train"]:
        it, loss = zip(*history["train"], strict=True)
        ax.plot(it, loss, lw=0.8, alpha=0.7, label="train (per step)")
    if history["val"]:
        it, loss = zip(*history["val"], strict=True)
        ax.plot(it, loss, "o-", label="val (estimate)")
    ax.set_xlabel("iteration")
    ax.set_ylabel("cross-entropy loss (nats/char)")
    ax.grid(alpha=0.3)
    ax.legend()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return f"loss curve written to {path}"
