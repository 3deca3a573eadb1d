"""Functionalisation of an aten-level FX graph — the graph-pass counterpart of PyTorch's functionalization
(``torch/_subclasses/functional_tensor.py`` + ``aten/src/ATen/FunctionalTensorWrapper.cpp``).

PyTorch functionalises while tracing (a FunctionalTensorMode under make_fx).  glasstorch's make_fx records
in-place ops and views as they happen, so this pass rewrites the recorded graph afterwards:

* every tensor value belongs to a *storage group*: a root (placeholder, get_attr or a fresh op result)
  plus the views taken of it, each view remembered as its chain of view steps from the root;
* an in-place op ``x.add_(y)`` becomes ``add(x, y)``; if ``x`` is the root the group's current value is
  the result, if ``x`` is a view the new root value is the old one with the result written through the
  view (``index_put`` at the view's element positions, computed from the views' sizes/strides/offsets);
* a later read of any member of a mutated group regenerates it by replaying its view chain on the
  group's current value;
* ``out=`` overloads become their functional op written into the out tensors (Note [Out= writes]);
* ops that mutate without the ``op_`` convention (``native_batch_norm`` updating running statistics,
  ``resize_``) have rules in :data:`functionalize_rules`;
* at the end, graph inputs (and get_attr constants) whose group was mutated return their new values as
  extra outputs; the caller writes them back (``copy_``) into the real tensors, resizing first those an out=
  write or ``resize_`` resized (``resized_inputs``).  User outputs that alias
  an input are not returned from the graph: their view chain is replayed on the real input instead.

Invariant: the result graph has no op with a written (``a!``) argument, and no output aliases an input
or another output.  Running ``inputs -> (mutated input values, outputs)`` then copying the values back
gives what running the original graph on the real inputs gives.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

import glasstorch
from glasstorch._core import shape as _shape
from glasstorch.fx import Graph, GraphModule
from glasstorch.fx.graph_module import _get_attr as _fetch_attr
from glasstorch.fx.node import Node, map_arg
from glasstorch.fx.passes.shape_prop import _extract_tensor_metadata
from glasstorch.fx.passes.shape_prop import _memory_format as _layout_of

__all__ = ["functionalize_graph", "FunctionalGraph", "OutputAlias", "functionalize_rules", "register_functionalize",
           "replay_view_chain"]

aten = glasstorch.ops.aten

functionalize_rules: dict = {}
"""OpOverload -> rule(ctx, node): functional replacement for ops without an ``op_`` -> ``op`` twin."""


def register_functionalize(*ops):
    """Decorator: the function is the functionalisation rule of ``ops`` (``rule(ctx, node) -> value``)."""
    def deco(fn):
        for op in ops:
            functionalize_rules[op] = fn
        return fn
    return deco


@dataclass
class OutputAlias:
    """How to produce one user output at run time.

    kind: ``"graph"`` (output ``index`` of the functional graph), ``"input"`` (the view ``chain`` of user input
    ``index``, replayed after the input mutations are applied), ``"output"`` (the ``chain`` replayed on user
    output ``index``) or ``"const"`` (``value``, a non-tensor).
    """

    kind: str
    index: int = 0
    chain: tuple = ()
    value: object = None


@dataclass
class FunctionalGraph:
    """The functional graph and what the runtime must do around it."""

    gm: GraphModule
    mutated_inputs: list = field(default_factory=list)   # placeholder indices, in output order
    mutated_attrs: list = field(default_factory=list)    # get_attr targets, after the inputs
    outputs: list = field(default_factory=list)          # one OutputAlias per user output
    num_graph_outputs: int = 0                            # user outputs the graph returns
    resized_inputs: dict = field(default_factory=dict)   # placeholder index -> memory format (None: contiguous)
    resize_only_inputs: set = field(default_factory=set)  # resized by resize_ and never written: the runtime's
                                                          # resize_ alone is eager's mutation (no copy_ after it)

    @property
    def num_mutations(self) -> int:
        return len(self.mutated_inputs) + len(self.mutated_attrs)


class _Group:
    """One storage: its root node (old graph), its current value (new graph) and a version counter."""

    __slots__ = ("root", "current", "version", "input_index", "attr")

    def __init__(self, root, current, input_index=None, attr=None):
        self.root = root
        self.current = current
        self.version = 0
        self.input_index = input_index
        self.attr = attr


_SELF = object()  # the position of the viewed tensor inside a stored view step


def _val(node):
    v = node.meta.get("val") if isinstance(node, Node) else None
    return v if isinstance(v, glasstorch.Tensor) else None


def _storage(t):
    impl = getattr(t, "_impl", None)
    return getattr(impl, "storage", None)


def _schema(node):
    return getattr(node.target, "_schema", None)


class _Functionalizer:
    """Walks the old graph once, emitting the functional graph (see the module docstring)."""

    def __init__(self, gm: GraphModule, keep_outputs: bool = False):
        self.old = gm
        self.keep_outputs = keep_outputs
        self.graph = Graph()
        self.consts: dict = {}
        self.groups: dict = {}     # old node -> _Group
        self.chains: dict = {}     # old node -> tuple of view steps from its group's root
        self.cache: dict = {}      # old node -> (group version, new node)
        self.env: dict = {}        # old node -> new node for non-tensor / tuple values
        self.input_alias: set = set()  # new nodes that alias a graph input or constant
        self.view_lists: dict = {}     # old list-returning view node -> (base, step)
        self.out_tuples: dict = {}     # old multi-output out= node -> the old out tensors it wrote, in order
        self.resized: dict = {}        # id(group) -> memory format of a resize (resize_, or an out= write)
        self.data_written: set = set()  # id(group) of storages whose elements a write changed (not resize_ alone)
        self.n_inputs = 0
        self.fake_mode = _fake_mode_of(gm)

    # -- values ------------------------------------------------------------------------------------------------
    def get(self, old):
        """The new-graph node holding the current value of ``old``."""
        if not isinstance(old, Node):
            return old
        group = self.groups.get(old)
        if group is None:
            return self.env[old]
        chain = self.chains[old]
        if not chain:
            return group.current
        hit = self.cache.get(old)
        if hit is not None and hit[0] == group.version:
            return hit[1]
        value = group.current
        for step in chain:
            value = self._emit_step(value, step)
        self.cache[old] = (group.version, value)
        return value

    def _emit_step(self, value, step):
        target, args, kwargs = step
        if target is operator.getitem:  # an element of a list-returning view op (split, unbind)
            inner, idx = args
            node = self.emit(operator.getitem, (self._emit_step(value, inner), idx))
        else:
            node = self.emit(target, tuple(value if a is _SELF else a for a in args), kwargs)
        if value in self.input_alias:
            self.input_alias.add(node)
        return node

    def emit(self, target, args, kwargs=None, meta=None):
        """A call_function node; its ``meta['val']`` is copied from ``meta`` or computed on the fake values."""
        node = self.graph.call_function(target, tuple(args), dict(kwargs or {}))
        if meta is not None:
            node.meta = dict(meta)
        else:
            self._propagate(node)
        return node

    def _propagate(self, node):
        missing = []

        def val(n):
            v = n.meta.get("val", missing) if isinstance(n, Node) else n
            if v is missing:
                raise LookupError
            return v

        try:
            args, kwargs = map_arg(node.args, val), map_arg(node.kwargs, val)
        except LookupError:
            return
        mode = self.fake_mode
        if mode is None:
            val = node.target(*args, **kwargs)
        else:
            with mode:
                val = node.target(*args, **kwargs)
        node.meta["val"] = val
        if isinstance(val, glasstorch.Tensor):
            node.meta["tensor_meta"] = _extract_tensor_metadata(val)

    def new_root(self, old, new):
        self.groups[old] = _Group(old, new)
        self.chains[old] = ()

    def const(self, name, tensor):
        key = f"_functional_{name}{len(self.consts)}"
        self.consts[key] = tensor
        node = self.graph.get_attr(key)
        node.meta["val"] = tensor if self.fake_mode is None else self.fake_mode.from_tensor(tensor)
        node.meta["tensor_meta"] = _extract_tensor_metadata(tensor)
        return node

    # -- nodes -------------------------------------------------------------------------------------------------
    def run(self) -> FunctionalGraph:
        out_node = None
        for node in self.old.graph.nodes:
            if node.op == "placeholder":
                new = self.graph.placeholder(node.target)
                new.meta = dict(node.meta)
                self._root_input(node, new, input_index=self.n_inputs)
                self.n_inputs += 1
            elif node.op == "get_attr":
                new = self.graph.get_attr(node.target)
                self.consts[node.target] = _fetch_attr(self.old, node.target)
                self._root_input(node, new, attr=node.target)
            elif node.op == "call_function":
                self.call(node)
            elif node.op == "output":
                out_node = node
            else:
                raise RuntimeError(f"functionalize: unsupported node {node.format_node()} (op {node.op!r}); "
                                   "expected an aten-level graph from make_fx")
        return self.finish(out_node)

    def _root_input(self, old, new, input_index=None, attr=None):
        if _val(old) is None and not isinstance(_fetch_val_or_attr(self.old, old), glasstorch.Tensor):
            self.env[old] = new
            return
        self.groups[old] = _Group(old, new, input_index=input_index, attr=attr)
        self.chains[old] = ()
        self.input_alias.add(new)

    def call(self, node):
        target = node.target
        schema = _schema(node)
        rule = functionalize_rules.get(target)
        if rule is not None:
            return rule(self, node)
        if target is operator.getitem:
            return self.getitem(node)
        if schema is not None and schema.is_mutable:
            return self.mutation(node, schema)
        if schema is not None and schema.is_view and self._aliases(node):
            return self.view(node)
        new = self.emit(target, map_arg(node.args, self.get), map_arg(node.kwargs, self.get), meta=node.meta)
        if _val(node) is not None:
            self.new_root(node, new)
        else:
            self.env[node] = new
        return new

    def _aliases(self, node) -> bool:
        """A view op's result aliases its input (checked on the fake storages when the trace recorded them)."""
        base = node.args[0] if node.args else None
        out, inp = _val(node), _val(base) if isinstance(base, Node) else None
        if out is None or inp is None:
            return isinstance(base, Node) and base in self.groups
        so, si = _storage(out), _storage(inp)
        return so is None or si is None or so is si

    def view(self, node):
        base = node.args[0]
        args = (_SELF,) + tuple(map_arg(node.args[1:], self._static_arg))
        step = (node.target, args, dict(map_arg(node.kwargs, self._static_arg)))
        if _val(node) is None:  # a list of views (split, unbind): its elements alias the base
            new = self.emit(node.target, map_arg(node.args, self.get), map_arg(node.kwargs, self.get), meta=node.meta)
            self.view_lists[node] = (base, step)
            self.env[node] = new
            return new
        return self._alias_of(node, base, step)

    def _alias_of(self, node, base, step):
        new = self._emit_step(self.get(base), step)
        if "val" not in new.meta:
            new.meta = dict(node.meta)
        group = self.groups[base]
        self.groups[node] = group
        self.chains[node] = self.chains[base] + (step,)
        self.cache[node] = (group.version, new)
        return new

    def _static_arg(self, a):
        if isinstance(a, Node):
            raise RuntimeError("functionalize: a view op with a tensor-valued size argument is not supported")
        return a

    def getitem(self, node):
        parent, idx = node.args
        parent_schema = _schema(parent) if isinstance(parent, Node) and parent.op == "call_function" else None
        if parent_schema is not None and parent in self.view_lists:
            base, step = self.view_lists[parent]
            return self._alias_of(node, base, (operator.getitem, (step, idx), {}))
        if parent in self.out_tuples:  # an element of a multi-output out= call is that out tensor
            target = self.out_tuples[parent][idx]
            group = self.groups[target]
            self.groups[node], self.chains[node] = group, self.chains[target]
            return self.get(node)
        new = self.emit(operator.getitem, (self.get(parent), idx), meta=node.meta)
        if _val(node) is not None:
            self.new_root(node, new)
        else:
            self.env[node] = new
        return new

    # -- mutations ---------------------------------------------------------------------------------------------
    def mutation(self, node, schema):
        if schema.is_out:
            return self.out_variant(node, schema)
        functional = _functional_twin(node.target) if schema.is_inplace else None
        if functional is None or isinstance(node.args[0], (list, tuple)):
            return self.mutate_private_copies(node, schema)
        args = map_arg(node.args, self.get)
        kwargs = map_arg(node.kwargs, self.get)
        value = self.emit(functional, args, kwargs)
        return self.write(node, node.args[0], value)

    def mutate_private_copies(self, node, schema):
        """Note [Private copies]: an op with no functional form (random fills, ``embedding_renorm_``, fused
        optimizer steps, ``_foreach_*_``) runs on fresh clones of the tensors it writes, which then become those
        tensors' values.  Nothing else can see a clone, so the graph stays functional from the outside; these are
        the only in-place calls left in a functionalised graph (their clones are marked ``aot_private_copy``:
        never recomputed, since the clone's node is not the written value).  Random ops thus draw from the
        generator in eager order."""
        names = [a.name for a in schema.arguments]
        args, kwargs = list(map_arg(node.args, self.get)), dict(map_arg(node.kwargs, self.get))
        written = []
        for a in schema.arguments:
            if not a.is_write:
                continue
            pos = names.index(a.name)
            old = node.args[pos] if pos < len(node.args) else node.kwargs.get(a.name)
            if old is None:
                continue
            new = [self._private_copy(o) for o in old] if isinstance(old, (list, tuple)) else self._private_copy(old)
            if pos < len(args):
                args[pos] = new
            else:
                kwargs[a.name] = new
            written.append((old, new))
        result = self.emit(node.target, args, kwargs)
        for old, new in written:
            for o, n in (zip(old, new, strict=True) if isinstance(old, (list, tuple)) else ((old, new),)):
                self.write(None, o, n)
        ret = schema.returns[0] if schema.returns else None
        first = written[0][0] if written else None
        if ret is not None and ret.annotation is not None and ret.annotation.is_write and isinstance(first, Node):
            group = self.groups[first]
            if not self.chains[first]:
                group.current = result       # readers depend on the op, not on the clone it wrote
            self.groups[node], self.chains[node] = group, self.chains[first]
            self.cache[node] = (group.version, result)
        else:
            self.env[node] = result
        return result

    def _private_copy(self, old):
        value = self.get(old)
        if not (isinstance(value, Node) and value.target is aten.clone.default and not value.users
                and value not in self.input_alias):
            value = self.emit(aten.clone.default, (value,))
        value.meta["aot_private_copy"] = True
        return value

    def out_variant(self, node, schema):
        """Note [Out= writes]: ``op.out(..., out=o)`` becomes the functional ``op(...)`` written into ``o``: cast to
        ``o``'s dtype, and of the result's shape when that differs (out= resizes; the runtime resizes a graph input
        before copying into it).  A multi-output overload (``linalg_svd.U``: U, S, Vh) writes element ``i`` of the
        functional op's tuple into its ``i``-th out argument, in schema order; ``getitem`` of the out= call's
        result then reads those out tensors."""
        functional = _functional_of_out(node.target)
        if functional is None:
            raise RuntimeError(f"functionalize: no functional variant of the out= overload {node.target}")
        outs = [a.name for a in schema.arguments if a.is_write and a.kwarg_only]  # keyword-only: in kwargs
        targets = [node.kwargs[n] for n in outs]
        kwargs = {k: v for k, v in node.kwargs.items() if k not in outs}
        value = self.emit(functional, map_arg(node.args, self.get), map_arg(kwargs, self.get))
        if len(targets) == 1:
            return self.write(node, targets[0], value, resize=True)
        for i, target in enumerate(targets):
            self.write(None, target, self.emit(operator.getitem, (value, i)), resize=True)
        self.out_tuples[node] = targets
        self.env[node] = value
        return value

    def write(self, node, target, value, resize=False, memory_format=None, data=True):
        """``target`` now holds ``value`` (cast to its dtype): update its group; ``node`` (if any) aliases
        ``target``.  ``resize`` (an out= write, ``resize_``): a result of another shape replaces the tensor, which
        the runtime resizes (to ``memory_format``'s strides when given) before copying the value in.  ``data``
        False: the write only re-lays the storage's bytes (``resize_``), which the runtime's resize_ redoes."""
        tval = _val(target)
        if tval is None:
            raise RuntimeError(f"functionalize: the mutated argument {target} has no recorded value")
        group = self.groups[target]
        chain = self.chains[target]
        vval = _val(value)
        shape = tuple(tval.shape)
        if resize and vval is not None and tuple(vval.shape) != shape:
            if chain:
                raise RuntimeError(f"functionalize: an out= write resizes {target}, which is a view")
            shape = tuple(vval.shape)
        if resize and not chain and (shape != tuple(tval.shape) or memory_format is not None):
            self.resized[id(group)] = memory_format
        if data:
            self.data_written.add(id(group))
        value = self._match(value, tval.dtype, shape)
        if chain:
            group.current = self._scatter(group, target, value)
        else:
            group.current = value
        group.version += 1
        self.cache[target] = (group.version, value)
        if node is not None and node is not target:
            self.groups[node] = group
            self.chains[node] = chain
            self.cache[node] = (group.version, value)
        return value

    def _match(self, value, dtype, shape):
        """Cast/broadcast the functional result to the written tensor's dtype and shape (in-place semantics)."""
        vval = _val(value) if isinstance(value, Node) else None
        if vval is not None and vval.dtype != dtype:
            value = self.emit(aten._to_copy.default, (value,), {"dtype": dtype})
        if vval is not None and tuple(vval.shape) != shape:
            value = self.emit(aten.expand.default, (value, list(shape)))
        return value

    def _scatter(self, group, target, value):
        """The group's root value with ``value`` written through the view ``target`` (index_put on the root's
        elements at the view's positions)."""
        root_val, view_val = _val(group.root), _val(target)
        idx = glasstorch.from_numpy(_view_positions(root_val, view_val))
        flat = self.emit(aten.reshape.default, (group.current, [-1]))
        values = self.emit(aten.reshape.default, (value, [-1]))
        written = self.emit(aten.index_put.default, (flat, [self.const("index", idx)], values))
        return self.emit(aten.reshape.default, (written, list(root_val.shape)))

    # -- outputs -----------------------------------------------------------------------------------------------
    def finish(self, out_node) -> FunctionalGraph:
        flat, spec = _flatten(out_node.args[0] if out_node is not None else ())
        if self.keep_outputs:
            return self._finish_in_place(flat, spec)
        result = FunctionalGraph(gm=None)
        graph_outs = []
        for group in self._mutated_groups():
            value = group.current
            if value in self.input_alias:
                value = self.emit(aten.clone.default, (value,))
            graph_outs.append(value)
            if group.attr is None:
                result.mutated_inputs.append(group.input_index)
                if id(group) in self.resized:
                    result.resized_inputs[group.input_index] = self.resized[id(group)]
                    if id(group) not in self.data_written:
                        result.resize_only_inputs.add(group.input_index)
            else:
                result.mutated_attrs.append(group.attr)
        base_output = {}   # group -> index of the user output that is the group's root
        seen_values = {}
        for pos, o in enumerate(flat):
            result.outputs.append(self._output(o, pos, graph_outs, base_output, seen_values, result))
        result.num_graph_outputs = len(graph_outs) - result.num_mutations
        self.graph.output(tuple(graph_outs))
        gm = GraphModule(self.consts, self.graph)
        gm.meta["out_spec"] = spec
        result.gm = gm
        return result

    def _finish_in_place(self, flat, spec) -> FunctionalGraph:
        """Outputs stay where they are (the joint graph: its layout is fixed, aliasing an input is allowed)."""
        if self._mutated_groups():
            raise RuntimeError("functionalize: the joint graph mutates one of its inputs")
        self.graph.output(tuple(self.get(o) for o in flat))
        gm = GraphModule(self.consts, self.graph)
        gm.meta["out_spec"] = spec
        return FunctionalGraph(gm=gm, outputs=[OutputAlias("graph", i) for i in range(len(flat))],
                               num_graph_outputs=len(flat))

    def _mutated_groups(self):
        groups, seen = [], set()
        for old, group in self.groups.items():
            if id(group) in seen or group.root is not old:
                continue
            seen.add(id(group))
            if group.version and (group.input_index is not None or group.attr is not None):
                groups.append(group)
        inputs = sorted((g for g in groups if g.attr is None), key=lambda g: g.input_index)
        return inputs + [g for g in groups if g.attr is not None]

    def _output(self, o, pos, graph_outs, base_output, seen_values, result):
        if not isinstance(o, Node) or (o not in self.groups and _val(o) is None):
            if isinstance(o, Node):
                graph_outs.append(self.get(o))
                return OutputAlias("graph", len(graph_outs) - 1 - result.num_mutations)
            return OutputAlias("const", value=o)
        group = self.groups[o]
        chain = self.chains[o]
        if group.input_index is not None:
            return OutputAlias("input", group.input_index, chain)
        if id(group) in base_output:
            return OutputAlias("output", base_output[id(group)], chain)
        value = self.get(o)
        if group.attr is not None or value in self.input_alias or id(group) in seen_values or value in graph_outs:
            value = self.emit(aten.clone.default, (value,))  # an alias we cannot regenerate: a fresh copy
        seen_values[id(group)] = pos
        if not chain:
            base_output[id(group)] = pos
        graph_outs.append(value)
        return OutputAlias("graph", len(graph_outs) - 1 - result.num_mutations)


