"""Every compile test starts and ends with an empty capture cache and zeroed counters (compiled lambdas share
code objects, and counters are global)."""

import pytest

import glasstorch as gt


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    gt._dynamo.reset()
    gt._dynamo.counters.clear()
    yield
    gt._dynamo.reset()
