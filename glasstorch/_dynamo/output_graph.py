"""Capture: trace one call into an aten-level FX graph with FakeTensors, lifting module state to inputs.

PyTorch counterpart: ``torch/_dynamo/output_graph.py`` (the OutputGraph that owns the FX graph, lifts
parameters and buffers to graph inputs and hands ``(gm, example_inputs)`` to the backend) with
``symbolic_convert.py``'s graph breaks.  Where PyTorch interprets bytecode, this stage *traces*: the user's
function runs on FakeTensors under ``make_fx`` (the dispatcher's Python key), so every operator that reaches
the key is recorded, through module calls and helper functions alike.

What cannot be traced stops the trace with a :class:`~glasstorch._dynamo.exc.GraphBreak`: reading a fake's
value (``item``/``tolist``/``bool``/``numpy``/``int``/``float``), operators with data-dependent output
shapes, an operator without a meta kernel, ``print``/``input``/``breakpoint``/``logging`` calls made from user
code, module hooks, and writes to module attributes during the call (these are undone before the call runs
eagerly).

The graph handed on: placeholders = the roots' parameters then buffers that the trace used (in
``named_parameters()`` / ``named_buffers()`` order), then every tensor leaf of the flattened user inputs;
outputs = the tensor leaves of the user's result.  Non-tensor inputs are specialised (baked in).

Invariant: ``gm(*lifted, *user_tensors)`` returns the tensor leaves of ``fn(*args, **kwargs)`` in order, and
``rebuild`` puts them back into the user's output structure.
"""

from __future__ import annotations

import builtins
import dis
import linecache
import logging
import re
import sys
import threading
import traceback

from glasstorch._core.dispatch_key import AUTOCAST_SET, AUTOGRAD_SET, ExcludeDispatchKeyGuard, bit
from glasstorch._core.grad_state import state as _grad
from glasstorch._dynamo.exc import GraphBreak
from glasstorch._dynamo.utils import flatten, is_user_file, unflatten, user_stack_from_traceback, user_stack_here
from glasstorch._subclasses.fake_tensor import (
    DataDependentOutputException,
    DynamicOutputShapeException,
    UnsupportedFakeTensorException,
)
from glasstorch.fx.experimental.proxy_tensor import make_fx
from glasstorch.fx.graph_module import _get_attr as _fetch_attr
from glasstorch.nn.modules import _module_hooks
from glasstorch.tensor import Tensor
from glasstorch.utils._python_dispatch import TorchDispatchMode

__all__ = ["Capture", "capture", "state_index", "classify_exception", "BreakDetector"]

BELOW_INTERCEPT = AUTOGRAD_SET | AUTOCAST_SET | bit("ADInplaceOrView")   # layers the intercepted call already passed
_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
_GLOBAL_HOOKS = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                 "_global_backward_pre_hooks")


class Capture:
    """The result of one successful trace."""

    __slots__ = ("gm", "example_inputs", "lifted", "lifted_sources", "tensor_idx", "out_spec", "out_consts",
                 "out_is_tensor")

    def __init__(self):
        self.gm = None
        self.example_inputs: list = []
        self.lifted: list = []          # the real parameters/buffers passed first to the graph
        self.lifted_sources: list = []  # (module, store, key, qualified name) for each of them
        self.tensor_idx: list = []      # positions of the tensor leaves among the flat user inputs
        self.out_spec = None
        self.out_consts: list = []
        self.out_is_tensor: list = []

    def rebuild(self, outs):
        """Put the graph's tensor outputs back into the user's output structure."""
        it = iter(outs)
        leaves = [next(it) if is_t else c for is_t, c in zip(self.out_is_tensor, self.out_consts, strict=True)]
        return unflatten(leaves, self.out_spec)


