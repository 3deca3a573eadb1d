"""The autograd engine — PyTorch's ``torch/csrc/autograd/engine.cpp`` (single-threaded CPU part).

``execute(roots, grads, ...)``:

1. a GraphRoot node feeds the root gradients into the roots' gradient edges;
2. ``compute_dependencies``: a walk over ``next_edges`` counts, per node, how many edges point at it;
3. ready nodes run highest ``sequence_nr`` first (the most recent forward op; AccumulateGrad, whose
   number is the largest, as soon as it is ready).  Each run: the tensor pre-hooks and the
   retain_grad hook of each output, the node's pre-hooks, ``apply``, its post-hooks; then the saved
   tensors are freed unless the graph is retained;
4. every output gradient is validated against the metadata of the input it flows into (a gradient
   that broadcast in forward is summed back to shape; a wrong count or shape raises PyTorch's error)
   and summed into that node's input buffer; a node whose count reaches zero becomes ready.

With ``inputs`` (``autograd.grad`` or ``backward(inputs=...)``) only nodes on a path to an input run,
and the gradients reaching the inputs are captured (or accumulated only there).

Invariant: correctness depends only on dependency counting; the ready order is PyTorch's heuristic.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import queue
import sys
import threading
import time

from .._core import shape as _shape
from .._core import thread_state
from .._core.dispatch_key import MATH_BITS, bit
from .._core.dispatch_key import tls as _dk_tls
from .._core.layout import contiguous_format, sparse_coo
from .._core.user_warning import warn_once
from .._ops.aten import aten
from .._ops.decompositions.reduce import sum_to
from .._ops.dispatcher import get_op
from .._tensor.impl import TensorImpl, VersionCounter, empty_strided_impl
from .._tensor.views import type_string
from . import graph as _graph
from .anomaly_mode import check_nan, is_anomaly_enabled, record_failure, running
from .grad_mode import state as _grad_state
from .graph import AccumulateGrad, NodeBase, gradient_edge

__all__ = ["execute", "accumulate_grad", "sum_to", "current_graph_task_id", "current_graph_task_keep_graph",
           "will_execute_node", "current_node",
           "current_execution_order", "profile_nodes",
           "queue_callback", "ImperativeEngine", "NodeStats"]


class NodeStats:
    """What :func:`profile_nodes` counts: nodes run, seconds inside their ``apply``, seconds of backward
    (both on ``clock``), and what one reading of ``clock`` costs (each node's run takes two)."""

    __slots__ = ("nodes", "apply_s", "backward_s", "clock", "clock_cost_s")

    def __init__(self, clock):
        self.nodes = 0
        self.apply_s = 0.0
        self.backward_s = 0.0
        self.clock = clock
        t0 = clock()
        for _ in range(200):
            clock()
        self.clock_cost_s = (clock() - t0) / 201

    def __repr__(self):
        return f"NodeStats(nodes={self.nodes}, apply_s={self.apply_s:.6f}, backward_s={self.backward_s:.6f})"


_stats: NodeStats | None = None  # set while profile_nodes() is active


@contextlib.contextmanager
def profile_nodes(clock=time.thread_time):
    """Count the nodes every backward in the block runs and time them (the benchmarks' per-node cost).

    The default clock is this thread's CPU time, which other processes on a shared machine do not inflate
    (each reading costs about a microsecond; ``time.perf_counter`` is cheaper and counts wall time)."""
    global _stats
    prev, _stats = _stats, NodeStats(clock)
    try:
        yield _stats
    finally:
        _stats = prev


class GraphRoot(NodeBase):
    """Feeds the root gradients into the graph (PyTorch's ``GraphRoot``)."""

    __slots__ = ("grads",)

    def __init__(self, edges, grads):
        super().__init__(_graph.UINT64_MAX)
        self.next_edges = tuple(edges)
        self.grads = list(grads)

    def apply(self, grads):
        return self.grads


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"



def _wrong_count(node: NodeBase, grads) -> RuntimeError:
    return RuntimeError(f"Function {node.name()} returned an invalid number of gradients - expected "
                        f"{len(node.next_edges)}, but got {len(grads)}")


def _conform(node: NodeBase, i: int, g: TensorImpl, meta) -> TensorImpl:
    """A gradient brought to its input's shape (summing a broadcast) and dtype, or PyTorch's error."""
    sizes, dtype, _ = meta
    if g.sizes != sizes:
        try:
            expandable = _shape.broadcast_shapes(sizes, g.sizes) == g.sizes
        except RuntimeError:
            expandable = False
        if not expandable:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"{_fmt(g.sizes)} but expected shape compatible with {_fmt(sizes)}")
        g = sum_to(g, sizes)
    if dtype is not None and g.dtype is not dtype:  # None: a leaf whose grad_dtype allows any
        if g.dtype.is_complex and not dtype.is_complex:  # Note [Conjugate Wirtinger gradients]
            g = aten.real(g)  # a real input keeps the real part (PyTorch's handle_r_to_c)
        g = aten._to_copy(g, dtype, None, None, None, False, None)
    return g


