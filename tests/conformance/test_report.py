"""The report's figures and the README section that shows them follow from the known-failure tables."""

from __future__ import annotations

from . import driver, known, report


def test_readme_section_matches_the_known_failure_tables():
    text = report.README.read_text()
    assert report.BEGIN in text and report.END in text, "README.md has no conformance section: run the report"
    shown = report.BEGIN + text.split(report.BEGIN, 1)[1].split(report.END, 1)[0] + report.END
    assert shown == report.readme_section(known.load()), (
        "README.md's conformance figures are stale: run `python -m tests.conformance.report --from-table --readme`")


def test_figures_count_an_opinfo_as_agreeing_only_when_all_its_cases_pass():
    cases = driver.cases("sampled")
    first = cases[0]
    clean = report.figures("sampled", {})
    one = report.figures("sampled", {first.key: "value mismatch: made up for this test"})
    assert clean.agree == clean.ops
    assert one.agree == clean.agree - 1 and one.ops == clean.ops
    assert one.causes == {"value mismatch": 1}


def test_missing_names_are_counted_per_opinfo():
    all_cases = driver.cases("sampled")
    cases = [c for c in all_cases if c.op == all_cases[0].op]
    table = {c.key: "missing op: glasstorch.made_up_name" for c in cases}
    assert report.figures("sampled", table).missing == {"glasstorch.made_up_name": 1}
