"""AOT autograd: compile a function's forward and backward ahead of time — PyTorch's
``torch/_functorch/aot_autograd.py`` (``aot_function``, ``aot_module_simplified``).

The pipeline for one set of example inputs (all traces with FakeTensors, so no real compute happens):

1. **forward trace**: ``make_fx(fn)`` records the aten ops of the forward (decompositions applied);
2. **functionalise** (:mod:`.functionalize`): no in-place ops or aliased outputs remain; input mutations
   become extra outputs, outputs aliasing inputs become view chains replayed on the real inputs;
3. **joint trace**: ``make_fx`` of ``joint(primals, tangents) -> (*outputs, *grads)`` which runs the
   functional forward with the primals that require grad and calls ``glasstorch.autograd.grad`` with the
   tangents — the backward's aten ops land in the same graph;
4. **partition** (:mod:`.partitioners`): a forward graph ``primals -> (*outputs, *saved)`` and a backward
   graph ``(*saved, *tangents) -> grads``;
5. **compile** both with the backend's ``fw_compiler``/``bw_compiler`` (the backward on its first use) and
   run them inside one ``autograd.Function`` (its node is ``CompiledFunctionBackward``), so the compiled
   region sits in the eager autograd graph and optimizers see ordinary ``.grad`` s.

With grad mode off, or no input requiring grad, the **inference** path runs the functional forward graph
alone (compiled by ``inference_compiler``, default ``fw_compiler``) and saves nothing.  After either path the
runtime epilogue copies new values into mutated inputs (``copy_``) and builds aliased outputs.  The path the
example inputs take under the grad mode of the compile is built by ``aot_module_simplified`` itself (inside
the caller's compile, so logs and debug files land there); another path (grad mode or requires-grad pattern
changed) is built on its first call, the backward graph's compile on the first backward.

Note [Saving mutated inputs] (``_protect_mutated_primals``) says why the backward never reads a mutated primal;
differentiating a compiled backward raises PyTorch's ``DOUBLE_BACKWARD_ERROR``.

Invariant: ``aot_module_simplified(gm, inputs, ...)(*inputs)`` returns what ``gm(*inputs)`` returns (same
structure, values, input mutations), and backward through it gives the gradients eager backward gives.
"""

from __future__ import annotations

import contextlib
import functools
import itertools

import glasstorch
from glasstorch._functorch.functionalize import functionalize_graph, functionalize_rules, replay_view_chain
from glasstorch._functorch.partitioners import default_partition, min_cut_rematerialization_partition
from glasstorch.autograd.function import Function, _delayed_error
from glasstorch.fx import GraphModule
from glasstorch.fx.experimental.proxy_tensor import make_fx
from glasstorch.fx.graph_module import _get_attr as _fetch_attr

try:  # observability is optional: the compile stack works without the logging package
    from glasstorch import _logging as _glog
except ImportError:  # pragma: no cover
    _glog = None

__all__ = ["aot_function", "aot_module_simplified", "aot_eager", "aot_eager_default_partitioner", "nop",
           "make_boxed_func", "make_boxed_compiler", "AOTConfig", "DOUBLE_BACKWARD_ERROR"]

DOUBLE_BACKWARD_ERROR = "torch.compile with aot_autograd does not currently support double backward"
_counter = itertools.count()


def _debug_scope(folder):
    """Re-enter a compile's debug folder for work done after it (lazy compiles), or nothing."""
    if folder is None or _glog is None:
        return contextlib.nullcontext()
    return _glog.compile_debug_scope(folder)


def _logger(artifact):
    if _glog is None:
        return None
    return _glog.getArtifactLogger(__name__, artifact)


# -- compilers -------------------------------------------------------------------------------------------------
def nop(gm: GraphModule, example_inputs):
    """The identity compiler: run the graph as-is (``functorch.compile.nop``)."""
    return gm


