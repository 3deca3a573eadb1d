"""Tensor API corners against real PyTorch: type strings in messages, saved-view version errors, ``Tensor.H``/
``mH``/``T``, in-place view ops, ``new``/``set_``/``storage()``, ``del x[i]`` and string slices.

Every case is built the same way in both libraries (``m`` is ``glasstorch`` or ``torch``) and compared with
``tests/oracle.py``: values, geometry, dtypes, the exception type and its message, and the warnings.
"""


import io
import json
import math
import subprocess
import sys
import warnings

import pytest
import torch
from oracle import assert_same, assert_same_error

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


# -- T, H, mT, mH, adjoint ----------------------------------------------------------------------------------------
TRANSPOSES = {
    "T": lambda x: x.T, "H": lambda x: x.H, "mT": lambda x: x.mT, "mH": lambda x: x.mH,
    "adjoint": lambda x: x.adjoint(),
    "adjoint_function": lambda x: torch_or_gt(x).adjoint(x),
}
_WARNINGS = """
import json, warnings, {lib} as torch
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as w:
    {expr}
    {expr}
print(json.dumps([str(x.message).split(" (Triggered internally")[0] for x in w]))
"""


def _fresh_process(script: str):
    """What ``script`` prints as JSON, run in a fresh Python (once-per-process warnings and state start over)."""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("attr", TRANSPOSES)
