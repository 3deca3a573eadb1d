"""Regression tests for the root causes the differential fuzzer found (one named test per cause), against torch.

Each test states the smallest program that showed the difference; the fix is at the mechanism named in the
test's docstring, so each test also checks a few neighbours that share that mechanism.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from oracle import assert_same, assert_same_error

import glasstorch


def _both(fn):
    return fn(glasstorch), fn(torch)


@pytest.mark.parametrize("make", [
    lambda m: m.zeros(5, 0, 2).copy_(m.zeros(5, 0)),
    lambda m: m.zeros(5, 0, 2) + m.zeros(5, 0),
    lambda m: m.zeros(5, 3) + m.zeros(4, 2),
    lambda m: m.zeros(3, 4).copy_(m.zeros(2, 3)),
    lambda m: m.zeros(2, 3, 4).add_(m.zeros(3, 2, 5)),
    lambda m: m.where(m.zeros(2, 1, 3, dtype=m.bool), m.zeros(4, 1), m.zeros(5, 1, 1)),
], ids=["copy_empty", "add_empty", "add_2d", "copy_2d", "add_3d", "where_three"])
def test_broadcast_error_names_the_rightmost_mismatch(make):
    """_core/shape.broadcast_shapes walks each pair from the last dim, as infer_size: the first mismatch it names
    is the rightmost one (it walked from the first dim: 'tensor a (0) ... tensor b (5) at dimension 1')."""
    assert_same_error(lambda: make(glasstorch), lambda: make(torch))


@pytest.mark.parametrize("dim", [0, -1, 1, -2])
def test_unbind_of_a_0_dim_tensor_wraps_the_dim_first(dim):
    """unbind wraps its dim as if the tensor had one dim (so 1 and -2 are out of range) before refusing 0-dim."""
    assert_same_error(lambda: glasstorch.tensor(1.0).unbind(dim), lambda: torch.tensor(1.0).unbind(dim))


@pytest.mark.parametrize("call", [
    lambda m, x: x.amax(None),
    lambda m, x: x.amin(dim=None, keepdim=True),
    lambda m, x: m.amax(x, None),
    lambda m, x: x.roll(1, None),
    lambda m, x: m.nn.functional.avg_pool2d(x, 2, None),
    lambda m, x: m.nn.functional.max_pool2d(x, 2, None),
], ids=["amax", "amin_kw", "fn_amax", "roll", "avg_pool2d_stride", "max_pool2d_stride"])
def test_none_for_an_int_list_whose_default_is_empty(call):
    """The arg parser takes None for an ``int[]`` parameter whose default is ``[]`` (meaning the default), as
    PyTorch's does; it refused it ('must be tuple of ints, not NoneType')."""
    gt, th = _both(lambda m: call(m, m.arange(16.0).view(1, 1, 4, 4)))
    assert_same(gt, th)


@pytest.mark.parametrize("call", [
    lambda m, x: x.flip(None),
    lambda m, x: x.logsumexp(None),
    lambda m, x: m.max_pool2d(x, 2, 2, None),
    lambda m, x: x.tile(None),
], ids=["flip_no_default", "logsumexp_no_default", "padding_default_0", "tile"])
def test_none_for_other_int_lists_is_still_refused(call):
    assert_same_error(lambda: call(glasstorch, glasstorch.zeros(1, 1, 4, 4)),
                      lambda: call(torch, torch.zeros(1, 1, 4, 4)))


@pytest.mark.parametrize("call", [
    lambda x: x.sum((0, 0, 5)), lambda x: x.mean((1, -1, 5)), lambda x: x.amax((0, 0, 5)),
    lambda x: x.amin((0, 0, 5)), lambda x: x.all((0, 0, 5)), lambda x: x.any((0, 0, 5)),
    lambda x: x.count_nonzero((0, 0, 5)), lambda x: x.logsumexp((0, 0, 5)), lambda x: x.sum((0, 0)),
    lambda x: x.var((0, 0, 5)), lambda x: x.std((0, 0, 5)), lambda x: x.norm(2, (0, 0, 5)),
    lambda x: x.amax((1, 1)),
], ids=["sum", "mean", "amax", "amin", "all", "any", "count_nonzero", "logsumexp", "sum_repeat", "var", "std",
        "norm", "amax_repeat"])
def test_reduction_dims_wrapped_before_repeats_are_found(call):
    """Structured reductions wrap every dim before looking for a repeat (an out-of-range dim wins); std, var and
    norms check each dim in turn (the repeat wins).  tensor_iterator.reduction_dims(wrap_first=...)."""
    assert_same_error(lambda: call(glasstorch.zeros(2, 3)), lambda: call(torch.zeros(2, 3)))


def test_reduction_dims_on_a_0_dim_tensor():
    for dims in [(0, 0, 1), (-1, 0, 1), (0, 0, -2)]:
        assert_same_error(lambda d=dims: glasstorch.tensor(2.0).amin(d), lambda d=dims: torch.tensor(2.0).amin(d))


