"""The backend registry (PyTorch: ``torch/_dynamo/backends/registry.py`` and ``backends/debugging.py``).

A backend is any callable ``backend(gm: fx.GraphModule, example_inputs: list[Tensor]) -> compiled`` where
``compiled(*flat_inputs)`` returns the graph's outputs.  Built in:

- ``"eager"``: the captured graph as-is (``gm.forward``): tests capture alone;
- ``"aot_eager"``: AOT autograd (joint graph, partition) with graphs run as-is — resolved lazily from
  ``glasstorch._functorch.aot_autograd``;
- ``"inductor"``: ``glasstorch._inductor.compile_fx.compile_fx`` (fused C kernels), resolved lazily.

Invariant: names resolve at compile time, so a backend package is imported only when a graph is compiled
with it.
"""

from __future__ import annotations

import importlib

from glasstorch._dynamo.exc import InvalidBackend

__all__ = ["register_backend", "lookup_backend", "list_backends"]

_BACKENDS: dict[str, object] = {}
_TAGS: dict[str, tuple] = {}


def register_backend(compiler_fn=None, name: str | None = None, tags=()):
    """Register ``compiler_fn`` under ``name`` (default: its ``__name__``); usable as a decorator.

    Example:
        >>> @register_backend
        ... def my_backend(gm, example_inputs):
        ...     return gm.forward
    """
    if compiler_fn is None:
        return lambda fn: register_backend(fn, name=name, tags=tags)
    key = name or compiler_fn.__name__
    if key in _BACKENDS:
        raise AssertionError(f"duplicate name: {key}")
    _BACKENDS[key] = compiler_fn
    _TAGS[key] = tuple(tags)
    return compiler_fn


def lookup_backend(compiler_fn):
    """A backend name or callable -> the callable; raises InvalidBackend for an unknown name."""
    if isinstance(compiler_fn, str):
        if compiler_fn not in _BACKENDS:
            raise InvalidBackend(compiler_fn)
        return _BACKENDS[compiler_fn]
    if not callable(compiler_fn):
        raise InvalidBackend(compiler_fn)
    return compiler_fn


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """Registered backend names, sorted, without those carrying an excluded tag (``None``: all)."""
    excluded = set(exclude_tags or ())
    return sorted(n for n in _BACKENDS if not excluded.intersection(_TAGS[n]))


def backend_name(compiler_fn) -> str:
    """The name a backend is reported under (``backend='inductor' raised: ...``)."""
    for key, fn in _BACKENDS.items():
        if fn is compiler_fn:
            return key
    return getattr(compiler_fn, "__name__", repr(compiler_fn))


@register_backend(name="eager", tags=("debug",))
def eager(gm, example_inputs):
    """Run the captured graph as it is."""
    return gm.forward


def _run_graph(gm, example_inputs):
    return gm.forward


@register_backend(name="aot_eager", tags=("debug",))
def aot_eager(gm, example_inputs):
    """AOT autograd's joint graph, partitioned, with both halves run as they are."""
    aot = importlib.import_module("glasstorch._functorch.aot_autograd")
    return aot.aot_module_simplified(gm, example_inputs, fw_compiler=_run_graph, bw_compiler=_run_graph)


@register_backend(name="inductor")
def inductor(gm, example_inputs):
    """Inductor: AOT autograd, then fused C/OpenMP kernels for the forward and backward graphs."""
    compile_fx = importlib.import_module("glasstorch._inductor.compile_fx")
    return compile_fx.compile_fx(gm, example_inputs)
