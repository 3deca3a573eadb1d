"""The pytest plugin of a measurement run (``-p tools.pytorch_tests.plugin``), for both variants.

* Per-test timeout: ``PYTORCH_TESTS_TIMEOUT`` seconds (default 300). pytest-timeout is used where it is installed
  (the runner passes ``--timeout``); otherwise a SIGALRM raised in the test's thread ends it with
  ``TestTimeout``, and ``faulthandler_timeout`` dumps the stacks of one stuck in C code.
* Deselection: the tests ``PYTORCH_TESTS_DESELECT`` names exactly (machine resources; see ``runner.FILES``).
* Results: one JSON line per test (``PYTORCH_TESTS_RESULTS``), written as each test starts and ends, so a run that
  dies still leaves what it measured, and names the test it died in; the runner then resumes after it.
* In the glasstorch variant (``PYTORCH_TESTS_VARIANT=glass``) the harness's comparisons see torch objects:
  ``TestCase.assertEqual`` converts glasstorch tensors, dtypes, devices, sizes and storages to torch's before
  comparing (torch's rules and messages decide), and ``genSparseTensor`` builds with torch and converts;
  parametrized tests are named as in torch's run, and the dtype decorators accept glasstorch dtypes;
  ``compare_with_numpy`` runs with its module's ``torch`` bound to glasstorch; ``set_rng_seed`` (each test's
  setUp) seeds glasstorch's generator as well as torch's.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from torch.testing._internal import common_device_type, common_utils

import glasstorch
from tools.pytorch_tests import runtime
from tools.pytorch_tests.adapters import common_utils as adapted_utils
from tools.pytorch_tests.adapters.common_utils import rebind
from tools.pytorch_tests.adapters.convert import to_glass, to_torch, torch_dtype
from tools.pytorch_tests.runtime import Missing

TIMEOUT = float(os.environ.get("PYTORCH_TESTS_TIMEOUT", "300"))
RESULTS = os.environ.get("PYTORCH_TESTS_RESULTS")
GLASS = os.environ.get("PYTORCH_TESTS_VARIANT") == "glass"
RUN_ID = f"{time.time():.0f}-{os.getpid()}"  # a later run of a test (say with -k) supersedes an earlier one


class TestTimeout(Exception):
    """The test ran past the per-test timeout."""


def _install_glass_adapters():
    TestCase = common_utils.TestCase
    original_equal = TestCase.assertEqual

    def assertEqual(self, x, y, *args, **kwargs):
        return original_equal(self, to_torch(x), to_torch(y), *args, **kwargs)

    TestCase.assertEqual = assertEqual
    # A harness helper that drives the test's own tensors runs with its module's torch bound to glasstorch.
    TestCase.compare_with_numpy = rebind(TestCase.compare_with_numpy, torch=glasstorch,
                                         torch_to_numpy_dtype_dict=adapted_utils.torch_to_numpy_dtype_dict)

    original_sparse = getattr(TestCase, "genSparseTensor", None)
    if original_sparse is not None:
        def genSparseTensor(self, size, sparse_dim, nnz, is_uncoalesced, device, dtype):
            x, i, v = original_sparse(self, to_torch(size), sparse_dim, nnz, is_uncoalesced, str(device),
                                      to_torch(dtype))
            return to_glass(x), to_glass(i), to_glass(v)

        TestCase.genSparseTensor = genSparseTensor

    # The harness seeds torch's generator before each test (``TestCase.setUp``, ``@seed``); the test's randomness
    # is glasstorch's, so its generator gets the same seed.
    original_seed = common_utils.set_rng_seed

    def set_rng_seed(seed=None):
        original_seed(seed)
        glasstorch.manual_seed(common_utils.SEED if seed is None else seed)

    common_utils.set_rng_seed = set_rng_seed


def _naming_value(value):
    """The torch object the harness would have seen, for naming a parametrized test the way torch's run does."""
    if isinstance(value, Missing):
        return torch_dtype(value)
    if isinstance(value, (glasstorch.dtype, glasstorch.device)):
        return to_torch(value)
    return value