def _flatten(value):
    """Leaves of nested lists/tuples (the output structure), and a spec rebuilding them."""
    if isinstance(value, (list, tuple)):
        leaves, specs = [], []
        for v in value:
            sub, spec = _flatten(v)
            leaves.extend(sub)
            specs.append(spec)
        return leaves, (type(value), specs)
    return [value], None


def _fake_mode_of(gm):
    """The FakeTensorMode of the trace's values (None for a real trace)."""
    for node in gm.graph.nodes:
        mode = getattr(node.meta.get("val"), "fake_mode", None)
        if mode is not None:
            return mode
    return None


def _fetch_val_or_attr(gm, node):
    if node.op == "get_attr":
        return _fetch_attr(gm, node.target)
    return _val(node)


def _functional_twin(op):
    """``aten.add_.Tensor`` -> ``aten.add.Tensor`` (None when the out-of-place op does not exist)."""
    schema = op._schema
    base = schema.name.split("::")[-1]
    if not base.endswith("_"):
        return None
    packet = getattr(aten, base[:-1], None) if hasattr(aten, base[:-1]) else None
    if packet is None:
        return None
    return getattr(packet, schema.overload_name or "default", None) if \
        (schema.overload_name or "default") in packet.overloads() else None


def _functional_of_out(op):
    """``aten.add.out`` -> the overload of ``add`` taking the same non-out arguments."""
    schema = op._schema
    wanted = [a.name for a in schema.arguments if not (a.is_write and a.kwarg_only)]
    packet = getattr(aten, schema.name.split("::")[-1])
    for name in packet.overloads():
        cand = getattr(packet, name)
        if not cand._schema.is_mutable and [a.name for a in cand._schema.arguments] == wanted:
            return cand
    return None


