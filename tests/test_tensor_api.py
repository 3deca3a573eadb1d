"""Tensor API corners against real PyTorch: type strings in messages, saved-view version errors, ``Tensor.H``/
``mH``/``T``, in-place view ops, ``new``/``set_``/``storage()``, ``del x[i]`` and string slices.

Every case is built the same way in both libraries (``m`` is ``glasstorch`` or ``torch``) and compared with
``tests/oracle.py``: values, geometry, dtypes, the exception type and its message, and the warnings.
"""


import pytest
import torch
from oracle import assert_same_error

import glasstorch

LIBS = (glasstorch, torch)


def _raises_same(build):
    assert_same_error(lambda: build(glasstorch), lambda: build(torch))


def _same_outcome(build):
    """Both raise the same error, or neither raises."""
    try:
        build(torch)
    except Exception:  # noqa: BLE001 - the oracle raised: glasstorch must raise the same
        _raises_same(build)
    else:
        build(glasstorch)


# -- type strings in C++-side messages (TensorBase::toString) -----------------------------------------------------
TYPE_CASES = [(dt, dev) for dt in ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "float16",
                                   "bfloat16", "bool", "complex64", "complex128") for dev in ("cpu", "meta")]


@pytest.mark.parametrize("dtype,device", TYPE_CASES)
def test_expand_error_names_the_type(dtype, device):
    _raises_same(lambda m: m.ones(2, 3, dtype=getattr(m, dtype), device=device).expand(3))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
def test_version_error_names_the_type(dtype):
    def build(m):
        a = m.ones(2, dtype=getattr(m, dtype), requires_grad=True) * 1
        y = a.sin()
        a.mul_(2)
        y.sum().backward()
    _raises_same(build)


def test_embedding_index_type_is_named():
    _raises_same(lambda m: m.nn.functional.embedding(m.ones(2, dtype=m.bfloat16), m.ones(3, 3)))


# -- a saved view whose base moved: the error names its regenerated grad_fn (AsStrided) ---------------------------
VIEWS = {
    "select": lambda a: a[0],
    "as_strided": lambda a: a.as_strided((2, 2), (1, 2)),
    "t": lambda a: a.t(),
    "view": lambda a: a.view(12),
    "unbind": lambda a: a.unbind(0)[1],
    "diagonal": lambda a: a.diagonal(),
    "expand": lambda a: a[0:1].expand(2, 4),
}
USES = {
    "mul": lambda v: v * v,
    "pow": lambda v: v.pow(2),
    "mm": lambda v: v.reshape(-1, 1) @ v.reshape(1, -1),  # two saved views: the first in name order is named
}
WRITES = {
    "view": lambda a, v: v.mul_(2),
    "base": lambda a, v: a.add_(1),
    "other_view": lambda a, v: a[1].add_(1),
}


@pytest.mark.parametrize("write", WRITES)
@pytest.mark.parametrize("use", USES)
@pytest.mark.parametrize("view", VIEWS)
def test_saved_view_modified_in_place(view, use, write):
    def build(m):
        a = m.ones(3, 4, requires_grad=True) * 1
        v = VIEWS[view](a)
        y = USES[use](v)
        WRITES[write](a, v)
        y.sum().backward()
    _same_outcome(build)  # a reshape that copies saves no view: no error in either


@pytest.mark.parametrize("op", ["addcmul", "atan2", "mm"])
def test_saved_tensors_are_checked_in_name_order(op):
    def build(m):
        x = m.ones(2, 1, requires_grad=True) * 1
        w = m.ones(1, 3, requires_grad=True) * 1
        if op == "addcmul":
            y = m.addcmul(m.ones(2, 3), x, w)
        elif op == "atan2":
            y = m.atan2(x, w)
        else:
            y = x @ w
        x.mul_(2)
        w.mul_(2)
        y.sum().backward()
    _raises_same(build)
