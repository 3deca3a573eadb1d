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
