"""Comparison helpers: glasstorch against real PyTorch (the oracle).

Small, shared API for every test file:

* ``both(builder)``            -> ``(builder(glasstorch), builder(torch))``: build the same thing in both libraries.
* ``to_torch(gt)``              -> a torch tensor with ``gt``'s dtype and values (copied via ``tolist``).
* ``from_torch(th)``            -> a glasstorch tensor with ``th``'s dtype and values (copied via ``tolist``).
* ``assert_same(gt, th, ...)``  -> shape, strides, storage offset, contiguity, dtype, device and values agree.
* ``assert_same_error(fn_gt, fn_th)`` -> both raise; same exception type name and the same message, exactly.
* ``shares_storage(a, b)``      -> both tensors read the same storage (``untyped_storage().data_ptr()``).

dtypes are compared by name: ``repr(gt.dtype) == repr(th.dtype)`` (both print ``torch.float32``).
Values are compared exactly (NaN equals NaN) unless ``rtol``/``atol`` are given.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys

import numpy as np
import torch

__all__ = ["fresh_interpreter", "both", "to_torch", "from_torch", "assert_same", "assert_same_error", "shares_storage",
           "dtype_name"]


def _glasstorch():
    import glasstorch  # imported lazily so that collecting a test module does not need the core

    return glasstorch


def both(builder):
    """``(builder(glasstorch), builder(torch))``: the same recipe run with each library as ``m``."""
    return builder(_glasstorch()), builder(torch)


def dtype_name(dtype) -> str:
    """``'float32'`` for ``torch.float32`` and ``glasstorch.float32`` alike."""
    return repr(dtype).removeprefix("torch.")


def to_torch(gt):
    """A torch tensor equal to glasstorch tensor ``gt`` (same shape, dtype and values; contiguous copy)."""
    dtype = getattr(torch, dtype_name(gt.dtype))
    return torch.tensor(gt.tolist(), dtype=dtype).reshape(tuple(gt.shape))


def from_torch(th):
    """A glasstorch tensor equal to torch tensor ``th`` (same shape, dtype and values; contiguous copy)."""
    gt = _glasstorch()
    dtype = getattr(gt, dtype_name(th.dtype))
    return gt.tensor(th.tolist(), dtype=dtype).reshape(tuple(th.shape))


def shares_storage(a, b) -> bool:
    """True when ``a`` and ``b`` are over the same storage (PyTorch's own test for a view)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _values(t) -> np.ndarray:
    return np.asarray(t.tolist()).reshape(tuple(t.shape))


def _describe(t) -> dict:
    return {
        "shape": tuple(t.shape),
        "stride": tuple(t.stride()),
        "storage_offset": t.storage_offset(),
        "is_contiguous": t.is_contiguous(),
        "dtype": repr(t.dtype),
        "device": str(t.device),
    }


def assert_same(gt, th, *, check_strides=True, rtol=None, atol=None, msg=""):
    """Assert glasstorch tensor ``gt`` matches torch tensor ``th``.

    Always compared: type (a Tensor of each library), shape, dtype (by name), device, values (skipped on
    ``meta``).  With ``check_strides`` (the default) also strides, storage offset and ``is_contiguous()``.
    Values are exact (NaN == NaN) unless ``rtol`` or ``atol`` is given.
    """
    assert isinstance(th, torch.Tensor), f"oracle result is not a tensor: {th!r}"
    assert isinstance(gt, _glasstorch().Tensor), f"{msg}glasstorch result is not a Tensor: {type(gt)!r}"
    got, want = _describe(gt), _describe(th)
    if not check_strides:
        for key in ("stride", "storage_offset", "is_contiguous"):
            del got[key], want[key]
    assert got == want, f"{msg}metadata differs:\n  glasstorch: {got}\n  torch:      {want}"
    if th.device.type == "meta":
        return
    g, t = _values(gt), _values(th)
    if rtol is None and atol is None:
        np.testing.assert_array_equal(g, t, err_msg=f"{msg}values differ")
    else:
        np.testing.assert_allclose(g, t, rtol=rtol or 0, atol=atol or 0, err_msg=f"{msg}values differ")


def _raised(fn):
    try:
        result = fn()
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return e, None
    return None, result


def assert_same_error(fn_gt, fn_th):
    """Assert both thunks raise: the same exception type (by name) and exactly the same message.

    Fails (as a broken test) when the oracle ``fn_th`` does not raise.  Returns ``(err_gt, err_th)``.
    """
    err_th, _ = _raised(fn_th)
    assert err_th is not None, "test bug: the torch oracle did not raise"
    err_gt, result = _raised(fn_gt)
    want = f"{type(err_th).__name__}: {err_th}"
    assert err_gt is not None, f"glasstorch did not raise (returned {result!r}); torch raised {want}"
    got = f"{type(err_gt).__name__}: {err_gt}"
    assert got == want, f"error differs:\n  glasstorch: {got}\n  torch:      {want}"
    return err_gt, err_th


def fresh_interpreter(test):
    """Run ``test`` in a new Python process: which gradients the engine may reuse in place (Note [Stealing
    gradients]) is read from CPython reference counts, and a hook another test leaves in the interpreter holds
    one more reference (a failed real ``torch.compile`` earlier in the process does), so versions would depend on
    test order."""
    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        if os.environ.get("GLASSTORCH_TEST_FRESH_INTERPRETER") == "1":
            return test(*args, **kwargs)
        node = os.environ["PYTEST_CURRENT_TEST"].rsplit(" ", 1)[0]
        env = dict(os.environ, GLASSTORCH_TEST_FRESH_INTERPRETER="1")
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", node], env=env,
                             cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))), capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    return wrapper
