"""Anomaly detection — PyTorch's ``torch/autograd/anomaly_mode.py``.

While on, every node records the Python stack of the forward call that created it; when its backward
fails, that stack is printed ("Traceback of forward call that caused the error"), and with
``check_nan`` a node returning NaN raises "Function 'XBackward0' returned nan values in its 0th output.".
A node made while the engine runs another (a backward with ``create_graph``) records that node as its parent,
and a failure prints the chain of parents' stacks too ("Previous calculation was induced by ...").
"""

from __future__ import annotations

import threading
import traceback
import warnings

import numpy as np

from .._core import thread_state

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "running",
           "record_forward_stack", "record_failure", "check_nan"]


class _State(threading.local):
    def __init__(self):
        self.enabled = False
        self.check_nan = True


_state = thread_state.register(_State())


def is_anomaly_enabled() -> bool:
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _state.check_nan


class _Running(threading.local):
    """The node the engine is running on this thread (PyTorch's ``get_current_node``), or None."""

    node = None


running = _Running()


def record_forward_stack(node) -> None:
    """PyTorch's ``store_stack`` and ``assign_parent``: where the forward call was, and which node's backward
    made this node (absent outside backward)."""
    meta = node.metadata
    meta["traceback_"] = traceback.format_stack()[:-2]
    parent = running.node
    if parent is not None:
        meta["parent_"] = parent


_SOURCE = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:{}.)"


def _stack_message(name: str, meta, is_parent: bool) -> str:
    """The text of one of ``print_stack``'s warnings, with the source line PyTorch's TORCH_WARN appends."""
    stack = meta.get("traceback_") if meta else None
    if not stack:
        return (f"Error detected in {name}. No forward pass information available. Enable detect anomaly during "
                "forward pass for more information." + _SOURCE.format(100))
    if is_parent:
        return (f"\n\nPrevious calculation was induced by {name}. Traceback of forward call that induced the "
                "previous calculation:\n" + "".join(stack) + _SOURCE.format(129))
    return (f"Error detected in {name}. Traceback of forward call that caused the error:\n" + "".join(stack)
            + _SOURCE.format(122))


def _warn_during_error(message: str) -> None:
    """A warning given while an error propagates: one that a filter turns into an error is printed to stderr
    instead, so the original error is the one raised (PyTorch's ``PyWarningHandler`` in an exception)."""
    try:
        warnings.warn(message, UserWarning, stacklevel=4)
    except Exception:  # noqa: BLE001 - any error a warning filter raises is printed, not raised
        traceback.print_exc()


def record_failure(node) -> None:
    """PyTorch's ``print_stack``: the failing node's forward stack, then each parent's."""
    meta = node._metadata
    _warn_during_error(_stack_message(node.name(), meta, False))
    parent = meta.get("parent_") if meta else None
    while parent is not None:
        meta = parent._metadata
        _warn_during_error(_stack_message(parent.name(), meta, True))
        parent = meta.get("parent_") if meta else None


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
