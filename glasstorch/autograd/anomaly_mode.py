"""Anomaly detection — PyTorch's ``torch/autograd/anomaly_mode.py``.

While on, every node records the Python stack of the forward call that created it; when its backward
fails, that stack is printed ("Traceback of forward call that caused the error"), and with
``check_nan`` a node returning NaN raises "Function 'XBackward0' returned nan values in its 0th output.".
"""

from __future__ import annotations

import threading
import traceback
import warnings

import numpy as np

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


class _State(threading.local):
    def __init__(self):
        self.enabled = False
        self.check_nan = True


_state = _State()


def is_anomaly_enabled() -> bool:
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _state.check_nan


def record_forward_stack(node) -> None:
    node.metadata["traceback_"] = traceback.format_stack()[:-2]


def record_failure(node) -> None:
    stack = node.metadata.get("traceback_") if node._metadata else None
    if stack:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
                      + "".join(stack), UserWarning, stacklevel=2)


def check_nan(node, outputs) -> None:
    if not _state.check_nan:
        return
    for i, g in enumerate(outputs):
        if g is None or g.storage._data is None or not (g.dtype.is_floating_point or g.dtype.is_complex):
            continue
        arr = g.as_numpy()
        if arr.dtype.kind not in "fc":
            arr = arr.astype(np.float32)
        if np.isnan(arr).any():
            record_failure(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


class detect_anomaly:
    """Context manager (and decorator) turning anomaly detection on."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = True, self.check_nan

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self.prev

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Set anomaly detection on or off (a call, or a context manager restoring the previous state)."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = bool(mode), check_nan

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self.prev
