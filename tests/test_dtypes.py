"""dtypes, promotion, finfo/iinfo and the default dtype against real PyTorch (glasstorch/_core/dtype.py).

Every comparison is by name: ``repr(glasstorch.float32) == repr(torch.float32) == 'torch.float32'``.
"""

import itertools

import pytest
import torch
from oracle import assert_same_error, dtype_name

import glasstorch as gt
from glasstorch._core import dtype as gdtype

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"]
PAIRS = list(itertools.product(NAMES, NAMES))
PAIR_IDS = [f"{a}-{b}" for a, b in PAIRS]
SCALARS = [True, 2, 2.5, 1j]
SCALAR_IDS = ["True", "2", "2.5", "1j"]


def _dt(m, name):
    return getattr(m, name)


@pytest.fixture(params=["float32", "float64"])
def default_dtype(request):
    """Run a test under each default dtype; always restores float32 in both libraries."""
    name = request.param
    gt.set_default_dtype(_dt(gt, name))
    torch.set_default_dtype(_dt(torch, name))
    try:
        yield name
    finally:
        gt.set_default_dtype(gt.float32)
        torch.set_default_dtype(torch.float32)


def test_restored_default_dtype():
    assert repr(gt.get_default_dtype()) == repr(torch.get_default_dtype()) == "torch.float32"


# -- dtype objects ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes(name):
    g, t = _dt(gt, name), _dt(torch, name)
    assert repr(g) == repr(t)
    assert str(g) == str(t)
    assert g.itemsize == t.itemsize
    assert g.is_floating_point == t.is_floating_point
    assert g.is_complex == t.is_complex
    assert g.is_signed == t.is_signed
    assert isinstance(g, gt.dtype)
    assert g is getattr(gt, name)  # interned singleton


@pytest.mark.parametrize("alias, target", [
    ("float", "float32"), ("double", "float64"), ("half", "float16"), ("long", "int64"), ("int", "int32"),
    ("short", "int16"), ("cfloat", "complex64"), ("cdouble", "complex128"),
])
def test_aliases(alias, target):
    assert getattr(torch, alias) is getattr(torch, target)
    assert getattr(gt, alias) is getattr(gt, target)
    assert repr(getattr(gt, alias)) == repr(getattr(torch, alias))


def test_complex32():
    """torch.complex32 (torch.chalf) is a real dtype: promotion results and finfo can name it."""
    assert repr(gt.chalf) == repr(torch.chalf) == "torch.complex32"
    assert gt.chalf is gdtype.complex32
    assert gt.chalf.itemsize == torch.chalf.itemsize
    assert (gt.chalf.is_complex, gt.chalf.is_floating_point, gt.chalf.is_signed) == \
        (torch.chalf.is_complex, torch.chalf.is_floating_point, torch.chalf.is_signed)
    g, t = gt.finfo(gt.chalf), torch.finfo(torch.chalf)
    for attr in ("bits", "eps", "max", "min", "tiny", "resolution", "dtype"):
        assert getattr(g, attr) == getattr(t, attr), attr


def test_complex32_exported():
    assert getattr(gt, "complex32", None) is gt.chalf


def test_dtype_equality_and_hash():
    assert gt.float32 == gt.float
    assert gt.float32 != gt.float64
    assert len({gt.float32, gt.float, gt.int64, gt.long}) == 2


def test_dtype_pickle_roundtrip():
    import pickle

    for name in NAMES:
        assert pickle.loads(pickle.dumps(_dt(gt, name))) is _dt(gt, name)


# -- promotion ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b", PAIRS, ids=PAIR_IDS)
def test_promote_types(a, b):
    want = torch.promote_types(_dt(torch, a), _dt(torch, b))
    got = gt.promote_types(_dt(gt, a), _dt(gt, b))
    assert repr(got) == repr(want)


@pytest.mark.parametrize("name", NAMES + ["complex32"])
def test_promote_types_complex32(name):
    for x, y in ((name, "complex32"), ("complex32", name)):
        want = torch.promote_types(_dt(torch, x), _dt(torch, y))
        got = gt.promote_types(_dt(gdtype, x), _dt(gdtype, y))
        assert repr(got) == repr(want), (x, y)


@pytest.mark.parametrize("a, b", PAIRS, ids=PAIR_IDS)
def test_can_cast(a, b):
    assert gt.can_cast(_dt(gt, a), _dt(gt, b)) == torch.can_cast(_dt(torch, a), _dt(torch, b))


def _ones(m, name, dim):
    return m.ones((2,) if dim else (), dtype=_dt(m, name))


MIXES = {
    "dim-dim": lambda m, a, b: (_ones(m, a, True), _ones(m, b, True)),
    "dim-zero": lambda m, a, b: (_ones(m, a, True), _ones(m, b, False)),
    "zero-dim": lambda m, a, b: (_ones(m, a, False), _ones(m, b, True)),
    "zero-zero": lambda m, a, b: (_ones(m, a, False), _ones(m, b, False)),
}


@pytest.mark.parametrize("mix", list(MIXES))
def test_result_type_tensor_pairs(mix, default_dtype):
    build = MIXES[mix]
    bad = []
    for a, b in PAIRS:
        want = repr(torch.result_type(*build(torch, a, b)))
        got = repr(gt.result_type(*build(gt, a, b)))
        if got != want:
            bad.append(f"{a},{b}: glasstorch {got} torch {want}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dim", [True, False], ids=["dim", "zero"])
