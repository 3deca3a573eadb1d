"""Harness modules whose tests are data (``common_nn``'s ``module_tests``, ``NewModuleTest``, ``NNTestCase``).

``test_nn`` adds hundreds of ``TestNN`` tests from ``common_nn``: the module constructors, inputs and reference
functions are written there against ``torch``. Imported as they are, those tests would exercise torch, not
glasstorch. So the glasstorch variant imports a rewritten copy of such a module (the same rewrite as a test
file: its ``torch`` is glasstorch, its harness imports stay torch's), read from the installed wheel.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

from tools.pytorch_tests.rewriter import rewrite_source

PACKAGE = "tools.pytorch_tests.glass_harness"


def glass_variant(module: str) -> types.ModuleType:
    """The rewritten copy of harness module ``module`` (``torch.testing._internal.common_nn``), imported once."""
    name = f"{PACKAGE}.{module.rsplit('.', 1)[-1]}"
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.find_spec(module)
    source = Path(spec.origin).read_text(encoding="utf-8")
    code = compile(rewrite_source(source), spec.origin, "exec")
    mod = types.ModuleType(name)
    mod.__file__ = spec.origin
    sys.modules[name] = mod
    try:
        exec(code, mod.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return mod