def _as_tensors(grads):
    to_tensor = _graph.to_tensor
    return tuple(None if g is None else to_tensor(g) for g in grads)


# -- hooks: what they may return (PyTorch's python_hook.cpp check_result / check_single_result) ----------------
def _hook_name(hook) -> str:
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _checked_value(original, result, hook):
    """The gradient a hook returned in place of ``original`` (an impl or None): a tensor of the same type and size."""
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    impl = getattr(result, "_impl", None)
    if type(impl) is not TensorImpl:
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if impl.dtype is not original.dtype or impl.device.type != original.device.type:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was {type_string(original)} "
                           f"got {type_string(impl)})")
    if impl.sizes != original.sizes:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return impl


def _checked_tuple(originals, result, hook) -> list:
    """A node hook's replacement for ``originals``: a tuple of as many values (None drops a gradient)."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(originals)})")
    return [None if r is None else _checked_value(o, r, hook) for o, r in zip(originals, result, strict=True)]


def _tensor_hook(hook, g):
    """One tensor hook on gradient ``g``; an output that got no gradient passes None (as in PyTorch)."""
    res = hook(None if g is None else _graph.to_tensor(g))
    return g if res is None else _checked_value(g, res, hook)


def _pre_hooks(node: NodeBase, buffer: list) -> list:
    """Tensor pre-hooks and the retain_grad hook of each output, then the node's pre-hooks."""
    buffer = _tensor_pre_hooks(node, buffer)
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            res = hook(_as_tensors(buffer))
            if res is not None:
                buffer = _checked_tuple(buffer, res, hook)
    return buffer


def _tensor_pre_hooks(node: NodeBase, buffer: list) -> list:
    """The hooks registered on the node's output tensors, then their retain_grad hooks (which see the result)."""
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            for hook in list(hooks.values()):
                buffer[nr] = _tensor_hook(hook, buffer[nr])
    if node._retains_grad_hooks:
        for nr, hook in node._retains_grad_hooks.items():
            if buffer[nr] is not None:
                hook(buffer[nr])
    return buffer


def _post_hooks(node: NodeBase, outputs, buffer: list):
    for hook in list(node._post_hooks.values()):
        res = hook(_as_tensors(outputs), _as_tensors(buffer))
        if res is not None:
            outputs = _checked_tuple(outputs, res, hook)
    return outputs


def _apply_timed(node: NodeBase, buffer: list, stats: NodeStats):
    t0 = stats.clock()
    outputs = node.apply(buffer)
    stats.apply_s += stats.clock() - t0
    stats.nodes += 1
    return outputs


def _failed(node: NodeBase) -> None:
    """A node's backward raised: anomaly mode prints the forward stack that created it."""
    if is_anomaly_enabled():
        record_failure(node)


def _dependencies(root: NodeBase) -> dict:
    deps: dict = {}
    seen = {root}
    stack = [root]
    while stack:
        n = stack.pop()
        for e in n.next_edges:
            if e is None:
                continue
            child = e[0]
            deps[child] = deps.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return deps


