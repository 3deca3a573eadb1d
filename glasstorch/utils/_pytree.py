"""``torch.utils._pytree``: nested containers ("pytrees") flattened to a list of leaves and a spec of their structure.

PyTorch counterpart: ``torch/utils/_pytree.py`` (the Python implementation).  A pytree is a leaf or a node: an
instance of a registered container type, which a flatten function turns into its children and a context (what
the unflatten function needs to rebuild it: dict keys, a namedtuple's class).  Built in: tuple, list, dict,
namedtuples, OrderedDict, defaultdict, deque and the ``torch.return_types`` tuples.  Everything else, None
included, is a leaf.  :class:`TreeSpec` records the node types, contexts and children; ``tree_unflatten(leaves,
spec)`` inverts ``tree_flatten``.

Invariants: ``tree_unflatten(*tree_flatten(t))`` equals ``t``; leaves come in depth-first order, dicts in their
insertion order; a spec's ``num_leaves`` is the number of leaves it holds.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import importlib
import json
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, NamedTuple

__all__ = ["PyTree", "Context", "TreeSpec", "LeafSpec", "keystr", "key_get", "register_pytree_node", "tree_is_leaf",
           "tree_flatten", "tree_flatten_with_path", "tree_unflatten", "tree_iter", "tree_leaves",
           "tree_leaves_with_path", "tree_structure", "tree_map", "tree_map_with_path", "tree_map_", "tree_map_only",
           "tree_map_only_", "tree_all", "tree_any", "tree_all_only", "tree_any_only", "treespec_dumps",
           "treespec_loads", "treespec_pprint", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
           "is_structseq", "is_structseq_class", "is_structseq_instance", "SequenceKey", "MappingKey", "GetAttrKey",
           "SUPPORTED_NODES", "NodeDef"]

PyTree = Any
Context = Any
TREE_SPEC_PROTOCOL = 1


class NodeDef(NamedTuple):
    type: type
    flatten_fn: Any
    unflatten_fn: Any
    flatten_with_keys_fn: Any


class _SerializeNodeDef(NamedTuple):
    typ: type
    serialized_type_name: str
    to_dumpable_context: Any
    from_dumpable_context: Any


SUPPORTED_NODES: dict = {}           # node type -> NodeDef
SUPPORTED_SERIALIZED_TYPES: dict = {}  # node type -> _SerializeNodeDef
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict = {}


# -- paths -------------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """A path step into a sequence: ``[idx]``."""
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """A path step into a mapping: ``[key]``."""
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """A path step to an attribute: ``.name``."""
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """A key path as a string: ``['a'][0].x``."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The item of ``obj`` at key path ``kp``."""
    for k in kp:
        obj = k.get(obj)
    return obj


# -- registration ------------------------------------------------------------------------------------------------

def _register(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
              from_dumpable_context=None, flatten_with_keys_fn=None) -> None:
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must be None or registered.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    name = serialized_type_name or f"{cls.__module__}.{getattr(cls, '__qualname__', cls.__name__)}"
    SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable_context, from_dumpable_context)
    SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None) -> None:
    """Make ``cls`` a pytree node: ``flatten_fn(obj) -> (children, context)``, ``unflatten_fn(children, context)``
    rebuilds it; ``flatten_with_keys_fn(obj) -> ([(key, child), ...], context)`` enables the ``*_with_path``
    functions.

    Raises:
        ValueError: ``cls`` is already registered.
    """
    _register(cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
              to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
              flatten_with_keys_fn=flatten_with_keys_fn)


def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None, maybe_from_str_fn=None, *,
                          serialized_type_name=None, to_dumpable_context=None, from_dumpable_context=None,
                          flatten_with_keys_fn=None) -> None:
    """The deprecated spelling of :func:`register_pytree_node` (a FutureWarning, as torch's)."""
    warnings.warn("`torch.utils._pytree._register_pytree_node` is deprecated. Please use "
                  "`torch.utils._pytree.register_pytree_node` instead.", FutureWarning, stacklevel=2)
    _register(cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
              to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
              flatten_with_keys_fn=flatten_with_keys_fn)


def _deregister_pytree_node(cls) -> None:
    """Forget a node type (for tests)."""
    SUPPORTED_NODES.pop(cls, None)
    node = SUPPORTED_SERIALIZED_TYPES.pop(cls, None)
    if node is not None:
        SERIALIZED_TYPE_TO_PYTHON_TYPE.pop(node.serialized_type_name, None)


