"""``Tensor.resize_`` / ``resize_as_`` against torch: sizes, strides, the preserved storage prefix, storage growth,
version counters, memory formats, meta tensors and errors (glasstorch/_ops/kernels/cpu/resize.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glasstorch as gt


def _pair(make):
    """The same tensor (values 0..n-1 laid out by ``make``) in both libraries."""
    return make(gt), make(torch)


def _geometry(t):
    return tuple(t.shape), t.stride(), t.storage_offset(), t.untyped_storage().nbytes(), t._version


def _prefix(t, n):
    """The first ``n`` elements of the storage from the tensor's offset (the bytes kept from before)."""
    return np.asarray(t.as_strided((n,), (1,), t.storage_offset()).tolist())


CASES = [
    ("shrink", lambda lib: lib.arange(12.0).reshape(3, 4), (2, 5)),
    ("same numel", lambda lib: lib.arange(12.0).reshape(3, 4), (4, 3)),
    ("grow", lambda lib: lib.arange(6.0).reshape(2, 3), (3, 3)),
    ("transposed", lambda lib: lib.arange(12.0).reshape(3, 4).t(), (2, 5)),
    ("offset view", lambda lib: lib.arange(10.0)[2:5], (4,)),
    ("offset grows storage", lambda lib: lib.arange(10.0)[2:5], (20,)),
    ("to empty", lambda lib: lib.arange(6.0).reshape(2, 3), (0,)),
    ("zero dim", lambda lib: lib.arange(6.0), (2, 0)),
    ("scalar", lambda lib: lib.arange(6.0), ()),
    ("int64", lambda lib: lib.arange(12).reshape(3, 4), (2, 2)),
]


@pytest.mark.parametrize("name,make,size", CASES, ids=[c[0] for c in CASES])
def test_resize_matches_torch(name, make, size):
    g, t = _pair(make)
    n_old = g.numel()
    rg, rt = g.resize_(size), t.resize_(size)
    assert rg is g and rt is t
    assert _geometry(g) == _geometry(t)
    keep = min(n_old, g.numel())  # elements past the old storage are uninitialised in both
    np.testing.assert_array_equal(_prefix(g, keep), _prefix(t, keep))


def test_resize_accepts_a_size_sequence():
    g, t = _pair(lambda lib: lib.arange(6.0))
    g.resize_((2, 3))
    t.resize_(torch.Size([2, 3]))
    assert _geometry(g) == _geometry(t)
    g.resize_([3, 2])
    t.resize_([3, 2])
    assert _geometry(g) == _geometry(t)


def test_equal_sizes_are_a_no_op():
    g, t = _pair(lambda lib: lib.zeros(3, 2).t())
    g.resize_(2, 3)
    t.resize_(2, 3)
    assert _geometry(g) == _geometry(t)  # non-contiguous strides kept, version not bumped
    assert g._version == 0


def test_views_see_the_grown_storage():
    g, t = _pair(lambda lib: lib.arange(6.0).reshape(2, 3))
    vg, vt = g.view(6), t.view(6)
    vg.resize_(10)
    vt.resize_(10)
    assert g.untyped_storage().nbytes() == t.untyped_storage().nbytes() == 40
    assert g._version == t._version == 1
    vg[:6].mul_(2)
    vt[:6].mul_(2)
    assert g.tolist() == t.tolist()


@pytest.mark.parametrize("fmt,size", [("channels_last", (2, 3, 4, 1)), ("channels_last", (1, 2, 3, 4)),
                                      ("channels_last_3d", (1, 2, 3, 2, 2)), ("contiguous_format", (4, 6))])
def test_memory_format(fmt, size):
    g, t = _pair(lambda lib: lib.arange(24.0).reshape(2, 3, 4))
    g.resize_(*size, memory_format=getattr(gt, fmt))
    t.resize_(*size, memory_format=getattr(torch, fmt))
    assert _geometry(g) == _geometry(t)
    assert g.tolist() == t.tolist()


def test_same_size_restride_does_not_bump_version():
    g, t = _pair(lambda lib: lib.zeros(2, 3, 4, 5))
    g.resize_(2, 3, 4, 5, memory_format=gt.channels_last)
    t.resize_(2, 3, 4, 5, memory_format=torch.channels_last)
    assert _geometry(g) == _geometry(t)


