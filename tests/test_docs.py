"""The documentation's commands and examples run as printed (README.md, docs/*.md, examples/*/README.md).

Every ``bash`` and ``python`` block in those files carries a tag after its language, so no block escapes:

* ``runnable`` -- run by this test: a python block as a script with the venv's interpreter, a bash block line by
  line (``set -e``) with ``.venv/bin/`` on PATH, both from the repository root;
* ``runnable slow`` -- the same, in the ``slow`` run (trainings of a minute or more);
* ``no-run`` -- commands this suite cannot run inside itself (``make test``: CI runs it), or that need what a
  test machine may lack;
* ``excerpt`` -- a piece of a source file shown to explain it, not a program.

A ``text output`` block right after a runnable block is what it prints (stdout and stderr, as a terminal shows
them): the output must equal it, line for line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("examples/*/README.md"))]
TAGS = {"runnable", "runnable slow", "no-run", "excerpt"}
FENCE = re.compile(r"^```(\S*)[ \t]*(.*?)\s*$")


@dataclass
class Block:
    path: Path
    line: int      # of the opening fence, 1-based
    lang: str
    tag: str
    code: str
    output: str | None = None  # the ``text output`` block that follows, if any

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of one markdown file; a ``text output`` block is attached to the block before it."""
    out, lines, i = [], path.read_text(encoding="utf-8").splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        block = Block(path, start + 1, m.group(1), m.group(2), "\n".join(body) + "\n")
        if block.lang == "text" and block.tag == "output" and out and out[-1].tag.startswith("runnable"):
            out[-1].output = block.code
        else:
            out.append(block)
    return out


ALL = [b for p in DOCS for b in blocks(p)]
CODE = [b for b in ALL if b.lang in ("bash", "python", "sh", "shell", "console", "py")]


def test_every_code_block_is_tagged():
    bad = [f"{b.where}: ```{b.lang} {b.tag}".rstrip() for b in CODE if b.tag not in TAGS]
    assert not bad, "tag each block runnable / runnable slow / no-run / excerpt:\n" + "\n".join(bad)
    assert [b for b in CODE if b.tag.startswith("runnable")], "no runnable block found: is the parser broken?"


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("GLASSTORCH_SHOW_DISPATCH_TRACE", None)
    return env


def _run(block: Block) -> subprocess.CompletedProcess:
    if block.lang in ("python", "py"):
        cmd = [sys.executable, "-c", block.code]
    else:  # the commands say `.venv/bin/python`: run them with this interpreter's venv, whatever the cwd's is
        code = block.code.replace(".venv/bin/", f"{Path(sys.executable).parent}/")
        cmd = ["bash", "-euo", "pipefail", "-c", code]
    return subprocess.run(cmd, cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=1800)


def _check(block: Block) -> None:
    done = _run(block)
    assert done.returncode == 0, f"{block.where} failed (rc {done.returncode}):\n{done.stdout[-5000:]}"
    if block.output is not None:
        got = [ln.rstrip() for ln in done.stdout.rstrip("\n").splitlines()]
        want = [ln.rstrip() for ln in block.output.rstrip("\n").splitlines()]
        assert got == want, f"{block.where} prints something else than its output block:\n" + "\n".join(got)


@pytest.mark.parametrize("block", [b for b in CODE if b.tag == "runnable"], ids=lambda b: b.where)
def test_runnable_block(block):
    _check(block)


@pytest.mark.slow
@pytest.mark.parametrize("block", [b for b in CODE if b.tag == "runnable slow"], ids=lambda b: b.where)
def test_runnable_slow_block(block):
    _check(block)


def test_parser_attaches_output_blocks(tmp_path):
    md = tmp_path / "x.md"
    md.write_text("```python runnable\nprint(1)\n```\n\n```text output\n1\n```\n```bash no-run\nmake test\n```\n")
    bs = blocks(md)
    assert [(b.lang, b.tag, b.output) for b in bs] == [("python", "runnable", "1\n"), ("bash", "no-run", None)]


def test_linked_files_exist():
    """Relative links and images of the docs point at files of this clone."""
    link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
    bad = []
    for path in DOCS:
        for target in link.findall(path.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (path.parent / target).exists():
                bad.append(f"{path.relative_to(ROOT)}: {target}")
    assert not bad, bad
