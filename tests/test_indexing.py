"""``x[idx]`` and ``x[idx] = v`` against PyTorch: every kind of index, values, shapes, strides, views vs copies,
broadcasting of assigned values, version bumps, warnings and error messages.

The glasstorch side goes through ``glasstorch._ops.indexing.getitem`` / ``setitem`` (what ``Tensor.__getitem__``
and ``__setitem__`` call); an index is written as ``lambda L: ...`` so that tensors inside it are built in each
library from the same data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same

import glasstorch as gt
from glasstorch._ops import indexing


def _base(lib, shape=(2, 3, 4), dtype="float32", layout="contiguous"):
    n = int(np.prod(shape))
    t = lib.arange(n, dtype=lib.int64).to(getattr(lib, dtype)).reshape(shape)
    if layout == "transposed":
        t = t.transpose(0, -1).contiguous().transpose(0, -1)
    elif layout == "strided":
        big = lib.zeros(shape[:-1] + (shape[-1] * 2,), dtype=t.dtype)
        big[..., ::2] = t
        t = big[..., ::2]
    return t


def _np(t):
    t = t.detach()
    if t.dtype in (torch.bfloat16, gt.bfloat16):
        t = t.float()
    return np.asarray(t.tolist())


def _run(fn):
    """(result, error, warnings); PyTorch's C++ warnings lose their " (Triggered internally at ...)" suffix."""
    def texts(w):
        return [(x.category, str(x.message).split(" (Triggered internally")[0]) for x in w]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            return fn(), None, texts(w)
        except Exception as e:  # noqa: BLE001 - the oracle's errors are compared
            return None, e, texts(w)


def _same_error(got, want):
    assert type(got) is type(want) or type(got).__name__ == type(want).__name__, \
        f"error type {type(got).__name__} ({got}) != torch {type(want).__name__} ({want})"
    assert str(got) == str(want), f"message differs:\n glasstorch: {got}\n torch:      {want}"


def _check_get(index, shape=(2, 3, 4), dtype="float32", layout="contiguous"):
    x_t, x_g = _base(torch, shape, dtype, layout), _base(gt, shape, dtype, layout)
    want, terr, twarn = _run(lambda: x_t[index(torch)])
    got, gerr, gwarn = _run(lambda: indexing.getitem(x_g, index(gt)))
    if terr is not None:
        assert gerr is not None, f"torch raised {type(terr).__name__}: {terr}; glasstorch returned {got!r}"
        _same_error(gerr, terr)
        return
    assert gerr is None, f"glasstorch raised {type(gerr).__name__}: {gerr}"
    assert tuple(got.shape) == tuple(want.shape)
    assert repr(got.dtype) == repr(want.dtype)
    np.testing.assert_array_equal(_np(got), _np(want))
    assert (got._base is not None) == (want._base is not None), "view-ness differs"
    if want.numel() > 1:
        assert got.stride() == want.stride(), f"strides {got.stride()} != torch {want.stride()}"
    assert [(c.__name__, m) for c, m in gwarn] == [(c.__name__, m) for c, m in twarn]


def _check_set(index, value, shape=(2, 3, 4), dtype="float32", layout="contiguous"):
    x_t, x_g = _base(torch, shape, dtype, layout), _base(gt, shape, dtype, layout)
    v_t, v_g = x_t._version, x_g._version
    _, terr, twarn = _run(lambda: x_t.__setitem__(index(torch), value(torch)))
    _, gerr, gwarn = _run(lambda: indexing.setitem(x_g, index(gt), value(gt)))
    if terr is not None:
        assert gerr is not None, f"torch raised {type(terr).__name__}: {terr}; glasstorch did not"
        _same_error(gerr, terr)
        return
    assert gerr is None, f"glasstorch raised {type(gerr).__name__}: {gerr}"
    np.testing.assert_array_equal(_np(x_g), _np(x_t))
    assert (x_g._version > v_g) == (x_t._version > v_t), "version bump differs"
    assert [(c.__name__, m) for c, m in gwarn] == [(c.__name__, m) for c, m in twarn]


