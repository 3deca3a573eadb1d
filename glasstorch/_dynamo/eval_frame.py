"""``glasstorch.compile``: the compiled callable, its cache of guarded entries, recompiles and fallbacks.

PyTorch counterpart: ``torch/_dynamo/eval_frame.py`` (``OptimizedModule``, ``optimize``) and
``convert_frame.py`` (the per-code-object cache, ``recompile_limit``, the compile of one frame).  PyTorch
hooks frame evaluation (PEP 523); here the compiled callable itself is the hook: each call flattens its
arguments, checks the cached entries' guards most recent first, and runs the first that passes.  A miss
traces the call (:mod:`glasstorch._dynamo.output_graph`), hands the graph to the backend and caches the
result, or caches an *eager* entry when the trace hit a graph break, so that the same call does not retrace.

Invariants:
- entries are cached per compiled callable (a compiled module or function), at most
  ``config.cache_size_limit`` of them; a miss beyond that warns once and runs eagerly from then on.  (PyTorch
  counts per code object; parameters here are identity-guarded, so per-code counting would starve modules
  compiled block by block, each with its own parameters.)
- a call that runs through an entry is exactly equivalent to the eager call, for the guarded state.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
import warnings
import weakref

from glasstorch._dynamo import config
from glasstorch._dynamo.backends import backend_name, compile_backend
from glasstorch._dynamo.exc import (
    BackendCompilerFailed,
    FailOnRecompileLimitHit,
    GraphBreak,
    RecompileError,
    Unsupported,
)
from glasstorch._dynamo.guards import GuardBuilder
from glasstorch._dynamo.output_graph import _op_name, capture, global_hook_tables
from glasstorch._dynamo.utils import counters, flatten, format_user_stack, user_stack_here
from glasstorch._logging import compile_debug_scope, getArtifactLogger, write_debug_file
from glasstorch._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException
from glasstorch.nn.modules.module import Module
from glasstorch.tensor import Tensor

__all__ = ["compile", "OptimizedModule", "reset", "cache_entries", "is_compiling"]

log = logging.getLogger(__name__)
graph_breaks_log = getArtifactLogger(__name__, "graph_breaks")
recompiles_log = getArtifactLogger(__name__, "recompiles")
guards_log = getArtifactLogger(__name__, "guards")
graph_code_log = getArtifactLogger(__name__, "graph_code")

_CONTAINERS = (list, tuple, dict)


# -- the cache --------------------------------------------------------------------------------------------------
class FrameCache:
    """The entries of one compiled callable (most recent first) and its recompile-limit state."""

    __slots__ = ("name", "where", "frame_id", "entries", "compiles", "limit_hit", "__weakref__")

    def __init__(self, name: str, where: str, frame_id: int):
        self.name, self.where, self.frame_id = name, where, frame_id
        self.entries: list = []
        self.compiles = 0
        self.limit_hit = False


_caches: weakref.WeakSet = weakref.WeakSet()   # every live FrameCache, for reset() and the overall limit
_frame_ids = [0]     # the next frame id (PyTorch numbers frames in the order they first compile)
_tracing = [0]       # > 0 while a call is being traced or explained


def is_compiling() -> bool:
    """True while glasstorch._dynamo traces a call (PyTorch's ``torch.compiler.is_compiling()``)."""
    return _tracing[0] > 0


def _frame_cache(name: str, where: str) -> FrameCache:
    cache = FrameCache(name, where, None)
    _caches.add(cache)
    return cache


def reset() -> None:
    """Forget every compiled entry (PyTorch's ``torch._dynamo.reset()``); the next call recompiles."""
    for cache in list(_caches):
        cache.entries.clear()
        cache.compiles = 0
        cache.limit_hit = False
        cache.frame_id = None
    _frame_ids[0] = 0


def cache_entries(fn) -> list:
    """The cached entries of a compiled callable or module (most recent first) — for tests and debugging."""
    target = fn._forward if isinstance(fn, OptimizedModule) else getattr(fn, "_compiled_call_impl", None) or fn
    return list(target._cache.entries)


class _Entry:
    """One compiled (or eager) variant of a compiled callable, valid while its guards hold."""

    __slots__ = ("spec", "check", "guards", "run", "compiled", "lifted", "tensor_idx", "capture", "label",
                 "break_reason", "eager_fn")

    def run_graph(self, leaves, args, kwargs):
        idx = self.tensor_idx
        outs = self.compiled(*self.lifted, *[leaves[i] for i in idx])
        return self.capture.rebuild(outs)

    def run_eager(self, leaves, args, kwargs):
        return self.eager_fn(*args, **kwargs)


# -- the compiled callable --------------------------------------------------------------------------------------
class _DynamoCallable:
    """What ``compile(fn)`` returns for a function: calls go through the guarded cache."""

    def __init__(self, trace_fn, eager_fn, roots, backend, fullgraph: bool, dynamic, name: str, where: str):
        self._trace_fn, self._eager_fn, self._roots = trace_fn, eager_fn, roots
        self._backend, self._fullgraph, self._dynamic = backend, fullgraph, dynamic
        self._cache = _frame_cache(name, where)
        self._argnames = _argnames(trace_fn)
        self._torchdynamo_orig_callable = eager_fn
        functools.update_wrapper(self, eager_fn, updated=())

    def __call__(self, *args, **kwargs):
        if _tracing[0]:   # called inside another trace (or explain): inline, as PyTorch does nested compiles
            return self._eager_fn(*args, **kwargs)
        if kwargs or any(isinstance(a, _CONTAINERS) for a in args):
            leaves, spec = flatten((args, kwargs))
        else:
            leaves, spec = args, len(args)
        for e in self._cache.entries:
            if e.spec == spec and e.check(leaves):
                return e.run(leaves, args, kwargs)
        return self._miss(leaves, spec, args, kwargs)

    def __get__(self, obj, objtype=None):   # decorating a method: bind like a function
        return self if obj is None else functools.partial(self, obj)

    # -- a miss: recompile, or fall back ---------------------------------------------------------------------
    def _miss(self, leaves, spec, args, kwargs):
        cache = self._cache
        if cache.entries:
            reasons = self._failure_reasons(leaves, spec)
            if len(cache.entries) >= config.cache_size_limit or _total_entries() >= \
                    config.accumulated_cache_size_limit:
                return self._limit_hit(reasons, args, kwargs)
            if config.error_on_recompile:
                raise RecompileError(f"Recompiling function {cache.name}: {reasons[0] if reasons else ''}")
            if recompiles_log.isEnabledFor(logging.DEBUG):
                recompiles_log.debug("Recompiling function %s in %s\n    triggered by the following guard "
                                     "failure(s):\n%s", cache.name, cache.where,
                                     "\n".join(f"    - {r}" for r in reasons))
        with compile_debug_scope():   # the first run too: backends may compile lazily on their first call
            entry = self._compile(leaves, spec, args, kwargs)
            cache.entries.insert(0, entry)
            return entry.run(leaves, args, kwargs)

    def _failure_reasons(self, leaves, spec) -> list[str]:
        out = []
        for e in self._cache.entries:
            reason = "argument structure changed" if e.spec != spec else e.guards.failure_reason(leaves)
            out.append(f"{e.label}: {reason}")
        return out

    def _limit_hit(self, reasons, args, kwargs):
        cache = self._cache
        if not cache.limit_hit:
            cache.limit_hit = True
            counters["stats"]["recompile_limit_hit"] += 1
            msg = (f"glasstorch._dynamo hit config.cache_size_limit ({config.cache_size_limit})\n"
                   f"   function: {cache.name!r} ({cache.where})\n"
                   f"   last reason: {reasons[0] if reasons else 'unknown'}\n"
                   f'To log all recompilation reasons, use GLASSTORCH_LOGS="recompiles".')
            if config.fail_on_recompile_limit_hit:
                raise FailOnRecompileLimitHit(msg)
            log.warning(msg)
        elif config.fail_on_recompile_limit_hit:
            raise FailOnRecompileLimitHit(f"recompile limit hit for {cache.name!r}")
        return self._eager_fn(*args, **kwargs)

    # -- one compile -------------------------------------------------------------------------------------------
    def _compile(self, leaves, spec, args, kwargs) -> _Entry:
        cache = self._cache
        if cache.frame_id is None:
            cache.frame_id = _frame_ids[0]
            _frame_ids[0] += 1
        label = f"{cache.frame_id}/{cache.compiles}"
        cache.compiles += 1
        counters["frames"]["total"] += 1
        names = _leaf_names(spec, self._argnames, len(leaves))
        roots = self._roots + [(n, v) for n, v in zip(names, leaves, strict=True) if isinstance(v, Module)]
        full = spec if not isinstance(spec, int) else _flat_spec(spec)
        entry = _Entry()
        entry.spec, entry.label, entry.eager_fn = spec, label, self._eager_fn
        with compile_debug_scope():
            start = time.perf_counter()
            log.info("Step 1: glasstorch._dynamo start tracing %s %s", cache.name, cache.where)
            entry.break_reason = None
            _tracing[0] += 1
            try:
                cap = capture(self._trace_fn, roots, list(leaves), full)
            except GraphBreak as gb:
                self._graph_break(gb, label)
                entry.break_reason, cap = gb, None
            finally:
                _tracing[0] -= 1
            log.info("Step 1: glasstorch._dynamo done tracing %s (%.3fs)", cache.name, time.perf_counter() - start)
            if cap is not None:
                self._compile_graph(entry, cap)
            else:
                entry.run = entry.run_eager
            entry.guards = _build_guards(self._trace_fn, leaves, names, roots, cap)
            entry.check = entry.guards.check
            self._report(entry, label)
        return entry

    def _graph_break(self, gb: GraphBreak, label: str) -> None:
        counters["graph_break"][gb.reason] += 1
        where = gb.user_stack[-1] if gb.user_stack else None
        if self._fullgraph:
            err = Unsupported(gb.reason, gb.user_stack, gb.explanation)
            if config.verbose:   # keep the internal chain (the tracer's own exception) in the traceback
                raise err from gb
            raise err from None
        if graph_breaks_log.isEnabledFor(logging.DEBUG):
            at = f"{where.filename}:{where.lineno}" if where else "an unknown location"
            graph_breaks_log.debug("Graph break in user code at %s\nGraph Break Reason: %s\n  Explanation: %s\n"
                                   "User code traceback:\n%s", at, gb.reason, gb.explanation,
                                   format_user_stack(gb.user_stack))
        write_debug_file("graph_break.txt", f"[{label}] {gb.reason}\n{gb.explanation}\n"
                         f"{format_user_stack(gb.user_stack)}\n")

    def _compile_graph(self, entry: _Entry, cap) -> None:
        counters["stats"]["calls_captured"] += 1
        entry.capture, entry.lifted, entry.tensor_idx = cap, cap.lifted, cap.tensor_idx
        if graph_code_log.isEnabledFor(logging.DEBUG):
            graph_code_log.debug("TRACED GRAPH\n ===== __compiled_fn_%s =====\n%s", entry.label.replace("/", "_"),
                                 cap.gm.code)
        write_debug_file("graph.py", cap.gm.code)
        try:
            compiled = self._backend(cap.gm, cap.example_inputs)
        except Exception as e:
            gb = _backend_graph_break(e)
            if gb is not None:   # Note [Breaks met by the backend]
                self._graph_break(gb, entry.label)
                entry.break_reason = gb
                entry.run = entry.run_eager
                return
            name = backend_name(self._backend)
            if not config.suppress_errors:
                raise BackendCompilerFailed(name, e).with_traceback(e.__traceback__) from e
            log.warning("Backend compiler exception\n   Explanation: backend=%r raised:\n%s: %s\n   Falling back to "
                        "eager for this call.", name, type(e).__name__, e)
            write_debug_file("backend_error.txt", f"backend={name!r} raised:\n{type(e).__name__}: {e}\n")
            entry.run = entry.run_eager
            return
        if not callable(compiled):
            raise BackendCompilerFailed(backend_name(self._backend),
                                        TypeError(f"the backend returned {type(compiled).__name__}, not a callable"))
        entry.compiled = compiled
        entry.run = entry.run_graph
        counters["frames"]["ok"] += 1

    def _report(self, entry: _Entry, label: str) -> None:
        text = entry.guards.code_text()
        if guards_log.isEnabledFor(logging.DEBUG):
            guards_log.debug("GUARDS [%s] %s:\n%s", label, self._cache.name, text)
        write_debug_file("guards.txt", text + "\n")


def _backend_graph_break(exc: BaseException, user_stack=None) -> GraphBreak | None:
    """Note [Breaks met by the backend]: AOT autograd traces the backward with FakeTensors, so an operator whose
    backward has a data-dependent output shape (``masked_scatter`` -> ``masked_select``, boolean-mask
    ``index_put`` -> ``nonzero``) or reads a value stops the backend as capture's forward trace would stop.  That
    is a graph break, not a compiler failure: the call runs eagerly (correctly), the break is recorded like a
    forward one (counters, ``graph_breaks`` log, debug file), and ``fullgraph=True`` raises Unsupported.  The
    user stack is the call site of the compiled function (the backward has no user source line), or
    ``user_stack`` when given (explain's call site).  Returns None for any other backend error."""
    stack = _call_site() if user_stack is None else user_stack
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        op = _op_name(getattr(exc, "func", "an operator"))
        if isinstance(exc, DynamicOutputShapeException):
            return GraphBreak("Dynamic shape operator",
                              f"Operator `{op}`'s output shape depends on input Tensor data (met by AOT autograd "
                              "while tracing the backward).", stack)
        if isinstance(exc, DataDependentOutputException):
            return GraphBreak("Data-dependent operator in the backward",
                              f"Operator `{op}` reads a tensor's value, which a traced graph does not know (met by "
                              "AOT autograd while tracing the backward).", stack)
        exc = exc.__cause__ or exc.__context__
    return None


def _call_site() -> list:
    """The user frames that called the compiled function (generated graph code left out)."""
    return [fs for fs in user_stack_here(2) if not fs.filename.startswith("<")]


def _total_entries() -> int:
    return sum(len(c.entries) for c in list(_caches))


def _flat_spec(n: int):
    return (tuple, ((tuple, (None,) * n), (dict, (), ())))


def _argnames(fn) -> list[str]:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _leaf_names(spec, argnames, n: int) -> list[str]:
    """The source name of each flat leaf: ``L['x']``, ``L['xs'][1]``, ``L['kw']['a']``."""
    if isinstance(spec, int):
        return [f"L[{argnames[i]!r}]" if i < len(argnames) else f"L['args'][{i}]" for i in range(n)]
    names: list = []
    args_spec, kwargs_spec = spec[1]
    for i, s in enumerate(args_spec[1]):
        _names_of(s, f"L[{argnames[i]!r}]" if i < len(argnames) else f"L['args'][{i}]", names)
    for k, s in zip(kwargs_spec[1], kwargs_spec[2], strict=True):
        _names_of(s, f"L[{k!r}]", names)
    return names


def _names_of(spec, prefix: str, out: list) -> None:
    if spec is None:
        out.append(prefix)
    elif spec[0] in (dict,) or len(spec) == 3:
        for k, s in zip(spec[1], spec[2], strict=True):
            _names_of(s, f"{prefix}[{k!r}]", out)
    else:
        for i, s in enumerate(spec[1]):
            _names_of(s, f"{prefix}[{i}]", out)


def _build_guards(fn, leaves, names, roots, cap):
    b = GuardBuilder()
    b.global_state_match()
    tensor_positions = []
    for i, v in enumerate(leaves):
        if isinstance(v, Tensor):
            b.tensor_match(f"L[{i}]", names[i], v)
            tensor_positions.append(i)
        else:
            b.constant_match(f"L[{i}]", names[i], v)
    if len(tensor_positions) > 1:
        b.duplicate_inputs(tensor_positions, [leaves[i] for i in tensor_positions],
                           [names[i] for i in tensor_positions])
    for root_name, root in roots:
        for qual, m in root.named_modules():
            b.module_training(m, f"{root_name}.{qual}" if qual else root_name)
            b.module_attributes(m, f"{root_name}.{qual}" if qual else root_name)
    b.function_state(fn)
    if cap is not None:   # a graph was traced without hooks: adding one later must retrace (and break)
        b.no_hooks([m for _, root in roots for m in root.modules()], global_hook_tables())
    if cap is not None:
        for real, (m, store, key, qual) in zip(cap.lifted, cap.lifted_sources, strict=True):
            held = b.member_identity(m, store, key, real, qual)
            b.tensor_match(held, qual, real, strides=False, source="local_nn_module")
    return b.build()


# -- OptimizedModule -----------------------------------------------------------------------------------------
class OptimizedModule(Module):
    """A compiled module: ``forward`` runs the compiled callable; everything else is the original module's.

    The original is the submodule ``_orig_mod`` (so ``state_dict`` keys carry the ``_orig_mod.`` prefix, as
    PyTorch's); attribute reads the wrapper does not have, ``training``, ``train()``/``eval()`` reach it.
    """

    def __init__(self, mod: Module, dynamo_callable):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_forward"] = dynamo_callable

    def forward(self, *args, **kwargs):
        return self._forward(*args, **kwargs)

    @property
    def training(self) -> bool:
        return self._modules["_orig_mod"].training

    @training.setter
    def training(self, value: bool) -> None:
        orig = self.__dict__.get("_modules", {}).get("_orig_mod")
        if orig is not None:
            orig.training = value

    def __getattr__(self, name: str):
        modules = self.__dict__.get("_modules")
        if modules is None or "_orig_mod" not in modules:
            raise AttributeError(f"'OptimizedModule' object has no attribute '{name}'")
        if name == "_orig_mod":
            return modules["_orig_mod"]
        return getattr(modules["_orig_mod"], name)

    def _get_name(self) -> str:
        return "OptimizedModule"


# -- the API ------------------------------------------------------------------------------------------------------
def _module_roots(fn) -> list:
    """Modules a plain function reaches by name: ``self`` of a bound method, globals and closure cells."""
    roots = []
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, Module):
        roots.append(("L['self']", owner))
    code = getattr(fn, "__code__", None)
    if code is None:
        return roots
    g = getattr(fn, "__globals__", {})
    for name in code.co_names:
        v = g.get(name)
        if isinstance(v, Module) and all(v is not r for _, r in roots):
            roots.append((f"G[{name!r}]", v))
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or (), strict=False):
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        if isinstance(v, Module) and all(v is not r for _, r in roots):
            roots.append((f"L[{name!r}]", v))
    return roots


