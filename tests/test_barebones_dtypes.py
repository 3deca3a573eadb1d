"""uint16/uint32/uint64 and the four float8 dtypes against real PyTorch (Note [Barebones dtypes] in
glasstorch/_core/dtype.py): the dtype objects, promoteTypes and its refusals, finfo/iinfo, c10's float8 conversions
bit for bit, and which CPU kernels run on them (the rest raise PyTorch's NotImplementedError).
"""

import io
import pickle

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import glasstorch as gt

UINTS = ["uint16", "uint32", "uint64"]
FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]
NEW = UINTS + FLOAT8
OLD = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex32",
       "complex64", "complex128"]


def _both(name):
    return getattr(gt, name), getattr(torch, name)


def _outcome(fn):
    """What ``fn()`` gives: a dtype's name, or the exception's type and message."""
    try:
        return repr(fn())
    except Exception as e:  # noqa: BLE001 - compared as type and text
        return (type(e).__name__, str(e))


# -- the dtype objects ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NEW)
def test_dtype_attributes(name):
    g, t = _both(name)
    assert repr(g) == repr(t) and str(g) == str(t)
    assert (g.itemsize, g.is_floating_point, g.is_complex, g.is_signed) == \
        (t.itemsize, t.is_floating_point, t.is_complex, t.is_signed)
    assert repr(g.to_real()) == repr(t.to_real())
    assert_same_error(g.to_complex, t.to_complex)
    assert pickle.loads(pickle.dumps(g)) is g
    assert gt.zeros(2, dtype=g).dtype is g


@pytest.mark.parametrize("a", NEW)
@pytest.mark.parametrize("b", OLD + NEW)
def test_promote_types(a, b):
    (ga, ta), (gb, tb) = _both(a), _both(b)
    assert _outcome(lambda: gt.promote_types(ga, gb)) == _outcome(lambda: torch.promote_types(ta, tb))
    assert _outcome(lambda: gt.promote_types(gb, ga)) == _outcome(lambda: torch.promote_types(tb, ta))


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("other", [1, 1.5, 1j, True, "f32", "f32_0d", "bool", "i64_0d"])
def test_result_type(name, other):
    """The category rules keep a scalar or a 0-dim tensor of a lower category out of the refused table."""
    def run(m):
        x = m.ones(2, dtype=getattr(m, name))
        o = {"f32": m.ones(2), "f32_0d": m.tensor(1.0), "bool": m.ones(2, dtype=m.bool),
             "i64_0d": m.tensor(3)}.get(other, other)
        return m.result_type(x, o), m.result_type(x[0], o)
    assert _outcome(lambda: run(gt)) == _outcome(lambda: run(torch))


@pytest.mark.parametrize("name", FLOAT8)
def test_finfo(name):
    g, t = gt.finfo(getattr(gt, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(g, attr) == getattr(t, attr), attr
        assert type(getattr(g, attr)) is type(getattr(t, attr)), attr
    assert repr(g) == repr(t)
    assert_same_error(lambda: gt.iinfo(getattr(gt, name)), lambda: torch.iinfo(getattr(torch, name)))


@pytest.mark.parametrize("name", UINTS)
def test_iinfo(name):
    g, t = gt.iinfo(getattr(gt, name)), torch.iinfo(getattr(torch, name))
    assert (g.bits, g.min, g.max, g.dtype, repr(g)) == (t.bits, t.min, t.max, t.dtype, repr(t))
    assert_same_error(lambda: gt.finfo(getattr(gt, name)), lambda: torch.finfo(getattr(torch, name)))


# -- conversions ------------------------------------------------------------------------------------------------
def _sources():
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 448, 449, 464, 480, 240, 248, 57344, 61440,
                         1e-30, -1e-30, 2**-10, 2**-17], np.float32)
    return {
        "float32": np.concatenate([bits.view(np.float32), specials]),
        "float64": rng.standard_normal(50_000) * np.exp(rng.uniform(-40, 15, 50_000)),
        "float16": np.arange(2**16, dtype=np.uint16).view(np.float16),
        "int64": np.arange(-70_000, 70_000, 7, dtype=np.int64),
    }


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("src", ["float32", "float64", "float16", "int64", "bfloat16"])
def test_float8_from(name, src):
    """Round to nearest even, e4m3fn's saturation, e5m2's 0x7F NaN, the fnuz NaN: every bit of the result."""
    g, t = _both(name)
    if src == "bfloat16":
        tt = torch.from_numpy(_sources()["float32"].copy()).bfloat16()
        gx = gt.tensor(tt.float().tolist(), dtype=gt.float32).bfloat16()
    else:
        a = _sources()[src]
        tt, gx = torch.from_numpy(a.copy()), gt.from_numpy(a.copy())
    want = tt.to(t).view(torch.uint8).numpy()
    got = gx.to(g).view(gt.uint8).numpy()
    assert np.array_equal(got, want)


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "uint8",
                                 "uint64", "bool", "complex64"] + FLOAT8)