class _Obj:
    pass


GET_CASES = {
    "int": lambda L: 1,
    "negative int": lambda L: -1,
    "numpy int": lambda L: np.int64(1),
    "tuple of ints": lambda L: (1, 2),
    "slice": lambda L: slice(0, 1),
    "None": lambda L: None,
    "Ellipsis": lambda L: ...,
    "empty tuple": lambda L: (),
    "basic mix": lambda L: (None, 0, ..., slice(1, None, 2)),
    "two ellipses": lambda L: (..., ...),
    "list": lambda L: [1, 0],
    "negative list": lambda L: [-1, -2],
    "empty list": lambda L: [],
    "float list": lambda L: [1.7],
    "bool list": lambda L: [True, False],
    "mixed bool/int list": lambda L: [True, 0],
    "range": lambda L: range(2),
    "nested list (as tuple)": lambda L: [[0, 1], [1, 2]],
    "list holding a slice": lambda L: [0, slice(None)],
    "list of 0-dim tensors": lambda L: [L.tensor(0), L.tensor(1)],
    "tuple holding a tuple": lambda L: ((0, 1),),
    "ndarray": lambda L: np.array([[0, 1], [1, 0]]),
    "0-dim ndarray": lambda L: np.array(1),
    "float ndarray": lambda L: np.array([1.5]),
    "bool ndarray": lambda L: np.array([True, False]),
    "long tensor": lambda L: L.tensor([1, 0, 1]),
    "int32 tensor": lambda L: L.tensor([0, 1], dtype=L.int32),
    "2-d index": lambda L: L.tensor([[0, 1], [1, 0]]),
    "2-d index dim 1": lambda L: (slice(None), L.tensor([[0, 1], [1, 0]])),
    "transposed index": lambda L: (slice(None), L.tensor([[0, 1], [2, 0]]).t()),
    "0-dim long tensor": lambda L: L.tensor(1),
    "0-dim tensor at dim 1": lambda L: (slice(None), L.tensor(2)),
    "0-dim tensor with advanced": lambda L: ([0, 1], L.tensor(1)),
    "uint8 tensor": lambda L: L.tensor([1, 0], dtype=L.uint8),
    "bool tensor": lambda L: L.tensor([True, False]),
    "2-d bool tensor": lambda L: L.tensor([[True, False, True], [False, True, True]]),
    "bool tensor then int": lambda L: (L.tensor([[True, False, True], [False, True, True]]), 1),
    "bool tensor then list": lambda L: (L.tensor([[True, False, True], [False, True, True]]), [1, 2, 3, 0]),
    "int then bool tensor": lambda L: (1, L.tensor([False, True, True])),
    "full mask": lambda L: L.arange(24).reshape(2, 3, 4) % 3 == 0,
    "0-dim bool True": lambda L: L.tensor(True),
    "0-dim bool False then int": lambda L: (L.tensor(False), 0),
    "True": lambda L: True,
    "False": lambda L: False,
    "int, True": lambda L: (0, True),
    "True, True": lambda L: (True, True),
    "slice, True": lambda L: (slice(None), True),
    "ellipsis, True": lambda L: (..., True),
    "int, True, list": lambda L: (0, True, [1]),
    "adjacent advanced": lambda L: (0, [0, 2], [1, 3]),
    "separated advanced": lambda L: ([0, 1], slice(None), [1, 3]),
    "separated by int": lambda L: ([0, 1], 1, [1, 3]),
    "broadcast advanced": lambda L: ([[0], [1]], slice(None), [1, 3]),
    "advanced after slice": lambda L: (slice(None), slice(1, None), [0, 2]),
    "None between advanced": lambda L: (None, [0], None, [1]),
    "ellipsis then list": lambda L: (..., [0, 1]),
    "tensor slice bounds": lambda L: slice(L.tensor(0), L.tensor(1)),
    # errors
    "int out of range": lambda L: 5,
    "negative out of range": lambda L: -3,
    "int out of range at dim 1": lambda L: (0, 5),
    "None then out of range": lambda L: (None, 0, 5),
    "ellipsis then out of range": lambda L: (..., 5),
    "list out of range": lambda L: [5],
    "list out of range dim 2": lambda L: (slice(None), slice(None), [9]),
    "list out of range after advanced": lambda L: ([0], slice(None), [9]),
    "0-dim tensor out of range": lambda L: L.tensor(5),
    "too many": lambda L: (0, 0, 0, 0),
    "too many with mask": lambda L: (L.tensor([[True, False, True], [False, True, True]]), 0, 0),
    "shape mismatch": lambda L: ([0, 1], [0, 2, 1]),
    "mask shape": lambda L: L.tensor([True, False, True]),
    "mask shape at dim 2": lambda L: (L.tensor([[True, False, True], [False, True, True]]), L.tensor([True])),
    "mask 2-d shape": lambda L: L.tensor([[True, False]]),
    "short bool list": lambda L: [True],
    "float tensor": lambda L: L.tensor([0.0]),
    "0-dim float tensor": lambda L: L.tensor(1.0),
    "int16 tensor": lambda L: L.tensor([0], dtype=L.int16),
    "float": lambda L: 1.5,
    "numpy float": lambda L: np.float64(1),
    "numpy bool": lambda L: np.bool_(True),
    "object": lambda L: _Obj(),
    "dict": lambda L: {},
    "str": lambda L: "ab",
    "zero step": lambda L: slice(None, None, 0),
    "negative step": lambda L: slice(None, None, -1),
}