def _positions(t):
    """Storage offsets of every element of ``t`` in logical (row-major) order."""
    pos = np.full((), t.storage_offset(), dtype=np.int64)
    for size, stride in zip(t.shape, t.stride(), strict=True):
        pos = pos[..., None] + np.arange(size, dtype=np.int64) * stride
    return pos


def _view_positions(root, view) -> np.ndarray:
    """For each element of ``view``: its logical flat index in ``root`` (both over one storage)."""
    root_pos = _positions(root).reshape(-1)
    order = np.argsort(root_pos, kind="stable")
    sorted_pos = root_pos[order]
    want = _positions(view).reshape(-1)
    at = np.searchsorted(sorted_pos, want)
    if want.size and (at.max() >= sorted_pos.size or (sorted_pos[np.minimum(at, sorted_pos.size - 1)] != want).any()):
        raise RuntimeError("functionalize: a mutated view reaches memory outside its base tensor")
    return order[at].astype(np.int64)


def replay_view_chain(value, chain):
    """Apply a view chain (from :class:`OutputAlias`) to a real tensor, eagerly (autograd records the views)."""
    for target, args, kwargs in chain:
        if target is operator.getitem:
            inner, idx = args
            value = _replay_one(value, inner)[idx]
            continue
        value = _replay_one(value, (target, args, kwargs))
    return value


