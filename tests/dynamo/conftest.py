"""Shared fixtures of the dynamo tests: a clean cache and log state per test, and a counting backend."""

import pytest

import glasstorch._dynamo as dynamo
import glasstorch._logging as gt_logging


class CountingBackend:
    """A backend that records every graph it is handed and runs it as-is (PyTorch's CompileCounter)."""

    def __init__(self):
        self.frame_count = 0
        self.op_count = 0
        self.graphs = []
        self.example_inputs = []

    def __call__(self, gm, example_inputs):
        self.frame_count += 1
        self.op_count += sum(1 for n in gm.graph.nodes if n.op == "call_function")
        self.graphs.append(gm)
        self.example_inputs.append(list(example_inputs))
        return gm.forward


@pytest.fixture(autouse=True)
def _clean_dynamo():
    dynamo.reset()
    dynamo.counters.clear()
    yield
    dynamo.reset()
    gt_logging.set_logs()


@pytest.fixture
def cnt():
    return CountingBackend()
