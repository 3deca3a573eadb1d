"""The loss-curve PNG of a GPT run: train loss per step and the val-loss estimates, drawn with matplotlib.

matplotlib is a dependency of the main job (pinned in requirements.lock). The figure is built with matplotlib's
object API (``Figure`` and its Agg canvas), so no GUI backend is chosen or needed and the global pyplot state
of a caller (a notebook, say) is left alone. Key invariant: the PNG is written next to the checkpoint, in the
run's ``--out`` folder, and it is redrawn whole from the checkpoint's history, so a resumed run plots all of it.
"""

from __future__ import annotations

import os

from matplotlib.figure import Figure


def plot_losses(history: dict, path: str) -> str:
    """Write train (per step) and val (per evaluation) losses to ``path``; return a one-line message."""
    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
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
    return f"loss curve written to {path}"
