"""``torch.lobpcg`` against torch: the extreme eigenpairs (both methods, largest and smallest, batched, with
``B``), the gradient of ``A`` through the eigenspace (complete and partial, symmetric as PyTorch makes it), its
gradcheck, and the argument errors."""

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error, from_torch


def _matrix(shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    A = torch.rand(*shape, generator=g, dtype=torch.float64)
    return (A @ A.mT) / 10


def _signed(U):
    _, idx = U.abs().max(-2, keepdim=True)  # an eigenvector's sign is arbitrary: fix it by its largest entry
    return U * U.gather(-2, idx).sign()


@pytest.mark.parametrize("k,shape,largest,method", [(1, (6, 6), True, "ortho"), (2, (6, 6), False, "ortho"),
                                                   (2, (2, 9, 9), True, "ortho"), (1, (7, 7), True, "basic")])
def test_eigenpairs(k, shape, largest, method):
    th = _matrix(shape)
    X = torch.eye(shape[-1], k, dtype=torch.float64).expand(*shape[:-1], k)
    Dt, Ut = torch.lobpcg(th, k=k, X=X, largest=largest, method=method)
    Dg, Ug = gt.lobpcg(from_torch(th), k=k, X=from_torch(X.contiguous()), largest=largest, method=method)
    assert_same(Dg, Dt, rtol=1e-6, atol=1e-9)
    assert_same(_signed(Ug), _signed(Ut), rtol=1e-4, atol=1e-6)


def test_generalized_problem_with_b():
    A, B = _matrix((8, 8)), _matrix((8, 8), seed=1) + torch.eye(8, dtype=torch.float64)
    X = torch.eye(8, 2, dtype=torch.float64)
    Dt, _ = torch.lobpcg(A, k=2, B=B, X=X)
    Dg, Ug = gt.lobpcg(from_torch(A), k=2, B=from_torch(B), X=from_torch(X))
    assert_same(Dg, Dt, rtol=1e-6, atol=1e-9)
    gram = Ug.mT @ from_torch(B) @ Ug  # B-orthonormal eigenvectors
    np.testing.assert_allclose(np.asarray(gram.tolist()), np.eye(2), atol=1e-8)


def test_gradient_of_a_through_a_partial_eigenspace():
    def run(m, A):
        A = A.detach().requires_grad_(True)
        D, U = m.lobpcg(A, k=1, X=m.eye(6, 1, dtype=m.float64))
        (D.sum() + _signed(U).sum()).backward()
        return A.grad

    th = _matrix((6, 6))
    assert_same(run(gt, from_torch(th)), run(torch, th), rtol=1e-4, atol=1e-7)


def test_gradient_formula_of_the_complete_eigenspace():
    # lobpcg needs m >= 3 n, so its k == m branch is checked against torch's formula directly
    from glasstorch._lobpcg import _complete_eigenspace_backward

    th = _matrix((6, 6))
    D, U = torch.linalg.eigh(th)
    Dg, Ug = torch.rand(6, dtype=torch.float64), torch.rand(6, 6, dtype=torch.float64)
    want = torch._lobpcg._symeig_backward_complete_eigenspace(Dg, Ug, th, D, U)
    got = _complete_eigenspace_backward(from_torch(Dg), from_torch(Ug), from_torch(D), from_torch(U))
    assert_same(got, want, rtol=1e-6, atol=1e-9)


def test_gradcheck_and_symmetric_gradient():
    A = from_torch(_matrix((6, 6))).requires_grad_(True)
    X = gt.eye(6, 2, dtype=gt.float64)

    def fn(A):
        D, U = gt.lobpcg(A, k=2, X=X)
        return D, _signed(U)

    assert gt.autograd.gradcheck(fn, (A,), check_batched_grad=False)
    D, U = fn(A)
    (D.sum() + U.sum()).backward()
    np.testing.assert_allclose(np.asarray(A.grad.tolist()), np.asarray(A.grad.mT.tolist()), atol=1e-12)


def test_errors():
    for m in (gt, torch):
        m.manual_seed(0)
    assert_same_error(lambda: gt.lobpcg(gt.eye(5, dtype=gt.float64), k=2),
                      lambda: torch.lobpcg(torch.eye(5, dtype=torch.float64), k=2))
    assert_same_error(lambda: gt.lobpcg(gt.ones(6, 5, dtype=gt.float64)),
                      lambda: torch.lobpcg(torch.ones(6, 5, dtype=torch.float64)))
