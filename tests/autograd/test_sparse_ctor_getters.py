"""Sparse COO constructors and getters under autograd, against torch: values flowing through
``sparse_coo_tensor`` -> add -> ``coalesce`` -> ``values()``/``indices()`` -> ``sparse_coo_tensor`` get torch's
gradients (uncoalesced and empty operands, empty dense dims included), ``_values()`` has no history, and the
pytorch_tests adapter carries a torch sparse tensor over as the same indices and values (its coalesced flag kept)."""

import itertools

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same_error
from tools.pytorch_tests.adapters.convert import to_glass, to_torch

CASES = list(itertools.product([True, False], repeat=3))


def _operands(empty_i, empty_v, empty_nnz, dtype):
    sparse_size = [] if empty_i else [2, 1]
    dense_size = [1, 0, 2] if empty_v else [1, 2]
    size = sparse_size + dense_size
    nnz = 0 if empty_nnz else 5
    sd = len(sparse_size)
    g = torch.Generator().manual_seed(0)
    idx = (torch.rand(sd, nnz, generator=g) * torch.tensor(size[:sd], dtype=torch.float).unsqueeze(1)).long()
    other_idx = (torch.rand(sd, nnz, generator=g) * torch.tensor(size[:sd], dtype=torch.float).unsqueeze(1)).long()
    v = torch.randn([nnz] + dense_size, dtype=torch.double, generator=g)
    other_v = torch.randn([nnz] + dense_size, dtype=torch.double, generator=g).to(dtype)
    return size, idx, v, other_idx, other_v


def _grad(mod, size, idx, v, other_idx, other_v, dtype):
    c = (lambda t: t) if mod is torch else (lambda t: gt.from_numpy(t.numpy().copy()))
    dt = getattr(mod, str(dtype).removeprefix("torch."))
    other = mod.sparse_coo_tensor(c(other_idx), c(other_v), size, is_coalesced=False)
    leaf = c(v).requires_grad_(True)
    x = mod.sparse_coo_tensor(c(idx), leaf, size, dtype=dt)
    y = (x + other).coalesce()
    z = mod.sparse_coo_tensor(y.indices(), y.values().tanh(), y.size())
    out = z.coalesce().values()
    out.backward(mod.ones_like(out))
    return out.detach().numpy(), leaf.grad.numpy()


@pytest.mark.parametrize("dtype", [torch.double, torch.cdouble])
@pytest.mark.parametrize("empty_i,empty_v,empty_nnz", CASES)
def test_ctor_getter_backward_matches_torch(empty_i, empty_v, empty_nnz, dtype):
    args = _operands(empty_i, empty_v, empty_nnz, dtype)
    (g_out, g_grad), (t_out, t_grad) = _grad(gt, *args, dtype), _grad(torch, *args, dtype)
    assert g_out.shape == t_out.shape and g_grad.shape == t_grad.shape
    np.testing.assert_allclose(g_out, t_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g_grad, t_grad, rtol=1e-12, atol=1e-12)


def test_private_values_have_no_grad_fn():
    def run(mod):
        def go():
            i = mod.tensor([[0, 1, 1]])
            s = mod.sparse_coo_tensor(i, mod.ones(3, 2, dtype=mod.double), (2, 2), is_coalesced=False)
            s.detach().requires_grad_()._values().backward(mod.ones_like(s._values()))
        return go
    assert_same_error(run(gt), run(torch))


@pytest.mark.parametrize("dtype", [torch.double, torch.cdouble])
def test_adapter_keeps_indices_values_and_coalesced_flag(dtype):
    t = torch.sparse_coo_tensor(torch.tensor([[0, 1, 0], [0, 0, 0]]), torch.arange(6.0).reshape(3, 2).to(dtype),
                                (2, 1, 2), is_coalesced=False)
    g = to_glass(t)
    assert g.layout == gt.sparse_coo and g.is_coalesced() is False
    assert g._indices().tolist() == t._indices().tolist()
    assert g._values().tolist() == t._values().tolist()
    assert tuple(g.shape) == tuple(t.shape) and str(g.dtype) == str(t.dtype)
    assert torch.equal(to_torch(g).to_dense(), t.to_dense())
    empty = torch.sparse_coo_tensor(torch.zeros(0, 0, dtype=torch.long), torch.zeros(0, 1, 0, 2, dtype=dtype),
                                    (1, 0, 2))
    ge = to_glass(empty)
    assert (ge.sparse_dim(), ge.dense_dim(), ge._nnz(), tuple(ge.shape)) == (0, 3, 0, (1, 0, 2))