@pytest.mark.parametrize("name", list(GET_CASES))
def test_getitem(name):
    _check_get(GET_CASES[name])


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("name", ["list", "2-d index dim 1", "separated advanced", "bool tensor then list",
                                  "advanced after slice", "broadcast advanced", "None between advanced"])
def test_getitem_layouts(name, layout):
    _check_get(GET_CASES[name], layout=layout)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int64", "int8", "uint8", "bool"])
def test_getitem_dtypes(dtype):
    for name in ("list", "2-d bool tensor", "separated advanced", "True"):
        _check_get(GET_CASES[name], dtype=dtype)


ZERO_DIM_CASES = {
    "0": lambda L: 0, "1": lambda L: 1, "None": lambda L: None, "...": lambda L: ..., "True": lambda L: True,
    "False": lambda L: False, "tensor(0)": lambda L: L.tensor(0), "[0]": lambda L: [0],
    "tensor(True)": lambda L: L.tensor(True), "slice": lambda L: slice(None), "(0,)": lambda L: (0,),
}


@pytest.mark.parametrize("name", list(ZERO_DIM_CASES))
def test_getitem_zero_dim(name):
    _check_get(ZERO_DIM_CASES[name], shape=())


def test_getitem_empty_dims():
    _check_get(lambda L: [0, 0], shape=(3, 0))
    _check_get(lambda L: (slice(None), []), shape=(3, 0))
    _check_get(lambda L: (slice(None), [0]), shape=(3, 0))
    _check_get(lambda L: L.zeros(0, 3, dtype=L.bool), shape=(0, 3))


@pytest.mark.parametrize("name", ["list", "2-d index dim 1", "separated advanced", "broadcast advanced", "True",
                                  "0-dim long tensor", "bool tensor", "list out of range"])
def test_getitem_meta(name):
    index = GET_CASES[name]
    want, terr, _ = _run(lambda: torch.empty(2, 3, 4, device="meta")[index(torch)])
    got, gerr, _ = _run(lambda: indexing.getitem(gt.empty(2, 3, 4, device="meta"), index(gt)))
    if terr is not None:
        assert gerr is not None, f"torch raised {terr!r}; glasstorch returned {got!r}"
        _same_error(gerr, terr)
        return
    assert gerr is None, f"glasstorch raised {gerr!r}"
    assert (tuple(got.shape), got.stride(), str(got.device)) == (tuple(want.shape), want.stride(), str(want.device))