def _needed(root: NodeBase, targets: set) -> set:
    """Nodes on some path from ``root`` to a target node (PyTorch's ``init_to_execute``)."""
    needed: set = set()
    visited: set = set()
    order = []
    stack = [(root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if n in visited:
            continue
        visited.add(n)
        stack.append((n, True))
        for e in n.next_edges:
            if e is not None and e[0] not in visited:
                stack.append((e[0], False))
    for n in order:  # children before parents
        if n in targets or any(e is not None and e[0] in needed for e in n.next_edges):
            needed.add(n)
    return needed


_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")


def execute(roots: list, grads: list, keep_graph: bool, create_graph: bool, inputs=None,
            accumulate: bool = True, is_grad: bool = False, targets=None) -> list:
    """Run backward from ``roots`` (impls or GradientEdges) seeded with ``grads``; returns the captured grads of
    ``inputs``.

    ``inputs`` (impls or GradientEdges, with ``accumulate=False``): the gradients flowing into them are captured
    and returned.  ``targets`` (nodes, ``backward(inputs=...)``): only the nodes on a path to one of them run,
    the targets included.  ``is_grad``: this is ``autograd.grad``, for :func:`will_execute_node`.
    """
    if len(_tasks.__dict__.get("stack", ())) >= MAX_REENTRANT_DEPTH:  # Note [Reentrant backward on a worker]
        return _reentrant_pool.run(execute, (roots, grads, keep_graph, create_graph, inputs, accumulate, is_grad,
                                              targets))
    if accumulate and create_graph:
        warn_once(_CREATE_GRAPH_WARNING)
    stats = _stats
    t0 = stats.clock() if stats is not None else 0.0
    root = GraphRoot([gradient_edge(r) if type(r) is TensorImpl else (r.node, r.output_nr) for r in roots], grads)
    deps = _dependencies(root)
    captures = {}
    needed = None
    if inputs is not None:
        edges = [gradient_edge(i) if type(i) is TensorImpl else i for i in inputs]  # impls or GradientEdges
        for k, e in enumerate(edges):
            if e is not None:
                captures.setdefault(e[0], []).append((e[1], k))
        needed = _needed(root, set(captures))
    elif targets is not None:
        needed = _needed(root, set(targets))
    captured = [None] * (len(inputs) if inputs is not None else 0)
    prev = _grad_state.enabled
    _grad_state.enabled = create_graph
    stack = _tasks.__dict__.setdefault("stack", [])
    task = _GraphTask(deps, needed, is_grad, root, keep_graph)
    stack.append(task)
    outer_node = running.node  # a reentrant backward runs inside that node's apply
    try:
        _loop(root, deps, captures, captured, needed, keep_graph, accumulate)
        running.node = outer_node
        _run_final_callbacks(task)
    finally:
        _grad_state.enabled = prev
        running.node = outer_node
        stack.pop()
        if stats is not None:
            stats.backward_s += stats.clock() - t0
    return captured


# -- reentrant backward ---------------------------------------------------------------------------------------
# Note [Reentrant backward on a worker]
# A backward called inside a node's backward runs inline, on the calling thread, as PyTorch's does; each level
# costs Python frames, so past MAX_REENTRANT_DEPTH nested levels (PyTorch's max_recursion_depth_) the new graph
# task runs on a worker thread, with a fresh stack, while the caller waits for it.  The worker gets the caller's
# thread-local state (grad mode, dispatch keys, hooks: _core/thread_state.py); its own nested backwards go inline
# again up to the limit, then to another worker.  Workers are kept and reused.
MAX_REENTRANT_DEPTH = 60


class _ReentrantPool:
    """Worker threads for deep reentrant backwards (PyTorch's ``ThreadPoolShared``): one per waiting level,
    started when none is idle."""

    def __init__(self):
        self.lock = threading.Lock()
        self.idle: list = []  # the job queues of the idle workers

    def run(self, fn, args):
        """``fn(*args)`` on a worker with this thread's state; its result, or its exception re-raised here."""
        with self.lock:
            jobs = self.idle.pop() if self.idle else None
        if jobs is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=self._work, args=(jobs,), name="autograd reentrant worker", daemon=True).start()
        box = [threading.Event(), None, None]
        jobs.put((fn, args, thread_state.capture(), box))
        box[0].wait()
        if box[2] is not None:
            raise box[2]
        return box[1]

    def _work(self, jobs) -> None:
        while True:
            fn, args, state, box = jobs.get()
            thread_state.apply(state)
            try:
                box[1] = fn(*args)
            except BaseException as e:  # noqa: BLE001 - handed to the waiting caller
                box[2] = e
            fn = args = state = None
            with self.lock:
                self.idle.append(jobs)
            box[0].set()


_reentrant_pool = _ReentrantPool()


# -- the running backward, for hooks that must know it (register_multi_grad_hook) ----------------------------
_tasks = threading.local()
_task_ids = itertools.count()


class _GraphTask:
    """One backward call: its dependency counts, the nodes it needs (None: all), its GraphRoot, final callbacks.
    ``anomaly_mode.running.node`` is the node this thread is evaluating (PyTorch's ``current_evaluating_node``)."""

    __slots__ = ("id", "deps", "needed", "is_grad", "root", "final_callbacks", "keep_graph")

    def __init__(self, deps, needed, is_grad, root, keep_graph=False):
        self.id = next(_task_ids)
        self.keep_graph = keep_graph
        self.deps = deps
        self.needed = needed
        self.is_grad = is_grad
        self.root = root
        self.final_callbacks = []


def queue_callback(callback) -> None:
    """Run ``callback()`` once the running backward has finished its graph (``Engine::queue_callback``); a
    callback may queue more, which run after it."""
    stack = getattr(_tasks, "stack", None)
    if not stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    stack[-1].final_callbacks.append(callback)


def _run_final_callbacks(task: _GraphTask) -> None:
    callbacks = task.final_callbacks
    i = 0
    while i < len(callbacks):  # the list may grow while it runs
        callbacks[i]()
        i += 1


class ImperativeEngine:
    """``Variable._execution_engine`` (PyTorch's ``torch._C._ImperativeEngine``): what Python code reaches the
    engine through."""

    def queue_callback(self, callback) -> None:
        queue_callback(callback)

    def is_checkpoint_valid(self) -> bool:
        """False while a backward run by ``autograd.grad`` or ``backward(inputs=...)`` is going (checkpointing
        cannot tell what to recompute there)."""
        return all(task.needed is None for task in getattr(_tasks, "stack", ()))


def current_graph_task_id() -> int:
    """An id of the backward running on this thread, or -1 (``torch._C._current_graph_task_id``)."""
    stack = getattr(_tasks, "stack", None)
    return stack[-1].id if stack else -1


def current_graph_task_keep_graph() -> bool:
    """Whether the backward running on this thread keeps its graph (``retain_graph``;
    ``torch._C._autograd._get_current_graph_task_keep_graph``); True outside a backward, as torch answers."""
    stack = getattr(_tasks, "stack", None)
    return stack[-1].keep_graph if stack else True


def current_node():
    """The node whose backward (hooks included) is running on this thread, or None
    (``torch._C._current_autograd_node``)."""
    return running.node


def current_execution_order() -> list:
    """The nodes the running backward runs, in the order it runs them, as far as sequence numbers tell
    (``torch._C._current_graph_task_execution_order``; the engine itself does not use it)."""
    stack = getattr(_tasks, "stack", None)
    if not stack:
        raise RuntimeError("_current_graph_task_execution_order should only be called during the backward pass")
    if _grad_state.multithreading:
        raise RuntimeError("get_current_graph_task_execution_order expects the current backward to be executed with "
                           "multithreading disabled, e.g. by running:\n\n>>> with "
                           "torch.autograd.set_multithreading_enabled(False):\n...     torch.autograd.grad(...)\n")
    task = stack[-1]
    deps = _dependencies(task.root)  # afresh: the task's own counts are being used up
    tie = itertools.count()
    heap, out = [(0, next(tie), task.root)], []
    while heap:  # the engine's loop, without running anything
        node = heapq.heappop(heap)[2]
        if node is not task.root:
            out.append(node)
        for e in node.next_edges:
            if e is None or task.needed is not None and e[0] not in task.needed:
                continue
            deps[e[0]] -= 1
            if not deps[e[0]]:
                heapq.heappush(heap, (-e[0].sequence_nr, next(tie), e[0]))
    return out


def will_execute_node(node) -> bool:
    """Whether the running backward will run ``node`` (``torch._C._will_engine_execute_node``)."""
    if not isinstance(node, NodeBase):
        raise RuntimeError(f"_will_engine_execute_node expects an grad_fn, but got {type(node).__name__}")
    stack = getattr(_tasks, "stack", None)
    if not stack:
        raise RuntimeError("_get_should_execute_nodes should only be called during the backward pass")
    task = stack[-1]
    if task.is_grad and isinstance(node, AccumulateGrad):
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are currently running "
                           "autograd.grad(). This is currently not supported.")
    return node in task.deps and (task.needed is None or node in task.needed)


