"""``torch.random``: the default CPU generator's seed and state, and ``fork_rng`` — PyTorch's ``torch/random.py``.

The generator itself is ``_device/generator.py`` (PyTorch's mt19937 ``CPUGeneratorImpl``); these are the module-level
functions scripts call as ``torch.random.*``.

Invariant: leaving ``fork_rng`` restores every generator it saved, whatever the body drew or raised.
"""

from __future__ import annotations

import contextlib
import warnings

from . import accelerator as _accelerator
from . import cuda as _cuda
from . import emu as _emu
from ._core.device import as_device
from ._functions import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]

_DEVICE_MODULES = {"cuda": _cuda, "emu": _emu, "privateuseone": _emu}
_fork_rng_warned_already = False


def _device_module(device_type: str):
    as_device(device_type)  # an unknown device type fails as torch.device parsing fails
    mod = _DEVICE_MODULES.get(device_type)
    if mod is None:
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register a module by "
                           "`torch._register_device_module`.")
    return mod


def _warn_all_devices(device_type: str, num_devices: int, caller: str, devices_kw: str) -> None:
    global _fork_rng_warned_already
    if num_devices <= 1 or _fork_rng_warned_already:
        return
    up = device_type.upper()
    warnings.warn(f"{up} reports that you have {num_devices} available devices, and you have used {caller} without "
                  f"explicitly specifying which devices are being used. For safety, we initialize *every* {up} "
                  f"device by default, which can be quite slow if you have a lot of {up}s. If you know that you are "
                  f"only making use of a few {up} devices, set the environment variable {up}_VISIBLE_DEVICES or the "
                  f"'{devices_kw}' keyword argument of {caller} with the set of devices you are actually using. For "
                  "example, if you are using CPU only, set device.upper()_VISIBLE_DEVICES= or devices=[]; if you "
                  f"are using device 0 only, set {up}_VISIBLE_DEVICES=0 or devices=[0].  To initialize all devices "
                  f"and suppress this warning, set the '{devices_kw}' keyword argument to "
                  f"`range(torch.{device_type}.device_count())`.", stacklevel=3)
    _fork_rng_warned_already = True


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Save the CPU generator's state (and the given devices'), run the body, restore them.

    Example:
        >>> with fork_rng():
        ...     _ = manual_seed(0)
    """
    if device_type == "meta" or not enabled:
        yield
        return
    acc = _accelerator.current_accelerator()
    device_type = device_type or (acc.type if acc is not None else "cuda")
    mod = _device_module(device_type)
    if devices is None:
        num_devices = mod.device_count()
        _warn_all_devices(device_type, num_devices, _caller, _devices_kw)
        devices = list(range(num_devices))
    else:
        devices = list(devices)  # a generator would be used up by the first pass
    cpu_state = get_rng_state()
    device_states = [mod.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, state in zip(devices, device_states, strict=True):
            mod.set_rng_state(state, d)