def make_boxed_func(f):
    """PyTorch's boxed calling convention marker; glasstorch's runtime calls compiled graphs unboxed."""
    return f


def make_boxed_compiler(compiler):
    return compiler


class AOTConfig:
    """What one ``aot_*`` call was configured with (PyTorch's ``AOTConfig``, trimmed)."""

    __slots__ = ("fw_compiler", "bw_compiler", "inference_compiler", "partition_fn", "decompositions", "name")

    def __init__(self, fw_compiler, bw_compiler=None, partition_fn=None, decompositions=None,
                 inference_compiler=None, name="model"):
        self.fw_compiler = fw_compiler
        self.bw_compiler = bw_compiler if bw_compiler is not None else fw_compiler
        self.inference_compiler = inference_compiler if inference_compiler is not None else fw_compiler
        self.partition_fn = partition_fn if partition_fn is not None else min_cut_rematerialization_partition
        self.decompositions = decompositions or {}
        self.name = name


# -- tracing -----------------------------------------------------------------------------------------------------
def _is_tensor(x) -> bool:
    return isinstance(x, glasstorch.Tensor)


def _differentiable(t) -> bool:
    return _is_tensor(t) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _trace_forward(fn, inputs, config: AOTConfig) -> GraphModule:
    """The forward's aten graph (make_fx, fake mode; inputs detached so nothing is recorded for autograd)."""
    args = [x.detach() if _is_tensor(x) else x for x in inputs]
    return make_fx(fn, config.decompositions, "fake")(*args)


class _JointInfo:
    """Facts the joint trace learns while it runs: which graph outputs require grad."""

    __slots__ = ("out_requires_grad",)

    def __init__(self):
        self.out_requires_grad = None


def _make_joint(fg_module: GraphModule, tangent_of: list, info: _JointInfo):
    """``joint(primals, tangents) -> (*graph outputs, *grads of the primals)``."""

    def joint(primals, tangents):
        outs = fg_module(*primals)
        info.out_requires_grad = [_is_tensor(o) and o.requires_grad for o in outs]
        diff = [(o, tangents[tangent_of[i]]) for i, o in enumerate(outs)
                if info.out_requires_grad[i] and tangent_of[i] is not None]
        wanted = [p for p in primals if _is_tensor(p) and p.requires_grad]
        grads = []
        if diff and wanted:
            grads = list(glasstorch.autograd.grad([o for o, _ in diff], wanted, [t for _, t in diff],
                                                  allow_unused=True))
        it = iter(grads or [None] * len(wanted))
        full = [next(it) if _is_tensor(p) and p.requires_grad else None for p in primals]
        return (*outs, *full)

    return joint


def _trace_joint(fg_module: GraphModule, inputs, config: AOTConfig):
    """The joint graph, its tangent layout and which outputs require grad."""
    out_vals = [n.meta.get("val") if hasattr(n, "meta") else None
                for n in fg_module.graph.output_node().args[0]]
    tangent_of, tangents = [], []
    for v in out_vals:
        if _differentiable(v):
            tangent_of.append(len(tangents))
            tangents.append(glasstorch.empty(tuple(v.shape), dtype=v.dtype, device=v.device))  # traced, not read
        else:
            tangent_of.append(None)
    primals = [x.detach().requires_grad_(x.requires_grad) if _differentiable(x) else
               (x.detach() if _is_tensor(x) else x) for x in inputs]
    info = _JointInfo()
    with glasstorch.enable_grad():
        joint = make_fx(_make_joint(fg_module, tangent_of, info), config.decompositions, "fake")(primals, tangents)
    _rename_placeholders(joint, len(primals), len(tangents))
    return joint, tangent_of, info.out_requires_grad


