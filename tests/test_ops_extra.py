"""Issue 20's tensor products and shape helpers against torch, beyond what their OpInfo entries
(tests/ops/op_db_extra.py) cover: the Python-level argument forms, gradients through the composites, out=
resizing and the autograd node names."""

from __future__ import annotations

import warnings

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error, fresh_interpreter, from_torch


def _pair(*shapes, dtype=torch.float64, requires_grad=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    ths = [torch.randn(s, generator=g, dtype=dtype) for s in shapes]
    gts = [from_torch(t) for t in ths]
    for t in ths + gts:
        t.requires_grad_(requires_grad)
    return gts, ths


def _grads_match(fn_name, gts, ths, *args, **kwargs):
    out_gt = getattr(gt, fn_name)(*gts, *args, **kwargs)
    out_th = getattr(torch, fn_name)(*ths, *args, **kwargs)
    assert_same(out_gt, out_th, check_strides=False, rtol=1e-12, atol=1e-12)
    seed_th = torch.randn(out_th.shape, dtype=out_th.dtype, generator=torch.Generator().manual_seed(5))
    got = gt.autograd.grad(out_gt, gts, from_torch(seed_th))
    want = torch.autograd.grad(out_th, ths, seed_th)
    for a, b in zip(got, want, strict=True):
        assert_same(a, b, check_strides=False, rtol=1e-12, atol=1e-12)
    return out_gt, out_th


# -- tensordot --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes,dims", [(((2, 4, 3), (4, 3, 5)), 2), (((2, 3), (4,)), 0),
                                         (((2, 3, 4), (4, 3, 5)), ([1, 2], [1, 0])),
                                         (((3, 2), (4, 3)), [[0], [1]]), (((2, 3, 4), (4, 5)), ((-1,), (0,)))],
                         ids=str)
def test_tensordot_dims_forms_and_grads(shapes, dims):
    gts, ths = _pair(*shapes, requires_grad=True)
    _grads_match("tensordot", gts, ths, dims=dims)


def test_tensordot_tensor_dims():
    gts, ths = _pair((2, 3, 4), (3, 4, 5))
    for dims in ([[1, 2], [0, 1]], 2):
        got = gt.tensordot(*gts, dims=gt.tensor(dims))
        want = torch.tensordot(*ths, dims=torch.tensor(dims))
        assert_same(got, want, rtol=1e-12, atol=1e-12)
    assert_same_error(lambda: gt.tensordot(*gts, dims=gt.tensor([[1], [0], [2]])),
                      lambda: torch.tensordot(*ths, dims=torch.tensor([[1], [0], [2]])))
    assert_same_error(lambda: gt.tensordot(*gts, dims=gt.tensor(-1)),
                      lambda: torch.tensordot(*ths, dims=torch.tensor(-1)))


def test_tensordot_size_one_broadcast_grads():
    gts, ths = _pair((2, 1, 3), (4, 3, 5), requires_grad=True)
    _grads_match("tensordot", gts, ths, dims=([1, 2], [0, 1]))


def test_tensordot_out_resizes_and_warns():
    gts, ths = _pair((2, 3), (3, 4))
    out_gt, out_th = gt.empty(5, dtype=gt.float64), torch.empty(5, dtype=torch.float64)
    with pytest.warns(UserWarning, match="was resized"):
        res = gt.tensordot(*gts, dims=1, out=out_gt)
    with pytest.warns(UserWarning, match="was resized"):
        torch.tensordot(*ths, dims=1, out=out_th)
    assert res is out_gt
    assert_same(out_gt, out_th, rtol=1e-12, atol=1e-12)


# -- inner / kron / trace ---------------------------------------------------------------------------------
def test_inner_grads():
    gts, ths = _pair((2, 3, 4), (5, 4), requires_grad=True)
    _grads_match("inner", gts, ths)


def test_inner_zero_dim_out():
    gts, ths = _pair((), (2, 3))
    out_gt, out_th = gt.empty(0, dtype=gt.float64), torch.empty(0, dtype=torch.float64)
    gt.inner(*gts, out=out_gt)
    torch.inner(*ths, out=out_th)
    assert_same(out_gt, out_th)