def test_getitem_results_are_copies_or_views():
    x = gt.ones(2, 3, 4)
    y = indexing.getitem(x, [0, 1])
    y.zero_()
    assert x.sum().item() == 24  # a copy
    v = indexing.getitem(x, (0, slice(None)))
    assert v._base is x
    v.zero_()
    assert x.sum().item() == 12


# -- setitem ---------------------------------------------------------------------------------------------------
SET_CASES = {
    "list, scalar": (lambda L: [0], lambda L: 5),
    "list, float into int": (lambda L: [0], lambda L: 5.7),
    "list, bool": (lambda L: [1], lambda L: True),
    "list, 0-dim tensor": (lambda L: [0, 1], lambda L: L.tensor(2.0)),
    "list, broadcast row": (lambda L: [0, 1], lambda L: L.arange(4.0)),
    "list, full value": (lambda L: [1, 0], lambda L: L.arange(24.0).reshape(2, 3, 4)),
    "list, leading ones": (lambda L: [0], lambda L: L.ones(1, 1, 1, 3, 4)),
    "tensor index, column": (lambda L: (slice(None), L.tensor([2, 0])), lambda L: L.tensor([[[1.0], [2.0]]])),
    "separated advanced": (lambda L: ([0, 1], slice(None), [1, 3]), lambda L: L.arange(6.0).reshape(2, 3)),
    "two indices broadcast": (lambda L: ([[0], [1]], [0, 2]), lambda L: L.tensor([7.0, 8.0, 9.0, 10.0])),
    "mask, scalar": (lambda L: L.arange(24).reshape(2, 3, 4) % 2 == 0, lambda L: -1.0),
    "mask, values": (lambda L: L.arange(24).reshape(2, 3, 4) % 2 == 0, lambda L: L.arange(12.0)),
    "mask, 0-dim float64": (lambda L: L.arange(24).reshape(2, 3, 4) > 5, lambda L: L.tensor(2.0, dtype=L.float64)),
    "mask, 1-element float64": (lambda L: L.arange(24).reshape(2, 3, 4) > 5,
                                lambda L: L.tensor([2.0], dtype=L.float64)),
    "row mask, rows": (lambda L: L.tensor([False, True]), lambda L: L.full((3, 4), 3.0)),
    "mask after int": (lambda L: (1, L.tensor([True, False, True])), lambda L: L.tensor([1.0, 2.0, 3.0, 4.0])),
    "True": (lambda L: True, lambda L: 3.0),
    "False": (lambda L: False, lambda L: L.ones(5)),
    "None": (lambda L: None, lambda L: L.arange(4.0)),
    "Ellipsis": (lambda L: ..., lambda L: 1.5),
    "int": (lambda L: 1, lambda L: L.arange(4.0)),
    "slice": (lambda L: slice(0, 1), lambda L: L.arange(12.0).reshape(3, 4)),
    "list as tuple (basic)": (lambda L: [0, slice(None)], lambda L: L.arange(4.0)),
    "0-dim int tensor": (lambda L: L.tensor(1), lambda L: 4.0),
    "True in tuple": (lambda L: (0, True), lambda L: L.arange(4.0)),
    "duplicates same value": (lambda L: [0, 0], lambda L: 2.0),
    # errors
    "value dtype": (lambda L: [0], lambda L: L.ones(3, 4, dtype=L.float64)),
    "value dtype int": (lambda L: [0], lambda L: L.ones(3, 4, dtype=L.int64)),
    "mask value dtype": (lambda L: L.arange(24).reshape(2, 3, 4) > 5, lambda L: L.ones(18, dtype=L.int64)),
    "value shape": (lambda L: [0], lambda L: L.ones(2, 4)),
    "value shape 2": (lambda L: [0, 1], lambda L: L.ones(3, 3, 4)),
    "basic value shape": (lambda L: 0, lambda L: L.ones(2)),
    "basic value too many dims": (lambda L: 0, lambda L: L.ones(2, 3, 4)),
    "out of range": (lambda L: [5], lambda L: 1.0),
    "too many": (lambda L: (0, 0, 0, 0), lambda L: 1.0),
    "list value": (lambda L: [0], lambda L: [1.0, 2.0]),
    "ndarray value": (lambda L: [0], lambda L: np.ones(4)),
    "numpy float32 value": (lambda L: [0], lambda L: np.float32(1)),
    "complex value": (lambda L: [0], lambda L: 1j),
    "bad index": (lambda L: 1.5, lambda L: 1.0),
    "shape mismatch": (lambda L: ([0, 1], [0, 1, 2]), lambda L: 1.0),
}