def _rename_placeholders(gm: GraphModule, n_primals: int, n_tangents: int) -> None:
    """PyTorch's names: ``primals_1 ...`` then ``tangents_1 ...`` (the partitioner finds tangents by name)."""
    names = [f"primals_{i + 1}" for i in range(n_primals)] + [f"tangents_{i + 1}" for i in range(n_tangents)]
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if [n.name for n in placeholders] == names:
        return
    for node, name in zip(placeholders, names, strict=True):
        node.target = "__gt_tmp_" + name
        node._rename("__gt_tmp_" + name)
    for node, name in zip(placeholders, names, strict=True):
        node.target = name
        node._rename(name)


def _has_mutation(gm: GraphModule) -> bool:
    return any(n.op == "call_function" and (n.target in functionalize_rules or
               getattr(getattr(n.target, "_schema", None), "is_mutable", False)) for n in gm.graph.nodes)


def _protect_mutated_primals(joint: GraphModule, indices) -> None:
    """Note [Saving mutated inputs]: the runtime writes new values into mutated inputs after the forward, which
    bumps their version, so the backward must never read such a primal itself: its uses go through a
    ``clone`` made in the forward (the partitioners neither recompute that clone nor save the primal)."""
    placeholders = [n for n in joint.graph.nodes if n.op == "placeholder"]
    first = next(n for n in joint.graph.nodes if n.op != "placeholder")
    for i in indices:
        primal = placeholders[i]
        if not primal.users:
            continue
        with joint.graph.inserting_before(first):
            clone = joint.graph.call_function(glasstorch.ops.aten.clone.default, (primal,))
        clone.meta = dict(primal.meta)
        primal.replace_all_uses_with(clone, delete_user_cb=lambda user, c=clone: user is not c)
        clone.meta["aot_keep_in_forward"] = True
        primal.meta["aot_never_save"] = True


def _drop_unsaved_clones(fw: GraphModule) -> None:
    """The protective clones of Note [Saving mutated inputs] that the partition did not save are not needed."""
    out = fw.graph.output_node()
    for node in list(fw.graph.nodes):
        if node.meta.get("aot_keep_in_forward") and out not in node.users:
            node.replace_all_uses_with(node.args[0])
            fw.graph.erase_node(node)
    fw.recompile()


def _clean(gm: GraphModule, runnable: bool = True) -> GraphModule:
    """Dead code out; regenerate ``forward`` only for a graph that will run (the joint graph never does)."""
    gm.graph.eliminate_dead_code()
    if runnable:
        gm.recompile()
    return gm


def _unflatten(leaves: list, spec):
    """Rebuild the output structure recorded by :func:`functionalize._flatten`."""
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        kind, subs = s
        return kind(build(sub) for sub in subs)

    return build(spec)


def _as_tangent(grad, val):
    """A gradient in the layout the backward graph was traced with (dense, contiguous; zeros for None)."""
    if grad is None:
        return glasstorch.zeros(tuple(val.shape), dtype=val.dtype, device=val.device)
    if not grad.is_contiguous():
        grad = grad.contiguous()
    return grad