@pytest.mark.parametrize("call", [lambda x: x.norm(2, p=1), lambda x: x.unique(True, sorted=True),
                                  lambda x: x.unique_consecutive(1, 2, 3, 4)], ids=["norm", "unique", "consecutive"])
def test_python_methods_are_named_as_tensor_methods(call):
    """Python's own call errors name the code object: ``Tensor.norm() got multiple values for argument 'p'``
    (was ``_norm_method()``)."""
    assert_same_error(lambda: call(glasstorch.zeros(3)), lambda: call(torch.zeros(3)))


@pytest.mark.parametrize("call", [
    lambda m, x: m.index_put(x, (m.tensor([0]),), m.tensor(5.0)),
    lambda m, x: x.index_put((m.tensor([0, 0]),), m.tensor(5.0), accumulate=True),
    lambda m, x: x.index_fill(0, m.tensor([0]), 1.0),
    lambda m, x: x.masked_fill(x > 1, 0.0),
    lambda m, x: x.masked_scatter(x > 1, m.ones(3)),
    lambda m, x: m.ops.aten.index_put.default(x, (m.tensor([1]),), m.tensor(2.0)),
], ids=["index_put", "index_put_accumulate", "index_fill", "masked_fill", "masked_scatter", "aten_index_put"])
@pytest.mark.parametrize("grad", [False, True])
def test_composite_kernels_run_below_autograd(call, grad):
    """A CompositeExplicitAutograd kernel's inner in-place calls bump no version and record no node (PyTorch's
    AutoDispatchBelowADInplaceOrView): torch.index_put(x, ...)._version is 0 (was 1).  dispatcher._below_autograd."""
    def run(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=grad)
        out = call(m, x)
        if grad:
            out.sum().backward()
        return out, x
    (out_gt, x_gt), (out_th, x_th) = _both(run)
    assert_same(out_gt.detach(), out_th.detach())
    assert (out_gt._version, x_gt._version) == (out_th._version, x_th._version)
    assert type(out_gt.grad_fn).__name__ == type(out_th.grad_fn).__name__
    if grad:
        assert_same(x_gt.grad, x_th.grad)


def test_broadcast_tensors():
    """torch.broadcast_tensors was missing: each tensor expanded to the common shape, one already there returned
    itself, PyTorch's errors for a mismatch and a non-tensor."""
    def run(m):
        a, b = m.arange(3.0, requires_grad=True).view(3, 1), m.zeros(2)
        same = m.zeros(3, 2)
        out = m.broadcast_tensors(a, b, same)
        return a, same, out
    (a_gt, same_gt, out_gt), (a_th, same_th, out_th) = _both(run)
    assert type(out_gt) is tuple and len(out_gt) == len(out_th) == 3
    for g, t in zip(out_gt, out_th, strict=True):
        assert_same(g.detach(), t.detach())
        assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__
    assert (out_gt[2] is same_gt) == (out_th[2] is same_th) is True
    assert glasstorch.broadcast_tensors() == torch.broadcast_tensors() == ()
    for bad in ([lambda m: m.zeros(3), lambda m: m.zeros(2)], [lambda m: m.zeros(1), lambda m: 1],
                [lambda m: [m.zeros(1)]]):
        assert_same_error(lambda b=bad: glasstorch.broadcast_tensors(*[f(glasstorch) for f in b]),
                          lambda b=bad: torch.broadcast_tensors(*[f(torch) for f in b]))


_FULL_SLICES = {
    "tuple_full": lambda x: x[:, 0:3], "ellipsis_step1": lambda x: x[..., 0::1], "past_end": lambda x: x[:, :5],
    "lone_slice": lambda x: x[:], "lone_slice_0": lambda x: x[0::1], "negative_start": lambda x: x[:, -3:],
    "partial": lambda x: x[0:2, 1:], "none_between": lambda x: x[:, None, :], "ellipsis": lambda x: x[...],
}


@pytest.mark.parametrize("name", sorted(_FULL_SLICES))
def test_a_full_slice_in_a_tuple_index_is_no_op(name):
    """PyTorch's slice optimization: in a tuple index a slice keeping the whole dim (start 0, step 1, stop at or past
    the end) is skipped, so x[:, 0:3] is an alias (AliasBackward0); x[:] alone is still a slice
    (indexing._apply_slice)."""
    def run(m):
        x = m.arange(6.0, requires_grad=True).view(2, 3)
        out = _FULL_SLICES[name](x)
        return out, type(out.grad_fn).__name__
    (gt, gt_fn), (th, th_fn) = _both(run)
    assert_same(gt.detach(), th.detach())
    assert gt_fn == th_fn


@pytest.mark.parametrize("index", [slice(None), slice(0, 5), slice(1, None), (slice(None), slice(None)),
                                   (Ellipsis, slice(0, 3))], ids=["all", "past_end", "part", "tuple", "ellipsis"])