# -- the built-in nodes ------------------------------------------------------------------------------------------

def is_namedtuple_class(cls) -> bool:
    return (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)
            and all(isinstance(f, str) for f in cls._fields) and callable(getattr(cls, "_make", None)))


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj) -> bool:
    """A namedtuple class or instance (``collections.namedtuple``/``typing.NamedTuple``)."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls) -> bool:
    """A ``torch.return_types`` class (PyTorch's structseqs; glasstorch's are named tuple subclasses)."""
    return isinstance(cls, type) and issubclass(cls, tuple) and cls.__module__ == "torch.return_types"


def is_structseq_instance(obj) -> bool:
    return is_structseq_class(type(obj))


def is_structseq(obj) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _seq_keys(seq):
    return [(SequenceKey(i), v) for i, v in enumerate(seq)]


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _namedtuple_flatten(t):
    return list(t), type(t)


def _namedtuple_keys(t):
    return [(GetAttrKey(f), v) for f, v in zip(t._fields, t, strict=True)], type(t)


def _namedtuple_to_json(context):
    node = SUPPORTED_SERIALIZED_TYPES.get(context)
    if node is None:
        raise NotImplementedError(f"Can't serialize TreeSpec of namedtuple class {context} because we didn't "
                                  f"register a serializated_type_name. Please register using "
                                  f"`_register_namedtuple`.")
    return node.serialized_type_name


def _namedtuple_from_json(name):
    if name not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class {name} because we couldn't find "
                                  f"it in the registry. Please register using `_register_namedtuple`.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[name]


def _register_namedtuple(cls, *, serialized_type_name: str) -> None:
    """Give a namedtuple class a name so that specs holding it serialize (torch's ``_register_namedtuple``)."""
    SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, serialized_type_name, None, None)
    SERIALIZED_TYPE_TO_PYTHON_TYPE[serialized_type_name] = cls


def _defaultdict_flatten(d):
    values, keys = _dict_flatten(d)
    return values, [d.default_factory, keys]


def _defaultdict_keys(d):
    items, keys = _dict_keys(d)
    return items, [d.default_factory, keys]


def _defaultdict_unflatten(values, context):
    factory, keys = context
    return defaultdict(factory, zip(keys, values, strict=True))


def _defaultdict_to_json(context):
    factory, keys = context
    return {"default_factory_module": factory.__module__, "default_factory_name": factory.__qualname__,
            "dict_context": keys}


def _defaultdict_from_json(dumped):
    factory = getattr(importlib.import_module(dumped["default_factory_module"]), dumped["default_factory_name"])
    return [factory, dumped["dict_context"]]


_register(tuple, lambda t: (list(t), None), lambda v, c: tuple(v), serialized_type_name="builtins.tuple",
          flatten_with_keys_fn=lambda t: (_seq_keys(t), None))
_register(list, lambda t: (list(t), None), lambda v, c: list(v), serialized_type_name="builtins.list",
          flatten_with_keys_fn=lambda t: (_seq_keys(t), None))
_register(dict, _dict_flatten, lambda v, keys: dict(zip(keys, v, strict=True)), serialized_type_name="builtins.dict",
          flatten_with_keys_fn=_dict_keys)
_register(namedtuple, _namedtuple_flatten, lambda v, cls: cls(*v), serialized_type_name="collections.namedtuple",
          to_dumpable_context=_namedtuple_to_json, from_dumpable_context=_namedtuple_from_json,
          flatten_with_keys_fn=_namedtuple_keys)
_register(OrderedDict, _dict_flatten, lambda v, keys: OrderedDict(zip(keys, v, strict=True)),
          serialized_type_name="collections.OrderedDict", flatten_with_keys_fn=_dict_keys)
_register(defaultdict, _defaultdict_flatten, _defaultdict_unflatten, serialized_type_name="collections.defaultdict",
          to_dumpable_context=_defaultdict_to_json, from_dumpable_context=_defaultdict_from_json,
          flatten_with_keys_fn=_defaultdict_keys)
_register(deque, lambda d: (list(d), d.maxlen), lambda v, maxlen: deque(v, maxlen=maxlen),
          serialized_type_name="collections.deque", flatten_with_keys_fn=lambda d: (_seq_keys(d), d.maxlen))