def test_transpose_attributes(attr, shape):
    def build(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return TRANSPOSES[attr](m.arange(24.0)[: math.prod(shape)].reshape(shape))
    try:
        want = build(torch)
    except RuntimeError:
        _raises_same(build)
    else:
        assert_same(build(glasstorch), want)


@pytest.mark.parametrize("expr", ["torch.ones(()).T", "torch.ones(3).T", "torch.ones(2, 3, 4).T", "torch.ones(()).H",
                                  "torch.ones(2, 3).T", "torch.ones(()).mT", "torch.ones(()).mH",
                                  "torch.ones(()).adjoint()"])
def test_transpose_attribute_warnings(expr):
    """Evaluated twice in a fresh process: the warning (TORCH_WARN_ONCE) comes once."""
    got, want = (_fresh_process(_WARNINGS.format(lib=lib, expr=expr)) for lib in ("glasstorch", "torch"))
    assert got == want


# -- del x[i] and string indices ----------------------------------------------------------------------------------
STRING_INDICES = {
    "del": lambda x: x.__delitem__(0),
    "start": lambda x: x["a":],
    "stop": lambda x: x[:"a"],
    "step": lambda x: x[::"a"],
    "float_start": lambda x: x[1.5:],
    "zero_step_first": lambda x: x["a"::0],
    "item": lambda x: x["a"],
    "set_item": lambda x: x.__setitem__("a", 1),
    "set_slice": lambda x: x.__setitem__(slice("a", None), 1),
    "tuple": lambda x: x[0, "a":],
}


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
@pytest.mark.parametrize("case", STRING_INDICES)
def test_bad_indices(case):
    _raises_same(lambda m: STRING_INDICES[case](m.ones(3, 3)))


# -- in-place view ops: the tensor takes the view's geometry ------------------------------------------------------
INPLACE_VIEWS = {
    "t_": lambda x: x.t_(),
    "transpose_": lambda x: x.transpose_(0, -1),
    "swapdims_": lambda x: x.swapdims_(0, 1),
    "swapaxes_": lambda x: x.swapaxes_(-1, 0),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "unsqueeze_neg": lambda x: x.unsqueeze_(-1),
    "squeeze_": lambda x: x.squeeze_(),
    "squeeze_dim": lambda x: x.squeeze_(1),
    "squeeze_dim_kw": lambda x: x.squeeze_(dim=0),
    "squeeze_dims": lambda x: x.squeeze_((0, 1)),
    "squeeze_axis": lambda x: x.squeeze_(axis=0),
    "as_strided_": lambda x: x.as_strided_((2, 2), (1, 2), 1),
    "as_strided_fn": lambda x: torch_or_gt(x).as_strided_(x, (3,), (2,)),
}


def torch_or_gt(x):
    return torch if isinstance(x, torch.Tensor) else glasstorch


IV_SOURCES = {
    "contiguous": lambda m: m.arange(6.0).view(2, 3),
    "size_one": lambda m: m.arange(3.0).view(1, 3),
    "transposed": lambda m: m.arange(6.0).view(3, 2).t(),
    "view_of_base": lambda m: m.arange(12.0).view(3, 4)[1:, 1:],
}


@pytest.mark.parametrize("src", IV_SOURCES)
@pytest.mark.parametrize("op", INPLACE_VIEWS)
def test_inplace_view_geometry_and_version(op, src):
    def build(m):
        x = IV_SOURCES[src](m)
        v0 = x._version
        out = INPLACE_VIEWS[op](x)
        return x, out is x, x._version - v0, x._base is not None
    try:
        want = build(torch)
    except RuntimeError:
        _raises_same(build)
        return
    got = build(glasstorch)
    assert_same(got[0], want[0])
    assert got[1:] == want[1:]


@pytest.mark.parametrize("op", INPLACE_VIEWS)
@pytest.mark.parametrize("on_view", [False, True])
def test_inplace_view_autograd(op, on_view):
    def build(m):
        a = m.arange(1.0, 13.0, dtype=m.float64).view(3, 4).requires_grad_()
        x = (a * 2)[:2, :3] if on_view else (a * 2)[:2, :3].clone()
        out = INPLACE_VIEWS[op](x)
        (out * m.arange(float(out.numel()), dtype=m.float64).view(out.shape)).sum().backward()
        return a.grad, x.grad_fn.name(), x._base is not None
    want = build(torch)
    got = build(glasstorch)
    assert_same(got[0], want[0])
    assert got[1:] == want[1:]


@pytest.mark.parametrize("op", ["t_", "unsqueeze_", "squeeze_", "as_strided_"])
def test_inplace_view_of_leaf_requiring_grad(op):
    _raises_same(lambda m: INPLACE_VIEWS[op](m.ones(2, 3, requires_grad=True)))


INPLACE_VIEW_ERRORS = {
    "t_3d": lambda m: m.ones(2, 3, 4).t_(),
    "transpose_dim": lambda m: m.ones(2, 3).transpose_(0, 2),
    "unsqueeze_dim": lambda m: m.ones(2, 3).unsqueeze_(3),
    "squeeze_dim": lambda m: m.ones(2, 3).squeeze_(2),
    "squeeze_dup": lambda m: m.ones(2, 1).squeeze_((1, 1)),
    "as_strided_bounds": lambda m: m.ones(4).as_strided_((3,), (2,)),
    "as_strided_neg": lambda m: m.ones(4).as_strided_((2,), (-1,)),
    "squeeze_bad_kwarg": lambda m: m.ones(2, 1).squeeze_(dims=1),
}


@pytest.mark.parametrize("case", INPLACE_VIEW_ERRORS)
def test_inplace_view_errors(case):
    _raises_same(INPLACE_VIEW_ERRORS[case])


# -- Tensor.new: PyTorch's legacy constructor ---------------------------------------------------------------------
NEW_CASES = {
    "empty": lambda m, x: x.new(),
    "sizes": lambda m, x: x.new(2, 3),
    "one_size": lambda m, x: x.new(5),
    "torch_size": lambda m, x: x.new(m.Size([2, 3])),
    "size_kw": lambda m, x: x.new(size=(2, 3)),
    "tuple_is_data": lambda m, x: x.new((2, 3)),
    "list": lambda m, x: x.new([1, 2]),
    "nested": lambda m, x: x.new([[1, 2], [3, 4]]),
    "empty_list": lambda m, x: x.new([]),
    "data_kw": lambda m, x: x.new(data=[1]),
    "device": lambda m, x: x.new([1, 2], device="cpu"),
    "tensor": lambda m, x: x.new(x),
    "untyped_storage": lambda m, x: x.new(x.untyped_storage()),
    "typed_storage": lambda m, x: x.new(x.storage()),
    "0d_tensor": lambda m, x: x.new(m.tensor(5.0, dtype=x.dtype)),
}
NEW_ERRORS = {
    "scalar": lambda m, x: x.new(3.5),
    "bool": lambda m, x: x.new(True),
    "dtype_kw": lambda m, x: x.new(2, dtype=m.int32),
    "other_dtype": lambda m, x: x.new(m.ones(2, dtype=m.int64)),
    "tensor_device": lambda m, x: x.new(x, device="cpu"),
    "device_type": lambda m, x: x.new(device="meta"),
    "typed_storage_dtype": lambda m, x: x.new(x.double().storage()),
    "two_tensors": lambda m, x: x.new(x, x),
    "negative": lambda m, x: x.new(2, -1),
    "bad_size": lambda m, x: x.new(2, 3.5),
    "ragged": lambda m, x: x.new([[1, 2], [3]]),
}


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("dtype", ["float32", "int64", "float64"])
@pytest.mark.parametrize("case", NEW_CASES)
def test_tensor_new(case, dtype):
    def build(m):
        x = m.arange(4, dtype=getattr(m, dtype))
        out = NEW_CASES[case](m, x)
        return out, out.data_ptr() == x.data_ptr(), out._base is x, out.requires_grad
    got, want = build(glasstorch), build(torch)
    if case in ("sizes", "one_size", "torch_size", "size_kw"):  # uninitialised: compare all but the values
        assert (tuple(got[0].shape), got[0].stride(), repr(got[0].dtype)) == (
            tuple(want[0].shape), want[0].stride(), repr(want[0].dtype))
    else:
        assert_same(got[0], want[0])
    assert got[1:] == want[1:]


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("case", NEW_ERRORS)
def test_tensor_new_errors(case):
    _raises_same(lambda m: NEW_ERRORS[case](m, m.arange(4.0)))


# -- Tensor.set_ --------------------------------------------------------------------------------------------------
SET_CASES = {
    "empty": lambda m, x, s: x.set_(),
    "tensor": lambda m, x, s: x.set_(s.view(2, 3)),
    "tensor_kw": lambda m, x, s: x.set_(source=s[1:]),
    "self": lambda m, x, s: x.set_(x),
    "tensor_geometry": lambda m, x, s: x.set_(s, 1, (2, 2), (1, 2)),
    "storage": lambda m, x, s: x.set_(s.untyped_storage()),
    "storage_geometry": lambda m, x, s: x.set_(s.untyped_storage(), 1, (2, 2), (1, 2)),
    "storage_no_stride": lambda m, x, s: x.set_(s.untyped_storage(), 1, [2, 2]),
    "storage_none_stride": lambda m, x, s: x.set_(s.untyped_storage(), 0, m.Size([2, 3]), None),
    "typed_storage": lambda m, x, s: x.set_(s.storage(), 2, (2,)),
    "grows_storage": lambda m, x, s: x.set_(s.untyped_storage(), 0, (7,))[:6],  # other sizes: the storage grows
    "grows_strided": lambda m, x, s: x.set_(s.untyped_storage(), 2, (2, 3), (4, 1))[:1],
    "same_sizes_keep_strides": lambda m, x, s: x[::2].set_(s.untyped_storage(), 1, (2,)),
}
SET_ERRORS = {
    "dtype": lambda m, x, s: x.set_(s.double()),
    "typed_dtype": lambda m, x, s: x.set_(s.double().storage()),
    "typed_int": lambda m, x, s: x.int().set_(s.storage()),
    "out_of_bounds": lambda m, x, s: x.set_(m.arange(2.0).untyped_storage(), 0, (3,)),  # same sizes: no resize
    "negative_offset": lambda m, x, s: x.set_(s.untyped_storage(), -1, (1,)),
    "stride_length": lambda m, x, s: x.set_(s.untyped_storage(), 0, (1,), (1, 2)),
    "device": lambda m, x, s: x.set_(m.ones(2, device="meta")),
    "int": lambda m, x, s: x.set_(1),
    "overflow": lambda m, x, s: x.set_(s.untyped_storage(), 0, (2**62, 2**62)),
    "leaf": lambda m, x, s: m.ones(2, requires_grad=True).set_(),  # the autograd fallback's check_inplace
}


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("case", SET_CASES)
def test_tensor_set_(case):
    def build(m):
        x, s = m.ones(3), m.arange(6.0)
        out = SET_CASES[case](m, x, s)
        return out, out is x, x._version, s._version, x.data_ptr() == s.data_ptr()
    got, want = build(glasstorch), build(torch)
    assert_same(got[0], want[0])
    assert got[1:] == want[1:]


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("case", SET_ERRORS)
def test_tensor_set_errors(case):
    _raises_same(lambda m: SET_ERRORS[case](m, m.ones(3), m.arange(6.0)))


def test_set_autograd():
    def build(m):
        a = m.ones(3, requires_grad=True)
        y = (a * 2).set_(m.arange(2.0))  # a non-leaf: recorded with a node that refuses backward
        z = m.ones(2).set_(a * 1)  # a source that requires grad
        return type(y.grad_fn).__name__, y.grad_fn.name(), z.requires_grad, y._version
    assert build(glasstorch) == build(torch)


# -- storage() / TypedStorage -------------------------------------------------------------------------------------
STORAGE_CASES = {
    "type": lambda m, x: type(x.storage()).__name__,
    "isinstance": lambda m, x: isinstance(x.storage(), m.TypedStorage),
    "dtype": lambda m, x: repr(x.storage().dtype),
    "size": lambda m, x: (x.storage().size(), len(x[1:].storage())),
    "items": lambda m, x: (x.storage()[1], x.storage()[-1], type(x.storage()[0]).__name__),
    "tolist": lambda m, x: x.storage().tolist(),
    "untyped": lambda m, x: (type(x.storage()._untyped_storage).__name__, x.storage()._untyped_storage.nbytes(),
                             x.storage().untyped() is x.untyped_storage()),
    "sizes": lambda m, x: (x.storage().element_size(), x.storage().nbytes(), x.storage().type(),
                           str(x.storage().device)),
    "data_ptr": lambda m, x: x.storage().data_ptr() == x.untyped_storage().data_ptr(),
    "repr": lambda m, x: repr(x.storage()),
    "repr_meta": lambda m, x: repr(x.to("meta").storage()),
    "setitem": lambda m, x: (x.storage().__setitem__(0, 9), x.tolist())[1],
    "new_storage": lambda m, x: (m.TypedStorage(3).size(), repr(m.TypedStorage(2, dtype=m.int32).dtype)),
    "from_list": lambda m, x: (m.TypedStorage([1, 2, 3]).tolist(), m.TypedStorage([1, 2], dtype=m.int32).tolist()),
    "wrap": lambda m, x: m.TypedStorage(wrap_storage=x.untyped_storage(), dtype=m.uint8).size(),
    "empty_repr": lambda m, x: repr(m.TypedStorage(0)),
}
STORAGE_ERRORS = {
    "out_of_range": lambda m, x: x.storage()[10],
    "negative": lambda m, x: x.storage()[-5],
    "float_index": lambda m, x: x.storage()[1.5],
    "slice": lambda m, x: x.storage()[0:1],
}


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "float16", "bfloat16"])
@pytest.mark.parametrize("case", STORAGE_CASES)
def test_typed_storage(case, dtype):
    def build(m):
        return STORAGE_CASES[case](m, m.arange(4).to(getattr(m, dtype)))
    assert build(glasstorch) == build(torch)


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("case", STORAGE_ERRORS)
def test_typed_storage_errors(case):
    assert_same_error(lambda: STORAGE_ERRORS[case](glasstorch, glasstorch.arange(4.0)),
                                       lambda: STORAGE_ERRORS[case](torch, torch.arange(4.0)))


