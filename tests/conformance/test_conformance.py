"""glasstorch against torch's op_db: one test per (OpInfo, dtype, check), known failures as strict xfails.

``test_sampled`` is the default run (a few samples, one dtype per family; well under a minute of work);
``test_dtypes`` (``slow``) runs the same samples in every dtype, ``test_full`` (``slow``) every dtype and every
reference input.  The cases and their checks are in ``driver``; the tracked failures in ``known_failures.json``
(see ``known``).  A mode whose table no run has written yet is skipped, with the command that writes it.
"""

from __future__ import annotations

import pytest
from _pytest.mark.expression import Expression

from . import compare, driver, known
from .resolve import op_db, op_key, skip_reason

_KNOWN = known.load()
pytestmark = pytest.mark.filterwarnings("ignore")  # the samples' own warnings (casts, deprecations) are not checks


def _params(mode: str) -> list:
    table, params = _KNOWN[mode], []
    for case in driver.cases(mode):
        marks = []
        if table is None:
            marks.append(pytest.mark.skip(reason=f"no known-failure table for mode {mode!r} yet: run `python -m "
                                                 f"tests.conformance.report --mode {mode} --update-known-failures`"))
        elif case.key in table:
            cause = known.cause_of(table[case.key])
            marks.append(pytest.mark.xfail(strict=True, raises=compare.CAUSES[cause], reason=table[case.key]))
        params.append(pytest.param(case, id=case.key, marks=marks))
    return params


def _selects_slow(config) -> bool:
    markexpr = config.getoption("markexpr", "") or ""
    return not markexpr or Expression.compile(markexpr).evaluate(lambda name, **kw: name == "slow")


def pytest_generate_tests(metafunc):
    """Each mode's cases; the slow modes' 40,000 only when the run selects slow tests (collecting them costs)."""
    mode = {"test_sampled": "sampled", "test_dtypes": "dtypes", "test_full": "full"}.get(metafunc.function.__name__)
    if mode is not None:
        wanted = mode == "sampled" or _selects_slow(metafunc.config)
        metafunc.parametrize("case", _params(mode) if wanted else [])


def _run(case, mode: str) -> None:
    try:
        driver.run_case(case, mode)
    except compare.Miss as miss:
        # one frame: pytest renders the traceback of every xfail, and the driver's frames cost more than the check
        # (`python -m tests.conformance.report --repro KEY` shows the whole story)
        raise miss.with_traceback(None) from None


def test_sampled(case):
    _run(case, "sampled")


@pytest.mark.slow
def test_dtypes(case):
    _run(case, "dtypes")


@pytest.mark.slow
def test_full(case):
    _run(case, "full")


def test_known_failures_name_existing_cases():
    """Every tracked failure is a case the driver still makes (a renamed or removed case leaves no stale entry)."""
    for mode in driver.MODES:
        made = {c.key for c in driver.cases(mode)}
        stale = sorted(set(_KNOWN[mode] or ()) - made)
        assert not stale, f"known_failures.json ({mode}) lists cases that no longer exist: {stale[:10]}"


def test_skips_are_named_and_few():
    """Only the declared reasons skip an OpInfo: CUDA-only entries and sparse layouts."""
    skipped = {op_key(op): skip_reason(op) for op in op_db() if skip_reason(op)}
    assert all(r.startswith(("CUDA-only", "sparse layouts")) for r in skipped.values()), skipped
    assert len(skipped) < 20, sorted(skipped)