def _loop(root, deps, captures, captured, needed, keep_graph, accumulate):
    """Run ready nodes, highest sequence_nr first.  One node's turn (PyTorch's ``evaluate_function``): its
    pre-hooks, ``apply``, post-hooks, freeing its saved tensors, then each gradient checked against the
    metadata of the input it flows into (``validate_outputs``; matching ones cost two comparisons) and
    summed into that node's buffer.  Everything per node is inline: this loop is the engine's own cost."""
    tie = itertools.count()
    heap = [(-root.sequence_nr, next(tie), root, [])]
    buffers: dict = {}
    # Note [Saved-tensor hooks during backward]: each node runs with the saved-tensor hooks the backward started
    # with; a hook context entered or left inside a node (an unpack hook that misbehaves) is undone after it, as
    # PyTorch's engine restores its thread-local state around every node
    hooks = _graph.saved_hooks_stack()
    hooks_at_start = hooks[:]
    n_hooks = len(hooks_at_start)
    pop, push, add = heapq.heappop, heapq.heappush, aten.add_Tensor
    stats, running_ = _stats, running
    while heap:
        node, buffer = pop(heap)[2:]
        running_.node = node
        if needed is not None:
            skip = _skip(node, needed, captures, accumulate)
            if captures and node in captures:
                # Note [Hooks of a captured node]: a node that will not run gets its tensor pre-hooks (and retain_grad
                # hooks) here, once, and the captured gradient is theirs; a node that runs gets them in its turn, after
                # the capture (PyTorch's evaluate_function).
                if skip:
                    buffer = _tensor_pre_hooks(node, buffer)
                _capture(buffer, captures[node], captured)
            if skip:
                continue
        if node._tensor_pre_hooks or node._retains_grad_hooks or node._pre_hooks:
            buffer = _pre_hooks(node, buffer)
        had_post_hooks = bool(node._post_hooks)
        try:
            if buffer and node._undefined_gives_undefined and buffer.count(None) == len(buffer):
                outputs = [None] * len(node.next_edges)  # Note [Undefined gradients in, undefined out]
            else:
                outputs = node.apply(buffer) if stats is None else _apply_timed(node, buffer, stats)
        except Exception:
            _failed(node)
            raise
        if node._post_hooks:
            # a post hook registered while the node ran (by an unpack hook) gets no grad_outputs: PyTorch keeps the
            # node's inputs only for the hooks it had before it ran
            outputs = _post_hooks(node, outputs, buffer if had_post_hooks else [])
        if len(hooks) != n_hooks or n_hooks and hooks[-1] is not hooks_at_start[-1]:
            hooks[:] = hooks_at_start
        if not keep_graph:
            node.release_variables()
        if is_anomaly_enabled():
            check_nan(node, outputs)
        edges = node.next_edges
        if len(outputs) != len(edges):
            raise _wrong_count(node, outputs)
        for i, e in enumerate(edges):
            if e is None:
                continue
            child, nr = e
            g = outputs[i]
            if g is not None:
                metas = child.input_meta
                meta = metas[nr] if nr < len(metas) else None
                if meta is not None and (g.sizes != meta[0] or g.dtype is not meta[1]):
                    g = _conform(node, i, g, meta)
            buf = buffers.get(child)
            if buf is None:
                buf = buffers[child] = [None] * max(len(child.input_meta), nr + 1)
            elif len(buf) <= nr:
                buf.extend([None] * (nr + 1 - len(buf)))
            if g is not None:
                buf[nr] = g if buf[nr] is None else _accumulate(buf, nr, g, add)
            left = deps[child] - 1
            deps[child] = left
            if not left:
                del buffers[child]
                push(heap, (-child.sequence_nr, next(tie), child, buf))
        outputs = g = None  # the buffers now hold the gradients alone (Note [Stealing gradients])


