"""Random number generators — PyTorch's ``ATen/core/Generator.h`` and ``CPUGeneratorImpl``.

A Generator owns a stream of random bits (here numpy's PCG64) and a seed.  ``manual_seed`` makes the
stream reproducible; ``get_state``/``set_state`` save and restore it exactly.  Bit-equality with
PyTorch's mt19937 stream is not a goal; reproducibility within glasstorch is.

Invariant: the same seed and the same sequence of draws give the same numbers.
"""

from __future__ import annotations

import numpy as np

from .._core.device import as_device

__all__ = ["Generator", "DEFAULT_SEED"]

DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val
# The state tensor is as long as PyTorch's (sizeof(CPUGeneratorImplState)); the first 48 bytes are used:
# seed (8) + PCG64 state (16) + increment (16) + has_uint32 (4) + uinteger (4); the rest are zero.
_STATE_BYTES = 5056
_USED_BYTES = 48
_MASK64 = (1 << 64) - 1


class Generator:
    """A random number generator (``torch.Generator``).

    Example:
        >>> g = Generator().manual_seed(0)
        >>> g.initial_seed()
        0
    """

    __slots__ = ("device", "_seed", "np_gen", "__weakref__")

    # Set by the tensor layer so that get_state() returns a ByteTensor (a lower layer cannot import it).
    state_to_tensor = staticmethod(lambda arr: arr)
    state_from_tensor = staticmethod(lambda t: np.asarray(t, dtype=np.uint8))

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed``; negative seeds wrap to uint64 as in PyTorch."""
        seed = int(seed)
        if seed < -(1 << 63) or seed >= (1 << 64):
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & _MASK64
        self.np_gen = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self) -> int:
        """Re-seed from a non-deterministic source and return the new seed."""
        s = int(np.random.SeedSequence().entropy) & _MASK64
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        st = self.np_gen.bit_generator.state
        raw = (self._seed.to_bytes(8, "little") + st["state"]["state"].to_bytes(16, "little")
               + st["state"]["inc"].to_bytes(16, "little") + int(st["has_uint32"]).to_bytes(4, "little")
               + int(st["uinteger"]).to_bytes(4, "little"))
        out = np.zeros(_STATE_BYTES, dtype=np.uint8)
        out[:_USED_BYTES] = np.frombuffer(raw, dtype=np.uint8)
        return Generator.state_to_tensor(out)

    def set_state(self, new_state) -> Generator:
        """Restore a state from ``get_state`` (a uint8 tensor), with PyTorch's errors for anything else."""
        if not hasattr(new_state, "_impl"):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if repr(new_state.dtype) != "torch.uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = bytes(Generator.state_from_tensor(new_state).tobytes())
        if len(raw) != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input RNG "
                               f"state size to be {len(raw)}")
        bg = np.random.PCG64()
        bg.state = {"bit_generator": "PCG64",
                    "state": {"state": int.from_bytes(raw[8:24], "little"),
                              "inc": int.from_bytes(raw[24:40], "little")},
                    "has_uint32": int.from_bytes(raw[40:44], "little"),
                    "uinteger": int.from_bytes(raw[44:48], "little")}
        self._seed = int.from_bytes(raw[:8], "little")
        self.np_gen = np.random.Generator(bg)
        return self

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"


default_generator = Generator()
