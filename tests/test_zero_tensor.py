"""``torch._efficientzerotensor`` and the ZeroTensor key (Note [ZeroTensor]) against torch: the bit and where it
survives (views) or not (other results), immutability, and refusal to serialize or convert to numpy, with torch's
exception types and messages."""

from __future__ import annotations

import io
import pickle

import pytest
import torch
from oracle import assert_same, assert_same_error, both

import glasstorch as gt


def _zeros(m):
    return m._efficientzerotensor((4, 5))


def test_creation_matches_torch():
    def facts(m):
        z = _zeros(m)
        i = m._efficientzerotensor(2, 3, dtype=m.int64)
        meta = m._efficientzerotensor([2], device="meta")
        return (z._is_zerotensor(), m._is_zerotensor(z), repr(z.dtype), tuple(z.shape), z.stride(), repr(i.dtype),
                i._is_zerotensor(), meta.is_meta, m._efficientzerotensor(3, requires_grad=True).requires_grad,
                m.ones(2)._is_zerotensor())

    g, t = both(facts)
    assert g == t


@pytest.mark.parametrize("op", ["view", "t", "reshape", "detach", "add", "sum", "clone", "neg", "mixed"])
def test_which_results_stay_zero_tensors(op):
    def run(m):
        z = _zeros(m)
        out = {"view": lambda: z[0], "t": lambda: z.t(), "reshape": lambda: z.reshape(20), "detach": z.detach,
               "add": lambda: z + 1, "sum": z.sum, "clone": z.clone, "neg": lambda: -z,
               "mixed": lambda: m.ones(4, 5) * 3 + z}[op]()
        return out._is_zerotensor(), out.clone()

    (zg, g), (zt, t) = both(run)
    assert zg == zt
    assert_same(g, t)


@pytest.mark.parametrize("op", ["add_", "out=", "copy_"])
def test_writes_are_refused(op):
    def run(m):
        z = _zeros(m)
        return {"add_": lambda: z.add_(1), "out=": lambda: m.add(m.ones(4, 5), 1, out=z),
                "copy_": lambda: z.copy_(m.ones(4, 5))}[op]

    assert_same_error(run(gt), run(torch))


def test_a_zero_tensor_may_be_read_into_a_plain_one():
    g, t = both(lambda m: m.ones(4, 5).add_(_zeros(m)))
    assert_same(g, t)


@pytest.mark.parametrize("how", ["zip", "legacy", "pickle"])
def test_not_serializable(how):
    def run(m):
        z = _zeros(m)
        return {"zip": lambda: m.save(z, io.BytesIO()),
                "legacy": lambda: m.save({"z": z}, io.BytesIO(), _use_new_zipfile_serialization=False),
                "pickle": lambda: pickle.dumps(z)}[how]

    assert_same_error(run(gt), run(torch))


def test_numpy_needs_force():
    assert_same_error(lambda: _zeros(gt).numpy(), lambda: _zeros(torch).numpy())
    assert _zeros(gt).numpy(force=True).tolist() == _zeros(torch).numpy(force=True).tolist()
