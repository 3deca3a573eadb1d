"""``explain(fn)(*args)``: run a function for real and report its graphs, graph breaks and guards.

PyTorch counterpart: ``torch/_dynamo/backends/debugging.py`` (``ExplainOutput``) and ``torch._dynamo.explain``.
The function runs eagerly, with real values, under a recording dispatch mode at the Python key; every operator
that reaches the key is appended to the current graph.  At each graph break the current graph is cut and a new
one begins, so a function with two breaks shows three graphs (empty stretches make no graph, as in PyTorch).
A break is: a value read of a tensor (``item``, ``tolist``, ``numpy``, ``bool``/``int``/``float``) made above
the dispatcher, an operator with a data-dependent output shape (``nonzero``, ``unique``, ``masked_select``,
boolean-mask indexing), or a ``print``/``input``/``logging`` call from user code.  After the run each graph is
traced once more the way the default backend's AOT autograd would (joint forward + backward graph on FakeTensors,
nothing compiled), so a break met only there (``masked_scatter``'s gradient selects by the mask) is reported as
the compile would report it (Note [Breaks met by the backend] in eval_frame.py), after the forward breaks.

Invariant: explain returns the same result the plain call would (it only watches), and its break reasons
use the same texts as ``compile``'s graph breaks.
"""

from __future__ import annotations

import operator
import time
import weakref

from glasstorch._core import dtype as _dt
from glasstorch._core.dispatch_key import ExcludeDispatchKeyGuard
from glasstorch._dynamo.eval_frame import (
    _argnames,
    _backend_graph_break,
    _build_guards,
    _leaf_names,
    _module_roots,
    _tracing,
)
from glasstorch._dynamo.output_graph import BELOW_INTERCEPT, BreakDetector
from glasstorch._dynamo.utils import flatten, user_stack_here
from glasstorch.fx import Graph, GraphModule
from glasstorch.fx.experimental.proxy_tensor import _canonical
from glasstorch.nn.modules.module import Module
from glasstorch.tensor import Tensor
from glasstorch.utils._python_dispatch import TorchDispatchMode, mode_stack

__all__ = ["explain", "ExplainOutput", "GraphCompileReason"]

_DYNAMIC_OPS = frozenset({"aten::nonzero", "aten::_unique2", "aten::unique_dim", "aten::unique_consecutive",
                          "aten::masked_select", "aten::argwhere", "aten::repeat_interleave.Tensor",
                          "aten::nonzero_static"})
_READS = {
    "item": ("Unsupported Tensor.item() call with capture_scalar_outputs=False",
             "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False."),
    "tolist": ("Unsupported Tensor.tolist() call", "`Tensor.tolist()` reads the tensor's values."),
    "numpy": ("Unsupported Tensor.numpy() call", "`Tensor.numpy()` reads the tensor's values."),
    "__bool__": ("Data-dependent branching",
                 "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support "
                 "tracing dynamic control flow."),
    "__int__": ("Unsupported int() call on a Tensor", "`int(tensor)` reads the tensor's value."),
    "__float__": ("Unsupported float() call on a Tensor", "`float(tensor)` reads the tensor's value."),
    "__index__": ("Unsupported int() call on a Tensor", "using a tensor as an index reads its value."),
}


class GraphCompileReason:
    """Why a graph ended: ``reason`` and the ``user_stack`` (FrameSummary list, outermost first)."""

    __slots__ = ("reason", "user_stack", "graph_break", "explanation")

    def __init__(self, reason: str, user_stack, graph_break: bool = True, explanation: str = ""):
        self.reason, self.user_stack, self.graph_break, self.explanation = reason, list(user_stack), graph_break, \
            explanation

    def __repr__(self) -> str:
        return f"GraphCompileReason(reason={self.reason!r}, user_stack={self.user_stack!r})"


