"""torch.fft, stft and istft against real PyTorch: values (complex64 tolerances), dtypes, shapes, strides, the three
norms, ``n``/``s``/``dim``, ``out=``, lazy conjugates, errors with their messages, gradients (backward against
torch, gradcheck in float64, forward AD) and the Meta key.

Every case is built the same way in both libraries (``m`` is ``glasstorch`` or ``torch``) and compared with
``tests/oracle.py``.
"""

import warnings

import numpy as np
import pytest
from oracle import assert_same, assert_same_error, both

import glasstorch

_RNG = np.random.default_rng(2020)
_X = _RNG.standard_normal((4, 6, 5)).round(4)
_Y = _RNG.standard_normal((4, 6, 5)).round(4)
_G = _RNG.standard_normal((16, 16, 16)).round(4)

TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "complex64": dict(rtol=1e-5, atol=1e-5),
       "float64": dict(rtol=1e-12, atol=1e-12), "complex128": dict(rtol=1e-12, atol=1e-12)}


def _real(m, dtype="float32", data=_X):
    return m.tensor(data.tolist(), dtype=getattr(m, dtype))


def _cplx(m, dtype="complex64"):
    part = "float32" if dtype == "complex64" else "float64"
    return m.complex(_real(m, part), _real(m, part, _Y))


def _tol(t):
    return TOL.get(str(t.dtype).removeprefix("torch."), {})


def _check(gt, th):
    """Same metadata; values within the dtype's tolerance, absolute error scaled by the result's magnitude."""
    tol = dict(_tol(th))
    if tol and th.numel():
        tol["atol"] *= max(1.0, float(th.detach().abs().max()))
    assert_same(gt, th, **tol)
    assert gt.is_conj() == th.is_conj()


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
REAL_ONLY = {"rfft", "ihfft"}


def _input(name, m, dtype):
    if name in REAL_ONLY or not dtype.startswith("complex"):
        return _real(m, dtype if not dtype.startswith("complex") else "float32")
    return _cplx(m, dtype)


# -- 1-d transforms: every norm, n, dim, dtype -------------------------------------------------------------------
@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_one_dim(name, dtype, norm):
    if name in REAL_ONLY and dtype.startswith("complex"):
        pytest.skip("real-input transform")
    for n, dim in ((None, -1), (3, 1), (9, 0), (None, 1)):
        def run(m, n=n, dim=dim):
            x = _input(name, m, dtype) if dtype != "int64" else m.arange(120).reshape(4, 6, 5)
            return getattr(m.fft, name)(x, n=n, dim=dim, norm=norm)
        _check(*both(run))


# -- n-d and 2-d transforms ----------------------------------------------------------------------------------------
ND = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]


@pytest.mark.parametrize("name", ND)
@pytest.mark.parametrize("args", [{}, {"dim": (0, 2)}, {"dim": (2, 0)}, {"s": (3, 7)}, {"s": (3, -1), "dim": (0, 1)},
                                  {"dim": (1,)}, {"s": (4,)}, {"norm": "ortho"}, {"norm": "forward", "dim": (-1, 0)},
                                  {"norm": "backward", "s": (5, 4)}])
def test_n_dim(name, args):
    dtype = "float32" if name in ("rfftn", "ihfftn") else "complex64"
    _check(*both(lambda m: getattr(m.fft, name)(_input(name, m, dtype), **args)))


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
@pytest.mark.parametrize("args", [{}, {"dim": (0, 2)}, {"s": (3, 8)}, {"norm": "ortho"}])
def test_two_dim(name, args):
    _check(*both(lambda m: getattr(m.fft, name)(_real(m, "float64"), **args)))


def test_fftn_of_a_0_dim_tensor_and_empty_dims():
    _check(*both(lambda m: m.fft.fftn(m.tensor(2.0))))
    _check(*both(lambda m: m.fft.fftn(_real(m), dim=())))


