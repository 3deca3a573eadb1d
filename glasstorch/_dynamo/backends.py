"""The backend registry (PyTorch: ``torch/_dynamo/backends/registry.py`` and ``backends/debugging.py``).

A backend is any callable ``backend(gm: fx.GraphModule, example_inputs: list[Tensor]) -> compiled`` where
``compiled(*flat_inputs)`` returns the graph's outputs.  Built in:

- ``"eager"``: the captured graph as-is (``gm.forward``): tests capture alone;
- ``"aot_eager"``: AOT autograd (joint graph, partition) with graphs run as-is — resolved lazily from
  ``glasstorch._functorch.aot_autograd``;
- ``"inductor"``: ``glasstorch._inductor.compile_fx.compile_fx`` (fused C kernels), resolved lazily.

``glasstorch.compile(mode=, options=)`` reach the backend through a wrapper, as in PyTorch's
``torch/__init__.py``: :class:`CompileInductorWrapper` turns them into a patch of ``glasstorch._inductor.config``
for that callable's compilations; :class:`CompileWrapper` passes them to any other backend as keyword arguments
(``eager`` and ``aot_eager`` log that they ignore them; a callable without ``**kwargs`` fails as in PyTorch).

Invariant: names resolve at compile time, so a backend package is imported only when a graph is compiled
with it (or when ``mode``/``options`` for the inductor are checked).
"""

from __future__ import annotations

import importlib
import logging

from glasstorch._dynamo.exc import InvalidBackend

__all__ = ["register_backend", "lookup_backend", "list_backends", "CompileInductorWrapper", "CompileWrapper",
           "compile_backend"]

log = logging.getLogger(__name__)

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
    name = getattr(compiler_fn, "compiler_name", None)
    if name is not None:
        return name
    for key, fn in _BACKENDS.items():
        if fn is compiler_fn:
            return key
    return getattr(compiler_fn, "__name__", repr(compiler_fn))


@register_backend(name="eager", tags=("debug",))
def eager(gm, example_inputs, **kwargs):
    """Run the captured graph as it is."""
    if kwargs:
        log.warning("eager backend ignoring extra kwargs %s", kwargs)
    return gm.forward


def _run_graph(gm, example_inputs):
    return gm.forward


@register_backend(name="aot_eager", tags=("debug",))
def aot_eager(gm, example_inputs, **kwargs):
    """AOT autograd's joint graph, partitioned, with both halves run as they are."""
    if kwargs:
        log.warning("aot_autograd-based backend ignoring extra kwargs %s", kwargs)
    aot = importlib.import_module("glasstorch._functorch.aot_autograd")
    return aot.aot_module_simplified(gm, example_inputs, fw_compiler=_run_graph, bw_compiler=_run_graph)


@register_backend(name="inductor")
def inductor(gm, example_inputs, **kwargs):
    """Inductor: AOT autograd, then fused C/OpenMP kernels for the forward and backward graphs."""
    compile_fx = importlib.import_module("glasstorch._inductor.compile_fx")
    return compile_fx.compile_fx(gm, example_inputs, **kwargs)


# -- mode= and options= ----------------------------------------------------------------------------------------------
def compile_backend(backend, mode, options, dynamic):
    """The backend ``glasstorch.compile`` hands its graphs to, with ``mode``/``options`` applied.

    ``"inductor"`` -> a :class:`CompileInductorWrapper` when it has settings to apply, else the plain backend;
    another backend -> a :class:`CompileWrapper` when there are keyword arguments to pass, else the backend.

    Raises:
        InvalidBackend: an unknown backend name; RuntimeError: an unknown mode or option, or an option value
        of the wrong type (inductor only, PyTorch's messages).
    """
    if isinstance(backend, str) and backend == "inductor":
        wrapper = CompileInductorWrapper(mode, options, dynamic)
        return wrapper if wrapper.config or wrapper.unapplied else lookup_backend(backend)
    wrapper = CompileWrapper(backend, mode, options, dynamic)
    return wrapper if wrapper.kwargs else wrapper.compiler_fn


