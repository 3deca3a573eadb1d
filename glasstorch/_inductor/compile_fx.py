"""Entry points of the inductor: ``compile_fx_inner`` (one aten graph -> callable) and ``compile_fx`` (backend).

PyTorch counterpart: ``torch/_inductor/compile_fx.py``.  ``compile_fx_inner(gm, example_inputs)`` lowers the
graph (:mod:`.lowering`), schedules and fuses it (:mod:`.scheduler`), generates one C file for all kernels
(:mod:`.codegen_c`), compiles it through :func:`glasstorch._cbuild.load` (disk-cached by content hash) and
builds the wrapper (:mod:`.wrapper`).  ``compile_fx`` is the ``"inductor"`` backend: AOT autograd with this
compiler for the forward and backward graphs and the inductor decomposition table.

Invariant: the compiled callable returns what ``gm(*inputs)`` returns (a tuple, same dtypes/shapes/strides);
graphs it cannot compile faithfully (in-place ops) run through ``gm`` itself; without a C compiler it raises
:class:`CompilerMissing` (a :class:`glasstorch._cbuild.CompilerNotFound`) naming what was looked for.
"""

from __future__ import annotations

import functools
import importlib
import os

from .. import _cbuild
from ..autograd import grad_mode as _grad_mode
from . import codegen_c, config, decomposition, ir, lowering_reduce, lowering_rules  # noqa: F401  (register the rules)
from .lowering import GraphLowering
from .scheduler import Kernel, schedule, summary
from .wrapper import WrapperBuilder, _fix_layout

__all__ = ["compile_fx", "compile_fx_inner", "CompilerMissing", "CompiledFxGraph", "compiler_available"]


class CompilerMissing(_cbuild.CompilerNotFound):
    """No C compiler for the generated kernels; the dynamo layer catches it and runs the graph eagerly."""


def compiler_available() -> bool:
    """Whether the inductor can build kernels here (a C compiler exists); never raises."""
    return _cbuild.available()


def _require_compiler():
    try:
        _cbuild.compiler()
    except _cbuild.CompilerNotFound as e:
        raise CompilerMissing(f"inductor needs a C compiler to build its kernels: {e}") from None


def _logging():
    try:
        return importlib.import_module("glasstorch._logging")
    except ImportError:
        return None


def _artifact_log(name):
    mod = _logging()
    if mod is None or not hasattr(mod, "getArtifactLogger"):
        return None
    try:
        return mod.getArtifactLogger(__name__, name)
    except Exception:  # an unregistered artifact name: logging must never break compilation
        return None


def _debug_dir():
    mod = _logging()
    if mod is None or not config.debug or not hasattr(mod, "debug_dir"):
        return None
    return mod.debug_dir()


class CompiledFxGraph:
    """The callable compile_fx_inner returns: ``compiled(*inputs) -> tuple``."""

    __slots__ = ("_call", "c_source", "wrapper_source", "stats", "_expect", "_no_grad", "_eager", "profiler",
                 "__weakref__")

    def __init__(self, call, c_source, wrapper_source, stats, expect, no_grad, eager=None):
        self._call, self.c_source, self.wrapper_source, self.stats = call, c_source, wrapper_source, stats
        self._expect, self._no_grad, self._eager = expect, no_grad, eager
        self.profiler = None  # a _Profile when compiled under config.profile_kernels

    def __call__(self, *args):
        if self._eager is not None:
            out = self._eager(*args)
            return tuple(out) if isinstance(out, (list, tuple)) else (out,)
        if len(args) == 1 and isinstance(args[0], list) and len(self._expect) != 1:
            args = args[0]  # boxed calling convention
        args = self._check(args)
        if self._no_grad:
            with _grad_mode.no_grad():
                return self._call(args)
        return self._call(args)

    def _check(self, args):
        fixed = None
        for i, exp in self._expect:
            impl = args[i]._impl
            if impl.sizes != exp[0] or impl.dtype is not exp[2]:
                raise RuntimeError(f"compiled graph: input {i} must have sizes {list(exp[0])} and dtype {exp[2]} "
                                   f"(got {list(impl.sizes)}, {impl.dtype}); compile again for new shapes")
            if impl.strides != exp[1]:
                if fixed is None:
                    fixed = list(args)
                fixed[i] = _fix_layout(args[i], exp)
        return args if fixed is None else fixed