def test_setitem_through_a_full_slice_writes_the_tensor_itself(index):
    """setitem keeps the optimization for a lone slice too: x[:] = 1 is FillBackward3 on x (was CopySlices)."""
    def run(m):
        x = m.zeros(2, 3, requires_grad=True).clone()
        x[index] = 1.0
        return x
    gt, th = _both(run)
    assert_same(gt.detach(), th.detach())
    assert (type(gt.grad_fn).__name__, gt._version) == (type(th.grad_fn).__name__, th._version)


@pytest.mark.parametrize("shapes", [((3,), (3, 2)), ((3,), (3, 0)), ((0,), (0, 2))],
                         ids=["plain", "empty_n", "empty_k"])
def test_matmul_vector_matrix_squeezes_in_place(shapes):
    """matmul of a 1-d and a 2-d tensor is mm(unsqueeze(0)).squeeze_(0), as PyTorch: version 1, SqueezeBackward4
    (was _unsafe_view: version 0, UnsafeViewBackward0); the same values and gradients."""
    def run(m):
        a, b = m.arange(float(shapes[0][0]), requires_grad=True), m.ones(*shapes[1], requires_grad=True)
        out = m.matmul(a, b)
        out.sum().backward()
        with m.no_grad():
            plain = m.matmul(a, b)
        return out, a.grad, b.grad, plain
    gt, th = _both(run)
    for g, t in zip(gt, th, strict=True):
        assert_same(g.detach(), t.detach())
    assert (gt[0]._version, type(gt[0].grad_fn).__name__, gt[3]._version) == \
        (th[0]._version, type(th[0].grad_fn).__name__, th[3]._version)


def test_compiled_in_place_views_take_the_view_geometry():
    """Functionalisation turns t_/transpose_/unsqueeze_/squeeze_/as_strided_ into their views (they write no data):
    a compiled x.unsqueeze_(0) kept the old shape (matmul's squeeze_ gave (1, 4) for (4,))."""
    def program(x):
        y = x * 2
        y.unsqueeze_(0)
        y.t_()
        z = (y + 1).squeeze_(1)
        return z.unsqueeze_(-1).transpose_(0, 1), y.sum()

    x = glasstorch.arange(3.0)
    compiled = glasstorch.compile(program)(x)
    eager = program(x)
    want = program(torch.arange(3.0))
    for c, e, w in zip(compiled, eager, want, strict=True):
        assert_same(c, w)
        assert_same(e, w)
    a, b = glasstorch.arange(3.0, requires_grad=True), glasstorch.ones(3, 2)
    got = glasstorch.compile(glasstorch.matmul)(a, b)
    assert_same(got.detach(), torch.matmul(torch.arange(3.0), torch.ones(3, 2)))


def test_gradient_of_a_0_dim_input_is_a_full_sum():
    """The engine's sum_to for a 0-dim input is the full sum, a fresh tensor (was a view of a keepdim sum)."""
    def run(m):
        x, y = m.ones(2, requires_grad=True), m.tensor(1.5, requires_grad=True)
        gx, gy = m.autograd.grad((x * y).sum(), (x, y))
        return gx, gy
    (gx, gy), (tx, ty) = _both(run)
    assert_same(gy, ty)
    assert (gy._is_view(), gx._is_view()) == (ty._is_view(), tx._is_view())


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_logsigmoid_output_is_row_major(device):
    """log_sigmoid_forward allocates its output and buffer row-major (PyTorch's CPU kernel); meta keeps the
    input's layout as PyTorch's meta function does."""
    gt, th = _both(lambda m: m.nn.functional.logsigmoid(m.arange(12.0, device=device).view(3, 4).t()))
    assert_same(gt, th, rtol=1e-6)


_OVERLAP_WRITES = {
    "index_copy_": lambda m, x: x.index_copy_(0, m.tensor([0]), m.ones(1, 3)),
    "index_copy_bad_index_dim": lambda m, x: x.index_copy_(0, m.tensor([[0]]), m.ones(1, 3)),
    "index_copy_bad_dim": lambda m, x: x.index_copy_(5, m.tensor([0]), m.ones(1, 3)),
    "index_add_": lambda m, x: x.index_add_(0, m.tensor([0]), m.ones(1, 3)),
    "index_add_bad_shape": lambda m, x: x.index_add_(0, m.tensor([0]), m.ones(1, 4)),
    "masked_scatter_": lambda m, x: x.masked_scatter_(m.tensor([True, False, True]), m.ones(6)),
    "masked_scatter_bad_dtype": lambda m, x: x.masked_scatter_(m.tensor([True, False, True]),
                                                              m.ones(6, dtype=m.int64)),
    "copy_bad_shape": lambda m, x: x.copy_(m.zeros(4)),
}