@pytest.mark.parametrize("name", list(SET_CASES))
def test_setitem(name):
    index, value = SET_CASES[name]
    _check_set(index, value)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"])
def test_setitem_dtypes(dtype):
    _check_set(lambda L: [1, 0], lambda L: 1)
    _check_set(lambda L: L.arange(24).reshape(2, 3, 4) % 3 == 0, lambda L: 0, dtype=dtype)
    _check_set(lambda L: ([0, 1], slice(None), [1, 3]), lambda L: L.ones(2, 3, dtype=getattr(L, dtype)), dtype=dtype)
    _check_set(lambda L: [0], lambda L: 300, dtype=dtype)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_setitem_layouts(layout):
    for name in ("list, broadcast row", "separated advanced", "mask, values", "two indices broadcast"):
        index, value = SET_CASES[name]
        _check_set(index, value, layout=layout)


def test_setitem_zero_dim():
    for index in (lambda L: ..., lambda L: None, lambda L: True, lambda L: L.tensor(True), lambda L: [0],
                  lambda L: 0):
        _check_set(index, lambda L: 7.0, shape=())


def test_setitem_writes_through_views():
    x = _base(gt)
    v = indexing.getitem(x, (slice(None), 1))  # a view of x
    before = x._version
    indexing.setitem(v, [0], 100.0)
    assert x._version > before
    assert indexing.getitem(x, (0, 1, 0)).item() == 100.0


def test_setitem_accumulate_is_not_used():
    x_t, x_g = torch.zeros(3), gt.zeros(3)
    x_t[torch.tensor([0, 0, 2])] = torch.tensor([1.0, 1.0, 5.0])
    indexing.setitem(x_g, gt.tensor([0, 0, 2]), gt.tensor([1.0, 1.0, 5.0]))
    assert x_g.tolist() == x_t.tolist()


@pytest.mark.parametrize("layout", ["Nm", "NmN", "m", "mN", "NNm", "mNN"])
@pytest.mark.parametrize("value", ["0-dim", "1-element"])
def test_index_put_mask_with_nones(layout, value):
    """aten.index_put_ with a bool mask among None entries: a None after the mask indexes nothing, so the
    masked_fill dispatch must not count it (pytorch/pytorch#158413)."""
    def run(m):
        v = m.arange(8).reshape(1, 2, 2, 2)
        mask = m.tensor([[True, False], [False, True]])
        val = m.tensor(0) if value == "0-dim" else m.tensor([0])
        m.ops.aten.index_put_(v, [mask if c == "m" else None for c in layout], val)
        return v

    assert _outcome(run, gt) == _outcome(run, torch)


def test_entry_point_names():
    assert indexing.advanced_getitem is indexing.getitem
    assert indexing.advanced_setitem is indexing.setitem


