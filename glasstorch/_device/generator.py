"""Random number generators — PyTorch's ``ATen/CPUGeneratorImpl`` over ``ATen/core/MT19937RNGEngine.h``.

A Generator owns one mt19937 stream, seeded as PyTorch seeds it, so that ``manual_seed(s)`` followed by
the same calls gives PyTorch's numbers bit for bit (the transforms live in ``_ops/kernels/cpu/random.py``).
The engine is numpy's MT19937 bit generator, whose 624-word key and position are set directly: its twist
and tempering are the reference mt19937's, as PyTorch's are, so ``random()`` here is PyTorch's
``CPUGeneratorImpl::random()`` and ``random64()`` joins two draws, the first as the high word.

Note [mt19937 state correspondence]
PyTorch keeps ``left_`` (draws until the next twist, plus one) and ``next_`` (the index of the next word);
numpy keeps ``pos``.  After any draw ``left_ + next_ == 625`` and ``pos == next_``.  A freshly seeded engine
has ``left_ == 1, next_ == 0`` and ``pos == 624`` (both twist before the first draw); a ``fresh`` flag
tells it from ``next_ == 624`` when the state is written out.  ``get_state`` writes PyTorch's
``CPUGeneratorImplState`` byte for byte (the legacy THGeneratorState with the key widened to 64-bit
words, the cached double normal in ``normal_y``, then the cached float normal), so states move between
the two libraries in both directions.

Invariant: the same seed and the same sequence of draws give PyTorch's numbers.
"""

from __future__ import annotations

import os
import struct

import numpy as np

from .._core import vmap_state as _vmap_state
from .._core.device import as_device

__all__ = ["Generator", "DEFAULT_SEED", "default_generator"]

DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val: the seed of a new torch.Generator()
_N = 624  # MERSENNE_STATE_N
_MASK32, _MASK64 = 0xFFFFFFFF, (1 << 64) - 1

# CPUGeneratorImplState: legacy pod (seed u64, left i32, seeded i32, next u64, state u64[624], normal_x,
# normal_y, normal_rho f64, normal_is_valid i32 + 4 pad), then next_float_normal_sample f32, its valid flag
# (bool) and 3 pad bytes: 5056 bytes.
_HEAD = struct.Struct("<QiiQ")
_TAIL = struct.Struct("<dddi4xf?3x")
_KEY_AT = _HEAD.size
_TAIL_AT = _KEY_AT + 8 * _N
_STATE_BYTES = _TAIL_AT + _TAIL.size


def init_genrand(seed: int) -> np.ndarray:
    """mt19937's key for ``seed`` (only its low 32 bits count, as in ``mt19937_engine::init_with_uint32``)."""
    key = np.empty(_N, dtype=np.uint32)
    s = seed & _MASK32
    key[0] = s
    for j in range(1, _N):
        s = (1812433253 * (s ^ (s >> 30)) + j) & _MASK32
        key[j] = s
    return key


def _numpy_seeds_as_init_genrand() -> bool:
    """Whether numpy's MT19937 ``_legacy_seeding`` (its C ``mt19937_seed``, which RandomState uses) computes
    ``init_genrand``'s key, 150 times faster than the Python loop; checked once."""
    bg = np.random.MT19937()
    try:
        bg._legacy_seeding(0x9E3779B9)
    except (AttributeError, TypeError, ValueError):
        return False
    st = bg.state["state"]
    return int(st["pos"]) == _N and bool(np.array_equal(st["key"], init_genrand(0x9E3779B9)))


_FAST_SEEDING = _numpy_seeds_as_init_genrand()


def _nondeterministic_seed() -> int:
    """``c10::detail::getNonDeterministicRandom`` on the CPU: 64 bits from /dev/urandom."""
    return int.from_bytes(os.urandom(8), "little")


