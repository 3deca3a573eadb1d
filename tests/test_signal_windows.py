"""The window factories (hann_window, hamming_window, bartlett_window, blackman_window, kaiser_window) and
torch.signal.windows against real PyTorch: values, dtypes, shapes, periodic/sym, the parameters, requires_grad,
the meta device, and the error types and messages.

Every case is built the same way in both libraries (``m`` is ``glasstorch`` or ``torch``) and compared with
``tests/oracle.py``.
"""

import pytest
from oracle import assert_same, assert_same_error, both

FACTORIES = {
    "hann_window": [(), (False,)],
    "hamming_window": [(), (False,), (True, 0.6), (False, 0.5, 0.3)],
    "bartlett_window": [(), (False,)],
    "blackman_window": [(), (False,)],
    "kaiser_window": [(), (False,), (True, 5.0), (False, 0.5)],
}
TOL = {"float32": dict(rtol=2e-6, atol=2e-6), "float64": dict(rtol=1e-13, atol=1e-13),
       "float16": dict(rtol=1e-3, atol=1e-3), "bfloat16": dict(rtol=8e-3, atol=8e-3)}


@pytest.mark.parametrize("name", list(FACTORIES))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("length", [0, 1, 2, 7, 10])
def test_window_factories(name, dtype, length):
    for args in FACTORIES[name]:
        gt, th = both(lambda m, args=args: getattr(m, name)(length, *args, dtype=getattr(m, dtype)))
        assert_same(gt, th, **TOL[dtype])


@pytest.mark.parametrize("name", list(FACTORIES))
def test_window_factory_default_dtype_grad_meta(name):
    assert_same(*both(lambda m: getattr(m, name)(6)), **TOL["float32"])
    gt, th = both(lambda m: getattr(m, name)(6, requires_grad=True))
    assert gt.requires_grad and th.requires_grad and gt.is_leaf and th.is_leaf
    gt, th = both(lambda m: getattr(m, name)(6, device="meta"))
    assert gt.device.type == "meta" and tuple(gt.shape) == tuple(th.shape)


FACTORY_ERRORS = {
    "integer dtype": lambda m: m.hann_window(3, dtype=m.int64),
    "negative length": lambda m: m.hamming_window(-1),
    "kaiser negative length": lambda m: m.kaiser_window(-2, False, 3.0),
    "sparse layout": lambda m: m.blackman_window(3, layout=m.sparse_coo),
    "complex dtype": lambda m: m.bartlett_window(3, dtype=m.complex64),
}


@pytest.mark.parametrize("case", list(FACTORY_ERRORS))
def test_window_factory_errors(case):
    assert_same_error(*both(lambda m: lambda: FACTORY_ERRORS[case](m)))


# -- torch.signal.windows ---------------------------------------------------------------------------------------
WINDOWS = {
    "bartlett": {}, "blackman": {}, "cosine": {}, "hamming": {}, "hann": {}, "nuttall": {},
    "exponential": {"tau": 0.7}, "gaussian": {"std": 0.8}, "kaiser": {"beta": 4.0},
    "general_cosine": {"a": [0.46, 0.23, 0.31]}, "general_hamming": {"alpha": 0.6},
}


@pytest.mark.parametrize("name", list(WINDOWS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("length", [0, 1, 2, 9, 10])
@pytest.mark.parametrize("sym", [True, False])
def test_signal_windows(name, dtype, length, sym):
    gt, th = both(lambda m: getattr(m.signal.windows, name)(length, sym=sym, dtype=getattr(m, dtype), **WINDOWS[name]))
    assert_same(gt, th, **TOL[dtype])


def test_signal_windows_defaults_grad_and_center():
    for name in WINDOWS:
        assert_same(*both(lambda m, name=name: getattr(m.signal.windows, name)(5, **WINDOWS[name])),
                    **TOL["float32"])
    gt, th = both(lambda m: m.signal.windows.hann(5, requires_grad=True))
    assert gt.requires_grad == th.requires_grad
    assert_same(*both(lambda m: m.signal.windows.exponential(7, center=2.0, sym=False)), **TOL["float32"])


SIGNAL_ERRORS = {
    "negative M": lambda m: m.signal.windows.hann(-1),
    "layout": lambda m: m.signal.windows.cosine(3, layout=m.sparse_coo),
    "dtype": lambda m: m.signal.windows.bartlett(3, dtype=m.float16),
    "integer dtype": lambda m: m.signal.windows.nuttall(3, dtype=m.int32),
    "tau": lambda m: m.signal.windows.exponential(3, tau=-1),
    "center with sym": lambda m: m.signal.windows.exponential(3, center=1, sym=True),
    "std": lambda m: m.signal.windows.gaussian(3, std=-1),
    "beta": lambda m: m.signal.windows.kaiser(3, beta=-1),
    "coefficients not a list": lambda m: m.signal.windows.general_cosine(3, a=None),
    "coefficients empty": lambda m: m.signal.windows.general_cosine(3, a=[]),
}


@pytest.mark.parametrize("case", list(SIGNAL_ERRORS))
def test_signal_window_errors(case):
    assert_same_error(*both(lambda m: lambda: SIGNAL_ERRORS[case](m)))
