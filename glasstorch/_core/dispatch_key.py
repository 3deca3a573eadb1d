"""Dispatch keys and key sets — PyTorch's ``c10/core/DispatchKey.h`` and ``DispatchKeySet.h``.

A key set is a Python ``int`` used as a bit set.  Bit position = priority: a call runs the kernel of
the *highest* set bit (``ks.bit_length() - 1``).  We flatten PyTorch's (functionality x backend)
layout into one ordered list of runtime keys, keeping PyTorch's order:

    backends (CPU < CUDA < PrivateUse1 < Meta)  <  SparseCPU < SparseCsrCPU  <  BackendSelect  <  Python
    <  Functionalize  <  Conjugate  <  Negative  <  ZeroTensor  <  ADInplaceOrView
    <  AutogradOther < AutogradCPU < AutogradCUDA < AutogradPrivateUse1 < AutogradMeta
    <  AutocastCPU < AutocastCUDA < AutocastPrivateUse1  <  PythonTLSSnapshot  <  PythonDispatcher

Alias keys (CompositeImplicitAutograd, CompositeExplicitAutograd, Autograd) exist only for
registration; they expand to sets of runtime keys.  Thread-local include/exclude sets modify the
key set of every call (``(ks | included) & ~excluded``).

Invariant: every runtime key is one bit; alias keys never reach the dispatch table.
"""

from __future__ import annotations

import threading

from . import thread_state

__all__ = ["DispatchKey", "RUNTIME_KEYS", "key_name", "keyset_names", "tls", "backend_keyset_for_device",
           "SPARSE_KEYS", "SPARSE_SET",
           "ALIAS_KEYS", "alias_expansion", "ExcludeDispatchKeyGuard", "IncludeDispatchKeyGuard"]

# Runtime keys, lowest priority first.  The emulated accelerator is PyTorch's PrivateUse1 (renamed "emu").
RUNTIME_KEYS = (
    "Undefined",
    "CPU", "CUDA", "PrivateUse1", "Meta",
    "SparseCPU", "SparseCsrCPU",  # the Sparse and SparseCsr functionalities of the CPU backend (sparse layouts)
    "BackendSelect",
    "Python",
    "Functionalize",
    "Conjugate", "Negative",  # the lazy math bits a tensor's key set may carry (Note [Math bits])
    "ZeroTensor",  # the bit of a tensor known to be all zeros (Note [ZeroTensor])
    "ADInplaceOrView",
    "AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradPrivateUse1", "AutogradMeta",
    "AutocastCPU", "AutocastCUDA", "AutocastPrivateUse1",
    "PythonTLSSnapshot",
    "PythonDispatcher",
)


class DispatchKey:
    """Bit positions of the runtime keys, as class attributes (``DispatchKey.CPU`` == 1)."""

    __slots__ = ()


for _i, _name in enumerate(RUNTIME_KEYS):
    setattr(DispatchKey, _name, _i)

NUM_KEYS = len(RUNTIME_KEYS)
FULL_SET = (1 << NUM_KEYS) - 1

BACKEND_KEYS = ("CPU", "CUDA", "PrivateUse1", "Meta")
AUTOGRAD_KEYS = ("AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradPrivateUse1", "AutogradMeta")
AUTOCAST_KEYS = ("AutocastCPU", "AutocastCUDA", "AutocastPrivateUse1")
# Note [Sparse keys]: PyTorch's Sparse and SparseCsr functionalities rank above Dense, so a call with any sparse
# argument runs the sparse kernel.  CompositeImplicitAutograd covers them (a decomposition works on any layout);
# CompositeExplicitAutograd does not: our composite kernels read strided data, so a sparse op registers its own.
SPARSE_KEYS = ("SparseCPU", "SparseCsrCPU")


def bit(name: str) -> int:
    return 1 << getattr(DispatchKey, name)


def keyset(*names: str) -> int:
    out = 0
    for n in names:
        out |= bit(n)
    return out