def _ensure_meta(gm, example_inputs):
    """Fill ``meta['val']`` by running the graph once when a hand-built graph has none."""
    nodes = [n for n in gm.graph.nodes if n.op == "call_function"]
    if all("val" in n.meta for n in nodes):
        return
    from ..fx.interpreter import Interpreter

    class _Prop(Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            n.meta.setdefault("val", out)
            return out
    with _grad_mode.no_grad():
        _Prop(gm).run(*example_inputs)


def _has_mutation(gm) -> bool:
    """In-place or out= ops in the graph (AOT graphs are functional; these run through ``gm`` instead)."""
    for n in gm.graph.nodes:
        schema = getattr(n.target, "_schema", None)
        if n.op == "call_function" and schema is not None and schema.is_mutable:
            return True
    return False


def compile_fx_inner(gm, example_inputs, **kwargs):
    """Compile a functional aten FX graph into C kernels and a wrapper.

    Args:
        gm: an ``fx.GraphModule`` over ``glasstorch.ops.aten`` OpOverloads (a forward or backward graph).
        example_inputs: tensors (real or fake) with the sizes, strides and dtypes of the runtime inputs.
        is_backward: (keyword) the graph is AOT autograd's backward: its outputs are gradients, whose layout
            AccumulateGrad fixes anyway, so a transposed matmul output may be computed in the parameter's layout.

    Returns:
        :class:`CompiledFxGraph`: ``compiled(*inputs)`` returns the graph's outputs as a tuple.

    Raises:
        CompilerMissing: no C compiler is installed (``glasstorch._cbuild``).

    Example:
        >>> compiled = compile_fx_inner(gm, [x])   # doctest: +SKIP
        >>> out, = compiled(x)                      # doctest: +SKIP
    """
    _require_compiler()
    if _has_mutation(gm):
        return CompiledFxGraph(None, "", "", {"eager": True}, (), False, eager=gm)
    _ensure_meta(gm, example_inputs)
    g = GraphLowering(gm, example_inputs, is_backward=bool(kwargs.get("is_backward"))).run()
    decisions: list = []
    steps = schedule(g.nodes, decisions)
    kernels = [s for s in steps if isinstance(s, Kernel)]
    prof = [] if config.profile_kernels else None
    sources = [codegen_c.generate(k, prof) for k in kernels]
    counters = codegen_c.profile_source(len(prof)) if prof is not None else ""
    c_source = codegen_c.HEADER + counters + "\n" + "\n".join(sources)
    libs = {}
    if kernels:
        lib = _cbuild.load(c_source, openmp=True, name="inductor")
        libs = {k.name: lib for k in kernels}
    builder = WrapperBuilder(g, steps, libs, profile=prof is not None,
                             private_from=getattr(gm, "meta", {}).get("num_user_outputs"))
    wrapper_source = builder.build()
    env = builder.env
    exec(compile(wrapper_source, "<inductor wrapper>", "exec"), env)  # noqa: S102 - our own generated code
    stats = summary(steps)
    stats.update(arena_bytes=builder.arena.total_bytes(), fallbacks=list(g.fallback_ops))
    expect = tuple((b.index, (b.sizes, b.strides, b.dtype)) for b in g.inputs if b is not None)
    _report(g, steps, decisions, c_source, wrapper_source, stats, bool(kwargs.get("is_backward")))
    compiled = CompiledFxGraph(env["call"], c_source, wrapper_source, stats, expect, bool(g.fallback_ops))
    if prof is not None:
        compiled.profiler = _Profile(prof, builder.step_labels, env["_prof"], lib if kernels else None)
    return compiled


class _Profile:
    """Accumulated times of one compiled graph (``config.profile_kernels``): C loop groups and wrapper steps."""

    def __init__(self, group_labels, step_labels, step_times, lib):
        self.group_labels, self.step_labels, self.step_times = group_labels, step_labels, step_times
        self.counters = None
        if lib is not None and group_labels:
            import ctypes
            fn = lib.gt_prof_counters
            fn.restype = ctypes.POINTER(ctypes.c_double)
            self.counters = fn()

    def rows(self):
        """``[(seconds, label)]``: every wrapper step (kernel calls include their groups) and every C group."""
        out = [(t, lab) for t, lab in zip(self.step_times, self.step_labels, strict=True)]
        if self.counters is not None:
            out += [(self.counters[i], "  group " + lab) for i, lab in enumerate(self.group_labels)]
        return out

    def reset(self):
        for i in range(len(self.step_times)):
            self.step_times[i] = 0.0
        if self.counters is not None:
            for i in range(len(self.group_labels)):
                self.counters[i] = 0.0


def _report(g, steps, decisions, c_source, wrapper_source, stats, is_backward=False):
    sched_text = _schedule_text(steps, decisions, stats)
    log = _artifact_log("schedule")
    if log is not None:
        log.debug("%s", sched_text)
    log = _artifact_log("output_code")
    if log is not None:
        log.debug("Output code:\n%s\n# --- C kernels ---\n%s", wrapper_source, c_source)
    folder = _debug_dir()
    if folder:
        folder = _graph_folder(folder, is_backward)
        files = {"ir.txt": "\n".join(repr(n) for n in g.nodes), "schedule.txt": sched_text,
                 "kernels.c": c_source, "wrapper.py": wrapper_source}
        for name, text in files.items():
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)


