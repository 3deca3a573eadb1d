"""torch's dtype-list helpers (``all_types_and``, ``floating_types``, ...) returning glasstorch dtypes.

The arguments (glasstorch dtypes, as the rewritten file writes them) go to torch's function as torch dtypes; the
result comes back with each dtype replaced by glasstorch's of the same name. A dtype glasstorch lacks (uint16,
float8, complex32: issue 20) is left out, so the tests for it are absent from the glasstorch run; triage counts
them under issue 20.
"""

from __future__ import annotations

import functools

from torch.testing._internal import common_dtype as _torch_common_dtype

from tools.pytorch_tests.adapters.convert import glass_dtype, torch_dtype


def _to_glass_list(result):
    if not isinstance(result, (list, tuple)):
        return glass_dtype(result)
    kept = [d for d in (glass_dtype(x) for x in result) if d is not None]
    try:
        return type(result)(kept)
    except TypeError:
        return tuple(kept)


def _adapt(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        args = [torch_dtype(a) for a in args]
        kwargs = {k: torch_dtype(v) for k, v in kwargs.items()}
        return _to_glass_list(fn(*args, **kwargs))

    return wrapper


def __getattr__(name):
    obj = getattr(_torch_common_dtype, name)
    return _adapt(obj) if callable(obj) and not isinstance(obj, type) else obj