@pytest.mark.parametrize("scalar", SCALARS, ids=SCALAR_IDS)
@pytest.mark.parametrize("name", NAMES)
def test_result_type_tensor_scalar(name, scalar, dim, default_dtype):
    want = torch.result_type(_ones(torch, name, dim), scalar)
    assert repr(gt.result_type(_ones(gt, name, dim), scalar)) == repr(want)
    want_rev = torch.result_type(scalar, _ones(torch, name, dim))
    assert repr(gt.result_type(scalar, _ones(gt, name, dim))) == repr(want_rev)


@pytest.mark.parametrize("a, b", list(itertools.product(SCALARS, SCALARS)))
def test_result_type_scalar_scalar(a, b, default_dtype):
    assert repr(gt.result_type(a, b)) == repr(torch.result_type(a, b))


# -- default dtype ------------------------------------------------------------------------------------

def test_default_dtype_affects_floats(default_dtype):
    assert repr(gt.get_default_dtype()) == repr(torch.get_default_dtype()) == f"torch.{default_dtype}"
    for build in (lambda m: m.tensor(1.5), lambda m: m.tensor([1j]), lambda m: m.zeros(2), lambda m: m.arange(0.5),
                  lambda m: m.linspace(0, 1, 3), lambda m: m.rand(2), lambda m: m.Tensor([1]), lambda m: m.eye(2),
                  lambda m: m.full((1,), 2.5), lambda m: m.full((1,), 1j)):
        assert repr(build(gt).dtype) == repr(build(torch).dtype)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_set_default_dtype_allowed(name):
    try:
        gt.set_default_dtype(_dt(gt, name))
        torch.set_default_dtype(_dt(torch, name))
        assert repr(gt.get_default_dtype()) == repr(torch.get_default_dtype())
        assert repr(gt.tensor([1.0]).dtype) == repr(torch.tensor([1.0]).dtype)
        assert repr(gt.zeros(2).dtype) == repr(torch.zeros(2).dtype)
        for build in (lambda m: m.ones(2), lambda m: m.ones(2, dtype=m.int32), lambda m: m.ones((), dtype=m.uint8)):
            assert repr(gt.result_type(build(gt), 1j)) == repr(torch.result_type(build(torch), 1j))
        if name == "bfloat16":  # torch.tensor has no complex type for a bfloat16 default
            assert_same_error(lambda: gt.tensor([1j]), lambda: torch.tensor([1j]))
        else:
            assert repr(gt.tensor([1j]).dtype) == repr(torch.tensor([1j]).dtype)
    finally:
        gt.set_default_dtype(gt.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("name", ["bool", "uint8", "int32", "int64", "complex64", "complex128"])
def test_set_default_dtype_rejects(name):
    try:
        assert_same_error(lambda: gt.set_default_dtype(_dt(gt, name)),
                          lambda: torch.set_default_dtype(_dt(torch, name)))
    finally:
        gt.set_default_dtype(gt.float32)
        torch.set_default_dtype(torch.float32)
    assert repr(gt.get_default_dtype()) == "torch.float32"


@pytest.mark.parametrize("bad", ["float", float, None, 1])
def test_set_default_dtype_rejects_non_dtypes(bad):
    try:
        assert_same_error(lambda: gt.set_default_dtype(bad), lambda: torch.set_default_dtype(bad))
    finally:
        gt.set_default_dtype(gt.float32)
        torch.set_default_dtype(torch.float32)


# -- finfo / iinfo ------------------------------------------------------------------------------------

FLOATS = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo(name):
    g, t = gt.finfo(_dt(gt, name)), torch.finfo(_dt(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        got, want = getattr(g, attr), getattr(t, attr)
        assert type(got) is type(want), attr
        assert got == want, attr
    assert repr(g) == repr(t)
    assert str(g) == str(t)


def test_finfo_default(default_dtype):
    g, t = gt.finfo(), torch.finfo()
    assert (g.bits, g.eps, g.dtype) == (t.bits, t.eps, t.dtype)


@pytest.mark.parametrize("name", ["bool"] + INTS)
def test_finfo_rejects_non_float(name):
    assert_same_error(lambda: gt.finfo(_dt(gt, name)), lambda: torch.finfo(_dt(torch, name)))


@pytest.mark.parametrize("name", INTS)
def test_iinfo(name):
    g, t = gt.iinfo(_dt(gt, name)), torch.iinfo(_dt(torch, name))
    for attr in ("bits", "min", "max", "dtype"):
        got, want = getattr(g, attr), getattr(t, attr)
        assert type(got) is type(want), attr
        assert got == want, attr
    assert repr(g) == repr(t)


@pytest.mark.parametrize("name", ["bool"] + FLOATS)
def test_iinfo_rejects_non_int(name):
    assert_same_error(lambda: gt.iinfo(_dt(gt, name)), lambda: torch.iinfo(_dt(torch, name)))


def test_dtype_name_helper():
    assert dtype_name(gt.float32) == dtype_name(torch.float32) == "float32"
