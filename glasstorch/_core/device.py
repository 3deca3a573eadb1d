"""Devices — PyTorch's ``c10/core/Device``: a type (cpu, cuda, meta, emu ...) and an optional index.

Parsing follows PyTorch: ``device('cuda:1')``, ``device('cuda', 1)``, ``device(type='cpu')``, an int means
the current accelerator with that index.  Invariant: ``device('cpu') == device('cpu')`` and devices
are hashable; ``str`` gives ``'cuda:1'``, ``repr`` gives ``device(type='cuda', index=1)``.

Note [The default device]: the device a factory (``zeros``, ``tensor``, ``arange``, ``rand`` ...) uses when the
call names none.  PyTorch keeps it as a ``DeviceContext`` torch-function mode (``torch/utils/_device.py``): ``with
torch.device('meta'):`` pushes one for the block, ``torch.set_default_device`` installs one for the thread, and
the mode fills in ``device=`` for the factory functions it lists.  Here the same state is a thread-local stack
read by :func:`factory_device`, which every factory entry point calls on its ``device`` argument (the hand-written
factories and the BackendSelect kernel of the generated ones).  ``*_like`` functions, ``from_numpy`` and tensor
methods keep their input's device, as in PyTorch.
"""

from __future__ import annotations

import re
import threading

from . import thread_state

__all__ = ["device", "DEVICE_TYPES", "factory_device", "get_default_device", "set_default_device"]

# Types a device string may name. "emu" is the emulated accelerator (PrivateUse1, renamed).
# c10's parse_type table, in its order (the error lists it), plus "emu": our PrivateUse1 backend's registered name,
# which c10 accepts before it looks at the table.
_C10_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                     "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
DEVICE_TYPES = (*_C10_DEVICE_TYPES, "emu")
_RE = re.compile(r"^([a-zA-Z_]+)(?::(\d+))?$")


class device:
    """Where a tensor's data lives (``torch.device``).

    Example:
        >>> device("cuda:1").index
        1
    """

    __slots__ = ("type", "index", "_str")

    def __init__(self, type, index=None):  # noqa: A002 - PyTorch's argument name
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): unexpected index for a device object")
            self.type, self.index, self._str = type.type, type.index, type._str
            return
        if isinstance(type, int):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({_tname(type)})")
        if not type:
            raise RuntimeError("Device string must not be empty")
        m = _RE.match(type)
        if m is None or (m.group(2) is not None and len(m.group(2)) > 1 and m.group(2)[0] == "0"):
            raise RuntimeError(f"Invalid device string: '{type}'")  # c10 refuses leading zeros too
        if m.group(2) is not None and int(m.group(2)) > 2**31 - 1:
            raise RuntimeError(f"Could not parse device index '{m.group(2)}' in device string '{type}'")
        if m.group(1) not in DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_C10_DEVICE_TYPES)} device type at start of device "
                               f"string: {type}")
        if m.group(2) is not None:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: "
                                   f"{type}")
            index = int(m.group(2))
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = m.group(1)
        self.index = index
        self._str = self.type if index is None else f"{self.type}:{index}"

    def __str__(self):
        return self._str

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other):
        if isinstance(other, device):
            return self.type == other.type and self.index == other.index
        if isinstance(other, str):
            try:
                return self == device(other)
            except RuntimeError:
                return False
        return NotImplemented

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):  # the default device of factories inside the block (Note [The default device])
        _default.stack.append(self)
        return self

    def __exit__(self, *exc):
        _default.stack.pop()
        return False


def _tname(x):
    return type(x).__name__


CPU = device("cpu")
META = device("meta")


class _DefaultDevice(threading.local):
    def __init__(self):
        self.stack = []       # the devices of the enclosing ``with device(...)`` blocks, innermost last
        self.default = None   # set_default_device's device, or None (cpu)


_default = thread_state.register(_DefaultDevice())


def get_default_device() -> device:
    """``torch.get_default_device``: the device factories use now (Note [The default device])."""
    return factory_device(None)


def set_default_device(d) -> None:
    """``torch.set_default_device``: the device factories use on this thread when a call names none (``None``:
    back to cpu).  Enclosing ``with torch.device(...)`` blocks still take precedence."""
    _default.default = None if d is None else as_device(d)


def factory_device(d) -> device:
    """A factory's ``device`` argument: the named device, else the default one (Note [The default device])."""
    if d is not None:
        return as_device(d)
    if _default.stack:
        return _default.stack[-1]
    return CPU if _default.default is None else _default.default


def as_device(d) -> device:
    """Normalise a device argument (device, str, int or None → cpu)."""
    if d is None:
        return CPU
    if isinstance(d, device):
        return d
    if d == "cpu":
        return CPU
    return device(d)