@pytest.mark.parametrize("shapes", [((2, 3), (4, 1)), ((3,), (2, 2, 2)), ((), (3,))], ids=str)
def test_kron_grads(shapes):
    gts, ths = _pair(*shapes, requires_grad=True)
    _grads_match("kron", gts, ths)


def test_kron_out_promotes_into_out_dtype():
    a_th, b_th = torch.arange(4).reshape(2, 2), torch.tensor([1.5, -2.0])
    out_gt, out_th = gt.empty(0, dtype=gt.float64), torch.empty(0, dtype=torch.float64)
    gt.kron(from_torch(a_th), from_torch(b_th), out=out_gt)
    torch.kron(a_th, b_th, out=out_th)
    assert_same(out_gt, out_th)
    assert_same_error(lambda: gt.kron(from_torch(b_th), from_torch(a_th), out=gt.empty(0, dtype=gt.int64)),
                      lambda: torch.kron(b_th, a_th, out=torch.empty(0, dtype=torch.int64)))


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (4, 1)], ids=str)
def test_trace_grads_and_node(shape):
    gts, ths = _pair(shape, requires_grad=True)
    out_gt, out_th = _grads_match("trace", gts, ths)
    assert type(out_gt.grad_fn).__name__ == type(out_th.grad_fn).__name__ == "TraceBackward0"


def test_trace_integer_dtypes():
    for dt in ("uint8", "int16", "int32", "float16", "bfloat16"):
        th = torch.arange(12).reshape(3, 4).to(getattr(torch, dt))
        assert_same(gt.trace(from_torch(th)), torch.trace(th))


# -- block_diag / cartesian_prod / diagflat / diff / tril_indices ----------------------------------------------
def test_block_diag_mixed_dtype_grads_and_node():
    a_th = torch.randn(2, 2, requires_grad=True)
    b_th = torch.randn(3, dtype=torch.float64, requires_grad=True)
    c_th = torch.tensor(2.0, requires_grad=True)
    ths = [a_th, b_th, c_th]
    gts = [from_torch(t.detach()).requires_grad_() for t in ths]
    out_gt, out_th = gt.block_diag(*gts), torch.block_diag(*ths)
    assert_same(out_gt, out_th)
    assert type(out_gt.grad_fn).__name__ == type(out_th.grad_fn).__name__ == "BlockDiagBackward0"
    seed = torch.randn(out_th.shape, dtype=out_th.dtype)
    for got, want in zip(gt.autograd.grad(out_gt, gts, from_torch(seed)), torch.autograd.grad(out_th, ths, seed),
                         strict=True):
        assert_same(got, want)


def test_block_diag_no_input():
    assert_same(gt.block_diag(), torch.block_diag())


def test_cartesian_prod_grads():
    gts, ths = _pair((3,), (2,), (2,), requires_grad=True)
    _grads_match("cartesian_prod", gts, ths)


def test_diagflat_grads():
    gts, ths = _pair((2, 3), requires_grad=True)
    _grads_match("diagflat", gts, ths, -1)


@pytest.mark.parametrize("n,dim", [(1, -1), (2, 0), (3, 1), (9, 1)], ids=str)
def test_diff_grads_through_prepend_and_append(n, dim):
    gts, ths = _pair((3, 4), (3, 4), (3, 4), requires_grad=True)
    out_gt = gt.diff(gts[0], n, dim, prepend=gts[1], append=gts[2])
    out_th = torch.diff(ths[0], n, dim, prepend=ths[1], append=ths[2])
    assert_same(out_gt, out_th, rtol=1e-12, atol=1e-12)
    if out_th.numel():
        seed = torch.randn(out_th.shape, dtype=out_th.dtype)
        for got, want in zip(gt.autograd.grad(out_gt, gts, from_torch(seed)), torch.autograd.grad(out_th, ths, seed),
                             strict=True):
            assert_same(got, want, rtol=1e-12, atol=1e-12)


def test_diff_bool_and_unsigned_wrap():
    for th in (torch.tensor([True, False, False, True]), torch.tensor([3, 1, 250, 4], dtype=torch.uint8)):
        assert_same(gt.diff(from_torch(th)), torch.diff(th))
        assert_same(gt.diff(from_torch(th), 2), torch.diff(th, 2))