def _replay_one(value, step):
    target, args, kwargs = step
    return target(*(value if a is _SELF else a for a in args), **kwargs)


def functionalize_graph(gm: GraphModule, keep_outputs: bool = False) -> FunctionalGraph:
    """Rewrite ``gm`` (aten ops, ``meta['val']`` on tensor nodes) without in-place ops or aliased outputs.

    Args:
        gm: a GraphModule recorded by make_fx.
        keep_outputs: return every output from the graph in place (no alias analysis; inputs must not be
            mutated) — used for the joint graph, whose output layout is fixed.

    Returns:
        FunctionalGraph: ``gm`` returns ``(*mutated input values, *mutated attr values, *graph outputs)``;
        ``outputs`` says how each user output is produced.

    Example:
        >>> fg = functionalize_graph(make_fx(lambda x: x.mul_(2).sin())(x))  # doctest: +SKIP
        >>> fg.mutated_inputs
        [0]
    """
    return _Functionalizer(gm, keep_outputs).run()


# -- rules ---------------------------------------------------------------------------------------------------
def _true_mask(ctx):
    return ctx.const("true", glasstorch.tensor(True))


@register_functionalize(aten.copy_.default)
def _copy(ctx, node):
    dst, src = node.args[0], node.args[1]
    value = ctx.get(src)
    dval, sval = _val(dst), _val(src)
    if sval is not None and sval.device != dval.device:
        value = ctx.emit(aten._to_copy.default, (value,), {"device": dval.device})
    return ctx.write(node, dst, value)