@pytest.mark.parametrize("name", sorted(_OVERLAP_WRITES))
def test_in_place_index_ops_refuse_an_overlapping_self(name):
    """index_copy_, index_add_ and masked_scatter_ check that self has no internal overlap (an expanded tensor), in
    PyTorch's order among their other checks; copy_ checks overlap before the broadcast."""
    assert_same_error(lambda: _OVERLAP_WRITES[name](glasstorch, glasstorch.zeros(3).expand(2, 3)),
                      lambda: _OVERLAP_WRITES[name](torch, torch.zeros(3).expand(2, 3)))


def test_copy_onto_the_same_data_returns_at_once():
    """copy_ of a tensor onto a view with the same geometry returns before the overlap checks (copy_impl's
    is_same_data exit): an expanded tensor copied onto itself is no error; the version still moves."""
    def run(m):
        x = m.arange(3.0).expand(2, 3)
        out = x.copy_(x.t().t())
        return x, out
    (x_gt, out_gt), (x_th, out_th) = _both(run)
    assert_same(out_gt, out_th)
    assert (x_gt._version, out_gt is x_gt) == (x_th._version, out_th is x_th)
    assert_same_error(lambda: glasstorch.empty(2, 3).copy_(glasstorch.zeros(4, device="meta")),
                      lambda: torch.empty(2, 3).copy_(torch.zeros(4, device="meta")))


@pytest.mark.parametrize("call", [
    lambda m: m.take_along_dim(m.tensor([[1, 2], [7, 8]]), m.tensor([[-1, 2]]), 0),
    lambda m: m.take_along_dim(m.tensor([[1, 2], [7, 8]]), m.tensor([[5]]), 1),
    lambda m: m.take_along_dim(m.tensor([[1], [7]]), m.tensor([[2]]), 0),
    lambda m: m.take_along_dim(m.zeros(0, 2), m.zeros(0, 1, dtype=m.int64), 0),
    lambda m: m.take_along_dim(m.tensor(1), m.tensor(0)),
], ids=["negative", "past_end", "past_end_broadcast", "empty", "no_dim"])
def test_take_along_dim_takes_indices_modulo_the_size(call):
    """Along a dim torch.take_along_dim takes indices modulo the dim's size (negative and past-the-end ones)."""
    gt, th = _both(call)
    assert_same(gt, th)


@pytest.mark.parametrize("call", [
    lambda m: m.take_along_dim(m.tensor([[1, 2]]), m.tensor([[5]]), None),
    lambda m: m.take_along_dim(m.zeros(0, 2), m.tensor([[0]]), 0),
    lambda m: m.take_along_dim(m.tensor(1), m.tensor(1), 0),
], ids=["flat_out_of_bounds", "size_0_dim", "0_dim"])
def test_take_along_dim_errors(call):
    """Flattened (no dim) indices are bounds-checked; a size-0 dim divides by zero; a 0-dim input cannot be read
    along dim 0 (was IndexError 'tuple index out of range' from inside the helper)."""
    assert_same_error(lambda: call(glasstorch), lambda: call(torch))


@pytest.mark.parametrize("index", [
    lambda m: m.tensor([], dtype=m.int64), lambda m: m.tensor([], dtype=m.float32),
    lambda m: m.zeros(0, 5, 5, dtype=m.int64)], ids=["empty_1d", "empty_float", "empty_bigger"])
def test_gather_with_an_empty_index_checks_nothing_more(index):
    """gather's meta function returns before its dtype and shape checks when the index is empty."""
    gt, th = _both(lambda m: m.gather(m.tensor([[[4]]]), 0, index(m)))
    assert_same(gt, th)


def test_gather_checks_the_index_dtype_before_its_shape():
    assert_same_error(lambda: glasstorch.gather(glasstorch.tensor([[[4]]]), 0, glasstorch.tensor([1.0])),
                      lambda: torch.gather(torch.tensor([[[4]]]), 0, torch.tensor([1.0])))


@pytest.mark.parametrize("call", [
    lambda m: m.zeros(3).index_add_(0, m.tensor([0, 1]), m.tensor(1.0)),
    lambda m: m.zeros(3).index_add_(0, m.tensor([], dtype=m.int64), m.tensor(1.0)),
    lambda m: m.zeros(2, 3).index_add_(1, m.tensor([0, 1]), m.tensor(1.0)),
    lambda m: m.zeros(2, 3).index_add_(1, m.tensor([0, 1]), m.ones(3)),
    lambda m: m.zeros(2, 3).index_add_(-1, m.tensor([0, 1]), m.ones(2, 3)),
], ids=["0dim_source", "0dim_source_empty_index", "dim_past_0dim_source", "dim_past_1d_source", "count"])
def test_index_add_source_checks(call):
    """index_add_'s source checks in PyTorch's order: a dim past the source's dims, then the count, whose message
    reads source.size(dim) (an IndexError for a 0-dim source)."""
    assert_same_error(lambda: call(glasstorch), lambda: call(torch))


def test_unflatten_checks_sizes_before_the_dim():
    assert_same_error(lambda: glasstorch.zeros(3).unflatten(5, ()), lambda: torch.zeros(3).unflatten(5, ()))