def test_diff_out_forbids_autograd():
    gts, ths = _pair((2, 3), requires_grad=True)
    assert_same_error(lambda: gt.diff(gts[0], out=gt.empty(0, dtype=gt.float64)),
                      lambda: torch.diff(ths[0], out=torch.empty(0, dtype=torch.float64)))


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_triangle_indices_meta_and_out_forms(name):
    got = getattr(gt, name)(4, 3, 1, device="meta")
    want = getattr(torch, name)(4, 3, 1, device="meta")
    assert (tuple(got.shape), str(got.device), repr(got.dtype)) == (tuple(want.shape), str(want.device),
                                                                    repr(want.dtype))
    assert_same_error(lambda: getattr(gt, name)(3, 3, out=gt.empty(0)),
                      lambda: getattr(torch, name)(3, 3, out=torch.empty(0)))


# -- gcd / lcm / nextafter / signbit ---------------------------------------------------------------------------
def test_gcd_lcm_function_inplace_forms():
    a_th, b_th = torch.tensor([12, -18, 0, 7]), torch.tensor([8, 12, 5, 0])
    for name in ("gcd_", "lcm_"):
        x_gt, x_th = from_torch(a_th), a_th.clone()
        res = getattr(gt, name)(x_gt, from_torch(b_th))
        getattr(torch, name)(x_th, b_th)
        assert res is x_gt
        assert_same(x_gt, x_th)


def test_nextafter_gradients():
    """torch 2.13 passes the gradient to ``self`` where it steps (none where ``self == other``) and gives ``other``
    zeros, also when broadcast."""
    ths = [torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True), torch.tensor([[2.0], [3.0]], requires_grad=True)]
    gts = [from_torch(t.detach()).requires_grad_() for t in ths]
    y_gt, y_th = gt.nextafter(*gts), torch.nextafter(*ths)
    assert type(y_gt.grad_fn).__name__ == type(y_th.grad_fn).__name__ == "NextafterBackward0"
    seed = torch.randn(y_th.shape)
    for got, want in zip(gt.autograd.grad(y_gt, gts, from_torch(seed)), torch.autograd.grad(y_th, ths, seed),
                         strict=True):
        assert_same(got, want)


def test_signbit_is_not_differentiable():
    x_th = torch.tensor([-1.0, 0.0, -0.0], requires_grad=True)
    x_gt = from_torch(x_th.detach()).requires_grad_()
    got, want = gt.signbit(x_gt), torch.signbit(x_th)
    assert_same(got, want)
    assert got.requires_grad is want.requires_grad is False


# -- float_power ------------------------------------------------------------------------------------------------
def test_float_power_grads_cast_back_to_input_dtype():
    ths = [torch.tensor([0.5, 1.5, 2.0], requires_grad=True), torch.tensor([2.0, -1.0, 0.5], requires_grad=True)]
    gts = [from_torch(t.detach()).requires_grad_() for t in ths]
    y_gt, y_th = gt.float_power(*gts), torch.float_power(*ths)
    assert_same(y_gt, y_th, rtol=1e-12, atol=1e-12)
    seed = torch.randn(3, dtype=torch.float64)
    for got, want in zip(gt.autograd.grad(y_gt, gts, from_torch(seed)), torch.autograd.grad(y_th, ths, seed),
                         strict=True):
        assert_same(got, want, rtol=1e-6, atol=1e-6)


def test_float_power_inplace_on_double():
    x_th = torch.tensor([1.5, 2.0], dtype=torch.float64)
    x_gt = from_torch(x_th)
    assert x_gt.float_power_(gt.tensor([2, 3])) is x_gt
    assert_same(x_gt, x_th.float_power_(torch.tensor([2, 3])))


