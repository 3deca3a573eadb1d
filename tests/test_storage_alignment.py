"""CPU storage alignment (Note [CPU alignment] in glasstorch/_device/allocator.py) against torch 2.13.

PyTorch's CPU allocator starts every buffer on a 64-byte boundary; glasstorch does so for buffers of at least
``ALIGN_MIN_BYTES`` (smaller ones skip the address lookup, which would cost a small op's call measurably).
Checked: new tensors, kernel outputs and storages of several dtypes and sizes start on a cache line as torch's
do; the recorded address is numpy's own; views keep their byte offsets; ``resize_`` keeps contents; pickling
and save/load round-trip; ``from_numpy`` keeps the user's (possibly unaligned) address and shares memory;
zero-byte storages report address 0.
"""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch._device.allocator import ALIGN_MIN_BYTES, ALIGNMENT, CPUAllocator, aligned_empty
from glasstorch._tensor.storage import UntypedStorage

DTYPES = ["bool", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64"]
BIG = ALIGN_MIN_BYTES  # elements: at least ALIGN_MIN_BYTES bytes whatever the dtype


def _addr(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


def _both(make):
    return make(gt), make(torch)


# -- the allocator ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("nbytes", [0, 1, 63, 64, 65, 4096, ALIGN_MIN_BYTES, 3 * ALIGN_MIN_BYTES + 17])
def test_aligned_empty(nbytes):
    buf, ptr = aligned_empty(nbytes)
    assert buf.dtype == np.uint8 and buf.shape == (nbytes,) and buf.flags.writeable and buf.flags.c_contiguous
    assert ptr % ALIGNMENT == 0
    if nbytes:
        assert ptr == _addr(buf)
        buf[:] = 7  # the whole span is ours to write
        assert int(buf.sum()) == 7 * nbytes


def test_cpu_allocator_sizes_and_independence():
    alloc = CPUAllocator()
    small, big, big2 = alloc.allocate(5), alloc.allocate(ALIGN_MIN_BYTES), alloc.allocate(ALIGN_MIN_BYTES + 1)
    assert (small.size, big.size, big2.size) == (5, ALIGN_MIN_BYTES, ALIGN_MIN_BYTES + 1)
    assert _addr(big) % ALIGNMENT == 0 and _addr(big2) % ALIGNMENT == 0
    big[:] = 1
    big2[:] = 2
    assert int(big.max()) == 1 and int(big2.min()) == 2  # no overlap between the two buffers


# -- new tensors and storages --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("numel", [BIG, BIG + 3, 1_000_000])
def test_new_tensors_start_on_a_cache_line(dtype, numel):
    for make in (lambda lib: lib.empty(numel, dtype=getattr(lib, dtype)),
                 lambda lib: lib.zeros(numel, dtype=getattr(lib, dtype)),
                 lambda lib: lib.ones(numel, dtype=getattr(lib, dtype)).clone()):
        g, t = _both(make)
        assert t.data_ptr() % ALIGNMENT == 0  # the oracle's own allocator
        assert g.data_ptr() % ALIGNMENT == 0
        assert g.untyped_storage().nbytes() == t.untyped_storage().nbytes()
        assert g.data_ptr() == g.untyped_storage().data_ptr() == _addr(g.untyped_storage().bytes_view())


@pytest.mark.parametrize("op", ["add", "mul", "exp", "gelu", "to_double", "contiguous", "cat", "sum_dim"])
def test_kernel_outputs_start_on_a_cache_line(op):
    def make(lib):
        a = lib.linspace(-2.0, 2.0, 1 << 18)
        b = lib.linspace(1.0, 3.0, 1 << 18)
        return {"add": lambda: a + b, "mul": lambda: lib.mul(a, b), "exp": lambda: a.exp(),
                "gelu": lambda: lib.nn.functional.gelu(a), "to_double": lambda: a.to(lib.float64),
                "contiguous": lambda: a.view(512, 512).t().contiguous(), "cat": lambda: lib.cat([a, b]),
                "sum_dim": lambda: a.view(512, 512).repeat(2, 1).sum(0).repeat(300)}[op]()
    g, t = _both(make)
    assert t.data_ptr() % ALIGNMENT == 0 and g.data_ptr() % ALIGNMENT == 0
    np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-5, atol=1e-4)  # sum: float32 order
    assert _addr(g.numpy()) == g.data_ptr()


@pytest.mark.parametrize("nbytes", [ALIGN_MIN_BYTES, ALIGN_MIN_BYTES + 1, 5_000_001])
def test_untyped_storage_and_byte_sequence(nbytes):
    s, ts = gt.UntypedStorage(nbytes), torch.UntypedStorage(nbytes)
    assert s.nbytes() == ts.nbytes() == nbytes
    assert s.data_ptr() % ALIGNMENT == 0 and ts.data_ptr() % ALIGNMENT == 0
    data = (np.arange(nbytes) % 251).astype(np.uint8)
    s2 = gt.UntypedStorage(data.tolist() if nbytes < 100_000 else data)
    assert s2.nbytes() == nbytes and s2.data_ptr() % ALIGNMENT == 0
    np.testing.assert_array_equal(s2.bytes_view(), data)


@pytest.mark.parametrize("numel", [1, 7, 100, 1000])
def test_small_tensors_record_numpys_address(numel):
    """Below ALIGN_MIN_BYTES no alignment is promised, but the address is the buffer's and writes are shared."""
    g = gt.arange(float(numel)) * 2
    arr = g.numpy()
    assert g.data_ptr() == g.untyped_storage().data_ptr() == _addr(arr)
    arr[0] = 42.0
    assert g[0].item() == 42.0


def test_zero_byte_storages():
    for g, t in (_both(lambda lib: lib.empty(0)), _both(lambda lib: lib.empty(0, 5, dtype=lib.float64)),
                 _both(lambda lib: lib.ones(BIG)[:0].clone()), _both(lambda lib: lib.ones(BIG)[:0] + 1)):
        assert g.data_ptr() == t.data_ptr() == 0
        assert g.untyped_storage().nbytes() == t.untyped_storage().nbytes() == 0
    assert gt.UntypedStorage(0).data_ptr() == torch.UntypedStorage(0).data_ptr() == 0
    s = UntypedStorage._allocate(0, gt.device("cpu"))
    assert s.nbytes() == 0 and s.data_ptr() == 0 and s.bytes_view().size == 0


# -- views, storages, numpy ---------------------------------------------------------------------------------------
def test_views_keep_their_byte_offsets():
    def views(lib):
        x = lib.arange(float(BIG)).view(-1, 64)
        return x, [x[3:], x[:, 5:], x.t(), x.view(-1)[17:], x[1::2, 1]]

    (gx, gvs), (tx, tvs) = _both(views)
    assert gx.data_ptr() % ALIGNMENT == 0
    for gv, tv in zip(gvs, tvs, strict=True):
        assert gv.data_ptr() - gx.data_ptr() == tv.data_ptr() - tx.data_ptr()
        assert gv.storage_offset() == tv.storage_offset()
        assert gv.untyped_storage().data_ptr() == gx.data_ptr()
        assert _addr(gv.numpy()) == gv.data_ptr()
        np.testing.assert_array_equal(gv.numpy(), tv.numpy())
    gvs[0][0, 0] = -1.0  # a write through a view lands in the base
    assert gx[3, 0].item() == -1.0


def test_storage_slices_keep_offsets():
    g = gt.arange(float(BIG))
    s = g.untyped_storage()
    piece = s[8:40]
    assert piece.nbytes() == 32 and piece.data_ptr() == s.data_ptr() + 8
    np.testing.assert_array_equal(piece.bytes_view(), s.bytes_view()[8:40])


# -- resize_ -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("start,new", [(10, BIG), (BIG, 2 * BIG), (2 * BIG, BIG + 5), (BIG, 10)])
def test_tensor_resize_keeps_contents(start, new):
    def make(lib):
        x = lib.arange(float(start))
        return x, x.resize_(new)

    (gx, g), (tx, t) = _both(make)
    assert g is gx and tuple(g.shape) == tuple(t.shape) == (new,)
    keep = min(start, new)
    np.testing.assert_array_equal(g.numpy()[:keep], t.numpy()[:keep])
    np.testing.assert_array_equal(g.numpy()[:keep], np.arange(keep, dtype=np.float32))
    assert _addr(g.numpy()) == g.data_ptr()
    if g.untyped_storage().nbytes() >= ALIGN_MIN_BYTES:
        assert g.data_ptr() % ALIGNMENT == 0


def test_storage_resize_keeps_prefix_and_refreshes_address():
    s = gt.arange(float(BIG)).untyped_storage()
    before = s.bytes_view().copy()
    s.resize_(3 * s.nbytes() + 8)
    assert s.nbytes() == 3 * before.size + 8
    assert s.data_ptr() == _addr(s.bytes_view()) and s.data_ptr() % ALIGNMENT == 0
    np.testing.assert_array_equal(s.bytes_view()[:before.size], before)
    s.resize_(0)
    assert s.nbytes() == 0 and s.data_ptr() == 0


# -- serialization -------------------------------------------------------------------------------------------------
def test_pickle_round_trip_is_aligned():
    x = gt.linspace(-1.0, 1.0, BIG)
    y, xv = pickle.loads(pickle.dumps((x, x[5:])))  # plain pickling copies each storage (torch too)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert y.data_ptr() % ALIGNMENT == 0 and y.data_ptr() == _addr(y.numpy())
    assert xv.storage_offset() == 5 and xv.untyped_storage().data_ptr() % ALIGNMENT == 0
    assert xv.data_ptr() == xv.untyped_storage().data_ptr() + 5 * 4 == _addr(xv.numpy())
    np.testing.assert_array_equal(xv.numpy(), x.numpy()[5:])
    s = pickle.loads(pickle.dumps(gt.UntypedStorage([1, 2, 3])))
    assert s.tolist() == [1, 2, 3]


def test_save_load_round_trip_both_ways():
    g = {"w": gt.linspace(-1.0, 1.0, BIG).view(-1, 16), "b": gt.arange(10.0)}
    g["v"] = g["w"][2:]
    buf = io.BytesIO()
    gt.save(g, buf)
    buf.seek(0)
    back = gt.load(buf)
    buf.seek(0)
    oracle = torch.load(buf)
    for k in g:
        np.testing.assert_array_equal(back[k].numpy(), g[k].numpy())
        np.testing.assert_array_equal(oracle[k].numpy(), g[k].numpy())
        assert _addr(back[k].numpy()) == back[k].data_ptr()
    assert back["v"].untyped_storage().data_ptr() == back["w"].data_ptr()  # sharing kept
    assert back["w"].data_ptr() % 64 == 0  # a loaded big storage is aligned as a new one


# -- from_numpy: the user's memory, as it is -----------------------------------------------------------------------
@pytest.mark.parametrize("skip", [0, 1, 3])
def test_from_numpy_keeps_the_users_address(skip):
    arr = np.arange(BIG + skip, dtype=np.float32)[skip:]  # skip > 0: deliberately off a cache line
    g, t = gt.from_numpy(arr), torch.from_numpy(arr)
    assert g.data_ptr() == t.data_ptr() == _addr(arr)
    assert g.untyped_storage().data_ptr() == _addr(arr)
    assert _addr(g.numpy()) == _addr(arr)
    g[0] = -5.0
    assert arr[0] == -5.0 and t[0].item() == -5.0
    out = g + 1  # a kernel output over it is the allocator's again
    assert out.data_ptr() % ALIGNMENT == 0
