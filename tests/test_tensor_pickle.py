"""Pickling tensors by storage and geometry, as PyTorch does: views keep strides and offsets (each tensor carries
its own copy of the whole storage, so plain pickling does not keep sharing — PyTorch's behaviour too; deepcopy
does), requires_grad and Parameters survive, meta has no bytes."""

import copy
import pickle

import pytest
import torch

import glasstorch


def _roundtrip(m, build):
    return pickle.loads(pickle.dumps(build(m)))


@pytest.mark.parametrize("lib", [glasstorch, torch], ids=["glasstorch", "torch"])
def test_views_keep_geometry_not_sharing(lib):
    x, y = _roundtrip(lib, lambda m: (lambda b: (b, b.t()[1:]))(m.arange(6.0).view(2, 3)))
    assert y.stride() == (1, 3) and y.storage_offset() == 1 and tuple(y.shape) == (2, 2)
    assert y.untyped_storage().nbytes() == 24
    x.add_(10)
    assert y.tolist() == [[1.0, 4.0], [2.0, 5.0]]
    a, b = copy.deepcopy((x, x[1]))
    a.zero_()
    assert b.tolist() == [0.0, 0.0, 0.0]


def test_same_as_torch():
    def build(m):
        base = m.arange(24, dtype=m.float32).view(2, 3, 4)
        return base.permute(2, 0, 1)[1:, :, ::2]

    g, t = _roundtrip(glasstorch, build), _roundtrip(torch, build)
    assert g.stride() == t.stride() and g.storage_offset() == t.storage_offset() and g.tolist() == t.tolist()
    assert g.untyped_storage().nbytes() == t.untyped_storage().nbytes()


def test_requires_grad_parameter_meta_and_deepcopy():
    z = _roundtrip(glasstorch, lambda m: m.ones(2, requires_grad=True))
    assert z.requires_grad and z.is_leaf
    p = _roundtrip(glasstorch, lambda m: m.nn.Parameter(m.ones(2)))
    assert isinstance(p, glasstorch.nn.Parameter) and p.requires_grad
    meta = _roundtrip(glasstorch, lambda m: m.empty(2, 3, device="meta").t())
    assert meta.is_meta and meta.stride() == (1, 3)
    v = glasstorch.arange(4.0)[1:]
    assert copy.deepcopy(v).tolist() == [1.0, 2.0, 3.0]
    b16 = _roundtrip(glasstorch, lambda m: m.tensor([1.5, -2.0], dtype=m.bfloat16))
    assert b16.dtype is glasstorch.bfloat16 and b16.float().tolist() == [1.5, -2.0]


# -- deepcopy of Tensor subclasses, as torch ------------------------------------------------------------------

def _subclasses(m):
    """Subclasses built the same way in both libraries: a wrapper subclass (no data, ops through
    __torch_dispatch__ on its ``elem``), one whose new_empty returns itself, a plain one, one with __slots__."""

    class Wrapper(m.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return m.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, device=elem.device,
                                                   requires_grad=elem.requires_grad)

        def __init__(self, elem):
            self.elem = elem

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def unwrap(x):
                return x.elem if isinstance(x, Wrapper) else x

            out = func(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in (kwargs or {}).items()})
            return Wrapper(out) if isinstance(out, m.Tensor) else out

    class OwnNewEmpty(m.Tensor):
        __torch_function__ = m._C._disabled_torch_function_impl

        def new_empty(self, *args, **kwargs):
            return m.Tensor._make_subclass(OwnNewEmpty, super().new_empty(*args, **kwargs))

    class Plain(m.Tensor):
        pass

    class Slotted(m.Tensor):
        __slots__ = ("bar",)

    return Wrapper, OwnNewEmpty, Plain, Slotted


def _deepcopy_outcome(m, case):
    Wrapper, OwnNewEmpty, Plain, Slotted = _subclasses(m)
    if case == "wrapper":
        t = Wrapper(m.arange(4.0))
    elif case == "wrapper_grad":
        t = Wrapper(m.arange(4.0, requires_grad=True))
    elif case == "own_new_empty":
        t = m.Tensor._make_subclass(OwnNewEmpty, m.arange(4.0).view(2, 2).t())
    elif case == "plain_subclass":
        t = m.arange(4.0).as_subclass(Plain)
    elif case == "slotted":
        t = m.arange(4.0).as_subclass(Slotted)
        t.bar = 5
    else:
        t = m.arange(4.0)
    t.foo = {"k": [1, 2]}
    try:
        c = copy.deepcopy(t)
    except RuntimeError as e:
        return ("RuntimeError", str(e))
    data = c.elem if case.startswith("wrapper") else c
    return (type(c).__name__, c.foo, c.foo is t.foo, getattr(c, "bar", None), c.requires_grad, tuple(c.shape),
            data.tolist(), data.stride(), type(data).__name__, data is not getattr(t, "elem", t))


@pytest.mark.parametrize("case", ["wrapper", "wrapper_grad", "own_new_empty", "plain_subclass", "slotted", "tensor"])
def test_deepcopy_of_subclasses_matches_torch(case):
    """The copy keeps the subclass (a wrapper through its clone, others through their new_empty), __dict__ and
    __slots__ deep-copied; a subclass whose new_empty returns a plain Tensor gets torch's error."""
    got, want = _deepcopy_outcome(glasstorch, case), _deepcopy_outcome(torch, case)
    assert got == want
    if case in ("wrapper", "own_new_empty", "tensor"):
        assert want[0] != "RuntimeError"


def test_wrapper_subclass_keeps_its_attributes_through_operators():
    for m in (glasstorch, torch):
        Wrapper = _subclasses(m)[0]
        w = Wrapper(m.arange(3.0))
        out = w + 1
        assert type(out) is Wrapper and out.elem.tolist() == [1.0, 2.0, 3.0] and w.data_ptr() == 0


class GtSub(glasstorch.Tensor):  # module-level subclasses: pickle finds a class by its name
    pass


class TorchSub(torch.Tensor):
    pass


@pytest.mark.parametrize("how", ["copy", "pickle"])
def test_copy_and_pickle_keep_subclass_and_attributes(how):
    """copy.copy and pickle rebuild a subclass as its class with its __dict__, and a plain tensor's attributes too
    (torch's _rebuild_from_type_v2)."""
    outcomes = []
    for m, sub in ((glasstorch, GtSub), (torch, TorchSub)):
        s = m.arange(3.0).view(3, 1).t().as_subclass(sub)
        s.foo = {"k": 1}
        t = m.arange(2.0)
        t.bar = [2]
        if how == "copy":
            cs, ct = copy.copy(s), copy.copy(t)
        else:
            cs, ct = pickle.loads(pickle.dumps(s)), pickle.loads(pickle.dumps(t))
        outcomes.append((type(cs) is sub, cs.foo, cs.stride(), cs.tolist(), type(ct).__name__, ct.bar))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0]