def _node_type(tree):
    """The registry key of ``tree``: ``namedtuple`` for namedtuple instances, else its type (a
    ``torch.return_types`` class is registered the first time one is met)."""
    cls = type(tree)
    if cls in SUPPORTED_NODES:
        return cls
    if is_structseq_class(cls):
        _register(cls, lambda t: (list(t), None), lambda v, c, cls=cls: cls(*v),
                  serialized_type_name=f"torch.return_types.{cls.__name__}",
                  flatten_with_keys_fn=lambda t: (_seq_keys(t), None))
        return cls
    if is_namedtuple_class(cls):
        return namedtuple
    return cls


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether ``tree`` is a leaf: ``is_leaf(tree)`` says so, or its type is no registered node."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


_is_leaf = tree_is_leaf


# -- TreeSpec ----------------------------------------------------------------------------------------------------

@dataclasses.dataclass(init=True, frozen=True, eq=True, repr=False)
class TreeSpec:
    """The structure of a pytree: a node's type, context and children's specs (a leaf is :class:`LeafSpec`)."""
    type: Any
    context: Any
    children_specs: list

    def __post_init__(self):
        leaves = sum(c.num_leaves for c in self.children_specs) if self.type is not None else 1
        nodes = 1 + sum(c.num_nodes for c in self.children_specs)
        object.__setattr__(self, "num_leaves", leaves)
        object.__setattr__(self, "num_nodes", nodes)
        object.__setattr__(self, "num_children", len(self.children_specs))

    def children(self) -> list:
        return list(self.children_specs)

    def child(self, index: int):
        return self.children_specs[index]

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def __repr__(self, indent: int = 0) -> str:
        name = getattr(self.type, "__name__", repr(self.type))
        body = ""
        if self.children_specs:
            indent += 2
            body = self.children_specs[0].__repr__(indent)
            body += "," if len(self.children_specs) > 1 else ""
            body += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children_specs[1:])
        return f"TreeSpec({name}, {self.context}, [{body}])"

    def flatten_up_to(self, tree) -> list:
        """The subtrees of ``tree`` at this spec's leaves (``tree`` must have this spec's structure above them)."""
        out = []
        self._flatten_up_to(tree, out)
        return out

    def _flatten_up_to(self, tree, out):
        if self.is_leaf():
            out.append(tree)
            return
        node = _node_type(tree)
        if node is not self.type:
            raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {node!r}.")
        children, context = SUPPORTED_NODES[node].flatten_fn(tree)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
        if node in (dict, OrderedDict, defaultdict):
            keys = context[1] if node is defaultdict else context
            mine = self.context[1] if node is defaultdict else self.context
            if set(keys) != set(mine):
                raise ValueError(f"Node keys mismatch; missing key(s): {set(mine) - set(keys)}; extra key(s): "
                                 f"{set(keys) - set(mine)}.")
            children = [tree[k] for k in mine]  # in the spec's key order
        elif context != self.context:
            raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        for spec, child in zip(self.children_specs, children, strict=True):
            spec._flatten_up_to(child, out)

    def unflatten(self, leaves):
        """The pytree of this structure holding ``leaves``."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to "
                             f"a pytree that holds {self.num_leaves} items ({self}).")
        return self._unflatten(leaves, 0)

    def _unflatten(self, leaves, start):
        if self.is_leaf():
            return leaves[start]
        children = []
        for spec in self.children_specs:
            children.append(spec._unflatten(leaves, start))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self.context)

    def __hash__(self):
        return hash((self.type, repr(self.context), tuple(self.children_specs)))


class LeafSpec(TreeSpec):
    """The spec of a leaf: ``*``."""

    def __init__(self):
        super().__init__(None, None, [])

    def __repr__(self, indent: int = 0) -> str:
        return "*"


_LEAF = LeafSpec()


def treespec_leaf() -> LeafSpec:
    return _LEAF


# -- flatten, unflatten, map -------------------------------------------------------------------------------------

def _flatten(tree, is_leaf, leaves) -> TreeSpec:
    if tree_is_leaf(tree, is_leaf):
        leaves.append(tree)
        return _LEAF
    node = _node_type(tree)
    children, context = SUPPORTED_NODES[node].flatten_fn(tree)
    return TreeSpec(node, context, [_flatten(c, is_leaf, leaves) for c in children])


def tree_flatten(tree, is_leaf=None) -> tuple[list, TreeSpec]:
    """The leaves of ``tree`` in depth-first order, and its spec."""
    leaves: list = []
    spec = _flatten(tree, is_leaf, leaves)
    return leaves, spec


def tree_unflatten(leaves, treespec: TreeSpec):
    """The pytree of ``treespec``'s structure holding ``leaves`` (the inverse of :func:`tree_flatten`).

    Raises:
        TypeError: ``treespec`` is no TreeSpec.
        ValueError: the number of leaves differs from the spec's.
    """
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves of ``tree``, one at a time."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``tree`` with ``func(leaf, *leaves of rests at the same place)`` in place of each leaf."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten([func(*xs) for xs in zip(*flat, strict=True)])


def tree_map_(func, tree, *rests, is_leaf=None):
    """Call ``func`` on each leaf (with the matching leaves of ``rests``) for its effect; returns ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    collections.deque(map(func, *flat), maxlen=0)
    return tree


