"""The measurement: of the tests torch passes, how many glasstorch passes, after triage.

ratio = glass passes among torch's passes / (torch's passes - failures that need another open issue)
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tools.pytorch_tests import triage
from tools.pytorch_tests.runner import FILES, results_path


def test_id(nodeid: str) -> str:
    """``out/.../test_x.py::TestX::test_y`` -> ``TestX::test_y`` (the same in both runs)."""
    return nodeid.split("::", 1)[1] if "::" in nodeid else nodeid


CRASHED = "the test process died while running this test"
_INNER_ERROR = re.compile(r"^[\w.]+( error|Error|Exception):")


def first_error_line(message: str) -> str:
    """The crash message's first line, and the error it wraps when that comes later (``WeightsUnpickler error:
    Unsupported global ...`` under ``UnpicklingError: Weights only load failed``)."""
    lines = [ln.strip() for ln in message.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    inner = next((ln for ln in lines[1:12] if _INNER_ERROR.match(ln)), None)
    return f"{lines[0][:160]} | {inner}" if inner else lines[0]


def load(path: Path) -> dict[str, tuple[str, str]]:
    """test id -> (outcome, first error line): passed, failed, error, skipped, xfailed or crashed."""
    out: dict[str, tuple[str, str]] = {}
    if not path.exists():
        return out
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by a killed run
    latest = {}  # test id -> the last run that recorded it (a rerun with -k supersedes)
    for r in records:
        latest[test_id(r["nodeid"])] = r.get("run")
    for r in records:
        tid = test_id(r["nodeid"])
        if r.get("run") != latest[tid]:
            continue
        if r["when"] == "start":
            if tid not in out:
                out[tid] = ("crashed", CRASHED)
            continue
        if r.get("xfail"):
            outcome = "xfailed"
        elif r["outcome"] == "failed":
            outcome = "failed" if r["when"] == "call" else "error"
        else:
            outcome = r["outcome"]
        prev = out.get(tid)
        # A failed setup/call/teardown decides; a pass only stands if nothing else was recorded.
        failed = outcome in ("failed", "error")
        if prev is None or prev[0] in ("passed", "crashed") or (failed and prev[0] == "skipped"):
            out[tid] = (outcome, first_error_line(r.get("message", "")))
    return out


@dataclass
class FileReport:
    name: str
    torch_passed: int = 0
    glass_passed: int = 0
    excluded: Counter = field(default_factory=Counter)
    counted: list[tuple[str, str, str]] = field(default_factory=list)  # (test, glass outcome, first error line)
    measured: bool = False

    @property
    def denominator(self) -> int:
        return self.torch_passed - sum(self.excluded.values())

    @property
    def ratio(self) -> float:
        return self.glass_passed / self.denominator if self.denominator else 0.0


def build(name: str) -> FileReport:
    rep = FileReport(name)
    torch_res, glass_res = load(results_path("torch", name)), load(results_path("glass", name))
    rep.measured = bool(torch_res) and bool(glass_res)
    for tid, (outcome, _) in sorted(torch_res.items()):
        if outcome != "passed":
            continue
        rep.torch_passed += 1
        g_outcome, g_msg = glass_res.get(tid, ("missing", triage.NOT_COLLECTED))
        if g_outcome == "passed":
            rep.glass_passed += 1
            continue
        issue = triage.classify(name, tid, g_msg)
        if issue is None:
            rep.counted.append((tid, g_outcome, g_msg))
        else:
            rep.excluded[issue] += 1
    return rep


def table(reports: list[FileReport]) -> str:
    lines = ["| file | torch passes | glasstorch passes | excluded (by issue) | counted failures | ratio |",
             "|---|---|---|---|---|---|"]
    for r in reports:
        if not r.measured:
            lines.append(f"| {r.name} | not measured | | | | |")
            continue
        excl = ", ".join(f"#{i}: {n}" for i, n in sorted(r.excluded.items())) or "-"
        lines.append(f"| {r.name} | {r.torch_passed} | {r.glass_passed} | {excl} | {len(r.counted)} | "
                     f"{r.glass_passed}/{r.denominator} = {100 * r.ratio:.1f}% |")
    return "\n".join(lines)


def failures(r: FileReport) -> str:
    return "\n".join(f"- {tid} [{outcome}]: {msg[:400]}" for tid, outcome, msg in r.counted)


def main(names: list[str] | None, show_failures: str | None, markdown: Path | None) -> int:
    reports = [build(n) for n in (names or list(FILES))]
    text = table(reports)
    print(text)
    chosen = [r for r in reports if show_failures in (r.name, "all")] if show_failures else []
    for r in chosen:
        print(f"\n## counted failures of {r.name} ({len(r.counted)})\n{failures(r)}")
    if markdown is not None:
        body = ["# PyTorch's test files on glasstorch (tools/pytorch_tests)", "", text, ""]
        for r in reports:
            if r.measured and r.counted:
                body += [f"## counted failures of {r.name} ({len(r.counted)})", failures(r), ""]
        markdown.write_text("\n".join(body), encoding="utf-8")
    return 0