def _graph_folder(compile_folder: str, is_backward: bool) -> str:
    """A new folder for one graph's files inside its compile's debug folder: ``inductor/forward``,
    ``inductor/backward`` (the joint graph's two halves), then ``forward_1`` ... for further graphs of one
    compile (an inference graph, a recompiled backward), so no graph overwrites another's output."""
    base = os.path.join(compile_folder, "inductor", "backward" if is_backward else "forward")
    path, n = base, 1
    while os.path.exists(path):
        path, n = f"{base}_{n}", n + 1
    os.makedirs(path)
    return path


def _schedule_text(steps, decisions, stats) -> str:
    lines = [f"inductor schedule: {stats}"]
    for s in steps:
        if isinstance(s, Kernel):
            for grp in s.groups:
                names = ", ".join(f"{m.node.buf.name}{'(local)' if m.local else ''}" for m in grp.members)
                lines.append(f"  {s.name}: group N={grp.N}: {names}")
        else:
            lines.append(f"  extern {s.kind}: {s.op if s.op is not None else s.kind} -> "
                         f"{', '.join(o.name for o in s.outs)}")
    lines.append("fusion decisions:")
    lines.extend("  " + d for d in decisions)
    return "\n".join(lines)


def compile_fx(model, example_inputs, config_patches=None, **kwargs):
    """The ``"inductor"`` backend: AOT autograd with :func:`compile_fx_inner` for forward and backward.

    ``config_patches`` (``{name: value}`` of :mod:`.config`, from ``glasstorch.compile(options=...)``) hold
    while this graph compiles, and again while its backward compiles (that happens later, on the first
    backward); the settings are restored after each, also when compiling raises.
    """
    _require_compiler()  # before tracing: dynamo falls back to eager on CompilerMissing
    inner = compile_fx_inner
    if config_patches:
        patch = config.patch(config_patches)
        with patch:
            return _aot(model, example_inputs, patch(inner))
    return _aot(model, example_inputs, inner)


def _aot(model, example_inputs, inner):
    aot = importlib.import_module("glasstorch._functorch.aot_autograd")
    return aot.aot_module_simplified(model, example_inputs, fw_compiler=inner,
                                     bw_compiler=functools.partial(inner, is_backward=True),
                                     decompositions=decomposition.select_decomp_table())


_ = ir  # the IR module is part of this package's public surface for tests