_INPLACE_VIEWS = {aten.t_.default: aten.t.default, aten.transpose_.default: aten.transpose.int,
                  aten.unsqueeze_.default: aten.unsqueeze.default, aten.squeeze_.default: aten.squeeze.default,
                  aten.squeeze_.dim: aten.squeeze.dim, aten.squeeze_.dims: aten.squeeze.dims,
                  aten.as_strided_.default: aten.as_strided.default}


@register_functionalize(*_INPLACE_VIEWS)
def _inplace_view(ctx, node):
    """``x.squeeze_(0)`` gives ``x`` its view's geometry and writes no data: functionally the view ``squeeze(x, 0)``
    of the same group, which the trace's later uses read through the in-place call's result."""
    args = (_SELF,) + tuple(map_arg(node.args[1:], ctx._static_arg))
    step = (_INPLACE_VIEWS[node.target], args, dict(map_arg(node.kwargs, ctx._static_arg)))
    return ctx._alias_of(node, node.args[0], step)


@register_functionalize(aten.fill_.Scalar, aten.fill_.Tensor)
def _fill(ctx, node):
    if node.target is aten.fill_.Scalar:
        value = ctx.emit(aten.masked_fill.Scalar, (ctx.get(node.args[0]), _true_mask(ctx), node.args[1]))
    else:
        value = ctx.emit(aten.where.self, (_true_mask(ctx), ctx.get(node.args[1]), ctx.get(node.args[0])))
    return ctx.write(node, node.args[0], value)


