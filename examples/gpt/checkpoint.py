"""Checkpoints of a GPT run: one file holding everything needed to resume training or to sample.

Counterpart: the ``checkpoint`` dict of nanoGPT's ``train.py``, saved with the backend's ``torch.save``.
Key invariant: a checkpoint file is either the old complete one or the new complete one — it is written to a
temporary file in the same folder and moved over the old one with ``os.replace`` (atomic on POSIX and Windows).
"""

from __future__ import annotations

import os

CHECKPOINT_NAME = "ckpt.pt"


def checkpoint_path(out_dir: str) -> str:
    return os.path.join(out_dir, CHECKPOINT_NAME)


def save_checkpoint(torch, state: dict, path: str) -> None:
    """``torch.save(state)`` to ``path`` atomically (temp file + ``os.replace``)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        torch.save(state, tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_checkpoint(torch, path: str) -> dict:
    """The dict :func:`save_checkpoint` wrote (tensors, numbers, strings, lists, dicts only)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"no checkpoint at {path!r} (train first, or pass the right --out)")
    return torch.load(path, map_location="cpu", weights_only=True)