def test_layout_follows_the_input_strides():
    """PyTorch's output layout: batch dims outermost in input-stride order, then the transformed dims."""
    _check(*both(lambda m: m.fft.fft(_real(m).permute(2, 0, 1), dim=1)))
    _check(*both(lambda m: m.fft.rfftn(_real(m).transpose(0, 2), dim=(0, 1))))
    _check(*both(lambda m: m.fft.fft(_cplx(m)[:, ::2], dim=0)))


def test_conjugate_views():
    """ifft of real input, hfft's input and ihfft come back as lazy conjugates, as in PyTorch."""
    for name in ("ifft", "ihfft"):
        gt, th = both(lambda m, name=name: getattr(m.fft, name)(_real(m)))
        assert gt.is_conj() and th.is_conj()
        _check(gt, th)
    _check(*both(lambda m: m.fft.hfft(_cplx(m).conj())))
    _check(*both(lambda m: m.fft.fft(_cplx(m).conj())))


# -- out= ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,kwargs", [("fft", {}), ("ifft", {}), ("rfft", {}), ("irfft", {}), ("hfft", {}),
                                         ("ihfft", {}), ("fftn", {}), ("rfftn", {"dim": (0, 1)}), ("irfftn", {}),
                                         ("hfftn", {}), ("ihfftn", {}), ("ihfftn", {"dim": (1,)}), ("fft2", {})])
def test_out(name, kwargs):
    real_out = name in ("irfft", "hfft", "irfftn", "hfftn")

    def run(m):
        x = _input(name, m, "float32" if name in ("rfft", "ihfft", "rfftn", "ihfftn", "fft", "ifft") else "complex64")
        out = m.empty(0, dtype=m.float32 if real_out else m.complex64)
        res = getattr(m.fft, name)(x, **kwargs, out=out)
        assert res is out
        return out
    _check(*both(run))


def test_out_of_another_precision():
    """out= of another complex or real precision takes the result cast, as torch's copy into out does."""
    single = dict(rtol=1e-5, atol=1e-4)  # computed in single precision either way
    assert_same(*both(lambda m: m.fft.rfft(_real(m), out=m.empty(0, dtype=m.complex128))), **single)
    assert_same(*both(lambda m: m.fft.fft(_real(m, "float64"), out=m.empty(0, dtype=m.complex64))), **single)
    assert_same(*both(lambda m: m.fft.irfft(_cplx(m), out=m.empty(0, dtype=m.float64))), **single)


@pytest.mark.parametrize("name,out_dtype", [("fft", "float32"), ("rfft", "float32"), ("irfft", "complex64"),
                                            ("fftn", "float64"), ("rfftn", "float32"), ("irfftn", "complex64"),
                                            ("hfftn", "complex64"), ("ihfft", "float32")])
def test_out_dtype_errors(name, out_dtype):
    def run(m):
        x = _input(name, m, "complex64" if name in ("irfft", "irfftn", "hfftn") else "float32")
        return getattr(m.fft, name)(x, out=m.empty(0, dtype=getattr(m, out_dtype)))
    assert_same_error(*both(lambda m: lambda: run(m)))


