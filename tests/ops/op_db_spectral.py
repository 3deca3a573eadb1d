"""OpInfo entries: torch.fft, stft/istft and the window factories (glasstorch/_ops/native_functions/spectral.yaml).

tests/test_fft.py and tests/test_signal_windows.py check these in depth (norms, layouts, lazy conjugates, every
error message, forward AD); the entries here put every declared overload through the shared harness: the
function and out= forms, gradients against torch and gradcheck, over real and complex inputs.
"""

from __future__ import annotations

from opinfo import DType, ErrorSample, OpInfo, Sample, T

REAL = ("float32", "float64")
WITH_COMPLEX = REAL + ("complex64", "complex128")
TOL = {"rtol": 1e-4, "atol": 1e-4}


def _s(args, name, kwargs=None):
    return Sample(tuple(args), kwargs or {}, name=name, **TOL)


def _one_dim_samples(dtype):
    yield _s((T((4, 6)),), "last dim")
    yield _s((T((4, 6)),), "n=9 dim=0 ortho", {"n": 9, "dim": 0, "norm": "ortho"})
    yield _s((T((3, 5), layout="transposed"),), "transposed n=3 forward", {"n": 3, "norm": "forward"})


def _nd_samples(dtype):
    yield _s((T((3, 4, 5)),), "all dims")
    yield _s((T((3, 4, 5)),), "s dim", {"s": (3, 6), "dim": (0, 2)})
    yield _s((T((2, 4, 6), layout="strided"),), "strided ortho", {"norm": "ortho"})


def _fft_errors():
    return [ErrorSample((T((4,)),), {"norm": "bad"}, name="norm"),
            ErrorSample((T((4,)),), {"n": 0}, name="n = 0")]


def _fftn_errors():
    return [ErrorSample((T((3, 4)),), {"dim": (0, 0)}, name="repeated dims"),
            ErrorSample((T((3, 4)),), {"s": (1, 2, 3)}, name="s too long")]


def _spectral(name, nd=False, real_only=False):
    return OpInfo(f"fft.{name}", aten=(f"fft_{name}", f"fft_{name}.out"),
                  samples=_nd_samples if nd else _one_dim_samples, dtypes=REAL if real_only else WITH_COMPLEX,
                  out=True, errors=_fftn_errors if nd else _fft_errors, grad_rtol=1e-3, grad_atol=1e-3)


def _primitive_samples(kind):
    def samples(dtype):
        if kind == "r2c":
            yield _s((T((4, 6)), [1], 0, True), "onesided")
            yield _s((T((4, 6)), [0, 1], 1, False), "two-sided ortho")
        elif kind == "c2r":
            yield _s((T((4, 4)), [1], 0, 6), "n=6")
            yield _s((T((4, 4)), [0, 1], 2, 7), "2-d n=7 by_n")
        else:
            yield _s((T((4, 6)), [1], 0, True), "forward")
            yield _s((T((4, 6)), [0, 1], 1, False), "backward ortho")
    return samples


def _shift_samples(dtype):
    yield _s((T((4, 5)),), "all dims")
    yield _s((T((4, 5)),), "dim 1", {"dim": 1})


def _freq_samples(dtype):
    yield Sample((5,), {"dtype": DType(dtype)}, name="n=5")
    yield Sample((6, 0.25), {"dtype": DType(dtype)}, name="n=6 d=0.25")


def _window_samples(params):
    def samples(dtype):
        yield Sample((7,), {"dtype": DType(dtype)}, name="periodic", **TOL)
        for extra in params:
            yield Sample((8, False, *extra), {"dtype": DType(dtype)}, name=f"symmetric {extra}", **TOL)
    return samples


def _window(name, overloads, params):
    aten = tuple(f"{name}.{o}" if o else name for o in overloads)
    aten += tuple(f"{name}.{o}_out" if o else f"{name}.out" for o in overloads)
    return OpInfo(name, aten=aten, samples=_window_samples(params), dtypes=REAL, grad=False,
                  errors=lambda: [ErrorSample((-1,), name="negative length"),
                                  ErrorSample((3,), {"dtype": DType("int64")}, name="integer dtype")])


def _stft_samples(dtype):
    yield _s((T((64,)), 16), "centred", {"window": T((16,), low=0.5, high=1.5), "return_complex": True})
    yield _s((T((2, 40)), 8), "not centred hop 3", {"hop_length": 3, "center": False, "return_complex": True})


def _istft_samples(dtype):
    yield _s((T((9, 6), dtype="complex64" if dtype == "float32" else "complex128"), 16), "onesided",
             {"window": T((16,), low=0.5, high=1.5)})


OPS = [
    *[_spectral(n, real_only=n in ("rfft", "ihfft")) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")],
    *[_spectral(n + s, nd=True, real_only=n in ("rfft", "ihfft"))
      for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft") for s in ("2", "n")],
    OpInfo("_fft_r2c", aten=("_fft_r2c", "_fft_r2c.out"), samples=_primitive_samples("r2c"), dtypes=REAL,
           out=True),
    OpInfo("_fft_c2r", aten=("_fft_c2r", "_fft_c2r.out"), samples=_primitive_samples("c2r"),
           dtypes=("complex64", "complex128"), out=True),
    OpInfo("_fft_c2c", aten=("_fft_c2c", "_fft_c2c.out"), samples=_primitive_samples("c2c"),
           dtypes=("complex64", "complex128"), out=True),
    OpInfo("fft.fftshift", aten=("fft_fftshift",), samples=_shift_samples, dtypes=WITH_COMPLEX),
    OpInfo("fft.ifftshift", aten=("fft_ifftshift",), samples=_shift_samples, dtypes=WITH_COMPLEX),
    OpInfo("fft.fftfreq", aten=("fft_fftfreq", "fft_fftfreq.out"), samples=_freq_samples, dtypes=REAL, grad=False,
           errors=lambda: [ErrorSample((5,), {"dtype": DType("int64")}, name="integer dtype")]),
    OpInfo("fft.rfftfreq", aten=("fft_rfftfreq", "fft_rfftfreq.out"), samples=_freq_samples, dtypes=REAL,
           grad=False),
    _window("hann_window", ("", "periodic"), [()]),
    _window("hamming_window", ("", "periodic", "periodic_alpha", "periodic_alpha_beta"), [(), (0.6,), (0.5, 0.3)]),
    _window("bartlett_window", ("", "periodic"), [()]),
    _window("blackman_window", ("", "periodic"), [()]),
    _window("kaiser_window", ("", "periodic", "beta"), [(), (4.0,)]),
    OpInfo("stft", aten=("stft", "stft.center"), samples=_stft_samples, dtypes=REAL, grad_rtol=1e-3,
           grad_atol=1e-3, errors=lambda: [ErrorSample((T((64,)), 16), name="no return_complex")]),
    OpInfo("istft", aten=("istft",), samples=_istft_samples, dtypes=REAL, grad_rtol=1e-3, grad_atol=1e-3),
]