def _capture(buffer, targets, captured) -> None:
    """The gradients reaching an ``inputs=`` node (``autograd.grad``; Note [Hooks of a captured node])."""
    for nr, k in targets:
        captured[k] = buffer[nr] if nr < len(buffer) else None


def _skip(node, needed, captures, accumulate) -> bool:
    """With ``inputs=``: nodes off every path to an input do not run, nor (for ``autograd.grad``) the input
    nodes themselves once nothing needed lies beyond them."""
    if node not in needed:
        return True
    return not accumulate and node in captures and not any(
        e is not None and e[0] in needed for e in node.next_edges)


# -- reusing a gradient's memory ---------------------------------------------------------------------------
# Note [Stealing gradients]
# PyTorch sums two gradients for one input in place into one of them, and a leaf's first gradient becomes its
# .grad without a copy, when the engine holds the only reference to that tensor and its storage
# (``adjusted_use_count``; input_buffer.cpp can_accumulate_inplace, accumulate_grad.h).  So ``autograd.grad``
# results and ``.grad`` have the versions PyTorch's have, and two leaves never share one gradient buffer.
# CPython's reference counts say the same thing: ``_REFS_*`` are the counts a tensor reachable from nothing but
# the engine's lists has at each call site (the list slot, the locals on the way, getrefcount's argument).
# Where a count is higher, someone else (a hook, retain_grad, another edge, a view) holds it: it is copied.
_refcount = sys.getrefcount
_PYTHON_BIT = bit("Python")
_NOT_STOLEN = _PYTHON_BIT | MATH_BITS  # a subclass's impl, or a lazy conjugate/negative view (Note [Math bits])
_REFS_BUFFERED = 4  # buf[nr]; _accumulate's `old`; _sole_owner's `t`; the argument
_REFS_ARRIVING = 5  # outputs[i] and `g` in _loop; _accumulate's `new`; `t`; the argument
_REFS_STOLEN = 5  # AccumulateGrad's input list; accumulate_grad's `new`; _obey_layout's `grad`; `t`; the argument