@register_functionalize(aten.zero_.default)
def _zero(ctx, node):
    value = ctx.emit(aten.masked_fill.Scalar, (ctx.get(node.args[0]), _true_mask(ctx), 0))
    return ctx.write(node, node.args[0], value)


@register_functionalize(aten._index_put_impl_.default)
def _index_put_impl(ctx, node):
    args = list(map_arg(node.args, ctx.get))
    accumulate = args[3] if len(args) > 3 else node.kwargs.get("accumulate", False)
    value = ctx.emit(aten.index_put.default, (args[0], args[1], args[2], accumulate))
    return ctx.write(node, node.args[0], value)


@register_functionalize(aten.pow_.Tensor)
def _pow_tensor(ctx, node):
    value = ctx.emit(aten.pow.Tensor_Tensor, tuple(map_arg(node.args, ctx.get)))
    return ctx.write(node, node.args[0], value)


@register_functionalize(aten.floor_divide_.Tensor)
def _floor_divide(ctx, node):
    value = ctx.emit(aten.floor_divide.default, tuple(map_arg(node.args, ctx.get)))
    return ctx.write(node, node.args[0], value)


@register_functionalize(aten.resize_.default, aten.resize_as_.default)
def _resize(ctx, node):
    """Note [Functional resize_]: eager ``resize_`` keeps the storage's bytes, so the resized tensor's elements (in
    the new layout) are the old storage-order prefix, followed by uninitialised ones when the storage grows (zeros
    here).  A dense tensor's storage order is its dims sorted by decreasing stride, so the new value is that
    flattening, cut or padded to the new count and laid out with the result's strides.  The write resizes:
    a resized graph input is ``resize_``-d by the runtime before its new value is copied in."""
    target = node.args[0]
    old, new = _val(target), _val(node)
    if tuple(old.shape) == tuple(new.shape) and old.stride() == new.stride():  # a no-op: the result is target
        ctx.groups[node], ctx.chains[node] = ctx.groups[target], ctx.chains[target]
        return ctx.get(node)
    if ctx.chains[target] or not _shape.is_non_overlapping_and_dense(tuple(old.shape), old.stride()):
        raise RuntimeError(f"functionalize: {node.target} of a view or of a non-dense tensor is not supported")
    order = sorted(range(old.dim()), key=lambda d: -old.stride()[d])
    value = ctx.get(target)
    if order != list(range(old.dim())):
        value = ctx.emit(aten.permute.default, (value, order))
    value = ctx.emit(aten.reshape.default, (value, [-1]))
    n_old, n_new = old.numel(), new.numel()
    if n_new < n_old:
        value = ctx.emit(aten.slice.Tensor, (value, 0, 0, n_new))
    elif n_new > n_old:
        value = ctx.emit(aten.constant_pad_nd.default, (value, [0, n_new - n_old]))
    if _shape.is_contiguous(tuple(new.shape), new.stride()):
        value = ctx.emit(aten.view.default, (value, list(new.shape)))
    else:  # a memory format's strides over the contiguous prefix
        value = ctx.emit(aten.as_strided.default, (value, list(new.shape), list(new.stride()), 0))
    if n_new <= n_old:  # the views above may alias the old value (a graph input): the new value is its own
        value = ctx.emit(aten.clone.default, (value,))
    return ctx.write(node, target, value, resize=True, memory_format=_memory_format(new), data=False)