_FIRST_STORAGE = """
import json, warnings, {lib} as torch
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    s = torch.arange(3.0).storage()
    torch.TypedStorage(2)
    torch.arange(2.0).storage()
print(json.dumps([str(x.message) for x in w]))
"""


def test_typed_storage_deprecation_warns_once_per_process():
    assert _fresh_process(_FIRST_STORAGE.format(lib="glasstorch")) == _fresh_process(_FIRST_STORAGE.format(lib="torch"))


# -- unflatten's errors and lerp's operand checks -----------------------------------------------------------------
UNFLATTEN = {
    "product": lambda m: m.ones(2, 6).unflatten(1, (4, 2)),
    "product_with_infer": lambda m: m.ones(2, 6).unflatten(1, (-1, 5)),
    "empty_sizes": lambda m: m.ones(2, 6).unflatten(1, ()),
    "two_inferred": lambda m: m.ones(2, 6).unflatten(1, (-1, -1)),
    "ambiguous": lambda m: m.ones(2, 0).unflatten(1, (-1, 0)),
    "negative": lambda m: m.ones(2, 6).unflatten(1, (-2, 3)),
    "zero_dim": lambda m: m.tensor(1.0).unflatten(0, (1,)),
    "dim_range": lambda m: m.ones(2, 6).unflatten(5, (2, 3)),
    "function": lambda m: m.unflatten(m.ones(2, 6), 1, (4, 2)),
    "fine": lambda m: m.ones(2, 6).unflatten(-1, m.Size([2, -1])),
}


