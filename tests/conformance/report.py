"""``python -m tests.conformance.report``: how many of torch's OpInfos glasstorch agrees with, by family.

    python -m tests.conformance.report                         # run the sampled cases, print the figures
    python -m tests.conformance.report --mode dtypes           # the same samples in every dtype (minutes)
    python -m tests.conformance.report --mode full             # every dtype and reference input (an hour+)
    python -m tests.conformance.report --update-known-failures # ... and rewrite that mode's known_failures.json
    python -m tests.conformance.report --from-table            # figures from known_failures.json, no run
    python -m tests.conformance.report --readme                # also rewrite README.md's conformance section
    python -m tests.conformance.report --markdown FILE         # also write the full Markdown report to FILE
    python -m tests.conformance.report --repro 'add|complex64|grad'   # run one case, print what differs

An OpInfo agrees when every one of its cases in the mode passes.  The float32 figure counts the OpInfos that list
float32, over their float32 forward variants and gradients.  The figures of the README section are those the
known-failure tables imply (the tests hold the tables to the truth, tests/conformance/test_report.py holds the
README to the tables).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import compare, driver, known
from .resolve import FAMILIES, family, op_db, op_key, skip_reason

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BEGIN, END = "<!-- conformance:begin -->", "<!-- conformance:end -->"
_MISSING = re.compile(r"(glasstorch(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
_NO_ATTR = re.compile(r"(?:module '([\w.]+)'|'(\w+)' object|type object '(\w+)'|'_OpNamespace' '(\w+)' object) "
                      r"has no attribute '(\w+)'")


def missing_name(entry: str) -> str | None:
    """The glasstorch name a ``missing op`` entry reports (``glasstorch.linalg.inv``, ``glasstorch.Tensor.conj``)."""
    m = _NO_ATTR.search(entry)
    if not m:
        m = _MISSING.search(entry)
        return m.group(1) if m else None
    module, obj, typ, ns, attr = m.groups()
    owner = module or (f"glasstorch.ops.{ns}" if ns else f"glasstorch.{obj or typ}")
    return f"{owner}.{attr}"


def run(mode: str, log=sys.stderr) -> dict[str, str]:
    """Run every case of ``mode``; the failures as {key: known-table entry}."""
    failures, cases, start = {}, driver.cases(mode), time.time()
    for i, case in enumerate(cases):
        try:
            driver.run_case(case, mode)
        except compare.Miss as miss:
            failures[case.key] = known.entry(miss)
        except Exception as e:  # noqa: BLE001 - a driver bug: reported, left out of the table (its test fails)
            print(f"  DRIVER ERROR {case.key}: {compare.describe_error(e)}", file=log or sys.stderr, flush=True)
        if log and (i + 1) % 1000 == 0:
            print(f"  {i + 1}/{len(cases)} cases, {time.time() - start:.0f} s", file=log, flush=True)
    return failures


@dataclass
class Figures:
    ops: int = 0                     # OpInfos with cases
    agree: int = 0
    f32_ops: int = 0
    f32_agree: int = 0
    absent: int = 0                  # OpInfos whose function form glasstorch lacks
    families: dict = field(default_factory=lambda: collections.defaultdict(lambda: [0, 0, 0, 0]))
    missing: collections.Counter = field(default_factory=collections.Counter)   # missing name -> OpInfos
    causes: collections.Counter = field(default_factory=collections.Counter)    # cause -> failing cases


def _f32(case) -> bool:
    return case.dtype == "float32" and case.check not in ("errors", "gradcheck")


def figures(mode: str, failures: dict[str, str]) -> Figures:
    """The figures a failure table implies for ``mode`` (no case is run)."""
    fig, by_op = Figures(), collections.defaultdict(list)
    for case in driver.cases(mode):
        by_op[case.op].append(case)
    ops = {op_key(op): op for op in op_db()}
    for key, cases in by_op.items():
        failed = [c for c in cases if c.key in failures]
        fam = fig.families[family(ops[key])]
        fig.ops, fam[0] = fig.ops + 1, fam[0] + 1
        if not failed:
            fig.agree, fam[1] = fig.agree + 1, fam[1] + 1
        if any(_f32(c) for c in cases):
            fig.f32_ops, fam[2] = fig.f32_ops + 1, fam[2] + 1
            if not any(_f32(c) for c in failed):
                fig.f32_agree, fam[3] = fig.f32_agree + 1, fam[3] + 1
        if any(c.check == "function" and known.cause_of(failures[c.key]) == "missing op" for c in failed):
            fig.absent += 1
        names = {missing_name(failures[c.key]) for c in failed if known.cause_of(failures[c.key]) == "missing op"}
        names.discard(None)
        fig.missing.update(names)
        fig.causes.update(known.cause_of(failures[c.key]) for c in failed)
    return fig


def _pct(n: int, m: int) -> str:
    return f"{n} of {m} ({100 * n / m:.0f}%)" if m else "-"


def summary_lines(mode: str, fig: Figures) -> list[str]:
    return [f"{mode}: {fig.agree} of {fig.ops} OpInfos agree on every dtype and check of the run",
            f"{mode}: {fig.f32_agree} of {fig.f32_ops} OpInfos agree in float32 (forward variants and gradients)",
            f"{mode}: {fig.absent} OpInfos call a function glasstorch does not have"]


def _fam(fig: Figures | None, fam: str) -> list | None:
    if fig is None:
        return None
    return [fig.ops, fig.agree, fig.f32_ops, fig.f32_agree] if fam == "all" else fig.families.get(fam)


def family_table(tables: dict) -> list[str]:
    """The per-family Markdown table: the sampled figures, and those of the other modes whose table exists."""
    figs = {m: figures(m, t) if t is not None else None for m, t in tables.items()}
    rows = ["| family | OpInfos | agree (sampled) | float32 fwd + grad | every dtype (`dtypes`) | every reference "
            "input (`full`) |", "|---|---:|---:|---:|---:|---:|"]
    for fam in [*FAMILIES, "all"]:
        s = _fam(figs["sampled"], fam)
        if not s:
            continue
        others = [(_pct(f[1], f[0]) if f else "not run") for f in (_fam(figs["dtypes"], fam), _fam(figs["full"], fam))]
        name = f"**{fam}**" if fam == "all" else fam
        rows.append(f"| {name} | {s[0]} | {_pct(s[1], s[0])} | {_pct(s[3], s[2])} | {' | '.join(others)} |")
    return rows


def _other_modes(tables: dict) -> str:
    said = []
    for mode, what in (("dtypes", "the same samples in every dtype listed"), ("full", "every reference input")):
        if tables[mode] is not None:
            fig = figures(mode, tables[mode])
            said.append(f" **{fig.agree} of {fig.ops}** agree on {what} (`--mode {mode}`).")
    return "".join(said)


def readme_section(tables: dict) -> str:
    """The README's conformance section: figures implied by the known-failure tables."""
    sampled = figures("sampled", tables["sampled"])
    skipped = sum(1 for op in op_db() if skip_reason(op))
    lines = [BEGIN,
             f"glasstorch against torch 2.13's own OpInfo database (`op_db`, {len(op_db())} entries, {skipped} "
             "skipped as CUDA-only or sparse). Figures from `tests/conformance/known_failures.json`, written by "
             "`python -m tests.conformance.report --update-known-failures` (docs/conformance.md):",
             "",
             f"**{sampled.agree} of {sampled.ops} OpInfos agree** on the sampled run (first {driver.SAMPLES} "
             "samples, float32 + one integer + bool + one complex dtype, every variant, gradients, errors); "
             f"**{sampled.f32_agree} of {sampled.f32_ops}** in float32, forward and gradients."
             + _other_modes(tables), "", *family_table(tables), "", END]
    return "\n".join(lines)