# -- the state the roots own --------------------------------------------------------------------------------
def state_index(roots) -> dict:
    """``id(tensor) -> (order, module, store, key, source, tensor, qualified name)`` for every parameter then buffer.

    ``roots`` is a list of ``(name, module)``; the order is ``named_parameters()`` then ``named_buffers()``.
    """
    index: dict = {}
    for store in ("_parameters", "_buffers"):
        for root_name, root in roots:
            for mod_name, m in root.named_modules():
                for key, t in m.__dict__[store].items():
                    if t is not None and id(t) not in index:
                        qual = f"{mod_name}.{key}" if mod_name else key
                        source = f"{root_name}.{qual}" if root_name else qual
                        index[id(t)] = (len(index), m, store, key, source, t, qual)
    return index


def global_hook_tables() -> list:
    """The global forward/backward hook tables (``register_module_forward_hook`` ...)."""
    return [getattr(_module_hooks, name) for name in _GLOBAL_HOOKS if hasattr(_module_hooks, name)]


def _has_hooks(roots) -> bool:
    if any(global_hook_tables()):
        return True
    return any(m.__dict__.get(d) for _, root in roots for m in root.modules() for d in _HOOK_DICTS)


# -- break detection ----------------------------------------------------------------------------------------
_PRINT_LIKE = ("print", "input", "breakpoint")
_LOG_METHODS = ("debug", "info", "warning", "error", "critical", "exception", "log")


class BreakDetector:
    """While active: user calls to print-like builtins and ``logging`` raise GraphBreak; module attribute
    writes are recorded (and undone on exit) so the trace can be declared broken."""

    def __init__(self, roots, on_print=None):
        self.modules = [m for _, root in roots for m in root.modules()]
        self.on_print = on_print or _raise_print_break
        self._saved_builtins: dict = {}
        self._saved_log: dict = {}
        self._snapshots: list = []

    def __enter__(self):
        self._snapshots = [(m, _attr_snapshot(m)) for m in self.modules]
        for name in _PRINT_LIKE:
            original = self._saved_builtins[name] = getattr(builtins, name)
            setattr(builtins, name, _guarded(name, original, self.on_print))
        for name in _LOG_METHODS:
            original = self._saved_log[name] = getattr(logging.Logger, name)
            setattr(logging.Logger, name, _guarded(f"logging.Logger.{name}", original, self.on_print))
        return self

    def __exit__(self, *exc):
        for name, original in self._saved_builtins.items():
            setattr(builtins, name, original)
        for name, original in self._saved_log.items():
            setattr(logging.Logger, name, original)
        return False

    def mutated_attributes(self) -> list[str]:
        """Names of module attributes written during the trace."""
        return [f"{type(m).__name__}.{k}" for m, snap in self._snapshots for k in _changed(m, snap)]

    def undo_mutations(self) -> None:
        for m, snap in self._snapshots:
            d = m.__dict__
            for k in [k for k in d if k not in snap and k[:1] != "_"]:
                del d[k]
            d.update(snap)


def _attr_snapshot(m) -> dict:
    return {k: v for k, v in m.__dict__.items() if k[:1] != "_" or k in ("_parameters", "_buffers", "_modules")}


def _changed(m, snap) -> list[str]:
    d = m.__dict__
    out = [k for k, v in snap.items() if d.get(k, _MISSING) is not v]
    out += [k for k in d if k not in snap and k[:1] != "_"]
    return out


_MISSING = object()


def _raise_print_break(name, args, kwargs):
    raise GraphBreak("Failed to trace builtin operator",
                     f"Dynamo does not know how to trace builtin operator `{name}` with argument types "
                     f"{[type(a).__name__ for a in args]} (has_kwargs {bool(kwargs)})",
                     user_stack_here(3))


def _guarded(name, original, on_call):
    thread = threading.get_ident()   # other threads print as usual while this one traces

    def call(*args, **kwargs):
        if threading.get_ident() == thread and is_user_file(sys._getframe(1).f_code.co_filename):
            return on_call(name, args, kwargs) or original(*args, **kwargs)
        return original(*args, **kwargs)
    call.__wrapped__ = original
    return call