# -- errors ----------------------------------------------------------------------------------------------------------
ERRORS = {
    "bad norm": lambda m: m.fft.fft(_real(m), norm="bad"),
    "n = 0": lambda m: m.fft.fft(_real(m), n=0),
    "irfft n = 0": lambda m: m.fft.irfft(_cplx(m), n=0),
    "irfft of one point": lambda m: m.fft.irfft(m.ones(1)),
    "empty signal": lambda m: m.fft.fft(m.ones(0)),
    "dim out of range": lambda m: m.fft.fft(_real(m), dim=3),
    "0-dim 1-d transform": lambda m: m.fft.fft(m.tensor(1.0)),
    "repeated dims": lambda m: m.fft.fftn(_real(m), dim=(0, 0)),
    "s and dim lengths": lambda m: m.fft.fftn(_real(m), s=(2,), dim=(0, 1)),
    "s too long": lambda m: m.fft.fftn(_real(m), s=(2, 2, 2, 2)),
    "s with 0": lambda m: m.fft.irfftn(_cplx(m), s=(0,)),
    "rfft of complex": lambda m: m.fft.rfft(_cplx(m)),
    "rfftn of complex": lambda m: m.fft.rfftn(_cplx(m)),
    "rfftn no axes": lambda m: m.fft.rfftn(_real(m), dim=()),
    "irfftn no axes": lambda m: m.fft.irfftn(_real(m), dim=()),
    "hfftn no axes": lambda m: m.fft.hfftn(_real(m), dim=()),
    "float16": lambda m: m.fft.fft(_real(m, "float16")),
    "bfloat16": lambda m: m.fft.rfft(_real(m, "bfloat16")),
    "complex32": lambda m: m.fft.fft(m.ones(4, dtype=m.complex32)),
    "fftshift of no dims": lambda m: m.fft.fftshift(m.arange(5), dim=()),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    assert_same_error(*both(lambda m: lambda: ERRORS[case](m)))


# -- freq, shift -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,d", [(5, 1.0), (6, 0.5), (1, 2.0), (0, 1.0), (7, 0.0)])
@pytest.mark.parametrize("dtype", [None, "float64", "float16", "bfloat16"])
def test_fftfreq(n, d, dtype):
    for name in ("fftfreq", "rfftfreq"):
        kw = {} if dtype is None else {"dtype": dtype}
        _check(*both(lambda m, name=name, kw=kw: getattr(m.fft, name)(
            n, d, **{k: getattr(m, v) for k, v in kw.items()})))


def test_fftfreq_out_requires_grad_and_errors():
    def resized(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = m.fft.fftfreq(5, out=m.empty(3, dtype=m.float64))
        return out, [str(w.message).split(" (Triggered internally")[0] for w in caught]
    (gt, gt_warns), (th, th_warns) = both(resized)
    _check(gt, th)
    assert gt_warns == th_warns
    gt, th = both(lambda m: m.fft.rfftfreq(5, requires_grad=True))
    assert gt.requires_grad and th.requires_grad
    assert_same_error(*both(lambda m: lambda: m.fft.fftfreq(5, dtype=m.int64)))
    assert_same_error(*both(lambda m: lambda: m.fft.fftfreq(-1)))


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("dim", [None, 0, (1, 2), -1])
def test_shift(name, dim):
    _check(*both(lambda m: getattr(m.fft, name)(m.arange(120).reshape(4, 6, 5), dim=dim)))


# -- gradients -------------------------------------------------------------------------------------------------------
GRAD_CASES = [("fft", {}), ("ifft", {"n": 7}), ("rfft", {}), ("rfft", {"n": 9, "norm": "ortho"}), ("irfft", {}),
              ("irfft", {"n": 11}), ("hfft", {"norm": "forward"}), ("ihfft", {}), ("fftn", {"s": (3, 7)}),
              ("rfftn", {"dim": (0, 2)}), ("irfftn", {"s": (5, 8)}), ("hfftn", {"dim": (0, 1)}), ("ihfftn", {}),
              ("ihfft2", {}), ("fftshift", {})]


def _grad_input(name, m, dtype="float64"):
    if name in ("rfft", "ihfft", "rfftn", "ihfftn", "ihfft2", "fftshift"):
        return _real(m, dtype).requires_grad_()
    return _cplx(m, "complex128" if dtype == "float64" else "complex64").requires_grad_()


@pytest.mark.parametrize("name,kwargs", GRAD_CASES)
def test_backward_matches_torch(name, kwargs):
    def run(m):
        x = _grad_input(name, m, "float32")
        y = getattr(m.fft, name)(x, **kwargs)
        w = m.tensor(_G[tuple(slice(0, s) for s in y.shape)].tolist(), dtype=m.float32)
        loss = (y.abs() * w).sum() if y.is_complex() else (y * w).sum()
        loss.backward()
        return x.grad
    gt, th = both(run)
    assert_same(gt, th, check_strides=False, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name,kwargs", GRAD_CASES[:12])
def test_gradcheck_float64(name, kwargs):
    x = _grad_input(name, glasstorch)
    fn = getattr(glasstorch.fft, name)
    assert glasstorch.autograd.gradcheck(lambda t: fn(t, **kwargs), (x,), fast_mode=True)


@pytest.mark.parametrize("name,kwargs", [("fft", {}), ("rfft", {"n": 9}), ("irfft", {}), ("fftn", {"dim": (0, 1)})])
def test_forward_ad_matches_torch(name, kwargs):
    def run(m):
        x = _grad_input(name, m).detach()
        t = _grad_input(name, m).detach() * 0.5 + 1
        with m.autograd.forward_ad.dual_level():
            y = getattr(m.fft, name)(m.autograd.forward_ad.make_dual(x, t), **kwargs)
            return m.autograd.forward_ad.unpack_dual(y).tangent
    gt, th = both(run)
    assert_same(gt, th, check_strides=False, rtol=1e-10, atol=1e-10)


def test_meta_shapes():
    for name, kwargs in (("fft", {}), ("rfft", {"n": 9}), ("irfftn", {"s": (3, 8)}), ("hfft2", {})):
        gt, th = both(lambda m, name=name, kwargs=kwargs: getattr(m.fft, name)(
            m.empty(4, 6, 5, device="meta", dtype=m.complex64 if name != "rfft" else m.float32), **kwargs))
        assert tuple(gt.shape) == tuple(th.shape) and str(gt.dtype) == str(th.dtype)
        assert gt.device.type == "meta"


# -- stft / istft ----------------------------------------------------------------------------------------------------
_S = _RNG.standard_normal((2, 64)).round(4)

STFT_CASES = {
    "hann centred": lambda m, x: m.stft(x, 16, window=m.hann_window(16), return_complex=True),
    "hop and short window": lambda m, x: m.stft(x, 16, hop_length=3, win_length=10, window=m.hamming_window(10),
                                                 return_complex=True),
    "not centred": lambda m, x: m.stft(x, 12, center=False, window=m.ones(12), return_complex=True),
    "constant pad, normalized": lambda m, x: m.stft(x, 8, pad_mode="constant", normalized=True, window=m.ones(8),
                                                    return_complex=True),
    "two-sided": lambda m, x: m.stft(x, 8, onesided=False, window=m.ones(8), return_complex=True),
    "real pairs": lambda m, x: m.stft(x[0], 10, window=m.ones(10), return_complex=False),
    "method": lambda m, x: x.stft(10, window=m.blackman_window(10), return_complex=True),
    "complex input": lambda m, x: m.stft(m.complex(x, x.flip(-1)), 8, window=m.ones(8)),
    "aligned to the window": lambda m, x: m.stft(x, 16, win_length=8, window=m.hann_window(8), center=False,
                                                 align_to_window=True, return_complex=True),
}


@pytest.mark.parametrize("case", list(STFT_CASES))
def test_stft(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(*both(lambda m: STFT_CASES[case](m, m.tensor(_S.tolist(), dtype=m.float32))))


def test_stft_gradient():
    def run(m):
        x = m.tensor(_S.tolist(), dtype=m.float32, requires_grad=True)
        m.stft(x, 16, hop_length=4, window=m.hann_window(16), return_complex=True).abs().sum().backward()
        return x.grad
    assert_same(*both(run), check_strides=False, rtol=1e-4, atol=1e-4)


STFT_ERRORS = {
    "no return_complex": lambda m, x: m.stft(x, 10, window=m.ones(10)),
    "n_fft too long": lambda m, x: m.stft(x[0], 100, center=False, window=m.ones(100), return_complex=True),
    "hop 0": lambda m, x: m.stft(x, 10, hop_length=0, window=m.ones(10), return_complex=True),
    "win_length": lambda m, x: m.stft(x, 10, win_length=11, window=m.ones(10), return_complex=True),
    "window size": lambda m, x: m.stft(x, 10, window=m.ones(9), return_complex=True),
    "integer input": lambda m, x: m.stft(x.long(), 10, window=m.ones(10), return_complex=True),
    "3-d input": lambda m, x: m.stft(x.reshape(2, 2, 32), 4, window=m.ones(4), return_complex=True),
    "onesided complex": lambda m, x: m.stft(x.cfloat(), 10, onesided=True, window=m.ones(10)),
    "align_to_window with center": lambda m, x: m.stft(x, 10, window=m.ones(10), return_complex=True,
                                                       align_to_window=True),
}


@pytest.mark.parametrize("case", list(STFT_ERRORS))
def test_stft_errors(case):
    assert_same_error(*both(lambda m: lambda: STFT_ERRORS[case](m, m.tensor(_S.tolist(), dtype=m.float32))))


ISTFT_CASES = {
    "round trip": (dict(n_fft=16, window="hann"), {}),
    "not centred, hop 4": (dict(n_fft=16, hop_length=4, center=False, window="ones"), {}),
    "short window, length": (dict(n_fft=16, hop_length=4, win_length=12, window="hamming12"), {"length": 60}),
    "normalized": (dict(n_fft=8, normalized=True, window="ones"), {}),
    "two-sided complex": (dict(n_fft=8, onesided=False, return_complex=True, window="ones"), {}),
}


def _window(m, spec, n):
    return {"hann": m.hann_window(n), "ones": m.ones(n), "hamming12": m.hamming_window(12)}[spec]


@pytest.mark.parametrize("case", list(ISTFT_CASES))
def test_istft(case):
    spec, extra = ISTFT_CASES[case]

    def run(m):
        x = m.tensor(_S.tolist(), dtype=m.float32)
        kw = dict(spec)
        w = _window(m, kw.pop("window"), kw["n_fft"])
        rc = kw.pop("return_complex", False)
        z = m.stft(x, **kw, window=w, return_complex=True)
        return m.istft(z, **kw, window=w, return_complex=rc, **extra)
    _check(*both(run))


def test_istft_gradient():
    def run(m):
        z = m.stft(m.tensor(_S.tolist(), dtype=m.float32), 16, window=m.hann_window(16), return_complex=True)
        z.requires_grad_()
        w = m.tensor(_G.reshape(-1)[:128].reshape(2, 64).tolist(), dtype=m.float32)
        (m.istft(z, 16, window=m.hann_window(16)) * w).sum().backward()
        return z.grad
    assert_same(*both(run), check_strides=False, rtol=1e-4, atol=1e-4)


ISTFT_ERRORS = {
    "real input": lambda m, z: m.istft(z.real, 10),
    "onesided mismatch": lambda m, z: m.istft(z, 8, onesided=False, window=m.ones(8)),
    "hop too long": lambda m, z: m.istft(z, 10, hop_length=11, window=m.ones(10)),
    "window size": lambda m, z: m.istft(z, 10, window=m.ones(9)),
    "empty": lambda m, z: m.istft(z[:0], 10, window=m.ones(10)),
    "zero window": lambda m, z: m.istft(z, 10, window=m.zeros(10)),
}


@pytest.mark.parametrize("case", list(ISTFT_ERRORS))
def test_istft_errors(case):
    def run(m):
        z = m.complex(m.tensor(_X[0].tolist(), dtype=m.float32), m.tensor(_Y[0].tolist(), dtype=m.float32))
        return lambda: ISTFT_ERRORS[case](m, z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(*both(run))


@pytest.mark.parametrize("name", ["rfft", "irfft", "fft"])
def test_double_backward_matches_torch(name):
    """The backward formulas are differentiable operators: a gradient of a gradient agrees with torch's."""
    def run(m):
        x = _grad_input(name, m)
        y = getattr(m.fft, name)(x)
        loss = (y.abs() ** 2).sum() if y.is_complex() else (y ** 3).sum()
        (g,) = m.autograd.grad(loss, x, create_graph=True)
        (gg,) = m.autograd.grad(g.abs().sum(), x)
        return gg
    assert_same(*both(run), check_strides=False, rtol=1e-9, atol=1e-9)
