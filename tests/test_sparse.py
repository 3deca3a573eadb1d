"""Sparse layouts against torch: constructors, the parts of COO and compressed tensors, layout conversions,
sparse arithmetic (add, mul, sum, mm, transpose), tensor attributes and repr."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error, both

pytestmark = pytest.mark.filterwarnings("ignore:Sparse (CSR tensor support|invariant checks)")

_PARTS = {"torch.sparse_coo": ("_indices", "_values"), "torch.sparse_csr": ("crow_indices", "col_indices", "values"),
          "torch.sparse_csc": ("ccol_indices", "row_indices", "values"),
          "torch.sparse_bsr": ("crow_indices", "col_indices", "values"),
          "torch.sparse_bsc": ("ccol_indices", "row_indices", "values")}


def assert_same_sparse(g, t):
    """Same layout, shape, dtype, nnz, parts (exactly, in order), coalesced flag and repr."""
    assert str(g.layout) == str(t.layout)
    assert tuple(g.shape) == tuple(t.shape)
    assert repr(g.dtype) == repr(t.dtype)
    assert g._nnz() == t._nnz()
    for name in _PARTS[str(t.layout)]:
        assert_same(getattr(g, name)().contiguous(), getattr(t, name)().contiguous(), check_strides=False, msg=name)
    if t.layout == torch.sparse_coo:
        assert g.is_coalesced() == t.is_coalesced()
    assert repr(g) == repr(t)


def _dense(m):
    return m.tensor([[0.0, 2.0, 0.0, 1.5], [3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 4.0, 5.0, 0.0]],
                    dtype=m.float64)


def _uncoalesced(m):
    return m.sparse_coo_tensor(m.tensor([[1, 0, 1]]), m.tensor([1.0, 2.0, 3.0]), (3,))


# -- constructors ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("build", [
    lambda m: m.sparse_coo_tensor(m.tensor([[1, 1]]), m.tensor([1.0, 1.0])),
    lambda m: m.sparse_coo_tensor([[0, 2], [1, 0]], [3.0, 4.0], (3, 2)),
    lambda m: m.sparse_coo_tensor([[0, 1]], m.ones(2, 3), dtype=m.float64),
    lambda m: m.sparse_coo_tensor(m.zeros([1, 1]), m.ones([1])),
    lambda m: m.sparse_coo_tensor(m.zeros(1, 0).long(), m.ones(0)),
    lambda m: m.sparse_coo_tensor(m.tensor([[1]]), [2], (3,)),
    lambda m: m.sparse_coo_tensor(m.tensor([[1, 0]]), m.ones(2), (3,), is_coalesced=True),
    lambda m: m.sparse_csr_tensor([0, 1, 2], [0, 1], [1.0, 2.0]),
    lambda m: m.sparse_csr_tensor([0, 1, 2], [0, 1], [1.0, 2.0], (2, 3)),
    lambda m: m.sparse_compressed_tensor([0, 1, 2], [0, 1], [1.0, 2.0], (2, 3), layout=m.sparse_csc),
], ids=["inferred", "sized", "dense_dims", "float_indices", "empty", "int_values", "is_coalesced", "csr", "csr_sized",
        "csc"])
def test_constructors(build):
    g, t = both(build)
    assert_same_sparse(g, t)


@pytest.mark.parametrize("build", [
    lambda m: m.sparse_coo_tensor(m.tensor([1]), m.ones(1)),
    lambda m: m.sparse_coo_tensor(m.tensor([[1]]), m.ones(2)),
    lambda m: m.sparse_coo_tensor(m.tensor([[1]]), m.ones(1), (3, 2)),
    lambda m: m.sparse_coo_tensor(m.tensor([[1]]), m.ones(1), (1,), check_invariants=True),
    lambda m: m.sparse_coo_tensor(m.tensor([[-1]]), m.ones(1), (3,), check_invariants=True),
], ids=["indices_1d", "nnz", "len_size", "too_small", "negative"])
def test_constructor_errors(build):
    assert_same_error(lambda: build(gt), lambda: build(torch))


def test_constructor_aliases_values_and_records_grad():
    g_v, t_v = both(lambda m: m.tensor([1.0, 2.0], requires_grad=True))
    g, t = (m.sparse_coo_tensor([[0, 2]], v, (3,)) for m, v in ((gt, g_v), (torch, t_v)))
    assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__
    assert g.is_leaf == t.is_leaf
    g2, t2 = (m.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (3,), requires_grad=True) for m in (gt, torch))
    assert g2.is_leaf and t2.is_leaf and g2.requires_grad == t2.requires_grad
    assert repr(g2) == repr(t2)


# -- the parts of a COO tensor -----------------------------------------------------------------------------------------
def test_coalesce_and_parts():
    g, t = both(_uncoalesced)
    assert_same_sparse(g, t)
    assert_same_sparse(g.coalesce(), t.coalesce())
    gc = g.coalesce()
    assert gc.coalesce() is gc
    assert_same(gc.indices(), t.coalesce().indices(), check_strides=False)  # torch narrows a larger buffer
    assert_same(gc.values(), t.coalesce().values(), check_strides=False)
    assert (g.sparse_dim(), g.dense_dim()) == (t.sparse_dim(), t.dense_dim())
    assert gt.ones(3).sparse_dim() == torch.ones(3).sparse_dim() == 0


@pytest.mark.parametrize("call", [lambda x: x.indices(), lambda x: x.values(), lambda x: x.to_dense().coalesce(),
                                  lambda x: x.to_dense().is_coalesced()],
                         ids=["indices", "values", "dense_coalesce", "dense_is_coalesced"])
def test_part_errors(call):
    assert_same_error(lambda: call(_uncoalesced(gt)), lambda: call(_uncoalesced(torch)))


def test_dense_dims_coalesce():
    def build(m):
        return m.sparse_coo_tensor([[1, 0, 1]], m.arange(6.0).reshape(3, 2), (2, 2)).coalesce()
    assert_same_sparse(*both(build))


# -- layout conversions ------------------------------------------------------------------------------------------------
_CONVERSIONS = (("to_dense", ()), ("to_sparse", ()), ("to_sparse_csr", ()), ("to_sparse_csc", ()),
                ("to_sparse_bsr", ((2, 2),)), ("to_sparse_bsc", ((2, 2),)))


@pytest.mark.parametrize("first", _CONVERSIONS, ids=[c[0] for c in _CONVERSIONS])
@pytest.mark.parametrize("second", _CONVERSIONS, ids=[c[0] for c in _CONVERSIONS])
def test_conversions(first, second):
    def build(m):
        x = getattr(_dense(m), first[0])(*first[1])
        return getattr(x, second[0])(*second[1])
    try:
        t = build(torch)
    except RuntimeError:
        assert_same_error(lambda: build(gt), lambda: build(torch))
        return
    g = build(gt)
    if t.layout == torch.strided:
        assert_same(g, t)
    else:
        assert_same_sparse(g, t)


def test_to_sparse_sparse_dim_and_specified_zeros():
    def build(m):
        return m.ones(2, 3).to_sparse(1)
    assert_same_sparse(*both(build))

    def pattern(m):  # a specified zero survives COO -> CSR
        coo = m.sparse_coo_tensor([[0, 0, 1], [0, 1, 1]], [0.0, 1.0, 2.0], (2, 2))
        return coo.to_sparse_csr()
    assert_same_sparse(*both(pattern))


def test_to_sparse_errors():
    assert_same_error(lambda: gt.ones(2, 3).to_sparse(3), lambda: torch.ones(2, 3).to_sparse(3))
    assert_same_error(lambda: _uncoalesced(gt).to_sparse_csr(), lambda: _uncoalesced(torch).to_sparse_csr())


# -- arithmetic --------------------------------------------------------------------------------------------------------
def test_add():
    def coalesced(m):
        x = _uncoalesced(m).coalesce()
        y = m.sparse_coo_tensor(m.tensor([[2, 1]]), m.tensor([5.0, 7.0]), (3,)).coalesce()
        return x + y
    assert_same_sparse(*both(coalesced))

    def concatenated(m):
        return _uncoalesced(m) + m.sparse_coo_tensor(m.tensor([[2, 1]]), m.tensor([5.0, 7.0]), (3,))
    assert_same_sparse(*both(concatenated))
    assert_same(*both(lambda m: m.ones(3) + _uncoalesced(m)))
    assert_same(*both(lambda m: m.ones(3).add_(_uncoalesced(m), alpha=2)))
    assert_same_error(lambda: _uncoalesced(gt) + gt.ones(3), lambda: _uncoalesced(torch) + torch.ones(3))
    assert_same_error(lambda: _uncoalesced(gt) + gt.ones(4).to_sparse(),
                      lambda: _uncoalesced(torch) + torch.ones(4).to_sparse())
    assert_same_error(lambda: gt.ones(3) + gt.ones(4).to_sparse(), lambda: torch.ones(3) + torch.ones(4).to_sparse())
    assert_same_error(lambda: gt.ones(3) * gt.ones(4).to_sparse(), lambda: torch.ones(3) * torch.ones(4).to_sparse())
    assert_same_error(lambda: gt.ones(4).to_sparse() * gt.ones(3).to_sparse(),
                      lambda: torch.ones(4).to_sparse() * torch.ones(3).to_sparse())


def test_mul():
    assert_same_sparse(*both(lambda m: _uncoalesced(m) * 2))
    assert_same_sparse(*both(lambda m: 2 * _uncoalesced(m)))
    assert_same_sparse(*both(lambda m: _uncoalesced(m) * m.tensor(2.0)))
    assert_same_sparse(*both(lambda m: _uncoalesced(m) * m.tensor([2.0, 3.0, 4.0])))

    def sparse_sparse(m):
        x = _uncoalesced(m).coalesce()
        return x * m.sparse_coo_tensor(m.tensor([[2, 1]]), m.tensor([5.0, 7.0]), (3,)).coalesce()
    assert_same_sparse(*both(sparse_sparse))


def test_sum_and_inplace():
    assert_same(*both(lambda m: _uncoalesced(m).sum()))
    assert_same(*both(lambda m: m.tensor([1, 2]).to_sparse().sum()))
    assert_same(*both(lambda m: _dense(m).to_sparse_csr().sum()))

    def inplace(m):
        x = _uncoalesced(m).coalesce()
        x.mul_(2)
        x.add_(m.sparse_coo_tensor([[2]], [1.0], (3,)))
        return x
    assert_same_sparse(*both(inplace))


@pytest.mark.parametrize("a_sparse,b_sparse", [(True, False), (False, True), (True, True)])
def test_mm(a_sparse, b_sparse):
    def build(m):
        a, b = _dense(m), _dense(m).t().contiguous()
        return (a.to_sparse() if a_sparse else a).mm(b.to_sparse() if b_sparse else b)
    g, t = both(build)
    if t.layout == torch.strided:
        assert_same(g, t)
    else:
        assert_same_sparse(g, t)


def test_mm_compressed():
    assert_same(*both(lambda m: m.ones(2, 4, dtype=m.float64).mm(_dense(m).to_sparse_csr())))
    assert_same(*both(lambda m: _dense(m).to_sparse_csc().mm(m.ones(4, 2, dtype=m.float64))))


def test_transpose():
    assert_same_sparse(*both(lambda m: _dense(m).to_sparse().t()))
    assert_same_sparse(*both(lambda m: _dense(m).to_sparse_csr().t()))
    assert_same_sparse(*both(lambda m: _dense(m).to_sparse_bsr((2, 2)).t()))
    assert_same_sparse(*both(lambda m: m.ones(2, 3).to_sparse(1).transpose(0, 0)))
    assert_same_error(lambda: gt.ones(2, 3).to_sparse(1).t(), lambda: torch.ones(2, 3).to_sparse(1).t())


def test_sparse_mask():
    assert_same_sparse(*both(lambda m: m.arange(3.0).sparse_mask(_uncoalesced(m))))
    assert_same_sparse(*both(lambda m: m.arange(3.0).sparse_mask(_uncoalesced(m).coalesce())))


def test_clone_and_copy():
    assert_same_sparse(*both(lambda m: _uncoalesced(m).clone()))

    def copy(m):
        x = _uncoalesced(m)
        return x.copy_(m.sparse_coo_tensor(m.tensor([[2, 1]]), m.tensor([5.0, 7.0]), (3,)))
    assert_same_sparse(*both(copy))


# -- tensor attributes -------------------------------------------------------------------------------------------------
def test_attributes():
    for build in (_uncoalesced, lambda m: _dense(m).to_sparse_csr()):
        g, t = both(build)
        assert str(g.layout) == str(t.layout)
        assert (g.is_sparse, g.is_sparse_csr) == (t.is_sparse, t.is_sparse_csr)
        assert g.detach().layout == g.layout and g.cpu() is g
    assert_same_error(lambda: _dense(gt).to_sparse_csr().stride(), lambda: _dense(torch).to_sparse_csr().stride())
    assert _uncoalesced(gt).stride() == _uncoalesced(torch).stride()
    assert _uncoalesced(gt).is_contiguous() == _uncoalesced(torch).is_contiguous()
    assert_same_error(lambda: _dense(gt).to_sparse_csr().is_contiguous(),
                      lambda: _dense(torch).to_sparse_csr().is_contiguous())
    assert_same_error(lambda: _uncoalesced(gt).data_ptr(), lambda: _uncoalesced(torch).data_ptr())
    assert_same_error(lambda: _uncoalesced(gt).numpy(), lambda: _uncoalesced(torch).numpy())
    assert_same_error(lambda: _uncoalesced(gt).untyped_storage(), lambda: _uncoalesced(torch).untyped_storage())


def test_set_data_between_layouts():
    def build(m):
        x = m.randn(1, 2)
        x.data = m.sparse_coo_tensor(m.zeros([1, 1]), m.ones([1]))
    assert_same_error(lambda: build(gt), lambda: build(torch))


def test_unsupported_op_names_the_sparse_backend():
    with pytest.raises(NotImplementedError, match="Could not run 'aten::exp' with arguments from the 'SparseCPU' "
                                                  "backend"):
        _uncoalesced(gt).exp()
    with pytest.raises(NotImplementedError, match="'SparseCsrCPU' backend"):
        _dense(gt).to_sparse_csr().exp()


def test_repr_layouts():
    for conv, args in _CONVERSIONS[1:]:
        g, t = both(lambda m, conv=conv, args=args: getattr(_dense(m), conv)(*args).requires_grad_())
        assert repr(g) == repr(t)
    g, t = both(lambda m: m.sparse_coo_tensor(m.zeros(2, 0).long(), m.ones(0, 3), (2, 2, 3), dtype=m.float16))
    assert repr(g) == repr(t)
    assert np.array_equal(g.to_dense().float().numpy(), t.to_dense().float().numpy())


# -- serialization: the checkpoints interchange with torch ----------------------------------------------------------
_SAVED = [lambda m: m.sparse_coo_tensor([[1, 0, 1]], [1.0, 2.0, 3.0], (3,)),
          lambda m: _dense(m).to_sparse().coalesce(), lambda m: _dense(m).to_sparse_csr(),
          lambda m: _dense(m).to_sparse_csc(), lambda m: _dense(m).to_sparse_bsr((2, 2)),
          lambda m: _dense(m).to_sparse_bsc((2, 2))]


@pytest.mark.parametrize("build", _SAVED, ids=["coo", "coalesced", "csr", "csc", "bsr", "bsc"])
@pytest.mark.parametrize("weights_only", [True, False])
def test_save_load_interchange(build, weights_only):
    buf = io.BytesIO()
    gt.save({"x": build(gt)}, buf)
    buf.seek(0)
    assert_same_sparse(build(gt), torch.load(buf, weights_only=weights_only)["x"])
    buf = io.BytesIO()
    torch.save({"x": build(torch)}, buf)
    buf.seek(0)
    assert_same_sparse(gt.load(buf, weights_only=weights_only)["x"], build(torch))


def test_save_sparse_parameter():
    buf = io.BytesIO()
    gt.save(gt.nn.Parameter(_dense(gt).to_sparse()), buf)
    buf.seek(0)
    loaded = torch.load(buf)
    assert isinstance(loaded, torch.nn.Parameter) and loaded.requires_grad
    assert_same_sparse(gt.nn.Parameter(_dense(gt).to_sparse()), loaded)


def test_skip_data_saves_zeroed_parts():
    def run(m):
        sd = {"st": m.sparse_coo_tensor(m.tensor([[0, 1, 1], [2, 0, 2]]), m.tensor([3.0, 4.0, 5.0]), (2, 4))}
        buf = io.BytesIO()
        with m.serialization.skip_data():
            m.save(sd, buf)
        buf.seek(0)
        return m.load(buf, weights_only=True)["st"]
    assert_same_sparse(run(gt), run(torch))