class Generator:
    """A random number generator (``torch.Generator``).

    Example:
        >>> g = Generator().manual_seed(0)
        >>> g.initial_seed()
        0
    """

    __slots__ = ("device", "_seed", "_bg", "_address", "_fresh", "next_float_normal_sample",
                 "next_double_normal_sample", "__weakref__")

    # Set by the tensor layer so that get_state() returns a ByteTensor (a lower layer cannot import it).
    state_to_tensor = staticmethod(lambda arr: arr)
    state_from_tensor = staticmethod(lambda t: np.asarray(t, dtype=np.uint8))

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        self._bg = np.random.MT19937()
        self._address = self._bg.ctypes.state_address  # fixed for the bit generator's life (states are copied in)
        self.manual_seed(DEFAULT_SEED)

    # -- seeding ------------------------------------------------------------------------------------------
    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed``; negative seeds wrap to uint64 as in PyTorch."""
        seed = int(seed)
        if seed < -(1 << 63) or seed >= (1 << 64):
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & _MASK64
        if _FAST_SEEDING:
            self._bg._legacy_seeding(self._seed & _MASK32)
            self._fresh = True
        else:
            self._set_engine(init_genrand(self._seed), _N, fresh=True)
        self.next_float_normal_sample = None
        self.next_double_normal_sample = None
        return self

    def seed(self) -> int:
        """Re-seed from a non-deterministic source and return the new seed."""
        s = _nondeterministic_seed()
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def _set_engine(self, key: np.ndarray, pos: int, fresh: bool) -> None:
        self._bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._fresh = fresh

    # -- draws ----------------------------------------------------------------------------------------------
    def random(self, n: int) -> np.ndarray:
        """``n`` draws of ``CPUGeneratorImpl::random()``: 32-bit words, as a uint64 array."""
        _vmap_state.check_random()
        if n:
            self._fresh = False
        return self._bg.random_raw(n)

    def engine_address(self, n: int) -> int:
        """The address of the engine's state (numpy's ``mt19937_state``: 624 words, then ``pos``) for a C kernel
        about to draw ``n`` words from it in place."""
        _vmap_state.check_random()
        if n:
            self._fresh = False
        return self._address

    def random64(self, n: int) -> np.ndarray:
        """``n`` draws of ``CPUGeneratorImpl::random64()``: two words each, the first one high."""
        raw = self.random(2 * n)
        return (raw[0::2] << np.uint64(32)) | raw[1::2]

    # -- state ----------------------------------------------------------------------------------------------
    def get_state(self):
        """PyTorch's ``CPUGeneratorImplState`` bytes as a uint8 tensor (see Note [mt19937 state correspondence])."""
        st = self._bg.state["state"]
        pos = int(st["pos"])
        left, nxt = (1, 0 if self._fresh else _N) if pos == _N else (_N + 1 - pos, pos)
        out = np.zeros(_STATE_BYTES, dtype=np.uint8)
        _HEAD.pack_into(out, 0, self._seed, left, 1, nxt)
        out[_KEY_AT:_TAIL_AT] = np.asarray(st["key"], dtype="<u8").view(np.uint8)
        nd, nf = self.next_double_normal_sample, self.next_float_normal_sample
        _TAIL.pack_into(out, _TAIL_AT, 0.0, 0.0 if nd is None else nd, 0.0, nd is not None,
                        0.0 if nf is None else nf, nf is not None)
        return Generator.state_to_tensor(out)

    def set_state(self, new_state) -> Generator:
        """Restore a state from ``get_state`` (here or in PyTorch), with PyTorch's errors for anything else."""
        if not hasattr(new_state, "_impl"):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if repr(new_state.dtype) != "torch.uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = bytes(Generator.state_from_tensor(new_state).tobytes())
        if len(raw) != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input RNG "
                               f"state size to be {len(raw)}")
        seed, left, seeded, nxt = _HEAD.unpack_from(raw, 0)
        nxt &= _MASK32  # PyTorch narrows the legacy 64-bit field to uint32_t
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = np.frombuffer(raw, dtype="<u8", count=_N, offset=_KEY_AT).astype(np.uint32)
        _x, normal_y, _rho, normal_valid, next_float, float_valid = _TAIL.unpack_from(raw, _TAIL_AT)
        self._seed = seed
        # left == 1 twists before the next draw whatever next_ says; otherwise the next word is key[next_]
        self._set_engine(key, _N if left == 1 else nxt, fresh=left == 1 and nxt == 0)
        self.next_double_normal_sample = normal_y if normal_valid else None
        self.next_float_normal_sample = next_float if float_valid else None
        return self

    def get_offset(self) -> int:
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset: int) -> Generator:
        raise RuntimeError("CPU Generator does not use offset")

    def clone_state(self) -> Generator:
        """A new generator in this one's state (``Generator.clone_state``)."""
        other = Generator(self.device)
        other.set_state(self.get_state())
        return other

    def __reduce__(self):
        """Pickled as PyTorch pickles it: ``(Generator, (device,), (initial_seed, offset, state))``; the engine's
        address is this process's and is never pickled."""
        return (Generator, (self.device,), (self._seed, None, self.get_state()))

    def __setstate__(self, state) -> None:
        seed, offset, rng_state = state
        self.manual_seed(seed)
        if offset is not None:
            self.set_offset(offset)
        self.set_state(rng_state)

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"


# PyTorch seeds its default CPU generator from /dev/urandom at start-up (getDefaultCPUGenerator)
default_generator = Generator().manual_seed(_nondeterministic_seed())