@pytest.mark.parametrize("case", UNFLATTEN)
def test_unflatten(case):
    def outcome(m):
        try:
            return UNFLATTEN[case](m).shape
        except Exception as e:  # noqa: BLE001 - the error is the outcome compared
            return type(e).__name__, str(e).split("\nException raised from")[0]  # less torch's C++ backtrace
    assert outcome(glasstorch) == outcome(torch)


LERP = {
    "end_dtype": lambda m: m.lerp(m.ones(2), m.ones(2, dtype=m.float64), 0.5),
    "self_dtype": lambda m: m.lerp(m.ones(2, dtype=m.float64), m.ones(2), 0.5),
    "weight_dtype": lambda m: m.lerp(m.ones(2), m.ones(2), m.ones(2, dtype=m.float64)),
    "weight_half": lambda m: m.lerp(m.ones(2), m.ones(2), m.ones(2, dtype=m.float16)),
    "integers": lambda m: m.lerp(m.ones(2, dtype=m.long), m.ones(2, dtype=m.long), 0.5),
    "shapes": lambda m: m.lerp(m.ones(2), m.ones(3), 0.5),
    "inplace_broadcast": lambda m: m.ones(2).lerp_(m.ones(2, 2), 0.5),
    "weight_shape": lambda m: m.ones(2).lerp_(m.ones(2), m.ones(2, 2)),
}