# -- the compiled callable ---------------------------------------------------------------------------------------
class _AOTModule:
    """One function compiled for one set of example inputs: the inference path and one training path per
    requires-grad pattern of the inputs.  The path the example inputs take under the current grad mode is
    compiled now (inside the caller's compile, so its logs and debug files land there); others on first use."""

    def __init__(self, fn, example_inputs, config: AOTConfig):
        self.config = config
        self.example_inputs = list(example_inputs)
        self.id = next(_counter)
        self.debug_folder = _glog.debug_dir() if _glog is not None else None
        self.fw_trace = _trace_forward(fn, self.example_inputs, config)
        self.fg = functionalize_graph(self.fw_trace)
        _clean(self.fg.gm)
        self.n_graph_outs = self.fg.num_mutations + self.fg.num_graph_outputs
        self._inference = None
        self._training: dict = {}
        self._path(self.example_inputs)

    def _path(self, args):
        """The compiled callable for these inputs under the current grad mode (compiling it if needed)."""
        pattern = tuple(_differentiable(a) and a.requires_grad for a in args)
        if glasstorch.is_grad_enabled() and any(pattern):
            fn = self._training.get(pattern)
            if fn is None:
                with _debug_scope(self.debug_folder):
                    fn = self._training[pattern] = self._compile_training(pattern)
            return fn.apply
        if self._inference is None:
            with _debug_scope(self.debug_folder):
                self._log("Forward graph (inference)", self.fg.gm, "aot_graphs", "inference")
                self._inference = self.config.inference_compiler(self.fg.gm, self.example_inputs)
        return self._inference

    def __call__(self, *args):
        return self._epilogue(args, self._path(args)(*args))

    # -- epilogue: input mutations and aliased outputs -----------------------------------------------------------
    def _epilogue(self, args, outs):
        fg = self.fg
        for k, idx in enumerate(fg.mutated_inputs):
            if idx in fg.resized_inputs:  # by resize_, or as an out= argument
                args[idx].resize_(outs[k].shape, memory_format=fg.resized_inputs[idx])
                if idx in fg.resize_only_inputs:  # resize_ keeps the bytes, as eager's did: nothing to copy
                    continue  # (one version bump, as eager's one resize_)
            args[idx].copy_(outs[k])
        base = len(fg.mutated_inputs)
        for k, target in enumerate(fg.mutated_attrs):
            with glasstorch.no_grad():
                _fetch_attr(self.fw_trace, target).copy_(outs[base + k])
        n_mut = fg.num_mutations
        results = []
        for alias in fg.outputs:
            if alias.kind == "graph":
                results.append(outs[n_mut + alias.index])
            elif alias.kind == "input":
                results.append(replay_view_chain(args[alias.index], alias.chain))
            elif alias.kind == "output":
                results.append(replay_view_chain(results[alias.index], alias.chain))
            else:
                results.append(alias.value)
        return _unflatten(results, self.fg.gm.meta["out_spec"])

    # -- training ------------------------------------------------------------------------------------------------
    def _compile_training(self, pattern):
        inputs = [x.detach().requires_grad_(rg) if rg else x for x, rg in zip(self.example_inputs, pattern,
                                                                                 strict=True)]
        joint, tangent_of, out_rg = _trace_joint(self.fg.gm, inputs, self.config)
        if _has_mutation(joint):
            joint = functionalize_graph(joint, keep_outputs=True).gm
            _rename_placeholders(joint, len(inputs), sum(t is not None for t in tangent_of))
        _protect_mutated_primals(joint, self.fg.mutated_inputs)
        _clean(joint, runnable=False)
        self._log("Joint graph", joint, "aot_joint_graph", "joint")
        fw, bw = self.config.partition_fn(joint, None, num_fwd_outputs=self.n_graph_outs)
        _drop_unsaved_clones(fw)
        self._log("Forward graph", fw, "aot_graphs", "forward")
        self._log("Backward graph", bw, "aot_graphs", "backward")
        self._write_partition(fw, bw)
        fw.meta["num_user_outputs"] = self.n_graph_outs  # the rest are saved for the backward, never seen by users
        compiled_fw = self.config.fw_compiler(fw, self.example_inputs)
        return _compiled_function(compiled_fw, bw, self.config.bw_compiler, self.n_graph_outs, out_rg, tangent_of,
                                  self.debug_folder)

    # -- observability -------------------------------------------------------------------------------------------
    def _log(self, title, gm, artifact, file_tag):
        """Print the graph's code on the artifact (the joint graph also on ``aot_graphs``) and write it into the
        debug folder; the code is generated only when someone reads it."""
        if _glog is None:
            return
        artifacts = [a for a in {artifact, "aot_graphs"} if _glog.artifact_enabled(a)]
        folder = _glog.debug_dir()
        if not artifacts and folder is None:
            return
        code = gm.print_readable(print_output=False)
        for a in artifacts:
            _logger(a).debug("TRACED GRAPH\n ===== %s %d ===== \n%s", title, self.id, code)
        if folder is not None:
            _glog.write_debug_file(f"aot_{self.id}_{file_tag}_graph.py", code)

    def _write_partition(self, fw, bw):
        if _glog is None or _glog.debug_dir() is None:
            return
        n = self.n_graph_outs
        saved = list(fw.graph.output_node().args[0][n:])
        lines = [f"partition_fn: {getattr(self.config.partition_fn, '__name__', self.config.partition_fn)}",
                 f"saved values ({len(saved)}):"]
        for s in saved:
            v = s.meta.get("val")
            desc = f"{tuple(v.shape)} {v.dtype}" if _is_tensor(v) else type(v).__name__
            lines.append(f"  {s.name}: {desc}")
        _glog.write_debug_file(f"aot_{self.id}_partition.txt", "\n".join(lines) + "\n")