def _sole_owner(t: TensorImpl, refs: int) -> bool:
    """Whether only the engine reaches ``t`` and its memory, and it is a plain dense tensor whose values may be
    overwritten."""
    return (type(t) is TensorImpl and t.autograd is None and t.base is None and not t.key_set & _NOT_STOLEN
            and t.sparse is None
            and _refcount(t) <= refs and _refcount(t.storage) <= 2 and t.storage.resizable
            and _shape.is_non_overlapping_and_dense(t.sizes, t.strides))


def _sole_math_view(t: TensorImpl) -> bool:
    """Whether ``t`` is a lazy conjugate/negative view (``ConjBackward0``'s ``grad.conj()``) of a fresh gradient
    that nothing else reaches: PyTorch steals such a view into ``.grad`` as it is, bit included."""
    base, meta = t.base, t.autograd  # meta: at most the no-grad view mark of a view made in backward
    return (type(t) is TensorImpl and t.key_set & MATH_BITS and not t.key_set & _PYTHON_BIT
            and (meta is None or meta.grad_fn is None and not meta.requires_grad) and base is not None
            and base.base is None and base.autograd is None and _refcount(t) <= _REFS_STOLEN
            and _refcount(base) <= 3 and _refcount(t.storage) <= 3 and t.storage.resizable
            and _shape.is_non_overlapping_and_dense(t.sizes, t.strides))  # 3: t.base, `base` and the argument


def _accumulate(buf: list, nr: int, new: TensorImpl, add) -> TensorImpl:
    """``buf[nr] + new``, in place into one of them when the engine alone holds it and grad mode is off (PyTorch's
    InputBuffer::accumulate; Note [Stealing gradients])."""
    old = buf[nr]
    if not _grad_state.enabled and old.sizes == new.sizes and old.dtype is new.dtype:
        if _sole_owner(old, _REFS_BUFFERED):
            return aten.add__Tensor(old, new, 1)
        if _sole_owner(new, _REFS_ARRIVING):
            return aten.add__Tensor(new, old, 1)
    return _sum_grads(old, new, add)


def _sum_grads(old: TensorImpl, new: TensorImpl, add) -> TensorImpl:
    """``old + new``, the dense one first when only ``old`` is sparse (sparse + dense is not defined; PyTorch's
    InputBuffer and AccumulateGrad order them so)."""
    if old.sparse is not None and new.sparse is None:
        return add(new, old, 1)
    return add(old, new, 1)