@pytest.mark.parametrize("case", LERP)
def test_lerp_errors(case):
    _raises_same(LERP[case])


def _in_no_grad(m, fn):
    with m.no_grad():
        return fn()


def _leaf(m):
    return m.arange(1.0, 13.0, dtype=m.float64).view(3, 4).requires_grad_()


INPLACE_VIEW_AUTOGRAD = {
    "multi_output_view": lambda m, a: (a * 1).unbind(0)[0].unsqueeze_(0),
    "no_grad_view": lambda m, a: (lambda b: _in_no_grad(m, lambda: b[0]).unsqueeze_(0))(a * 1),
    "under_no_grad": lambda m, a: (lambda b: (_in_no_grad(m, b.t_), b.grad_fn.name())[1])(a * 1),
    "then_write_view": lambda m, a: (lambda b: (lambda v: (v.t_(), v.mul_(2), b.sum().backward(), a.grad)[3])(b[1:]))(
        a * 1),
    "then_write_base": lambda m, a: (lambda b: (lambda v: (v.t_(), b.mul_(2), (v * v).sum().backward(), a.grad,
                                                          v.grad_fn.name())[3:])(b[1:]))(a * 1),
    "as_strided_view": lambda m, a: (lambda b: (lambda v: (v.as_strided_((2, 2), (1, 4), 1), (v * v).sum().backward(),
                                                          a.grad)[2])(b[1:]))(a * 1),
    "double_backward": lambda m, a: (lambda x: (x.t_(), m.autograd.grad((x**3).sum(), a, create_graph=True)[0].sum()
                                                .backward(), a.grad)[2])(a * 1),
    "retain_grad": lambda m, a: (lambda x: (x.retain_grad(), x.t_(), (x * m.arange(12.0, dtype=m.float64).view(4, 3))
                                            .sum().backward(), x.grad)[3])(a * 1),
    "chain": lambda m, a: (lambda x: (x.squeeze_(), x.unsqueeze_(-1), x.sum().backward(), a.grad,
                                      x.grad_fn.name())[3:])((a * 1)[:1]),
    "twice": lambda m, a: (lambda x: (x.t_(), x.t_(), x._version, x.grad_fn.name(),
                                      x.grad_fn.next_functions[0][0].name())[2:])(a * 1),
}


