"""Text corpora, the character vocabulary and random training batches for the GPT example.

Counterpart: nanoGPT's ``data/shakespeare_char/prepare.py`` and the ``get_batch`` of its ``train.py``.
The default corpus needs no download: it is the Python standard library's own source — the sorted ``*.py``
files under ``sysconfig.get_paths()['stdlib']`` concatenated up to a size cap — so every machine that runs this
program has it. Key invariant: the corpus, the vocabulary and the split are pure functions of their inputs
(file order is sorted, characters are sorted), so a checkpoint's ``itos`` decodes what a later run encodes.
"""

from __future__ import annotations

import os
import sysconfig
from dataclasses import dataclass

DEFAULT_CORPUS_CHARS = 1_000_000

# third-party installs live under the stdlib folder on some layouts; they are not "the standard library"
_SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__", "test", "tests", "idlelib", "lib2to3"}


def stdlib_corpus(max_chars: int = DEFAULT_CORPUS_CHARS) -> str:
    """The running interpreter's standard-library source, files in sorted path order, cut at ``max_chars``."""
    root = sysconfig.get_paths()["stdlib"]
    parts, total = [], 0
    for path in _sorted_py_files(root):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        parts.append(text)
        total += len(text)
        if total >= max_chars:
            break
    if not parts:
        raise FileNotFoundError(f"no readable *.py files under the standard library folder {root!r}")
    return "".join(parts)[:max_chars]


def _sorted_py_files(root: str):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield os.path.join(dirpath, name)


def read_text(path: str | None, max_chars: int = DEFAULT_CORPUS_CHARS) -> tuple[str, str]:
    """The training text and a description of where it came from: ``path`` (UTF-8) or the stdlib corpus."""
    if path is None:
        text = stdlib_corpus(max_chars)
        return text, f"Python {sysconfig.get_python_version()} standard library source ({len(text):,} chars)"
    if not os.path.isfile(path):
        raise SystemExit(f"--text {path}: no such file. Any UTF-8 text file will do; this clone's own docs make one:"
                         f" cat README.md docs/*.md > out/docs.txt")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise SystemExit(f"--text {path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    if len(set(text)) < 2:
        raise SystemExit(f"--text {path}: needs at least two distinct characters to learn from")
    return text, f"{path} ({len(text):,} chars)"


@dataclass
class CharVocab:
    """Characters <-> integer ids; ``itos`` is the sorted set of characters (saved with each checkpoint)."""

    itos: list[str]

    @classmethod
    def from_text(cls, text: str) -> CharVocab:
        return cls(sorted(set(text)))

    def __post_init__(self):
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, s: str) -> list[int]:
        unknown = sorted({ch for ch in s if ch not in self.stoi})
        if unknown:
            raise ValueError(f"characters not in the vocabulary: {unknown!r}")
        return [self.stoi[ch] for ch in s]

    def decode(self, ids) -> str:
        return "".join(self.itos[int(i)] for i in ids)


def split_ids(torch, ids: list[int], train_fraction: float = 0.9):
    """The encoded text as two int64 tensors: the first 90% for training, the rest for validation."""
    data = torch.tensor(ids, dtype=torch.long)
    n = int(train_fraction * len(ids))
    return data[:n], data[n:]


def get_batch(torch, data, batch_size: int, block_size: int, generator=None):
    """``batch_size`` random windows of ``data``: inputs x (B, T) and next-character targets y (B, T)."""
    if len(data) <= block_size:
        raise ValueError(f"the split has {len(data)} tokens, needs more than block_size={block_size}")
    ix = torch.randint(len(data) - block_size, (batch_size,), generator=generator).tolist()
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x, y
