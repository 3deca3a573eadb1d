"""Rewrite an upstream PyTorch test file into its glasstorch variant.

Only import statements change, and each keeps its line, so a traceback's line number in the variant is the
upstream file's. A ``torch`` import that ``mapping`` sends anywhere but torch's harness becomes a call into
``tools.pytorch_tests.runtime``, on the same line and at the same indentation::

    import torch
        -> from tools.pytorch_tests.runtime import glass_module; torch = glass_module('torch')
    import torch.nn.functional as F
        -> from tools.pytorch_tests.runtime import glass_module; F = glass_module('torch.nn.functional')
    from torch.testing import make_tensor, assert_close
        -> from tools.pytorch_tests.runtime import glass_names; make_tensor, assert_close = glass_names(...)

The runtime resolves each name through ``mapping``; a name glasstorch lacks becomes a placeholder that raises
``GlassMissing`` when used, so a missing feature fails the tests that use it rather than the whole file.
Harness imports (``from torch.testing._internal.common_utils import TestCase, ...``) stay as they are. In the
baseline (``variant="torch"``) nothing changes but the import of a harness name torch 2.13 renamed.
"""

from __future__ import annotations

import ast
import os
import tempfile
from pathlib import Path

from tools.pytorch_tests import mapping

RUNTIME = "tools.pytorch_tests.runtime"


def _import_stmt(node: ast.Import) -> str | None:
    if not any(mapping.needs_rewrite(a.name) for a in node.names):
        return None
    parts = []
    for alias in node.names:
        if not mapping.is_torch_module(alias.name):
            parts.append(f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else ""))
        elif alias.name == "torch" and not alias.asname:
            parts.append("torch = glass_module('torch')")
        elif alias.asname:
            parts.append(f"{alias.asname} = glass_module({alias.name!r})")
        else:
            # ``import torch.nn.functional`` binds ``torch`` and makes the submodule reachable from it.
            parts.append(f"torch = glass_module({alias.name!r}, bind_root=True)")
    return f"from {RUNTIME} import glass_module; " + "; ".join(parts)


def _from_stmt(node: ast.ImportFrom, variant: str) -> str | None:
    if node.level or not node.module:
        return None
    names = [a.name for a in node.names]
    if variant == "torch":  # the baseline: only harness names torch 2.13 renamed
        if not mapping.needs_compat(node.module, names):
            return None
        targets = [a.asname or a.name for a in node.names]
        lhs = ", ".join(targets) + ("," if len(targets) == 1 else "")
        return f"from {RUNTIME} import torch_names; {lhs} = torch_names({node.module!r}, {tuple(names)!r})"
    if not mapping.needs_rewrite(node.module, names):
        return None
    if names == ["*"]:
        return f"from {RUNTIME} import glass_star; globals().update(glass_star({node.module!r}))"
    targets = [a.asname or a.name for a in node.names]
    lhs = ", ".join(targets) + ("," if len(targets) == 1 else "")
    return f"from {RUNTIME} import glass_names; {lhs} = glass_names({node.module!r}, {tuple(names)!r})"


def rewrite_source(source: str, variant: str = "glass") -> str:
    """The glasstorch variant of test-file text ``source`` (``variant="torch"``: the baseline, where only the
    imports of harness names torch 2.13 renamed change, see ``mapping.COMPAT``)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = []  # (start line, start col, end line, end col, replacement), 1-based lines
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            new = _import_stmt(node) if variant == "glass" else None
        elif isinstance(node, ast.ImportFrom):
            new = _from_stmt(node, variant)
        else:
            continue
        if new is not None:
            edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new))
    # Apply from the bottom up so that earlier offsets stay valid.
    for start, col, end, end_col, new in sorted(edits, reverse=True):
        head = lines[start - 1][:col]
        tail = lines[end - 1][end_col:]
        pad = "\n" * (end - start)
        if tail.strip() and not tail.lstrip().startswith("#"):
            pad = ""  # more code follows on the statement's last line: keep it on the same line
        lines[start - 1:end] = [head + new + pad + tail]
    return "".join(lines)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, so a reader never sees half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def rewrite_file(src: Path, dst: Path, variant: str = "glass") -> Path:
    """Rewrite upstream file ``src`` into ``dst`` (atomically); returns ``dst``."""
    write_atomic(dst, rewrite_source(src.read_text(encoding="utf-8"), variant))
    return dst