def _compiled_function(compiled_fw, bw_module, bw_compiler, n_outs, out_rg, tangent_of, debug_folder):
    """A fresh ``autograd.Function`` subclass named ``CompiledFunction`` running the compiled graphs."""
    out_of_tangent = {t: i for i, t in enumerate(tangent_of) if t is not None}
    grad_positions = [out_of_tangent[t] for t in bw_module.meta["tangent_indices"]]
    tangent_vals = [p.meta.get("val") for p in bw_module.graph.nodes if p.op == "placeholder"]
    tangent_vals = tangent_vals[bw_module.meta["num_saved"]:]
    non_diff = [i for i in range(n_outs) if not out_rg[i]]
    compiled_bw = []

    class CompiledFunction(Function):
        @staticmethod
        def forward(ctx, *args):
            outs = compiled_fw(*args)
            ctx.save_for_backward(*outs[n_outs:])
            fw_outs = tuple(outs[:n_outs])
            ctx.mark_non_differentiable(*(fw_outs[i] for i in non_diff if _is_tensor(fw_outs[i])))
            return fw_outs

        @staticmethod
        def backward(ctx, *grads):
            saved = list(ctx.saved_tensors)
            tangents = [_as_tangent(grads[i], v) for i, v in zip(grad_positions, tangent_vals, strict=True)]
            if not compiled_bw:
                with _debug_scope(debug_folder):
                    compiled_bw.append(bw_compiler(bw_module, saved + tangents))
            out = tuple(compiled_bw[0](*saved, *tangents))
            if glasstorch.is_grad_enabled():  # create_graph: the grads exist, differentiating them raises
                return _delayed_error(DOUBLE_BACKWARD_ERROR, out)
            return out

    return CompiledFunction


# -- public entry points -----------------------------------------------------------------------------------------
def aot_module_simplified(mod, args, fw_compiler, bw_compiler=None,
                          partition_fn=min_cut_rematerialization_partition, decompositions=None,
                          keep_inference_input_mutations=False, inference_compiler=None):
    """Compile a graph module's forward and backward for these flat example inputs.

    Args:
        mod: a callable over flat inputs, usually the FX GraphModule dynamo captured (lifted parameters and
            buffers first, then the user inputs).
        args: the example inputs (real tensors), one per placeholder.
        fw_compiler: ``fw_compiler(fw_gm, example_inputs) -> callable`` for the forward (and inference) graph.
        bw_compiler: the same for the backward graph (default: ``fw_compiler``), compiled on first backward.
        partition_fn: ``partition_fn(joint_gm, joint_inputs, num_fwd_outputs=n) -> (fw_gm, bw_gm)``.
        decompositions: ``{OpOverload: fn}`` passed to make_fx.
        keep_inference_input_mutations: accepted for PyTorch's signature (mutations are always applied by the
            runtime epilogue).
        inference_compiler: the compiler of the inference graph (default: ``fw_compiler``).

    Returns:
        ``compiled(*flat_inputs)`` returning what ``mod(*flat_inputs)`` returns, with autograd history.

    Example:
        >>> compiled = aot_module_simplified(gm, inputs, fw_compiler=nop)  # doctest: +SKIP
        >>> out = compiled(*inputs)
    """
    config = AOTConfig(fw_compiler, bw_compiler, partition_fn, decompositions, inference_compiler)
    compiled = _AOTModule(mod, args, config)

    @functools.wraps(getattr(mod, "forward", mod))
    def forward(*runtime_args):
        return compiled(*runtime_args)

    forward._aot_module = compiled
    return forward


