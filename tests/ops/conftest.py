"""Known gaps of the autograd layer: gradient tests listed here are expected to fail until their derivative
formulas land.  The marks are strict, so a gap that gets fixed fails here and must be removed from the list.

Empty: every differentiable operator's gradient tests pass (Tensor[] inputs, non-differentiable arguments,
losses, batch norm, prod with zeros and circular padding were the last gaps)."""

import pytest

KNOWN_GRAD_GAPS: set[str] = set()


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.nodeid.split("::", 1)[-1]
        if name in KNOWN_GRAD_GAPS:
            item.add_marker(pytest.mark.xfail(strict=True, reason="autograd issue in progress: formula missing, or a "
                                                                  "non-differentiable argument accepted"))
