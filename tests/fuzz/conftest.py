"""Budgets of the differential fuzzer (tests/fuzz).

Each fuzz test comes twice (``programs.fuzz``): a bounded, derandomized variant that ``make test`` runs (the
whole package well under a minute), and a ``slow``-marked ``*_long`` variant, skipped unless the environment
variable ``GLASSTORCH_FUZZ_EXAMPLES`` gives its number of examples per test (random seeds, so each long run
explores new programs).  Both budgets are Hypothesis profiles registered here and loaded by no one: a test
module takes them as the parent of its own settings, so tests outside this folder keep the global profile.

    GLASSTORCH_FUZZ_EXAMPLES=3000 .venv/bin/python -m pytest -q tests/fuzz -m slow
"""

import os

import pytest
from hypothesis import HealthCheck, settings

LONG_EXAMPLES = int(os.environ.get("GLASSTORCH_FUZZ_EXAMPLES", "0"))
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("glasstorch-fuzz", deadline=None, derandomize=True, database=None,
                          suppress_health_check=_QUIET, print_blob=False)
settings.register_profile("glasstorch-fuzz-long", deadline=None, derandomize=False, database=None,
                          max_examples=max(LONG_EXAMPLES, 1), suppress_health_check=_QUIET, print_blob=True)


def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason="long fuzz run: set GLASSTORCH_FUZZ_EXAMPLES=<examples per test>")
    for item in items:
        if item.name.endswith("_long") and "fuzz" in item.nodeid and not LONG_EXAMPLES:
            item.add_marker(skip)