# -- exceptions -> graph breaks -----------------------------------------------------------------------------
def classify_exception(exc: BaseException) -> GraphBreak:
    """Turn an exception raised by a trace into a GraphBreak with PyTorch's reason text and the user stack."""
    if isinstance(exc, GraphBreak):
        return exc
    stack = user_stack_from_traceback(exc.__traceback__)
    if isinstance(exc, DataDependentOutputException):
        reason, explanation = _data_dependent_reason(exc.__traceback__)
    elif isinstance(exc, DynamicOutputShapeException):
        reason = "Dynamic shape operator"
        explanation = f"Operator `{_op_name(exc.func)}`'s output shape depends on input Tensor data."
    elif isinstance(exc, UnsupportedFakeTensorException):
        reason = "Operator does not support running with fake tensors"
        explanation = f"unsupported operator: {exc}"
    else:
        reason = f"Unsupported: {type(exc).__name__}: {exc}"
        explanation = "The traced code raised; the call runs eagerly (which raises again if the error is real)."
    return GraphBreak(reason, explanation, stack)


def _op_name(func) -> str:
    name = getattr(func, "name", None) or str(func)
    name = name.replace("::", ".")
    return name if "." in name.split("aten.", 1)[-1] else name + ".default"


def _data_dependent_reason(tb) -> tuple[str, str]:
    what = _read_kind(tb)
    if what == "item":
        return ("Unsupported Tensor.item() call with capture_scalar_outputs=False",
                "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.")
    if what in ("tolist", "numpy"):
        return (f"Unsupported Tensor.{what}() call",
                f"`Tensor.{what}()` reads the tensor's values, which a traced graph does not know.")
    if what in ("int", "float", "complex"):
        return (f"Unsupported {what}() call on a Tensor",
                f"`{what}(tensor)` reads the tensor's value, which a traced graph does not know.")
    return ("Data-dependent branching",
            "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing "
            "dynamic control flow.")


_READ_NAMES = ("item", "tolist", "numpy", "int", "float", "complex", "bool")


def _read_kind(tb) -> str:
    """Which value read stopped the trace: the user instruction that was running (a jump on a tensor -> bool,
    a call -> the method or builtin it called), else the source text of the expression."""
    last = None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    instrs = list(dis.get_instructions(last.tb_frame.f_code))
    # tb_lasti may point into the inline caches after the instruction: take the last one starting at or before
    idx = max((i for i, ins in enumerate(instrs) if ins.offset <= last.tb_lasti), default=None)
    if idx is not None:
        op = instrs[idx].opname
        if "JUMP_IF" in op or op == "UNARY_NOT":
            return "bool"
        if op.startswith("CALL") or op == "PRECALL":
            for ins in reversed(instrs[max(0, idx - 8):idx]):
                if ins.opname.startswith("LOAD_") and ins.argval in _READ_NAMES:
                    return ins.argval
    text = _failing_expression(last)
    for name in _READ_NAMES:
        if text.endswith(f".{name}()") or text.startswith(f"{name}("):
            return name
    return "bool"


def _failing_expression(tb) -> str:
    """The source text of the expression a traceback entry was running (3.11 column positions)."""
    fs = traceback.extract_tb(tb, limit=1)[0]
    col, end = getattr(fs, "colno", None), getattr(fs, "end_colno", None)
    if col is not None and end is not None and fs.lineno == getattr(fs, "end_lineno", fs.lineno):
        raw = linecache.getline(fs.filename, fs.lineno).rstrip("\n")
        if raw:
            return raw[col:end].strip()
    return (fs.line or "").strip()


class _GradModeWatch(TorchDispatchMode):
    """Sits above the tracer: an operator that runs with a grad mode other than the call's (``no_grad`` /
    ``enable_grad`` / ``inference_mode`` inside the traced code) on an input that requires grad would be
    recorded without that mode, and replayed under the caller's, so it breaks the graph instead."""

    def __init__(self):
        self.state = (_grad.enabled, _grad.inference)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if (_grad.enabled, _grad.inference) != self.state and _any_requires_grad(args, kwargs):
            raise GraphBreak("Grad mode changed inside the traced call",
                             f"`{_op_name(func)}` runs with grad mode {'on' if _grad.enabled else 'off'} on an input "
                             f"that requires grad, while the call started with it "
                             f"{'on' if self.state[0] else 'off'}", user_stack_here(2))
        with ExcludeDispatchKeyGuard(BELOW_INTERCEPT):
            return func(*args, **kwargs)


