"""Element conversions between dtypes, bit for bit against real PyTorch (c10's ``static_cast`` rules).

PyTorch converts with C++ casts, and two of them are not what numpy's direct casts do:

* ``c10::Half`` is built from a ``float`` only, so a double (and a complex double's real part) becomes a half
  through float32 — rounded twice: ``1 + 2**-11 + 2**-30`` gives ``1.0``, not ``1.0009765625``.
* a floating value bound for ``uint8`` is truncated through ``int64`` first (c10's ``static_cast_with_inter_type``):
  ``2**40 + 7`` gives ``7``.

Every path that converts is checked: ``tensor(data, dtype=)`` from lists and from arrays, ``.to``/``.half()``,
``copy_``, ``fill_``/``full`` and ``t[i] = value``.
"""

import math
import warnings

import numpy as np
import pytest
import torch

import glasstorch as gt

# Values just above the halfway point between two halves (or bfloat16s) whose float32 rounding lands exactly
# on that halfway point, subnormals, the overflow threshold, infinities and signed zeros.
TRICKY = [
    1 + 2**-11 + 2**-30, -(1 + 2**-11 + 2**-30), 1 + 2**-11 + 2**-52, 3 * (1 + 2**-11 + 2**-40),
    1 + 2**-8 + 2**-30, 1 + 2**-8 + 2**-40, 2**-25 + 2**-60, 2**-24 * 1.5 + 2**-70, 2**-14 * (1 + 2**-11 + 2**-40),
    65519.99999999999, 65520.0, 65504.0, 65505.0, 1e300, -1e300, 3.39e38, 3.5e38, math.inf, -math.inf,
    0.0, -0.0, 5e-324, 1e-8, 2**-149, 2**-150 + 2**-180,
]
# Floats bound for uint8: out of uint8's range but inside int64's (c10 goes through int64).
TO_UINT8 = [2.0**40 + 7, 53007840630360.945, -3.7, 300.5, -300.5, 1e10, -1e10, 2.0**31, 2.0**33 + 250.9, 1e19, -1e19,
            math.inf, -math.inf, 0.5, 255.9]