class CompileInductorWrapper:
    """The inductor with one callable's settings (PyTorch's ``_TorchCompileInductorWrapper``).

    ``config`` holds the settings applied while this callable's graphs compile (``options``, or the mode's
    settings that exist in ``glasstorch._inductor.config``); ``unapplied`` the mode's PyTorch settings that have
    no counterpart here.  Two wrappers with the same settings compare equal.
    """

    compiler_name = "inductor"
    __slots__ = ("config", "unapplied", "dynamic")

    def __init__(self, mode, options, dynamic):
        self.config: dict = {}
        self.unapplied: dict = {}
        self.dynamic = dynamic
        self.apply_mode(mode)
        self.apply_options(options)
        inert = [k for k in self.config if k in _no_effect()] + list(self.unapplied)
        if inert:
            log.info("inductor settings %s have no effect in glasstorch's CPU inductor", inert)

    def apply_mode(self, mode) -> None:
        if not mode or mode == "default":
            return
        inductor_pkg = importlib.import_module("glasstorch._inductor")
        known = inductor_pkg.config.get_config_copy()
        settings = inductor_pkg.list_mode_options(mode, self.dynamic)
        self.apply_options({k: v for k, v in settings.items() if k in known})
        self.unapplied.update((k, v) for k, v in settings.items() if k not in known)

    def apply_options(self, options) -> None:
        if not options:
            return
        config = importlib.import_module("glasstorch._inductor.config")
        current = config.get_config_copy()
        for key, value in options.items():
            name = key.replace("-", "_")
            if name not in current:
                raise RuntimeError(f"Unexpected optimization option {key}, known options are {list(current)}")
            declared = config.get_type(name)
            if not config.is_generic(declared) and not isinstance(value, declared):
                raise RuntimeError(f"Unexpected type of attr {key}, got {type(value).__name__} should be "
                                   f"{type(current[name]).__name__}")
            self.config[name] = value

    def __call__(self, gm, example_inputs, **kwargs):
        compile_fx = importlib.import_module("glasstorch._inductor.compile_fx")
        patches = {**self.config, **(kwargs.pop("config_patches", None) or {})}
        return compile_fx.compile_fx(gm, example_inputs, config_patches=patches, **kwargs)

    def __eq__(self, other) -> bool:
        return isinstance(other, CompileInductorWrapper) and (self.config, self.dynamic) == \
            (other.config, other.dynamic)

    def __hash__(self) -> int:
        return hash((self.compiler_name, repr(sorted(self.config.items())), self.dynamic))

    def __repr__(self) -> str:
        return f"CompileInductorWrapper(config={self.config!r}, unapplied={self.unapplied!r})"


def _no_effect() -> tuple:
    return importlib.import_module("glasstorch._inductor.config").NO_EFFECT


class CompileWrapper:
    """A non-inductor backend called with ``mode=``/``options=`` as keywords (PyTorch's ``_TorchCompileWrapper``):
    ``mode`` unless it is ``"default"``, ``options`` unless empty."""

    __slots__ = ("compiler_name", "compiler_fn", "kwargs", "dynamic")

    def __init__(self, backend, mode, options, dynamic):
        if isinstance(backend, str):
            self.compiler_name = backend
        else:
            self.compiler_name = getattr(backend, "__name__", None) or str(backend)
        self.dynamic = dynamic
        self.compiler_fn = lookup_backend(backend)
        self.kwargs: dict = {}
        if mode and mode != "default":
            self.kwargs["mode"] = mode
        if options:
            self.kwargs["options"] = options

    def __call__(self, gm, example_inputs):
        return self.compiler_fn(gm, example_inputs, **self.kwargs)

    def __eq__(self, other) -> bool:
        return isinstance(other, CompileWrapper) and (self.compiler_fn, self.kwargs, self.dynamic) == \
            (other.compiler_fn, other.kwargs, other.dynamic)

    def __hash__(self) -> int:
        return hash((self.compiler_name, id(self.compiler_fn)))