def test_float8_to(name, dst):
    """Every bit pattern, NaN payloads included (viewed as integers where the target is a float)."""
    (g, t), (gd, td) = _both(name), _both(dst)
    b = np.arange(256, dtype=np.uint8)
    want = torch.from_numpy(b.copy()).view(t).to(td)
    got = gt.from_numpy(b.copy()).view(g).to(gd)
    view = {1: None, 2: "int16", 4: "int32", 8: "int64"}[want.element_size()] if td.is_floating_point else None
    if view is not None:
        want, got = want.view(getattr(torch, view)), got.view(getattr(gt, view))
    if td.is_complex:
        want, got = torch.view_as_real(want).view(torch.int32), gt.view_as_real(got).view(gt.int32)
    assert_same(got, want)


@pytest.mark.parametrize("name", UINTS)
@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "bool"])
def test_uint_conversions(name, src):
    (g, t), (gs, ts) = _both(name), _both(src)
    vals = [-1.5, -1.0, 0.0, 0.5, 1.0, 65535.7, 65536.0, 70000.0, 4294967295.0, 4294967296.0, 5e9, 1e19, 2.0**63,
            -70000.0, 127.0]
    if src == "bool":
        vals = [0.0, 1.0]
    elif not ts.is_floating_point:
        info = torch.iinfo(ts)
        vals = [v for v in vals if info.min <= v <= info.max and v == int(v)]
    tx = torch.tensor(vals, dtype=torch.float64).to(ts)
    gx = gt.tensor(vals, dtype=gt.float64).to(gs)
    assert_same(gx.to(g), tx.to(t))
    # and back: the largest values of each type too
    top = torch.iinfo(t).max
    a = np.array([0, 1, 255, 65535, top, top - 1, top // 2 + 1], dtype=name)
    assert_same(gt.from_numpy(a.copy()).to(gs), torch.from_numpy(a.copy()).to(ts))


@pytest.mark.parametrize("name", NEW)
def test_factories_and_fill(name):
    g, t = _both(name)
    for build in (lambda m, d: m.zeros(2, 3, dtype=d), lambda m, d: m.ones(4, dtype=d),
                  lambda m, d: m.full((3,), 7, dtype=d), lambda m, d: m.tensor([[1, 2], [3, 4]], dtype=d),
                  lambda m, d: m.zeros(3, dtype=d).fill_(5), lambda m, d: m.full((1,), 1e9, dtype=d)
                  if d.is_floating_point else m.full((1,), 65535, dtype=d),
                  lambda m, d: m.full_like(m.ones(2, dtype=d), 3)):
        assert_same(build(gt, g), build(torch, t))
    if not g.is_floating_point:
        assert_same_error(lambda: gt.full((2,), -1.5, dtype=g), lambda: torch.full((2,), -1.5, dtype=t))
    big = 1e300 if g.is_floating_point else 2**64 if name == "uint64" else 2**32
    if name != "uint64":
        assert_same_error(lambda: gt.full((2,), big, dtype=g), lambda: torch.full((2,), big, dtype=t))


@pytest.mark.parametrize("name", UINTS)
def test_numpy_round_trip(name):
    g, t = _both(name)
    a = np.array([0, 1, np.iinfo(name).max], dtype=name)
    x = gt.from_numpy(a)
    assert x.dtype is g and repr(torch.from_numpy(a).dtype) == repr(g)
    assert x.numpy().dtype == a.dtype and np.array_equal(x.numpy(), a)
    assert gt.tensor(a).dtype is g and gt.as_tensor(a).dtype is g
    assert x.tolist() == torch.from_numpy(a).tolist()


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_numpy_refused(name):
    g, t = _both(name)
    assert_same_error(lambda: gt.ones(2, dtype=g).numpy(), lambda: torch.ones(2, dtype=t).numpy())


# -- which kernels run ------------------------------------------------------------------------------------------
def _x(m, d):
    return m.tensor([1.0, 2.0, 3.0]).to(d)


def _mask(m):
    return m.tensor([True, False, True])


OPS = {
    "clone": lambda m, d: _x(m, d).clone(),
    "view": lambda m, d: _x(m, d).view(3, 1),
    "cat": lambda m, d: m.cat([_x(m, d), _x(m, d)]),
    "stack_t": lambda m, d: m.stack([_x(m, d), _x(m, d)]).t().contiguous(),
    "index": lambda m, d: _x(m, d)[m.tensor([0, 2])],
    "bool_index": lambda m, d: _x(m, d)[_mask(m)],
    "setitem": lambda m, d: (lambda x: (x.__setitem__(0, 5), x)[1])(_x(m, d)),
    "view_u8": lambda m, d: m.tensor([60, 0, 0, 0, 1, 2, 3, 4], dtype=m.uint8).view(d).view(m.uint8),
    "eq": lambda m, d: _x(m, d) == _x(m, d),
    "ne_scalar": lambda m, d: _x(m, d) != 2,
    "lt": lambda m, d: _x(m, d) < _x(m, d),
    "where": lambda m, d: m.where(_mask(m), _x(m, d), _x(m, d)[[2, 1, 0]]),
    "where_scalar": lambda m, d: m.where(_mask(m), _x(m, d), 0),
    "where_float": lambda m, d: m.where(_mask(m), _x(m, d), m.ones(3)),
    "add": lambda m, d: _x(m, d) + _x(m, d),
    "add_scalar": lambda m, d: _x(m, d) + 1,
    "add_float_tensor": lambda m, d: _x(m, d) + m.ones(3),
    "add_bool": lambda m, d: _x(m, d) + _mask(m),
    "sub": lambda m, d: _x(m, d) - _x(m, d),
    "mul": lambda m, d: _x(m, d) * _x(m, d),
    "mul_scalar": lambda m, d: _x(m, d) * 2,
    "div": lambda m, d: _x(m, d) / _x(m, d),
    "floor_divide": lambda m, d: _x(m, d) // _x(m, d),
    "neg": lambda m, d: -_x(m, d),
    "abs": lambda m, d: _x(m, d).abs(),
    "sum": lambda m, d: _x(m, d).sum(),
    "prod": lambda m, d: _x(m, d).prod(),
    "cumsum": lambda m, d: _x(m, d).cumsum(0),
    "mean": lambda m, d: _x(m, d).mean(),
    "max": lambda m, d: _x(m, d).max(),
    "amin": lambda m, d: _x(m, d).amin(0),
    "argmax": lambda m, d: _x(m, d).argmax(),
    "sort": lambda m, d: _x(m, d).sort()[0],
    "unique": lambda m, d: m.unique(_x(m, d)),
    "topk": lambda m, d: _x(m, d).topk(1)[0],
    "bitwise_and": lambda m, d: _x(m, d) & _x(m, d),
    "bitwise_xor": lambda m, d: _x(m, d) ^ _x(m, d),
    "bitwise_not": lambda m, d: ~_x(m, d),
    "lshift": lambda m, d: _x(m, d) << _x(m, d),
    "masked_fill": lambda m, d: _x(m, d).masked_fill(_mask(m), 0),
    "masked_select": lambda m, d: _x(m, d).masked_select(_mask(m)),
    "index_select": lambda m, d: _x(m, d).index_select(0, m.tensor([1])),
    "index_put": lambda m, d: _x(m, d).index_put_((m.tensor([0]),), _x(m, d)[:1]),
    "gather": lambda m, d: _x(m, d).gather(0, m.tensor([1])),
    "scatter": lambda m, d: _x(m, d).scatter(0, m.tensor([1]), _x(m, d)),
    "flip": lambda m, d: _x(m, d).flip(0),
    "tril": lambda m, d: m.stack([_x(m, d), _x(m, d)]).tril(),
    "nonzero": lambda m, d: _x(m, d).nonzero(),
    "clamp": lambda m, d: _x(m, d).clamp(0, 2),
    "isnan": lambda m, d: _x(m, d).isnan(),
    "any": lambda m, d: _x(m, d).any(),
    "logical_not": lambda m, d: m.logical_not(_x(m, d)),
    "isinf": lambda m, d: _x(m, d).isinf(),
    "isfinite": lambda m, d: _x(m, d).isfinite(),
    "isneginf": lambda m, d: _x(m, d).isneginf(),
    "signbit": lambda m, d: _x(m, d).signbit(),
    "floor": lambda m, d: _x(m, d).floor(),
    "round": lambda m, d: _x(m, d).round(),
    "sgn": lambda m, d: _x(m, d).sgn(),
    "nan_to_num": lambda m, d: _x(m, d).nan_to_num(),
    "sigmoid": lambda m, d: _x(m, d).sigmoid(),
    "relu": lambda m, d: m.relu(_x(m, d)),
    "fmax": lambda m, d: m.fmax(_x(m, d), _x(m, d)),
    "div_scalar": lambda m, d: _x(m, d) / 2,
    "mul_one_element": lambda m, d: _x(m, d) * _x(m, d)[:1],
    "mul_0d_first": lambda m, d: _x(m, d)[0] * _x(m, d),
    "max_dim": lambda m, d: m.stack([_x(m, d), _x(m, d)]).max(0)[0],
    "median": lambda m, d: _x(m, d).median(),
    "kthvalue": lambda m, d: _x(m, d).kthvalue(1)[0],
    "aminmax": lambda m, d: m.aminmax(_x(m, d))[0],
    "count_nonzero": lambda m, d: m.count_nonzero(_x(m, d)),
    "std": lambda m, d: _x(m, d).std(),
    "sum_empty": lambda m, d: m.empty(0, dtype=d).sum(),
    "take": lambda m, d: _x(m, d).take(m.tensor([0, 2])),
    "put_": lambda m, d: _x(m, d).put_(m.tensor([0, 2]), _x(m, d)[:2]),
    "masked_scatter": lambda m, d: _x(m, d).masked_scatter(_mask(m), _x(m, d)),
    "index_add": lambda m, d: _x(m, d).index_add(0, m.tensor([0, 2]), _x(m, d)[:2]),
    "index_copy": lambda m, d: _x(m, d).index_copy(0, m.tensor([0, 2]), _x(m, d)[:2]),
    "index_fill": lambda m, d: _x(m, d).index_fill(0, m.tensor([0, 2]), 0),
    "searchsorted": lambda m, d: m.searchsorted(_x(m, d), _x(m, d)),
    "bincount": lambda m, d: m.bincount(_x(m, d)),
    "tensor_big_int": lambda m, d: m.tensor([2**64 - 1, 2**63, 0], dtype=d),
    "tensor_negative": lambda m, d: m.tensor([-1], dtype=d),
    "tensor_float": lambda m, d: m.tensor([1.5, -0.5], dtype=d),
    "isclose": lambda m, d: m.isclose(_x(m, d), _x(m, d)),
    "isclose_exact": lambda m, d: m.isclose(_x(m, d), _x(m, d), rtol=0, atol=0),
    "equal_float32": lambda m, d: m.equal(_x(m, d), m.ones(3)),
    "fill_inf": lambda m, d: m.empty(2, dtype=d).fill_(float("inf")),
    "fill_nan": lambda m, d: m.empty(2, dtype=d).fill_(float("nan")),
    "bool_mask_setitem": lambda m, d: (lambda x: (x.__setitem__(_mask(m), 0), x)[1])(_x(m, d)),
    "copy_from_int": lambda m, d: m.empty(3, dtype=d).copy_(m.tensor([-1, 300, 70000])),
    "arange": lambda m, d: m.arange(3, dtype=d),
    "randint_shape": lambda m, d: m.randint(0, 3, (3,), dtype=d).shape,
    "rand_shape": lambda m, d: m.rand(3, dtype=d).shape,
}


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("op", list(OPS))
def test_op_support(name, op):
    """The kernel runs and agrees with PyTorch, or both raise the same error."""
    (g, t), f = _both(name), OPS[op]
    try:
        want = f(torch, t)
    except Exception:  # noqa: BLE001
        assert_same_error(lambda: f(gt, g), lambda: f(torch, t))
        return
    got = f(gt, g)
    if isinstance(want, torch.Size):
        assert tuple(got) == tuple(want)
    elif not isinstance(want, torch.Tensor):
        assert got == want and type(got) is type(want)
    else:
        assert_same(got, want)


@pytest.mark.parametrize("name", NEW)
def test_repr_and_item(name):
    g, t = _both(name)
    vals = [[0.5, 3.0], [300.0, 7.0]]
    tx, gx = torch.tensor(vals).to(t), gt.tensor(vals).to(g)
    assert repr(gx).replace("glasstorch", "torch") == repr(tx)
    assert str(gx.tolist()) == str(tx.tolist())  # NaN where the value is beyond a fnuz range
    assert str(gx[1, 1].item()) == str(tx[1, 1].item())
    assert gx.type().replace("glasstorch", "torch") == tx.type()


# -- serialization ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NEW)
def test_save_load_both_ways(name):
    g, t = _both(name)
    vals = [1.0, 2.0, 448.0, 0.25]
    tx, gx = torch.tensor(vals).to(t), gt.tensor(vals).to(g)
    buf = io.BytesIO()
    gt.save({"x": gx}, buf)
    buf.seek(0)
    loaded_t = torch.load(buf)["x"]  # glasstorch's file read by PyTorch
    assert torch.equal(loaded_t.view(torch.uint8), tx.view(torch.uint8)) and loaded_t.dtype == t
    buf = io.BytesIO()
    torch.save({"x": tx}, buf)
    buf.seek(0)
    assert_same(gt.load(buf)["x"], tx)  # PyTorch's file read by glasstorch (weights_only by default)


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_mm(name):
    """torch's generic gemm on float8: float products and sums, one rounding (saturating for e4m3fn); bmm, mv and
    dot have no float8 loop."""
    g, t = _both(name)
    gen = torch.Generator().manual_seed(0)
    a, b, c = (torch.randn(s, generator=gen) * 40 for s in ((5, 40), (40, 6), (5, 6)))
    ta, tb, tc = a.to(t), b.to(t), c.to(t)
    ga, gb, gc = (gt.tensor(x.tolist()).to(g) for x in (a, b, c))
    assert_same((ga @ gb).view(gt.uint8), (ta @ tb).view(torch.uint8))
    assert_same(gt.addmm(gc, ga, gb, beta=0.5, alpha=2).view(gt.uint8),
                torch.addmm(tc, ta, tb, beta=0.5, alpha=2).view(torch.uint8))
    assert_same_error(lambda: gt.bmm(ga[None], gb[None]), lambda: torch.bmm(ta[None], tb[None]))
    assert_same_error(lambda: gt.bmm(ga[None, :2, :3], gb[None, :3, :2]),
                      lambda: torch.bmm(ta[None, :2, :3], tb[None, :3, :2]))
    assert_same_error(lambda: gt.mv(ga, gb[:, 0]), lambda: torch.mv(ta, tb[:, 0]))
    assert_same_error(lambda: gt.dot(ga[0], gb[:, 0]), lambda: torch.dot(ta[0], tb[:, 0]))


# -- torch.testing ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NEW)
def test_make_tensor(name):
    """Equal seeds give torch's tensors: randint for the uints, float32 uniform_ then a conversion for float8."""
    g, t = _both(name)
    for kwargs in ({}, {"low": 0, "high": 5}, {"noncontiguous": True}):
        torch.manual_seed(7)
        gt.manual_seed(7)
        want = torch.testing.make_tensor((4, 5), dtype=t, device="cpu", **kwargs)
        got = gt.testing.make_tensor((4, 5), dtype=g, device="cpu", **kwargs)
        assert_same(got, want)


@pytest.mark.parametrize("name", NEW)
def test_assert_close(name):
    """float8 compares bit for bit: its own mismatch report and no tolerances."""
    g, t = _both(name)

    def run(m, d, **kw):
        m.testing.assert_close(m.tensor([[1.0, 2.0], [3.0, 4.0]]).to(d), m.tensor([[1.0, 2.0], [4.0, 4.0]]).to(d), **kw)
    assert_same_error(lambda: run(gt, g), lambda: run(torch, t))
    assert_same_error(lambda: run(gt, g, rtol=0.1, atol=0.1), lambda: run(torch, t, rtol=0.1, atol=0.1))
    gt.testing.assert_close(gt.ones(3, dtype=g), gt.ones(3, dtype=g))