BACKEND_SET = keyset(*BACKEND_KEYS)
SPARSE_SET = keyset(*SPARSE_KEYS)
AUTOGRAD_SET = keyset(*AUTOGRAD_KEYS)
AUTOCAST_SET = keyset(*AUTOCAST_KEYS)
MATH_BITS = keyset("Conjugate", "Negative")
# Everything strictly below a key: what a kernel at that key redispatches to.
AFTER_AUTOGRAD = bit("AutogradOther") - 1
AFTER_AD_INPLACE_OR_VIEW = bit("ADInplaceOrView") - 1
AFTER_PYTHON = bit("Python") - 1
AFTER_AUTOCAST = bit("AutocastCPU") - 1


def below(key: int) -> int:
    """The mask of keys strictly below runtime key ``key`` (for redispatch)."""
    return (1 << key) - 1


# The autograd / autocast key that belongs to each backend (PyTorch's per-backend functionality).
AUTOGRAD_FOR_BACKEND = {"CPU": "AutogradCPU", "CUDA": "AutogradCUDA", "PrivateUse1": "AutogradPrivateUse1",
                        "Meta": "AutogradMeta"}
AUTOCAST_FOR_BACKEND = {"CPU": "AutocastCPU", "CUDA": "AutocastCUDA", "PrivateUse1": "AutocastPrivateUse1"}
BACKEND_FOR_DEVICE = {"cpu": "CPU", "cuda": "CUDA", "emu": "PrivateUse1", "privateuseone": "PrivateUse1",
                      "meta": "Meta"}


def backend_keyset_for_device(device_type: str) -> int:
    """The key set a new tensor on this device carries: backend + its autograd key + ADInplaceOrView + its
    autocast key.

    PyTorch puts the autograd keys on *every* non-inference tensor, whether or not it requires grad, and the
    autocast key too (the thread-local excluded set hides it until ``autocast`` is entered).
    """
    backend = BACKEND_FOR_DEVICE.get(device_type, "CPU")
    ks = bit(backend) | bit(AUTOGRAD_FOR_BACKEND[backend]) | bit("ADInplaceOrView")
    autocast = AUTOCAST_FOR_BACKEND.get(backend)
    return ks | bit(autocast) if autocast is not None else ks


# -- alias keys (registration only) -----------------------------------------------------------------
ALIAS_KEYS = ("CompositeImplicitAutograd", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional",
              "Autograd")


def alias_expansion(alias: str) -> tuple:
    """Runtime keys an alias key stands for (``getRuntimeDispatchKeySet``)."""
    if alias == "Autograd":
        return AUTOGRAD_KEYS
    if alias == "CompositeImplicitAutograd":
        return ("Undefined",) + BACKEND_KEYS + SPARSE_KEYS + AUTOGRAD_KEYS
    if alias in ("CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"):
        return ("Undefined",) + BACKEND_KEYS
    raise KeyError(alias)


def key_name(key: int) -> str:
    return RUNTIME_KEYS[key]


def keyset_names(ks: int) -> list:
    """Key names in a set, highest priority first (as PyTorch prints a DispatchKeySet)."""
    return [RUNTIME_KEYS[i] for i in range(NUM_KEYS - 1, -1, -1) if ks >> i & 1]


# -- thread-local state ------------------------------------------------------------------------------
class _TLS(threading.local):
    """Per-thread include/exclude sets (``c10::impl::LocalDispatchKeySet``).

    Defaults as PyTorch: BackendSelect and ADInplaceOrView included; every Autocast key excluded
    until ``autocast`` turns it on.
    """

    def __init__(self):
        self.included = keyset("BackendSelect", "ADInplaceOrView")
        self.excluded = AUTOCAST_SET
        self.trace_depth = 0


tls = thread_state.register(_TLS())


class ExcludeDispatchKeyGuard:
    """Exclude keys from dispatch inside a ``with`` block (``c10::impl::ExcludeDispatchKeyGuard``)."""

    __slots__ = ("ks", "prev")

    def __init__(self, ks: int):
        self.ks = ks

    def __enter__(self):
        self.prev = tls.excluded
        tls.excluded = self.prev | self.ks
        return self

    def __exit__(self, *exc):
        tls.excluded = self.prev


class IncludeDispatchKeyGuard:
    """Include keys in every call's key set inside a ``with`` block."""

    __slots__ = ("ks", "prev")

    def __init__(self, ks: int):
        self.ks = ks

    def __enter__(self):
        self.prev = tls.included
        tls.included = self.prev | self.ks
        return self

    def __exit__(self, *exc):
        tls.included = self.prev