def _memory_format(t):
    """channels_last(_3d) when ``t`` is laid out so (and not also contiguous), else None."""
    fmt = _layout_of(t)
    return None if fmt is glasstorch.contiguous_format else fmt


def _bn_args(node):
    names = ("input", "weight", "bias", "running_mean", "running_var", "training", "momentum", "eps")
    bound = dict(zip(names, node.args, strict=False))
    bound.update(node.kwargs)
    return bound


@register_functionalize(aten.native_batch_norm.default, aten._native_batch_norm_legit.default)
def _batch_norm(ctx, node):
    """Training batch norm: the normalisation from ``_native_batch_norm_legit.no_stats`` (batch statistics) and
    the running statistics updated out of place from its saved mean and invstd, which are not differentiable,
    as the kernel's in-place update is not: ``(1 - momentum) * running + momentum * batch`` with the unbiased
    batch variance ``(invstd ** -2 - eps) * n / (n - 1)``."""
    a = _bn_args(node)
    x, rm, rv = a["input"], a["running_mean"], a["running_var"]
    if not a["training"]:
        new = ctx.emit(aten._native_batch_norm_legit_no_training.default,
                       tuple(ctx.get(a[k]) for k in ("input", "weight", "bias", "running_mean", "running_var",
                                                     "momentum", "eps")))
        ctx.env[node] = new
        return new
    new = ctx.emit(aten._native_batch_norm_legit.no_stats,
                   tuple(ctx.get(a[k]) for k in ("input", "weight", "bias", "training", "momentum", "eps")))
    ctx.env[node] = new
    m, eps = a["momentum"], a["eps"]
    xval = _val(x)
    n = xval.numel() // xval.shape[1]
    if rm is not None:
        mean = ctx.emit(operator.getitem, (new, 1))
        ctx.write(rm, rm, _lerp(ctx, ctx.get(rm), mean, m))
    if rv is not None:
        invstd = ctx.emit(operator.getitem, (new, 2))
        var = ctx.emit(aten.sub.Tensor, (ctx.emit(aten.pow.Tensor_Scalar, (invstd, -2)), eps))
        unbiased = ctx.emit(aten.mul.Tensor, (var, n / (n - 1) if n > 1 else float("nan")))
        ctx.write(rv, rv, _lerp(ctx, ctx.get(rv), unbiased, m))
    return new


def _lerp(ctx, old, batch, momentum):
    kept = ctx.emit(aten.mul.Tensor, (old, 1 - momentum))
    return ctx.emit(aten.add.Tensor, (kept, ctx.emit(aten.mul.Tensor, (batch, momentum))))
