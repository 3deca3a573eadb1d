"""``torch.norm`` / ``Tensor.norm`` (torch/functional.py's wrapper over ``linalg.vector_norm`` and
``linalg.matrix_norm``) and ``torch.linalg.matrix_norm`` against real PyTorch: values, dtypes, shapes, ``out=``,
gradients and errors.  Also the named tuple an ``out=`` call of ``max(dim)`` returns.
"""

import math
import warnings

import pytest
import torch
from oracle import assert_same

import glasstorch as gt

INPUTS = {
    "vector": lambda m: m.linspace(-3, 2, 7),
    "matrix": lambda m: m.arange(-6.0, 6.0).view(3, 4) / 3,
    "batch": lambda m: m.arange(24.0).view(2, 3, 4) - 10,
    "double": lambda m: m.arange(12.0, dtype=m.float64).view(4, 3).t() ** 1.5,
    "half": lambda m: m.arange(6.0).view(2, 3).half() - 2,
    "complex": lambda m: m.arange(6.0).view(2, 3) * (1 + 2j),
}

CALLS = [
    lambda m, x: m.norm(x),
    lambda m, x: m.norm(x, "fro"),
    lambda m, x: m.norm(x, None),
    lambda m, x: m.norm(x, 1),
    lambda m, x: m.norm(x, 0),
    lambda m, x: m.norm(x, 3.5),
    lambda m, x: m.norm(x, math.inf),
    lambda m, x: m.norm(x, -math.inf),
    lambda m, x: m.norm(x, p=2, dim=0),
    lambda m, x: m.norm(x, "fro", dim=-1, keepdim=True),
    lambda m, x: m.norm(x, 1, dim=[0], keepdim=True),
    lambda m, x: m.norm(x, dim=(0, -1)),
    lambda m, x: m.norm(x, 2, dtype=m.complex128 if x.is_complex() else m.float64),
    lambda m, x: x.norm(),
    lambda m, x: x.norm(1, dim=0),
    lambda m, x: x.norm(p=math.inf, dim=-1, keepdim=True),
]


@pytest.mark.parametrize("call", range(len(CALLS)))
@pytest.mark.parametrize("name", list(INPUTS))
def test_norm_values(name, call):
    def run(m):
        x = INPUTS[name](m)
        try:
            return CALLS[call](m, x)
        except (RuntimeError, IndexError) as e:
            return type(e).__name__, str(e)
    g, t = run(gt), run(torch)
    if isinstance(t, tuple):
        assert g == t
    else:
        assert_same(g, t, rtol=1e-3 if t.dtype in (torch.float16, torch.bfloat16) else 1e-6)


MATRIX_CALLS = [
    lambda m, x: m.linalg.matrix_norm(x),
    lambda m, x: m.linalg.matrix_norm(x, "fro", dim=(0, -1), keepdim=True),
    lambda m, x: m.linalg.matrix_norm(x, 1),
    lambda m, x: m.linalg.matrix_norm(x, -1),
    lambda m, x: m.linalg.matrix_norm(x, math.inf, dim=(-1, 0), keepdim=True),
    lambda m, x: m.linalg.matrix_norm(x, -math.inf, dim=(1, 0)),
    lambda m, x: m.linalg.matrix_norm(x, 1, dtype=m.float64),
]


@pytest.mark.parametrize("call", range(len(MATRIX_CALLS)))
@pytest.mark.parametrize("name", ["matrix", "batch", "double", "half"])
def test_matrix_norm(name, call):
    g = MATRIX_CALLS[call](gt, INPUTS[name](gt))
    t = MATRIX_CALLS[call](torch, INPUTS[name](torch))
    assert_same(g, t, rtol=1e-3 if t.dtype is torch.float16 else 1e-6)