# -- AccumulateGrad ------------------------------------------------------------------------------------------
def accumulate_grad(leaf: TensorImpl, new: TensorImpl | None) -> None:
    """PyTorch's AccumulateGrad rules: steal or copy the first gradient, then add in place (or out of
    place under create_graph); post-accumulate hooks run afterwards."""
    if new is None:
        return
    meta = leaf.autograd
    old = meta.grad
    if old is None:  # under create_graph PyTorch always copies (the copy records CopyBackwards)
        if new.sparse is not None:
            meta.grad = _first_sparse_grad(new, steal=not _grad_state.enabled)
        else:
            meta.grad = _obey_layout(leaf, new, steal=not _grad_state.enabled)
    elif _grad_state.enabled or (old.sparse is not None and new.sparse is None):
        meta.grad = _sum_grads(old, new, aten.add_Tensor)  # a dense gradient onto a sparse one: a new tensor
        if meta.grad_pyobj is not None:  # the old gradient's wrapper is no longer the leaf's to keep alive
            meta.grad_pyobj = None
    else:
        aten.add__Tensor(old, new, 1)
    if meta.post_acc_grad_hooks:
        for hook in list(meta.post_acc_grad_hooks.values()):
            if hook(_graph.to_tensor(leaf)) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _first_sparse_grad(grad: TensorImpl, steal: bool) -> TensorImpl:
    """A leaf's first gradient when it is sparse: a new sparse tensor over the same parts when the engine alone
    holds it and its indices and values are contiguous, else a clone (PyTorch's AccumulateGrad cannot detach a
    sparse tensor, so it never stores it as is)."""
    parts = grad.sparse
    contiguous = parts.indices.is_contiguous() and parts.values.is_contiguous() if parts.layout is sparse_coo else True
    if steal and contiguous and grad.autograd is None and _refcount(grad) <= _REFS_STOLEN - 1:  # no `t` here
        out = grad.view_impl(grad.sizes, grad.strides, grad.offset)
        out.version = VersionCounter()
        return out
    return aten.clone(grad, None)


def _obey_layout(leaf: TensorImpl, grad: TensorImpl, steal: bool) -> TensorImpl:
    """The gradient layout contract: a dense leaf gets a grad with its strides, others a row-major one.

    A fresh gradient that already obeys it (or any, with ``enforce_grad_layout_policy(False)``) is stolen when
    ``steal`` (no copy); anything else is copied as PyTorch's clone_obey_contract does: into an empty tensor of the
    leaf's strides, or a row-major clone.
    """
    dense = leaf.sparse is None and _shape.is_non_overlapping_and_dense(leaf.sizes, leaf.strides)
    if dense:
        ok = all(s == 1 or a == b for s, a, b in zip(leaf.sizes, leaf.strides, grad.strides, strict=True))
    else:
        ok = grad.is_contiguous()
    if steal and (ok or not _grad_state.grad_layout_enforcement) and _sole_owner(grad, _REFS_STOLEN):
        return _detached(grad)
    if steal and (ok or not _grad_state.grad_layout_enforcement) and _sole_math_view(grad):
        grad.base = grad.autograd = None  # PyTorch stores ``new_grad.detach()``: no _base, no view history
        return grad
    if not dense:
        return aten.clone(grad, contiguous_format)
    out = empty_strided_impl(leaf.sizes, leaf.strides, grad.dtype, grad.device)
    return aten.copy_(out, grad, False)


def _detached(grad: TensorImpl) -> TensorImpl:
    """``new_grad.detach()``, as PyTorch's AccumulateGrad stores a stolen gradient: the call starts at the Python
    key (with grad mode off autograd has nothing to record), so a dispatch mode sees ``aten.detach.default``."""
    ks = (grad.key_set | _dk_tls.included) & ~_dk_tls.excluded & _AT_OR_BELOW_PYTHON | 1
    return get_op("aten::detach").redispatch(ks, grad)


_AT_OR_BELOW_PYTHON = (_PYTHON_BIT << 1) - 1
_graph.accumulate_grad = accumulate_grad
