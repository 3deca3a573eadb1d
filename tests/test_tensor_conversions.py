"""Tensor <-> Python/numpy conversions and dtype conversions against real PyTorch (glasstorch/tensor.py).

item/tolist/numpy/__int__/__float__/__bool__/__index__/__len__/__iter__, metadata accessors, ``to`` and the
dtype shortcuts (``float()``, ``long()`` ...), ``type``/``type_as``, ``requires_grad_`` errors and the errors
for ambiguous conversions.  Each case is built with ``m = glasstorch`` and ``m = torch`` and compared.
"""

import math
import operator
import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error, both, shares_storage

import glasstorch as gt

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]

# Per dtype: a few values it holds exactly (and that round-trip through Python scalars)
VALUES = {
    "bool": [True, False, True],
    "uint8": [0, 7, 255],
    "int8": [-128, 5, 127],
    "int16": [-300, 0, 32767],
    "int32": [-2**31, 12345, 2**31 - 1],
    "int64": [-2**63, 2**40 + 1, 2**63 - 1],
    "float16": [1.5, -0.099609375, 65504.0],
    "bfloat16": [1.5, -0.10009765625, 3.3895313892515355e38],
    "float32": [1.100000023841858, -2.5, 3.4028234663852886e38],
    "float64": [0.1, -1e300, math.pi],
    "complex64": [1 + 2j, -0.5j, 3.5],
    "complex128": [0.1 + 0.2j, -1e300j, 1],
}


def _dt(m, name):
    return getattr(m, name)


def _make(m, name, shape=(3,)):
    vals = VALUES[name]
    data = vals if shape == (3,) else [vals[:2], vals[1:]] if shape == (2, 2) else vals[0]
    return m.tensor(data, dtype=_dt(m, name))