def _where(fn) -> str:
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else repr(fn)


def _make_callable(model, backend, fullgraph, dynamic):
    if isinstance(model, Module):
        forward = model.forward
        return _DynamoCallable(forward, model._call_impl, [("L['self']", model)], backend, fullgraph, dynamic,
                               "forward", _where(forward))
    bound_to = getattr(model, "__self__", None)
    if isinstance(bound_to, Module) and getattr(model, "__func__", None) is Module._call_impl:
        # Module.compile(): compile the module's call, traced on its forward
        forward = bound_to.forward
        return _DynamoCallable(forward, model, [("L['self']", bound_to)], backend, fullgraph, dynamic, "forward",
                               _where(forward))
    name = getattr(model, "__name__", type(model).__name__)
    return _DynamoCallable(model, model, _module_roots(model), backend, fullgraph, dynamic, name, _where(model))


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None, options=None,
            disable: bool = False):
    """Compile a function or module: capture graphs, guard them, run them through ``backend``.

    Args:
        model: a function or ``nn.Module``; omitted -> a decorator.
        fullgraph: raise :class:`~glasstorch._dynamo.exc.Unsupported` at a graph break instead of running eagerly.
        dynamic: shapes are always specialised here (a new shape recompiles, up to the recompile limit), which is
            PyTorch's ``dynamic=False``; ``None`` is accepted silently, ``True`` warns once that it is not supported.
        backend: ``"inductor"`` (default), ``"aot_eager"``, ``"eager"`` or a callable ``(gm, example_inputs)``.
        mode: ``"default"``, ``"reduce-overhead"``, ``"max-autotune"``, ``"max-autotune-no-cudagraphs"`` or
            ``"lite"``: PyTorch's sets of inductor settings (``glasstorch._inductor.list_mode_options``); only
            those that exist here apply (see docs/compile.md).  Another backend receives it as ``mode=``.
        options: ``{name: value}`` of ``glasstorch._inductor.config`` settings applied while this callable's
            graphs compile (inductor); another backend receives it as ``options=``.
        disable: return ``model`` unchanged.

    Returns:
        an :class:`OptimizedModule` for a module, otherwise a callable with the function's signature.

    Raises:
        InvalidBackend: unknown backend name; RuntimeError: both ``mode`` and ``options``, or (inductor) an
            unknown mode, an unknown option or an option value of the wrong type.

    Example:
        >>> import glasstorch as torch
        >>> f = torch.compile(lambda x: x.sin() + 1, backend="eager")
        >>> f(torch.zeros(2))
        tensor([1., 1.])
    """
    if model is None:
        def decorator(m):
            return compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           disable=disable)
        return decorator
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if dynamic is True:
        warnings.warn("glasstorch.compile(dynamic=True): dynamic shapes are not supported yet; every new input shape "
                      "is compiled on its own (specialised), as with dynamic=False", UserWarning, stacklevel=2)
    compiler = compile_backend(backend, mode, options, dynamic)
    if not callable(model):
        raise RuntimeError("torch.compile: model must be a callable, or None to use it as a decorator")
    if disable:
        return model
    fn = _make_callable(model, compiler, fullgraph, dynamic)
    if isinstance(model, Module):
        return OptimizedModule(model, fn)
    return fn