def map_only(type_or_types_or_pred):
    """A decorator: the function applies to values of the given type(s), or passing the predicate; others pass
    through unchanged."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    """:func:`tree_map` applying ``func`` only to leaves of the given type(s) (or passing the predicate)."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


# -- paths -------------------------------------------------------------------------------------------------------

def _paths(tree, is_leaf, prefix, out):
    if tree_is_leaf(tree, is_leaf):
        out.append((prefix, tree))
        return
    node = _node_type(tree)
    with_keys = SUPPORTED_NODES[node].flatten_with_keys_fn
    if with_keys is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node}. Please pass a flatten_with_keys_fn "
                         f"argument to register_pytree_node.")
    items, _ = with_keys(tree)
    for key, child in items:
        _paths(child, is_leaf, (*prefix, key), out)


def tree_flatten_with_path(tree, is_leaf=None) -> tuple[list, TreeSpec]:
    """:func:`tree_flatten` with each leaf's key path: ``([(path, leaf), ...], spec)``."""
    out: list = []
    _paths(tree, is_leaf, (), out)
    return out, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    out: list = []
    _paths(tree, is_leaf, (), out)
    return out


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """:func:`tree_map` whose ``func`` also receives each leaf's key path first."""
    with_paths, spec = tree_flatten_with_path(tree, is_leaf)
    flat = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten([func(path, x, *xs) for (path, x), *xs in zip(with_paths, *flat, strict=True)])


# -- serialization -----------------------------------------------------------------------------------------------

def _to_json(spec: TreeSpec) -> dict:
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    node = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if node is None:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    context = node.to_dumpable_context(spec.context) if node.to_dumpable_context is not None else spec.context
    try:
        text = json.dumps(context)
    except TypeError as e:
        raise TypeError("Unable to serialize context. Please make the context json dump-able, or register a "
                        "custom serializer using _register_pytree_node.") from e
    return {"type": node.serialized_type_name, "context": text,
            "children_spec": [_to_json(c) for c in spec.children()]}


def _from_json(schema: dict) -> TreeSpec:
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f'Deserializing {schema["type"]} in pytree is not registered.')
    cls = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    node = SUPPORTED_SERIALIZED_TYPES[cls]
    context = json.loads(schema["context"])
    if node.from_dumpable_context is not None:
        context = node.from_dumpable_context(context)
    return TreeSpec(cls, context, [_from_json(c) for c in schema["children_spec"]])


def treespec_dumps(treespec: TreeSpec, protocol=None) -> str:
    """The spec as JSON text (``[protocol, schema]``), for :func:`treespec_loads`."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of type {type(treespec)}.")
    protocol = TREE_SPEC_PROTOCOL if protocol is None else protocol
    if protocol != TREE_SPEC_PROTOCOL:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [{TREE_SPEC_PROTOCOL}]")
    return json.dumps([protocol, _to_json(treespec)])


def treespec_loads(serialized: str) -> TreeSpec:
    protocol, schema = json.loads(serialized)
    if protocol != TREE_SPEC_PROTOCOL:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [{TREE_SPEC_PROTOCOL}]")
    return _from_json(schema)


class _Asterisk(str):
    def __new__(cls):
        return super().__new__(cls, "*")

    def __repr__(self):
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The spec drawn as its pytree with ``*`` for each leaf: ``[*, (*, *)]``."""
    return repr(tree_unflatten([_Asterisk()] * treespec.num_leaves, treespec))