class ExplainOutput:
    """What :func:`explain` found (PyTorch's ``torch._dynamo.backends.debugging.ExplainOutput``)."""

    def __init__(self, graphs, graph_count, graph_break_count, break_reasons, op_count, ops_per_graph=None,
                 out_guards=None, compile_times=None):
        self.graphs, self.graph_count, self.graph_break_count = graphs, graph_count, graph_break_count
        self.break_reasons, self.op_count, self.ops_per_graph = break_reasons, op_count, ops_per_graph
        self.out_guards, self.compile_times = out_guards, compile_times

    def __str__(self) -> str:
        out = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
               f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, br in enumerate(self.break_reasons):
            out += [f"  Break Reason {i + 1}:", f"    Reason: {br.reason}"]
            if br.explanation:
                out.append(f"  Explanation: {br.explanation}")
            out.append("    User Stack:")
            out += [f"      {fs!r}" for fs in br.user_stack]
        if self.ops_per_graph is not None:
            out.append("Ops per Graph:")
            for i, ops in enumerate(self.ops_per_graph):
                out.append(f"  Ops {i + 1}:")
                out += [f"    {op}" for op in ops]
        if self.out_guards is not None:
            out.append("Out Guards:")
            for i, g in enumerate(self.out_guards):
                out.append(f"  Guard {i + 1}:")
                out += ["    " + line.strip() for line in str(g).split("\n")]
        if self.compile_times is not None:
            out.append(f"Compile Times: {self.compile_times}")
        return "\n".join(out) + "\n"

    __repr__ = __str__


class _Segment:
    """One stretch of operators between breaks, recorded into an FX graph."""

    def __init__(self):
        self.graph = Graph()
        self.nodes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # TensorImpl -> node
        self.ops: list = []
        self.example_inputs: list = []   # one per placeholder: an alias as the tensor was when first met

    def node_of(self, t: Tensor):
        node = self.nodes.get(t._impl)
        if node is None:
            node = self.graph.placeholder(f"arg{len(self.example_inputs)}")
            self.example_inputs.append(_example(t))
            self.nodes[t._impl] = node
        return node

    def args(self, value):
        if isinstance(value, Tensor):
            return self.node_of(value)
        if isinstance(value, (list, tuple)):
            return type(value)(self.args(v) for v in value)
        return value

    def record(self, func, args, kwargs, out) -> None:
        node = self.graph.call_function(_canonical(func), self.args(args),
                                        {k: self.args(v) for k, v in kwargs.items()})
        self.ops.append(func)
        if isinstance(out, Tensor):
            self.nodes[out._impl] = node
        elif isinstance(out, (list, tuple)):
            for i, o in enumerate(out):
                if isinstance(o, Tensor):
                    self.nodes[o._impl] = self.graph.call_function(operator.getitem, (node, i))

    def finish(self, returned=()) -> GraphModule | None:
        if not self.ops:
            return None
        produced = {id(n) for n in self.graph.nodes if n.op == "call_function"}
        live = [n for n in self.nodes.values() if id(n) in produced]
        for t in returned:
            n = self.nodes.get(t._impl)
            if n is not None and n not in live:
                live.append(n)
        self.graph.output(tuple(live))
        return GraphModule(Module(), self.graph)


class _Recorder(TorchDispatchMode):
    """Records operators into the current segment and cuts at breaks."""

    def __init__(self, depth: int):
        self.segments = [_Segment()]
        self.graphs: list = []
        self.graph_inputs: list = []   # the example inputs of each graph
        self.reasons: list = []
        self.depth = depth
        self.suspended = 0

    def active(self) -> bool:
        return not self.suspended and self in mode_stack()

    def cut(self, reason: str, explanation: str) -> None:
        stack = user_stack_here(3)[self.depth:]
        self.reasons.append(GraphCompileReason(reason, stack, True, explanation))
        self.close()
        self.segments.append(_Segment())

    def close(self, returned=()) -> None:
        """End the current segment: its graph (if it recorded anything) joins ``graphs``."""
        segment = self.segments[-1]
        gm = segment.finish(returned)
        if gm is not None:
            self.graphs.append(gm)
            self.graph_inputs.append(segment.example_inputs)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        dynamic = func.name in _DYNAMIC_OPS or (func.name == "aten::index.Tensor" and _has_mask(args))
        if dynamic:
            op = func.name.replace("::", ".")
            self.cut("Dynamic shape operator", f"Operator `{op}`'s output shape depends on input Tensor data.")
        with ExcludeDispatchKeyGuard(BELOW_INTERCEPT):
            out = func(*args, **kwargs)
        if not dynamic:
            self.segments[-1].record(func, args, kwargs, out)
        return out


def _example(t: Tensor) -> Tensor:
    """What a graph input looked like when the graph met it: a detached alias (later resizes of ``t`` do not
    reach it) that requires grad where ``t`` did, as the compile's example inputs are."""
    alias = t.detach()
    if t.requires_grad:
        alias.requires_grad_(True)
    return alias