@pytest.mark.parametrize("fmt", [None, "contiguous_format", "preserve_format"])
@pytest.mark.parametrize("template", ["channels_last 4d", "transposed 2d", "bigger"])
def test_resize_as(template, fmt):
    def make_template(lib):
        if template == "channels_last 4d":
            return lib.zeros(2, 3, 4, 6).to(memory_format=lib.channels_last)
        if template == "transposed 2d":
            return lib.zeros(5, 4).t()
        return lib.zeros(7, 9)
    g, t = _pair(lambda lib: lib.arange(120.0).reshape(2, 3, 4, 5))
    kw_g = {} if fmt is None else {"memory_format": getattr(gt, fmt)}
    kw_t = {} if fmt is None else {"memory_format": getattr(torch, fmt)}
    assert g.resize_as_(make_template(gt), **kw_g) is g
    t.resize_as_(make_template(torch), **kw_t)
    assert _geometry(g) == _geometry(t)
    keep = min(120, g.numel())
    np.testing.assert_array_equal(_prefix(g, keep), _prefix(t, keep))


def test_resize_as_function_form():
    g = gt.zeros(2)
    assert gt.resize_as_(g, gt.zeros(4, 2)) is g
    assert tuple(g.shape) == (4, 2)


def test_meta_tensor_counts_bytes():
    g, t = _pair(lambda lib: lib.zeros(2, device="meta"))
    g.resize_(5)
    t.resize_(5)
    assert tuple(g.shape) == (5,) and g.untyped_storage().nbytes() == t.untyped_storage().nbytes() == 20


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e)
    return None


ERRORS = [
    ("negative size", lambda lib: lib.zeros(3).resize_(-1)),
    ("negative size with others", lambda lib: lib.zeros(3).resize_(2, -1)),
    ("requires grad", lambda lib: lib.zeros(3, requires_grad=True).resize_(4)),
    ("requires grad, same size", lambda lib: lib.zeros(3, requires_grad=True).resize_(3)),
    ("requires grad, no_grad mode", lambda lib: _in_no_grad(lib, lambda: lib.zeros(3, requires_grad=True).resize_(4))),
    ("non-leaf requiring grad", lambda lib: (lib.zeros(3, requires_grad=True) * 2).resize_(4)),
    ("resize_as_ requires grad", lambda lib: lib.zeros(2, requires_grad=True).resize_as_(lib.zeros(3))),
    ("preserve_format", lambda lib: lib.zeros(2).resize_(2, 3, memory_format=lib.preserve_format)),
    ("channels_last rank", lambda lib: lib.zeros(2).resize_(2, 3, memory_format=lib.channels_last)),
    ("channels_last_3d rank", lambda lib: lib.zeros(2).resize_(2, memory_format=lib.channels_last_3d)),
    ("resize_as_ channels_last rank",
     lambda lib: lib.zeros(2).resize_as_(lib.zeros(3), memory_format=lib.channels_last)),
    ("numpy storage grows", lambda lib: lib.from_numpy(np.zeros(3, np.float32)).resize_(10)),
    ("numpy storage through a view", lambda lib: lib.from_numpy(np.zeros(3, np.float32)).view(3, 1).resize_(10)),
    ("float size", lambda lib: lib.zeros(2).resize_(2.5)),
    ("numel overflow", lambda lib: lib.zeros(3).resize_(2**62, 2**62)),
    ("storage bytes overflow", lambda lib: lib.zeros(3).resize_(2**62)),
    ("storage bytes overflow, float64", lambda lib: lib.zeros(3, dtype=lib.float64).resize_(2**60, 1)),
    ("storage bytes overflow with the offset", lambda lib: lib.zeros(3)[1:].resize_(2**61 - 1)),
    ("resize_as_ storage bytes overflow", lambda lib: lib.zeros(3).resize_as_(lib.zeros(2**31, 2**31, device="meta"))),
]


def _in_no_grad(lib, fn):
    with lib.no_grad():
        return fn()


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, fn):
    want = _error(lambda: fn(torch))
    got = _error(lambda: fn(gt))
    assert want is not None
    assert got == want


def test_meta_resize_has_no_byte_limit():
    got, want = gt.zeros(3, device="meta").resize_(2**62), torch.zeros(3, device="meta").resize_(2**62)
    assert (tuple(got.shape), got.stride()) == (tuple(want.shape), want.stride())


def test_numpy_storage_may_shrink_and_reshape():
    a = np.arange(6, dtype=np.float32)
    g = gt.from_numpy(a)
    g.resize_(2)
    assert g.tolist() == [0.0, 1.0]
    g.resize_(3, 2)
    assert g.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    g[0, 0] = 7
    assert a[0] == 7  # still numpy's memory


def test_zero_dim_negative_size_is_accepted_as_torch_does():
    g, t = _pair(lambda lib: lib.zeros(3))
    g.resize_(0, -1)
    t.resize_(0, -1)
    assert tuple(g.shape) == tuple(t.shape) == (0, -1)
