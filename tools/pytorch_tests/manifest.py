"""The manifest of transcribed upstream files (``manifest.json``): where each came from and its checksum.

Each entry: the file's path in pytorch/pytorch, the commit ``read_file`` returned (or the stored file's id where
no commit was recorded), ``total_chars`` and the sha256 of the text (UTF-8). ``check`` holds the files under
``PYTORCH_TEST_FILES`` to it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

MANIFEST = Path(__file__).with_name("manifest.json")


def entries() -> dict[str, dict]:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def local_name(upstream: str) -> str:
    """Where upstream path ``upstream`` lives under PYTORCH_TEST_FILES: ``test/x.py`` -> ``x.py``,
    ``test/expect/y`` -> ``expect/y``, anything else (``torch/testing/_internal/data/network1.py``) under ``data/``."""
    return upstream.removeprefix("test/") if upstream.startswith("test/") else f"data/{upstream}"


def update(files_dir: Path) -> dict[str, dict]:
    """Fold the transcribers' ``MANIFEST-*.json`` files under ``files_dir`` into manifest.json."""
    merged = entries() if MANIFEST.exists() else {}
    for path in sorted([*files_dir.glob("MANIFEST-*.json"), *files_dir.glob("pinned/MANIFEST-*.json")]):
        e = json.loads(path.read_text(encoding="utf-8"))
        prefix = "pinned/" if path.parent.name == "pinned" else ""
        keys = ("path", "commit", "id", "total_chars", "sha256", "note")
        merged[prefix + local_name(e["path"])] = {k: e[k] for k in keys if k in e}
    MANIFEST.write_text(json.dumps(dict(sorted(merged.items())), indent=1) + "\n", encoding="utf-8")
    return merged


def check(files_dir: Path) -> list[str]:
    """One line per manifest entry: ok, missing, or what differs."""
    out = []
    for local, e in sorted(entries().items()):
        path = files_dir / local
        if not path.exists():
            out.append(f"{local}: missing")
            continue
        text = path.read_text(encoding="utf-8")
        if len(text) != e["total_chars"]:
            out.append(f"{local}: {len(text)} chars, manifest says {e['total_chars']}")
        elif digest(text) != e["sha256"]:
            out.append(f"{local}: sha256 differs from the manifest")
        else:
            where = f"at {e['commit'][:12]}" if "commit" in e else f"stored file id {e.get('id')}"
            out.append(f"{local}: ok ({e['path']} {where})")
    return out