@pytest.mark.parametrize("args", [(2, 0), (2, -1), (1, 1), ((1, 1), (0, 0)), ((1, 2), (0,)), (2,)],
                         ids=["dim0", "dim-1", "dim1", "two_dims", "misaligned", "flat"])
def test_roll_of_a_0_dim_tensor(args):
    """roll along any dim of a 0-dim tensor raises (PyTorch's CPU kernel reads self.size(dim) unwrapped); the flat
    roll is the tensor itself."""
    def call(m):
        return m.tensor(2.0).roll(*args)
    if args == (2,):
        gt, th = _both(call)
        assert_same(gt, th)
    else:
        assert_same_error(lambda: call(glasstorch), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda m, x: m.sum(x, dtype=m.uint8), lambda m, x: x.sum(0, dtype=m.uint8, keepdim=True),
    lambda m, x: x.cumsum(0, dtype=m.uint8), lambda m, x: x.prod(dtype=m.uint8),
    lambda m, x: x.to(m.float16).sum(dtype=m.uint8),
], ids=["sum", "sum_dim", "cumsum", "prod", "half_sum"])
def test_reduction_dtype_casts_as_c10(call):
    """A reduction with dtype= converts its input as c10 does (Note [c10 casts]): negative bfloat16 values become
    uint8 by wrapping through int64 (ml_dtypes' direct cast saturates them to 0)."""
    gt, th = _both(lambda m: call(m, m.tensor([-5.0, -1.5, 3.0, -0.5], dtype=m.bfloat16)))
    assert_same(gt, th)


@pytest.mark.parametrize("call", [
    lambda m, x: x.index_add_(0, m.tensor([0, 1]), m.zeros(2, 3, 0)),
    lambda m, x: x.index_copy_(1, m.tensor([2]), m.zeros(2, 1, 0)),
    lambda m, x: x.masked_scatter_(m.zeros(2, 3, 0, dtype=m.bool), m.zeros(0)),
], ids=["index_add_", "index_copy_", "masked_scatter_"])
def test_an_empty_self_is_never_overlapping(call):
    """A zero stride on an empty tensor shares no element: PyTorch's has_internal_overlap says NO for it."""
    def run(m):
        x = m.zeros(1).as_strided((2, 3, 0), (0, 0, 1))
        return call(m, x)
    gt, th = _both(run)
    assert_same(gt, th)


@pytest.mark.parametrize("out", [lambda m: m.zeros(3).expand(2, 3), lambda m: m.zeros(1).expand(4),
                                 lambda m: m.zeros(1, dtype=m.int64).expand(4), lambda m: m.zeros(0)],
                         ids=["expanded", "expanded_to_resize", "wrong_dtype_first", "empty"])
def test_index_select_out_refuses_an_overlapping_out(out):
    """index_select(out=) checks the out's internal overlap after its dtype and before the resize."""
    def call(m):
        return m.index_select(m.ones(3, 3), 0, m.tensor([0, 1]), out=out(m))
    if out(torch).numel() == 0:
        gt, th = _both(call)
        assert_same(gt, th)
    else:
        assert_same_error(lambda: call(glasstorch), lambda: call(torch))


@pytest.mark.parametrize("shape", [(3, 1), (1, 3), (0, 3), (3, 0), (2, 0, 1), (2, 1, 3)])
@pytest.mark.parametrize("form", ["tensor_scalar", "scalar", "tensor_scalar_out", "scalar_out", "inplace"])
@pytest.mark.parametrize("exponent", [2, 0.5, 1, 0, -1, 2.5])
def test_pow_with_a_scalar_is_laid_out_as_pytorch_meta(shape, form, exponent):
    """pow.Tensor_Scalar is a unary op over ``self`` (the exponent is no 0-dim operand of the iterator: it gave
    strides (1, 1) for a transposed (3, 1) where PyTorch gives (3, 1)); pow.Scalar's output is row-major. The same
    layout applies when an empty ``out=`` is resized."""
    def run(m):
        x = m.arange(1.0, 1 + m.ones(shape).numel()).reshape(shape).transpose(0, -1)
        if form == "tensor_scalar":
            return m.pow(x, exponent)
        if form == "scalar":
            return m.pow(exponent, x)
        if form == "inplace":
            return x.pow_(exponent)
        out = m.empty(0)
        return m.pow(x, exponent, out=out) if form == "tensor_scalar_out" else m.pow(exponent, x, out=out)
    gt, th = _both(run)
    assert_same(gt, th)


def _expanded(m, *shape, dtype=None):
    """An out= whose elements share one memory location (stride 0 on every dim)."""
    return m.zeros(1, dtype=dtype or m.float32).expand(*shape)