def markdown(tables: dict, mode: str) -> str:
    fig = figures(mode, tables[mode])
    out = ["# glasstorch conformance to torch's op_db", "",
           f"{datetime.date.today().isoformat()}, `python -m tests.conformance.report --mode {mode}`", "",
           *[f"- {line}" for line in summary_lines(mode, fig)], "", *family_table(tables), "",
           "## Missing names (OpInfos that need them)", "", "| name | OpInfos |", "|---|---:|",
           *[f"| `{n}` | {c} |" for n, c in fig.missing.most_common(40)], "",
           "## Failing cases by cause", "", "| cause | cases |", "|---|---:|",
           *[f"| {n} | {c} |" for n, c in fig.causes.most_common()], ""]
    return "\n".join(out)


def rewrite_readme(section: str) -> None:
    text = README.read_text()
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n## Conformance to torch's op_db\n\n" + section + "\n"
    README.write_text(text)


def repro(key: str, mode: str) -> int:
    op, dtype, check = key.split("|")
    try:
        driver.run_case(driver.Case(op, dtype, check), mode)
    except compare.Miss as miss:
        print(f"{key}: {miss.cause}\n{miss}")
        return 1
    print(f"{key}: agrees")
    return 0


def run_ops(names: list[str], mode: str) -> int:
    """Run the cases of the named OpInfos in ``mode`` and print each failure: the quick loop of fixing a few ops."""
    wanted = set(names)
    cases = [c for c in driver.cases(mode) if c.op in wanted]
    unknown = wanted - {c.op for c in cases}
    if unknown:
        print(f"no cases for {sorted(unknown)} (not an op_db key, or skipped)", file=sys.stderr)
    failures = 0
    for case in cases:
        try:
            driver.run_case(case, mode)
        except compare.Miss as miss:
            failures += 1
            print(f"{case.key}: {known.entry(miss)[:300]}")
    print(f"{len(cases) - failures} of {len(cases)} cases agree")
    return 1 if failures else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.conformance.report", description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=driver.MODES, default="sampled", help="which cases (default: sampled)")
    p.add_argument("--update-known-failures", action="store_true", help="rewrite the mode's known_failures.json")
    p.add_argument("--from-table", action="store_true", help="figures from known_failures.json; run nothing")
    p.add_argument("--readme", action="store_true", help="rewrite README.md's conformance section")
    p.add_argument("--markdown", type=Path, help="write the Markdown report here")
    p.add_argument("--repro", metavar="KEY", help="run one case (op|dtype|check) and print what differs")
    p.add_argument("--ops", metavar="NAMES", help="run only these OpInfos (comma-separated keys) and list each "
                   "failing case; no table is read or written")
    a = p.parse_args(argv)
    driver.pin_threads()
    if a.repro:
        return repro(a.repro, a.mode)
    if a.ops:
        return run_ops(a.ops.split(","), a.mode)
    mode, tables = a.mode, known.load()
    if not a.from_table:
        start = time.time()
        tables[mode] = run(mode)
        print(f"{mode} run: {len(driver.cases(mode))} cases in {time.time() - start:.0f} s", file=sys.stderr)
        if a.update_known_failures:
            known.write(mode, tables[mode])
    if tables[mode] is None:
        print(f"no known-failure table for mode {mode!r} yet: run without --from-table", file=sys.stderr)
        return 1
    print("\n".join(summary_lines(mode, figures(mode, tables[mode]))))
    print("\n".join(family_table(tables)))
    if a.markdown:
        a.markdown.write_text(markdown(tables, mode))
    if a.readme:
        rewrite_readme(readme_section(known.load()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
