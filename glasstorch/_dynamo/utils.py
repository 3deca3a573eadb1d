"""Small helpers of the capture layer: counters, argument flattening, user source locations.

PyTorch counterpart: ``torch/_dynamo/utils.py`` (``counters``), ``torch/utils/_pytree.py`` (flatten /
unflatten) and the user-stack helpers of ``torch/_dynamo/exc.py``.

Invariant: ``unflatten(*flatten(x))`` rebuilds ``x`` (lists, tuples, namedtuples and dicts are containers;
everything else is a leaf), and a spec is hashable so cache entries can compare call structures cheaply.
"""

from __future__ import annotations

import collections
import linecache
import os
import sys
import traceback

__all__ = ["counters", "flatten", "unflatten", "is_user_file", "user_stack_from_traceback",
           "user_stack_here", "format_user_stack"]

#: event counters (PyTorch's ``torch._dynamo.utils.counters``): counters["graph_break"][reason] etc.
counters: collections.defaultdict = collections.defaultdict(collections.Counter)

_LEAF = None


def flatten(obj) -> tuple[list, object]:
    """Leaves of ``obj`` in order and a hashable spec of its container structure.

    Example:
        >>> flatten(((1, [2, 3]), {"a": 4}))
        ([1, 2, 3, 4], ...)
    """
    leaves: list = []
    spec = _flatten(obj, leaves)
    return leaves, spec


def _flatten(obj, leaves):
    t = type(obj)
    if t is tuple or t is list:
        return (t, tuple(_flatten(v, leaves) for v in obj))
    if t is dict or t is collections.OrderedDict:
        keys = tuple(obj)
        return (t, keys, tuple(_flatten(obj[k], leaves) for k in keys))
    if isinstance(obj, tuple) and hasattr(t, "_fields"):   # namedtuple (e.g. torch.return_types)
        return (t, tuple(_flatten(v, leaves) for v in obj))
    leaves.append(obj)
    return _LEAF


def unflatten(leaves, spec):
    """Rebuild the structure described by ``spec`` from ``leaves`` (an iterable consumed in order)."""
    return _unflatten(iter(leaves), spec)


def _unflatten(it, spec):
    if spec is _LEAF:
        return next(it)
    t = spec[0]
    if t is dict or t is collections.OrderedDict:
        return t((k, _unflatten(it, s)) for k, s in zip(spec[1], spec[2], strict=True))
    items = [_unflatten(it, s) for s in spec[1]]
    if t is list:
        return items
    if t is tuple:
        return tuple(items)
    return t(*items)


# -- user source locations -------------------------------------------------------------------------------
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # .../glasstorch


def is_user_file(filename: str) -> bool:
    """True unless the file is part of glasstorch itself (or Python's runtime glue like ``<frozen ...>``)."""
    if filename.startswith("<frozen"):
        return False
    return not os.path.abspath(filename).startswith(_PKG_DIR + os.sep)


def user_stack_from_traceback(tb) -> list[traceback.FrameSummary]:
    """The user frames of a traceback, outermost first (glasstorch's own frames left out)."""
    frames = [fs for fs in traceback.extract_tb(tb) if is_user_file(fs.filename)]
    return frames


def user_stack_here(skip: int = 1) -> list[traceback.FrameSummary]:
    """The user frames of the current Python stack, outermost first."""
    frame = sys._getframe(skip)
    summaries = []
    while frame is not None:
        code = frame.f_code
        if is_user_file(code.co_filename):
            line = linecache.getline(code.co_filename, frame.f_lineno).strip()
            summaries.append(traceback.FrameSummary(code.co_filename, frame.f_lineno, code.co_name, line=line))
        frame = frame.f_back
    summaries.reverse()
    return summaries


def format_user_stack(stack) -> str:
    """``  File "x.py", line 3, in f\\n    code`` lines, as Python's tracebacks print them."""
    return "".join(traceback.format_list(stack)).rstrip("\n")
