"""Optional imports without side effects — PyTorch's ``torch/utils/_import_utils.py``."""

from __future__ import annotations

import functools
import importlib
import importlib.util

__all__ = ["dill_available", "import_dill"]


def _check_module_exists(name: str) -> bool:
    """Whether a top-level module ``name`` can be found, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False


@functools.lru_cache
def dill_available() -> bool:
    return _check_module_exists("dill")


@functools.lru_cache
def import_dill():
    """The ``dill`` module, or None when it is not installed. dill's hook into the standard pickler's dispatch
    table is switched off, so importing it here does not change how ``pickle`` behaves elsewhere."""
    if not dill_available():
        return None
    dill = importlib.import_module("dill")
    dill.extend(use_dill=False)
    return dill