# -- nansum / nanmean ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["nansum", "nanmean"])
def test_nan_reductions_grads_skip_nans(name):
    x_th = torch.tensor([[1.0, float("nan"), 3.0], [float("nan"), 5.0, 2.0]], dtype=torch.float64,
                        requires_grad=True)
    x_gt = from_torch(x_th.detach()).requires_grad_()
    for args in ((), (1,), ((0, 1), True)):
        y_gt, y_th = getattr(gt, name)(x_gt, *args), getattr(torch, name)(x_th, *args)
        assert_same(y_gt, y_th, rtol=1e-12, atol=1e-12)
        assert type(y_gt.grad_fn).__name__ == type(y_th.grad_fn).__name__
        seed = torch.randn(y_th.shape, dtype=torch.float64)
        (g_gt,), (g_th,) = gt.autograd.grad(y_gt, [x_gt], from_torch(seed)), torch.autograd.grad(y_th, [x_th], seed)
        assert_same(g_gt, g_th, rtol=1e-12, atol=1e-12)


def test_nansum_integer_is_sum():
    th = torch.tensor([[3, -1], [250, 7]], dtype=torch.int16)
    for kwargs in ({}, {"dtype": torch.int8}, {"dim": 0}):
        gkw = {k: (gt.int8 if v is torch.int8 else v) for k, v in kwargs.items()}
        assert_same(gt.nansum(from_torch(th), **gkw), torch.nansum(th, **kwargs))


# -- Tensor.__rdiv__ and methods called on something that is no Tensor -----------------------------------
@pytest.mark.parametrize("other", [2, 1.5, True], ids=repr)
def test_rdiv_is_reciprocal_times(other):
    (x_gt,), (x_th,) = _pair((3, 4), requires_grad=True)
    got, want = x_gt.__rdiv__(other), x_th.__rdiv__(other)
    assert_same(got, want)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    seed = torch.randn(want.shape, dtype=want.dtype, generator=torch.Generator().manual_seed(1))
    assert_same(gt.autograd.grad(got, x_gt, from_torch(seed))[0], torch.autograd.grad(want, x_th, seed)[0])
    assert gt.Tensor.__rdiv__ is gt.Tensor.__rtruediv__


def test_rdiv_of_a_number_self_raises_torchs_attribute_error():
    assert_same_error(lambda: gt.Tensor.__rdiv__(2, gt.ones(3)), lambda: torch.Tensor.__rdiv__(2, torch.ones(3)))


@pytest.mark.parametrize("method", ["add", "mul", "bitwise_and", "clamp_min", "sum", "reciprocal"])
@pytest.mark.parametrize("self_", [2, 1.5, "x"], ids=repr)
def test_method_on_non_tensor_self_raises_descriptor_error(method, self_):
    args_gt, args_th = ((gt.ones(3),), (torch.ones(3),)) if method not in ("sum", "reciprocal") else ((), ())
    assert_same_error(lambda: getattr(gt.Tensor, method)(self_, *args_gt),
                      lambda: getattr(torch.Tensor, method)(self_, *args_th))


@pytest.mark.parametrize("dunder", ["__radd__", "__rmul__", "__rand__", "__ror__", "__rxor__", "__add__", "__mul__"])
@pytest.mark.parametrize("other", [3, "tensor"])
def test_reflected_operator_on_non_tensor_self_raises(dunder, other):
    # torch's message names the dunder; glasstorch's operators share one function per op (__add__ is __radd__),
    # so its message names the op: the type and the rest of the text match
    o_gt, o_th = (gt.ones(3, dtype=gt.int64), torch.ones(3, dtype=torch.int64)) if other == "tensor" else (3, 3)
    with pytest.raises(TypeError) as th_err:
        getattr(torch.Tensor, dunder)(2, o_th)
    with pytest.raises(TypeError) as gt_err:
        getattr(gt.Tensor, dunder)(2, o_gt)
    assert str(gt_err.value).split("' for ")[1] == str(th_err.value).split("' for ")[1]


@pytest.mark.parametrize("dunder", ["__rsub__", "__rmod__", "__rpow__", "__rtruediv__"])
def test_python_level_reflected_operators_on_numbers_match_torch(dunder):
    def call(lib):
        try:
            return getattr(lib.Tensor, dunder)(2, 3)
        except Exception as e:  # noqa: BLE001 - compared by type and message below
            return f"{type(e).__name__}: {e}"
    assert call(gt) == call(torch)