def _plain(v):
    """Tensors as (shape, values) so that results of both libraries compare with ==."""
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    if hasattr(v, "tolist") and hasattr(v, "shape"):
        return tuple(v.shape), v.tolist()
    return v


@pytest.mark.parametrize("case", INPLACE_VIEW_AUTOGRAD)
def test_inplace_view_autograd_corners(case):
    def outcome(m):
        try:
            return _plain(INPLACE_VIEW_AUTOGRAD[case](m, _leaf(m)))
        except Exception as e:  # noqa: BLE001 - the error is the outcome compared
            return type(e).__name__, str(e)
    assert outcome(glasstorch) == outcome(torch)


_SUBCLASS_CALLS = """
import json, sys, warnings
warnings.simplefilter("ignore")
import {lib} as lib
calls = []
class S(lib.Tensor):
    pass
class T(lib.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs or dict())
s = lib.ones(2).as_subclass(S)
kinds = [type(s.new(2)).__name__, type(s.set_()).__name__, type(s.t_()).__name__, type(s.unsqueeze_(0)).__name__]
t = lib.ones(2, 2).as_subclass(T)
t.new(2); t.set_(lib.ones(3)); t.t_(); t.squeeze_(); t.storage()
print(json.dumps([kinds, calls]))
"""


def test_subclasses_see_new_storage_and_inplace_views():
    got, want = (_fresh_process(_SUBCLASS_CALLS.format(lib=lib)) for lib in ("glasstorch", "torch"))
    assert got == want


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("writer,reader", [("glasstorch", "glasstorch"), ("torch", "glasstorch"),
                                           ("glasstorch", "torch")])
def test_typed_storage_checkpoints(writer, reader):
    """A saved ``tensor.storage()`` loads back as a TypedStorage over the same elements, across the libraries."""
    libs = {"glasstorch": glasstorch, "torch": torch}
    w, r = libs[writer], libs[reader]
    buf = io.BytesIO()
    w.save(w.arange(4, dtype=w.int32).storage(), buf)
    buf.seek(0)
    s = r.load(buf)
    assert (type(s).__name__, repr(s.dtype), s.tolist(), s[1]) == ("TypedStorage", "torch.int32", [0, 1, 2, 3], 1)


