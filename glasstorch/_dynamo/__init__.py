"""``glasstorch._dynamo`` — graph capture with guards, caching, graph breaks and explain (PyTorch's ``torch._dynamo``).

Layers of this package (top to bottom): :mod:`.eval_frame` (``compile``, ``OptimizedModule``, the guarded
cache, recompiles and the recompile limit) -> :mod:`.output_graph` (trace one call with FakeTensors through
``make_fx``, lift module state to graph inputs, detect graph breaks) -> :mod:`.guards` (guards compiled to one
check function) -> :mod:`.backends` (``eager``, ``aot_eager``, ``inductor`` or any callable).
:mod:`.explain` runs a function for real and cuts its recorded operators at every break.

Invariant: a compiled call gives the result of the eager call, whatever path (graph, eager fallback) it took.
"""

from glasstorch._dynamo import config, exc
from glasstorch._dynamo.backends import list_backends, lookup_backend, register_backend
from glasstorch._dynamo.eval_frame import OptimizedModule, cache_entries, is_compiling, reset
from glasstorch._dynamo.eval_frame import compile as _compile
from glasstorch._dynamo.explain import ExplainOutput, explain
from glasstorch._dynamo.utils import counters

__all__ = ["config", "exc", "explain", "ExplainOutput", "reset", "OptimizedModule", "list_backends",
           "lookup_backend", "register_backend", "counters", "cache_entries", "optimize", "is_compiling"]


def optimize(backend="inductor", *, nopython: bool = False, dynamic=None, disable: bool = False):
    """PyTorch's older entry point: ``optimize(backend)(fn)`` == ``compile(fn, backend=backend, ...)``."""
    def wrap(fn):
        return _compile(fn, backend=backend, fullgraph=nopython, dynamic=dynamic, disable=disable)
    return wrap