# -- index ops on empty and 0-dim tensors, and their first bad index ---------------------------------------------
def _outcome(build, m):
    """``build(m)``'s result (dtype, shape, strides, values) or its error (type and message)."""
    try:
        r = build(m)
    except Exception as e:  # noqa: BLE001 - the error is the result compared
        return type(e).__name__, str(e)
    return repr(r.dtype).removeprefix("torch."), tuple(r.shape), tuple(r.stride()), r.tolist()


L = lambda m, *v: m.tensor(list(v))  # noqa: E731 - an int64 index vector in either library
EMPTY_INDEX_OPS = {
    # gather
    "gather_empty_index": lambda m: m.ones(2, 3).gather(1, m.zeros(2, 0, dtype=m.long)),
    "gather_empty_self": lambda m: m.ones(2, 0).gather(1, m.zeros(2, 0, dtype=m.long)),
    "gather_empty_self_index": lambda m: m.ones(2, 0).gather(1, m.zeros(2, 1, dtype=m.long)),
    "gather_0d": lambda m: m.tensor(5.0).gather(0, m.tensor(0)),
    "gather_0d_bad": lambda m: m.tensor(5.0).gather(0, m.tensor(1)),
    "gather_0d_negative": lambda m: m.tensor(5.0).gather(0, m.tensor(-1)),
    "gather_first_bad": lambda m: m.ones(2, 3).gather(1, m.tensor([[0, 9], [-7, 1]])),
    "gather_first_bad_dim0": lambda m: m.ones(3, 3).gather(0, m.tensor([[0, 1, 2], [5, 0, 0], [0, -9, 0]])),
    "gather_index_too_big": lambda m: m.ones(2, 3).gather(1, m.zeros(3, 3, dtype=m.long)),
    # index_select
    "index_select_empty_index": lambda m: m.ones(2, 3).index_select(1, m.zeros(0, dtype=m.long)),
    "index_select_empty_self": lambda m: m.ones(2, 0).index_select(0, L(m, 1)),
    "index_select_empty_self_bad": lambda m: m.ones(3, 0).index_select(0, L(m, 5)),
    "index_select_empty_self_bad_3d": lambda m: m.ones(3, 0, 2).index_select(0, L(m, 5)),
    "index_select_zero_axis": lambda m: m.ones(0, 3).index_select(0, L(m, 0)),
    "index_select_empty_1d": lambda m: m.ones(0).index_select(0, L(m, 0)),
    "index_select_0d": lambda m: m.tensor(5.0).index_select(0, L(m, 0)),
    "index_select_0d_bad": lambda m: m.tensor(5.0).index_select(0, L(m, 1)),
    "index_select_bad_dim1": lambda m: m.ones(2, 3).index_select(1, L(m, 0, 3)),
    # index_add
    "index_add_empty_index": lambda m: m.ones(2, 3).index_add(1, m.zeros(0, dtype=m.long), m.ones(2, 0)),
    "index_add_empty_self_bad": lambda m: m.ones(0, 3).index_add(0, L(m, 0), m.ones(1, 3)),
    "index_add_empty_self_bad_dim0": lambda m: m.ones(3, 0).index_add(0, L(m, 7), m.ones(1, 0)),
    "index_add_empty_self_inplace": lambda m: m.ones(0, 3).index_add_(0, L(m, 5), m.ones(1, 3)),
    "index_add_empty_1d_bad": lambda m: m.ones(0).index_add(0, L(m, 0), m.ones(1)),
    "index_add_1d_bad": lambda m: m.ones(3).index_add(0, L(m, 3), m.ones(1)),
    "index_add_1d_negative": lambda m: m.ones(3).index_add(0, L(m, -1), m.ones(1)),
    "index_add_2d_negative": lambda m: m.ones(2, 3).index_add(1, L(m, -1), m.ones(2, 1)),
    "index_add_0d": lambda m: m.tensor(5.0).index_add(0, L(m, 0), m.tensor(2.0)),
    "index_add_0d_bad": lambda m: m.tensor(5.0).index_add(0, L(m, 1), m.tensor(2.0)),
    "index_add_0d_negative": lambda m: m.tensor(5.0).index_add(0, L(m, -1), m.tensor(2.0)),
    # index_fill / index_copy
    "index_fill_empty_index": lambda m: m.ones(2, 3).index_fill(1, m.zeros(0, dtype=m.long), 2.0),
    "index_fill_empty_self_bad": lambda m: m.ones(0, 3).index_fill(1, L(m, 5), 2.0),
    "index_fill_empty_self_dim0": lambda m: m.ones(0, 3).index_fill(0, L(m, 5), 2.0),
    "index_fill_empty_1d": lambda m: m.ones(0).index_fill(0, L(m, 5), 2.0),
    "index_fill_empty_cols": lambda m: m.ones(2, 0).index_fill(1, L(m, 5), 1.0),
    "index_fill_empty_cols_dim0": lambda m: m.ones(2, 0).index_fill(0, L(m, 5), 1.0),
    "index_fill_0d_negative": lambda m: m.tensor(1.0).index_fill(0, L(m, -1), 2.0),
    "index_fill_0d_bad": lambda m: m.tensor(1.0).index_fill(0, L(m, 5), 2.0),
    "index_copy_empty_self_bad": lambda m: m.ones(0, 3).index_copy(0, L(m, 5), m.ones(1, 3)),
    "index_copy_empty_self_dim1": lambda m: m.ones(0, 3).index_copy(1, L(m, 5), m.ones(0, 1)),
    "index_copy_bad": lambda m: m.ones(2, 3).index_copy(1, L(m, 5), m.ones(2, 1)),
    # masked_fill
    "masked_fill_empty": lambda m: m.ones(0, 3).masked_fill(m.zeros(0, 3, dtype=m.bool), 2.0),
    "masked_fill_empty_broadcast": lambda m: m.ones(0, 3).masked_fill(m.zeros(3, dtype=m.bool), 2.0),
    "masked_fill_0d": lambda m: m.tensor(5.0).masked_fill(m.tensor(True), 2.0),
    "masked_fill_0d_broadcast": lambda m: m.tensor(5.0).masked_fill(m.tensor([True, False]), 2.0),
    "masked_fill_0d_inplace_broadcast": lambda m: m.tensor(5.0).masked_fill_(m.tensor([True, False]), 2.0),
    "masked_fill_empty_mask": lambda m: m.ones(3).masked_fill(m.zeros(0, dtype=m.bool), 2.0),
    "masked_fill_float_mask": lambda m: m.ones(3).masked_fill(m.ones(3), 2.0),
    "masked_fill_value_dims": lambda m: m.ones(3).masked_fill(m.tensor([True, False, True]), m.tensor([2.0, 3.0])),
}


@pytest.mark.parametrize("case", EMPTY_INDEX_OPS)
def test_index_ops_empty_and_zero_dim(case):
    assert _outcome(EMPTY_INDEX_OPS[case], gt) == _outcome(EMPTY_INDEX_OPS[case], torch)


@pytest.mark.parametrize("mask, value_shape", [([True, False, False], (1,)), ([True, False, False], (1, 1, 1)),
                                               ([True, True, False], (2,))])
def test_setitem_value_with_leading_ones_gets_its_gradient(mask, value_shape):
    """``y[mask] = value``: a value whose leading 1s setitem drops is viewed through a recorded view (torch's
    ViewBackward0), so its gradient arrives; a raw view used to cut it off."""
    got = []
    for lib in (torch, gt):
        x = lib.ones(3, requires_grad=True)
        y = x + 2
        value = lib.full(value_shape, 7.0, requires_grad=True)
        y[lib.tensor(mask)] = value
        y.backward(lib.ones(3))
        got.append((x.grad, value.grad, y.grad_fn.next_functions[1][0].name()))
    assert_same(got[1][0], got[0][0])
    assert_same(got[1][1], got[0][1])
    assert got[1][2] == got[0][2]