def _leaves(value, out):
    if isinstance(value, (list, tuple)):
        for v in value:
            _leaves(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _leaves(v, out)
    else:
        out.append(value)
    return out


def _rebuild(value, it):
    if isinstance(value, (list, tuple)):
        return type(value)(_rebuild(v, it) for v in value)
    if isinstance(value, dict):
        return {k: _rebuild(v, it) for k, v in value.items()}
    return next(it) if _is_tensor(value) else value


def _signature(args, kwargs):
    """The cache key of one call: structure, non-tensor values and each tensor's metadata."""
    def key(v):
        if _is_tensor(v):
            return ("T", tuple(v.shape), tuple(v.stride()), v.dtype, str(v.device))
        if isinstance(v, (list, tuple)):
            return (type(v).__name__, tuple(key(x) for x in v))
        if isinstance(v, dict):
            return ("dict", tuple((k, key(x)) for k, x in v.items()))
        return ("C", repr(v))
    return key((args, kwargs))


def aot_function(fn, fw_compiler, bw_compiler=None, partition_fn=default_partition, decompositions=None,
                 num_params_buffers=0, keep_inference_input_mutations=False, inference_compiler=None):
    """Compile ``fn``'s forward and backward ahead of time, for the tensor arguments of each call signature.

    Tensors anywhere in the (nested list/tuple/dict) arguments are the graph's inputs; other values are baked
    into the trace (a new value compiles again).  Tensors ``fn`` closes over are constants of the graph.

    Args:
        fn: the function to compile.
        fw_compiler / bw_compiler / partition_fn / decompositions / inference_compiler: as for
            :func:`aot_module_simplified` (PyTorch's default partitioner here is ``default_partition``).
        num_params_buffers, keep_inference_input_mutations: accepted for PyTorch's signature.

    Returns:
        a callable with ``fn``'s signature.

    Example:
        >>> f = aot_function(lambda x: x.sin() * 2, fw_compiler=nop)
        >>> y = f(glasstorch.ones(3, requires_grad=True))
    """
    config = AOTConfig(fw_compiler, bw_compiler, partition_fn, decompositions, inference_compiler)
    cache: dict = {}

    @functools.wraps(fn)
    def compiled(*args, **kwargs):
        sig = _signature(args, kwargs)
        entry = cache.get(sig)
        tensors = [v for v in _leaves((args, kwargs), []) if _is_tensor(v)]
        if entry is None:
            def flat_fn(*flat):
                a, k = _rebuild((args, kwargs), iter(flat))
                return fn(*a, **k)
            entry = cache[sig] = _AOTModule(flat_fn, tensors, config)
        return entry(*tensors)

    return compiled


def aot_eager(gm: GraphModule, example_inputs):
    """The ``"aot_eager"`` backend: AOT autograd with compilers that run the graphs as traced."""
    return aot_module_simplified(gm, example_inputs, fw_compiler=nop, bw_compiler=nop,
                                 partition_fn=min_cut_rematerialization_partition)


def aot_eager_default_partitioner(gm: GraphModule, example_inputs):
    """``"aot_eager_default_partitioner"``: as :func:`aot_eager` with :func:`default_partition`."""
    return aot_module_simplified(gm, example_inputs, fw_compiler=nop, bw_compiler=nop,
                                 partition_fn=default_partition)