def _any_requires_grad(args, kwargs) -> bool:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor) and a.requires_grad:
            return True
        if isinstance(a, (list, tuple)) and any(isinstance(t, Tensor) and t.requires_grad for t in a):
            return True
    return False


# -- the trace ----------------------------------------------------------------------------------------------
def capture(fn, roots, leaves, spec) -> Capture:
    """Trace ``fn`` on the call ``unflatten(leaves, spec)`` (``(args, kwargs)``); raises GraphBreak.

    Args:
        fn: the function whose call is captured (a module's bound ``forward`` for modules).
        roots: ``[(name, module)]`` whose parameters/buffers are lifted to graph inputs.
        leaves, spec: the flattened ``(args, kwargs)`` of the call.
    """
    if _has_hooks(roots):
        raise GraphBreak("Module hooks are not supported by the tracer",
                         "a module (or a global hook table) has forward/backward hooks; the call runs eagerly")
    cap = Capture()
    cap.tensor_idx = [i for i, v in enumerate(leaves) if isinstance(v, Tensor)]
    user_tensors = [leaves[i] for i in cap.tensor_idx]

    def traced(*tensors):
        full = list(leaves)
        for i, t in zip(cap.tensor_idx, tensors, strict=True):
            full[i] = t
        args, kwargs = unflatten(full, spec)
        with _GradModeWatch():
            result = fn(*args, **kwargs)
        out_leaves, cap.out_spec = flatten(result)
        cap.out_is_tensor = [isinstance(v, Tensor) for v in out_leaves]
        cap.out_consts = [None if t else v for v, t in zip(out_leaves, cap.out_is_tensor, strict=True)]
        return [v for v in out_leaves if isinstance(v, Tensor)]

    detector = BreakDetector(roots)
    try:
        with detector:
            gm = make_fx(traced, tracing_mode="fake")(*user_tensors)
    except Exception as e:
        detector.undo_mutations()
        raise classify_exception(e) from e
    mutated = detector.mutated_attributes()
    if mutated:
        detector.undo_mutations()
        raise GraphBreak("Mutating module attributes inside the traced call is not supported",
                         f"written during the call: {', '.join(mutated)}")
    _lift_state(gm, cap, state_index(roots))
    cap.gm = gm
    cap.example_inputs = cap.lifted + user_tensors
    return cap


def _lift_state(gm, cap: Capture, index: dict) -> None:
    """Turn the ``get_attr`` constants that are the roots' parameters/buffers into leading placeholders."""
    graph = gm.graph
    found = []
    for node in list(graph.nodes):
        if node.op != "get_attr":
            continue
        real = _fetch_attr(gm, node.target)
        entry = index.get(id(real))
        if entry is not None and entry[5] is real:
            found.append((entry, node))
    found.sort(key=lambda pair: pair[0][0])
    first = next(iter(graph.nodes), None)
    taken = {n.name for n in graph.nodes}
    for (_, m, store, key, source, real, qual), node in found:
        name = _unique(("p_" if store == "_parameters" else "b_") + re.sub(r"\W", "_", qual), taken)
        with graph.inserting_before(first):
            ph = graph.placeholder(name)
        ph.meta.update(node.meta)
        node.replace_all_uses_with(ph)
        graph.erase_node(node)
        _drop_attr(gm, node.target)
        cap.lifted.append(real)
        cap.lifted_sources.append((m, store, key, source))
    if found:
        gm.recompile()


def _unique(name: str, taken: set) -> str:
    out, n = name, 1
    while out in taken:
        out, n = f"{name}_{n}", n + 1
    taken.add(out)
    return out


def _drop_attr(gm, target: str) -> None:
    owner_path, _, name = target.rpartition(".")
    owner = _fetch_attr(gm, owner_path) if owner_path else gm
    for store in ("_parameters", "_buffers"):
        if name in owner.__dict__.get(store, {}):
            del owner.__dict__[store][name]
            return
    if name in owner.__dict__:
        del owner.__dict__[name]