_INTERNAL_OVERLAP_OUTS = {
    "mm": lambda m: m.mm(m.ones(2, 2), m.ones(2, 2), out=_expanded(m, 2, 2)),
    "mm_k0": lambda m: m.mm(m.ones(2, 0), m.ones(0, 2), out=_expanded(m, 2, 2)),
    "mm_large": lambda m: m.mm(m.ones(64, 64), m.ones(64, 64), out=_expanded(m, 64, 64)),
    "matmul": lambda m: m.matmul(m.ones(2, 2), m.ones(2, 2), out=_expanded(m, 2, 2)),
    "addmm": lambda m: m.addmm(m.ones(2, 2), m.ones(2, 2), m.ones(2, 2), out=_expanded(m, 2, 2)),
    "addmm_beta0": lambda m: m.addmm(m.ones(2, 2), m.ones(2, 2), m.ones(2, 2), beta=0, out=_expanded(m, 2, 2)),
    "addmm_k0": lambda m: m.addmm(m.ones(2, 2), m.ones(2, 0), m.ones(0, 2), out=_expanded(m, 2, 2)),
    "addmm_k0_beta0": lambda m: m.addmm(m.ones(2, 2), m.ones(2, 0), m.ones(0, 2), beta=0, out=_expanded(m, 2, 2)),
    "bmm_small": lambda m: m.bmm(m.ones(2, 2, 2), m.arange(8.0).view(2, 2, 2), out=_expanded(m, 2, 2, 2)),
    "bmm_large": lambda m: m.bmm(m.ones(2, 64, 64), m.ones(2, 64, 64), out=_expanded(m, 2, 64, 64)),
    "baddbmm": lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 2), m.ones(2, 2, 2), out=_expanded(m, 2, 2, 2)),
    "baddbmm_beta0": lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 2), m.ones(2, 2, 2), beta=0,
                                         out=_expanded(m, 2, 2, 2)),
    "addbmm_beta0": lambda m: m.addbmm(m.ones(2, 2), m.ones(2, 2, 2), m.ones(2, 2, 2), beta=0,
                                       out=_expanded(m, 2, 2)),
    "addmv": lambda m: m.addmv(m.ones(2), m.ones(2, 2), m.ones(2), out=_expanded(m, 2)),
    "addmv_beta0": lambda m: m.addmv(m.ones(2), m.tensor([[1.0, 2.0], [3.0, 4.0]]), m.ones(2), beta=0,
                                     out=_expanded(m, 2)),
    "mv": lambda m: m.mv(m.tensor([[1.0, 2.0], [3.0, 4.0]]), m.ones(2), out=_expanded(m, 2)),
    "cat": lambda m: m.cat([m.ones(2), m.ones(2)], out=_expanded(m, 4)),
    "cat_empty": lambda m: m.cat([m.ones(0), m.ones(0)], out=_expanded(m, 4)),
    "stack": lambda m: m.stack([m.ones(2), m.ones(2)], out=_expanded(m, 2, 2)),
    "sort_values": lambda m: m.sort(m.ones(4), out=(_expanded(m, 4), m.empty(4, dtype=m.long))),
    "sort_indices": lambda m: m.sort(m.ones(4), out=(m.empty(4), _expanded(m, 4, dtype=m.long))),
    "topk": lambda m: m.topk(m.ones(4), 2, out=(m.empty(2), _expanded(m, 2, dtype=m.long))),
    "kthvalue": lambda m: m.kthvalue(m.ones(2, 4), 2, out=(_expanded(m, 2), m.empty(2, dtype=m.long))),
    "max_dim": lambda m: m.max(m.ones(2, 4), 1, out=(m.empty(2), _expanded(m, 2, dtype=m.long))),
    "median_dim": lambda m: m.median(m.ones(2, 4), 1, out=(_expanded(m, 2), m.empty(2, dtype=m.long))),
    "mode": lambda m: m.mode(m.ones(2, 4), 1, out=(_expanded(m, 2), m.empty(2, dtype=m.long))),
    "sum_dim": lambda m: m.sum(m.ones(2, 4), 1, out=_expanded(m, 2)),
    "mean_dim": lambda m: m.mean(m.ones(2, 4), 1, out=_expanded(m, 2)),
    "logsumexp": lambda m: m.logsumexp(m.ones(2, 4), 1, out=_expanded(m, 2)),
    "take": lambda m: m.take(m.ones(4), m.zeros(4, dtype=m.long), out=_expanded(m, 4)),
    "masked_select": lambda m: m.masked_select(m.ones(4), m.ones(4, dtype=m.bool), out=_expanded(m, 4)),
    "nonzero": lambda m: m.nonzero(m.ones(4), out=_expanded(m, 4, 1, dtype=m.long)),
    "searchsorted": lambda m: m.searchsorted(m.arange(4.0), m.ones(4), out=_expanded(m, 4, dtype=m.long)),
}


