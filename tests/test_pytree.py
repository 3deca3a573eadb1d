"""glasstorch.utils._pytree against torch.utils._pytree: the same trees give the same leaves, spec reprs, paths,
maps, JSON and errors."""

import collections
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest
import torch
import torch.utils._pytree as tp

import glasstorch as gt
import glasstorch.utils._pytree as gp

Point = namedtuple("Point", "x y")

TREES = {
    "leaf": 1,
    "none": None,
    "list": [1, 2, 3],
    "nested": [1, (2, 3), {"b": 4, "a": 5}, None],
    "empty": [(), [], {}],
    "dict_order": {"z": 1, "a": [2, 3]},
    "namedtuple": Point(1, [2, 3]),
    "ordereddict": OrderedDict(b=1, a=2),
    "defaultdict": defaultdict(list, {"k": 1}),
    "deque": deque([1, 2], maxlen=5),
    "strings_are_leaves": ["ab", b"cd", 1.5],
    "deep": {"a": [{"b": (1, [2, {"c": 3}])}]},
}


@pytest.mark.parametrize("name", list(TREES))
def test_flatten_spec_and_roundtrip(name):
    tree = TREES[name]
    gl, gs = gp.tree_flatten(tree)
    tl, ts = tp.tree_flatten(tree)
    assert gl == tl
    assert repr(gs) == repr(ts)
    assert (gs.num_leaves, gs.num_nodes, gs.num_children, gs.is_leaf()) == (ts.num_leaves, ts.num_nodes,
                                                                             ts.num_children, ts.is_leaf())
    back = gp.tree_unflatten(gl, gs)
    assert back == tree and type(back) is type(tree)
    assert gp.tree_leaves(tree) == tp.tree_leaves(tree)
    assert gp.treespec_pprint(gs) == tp.treespec_pprint(ts)


@pytest.mark.parametrize("name", [n for n in TREES if n not in ("namedtuple", "defaultdict")])
def test_dumps_loads(name):
    gs, ts = gp.tree_structure(TREES[name]), tp.tree_structure(TREES[name])
    assert gp.treespec_dumps(gs) == tp.treespec_dumps(ts)
    assert gp.treespec_loads(gp.treespec_dumps(gs)) == gs


@pytest.mark.parametrize("name", list(TREES))
def test_paths(name):
    tree = TREES[name]
    g = [(gp.keystr(k), v) for k, v in gp.tree_flatten_with_path(tree)[0]]
    t = [(tp.keystr(k), v) for k, v in tp.tree_flatten_with_path(tree)[0]]
    assert g == t
    assert [repr(k) for k, _ in gp.tree_leaves_with_path(tree)] == [repr(k) for k, _ in tp.tree_leaves_with_path(tree)]


def test_maps():
    tree = {"a": [1, 2.0, "s"], "b": (3, None)}
    assert gp.tree_map(lambda x: x, tree) == tp.tree_map(lambda x: x, tree)
    f = lambda x: -x  # noqa: E731
    assert gp.tree_map_only(int, f, tree) == tp.tree_map_only(int, f, tree)
    assert gp.tree_map_only((int, float), f, tree) == tp.tree_map_only((int, float), f, tree)
    assert gp.tree_map_only(lambda x: x == 2.0, f, tree) == tp.tree_map_only(lambda x: x == 2.0, f, tree)
    two = ([1, 2], {"k": 3})
    assert gp.tree_map(lambda a, b: a + b, two, two) == tp.tree_map(lambda a, b: a + b, two, two)
    assert gp.tree_map_with_path(lambda p, x: gp.keystr(p), two) == tp.tree_map_with_path(lambda p, x: tp.keystr(p),
                                                                                         two)
    assert gp.tree_all(lambda x: x is not None, [1, 2]) and not gp.tree_any(lambda x: x is None, [1, 2])
    assert gp.tree_all_only(int, lambda x: x > 0, [1, "a"]) == tp.tree_all_only(int, lambda x: x > 0, [1, "a"])
    seen = []
    assert gp.tree_map_(seen.append, [1, [2]]) == [1, [2]] and seen == [1, 2]
    assert gp.tree_leaves([1, [2]], is_leaf=lambda x: isinstance(x, list) and len(x) == 1) == [1, [2]]


def test_return_types_and_tensors():
    g, t = gt.max(gt.ones(2, 2), 0), torch.max(torch.ones(2, 2), 0)
    assert repr(gp.tree_structure(g)) == repr(tp.tree_structure(t))
    back = gp.tree_unflatten(*gp.tree_flatten(g))
    assert type(back) is type(g) and back.indices is g.indices
    leaves = gp.tree_leaves({"w": gt.ones(2), "b": [gt.zeros(1)]})
    assert [x.shape for x in leaves] == [gt.Size([2]), gt.Size([1])]
    doubled = gp.tree_map_only(gt.Tensor, lambda x: x * 2, {"w": gt.ones(2), "n": 3})
    assert doubled["n"] == 3 and doubled["w"].tolist() == [2.0, 2.0]


class Box:
    def __init__(self, a, b):
        self.a, self.b = a, b


def _register(mod):
    mod.register_pytree_node(Box, lambda x: ([x.a, x.b], "box"), lambda v, c: Box(*v),
                             flatten_with_keys_fn=lambda x: ([(mod.GetAttrKey("a"), x.a), (mod.GetAttrKey("b"), x.b)],
                                                             "box"))


def test_custom_node():
    for mod in (gp, tp):
        _register(mod)
    try:
        tree = [Box(1, (2, 3))]
        assert repr(gp.tree_structure(tree)) == repr(tp.tree_structure(tree))
        assert [gp.keystr(k) for k, _ in gp.tree_leaves_with_path(tree)] == [tp.keystr(k) for k, _ in
                                                                              tp.tree_leaves_with_path(tree)]
        back = gp.tree_unflatten(*gp.tree_flatten(tree))
        assert isinstance(back[0], Box) and back[0].b == (2, 3)
        for mod in (gp, tp):
            with pytest.raises(ValueError, match="already registered as pytree node"):
                _register(mod)
    finally:
        gp._deregister_pytree_node(Box)
        tp._deregister_pytree_node(Box)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e)
    return None


def test_errors_match_torch():
    for mod in (gp, tp):
        leaves, spec = mod.tree_flatten([1, [2]])
        mod.spec = spec
    assert _error(lambda: gp.tree_unflatten([1], gp.spec)) == _error(lambda: tp.tree_unflatten([1], tp.spec))
    assert _error(lambda: gp.tree_unflatten([1], "x")) == _error(lambda: tp.tree_unflatten([1], "x"))
    assert _error(lambda: gp.map_only(3)) == _error(lambda: tp.map_only(3))
    assert _error(lambda: gp.treespec_dumps("x")) == _error(lambda: tp.treespec_dumps("x"))
    for a, b in (([1, 2], [1]), ([1, 2], (1, 2)), ({"a": 1}, {"b": 1})):
        def first(x, y):
            return x
        assert _error(lambda a=a, b=b: gp.tree_map(first, a, b)) == _error(lambda a=a, b=b: tp.tree_map(first, a, b))
    del gp.spec, tp.spec


def test_namedtuple_predicates():
    for obj in (Point(1, 2), Point, (1, 2), collections.OrderedDict()):
        assert gp.is_namedtuple(obj) == tp.is_namedtuple(obj)
    assert gp.is_structseq(gt.max(gt.ones(2), 0)) and not gp.is_namedtuple_instance(gt.max(gt.ones(2), 0))