# -- meshgrid ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_grids_are_views_with_torchs_strides_and_grads(indexing):
    gts, ths = _pair((3,), (2,), (4,), requires_grad=True)
    got, want = gt.meshgrid(*gts, indexing=indexing), torch.meshgrid(*ths, indexing=indexing)
    assert type(got) is tuple and len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert_same(a, b)
        assert (a._base is not None) == (b._base is not None)
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    seeds = [torch.randn(w.shape, dtype=w.dtype, generator=torch.Generator().manual_seed(i))
             for i, w in enumerate(want)]
    got_g = gt.autograd.grad(got, gts, [from_torch(s) for s in seeds])
    want_g = torch.autograd.grad(want, ths, seeds)
    for a, b in zip(got_g, want_g, strict=True):
        assert_same(a, b, rtol=1e-12, atol=1e-12)


@fresh_interpreter
def test_meshgrid_without_indexing_warns_once_like_torch():
    def calls(lib):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            grids = [lib.meshgrid(lib.arange(2), lib.arange(3)) for _ in range(2)]
        # torch's C++ warnings end in " (Triggered internally at <its source file>)"
        return grids, [(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in rec]
    (got, _), got_warnings = calls(gt)
    (want, _), want_warnings = calls(torch)
    for a, b in zip(got, want, strict=True):
        assert_same(a, b)
    assert len(want_warnings) == 1 and got_warnings == want_warnings


def test_meshgrid_rejects_2d_inputs():
    with pytest.raises(RuntimeError) as th_err:
        torch.meshgrid(torch.ones(2, 2), indexing="ij")
    with pytest.raises(RuntimeError) as gt_err:
        gt.meshgrid(gt.ones(2, 2), indexing="ij")
    # torch prints the tensor itself after the prefix
    prefix = "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
    assert str(th_err.value).startswith(prefix) and str(gt_err.value).startswith(prefix)


# -- trapezoid / trapz / cumulative_trapezoid --------------------------------------------------------------
@pytest.mark.parametrize("name", ["trapezoid", "trapz", "cumulative_trapezoid"])
@pytest.mark.parametrize("with_x", [False, True])
def test_trapezoid_family_values_grads_and_gradcheck(name, with_x):
    shapes = ((3, 5), (5,)) if with_x else ((3, 5),)
    gts, ths = _pair(*shapes, requires_grad=True)
    _grads_match(name, gts, ths, dim=1)
    assert gt.autograd.gradcheck(lambda *a: getattr(gt, name)(*a, dim=1), gts)


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
@pytest.mark.parametrize("dx", [2, 0.5])
def test_trapezoid_integer_samples_promote_like_torch(name, dx):
    y = torch.randint(-5, 5, (4, 3), generator=torch.Generator().manual_seed(2))
    assert_same(getattr(gt, name)(from_torch(y), dx=dx, dim=0), getattr(torch, name)(y, dx=dx, dim=0))
    x = torch.tensor([0, 1, 3, 7])
    assert_same(getattr(gt, name)(from_torch(y), from_torch(x), dim=0), getattr(torch, name)(y, x, dim=0))


# -- Tensor.sum_to_size ------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [(2, 3), (3,), (1, 3), (2, 1), ()], ids=str)
def test_sum_to_size_aliasing_and_grad_fn_match_torch(size):
    (x_gt,), (x_th,) = _pair((2, 3), requires_grad=True)
    got, want = x_gt.sum_to_size(size), x_th.sum_to_size(size)
    assert_same(got, want, rtol=1e-12, atol=1e-12)
    assert (got is x_gt) == (want is x_th)
    if want is not x_th:  # a view of the keepdim sum where leading dimensions go
        assert (got._base is not None) == (want._base is not None)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__


# -- isposinf / isneginf -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["isposinf", "isneginf"])
def test_isinf_signs_are_not_differentiable_and_run_on_meta(name):
    vals = [1.0, float("inf"), -float("inf"), float("nan"), -0.0]
    x_th = torch.tensor(vals, requires_grad=True)
    x_gt = gt.tensor(vals, requires_grad=True)
    got, want = getattr(gt, name)(x_gt), getattr(torch, name)(x_th)
    assert_same(got, want)
    assert got.requires_grad == want.requires_grad
    meta_gt, meta_th = gt.empty(2, 3, device="meta"), torch.empty(2, 3, device="meta")
    assert_same(getattr(gt, name)(meta_gt), getattr(torch, name)(meta_th))