def _install_naming_adapter():
    original = common_utils.parametrize._formatted_str_repr

    def _formatted_str_repr(self, idx, name, value):
        return original(self, idx, name, _naming_value(value))

    common_utils.parametrize._formatted_str_repr = _formatted_str_repr


def _install_dtype_decorator_adapters():
    """``@dtypes``, ``@precisionOverride`` and ``@toleranceOverride`` check ``isinstance(d, torch.dtype)``: check a
    torch copy of the arguments, keep glasstorch's (the test receives the dtype its file names)."""

    def as_torch(x):
        if isinstance(x, (list, tuple)):
            return type(x)(as_torch(v) for v in x)
        return _naming_value(x)

    def adapt(cls, convert_args):
        original = cls.__init__

        def __init__(self, *args, **kwargs):
            original(self, *convert_args(args), **kwargs)
            if hasattr(self, "args"):
                self.args = args
            if hasattr(self, "d"):
                self.d = args[0]

        cls.__init__ = __init__

    adapt(common_device_type.dtypes, lambda args: [as_torch(a) for a in args])
    for cls in (common_device_type.precisionOverride, common_device_type.toleranceOverride):
        adapt(cls, lambda args: [{as_torch(k): v for k, v in args[0].items()}] if args and isinstance(args[0], dict)
              else args)


def pytest_configure(config):
    if GLASS:
        _install_glass_adapters()
        _install_naming_adapter()
        _install_dtype_decorator_adapters()


def _recorded() -> set[str]:
    """Test ids the results file already holds (a resumed run skips them)."""
    done = set()
    if RESULTS and os.path.exists(RESULTS):
        with open(RESULTS, encoding="utf-8") as f:
            for line in f:
                try:
                    done.add(json.loads(line)["nodeid"].split("::", 1)[-1])
                except (json.JSONDecodeError, KeyError):
                    continue
    return done


def pytest_collection_modifyitems(config, items):
    """Leave out the tests ``PYTORCH_TESTS_DESELECT`` names (``Class::test``, exactly: pytest's ``--deselect``
    matches prefixes, which would also drop ``test_x_gzip`` with ``test_x``), and, when resuming after the test
    process died (``PYTORCH_TESTS_RESUME``), the tests already recorded."""
    names = {n for n in os.environ.get("PYTORCH_TESTS_DESELECT", "").split(",") if n}
    if os.environ.get("PYTORCH_TESTS_RESUME"):
        names |= _recorded()
    if not names:
        return
    kept = [i for i in items if i.nodeid.split("::", 1)[-1] not in names]
    config.hook.pytest_deselected(items=[i for i in items if i not in kept])
    items[:] = kept


def pytest_collection_finish(session):
    runtime.strict()  # from here on, using a name glasstorch lacks raises GlassMissing


def _alarm(signum, frame):
    raise TestTimeout(f"test ran past {TIMEOUT:g}s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    use_alarm = TIMEOUT > 0 and hasattr(signal, "SIGALRM") and not item.config.pluginmanager.hasplugin("timeout")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
    try:
        yield
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _message(report) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    if isinstance(report.longrepr, tuple):  # a skip: (path, line, reason)
        return str(report.longrepr[2])
    return str(report.longrepr or "")


def pytest_runtest_logstart(nodeid, location):
    """A start record: if the process dies inside this test, the results still name it (report: "crashed")."""
    if RESULTS:
        with open(RESULTS, "a", encoding="utf-8") as f:
            f.write(json.dumps({"run": RUN_ID, "nodeid": nodeid, "when": "start", "outcome": "started"}) + "\n")


def pytest_runtest_logreport(report):
    if not RESULTS:
        return
    if report.when != "call" and report.outcome == "passed":
        return
    record = {"run": RUN_ID, "nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
              "duration": round(report.duration, 3), "message": _message(report)[:2000]}
    if hasattr(report, "wasxfail"):
        record["xfail"] = True
    with open(RESULTS, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