def _aot_breaks(rec: _Recorder, user_stack) -> list:
    """Graph breaks the default backend would meet in AOT autograd: each graph traced with its backward (the
    inductor's decompositions, graphs left uncompiled).  Other backend errors are not breaks: not reported."""
    from glasstorch._functorch.aot_autograd import aot_module_simplified, nop
    try:
        from glasstorch._inductor.decomposition import select_decomp_table
        decompositions = select_decomp_table()
    except ImportError:
        decompositions = None
    out = []
    for gm, inputs in zip(rec.graphs, rec.graph_inputs, strict=True):
        try:
            aot_module_simplified(gm, inputs, fw_compiler=nop, decompositions=decompositions)
        except Exception as e:  # noqa: BLE001 - only breaks are reported, as the compile reports them
            gb = _backend_graph_break(e, user_stack)
            if gb is not None:
                out.append(GraphCompileReason(gb.reason, gb.user_stack, True, gb.explanation))
    return out


def _has_mask(args) -> bool:
    indices = args[1] if len(args) > 1 else ()
    return any(isinstance(i, Tensor) and i._impl.dtype in (_dt.bool, _dt.uint8) for i in indices or ())


class _ReadPatches:
    """Wrap Tensor's value-reading methods so that reads made above the dispatcher cut the graph."""

    def __init__(self, recorder: _Recorder):
        self.recorder = recorder
        self.saved: dict = {}

    def __enter__(self):
        for name, (reason, explanation) in _READS.items():
            original = self.saved[name] = Tensor.__dict__[name]
            setattr(Tensor, name, self._wrap(original, reason, explanation))
        return self

    def __exit__(self, *exc):
        for name, original in self.saved.items():
            setattr(Tensor, name, original)
        return False

    def _wrap(self, original, reason, explanation):
        rec = self.recorder

        def read(self, *args, **kwargs):
            if rec.active():
                rec.cut(reason, explanation)
            rec.suspended += 1
            try:
                return original(self, *args, **kwargs)
            finally:
                rec.suspended -= 1
        return read


def explain(f, *extra_args, **extra_kwargs):
    """``explain(fn)(*args, **kwargs)`` -> :class:`ExplainOutput` (the call runs for real, once).

    Example:
        >>> import glasstorch as torch
        >>> def fn(x):
        ...     y = x * 2
        ...     if y.sum() > 0:
        ...         y = y + 1
        ...     return y
        >>> explain(fn)(torch.ones(3)).graph_break_count
        1
    """
    def inner(*args, **kwargs):
        return _explain(f, args, kwargs)
    if extra_args or extra_kwargs:   # the old calling form explain(fn, *args)
        return inner(*extra_args, **extra_kwargs)
    return inner


def _explain(f, args, kwargs) -> ExplainOutput:
    start = time.perf_counter()
    roots = [("L['self']", f)] if isinstance(f, Module) else _module_roots(f)
    leaves, spec = flatten((args, kwargs))
    names = _leaf_names(spec, _argnames(f.forward if isinstance(f, Module) else f), len(leaves))
    guards = _build_guards(f.forward if isinstance(f, Module) else f, leaves, names, roots, None).guards
    rec = _Recorder(len(user_stack_here(2)))

    def on_print(name, a, kw):
        if rec.active():
            rec.cut("Failed to trace builtin operator",
                    f"Dynamo does not know how to trace builtin operator `{name}` with argument types "
                    f"{[type(v).__name__ for v in a]} (has_kwargs {bool(kw)})")
        rec.suspended += 1
        return _Resume(rec)

    _tracing[0] += 1   # compiled functions called inside run their plain code, recorded here
    try:
        with BreakDetector([], on_print=on_print), _ReadPatches(rec), rec:
            result = f(*args, **kwargs)
    finally:
        _tracing[0] -= 1
    returned = [v for v in flatten(result)[0] if isinstance(v, Tensor)]
    rec.close(returned)
    rec.reasons += _aot_breaks(rec, user_stack_here(2))
    ops = [[n.target for n in gm.graph.nodes if n.op == "call_function" and not _is_getitem(n)]
           for gm in rec.graphs]
    return ExplainOutput(rec.graphs, len(rec.graphs), len(rec.reasons), rec.reasons, sum(len(o) for o in ops), ops,
                         guards, f"explain ran in {time.perf_counter() - start:.4f}s")


class _Resume:
    """Returned by the print hook: falsy, and re-enables recording once the original call is made."""

    def __init__(self, rec):
        self.rec = rec

    def __bool__(self):
        self.rec.suspended -= 1   # called by ``on_call(...) or original(...)`` just before ``original``
        return False


def _is_getitem(node) -> bool:
    return node.target is operator.getitem