def _random_doubles(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    vals = rng.standard_normal(n) * np.exp(rng.uniform(-40, 40, n))
    # also values built to sit next to half/bfloat16 halfway points
    base = rng.integers(1 << 10, 1 << 11, n // 2).astype(np.float64) * 2.0 ** rng.integers(-24, 5, n // 2)
    near = (base + 0.5 * 2.0 ** np.floor(np.log2(base) - 10)) * (1 + rng.choice([2**-30, -(2**-30), 2**-45], n // 2))
    return np.concatenate([vals, near, TRICKY])


def _bits(t):
    """The raw bit patterns of a tensor of either library, as a numpy integer array."""
    width = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}[t.element_size()]
    mod = torch if isinstance(t, torch.Tensor) else gt
    return np.asarray(t.contiguous().view(getattr(mod, width)).numpy()).copy()


def _assert_bits(g, t):
    assert repr(g.dtype) == repr(t.dtype)
    gb, tb = _bits(g), _bits(t)
    bad = np.nonzero(gb != tb)[0]
    assert bad.size == 0, f"{bad.size} elements differ, first at {bad[0]}: ours {g.reshape(-1)[bad[0]].item()!r}, " \
                          f"torch {t.reshape(-1)[bad[0]].item()!r}"


REDUCED = ["float16", "bfloat16"]


@pytest.fixture(scope="module")
def doubles():
    return _random_doubles()


@pytest.mark.parametrize("name", REDUCED)
def test_to_from_float64(doubles, name):
    t = torch.from_numpy(doubles.copy()).to(getattr(torch, name))
    _assert_bits(gt.tensor(doubles).to(getattr(gt, name)), t)


@pytest.mark.parametrize("name", REDUCED)
def test_tensor_from_list_and_array(doubles, name):
    t = torch.tensor(doubles.tolist(), dtype=getattr(torch, name))
    _assert_bits(gt.tensor(doubles.tolist(), dtype=getattr(gt, name)), t)
    t = torch.tensor(doubles, dtype=getattr(torch, name))
    _assert_bits(gt.tensor(doubles, dtype=getattr(gt, name)), t)


def test_half_method_and_copy(doubles):
    t = torch.from_numpy(doubles.copy())
    g = gt.tensor(doubles)
    _assert_bits(g.half(), t.half())
    _assert_bits(g.bfloat16(), t.bfloat16())
    for name in REDUCED:
        th = torch.empty(len(doubles), dtype=getattr(torch, name)).copy_(t)
        _assert_bits(gt.empty(len(doubles), dtype=getattr(gt, name)).copy_(g), th)


def test_non_contiguous_source(doubles):
    x = doubles[: 2 * 1500].reshape(1500, 2)
    t = torch.from_numpy(x.copy()).t()[:, ::3]
    g = gt.tensor(x).t()[:, ::3]
    _assert_bits(g.half(), t.half())


def test_complex_to_half(doubles):
    with np.errstate(invalid="ignore"):
        z = doubles + 1j * doubles[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.from_numpy(z.copy()).to(torch.float16)
        g = gt.tensor(z).to(gt.float16)
    _assert_bits(g, t)


@pytest.mark.parametrize("src", ["float64", "float32", "float16", "bfloat16"])
def test_float_to_uint8_goes_through_int64(src):
    x = np.array(TO_UINT8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.from_numpy(x.copy()).to(getattr(torch, src)).to(torch.uint8)
        g = gt.tensor(x).to(getattr(gt, src)).to(gt.uint8)
    assert g.tolist() == t.tolist()


def test_complex_to_uint8():
    z = np.array(TO_UINT8) + 1j
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.from_numpy(z.copy()).to(torch.uint8)
        g = gt.tensor(z).to(gt.uint8)
    assert g.tolist() == t.tolist()


@pytest.mark.parametrize("name", REDUCED)
@pytest.mark.parametrize("value", TRICKY)
def test_scalar_paths(name, value):
    """fill_, full, tensor(scalar) and setitem: a Python float is converted like a double."""
    def run(m):
        out = []
        for make in (lambda: m.full((2,), value, dtype=getattr(m, name)),
                     lambda: m.zeros(2, dtype=getattr(m, name)).fill_(value),
                     lambda: m.tensor(value, dtype=getattr(m, name)),
                     lambda: m.tensor([value, value], dtype=getattr(m, name)),
                     lambda: _setitem(m, name, value)):
            try:
                out.append(_bits(make()).tolist())
            except RuntimeError as e:
                out.append(str(e))
        return out
    assert run(gt) == run(torch)


def _setitem(m, name, value):
    z = m.zeros(2, dtype=getattr(m, name))
    z[0] = value
    return z


@pytest.mark.parametrize("value", [2**40 + 7, 300, -1, 1e10, 65519.0, 1e300, 1 + 1j, 3 + 0j, 2**63])
@pytest.mark.parametrize("name", ["uint8", "int8", "float16", "bfloat16", "float32"])
def test_setitem_scalar_checks(name, value):
    """``t[i] = number`` builds a one-element tensor of t's dtype: PyTorch's checks and messages."""
    def run(m):
        z = m.zeros(2, dtype=getattr(m, name))
        try:
            z[0] = value
        except (RuntimeError, ValueError, TypeError) as e:
            return type(e).__name__, str(e)
        return z.tolist()
    assert run(gt) == run(torch)


def _warned(fn):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = fn()
    return out.tolist(), [str(w.message).split(" (Triggered")[0] for w in got]


@pytest.mark.parametrize("make", [
    lambda m: m.zeros(2).fill_(3 + 0j),
    lambda m: m.full((2,), 3 + 0j, dtype=m.float32),
    lambda m: m.zeros(2, dtype=m.bool).fill_(1j),
    lambda m: m.full((1,), 1j, dtype=m.bool),
    lambda m: m.full((3,), 0j, dtype=m.bool),
])
def test_complex_scalar_fill_is_checked_not_warned(make):
    """A complex Scalar into a real dtype: c10 refuses a non-zero imaginary part, so there is nothing to warn
    about (``copy_`` of a complex tensor does warn); into bool either part counts."""
    assert _warned(lambda: make(gt)) == _warned(lambda: make(torch))


def test_out_of_other_dtype_casts_like_copy():
    def run(m):
        h = m.empty(2, dtype=m.float16)
        m.add(m.tensor([1 + 2**-11 + 2**-30, 2.0**-25 + 2**-60], dtype=m.float64), 0, out=h)
        return _bits(h).tolist()
    assert run(gt) == run(torch)


# A copy of a non-dense tensor keeps its dims' stride order (``preserve_format``: infer_dense_strides).
LAYOUTS = [
    lambda m: m.arange(24.).view(4, 6).t()[:, ::2],
    lambda m: m.arange(120.).view(2, 3, 4, 5).permute(0, 2, 3, 1)[:, :, ::2],
    lambda m: m.arange(120.).view(2, 3, 4, 5).permute(0, 3, 1, 2)[..., ::2],
    lambda m: m.arange(24.).view(2, 3, 4).permute(2, 0, 1)[::2],
]


@pytest.mark.parametrize("make", LAYOUTS)
def test_copies_preserve_layout(make):
    def run(m):
        x = make(m)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [m.tensor(x).stride(), m.tensor(x, dtype=m.float16).stride(), x.clone().stride(),
                    x.to(m.float64).stride(), m.flip(x, [0]).stride(), m.tensor(x.numpy()).stride()]
    assert run(gt) == run(torch)