ERRORS = [
    "m.norm(x, 'a')", "m.norm(x, 'fro', dim=(0, 1, 2))", "m.norm(v, 'nuc')", "m.norm(xi, 'fro')", "m.norm(xi, 'nuc')",
    "m.norm(xi)", "m.norm(xi, 2)", "m.norm(xh, 'nuc')", "m.norm(x, 'nuc', dim=(0, 0))", "m.norm(x, 'nuc', dim=(0, 5))",
    "m.norm(x, 'fro', dim=(0, 0))", "m.norm(x, 'nuc', dim=(0, 1), dtype=m.complex64)",
    "m.norm(x, 'nuc', dim=(0, 1), dtype=m.float16)", "m.norm(x, 'nuc', dim=(0, 1), dtype=m.int32)",
    "m.norm(x, float('inf'), dim=5)", "m.norm(x, 1, dtype=m.int64)", "m.norm(x, 'fro', (0, 1, 2, 3))",
    "m.linalg.matrix_norm(x, 3)", "m.linalg.matrix_norm(x, 2.5)", "m.linalg.matrix_norm(x, 'foo')",
    "m.linalg.matrix_norm(v)", "m.linalg.matrix_norm(x, dim=(1,))", "m.linalg.matrix_norm(x, 1, dtype=m.float16)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_norm_errors(code):
    def run(m):
        env = {"m": m, "x": m.arange(24.0).view(2, 3, 4), "v": m.arange(4.0), "xi": m.arange(6).view(2, 3),
               "xh": m.ones(2, 3, dtype=m.half)}
        with pytest.raises(Exception) as info:  # noqa: B017,PT011 - the type is compared with torch's below
            eval(code, env)  # noqa: S307 - the cases are literals of this file
        return type(info.value).__name__, str(info.value)
    assert run(gt) == run(torch)


@pytest.mark.parametrize("p,dim", [("fro", None), (2, 1), (1, (0, 1)), (math.inf, -1), (3.0, None)])
def test_norm_out(p, dim):
    def run(m):
        x = m.arange(12.0).view(3, 4) - 5
        out = m.empty(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = m.norm(x, p, dim, out=out)
        return r, r is out
    (g, g_is), (t, t_is) = run(gt), run(torch)
    assert g_is and t_is
    assert_same(g, t, rtol=1e-6)


@pytest.mark.parametrize("p", ["fro", 1, math.inf, 3.0])
def test_norm_gradient(p):
    def run(m):
        x = (m.arange(12.0).view(3, 4) - 5.5).requires_grad_()
        m.norm(x, p, dim=1).sum().backward()
        return x.grad
    g, t = run(gt), run(torch)
    assert_same(g, t, rtol=1e-6)


def test_nuclear_norm():
    def run(m):
        return m.norm(m.arange(12.0).view(3, 4) - 5, "nuc")
    assert_same(run(gt), run(torch), rtol=1e-6)


# The spectral norms ('nuc', 2, -2) reduce aten::linalg_svdvals; full-rank inputs so gradients are unique.
SPECTRAL_INPUTS = {
    "square": lambda m: m.tensor([[4.0, 1.0, -2.0], [0.5, 3.0, 1.0], [-1.0, 2.0, 5.0]]),
    "wide": lambda m: m.tensor([[2.0, -1.0, 0.5, 3.0], [1.0, 4.0, -2.0, 0.0]]),
    "batch": lambda m: m.tensor([[[2.0, 1.0], [0.0, 3.0], [1.0, 1.0]], [[-1.0, 2.0], [4.0, 0.5], [0.0, -3.0]]]),
    "double": lambda m: m.tensor([[1.0, 2.0], [3.0, -4.0], [0.5, 6.0]], dtype=m.float64),
    "complex": lambda m: m.tensor([[1 + 2j, 0.5 - 1j], [3 - 1j, 2 + 0.5j]]),
}
SPECTRAL_CALLS = [
    lambda m, x: m.linalg.matrix_norm(x, "nuc"),
    lambda m, x: m.linalg.matrix_norm(x, 2),
    lambda m, x: m.linalg.matrix_norm(x, -2),
    lambda m, x: m.linalg.matrix_norm(x, "nuc", dim=(-1, -2), keepdim=True),
    lambda m, x: m.linalg.matrix_norm(x, 2, dim=(0, -1), keepdim=True),
    lambda m, x: m.linalg.matrix_norm(x, -2, dtype=m.complex128 if x.is_complex() else m.float64),
    lambda m, x: m.linalg.norm(x, "nuc", dim=(0, 1)),
    lambda m, x: m.linalg.norm(x, 2, dim=(-2, -1)),
    lambda m, x: m.linalg.norm(x),
    lambda m, x: m.linalg.norm(x, 1, dim=-1),
    lambda m, x: m.norm(x, "nuc", dim=(0, 1), keepdim=True),
    lambda m, x: x.norm("nuc", dim=(-2, -1)),
    lambda m, x: m.linalg.svdvals(x),
    lambda m, x: m.linalg.svdvals(x.masked_fill(m.arange(x.shape[-1]) == 1, float("inf"))),
]


@pytest.mark.parametrize("call", range(len(SPECTRAL_CALLS)))
@pytest.mark.parametrize("name", list(SPECTRAL_INPUTS))
def test_spectral_norms(name, call):
    g = SPECTRAL_CALLS[call](gt, SPECTRAL_INPUTS[name](gt))
    t = SPECTRAL_CALLS[call](torch, SPECTRAL_INPUTS[name](torch))
    assert_same(g, t, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
@pytest.mark.parametrize("name", ["square", "wide", "batch", "double"])
def test_spectral_norm_gradient(name, ord):
    def run(m):
        x = SPECTRAL_INPUTS[name](m).requires_grad_()
        m.linalg.matrix_norm(x, ord).sum().backward()
        return x.grad
    assert_same(run(gt), run(torch), rtol=1e-4, atol=1e-5)


SPECTRAL_ERRORS = [
    "m.linalg.matrix_norm(xh, 'nuc')", "m.linalg.matrix_norm(xh, 2)", "m.linalg.matrix_norm(xi, -2)",
    "m.linalg.matrix_norm(v, 'nuc')", "m.linalg.matrix_norm(x, 2, dim=(0, 0))", "m.linalg.matrix_norm(e, -2)",
    "m.linalg.svdvals(v)", "m.linalg.svdvals(xi)", "m.linalg.svdvals(x, driver='gesvd')", "m.linalg.svdvals(xh)",
    "m.linalg.svdvals(x, out=m.empty(0, dtype=m.float64))", "m.linalg.svdvals(nan)", "m.linalg.svdvals(bnan)",
    "m.linalg.svd(bnan)",
    "m.linalg.norm(x, 2)", "m.linalg.norm(x, 'nuc')", "m.linalg.norm(x, dim=(0, 1, 2))",
    "m.linalg.norm(x, 'fro', dim=(0, 1, 2))",
]


@pytest.mark.parametrize("code", SPECTRAL_ERRORS)
def test_spectral_errors(code):
    def run(m):
        env = {"m": m, "x": m.arange(24.0).view(2, 3, 4), "v": m.arange(4.0), "xi": m.arange(6).view(2, 3),
               "xh": m.ones(2, 3, dtype=m.half), "e": m.ones(0, 3), "nan": m.tensor([[float("nan"), 1.0], [1.0, 1.0]]),
               "bnan": m.tensor([[[1.0, 1.0], [1.0, 1.0]], [[float("nan"), 1.0], [1.0, 1.0]]])}
        with pytest.raises(Exception) as info:  # noqa: B017,PT011 - the type is compared with torch's below
            eval(code, env)  # noqa: S307 - the cases are literals of this file
        return type(info.value).__name__, str(info.value)
    assert run(gt) == run(torch)


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3), (0, 3), (3, 0)])
def test_svd_conventions(shape, full_matrices):
    """Shapes, dtypes and strides of U, S, Vh are torch's; U diag(S) Vh rebuilds the input."""
    def run(m):
        a = m.linspace(-2.0, 3.0, math.prod(shape)).view(shape) ** 2
        U, S, Vh = m.linalg.svd(a, full_matrices=full_matrices)
        k = S.shape[-1]
        rebuilt = (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]
        return [(tuple(t.shape), t.stride(), str(t.dtype)) for t in (U, S, Vh)], rebuilt
    (g, g_rebuilt), (t, t_rebuilt) = run(gt), run(torch)
    assert g == t
    assert_same(g_rebuilt, t_rebuilt, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["max", "min", "sort"])
def test_out_call_returns_the_out_named_tuple(op):
    def run(m):
        x = m.arange(6.0).view(2, 3)
        r = getattr(m, op)(x, 1, out=(m.empty(0), m.empty(0, dtype=m.long)))
        return type(r).__module__, type(r).__name__
    assert run(gt) == run(torch)


@pytest.mark.parametrize("dtype,stats", [("float32", "float32"), ("float64", "float64"), ("bfloat16", "float32")])
def test_batch_norm_update_stats_moves_the_running_statistics(dtype, stats):
    # (mean, biased var) come back; running_mean/var move in place towards the mean and the unbiased variance
    def run(m):
        x = (m.arange(24.0).reshape(2, 3, 4) ** 1.5).to(getattr(m, dtype))
        rm, rv = m.zeros(3, dtype=getattr(m, stats)), m.ones(3, dtype=getattr(m, stats))
        mean, var = m.batch_norm_update_stats(x, rm, rv, 0.1)
        return mean, var, rm, rv
    for g, t in zip(run(gt), run(torch), strict=True):
        assert_same(g, t, rtol=1e-5, atol=1e-5)