def _same_python(got, want):
    """Same Python value and type, recursively (NaN equals NaN)."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same_python(g, w)
    elif isinstance(want, float) and math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == want, (got, want)


def _error(builder):
    return assert_same_error(lambda: builder(gt), lambda: builder(torch))


# -- Python scalars ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_item(name):
    for i in range(3):
        g, t = both(lambda m, i=i: _make(m, name)[i].item())
        _same_python(g, t)
    _same_python(_make(gt, name, ()).item(), _make(torch, name, ()).item())
    _same_python(_make(gt, name)[1:2].item(), _make(torch, name)[1:2].item())  # one element, 1-d


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 2)], ids=["0d", "1d", "2d"])
def test_tolist(name, shape):
    _same_python(_make(gt, name, shape).tolist(), _make(torch, name, shape).tolist())


def test_tolist_views_and_empty():
    for build in (lambda m: m.arange(6).reshape(2, 3).t(), lambda m: m.arange(12.0).reshape(3, 4)[:, ::2],
                  lambda m: m.zeros(0, 3), lambda m: m.zeros(2, 0), lambda m: m.arange(3.0).expand(2, 3)):
        _same_python(*both(lambda m, b=build: b(m).tolist()))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("conv", [int, float, bool, complex, operator.index])
def test_python_number_protocols(name, conv):
    for i in range(3):
        def build(m, i=i):
            return conv(_make(m, name)[i])
        try:
            want = build(torch)
        except Exception:  # noqa: BLE001 - the error itself is compared
            _error(build)
        else:
            _same_python(build(gt), want)


@pytest.mark.parametrize("value", [2.9, -2.9, 0.5, -0.0, 1e10])
def test_int_truncates_toward_zero(value):
    _same_python(*both(lambda m: int(m.tensor(value))))
    _same_python(*both(lambda m: int(m.tensor([value], dtype=m.float64))))


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_int_of_non_finite(value):
    _error(lambda m: int(m.tensor(value)))


SCALAR_ERRORS = {
    "item_many": lambda m: m.ones(2).item(),
    "item_empty": lambda m: m.ones(0).item(),
    "bool_many": lambda m: bool(m.ones(2)),
    "bool_empty": lambda m: bool(m.ones(0)),
    "int_many": lambda m: int(m.ones(2)),
    "int_empty": lambda m: int(m.ones(0)),
    "float_many": lambda m: float(m.ones(2, 2)),
    "complex_many": lambda m: complex(m.ones(3)),
    "index_many": lambda m: m.ones(2, dtype=m.int64).__index__(),
    "index_float": lambda m: m.tensor(1.5).__index__(),
    "index_float_whole": lambda m: operator.index(m.tensor(1.0)),
    "index_complex": lambda m: operator.index(m.tensor(1j)),
    "list_index_float": lambda m: [0, 1, 2][m.tensor(1.0)],
    "int_of_complex": lambda m: int(m.tensor(1 + 2j)),
    "float_of_complex": lambda m: float(m.tensor(1 + 2j)),
    "len_0d": lambda m: len(m.tensor(1)),
    "iter_0d": lambda m: iter(m.tensor(1)),
    "item_meta": lambda m: m.ones(1, device="meta").item(),
    "item_meta_many": lambda m: m.ones(2, device="meta").item(),
    "format_1d": lambda m: format(m.tensor([1.5]), ".2f"),
}


@pytest.mark.parametrize("name", list(SCALAR_ERRORS))
def test_scalar_conversion_errors(name):
    _error(SCALAR_ERRORS[name])


def test_index_protocol_uses():
    assert [0, 1, 2][gt.tensor(1)] == 1
    assert list(range(10))[gt.tensor(2):gt.tensor(5)] == [2, 3, 4]
    assert [0, 1, 2][gt.tensor([2])] == 2
    assert operator.index(gt.tensor(True)) == operator.index(torch.tensor(True))
    assert hex(gt.tensor(255, dtype=gt.uint8)) == hex(torch.tensor(255, dtype=torch.uint8))


def test_format():
    for spec in (".2f", "", "e", ">8.3f"):
        assert format(gt.tensor(1.5), spec) == format(torch.tensor(1.5), spec)
    assert format(gt.tensor(7), "03d") == format(torch.tensor(7), "03d")


# PyTorch's texts, without the " (Triggered internally at ...)" suffix; PyTorch may warn only once per process.
GRAD_SCALAR_WARNING = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                       "Consider using tensor.detach() first.")
COMPLEX_CAST_WARNING = "Casting complex values to real discards the imaginary part"


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message).split(" (Triggered internally")[0] for w in got]


def test_scalar_of_requires_grad_warns():
    g, messages = _warnings_of(lambda: float(gt.ones(1, requires_grad=True)))
    assert g == float(torch.ones(1, requires_grad=True))
    assert messages == [GRAD_SCALAR_WARNING]
    _same_python(gt.ones(1, requires_grad=True).item(), torch.ones(1, requires_grad=True).item())
    _same_python(gt.ones(2, requires_grad=True).tolist(), torch.ones(2, requires_grad=True).tolist())


# -- len / iter / metadata --------------------------------------------------------------------------------

def test_len_and_iter():
    for build in (lambda m: m.arange(6).reshape(2, 3), lambda m: m.arange(4.0), lambda m: m.zeros(0, 2)):
        g, t = both(build)
        assert len(g) == len(t)
        gl, tl = list(g), list(t)
        assert len(gl) == len(tl)
        for a, b in zip(gl, tl, strict=True):
            assert_same(a, b)
    rows = list(gt.arange(6).reshape(2, 3))
    rows[0][1] = 100  # iteration yields views
    assert rows[0]._base is not None


@pytest.mark.parametrize("name", NAMES)
def test_metadata(name):
    for shape in [(), (3,), (2, 2)]:
        g, t = both(lambda m, s=shape: _make(m, name, s))
        assert g.element_size() == t.element_size()
        assert g.itemsize == t.itemsize
        assert g.nbytes == t.nbytes
        assert g.numel() == t.numel() == g.nelement()
        assert g.dim() == t.dim() == g.ndim == g.ndimension()
        assert tuple(g.shape) == tuple(t.shape) and tuple(g.size()) == tuple(t.size())
        assert type(g.shape).__name__ == "Size" and isinstance(g.shape, tuple)
        assert g.is_floating_point() == t.is_floating_point()
        assert g.is_complex() == t.is_complex()
        assert g.is_signed() == t.is_signed()
        assert g.type() == t.type()


def test_size_dim():
    g, t = both(lambda m: m.zeros(2, 3, 4))
    for d in range(-3, 3):
        assert g.size(d) == t.size(d)
        assert g.shape[d] == t.shape[d]
    assert g.size(dim=1) == t.size(dim=1)
    _error(lambda m: m.zeros(2, 3).size(2))
    _error(lambda m: m.zeros(2, 3).size(-3))
    _error(lambda m: m.tensor(1).size(0))
    _error(lambda m: m.tensor(1).size(-1))
    assert tuple(gt.tensor(1).size()) == ()


# -- numpy --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [n for n in NAMES if n != "bfloat16"])
def test_numpy_each_dtype(name):
    g, t = both(lambda m: _make(m, name, (2, 2)))
    gn, tn = g.numpy(), t.numpy()
    assert gn.dtype == tn.dtype and gn.shape == tn.shape and gn.strides == tn.strides
    np.testing.assert_array_equal(gn, tn)
    assert type(gn) is np.ndarray


def test_numpy_shares_memory():
    g = gt.arange(6.0).reshape(2, 3)
    arr = g.numpy()
    arr[0, 1] = 42.0
    assert g[0, 1].item() == 42.0
    g[1, 2] = -1.0
    assert arr[1, 2] == -1.0
    view = g.t()[1:]
    varr, tarr = view.numpy(), torch.arange(6.0).reshape(2, 3).t()[1:].numpy()
    assert varr.strides == tarr.strides and varr.shape == tarr.shape
    varr[0, 0] = 9.0
    assert g[0, 1].item() == 9.0
    assert np.shares_memory(gt.zeros(3).numpy(force=True), gt.zeros(3).numpy()) is False


def test_numpy_zero_dim_and_empty():
    for build in (lambda m: m.tensor(1.5), lambda m: m.zeros(0, 3), lambda m: m.arange(3).expand(2, 3)):
        g, t = both(build)
        gn, tn = g.numpy(), t.numpy()
        assert (gn.shape, gn.strides, gn.dtype) == (tn.shape, tn.strides, tn.dtype)


def test_numpy_errors():
    _error(lambda m: m.ones(2, requires_grad=True).numpy())
    _error(lambda m: m.ones(2, dtype=m.bfloat16).numpy())
    _error(lambda m: m.ones(2, device="meta").numpy())
    out = gt.ones(2, requires_grad=True).numpy(force=True)
    np.testing.assert_array_equal(out, torch.ones(2, requires_grad=True).numpy(force=True))
    np.testing.assert_array_equal(gt.ones(2, requires_grad=True).detach().numpy(), np.ones(2, np.float32))


def test_array_protocol():
    np.testing.assert_array_equal(np.asarray(gt.arange(4)), np.asarray(torch.arange(4)))
    assert np.asarray(gt.arange(4.0)).dtype == np.asarray(torch.arange(4.0)).dtype
    assert np.asarray(gt.arange(4), dtype=np.float64).dtype == np.float64


# -- dtype conversions ----------------------------------------------------------------------------------

SOURCES = {
    "floats": lambda m: m.tensor([-2.7, -0.5, 0.0, 0.4, 2.7, 100.9]),
    "doubles": lambda m: m.tensor([-1e3 - 0.5, 1.5, 0.1, -0.0], dtype=m.float64),
    "ints": lambda m: m.tensor([-3, 0, 1, 300]),
    "bools": lambda m: m.tensor([True, False]),
    "uint8": lambda m: m.tensor([0, 200, 255], dtype=m.uint8),
    "half": lambda m: m.tensor([1.1, -65504.0, 0.0], dtype=m.float16),
    "bf16": lambda m: m.tensor([1.1, -3.0, 0.0], dtype=m.bfloat16),
    "transposed": lambda m: m.arange(6.0).reshape(2, 3).t() - 2.5,
    "strided": lambda m: m.arange(12.0).reshape(3, 4)[:, ::2],
    "zero_dim": lambda m: m.tensor(-3.7),
}
METHODS = ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool", "cfloat",
           "cdouble", "chalf"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("src", list(SOURCES))
def test_dtype_shortcuts(src, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g, t = both(lambda m: getattr(SOURCES[src](m), method)())
    assert_same(g, t)


def test_uint8_to_int8_wraps():
    assert_same(*both(lambda m: m.tensor([0, 200, 255], dtype=m.uint8).char()))
    assert_same(*both(lambda m: m.tensor([-1, 300, -129], dtype=m.int64).byte()))
    assert_same(*both(lambda m: m.tensor([70000, -70000]).short()))


@pytest.mark.parametrize("dst", NAMES)
@pytest.mark.parametrize("src", list(SOURCES))
def test_to_dtype(src, dst):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(*both(lambda m: SOURCES[src](m).to(_dt(m, dst))))
        assert_same(*both(lambda m: SOURCES[src](m).to(dtype=_dt(m, dst))))


def test_float_to_int_truncation_and_bool():
    assert_same(*both(lambda m: m.tensor([-2.7, 2.7, -0.5, 0.5]).long()))
    assert_same(*both(lambda m: m.tensor([-2.7, 2.7, 0.1, -0.0, 0.0]).bool()))
    assert_same(*both(lambda m: m.tensor([0.5j, 0j, 1 + 0j]).bool()))  # the imaginary part counts
    assert_same(*both(lambda m: m.tensor([-1, 0, 5]).bool()))


def test_complex_to_real_warns():
    for build in (lambda m: m.tensor([1 + 2j]).float(), lambda m: m.tensor([1 + 2j]).to(m.float64)):
        g, messages = _warnings_of(lambda b=build: b(gt))
        t, _ = _warnings_of(lambda b=build: b(torch))
        assert_same(g, t)
        assert messages == [COMPLEX_CAST_WARNING]


def test_to_returns_self_when_nothing_changes():
    g = gt.arange(6.0).reshape(2, 3).t()
    for call in (lambda x: x.to(gt.float32), lambda x: x.to("cpu"), lambda x: x.to(x), lambda x: x.to(),
                 lambda x: x.to(device="cpu", dtype=gt.float32), lambda x: x.float(), lambda x: x.cpu(),
                 lambda x: x.type(gt.float32), lambda x: x.type("torch.FloatTensor"), lambda x: x.type_as(x),
                 lambda x: x.to(gt.device("cpu"))):
        assert call(g) is g
    t = torch.arange(6.0).reshape(2, 3).t()
    assert t.to(torch.float32) is t and t.float() is t and t.type_as(t) is t


def test_to_copy():
    g = gt.arange(6.0).reshape(2, 3).t()
    c = g.to(gt.float32, copy=True)
    assert c is not g and not shares_storage(c, g)
    assert_same(c, torch.arange(6.0).reshape(2, 3).t().to(torch.float32, copy=True))
    c2 = g.to("cpu", copy=True)
    assert c2 is not g and not shares_storage(c2, g)
    c3 = g.to(gt.float32, False, True)  # to(dtype, non_blocking, copy)
    assert c3 is not g
    c[0, 0] = 100.0
    assert g[0, 0].item() == 0.0


def test_to_forms():
    base = lambda m: m.arange(6.0).reshape(2, 3).t() - 2.2  # noqa: E731
    assert_same(*both(lambda m: base(m).to("cpu", m.int32)))
    assert_same(*both(lambda m: base(m).to(m.device("cpu"), dtype=m.int16)))
    assert_same(*both(lambda m: base(m).to(m.tensor([1], dtype=m.int8))))
    assert_same(*both(lambda m: base(m).to(dtype=m.float64, memory_format=m.contiguous_format)))
    assert_same(*both(lambda m: base(m).to(m.float64, non_blocking=True)))
    g, t = both(lambda m: base(m).to("meta"))
    assert_same(g, t)


def test_type_method():
    assert gt.tensor([1.5]).type() == torch.tensor([1.5]).type() == "torch.FloatTensor"
    for arg in ("torch.DoubleTensor", "torch.LongTensor", "torch.BoolTensor", "torch.HalfTensor",
                "torch.ByteTensor"):
        assert_same(*both(lambda m, a=arg: m.tensor([1.5, -2.5, 0.0]).type(a)))
    assert_same(*both(lambda m: m.tensor([1.5]).type(m.int64)))
    assert_same(*both(lambda m: m.tensor([1.5]).type(m.LongTensor)))
    assert_same(*both(lambda m: m.tensor([1.5]).type(m.DoubleTensor)))
    assert gt.ones(2, device="meta").type() == torch.ones(2, device="meta").type()
    _error(lambda m: m.tensor([1.5]).type("torch.FooTensor"))


def test_type_as():
    assert_same(*both(lambda m: m.tensor(3.7).type_as(m.tensor([1]))))
    assert_same(*both(lambda m: m.tensor([1, 2]).type_as(m.zeros(1, dtype=m.float64))))
    assert_same(*both(lambda m: m.arange(6).reshape(2, 3).t().type_as(m.zeros(1, dtype=m.float16))))


def test_conversion_keeps_layout():
    for method in ("float", "double", "long", "half", "bool"):
        assert_same(*both(lambda m, x=method: getattr(m.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1), x)()))
        assert_same(*both(lambda m, x=method: getattr(m.arange(12.0).reshape(3, 4)[:, ::2], x)()))


def test_conversion_is_a_new_leaf():
    src = gt.ones(2, requires_grad=True)
    out = src.detach().double()
    assert not out.requires_grad
    assert not shares_storage(out, src)


# -- requires_grad ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_requires_grad_int_errors(name):
    _error(lambda m: m.zeros(2, dtype=_dt(m, name)).requires_grad_())
    _error(lambda m: m.zeros(2, dtype=_dt(m, name), requires_grad=True))
    _error(lambda m: m.tensor(VALUES[name], dtype=_dt(m, name), requires_grad=True))
    _error(lambda m: m.full((2,), 1, dtype=_dt(m, name), requires_grad=True))
    _error(lambda m: m.arange(3, requires_grad=True))


@pytest.mark.parametrize("name", ["bool", "int8", "int64"])
def test_requires_grad_setter_int_error(name):
    def setter(m):
        t = m.zeros(2, dtype=_dt(m, name))
        t.requires_grad = True
        return t
    _error(setter)


@pytest.mark.parametrize("name", FLOATS + COMPLEX)
def test_requires_grad_float_ok(name):
    g, t = both(lambda m: m.zeros(2, dtype=_dt(m, name)).requires_grad_())
    assert g.requires_grad == t.requires_grad is True
    g, t = both(lambda m: m.ones(2, dtype=_dt(m, name), requires_grad=True))
    assert g.requires_grad and g.is_leaf
    assert not gt.zeros(2, dtype=_dt(gt, name)).requires_grad_(False).requires_grad


def test_requires_grad_false_on_int_is_fine():
    g, t = both(lambda m: m.zeros(2, dtype=m.int64).requires_grad_(False))
    assert_same(g, t)
    assert not g.requires_grad


@pytest.mark.parametrize("name", ["DoubleTensor", "FloatTensor", "IntTensor", "ByteTensor", "HalfTensor"])
def test_legacy_class_attributes(name):
    """``torch.FloatTensor.dtype`` (and layout, is_cuda, is_sparse) on the class itself, as torch.tensortype's; the
    instances' own properties are unchanged; ``x.type(cls)`` and ``randint(dtype=cls.dtype)`` make instances."""
    g, t = getattr(gt, name), getattr(torch, name)
    assert str(g.dtype) == str(t.dtype)
    assert str(g.layout) == str(t.layout) and g.is_cuda is t.is_cuda is False and g.is_sparse is t.is_sparse is False
    y = both(lambda m: m.randint(5, (5, 5), dtype=getattr(m, name).dtype, generator=m.Generator().manual_seed(0)))
    assert_same(*y)
    assert isinstance(y[0], g) and isinstance(gt.randn(2).type(g), g) and gt.randn(2).type(g).dtype is g.dtype
    assert g().dtype is g.dtype and isinstance(g(), g)