@pytest.mark.parametrize("case", _INTERNAL_OVERLAP_OUTS)
def test_an_out_whose_elements_share_memory(case):
    """Kernels that write outside TensorIterator refuse an internally overlapping out= where PyTorch's do (an
    explicit assert_no_internal_overlap, or the copy_/in-place step they write with), and only there: PyTorch's
    small bmm loops, mv, a zero-beta k=0 addmm and sum write it, the last write winning. mv had handed BLAS a zero
    increment, which it refused ('parameter number 11 had an illegal value'), leaving zeros."""
    def run(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a resized non-empty out warns in both
            r = _INTERNAL_OVERLAP_OUTS[case](m)
        return r if isinstance(r, tuple) else (r,)
    try:
        expected = run(torch)
    except RuntimeError:
        assert_same_error(lambda: run(glasstorch), lambda: run(torch))
        return
    for g, t in zip(run(glasstorch), expected, strict=True):
        assert_same(g, t)


@pytest.mark.parametrize("start", [0, 1])
def test_reshape_alias_is_a_view_op(start):
    """aten._reshape_alias (reshape's alias in PyTorch's traces) was missing: a view with the given sizes and
    strides at the input's storage offset, sharing its version counter, ReshapeAliasBackward0 (and
    ReshapeAliasBackward0_copy for _reshape_alias_copy)."""
    def run(m):
        x = m.arange(12.0).reshape(4, 3)
        leaf = x.clone().requires_grad_()
        base = leaf * 1
        v = m.ops.aten._reshape_alias(base[start:], ((4 - start) * 3,), (1,))
        c = m._reshape_alias_copy(base, (3, 4), (4, 1))
        (v.sum() + (c * m.arange(12.0).view(3, 4)).sum()).backward()
        v.add_(1)
        return (v, c, leaf.grad, type(v.grad_fn).__name__, type(c.grad_fn).__name__, v._base is base,
                v._version == base._version, v.storage_offset())
    g, t = _both(run)
    for a, b in zip(g[:3], t[:3], strict=True):
        assert_same(a, b)
    assert g[3:] == t[3:]


@pytest.mark.parametrize("shape,index", [((4, 3), (slice(None, None, 2),)), ((4, 3), "t"),
                                         ((3,), (slice(0, None, 2),))])
def test_reshape_of_a_viewable_non_contiguous_tensor_is_reshape_alias(shape, index):
    """reshape takes ``view`` only for a contiguous input; another viewable one goes through _reshape_alias with
    computeStride's strides (ReshapeAliasBackward0; it gave ViewBackward0), as PyTorch's reshape does."""
    def run(m):
        x = m.arange(1.0, 1 + m.ones(shape).numel()).reshape(shape).requires_grad_()
        y = x.t() if index == "t" else x[index]
        r = y.reshape(-1, 2) if y.numel() % 2 == 0 else y.reshape(y.numel())
        (r * m.arange(float(r.numel())).view(r.shape)).sum().backward()
        return r, x.grad, type(r.grad_fn).__name__, r._base is x
    g, t = _both(run)
    assert_same(g[0], t[0])
    assert_same(g[1], t[1])
    assert g[2:] == t[2:]


@pytest.mark.parametrize("kw", [{"beta": 2, "threshold": 1}, {}, {"beta": -1, "threshold": 0.5}])
def test_softplus_double_backward_is_its_own_formula(kw):
    """softplus_backward is an operator (SoftplusBackwardBackward0) whose derivative in self is PyTorch's
    softplus_double_backward: zero from beta * x >= threshold on (strict <), while the first derivative there is
    still the smooth one; differentiating our where() composition gave a non-zero value at beta * x == threshold."""
    def run(m):
        x = m.tensor([0.5, -1.0, 3.0, 0.0, 25.0], dtype=m.float64, requires_grad=True)
        y = m.nn.functional.softplus(x, **kw)
        g = m.autograd.grad((y * m.arange(1.0, 6.0, dtype=m.float64)).sum(), x, create_graph=True)[0]
        gg = m.autograd.grad((g * g).sum(), x, create_graph=True)[0]
        return g, gg, type(g.grad_fn).__name__, type(gg.grad_fn).__name__
    g, t = _both(run)
    assert_same(g[0], t[0], rtol=1e-12, atol=1e-12)
    assert_same(g[1], t[1], rtol=1e-12, atol=1e-12)
    assert g[2:] == t[2:]


@pytest.mark.parametrize("shape,dim", [((1, 3), 0), ((3, 1), 1), ((2, 1, 2), 1), ((1, 3), 1), ((2, 0, 1), 2)])
def test_cumprod_gradient_along_a_size_one_dim_is_the_incoming_gradient(shape, dim):
    """cumprod along a size-1 dim is the identity, and PyTorch's cumprod_backward returns the gradient as it came:
    under create_graph it does not require grad (ours divided by the input and did)."""
    def run(m):
        x = (m.arange(1.0, 1 + m.ones(shape).numel()).reshape(shape) * 0.5).requires_grad_()
        g = m.autograd.grad((x.cumprod(dim) * 3).sum(), x, create_graph=True)[0]
        return g, g.requires_grad, type(g.grad_fn).__name__
    g, t = _both(run)
    assert_same(g[0].detach(), t[0].detach())
    assert g[1:] == t[1:]


@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_tanh_and_sigmoid_gradients_are_operators(op, dtype):
    """tanh's and sigmoid's derivatives are the tanh_backward/sigmoid_backward operators (TanhBackwardBackward0,
    SigmoidBackwardBackward0 under create_graph; they were MulBackward0), computed as PyTorch's kernels: float
    opmath for bfloat16, float16 step by step for sigmoid_backward."""
    def run(m):
        x = m.tensor([[0.3, -0.5, 2.2], [0.7, -3.1, 1.9]], dtype=getattr(m, dtype), requires_grad=True)
        y = getattr(x, op)()
        g = m.autograd.grad((y * 7.3).sum(), x, create_graph=True)[0]
        gg = m.autograd.grad((g * g).sum(), x, create_graph=True)[0]
        return g, gg, type(g.grad_fn).__name__, type(gg.grad_fn).__name__
    g, t = _both(run)
    tol = {"rtol": 1e-12, "atol": 1e-12} if dtype == "float64" else {"rtol": 2e-2, "atol": 2e-2}  # tanh's own ulps
    assert_same(g[0], t[0], **tol)
    assert_same(g[1], t[1], **tol)
    assert g[2:] == t[2:]


@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_tanh_and_sigmoid_complex_double_backward(op):
    """The derivative operators' own formulas conjugate as PyTorch's: tanh_backward's output formula is
    grad.conj() * (-2 * output.conj() * grad_output), sigmoid_backward's grad.conj() * grad_output * (1 - 2 *
    output.conj())."""
    def run(m):
        x = m.tensor([0.3 + 0.2j, -0.5 + 1j], dtype=m.complex128, requires_grad=True)
        y = getattr(x, op)()
        g = m.autograd.grad(y, x, grad_outputs=m.tensor([1 + 0.5j, 2 - 1j], dtype=m.complex128), create_graph=True)[0]
        return g, m.autograd.grad(g, x, grad_outputs=m.tensor([0.5 - 1j, 1 + 1j], dtype=m.complex128))[0]
    g, t = _both(run)
    assert_same(g[0].detach(), t[0].detach(), rtol=1e-12, atol=1e-12)
    assert_same(g[1], t[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda x: x.sub(x).prod(0),
    lambda x: x.sub(x).prod(0, keepdim=True),
    lambda x: x.sub(x).prod(),
    lambda x: (x * 0).unsqueeze(1).prod(1),
], ids=["prod_dim", "prod_dim_keepdim", "prod_all", "prod_size1_dim"])
def test_prod_over_a_size_1_dim_passes_the_gradient_through(call):
    """autograd/formulas._prod_safe_zeros_backward: over a dim of size 1 the gradient is grad itself, as torch's
    prod_safe_zeros_backward; it multiplied by the (empty) exclusive products of the input, so under create_graph
    the result required grad through x where torch's does not."""
    def run(m):
        x = m.tensor([-1.5], dtype=m.float64, requires_grad=True)
        y = m.tensor(-1.5, dtype=m.float64, requires_grad=True)
        g = m.autograd.grad(call(x).sum(), (x, y), create_graph=True, allow_unused=True)
        return g[0], g[0].requires_grad, g[0].grad_fn is None, g[1]
    got, want = _both(run)
    assert_same(got[0], want[0])
    assert got[1:] == want[1:]


@pytest.mark.parametrize("at", [0.0, -1.25, 2.5])
def test_log_sigmoid_double_backward_is_exact_at_zero(at):
    """log_sigmoid's derivative is the log_sigmoid_backward operator with PyTorch's own double-backward formula
    (LogSigmoidBackwardBackward0): the composite where/abs/exp glasstorch used gave a zero second derivative at
    exactly x == 0 (abs has a zero gradient there), found as sin(sin(x - x)) under create_graph."""
    def run(m):
        x = m.tensor(at, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(m.nn.functional.logsigmoid(x), (x,), create_graph=True)
        (gg,) = m.autograd.grad(g, (x,))
        return g, type(g.grad_fn).__name__, gg
    got, want = _both(run)
    assert_same(got[0], want[0])
    assert got[1] == want[1]
    assert_same(got[2], want[2])


def test_broadcast_error_counts_the_dim_in_the_pair_frame():
    """_core/shape.broadcast_shapes folds the shapes one at a time, as TensorIterator's compute_shape: a mismatch
    names its dimension in the frame of the running shape and the new one (where's 1-d condition and 1-d self
    clash at dimension 0 even though the 2-d other makes the result 2-d)."""
    def run(m):
        return m.where(m.tensor([False, False]), m.tensor([], dtype=m.uint8), m.tensor([[0]], dtype=m.uint8))
    assert_same_error(lambda: run(glasstorch), lambda: run(torch))
    assert_same_error(lambda: glasstorch.zeros(2, 3) + glasstorch.zeros(4, 1, 2),
                      lambda: torch.zeros(2, 3) + torch.zeros(4, 1, 2))