LEGACY_NAMES = ["DoubleStorage", "FloatStorage", "HalfStorage", "BFloat16Storage", "LongStorage", "IntStorage",
                "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage", "ComplexDoubleStorage",
                "ComplexFloatStorage"]


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("name", LEGACY_NAMES)
def test_legacy_storage_classes(name):
    def build(m):
        cls = getattr(m, name)
        s = cls(3)
        kinds = [isinstance(m.zeros(2, dtype=d).storage(), cls) for d in (m.float32, m.float64, m.int64, m.bool)]
        return (repr(cls.dtype), type(s).__name__, repr(s.dtype), s.size(), cls().size(), cls([1, 0]).tolist(),
                isinstance(s, m.TypedStorage), isinstance(s, cls), kinds, s.type())
    assert build(glasstorch) == build(torch)


def test_legacy_storage_takes_no_dtype():
    _raises_same(lambda m: m.FloatStorage(3, dtype=m.int32))


STORAGE_ITEM_ERRORS = {
    "bool_index": lambda m: m.arange(3.0).storage()[True],
    "meta_item": lambda m: m.ones(2, device="meta").storage()[0],
    "set_out_of_range": lambda m: m.arange(3.0).storage().__setitem__(5, 1.0),
    "set_float_index": lambda m: m.arange(3.0).storage().__setitem__(1.5, 7.0),
    "set_storage_value": lambda m: m.arange(3.0).storage().__setitem__(0, m.arange(3.0).storage()),
}


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("case", STORAGE_ITEM_ERRORS)
def test_typed_storage_item_errors(case):
    _raises_same(STORAGE_ITEM_ERRORS[case])


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_typed_storage_writes():
    def build(m):
        x = m.arange(4.0)
        s = x.storage()
        s[-1] = 7
        s[0:2] = 5.0
        return x.tolist(), list(s)
    assert build(glasstorch) == build(torch)


def test_adjoint_function_takes_a_tensor():
    _raises_same(lambda m: m.adjoint(3))


def _nograd(m, fn):
    with m.no_grad():
        return fn()


GEOMETRY_WRITES = {
    "no_grad_leaf_t_": lambda m: (lambda a: (_nograd(m, a.t_), a.shape, a.requires_grad, a.is_leaf, a._version)[1:])(
        m.ones(2, 3, requires_grad=True)),
    "detached_t_": lambda m: (lambda a: (a.detach().t_(), a.shape, a._version)[1:])(m.ones(2, 3)),
    "view_t_": lambda m: (lambda a: (lambda v: (v.t_(), a.shape, v.shape, v._base is a, a._version)[1:])(a[:, :2]))(
        m.ones(2, 3)),
    "t_then_write_a_view": lambda m: (lambda a: (lambda b: (b.t_(), b[0].mul_(2), b.sum().backward(), a.grad)[3])(
        a * 1))(m.ones(2, 3, requires_grad=True)),
    "squeeze_then_view": lambda m: (lambda a: (lambda b: (b.squeeze_(1), b.view(-1)._base is b,
                                                          b.view(-1).grad_fn.name())[1:])(a * 1))(
        m.ones(2, 1, requires_grad=True)),
    "new_of_a_view": lambda m: (lambda x: (x.new(2)._base is None, x.new(x)._base is x))(m.ones(4)[1:]),
    "set_on_a_view": lambda m: (lambda a: (lambda v: (v.set_(m.arange(3.0)), a._version, v._version, v._base is a,
                                                      a.fill_(7), v.tolist())[1:5] + (v.tolist(),))(a[1:]))(m.ones(4)),
    "storage_of_a_view": lambda m: (m.ones(4)[1:].storage().size(), m.ones(4)[1:].storage_offset()),
    "storage_after_resize": lambda m: (lambda x: (x.resize_(10), x.storage().size())[1])(m.ones(4)),
}


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("case", GEOMETRY_WRITES)
def test_geometry_writes_and_views(case):
    assert _plain(GEOMETRY_WRITES[case](glasstorch)) == _plain(GEOMETRY_WRITES[case](torch))
